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

// The README's pipeline ("A pipeline in a few lines") and its reading of
// the outputs ("Outputs"), the same code with its errors checked, run on
// three rows: api-1 at 0 and 100 ms, api-2 at 250 ms, whose push crosses
// the 200 ms boundary. (The values are exact in binary, so that the
// output is the same on every architecture.)
func Example_readme() {
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("metrics", sch, live.Options{MaxAge: 30 * time.Second})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	hosts, err := s.Rolling(byHost, []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
			{Out: "cpu_sd", From: "cpu", Using: reduce.Stdev},
		}},
		{Name: "200ms", Span: 200 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "cpu_max", From: "cpu", Using: reduce.Max},
			{Out: "cpu_samples", From: "cpu", Using: reduce.Samples},
		}},
	}, rolling.Options{Trigger: trigger.Every(200 * time.Millisecond)})
	check(err)
	check(s.Watch(hosts, live.Event))

	batch := schema.NewBatch(sch, 1)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []live.Output
	for _, r := range []struct {
		ms   int64
		cpu  float64
		host string
	}{{0, 0.25, "api-1"}, {100, 0.75, "api-1"}, {250, 0.5, "api-2"}} {
		batch.Reset()
		batch.Time = append(batch.Time, t0.Add(time.Duration(r.ms)*time.Millisecond).UnixNano())
		batch.Cols[0].Num = append(batch.Cols[0].Num, r.cpu)
		batch.Cols[1].Str = append(batch.Cols[1].Str, r.host)
		out, err = s.PushMany(out[:0], batch) // appends tagged outputs to a caller-owned slice
		check(err)
		for _, o := range out {
			fmt.Printf("%dms: node %d %s, %d rows\n", r.ms, o.Node, o.Kind, o.Events.Len())
		}
	}

	var xs []float64
	var buf []byte
	hostsSch, err := s.NodeSchema(hosts)
	check(err)
	cpuAvg, err := hostsSch.Ref("cpu_avg", schema.Number) // a misspelt name fails here, once
	check(err)
	samples, err := hostsSch.Ref("cpu_samples", schema.Array)
	check(err)
	tab, ok := live.Find(out, hosts, live.Event) // one node's output of one kind
	fmt.Println(ok)
	for i := range tab.Len() {
		avg, present := tab.Num(cpuAvg, i) // row i of the table, everywhere
		xs, _ = tab.AppendNums(xs[:0], samples, i)
		fmt.Println(avg, present, xs)
	}
	buf = tab.AppendJSON(buf[:0])
	fmt.Println(string(buf))
	now, err := s.Value(hosts) // the latest row per host, no history kept
	check(err)
	fmt.Println(now.Len())
	// Output:
	// 250ms: node 2 event, 2 rows
	// true
	// 0.5 true [0.75]
	// 0.5 true [0.5]
	// [{"time":1735689600200,"host":"api-1","cpu_avg":0.5,"cpu_sd":0.25,"cpu_max":0.75,"cpu_samples":[0.75]},{"time":1735689600200,"host":"api-2","cpu_avg":0.5,"cpu_sd":0,"cpu_max":0.5,"cpu_samples":[0.5]}]
	// 2
}
