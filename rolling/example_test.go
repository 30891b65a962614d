package rolling_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// Two windows in one node give one row per source row; the 3-row warm-up
// of the longer window keeps its output missing until it holds 3 rows.
func ExampleWindow() {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "v", Kind: schema.Number},
	)
	s, err := live.New("v", sch, live.Options{})
	if err != nil {
		panic(err)
	}
	avg, err := s.Rolling(s.Root(), []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg1s", From: "v", Using: reduce.Avg}}},
		{Name: "5s", Span: 5 * time.Second, MinSamples: rolling.Samples(3), Aggs: []reduce.Agg{{Out: "max5s", From: "v", Using: reduce.Max}}},
	}, rolling.Options{})
	if err != nil {
		panic(err)
	}
	_ = s.Watch(avg)
	var rows []schema.Row
	for i, v := range []float64{1, 3, 2, 8} {
		rows = append(rows, schema.Row{schema.MillisValue(int64(i) * 600), schema.NumberValue(v)})
	}
	out, err := s.PushRows(nil, rows...)
	if err != nil {
		panic(err)
	}
	tab, _ := live.Find(out, avg, live.Event)
	fmt.Println(tab)
	// Output:
	// time=1970-01-01T00:00:00Z avg1s=1 max5s=null
	// time=1970-01-01T00:00:00.6Z avg1s=2 max5s=null
	// time=1970-01-01T00:00:01.2Z avg1s=2.5 max5s=3
	// time=1970-01-01T00:00:01.8Z avg1s=5 max5s=8
}
