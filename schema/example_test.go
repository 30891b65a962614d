package schema_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/schema"
)

func ExampleTable_Runs() {
	s := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "avg", Kind: schema.Number, Optional: true},
	)
	// The rows of a clock-triggered rolling over hosts: one row per host
	// and tick, the rows of a tick side by side.
	tab := schema.NewTable(s)
	for _, r := range []struct {
		sec  int64
		host string
		avg  float64
	}{{1, "a", 0.5}, {1, "b", 0.25}, {2, "a", 0.75}, {2, "b", 0.5}, {2, "c", 1}} {
		tab.AppendRowValues(schema.Row{schema.MillisValue(r.sec * 1000), schema.StringValue(r.host), schema.NumberValue(r.avg)})
	}
	hosts, _ := tab.Strings("host")
	avgs, _ := tab.Numbers("avg")
	for run := range tab.Runs() {
		fmt.Println(time.Duration(run.Time), run.Len(), hosts[run.From:run.To], avgs[run.From:run.To])
	}
	// Output:
	// 1s 2 [a b] [0.5 0.25]
	// 2s 3 [a b c] [0.75 0.5 1]
}

func ExampleSchema_AppendRows() {
	s := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	b := schema.NewBatch(s, 2)
	err := s.AppendRows(b, []schema.Row{
		{schema.MillisValue(0), schema.NumberValue(0.5), schema.StringValue("a")},
		{schema.MillisValue(1000), schema.Missing(), schema.StringValue("b")},
	})
	fmt.Println(b.Len(), b.Cols[0].Missing, err)
	// A bad row appends nothing.
	err = s.AppendRows(b, []schema.Row{
		{schema.MillisValue(2000), schema.NumberValue(0.7), schema.StringValue("a")},
		{schema.MillisValue(3000), schema.StringValue("high"), schema.StringValue("a")},
	})
	fmt.Println(b.Len(), err)
	// Output:
	// 2 [false true] <nil>
	// 2 schema: row 1 column 1 (cpu): wrong type: expected number, got string
}
