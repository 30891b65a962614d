package live_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// Aligned windows: each host's rows are keyed at the clock's boundaries
// and hold that host's rows in [b − 1s, b), whatever the other hosts do
// and however the rows are batched.
func ExampleSeries_Rolling_aligned() {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("metrics", sch, live.Options{})
	if err != nil {
		panic(err)
	}
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	if err != nil {
		panic(err)
	}
	r, err := s.Rolling(byHost, []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "n", From: "cpu", Using: reduce.Count},
		{Out: "avg", From: "cpu", Using: reduce.Avg},
		{Out: "max", From: "cpu", Using: reduce.Max},
	}}}, rolling.Options{Trigger: trigger.Every(500 * time.Millisecond), Aligned: true})
	if err != nil {
		panic(err)
	}
	if err := s.Watch(r); err != nil {
		panic(err)
	}
	at := func(ms int64, cpu float64, host string) schema.Row {
		return schema.Row{schema.MillisValue(ms), schema.NumberValue(cpu), schema.StringValue(host)}
	}
	push := func(rows ...schema.Row) {
		out, err := s.PushRows(nil, rows...)
		if err != nil {
			panic(err)
		}
		for _, o := range out {
			fmt.Println(o.Events)
		}
	}
	push(at(100, 0.25, "a"), at(300, 0.5, "b"), at(400, 0.75, "a"))
	// 600 closes the boundary at 500: both hosts emit, 600 is not in it.
	push(at(600, 1, "b"))
	// 2100 closes 1000, 1500 and 2000 in one push; a host emits at each
	// while its window holds a row, then stops.
	push(at(2100, 0.125, "a"))
	// Output:
	// time=1970-01-01T00:00:00.5Z host="a" n=2 avg=0.5 max=0.75
	// time=1970-01-01T00:00:00.5Z host="b" n=1 avg=0.5 max=0.5
	// time=1970-01-01T00:00:01Z host="a" n=2 avg=0.5 max=0.75
	// time=1970-01-01T00:00:01Z host="b" n=2 avg=0.75 max=1
	// time=1970-01-01T00:00:01.5Z host="b" n=1 avg=1 max=1
}
