package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A recording time the tool cannot use is refused with the flag's name.
func TestSecondsOutOfRangeAreRefusedByName(t *testing.T) {
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1), 1e300} {
		assert.ErrorContains(t, checkSeconds(s), "-seconds ", "%v", s)
	}
	assert.ErrorContains(t, checkSeconds(0), "-seconds 0: want seconds to record above 0")
	assert.NoError(t, checkSeconds(0.5))
}
