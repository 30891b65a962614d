package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

var testSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number},
	schema.Column{Name: "w", Kind: schema.Number, Optional: true},
)

// TestEventBatchPathMatchesRowByRow feeds the same random pushes to a
// stream on the batch path and to one forced row by row: every emitted
// cell must agree.
func TestEventBatchPathMatchesRowByRow(t *testing.T) {
	specs := map[string][]rolling.Window{
		"one time window": {{Span: 3 * time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg}, {Out: "sum", From: "w", Using: reduce.Sum},
			{Out: "n", From: "v", Using: reduce.Count}, {Out: "nw", From: "w", Using: reduce.Count},
			{Out: "sd", From: "w", Using: reduce.Stdev},
		}}},
		"count window": {{Count: 4, Aggs: []reduce.Agg{
			{Out: "avg", From: "w", Using: reduce.Avg}, {Out: "n", From: "v", Using: reduce.Count},
		}}},
		"two windows with warm-up": {
			{Span: 5 * time.Second, Aggs: []reduce.Agg{{Out: "s5", From: "v", Using: reduce.Sum}, {Out: "sd5", From: "v", Using: reduce.Stdev}}},
			{Span: time.Second, MinSamples: rolling.Samples(3), Aggs: []reduce.Agg{{Out: "a1", From: "w", Using: reduce.Avg}}},
		},
	}
	for name, windows := range specs {
		t.Run(name, func(t *testing.T) {
			plan, err := NewPlan(testSchema, windows, rolling.Options{MinSamples: 1}, nil, nil)
			require.NoError(t, err)
			require.True(t, plan.fastEvent())
			fast, slow := plan.NewStream(), plan.NewStream()
			slow.fast = false
			rng := rand.New(rand.NewPCG(3, uint64(len(name))))
			tm := int64(0)
			var in Input
			for push := range 400 {
				tab := schema.NewTable(testSchema)
				for range 1 + rng.IntN(12) {
					switch rng.IntN(10) {
					case 0:
						tm -= int64(rng.IntN(3000)) * int64(time.Millisecond) // late
					case 1:
						tm += int64(rng.IntN(8000)) * int64(time.Millisecond) // gap
					default:
						tm += int64(rng.IntN(400)) * int64(time.Millisecond)
					}
					table.Column(tab, 0).AppendTime(tm)
					table.Column(tab, 1).AppendNum(float64(rng.IntN(100)) / 4)
					if rng.IntN(4) == 0 {
						table.Column(tab, 2).AppendMissing()
					} else {
						table.Column(tab, 2).AppendNum(rng.NormFloat64())
					}
				}
				a, b := schema.NewTable(plan.Schema()), schema.NewTable(plan.Schema())
				plan.Bind(&in, tab, nil)
				fast.Push(&in, a)
				slow.Push(&in, b)
				require.Equal(t, b.Len(), a.Len())
				for i := range a.Len() {
					for j := range a.Schema().Len() {
						x, y := a.Value(i, j), b.Value(i, j)
						if fx, ok := x.Num(); ok {
							fy, ok := y.Num()
							require.True(t, ok, "push %d row %d col %d: %v vs %v", push, i, j, x, y)
							require.InDelta(t, fy, fx, 1e-12*math.Max(1, math.Abs(fy)), "push %d row %d col %s", push, i, a.Schema().Column(j).Name)
							continue
						}
						require.True(t, x.Equal(y), "push %d row %d col %s: %v vs %v", push, i, a.Schema().Column(j).Name, x, y)
					}
				}
			}
		})
	}
}
