package schema_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A rolling's rows decoded into structs: a pointer field is nil where the
// cell is missing (host b had no reading in the window of the tick at 2 s).
func ExampleCodec_Decode() {
	cpuSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	// cpu is a row at t milliseconds; a negative reading is missing.
	cpu := func(t int64, x float64, host string) schema.Row {
		v := schema.NumberValue(x)
		if x < 0 {
			v = schema.Missing()
		}
		return schema.Row{schema.MillisValue(t), v, schema.StringValue(host)}
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	type hostMax struct {
		At   time.Time `pond:"time"`
		Host string    `pond:"host"`
		Max  *float64  `pond:"max"`
	}
	s, err := live.New("metrics", cpuSchema, live.Options{})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
		{Out: "max", From: "cpu", Using: reduce.Max},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	check(err)
	_ = s.Watch(roll)
	_, _ = s.PushRows(nil, cpu(0, 0.5, "a"), cpu(0, 0.2, "b"))
	out, _ := s.PushRows(nil, cpu(2500, 0.7, "a"))
	dec, err := schema.NewCodec[hostMax](nil)
	check(err)
	rows, _ := dec.Decode(nil, out[0].Events)
	for _, r := range rows {
		fmt.Println(r.At.UnixMilli(), r.Host, r.Max != nil)
	}
	// Output:
	// 2000 a true
	// 2000 b false
}
