package reduce_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/reduce"
)

// What the operators read of a reducer (reducers.ErrOf and
// reducers.SpecOf, set by this package): the error of an invalid one,
// wrapping ErrReducer, none for a valid one; its operation and
// parameter.
func TestMu42OperatorHooksReadTheReducer(t *testing.T) {
	for _, r := range []reduce.Reducer{{}, reduce.Top(0), reduce.Percentile(101), reduce.Percentile(math.NaN())} {
		assert.ErrorIs(t, reducers.ErrOf(r), reduce.ErrReducer, r.String())
	}
	for _, r := range []reduce.Reducer{reduce.Sum, reduce.Top(1), reduce.Percentile(0), reduce.Percentile(100), reduce.Mean} {
		assert.NoError(t, reducers.ErrOf(r), r.String())
	}
	assert.Equal(t, reducers.Spec{Op: reducers.OpPercentile, Q: 99.9}, reducers.SpecOf(reduce.Percentile(99.9)))
	assert.Equal(t, reducers.Spec{Op: reducers.OpTop, N: 3}, reducers.SpecOf(reduce.Top(3)))
	assert.Equal(t, reducers.SpecOf(reduce.Avg), reducers.SpecOf(reduce.Mean), "mean is avg under another name")
}
