package aligned

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNotePeakAsksForASumOnlyWhereRoundingCouldShow: a running Σx that
// held 1e300 beside −1e16s and came back below 2^-40 of it asks to be
// summed again; one of integers that cancels to exactly 0 (each addition
// exact, the low word never used) does not, however often it does, and
// neither does an ordinary sum of fractions that stays near its peak.
func TestNotePeakAsksForASumOnlyWhereRoundingCouldShow(t *testing.T) {
	run := func(panes ...float64) (asked bool) {
		var a [4]float64
		for _, x := range panes {
			ddAdd(&a[0], &a[1], x, 0)
			asked = notePeak(&a)
		}
		return asked
	}
	assert.True(t, run(-1e16, 1e300, -1e16, -1e300), "1e300's residue")
	assert.False(t, run(1, -1, 3, -3, 5, -5), "integers cancelling exactly")
	assert.False(t, run(0.1, 0.2, 0.3, -0.1), "fractions near their peak")
	assert.True(t, run(0.1, 0.2, -0.1, -0.2), "fractions cancelling to 2^-40 of their peak")
}
