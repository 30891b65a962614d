package events

import (
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStreamIsTheSeedStreamFromAnyTick(t *testing.T) {
	seed := benchmarks.NewSeedStream(7, 10, 3)
	s, err := NewStream(7, 10, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	for _, k := range []int64{0, 1, 17, 29} {
		evs := s.Tick(nil, k)
		b := seed.Batches[k]
		require.Len(t, evs, b.Len())
		for i, e := range evs {
			assert.Equal(t, b.Time[i], e.TimeMs*int64(time.Millisecond))
			assert.Equal(t, b.Cols[0].Num[i], e.CPU)
			assert.Equal(t, b.Cols[1].Num[i], e.Requests)
			assert.Equal(t, b.Cols[2].Str[i], e.Host)
		}
	}
}

func TestValueRoundTripsBitForBit(t *testing.T) {
	e := Event{CPU: 0.1 + 0.2, Requests: 97}
	cpu, req, err := DecodeValue(AppendValue(nil, &e))
	require.NoError(t, err)
	assert.Equal(t, e.CPU, cpu)
	assert.Equal(t, e.Requests, req)
	_, _, err = DecodeValue([]byte{1})
	assert.ErrorIs(t, err, ErrValue)
}
