package eventsv1

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// FuzzDecodeEvents feeds DecodeEvents arbitrary bytes, as a producer on
// the network could send: it never panics, and whatever proto.Unmarshal
// accepts as an EventBatch it decodes to the same events (protobuf's
// rules: unknown fields and fields of an unexpected wire type skipped, the
// last of a repeated scalar kept). Events it encodes with AppendEvents
// come back as they were.
func FuzzDecodeEvents(f *testing.F) {
	seed := func(evs ...*Event) {
		data, err := AppendEvents(nil, evs)
		require.NoError(f, err)
		f.Add(data)
	}
	seed(&Event{TimeMs: 1714000000000, Cpu: 0.5, Requests: 12, Host: "api-1"})
	seed(&Event{}, &Event{TimeMs: -1, Cpu: math.Copysign(0, -1), Requests: 199, Host: "ü"})
	seed(&Event{Cpu: math.NaN(), Host: "a"}, &Event{TimeMs: math.MaxInt64, Requests: math.MinInt64})
	f.Add([]byte{0x0a, 0x02, 0x08})                   // an event cut short
	f.Add([]byte{0x0a, 0x04, 0x08, 0x01, 0x08, 0x02}) // time_ms twice
	f.Add([]byte{0x12, 0x01, 0x00, 0x0a, 0x00})       // an unknown field, then an empty event
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []*Event
		err := DecodeEvents(data, func(ts int64, cpu float64, req int64, host []byte) {
			got = append(got, &Event{TimeMs: ts, Cpu: cpu, Requests: req, Host: string(host)})
		})
		var want EventBatch
		if proto.Unmarshal(data, &want) != nil {
			return // not an EventBatch to protobuf (DecodeEvents may still take it: it does not check UTF-8)
		}
		require.NoError(t, err, "protobuf accepts these bytes")
		require.Len(t, got, len(want.Events))
		for i, w := range want.Events {
			requireSameEvent(t, w, got[i])
		}
		// What AppendEvents writes of them decodes to them again.
		enc, err := AppendEvents(nil, got)
		require.NoError(t, err)
		var again []*Event
		require.NoError(t, DecodeEvents(enc, func(ts int64, cpu float64, req int64, host []byte) {
			again = append(again, &Event{TimeMs: ts, Cpu: cpu, Requests: req, Host: string(host)})
		}))
		require.Len(t, again, len(got))
		for i := range got {
			requireSameEvent(t, got[i], again[i])
		}
	})
}

// requireSameEvent compares two events field by field, cpu by its bits
// (NaN and -0 included).
func requireSameEvent(t *testing.T, want, got *Event) {
	t.Helper()
	require.Equal(t, want.TimeMs, got.TimeMs)
	require.Equal(t, math.Float64bits(want.Cpu), math.Float64bits(got.Cpu))
	require.Equal(t, want.Requests, got.Requests)
	require.Equal(t, want.Host, got.Host)
}
