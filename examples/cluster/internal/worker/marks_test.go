package worker

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The replay's start is at or before the first offset whose running
// maximum of timestamps reaches the start time, however the timestamps
// go back (stale records), and not far before it: within the records of
// about markEvery of event time (here one record a millisecond).
func TestReplayMarksStartBeforeTheFirstRecordTheWindowsNeed(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var m replayMarks
		var ts []int64
		now := int64(1_000_000)
		for range 200_000 {
			ms := now
			switch rng.IntN(50) {
			case 0: // a record minutes back
				ms = now - 120_000 - rng.Int64N(60_000)
			case 1: // one out of range
				ms = -1 - rng.Int64N(1000)
			default:
				now++
			}
			m.see(int64(len(ts)), ms)
			ts = append(ts, ms)
			if len(ts)%997 == 0 {
				from := now - LongestWindow.Milliseconds() + rng.Int64N(1000)
				got, ok := m.start(from)
				require.True(t, ok)
				// The first offset where the running maximum reaches from.
				want, run := int64(-1), int64(-1)
				for o, x := range ts {
					if x >= 0 && x <= maxTimeMs {
						run = max(run, x)
					}
					if run >= from {
						want = int64(o)
						break
					}
				}
				require.GreaterOrEqual(t, want, int64(0))
				require.LessOrEqual(t, got, want, "seed %d: the start is after a record the windows need", seed)
				require.Less(t, want-got, 3*markEvery, "seed %d: the start is far before the first record needed", seed)
			}
		}
		require.LessOrEqual(t, len(m.marks)-m.head, maxMarks)
	}
}
