package reducers

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoveSlotsFromAStateOfZerosOrHugeValuesRemovesThem: a Moments
// holding zeros alone, or values from 2^960 up alone, has no anchored
// main band (neither anchors it). RemoveSlots of a run of more than four
// of them, fewer than it holds, took the loop that anchors the band with
// the first values of a run, which calls Add, whatever the direction:
// the values were added again instead of removed. Ten zeros less five
// read N 15; ten 1e300 less five read the sum 1.5e301.
func TestRemoveSlotsFromAStateOfZerosOrHugeValuesRemovesThem(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1e300, -0x1p1000} {
		slots := make([]uint64, 10)
		for i := range slots {
			slots[i] = math.Float64bits(x)
		}
		var m Moments
		m.AddSlots(slots, 0, 1, 10)
		require.Equal(t, 10, m.N(), "%g", x)
		m.RemoveSlots(slots, 0, 1, 5)
		assert.Equal(t, 5, m.N(), "ten %g less five", x)
		assert.Equal(t, 5*x, m.Sum(), "ten %g less five", x)
	}
}
