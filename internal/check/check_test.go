package check

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFiniteSeesABadNumberInEveryLane puts a NaN or an infinity at each
// position of batches of several lengths (each value of a turn, in a
// first and a second turn, and the tail), for Finite and CopyFinite; the
// copy is whole whatever it reports.
func TestFiniteSeesABadNumberInEveryLane(t *testing.T) {
	for n := 0; n <= 2*copyOwn+3; n++ {
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = float64(i) - 3.5
		}
		dst := make([]float64, n+2)
		assert.True(t, Finite(fs), "n=%d", n)
		assert.True(t, CopyFinite(dst, fs), "n=%d", n)
		assert.Equal(t, fs, dst[:n], "n=%d", n)
		for i := range fs {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				keep := fs[i]
				fs[i] = bad
				assert.False(t, Finite(fs), "n=%d: %v at %d", n, bad, i)
				clear(dst)
				assert.False(t, CopyFinite(dst, fs), "n=%d: %v at %d", n, bad, i)
				assert.Equal(t, math.Float64bits(bad), math.Float64bits(dst[i]), "n=%d: copied at %d", n, i)
				fs[i] = keep
			}
		}
	}
}

// TestFirstUnsortedFindsTheFirstDecreaseAtEveryPosition puts a time
// before the one before it at each position of batches of several
// lengths (each time of a turn of four, in a first and a second turn,
// and the tail), and a second decrease after it; CopySorted tells the
// same and copies every time.
func TestFirstUnsortedFindsTheFirstDecreaseAtEveryPosition(t *testing.T) {
	for n := 0; n <= 2*copyOwn+3; n++ {
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = int64(i / 2) // equal times are in order
		}
		dst := make([]int64, n+1)
		assert.Equal(t, 0, FirstUnsorted(ts), "n=%d", n)
		assert.True(t, CopySorted(dst, ts), "n=%d", n)
		assert.Equal(t, ts, dst[:n], "n=%d", n)
		for i := 1; i < n; i++ {
			bad := slices.Clone(ts)
			bad[i] = bad[i-1] - 1
			if i+2 < n {
				bad[i+2] = -100
			}
			assert.Equal(t, i, FirstUnsorted(bad), "n=%d: a decrease at %d", n, i)
			clear(dst)
			assert.False(t, CopySorted(dst, bad), "n=%d: a decrease at %d", n, i)
			assert.Equal(t, bad, dst[:n], "n=%d: a decrease at %d", n, i)
		}
	}
}

func TestCopiesPanicWhenTheDestinationIsShort(t *testing.T) {
	assert.Panics(t, func() { CopyFinite(make([]float64, 2), make([]float64, 3)) })
	assert.Panics(t, func() { CopySorted(make([]int64, 2), make([]int64, 3)) })
}
