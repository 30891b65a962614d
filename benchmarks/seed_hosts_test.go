package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/live"
)

// TestSeedHostsSteadyDoesNotAllocate guards the zero-allocation claim at
// many keys: the seed pipeline at 10,000 hosts, counted exactly over pushes
// once the windows are full and every pool has seen its churn.
//
//   - N = 1 (one batch of 10,000 rows a second): each host holds 61 rows, on
//     one small deque block whose rows move back to its start as it fills;
//     every push is five chunks of the root's storage, given back by
//     retention after the push. Counted over 40 s from 65 s.
//   - N = 10 (BenchmarkSeedHosts' rate at 10,000 hosts): each host holds
//     601 rows on full deque blocks, all hosts taking a new block at the
//     same tick (every 25.6 s) and giving one back at another; the first
//     block goes back at 85.6 s, so the count runs over 30 s from 105 s,
//     covering a give-back (111.2 s) and a take (128 s).
//
// The stream is generated batch by batch (1.35 million rows at N = 10), so
// the test does not run under -short or the race detector.
func TestSeedHostsSteadyDoesNotAllocate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("13.5 million rows: not under -short or -race")
	}
	for _, c := range []struct{ N, Warm, Counted int }{{1, 65, 40}, {10, 105, 30}} {
		const p = 10000
		g, err := newSeedGen(p, c.N)
		require.NoError(t, err)
		pl, err := NewSeedPipeline()
		require.NoError(t, err)
		var out []live.Output
		for range c.Warm * c.N {
			out, err = pl.Series.PushMany(out[:0], g.next())
			require.NoError(t, err)
		}
		var pushErr error
		n := allocs.Count(c.Counted*c.N-1, func() {
			if out, err = pl.Series.PushMany(out[:0], g.next()); err != nil {
				pushErr = err
			}
		})
		require.NoError(t, pushErr)
		assert.Zero(t, n, "P=%d N=%d: allocations over %d s of pushes in steady state", p, c.N, c.Counted)
		parts, err := pl.Series.Partitions(pl.Hosts)
		require.NoError(t, err)
		assert.Len(t, parts, p, "every host is a partition")
	}
}
