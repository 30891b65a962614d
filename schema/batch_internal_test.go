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

// TestFirstUnsortedFindsTheFirstDecreaseAtEveryPosition puts a time
// before the one before it at each position of batches of several
// lengths (each time of a turn of four, in a first and a second turn,
// and the tail), and a second decrease after it.
func TestFirstUnsortedFindsTheFirstDecreaseAtEveryPosition(t *testing.T) {
	for n := 0; n <= 13; n++ {
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = int64(i / 2) // equal times are in order
		}
		assert.Equal(t, 0, firstUnsorted(ts), "n=%d", n)
		for i := 1; i < n; i++ {
			bad := append([]int64(nil), ts...)
			bad[i] = bad[i-1] - 1
			if i+2 < n {
				bad[i+2] = -100
			}
			assert.Equal(t, i, firstUnsorted(bad), "n=%d: a decrease at %d", n, i)
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
