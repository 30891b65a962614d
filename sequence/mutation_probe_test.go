package sequence_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// A WithAnchor inside the range replaces an earlier one outside it, as
// WithAnchorNanos does: the sequence is usable again and shows the new
// anchor.
func TestMu42WithAnchorInRangeClearsAFarAnchor(t *testing.T) {
	far := sequence.Every(time.Second).WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC))
	require.Error(t, far.Err())
	s := far.WithAnchor(time.Unix(5, 0))
	require.NoError(t, s.Err())
	assert.Equal(t, int64(5e9), s.Anchor())
	assert.Equal(t, "every 1s from 5000000000", s.String())
}

// An anchor WithAnchor was given outside the range keeps its side of the
// epoch: a time after 2116 leaves an anchor past schema.MaxTime, one
// before 1823 an anchor before schema.MinTime.
func TestMu42FarAnchorKeepsItsSide(t *testing.T) {
	every := sequence.Every(time.Second)
	assert.Greater(t, every.WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)).Anchor(), int64(schema.MaxTime))
	assert.Less(t, every.WithAnchor(time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC)).Anchor(), int64(schema.MinTime))
}

// String and Err show a far anchor in UTC whatever the local time zone
// ("…from 3000-01-01T00:00:00Z", not the local offset).
func TestMu42FarAnchorIsShownInUTC(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("MU42", 5*3600)
	t.Cleanup(func() { time.Local = saved })
	s := sequence.Every(time.Second).WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC))
	assert.Equal(t, "every 1s from 3000-01-01T00:00:00Z", s.String())
	assert.EqualError(t, s.Err(), "sequence: invalid sequence: anchor 3000-01-01T00:00:00Z is outside the years 1823 to 2116")
}
