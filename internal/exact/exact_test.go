package exact

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReferencesAreExact checks the references on sums whose float64
// evaluation loses everything: 1 beside ±1e16, the largest and smallest
// doubles together, and a deviation far below its mean.
func TestReferencesAreExact(t *testing.T) {
	assert.Equal(t, 1.0, SumFloat([]float64{1e16, 1, -1e16}))
	assert.Equal(t, 5e-324, SumFloat([]float64{math.MaxFloat64, 5e-324, -math.MaxFloat64}))
	assert.True(t, math.IsInf(SumFloat([]float64{math.MaxFloat64, math.MaxFloat64}), 1))
	assert.Equal(t, 1e16+2, Mean([]float64{1e16 + 1, 1e16 + 3}))
	assert.Equal(t, math.Sqrt(1.25), Stdev([]float64{1, 2, 3, 4}))
	assert.Equal(t, 1.0, Stdev([]float64{1e9 + 1, 1e9 - 1}))
	assert.Zero(t, Stdev([]float64{7}))
	assert.Zero(t, Stdev([]float64{0.1, 0.1, 0.1}))
}
