package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTimeBoundsAreTheSmallestAndLargest(t *testing.T) {
	lo, hi := timeBounds([]int64{5, -2, 9, 3})
	assert.Equal(t, int64(-2), lo)
	assert.Equal(t, int64(9), hi)
	lo, hi = timeBounds(nil)
	assert.Equal(t, int64(0), lo)
	assert.Equal(t, int64(0), hi)
}
