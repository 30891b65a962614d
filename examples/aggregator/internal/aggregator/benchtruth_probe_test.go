package aggregator

// Checks the batch-done percentiles the bench reports (README.md, "Racing
// aggregators"; BENCH.md: "p50/p99 over the last 1024 batches at the
// end") against an independent computation.

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bt42Pct is the sample of rank floor(n·num/100)+1 (at most n) of the
// samples in ascending order, in exact integer arithmetic.
func bt42Pct(xs []float64, num int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*num/100)]
}

func TestBt42LatencyPercentilesOverTheLast1024(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 4))
	for _, total := range []int{1, 2, 3, 50, 99, 100, 101, 512, 1023, 1024, 1025, 2000, 5000} {
		var r LatencyRing
		assert.Nil(t, r.Summary(), "no samples")
		var all []float64
		for range total {
			us := 1 + rng.IntN(50_000) // whole microseconds: exact in ms
			r.Add(time.Duration(us) * time.Microsecond)
			all = append(all, float64(us)/1000)
		}
		last := all[max(0, len(all)-1024):]
		p := r.Summary()
		require.NotNil(t, p)
		assert.Equal(t, len(last), p.Count, "total %d", total)
		assert.Equal(t, bt42Pct(last, 50), p.P50, "total %d: p50", total)
		assert.Equal(t, bt42Pct(last, 95), p.P95, "total %d: p95", total)
		assert.Equal(t, bt42Pct(last, 99), p.P99, "total %d: p99", total)
	}
	// Units: milliseconds.
	var r LatencyRing
	r.Add(1500 * time.Microsecond)
	assert.Equal(t, 1.5, r.Summary().P99)
}
