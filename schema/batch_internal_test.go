package schema

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAllFiniteSeesABadNumberInEveryLane puts a NaN or an infinity at
// each position of batches of several lengths (each of the eight values
// of a turn, in a first and a second turn, and the tail).
func TestAllFiniteSeesABadNumberInEveryLane(t *testing.T) {
	for n := 0; n <= 19; n++ {
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = float64(i) - 3.5
		}
		assert.True(t, allFinite(fs), "n=%d", n)
		for i := range fs {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				keep := fs[i]
				fs[i] = bad
				assert.False(t, allFinite(fs), "n=%d: %v at %d", n, bad, i)
				fs[i] = keep
			}
		}
	}
}

func TestTimeBoundsAreTheSmallestAndLargest(t *testing.T) {
	lo, hi := timeBounds([]int64{5, -2, 9, 3})
	assert.Equal(t, int64(-2), lo)
	assert.Equal(t, int64(9), hi)
	lo, hi = timeBounds(nil)
	assert.Equal(t, int64(0), lo)
	assert.Equal(t, int64(0), hi)
}
