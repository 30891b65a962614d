package engine_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

var src = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number},
)

// table returns rows of src at t milliseconds with value x.
func mkTable(rows ...[2]float64) *schema.Table {
	tab := schema.NewTable(src)
	for _, r := range rows {
		table.Column(tab, 0).AppendTime(int64(r[0]) * int64(time.Millisecond))
		table.Column(tab, 1).AppendNum(r[1])
	}
	return tab
}

func ExampleNewPlan() {
	// Two windows over one deque, one merged row per source row.
	plan, err := engine.NewPlan(src, []rolling.Window{
		{Span: 3 * time.Second, Aggs: []reduce.Agg{{Out: "sum3s", From: "v", Using: reduce.Sum}}},
		{Span: time.Second, MinSamples: rolling.Samples(2), Aggs: []reduce.Agg{{Out: "avg1s", From: "v", Using: reduce.Avg}}},
	}, rolling.Options{}, nil, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.Schema())
	stream := plan.NewStream()
	var in engine.Input
	out := schema.NewTable(plan.Schema())
	plan.Bind(&in, mkTable([2]float64{0, 1}, [2]float64{500, 2}, [2]float64{1000, 3}, [2]float64{3500, 8}), nil)
	stream.Push(&in, out)
	fmt.Println(out)

	_, err = engine.NewPlan(src, []rolling.Window{
		{Count: 2, Aggs: []reduce.Agg{{Out: "sum", From: "v", Using: reduce.Sum}}},
		{Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}},
	}, rolling.Options{}, nil, nil)
	fmt.Println(err)
	// Output:
	// time:time, sum3s:number?, avg1s:number?
	// time=1970-01-01T00:00:00Z sum3s=1 avg1s=null
	// time=1970-01-01T00:00:00.5Z sum3s=3 avg1s=1.5
	// time=1970-01-01T00:00:01Z sum3s=6 avg1s=2
	// time=1970-01-01T00:00:03.5Z sum3s=13 avg1s=null
	// rolling: window "2": count windows are allowed only on their own, not among several windows
}

// hosts gives the partition column's value of a partition index.
type hosts []string

func (h hosts) KeyValue(p int32) schema.Value { return schema.StringValue(h[p]) }

func ExamplePlan_NewGroup() {
	// Per-host 1m sums, synchronised on a 30s clock.
	plan, err := engine.NewPlan(src, []rolling.Window{
		{Span: time.Minute, Aggs: []reduce.Agg{{Out: "sum", From: "v", Using: reduce.Sum}}},
	}, rolling.Options{Trigger: trigger.Clock(sequence.Every(30 * time.Second))},
		&engine.Key{Name: "host", Kind: schema.String}, nil)
	if err != nil {
		panic(err)
	}
	group := plan.NewGroup(hosts{"a", "b", "c"})
	var in engine.Input
	out := schema.NewTable(plan.Schema())
	// a, b and c at 0, then a, b and c at 30s: a's row crosses the
	// boundary and the tick fires at once, before b's and c's rows of
	// the same time are taken in (as in pond-ts).
	plan.Bind(&in, mkTable([2]float64{0, 1}, [2]float64{0, 1}, [2]float64{0, 1},
		[2]float64{30000, 10}, [2]float64{30000, 10}, [2]float64{30000, 10}), nil)
	group.Push(&in, []int32{0, 1, 2, 0, 1, 2}, out)
	fmt.Println(out)
	// Output:
	// time=1970-01-01T00:00:30Z host="a" sum=11
	// time=1970-01-01T00:00:30Z host="b" sum=1
	// time=1970-01-01T00:00:30Z host="c" sum=1
}
