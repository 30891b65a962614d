package reducers_test

import (
	"math"
	"testing"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
)

// TestRunningReducesAsAWindowNeverRemovedFrom: a running state gives,
// after every Add, the cell a window state given the same values gives.
func TestRunningReducesAsAWindowNeverRemovedFrom(t *testing.T) {
	nums := []schema.Value{schema.NumberValue(3), {}, schema.NumberValue(math.NaN()),
		schema.NumberValue(-1), schema.NumberValue(7), schema.NumberValue(3), schema.NumberValue(-2)}
	strs := []schema.Value{schema.StringValue("b"), {}, schema.StringValue("b"),
		schema.StringValue("a"), schema.StringValue("c"), schema.StringValue("a")}
	cases := []struct {
		spec reducers.Spec
		in   []schema.Value
		out  schema.Kind
	}{
		{reducers.Spec{Op: reducers.OpCount}, strs, schema.Number},
		{reducers.Spec{Op: reducers.OpSum}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpAvg}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpStdev}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpMin}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpMax}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpDifference}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpMedian}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpPercentile, Q: 0.9}, nums, schema.Number},
		{reducers.Spec{Op: reducers.OpFirst}, strs, schema.String},
		{reducers.Spec{Op: reducers.OpLast}, strs, schema.String},
		{reducers.Spec{Op: reducers.OpKeep}, strs, schema.String},
		{reducers.Spec{Op: reducers.OpUnique}, strs, schema.Array},
		{reducers.Spec{Op: reducers.OpTop, N: 2}, strs, schema.Array},
		{reducers.Spec{Op: reducers.OpSamples}, strs, schema.Array},
	}
	for _, c := range cases {
		t.Run(c.spec.Op.String(), func(t *testing.T) {
			run, win := reducers.NewRunning(c.spec), reducers.NewWindow(c.spec)
			got, want := table.NewCol(c.out), table.NewCol(c.out)
			for i, v := range c.in {
				run.Add(uint64(i), v)
				win.Add(uint64(i), v)
				run.Append(got)
				win.Append(want)
				assert.True(t, table.Value(want, i).Equal(table.Value(got, i)),
					"after %d values: %v, a window gives %v", i+1, table.Value(got, i), table.Value(want, i))
			}
		})
	}
}
