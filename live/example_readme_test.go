package live_test

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

// The README's "More operators", the same calls with their errors
// checked, on a series whose schema comes from Metric (with the bytes
// column the rate reads) and a few rows pushed through the typed pusher.
func Example_operators() {
	type Metric struct {
		At    time.Time `pond:"time"`
		CPU   float64   `pond:"cpu"`
		Host  string    `pond:"host"`
		Bytes *float64  `pond:"bytes"` // nil is missing
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	sch, err := schema.For[Metric]()
	check(err)
	s, err := live.New("metrics", sch, live.Options{})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	aggs := []reduce.Agg{{Out: "n", From: "cpu", Using: reduce.Count}}

	busy, err := s.Filter(s.Root(), func(row schema.Row) bool { x, _ := row[1].Num(); return x > 0.9 })
	check(err)
	last5m, err := s.Window(busy, 5*time.Minute) // announces its own evictions
	check(err)
	peak, err := s.Reduce(last5m, []reduce.Agg{{Out: "max", From: "cpu", Using: reduce.Max}}, trigger.Event())
	check(err)
	perMin, err := s.Aggregate(s.Root(), sequence.Every(time.Minute), aggs, 10*time.Second) // grace
	check(err)
	steady, err := s.PerPartition(byHost, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
		held, err := s.Fill(p, live.FillOptions{Strategy: live.FillHold})
		if err != nil {
			return 0, err
		}
		return s.Rate(held, "bytes") // per host; a Rolling on it is per host
	})
	check(err)
	hosts, err := s.Rolling(steady, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "bytes_per_s", From: "bytes", Using: reduce.Avg},
	}}}, rolling.Options{Trigger: trigger.Every(time.Minute)})
	check(err)
	check(s.Watch(hosts))

	metrics, err := live.NewTyped[Metric](s) // schema.For[Metric]() gives s its schema; push []Metric
	check(err)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	n := func(x float64) *float64 { return &x }
	var out []live.Output
	for _, push := range [][]Metric{
		{{t0, 0.95, "a", n(1000)}, {t0, 0.5, "b", n(500)}},
		{{t0.Add(30 * time.Second), 0.97, "a", nil}, {t0.Add(30 * time.Second), 0.4, "b", n(800)}},
		{{t0.Add(61 * time.Second), 0.92, "a", n(4000)}, {t0.Add(61 * time.Second), 0.3, "b", n(1100)}},
	} {
		out, err = metrics.Push(out[:0], push)
		check(err)
	}
	// The filter passed a's three rows, all within five minutes; the
	// aggregate's minute from 0 waits for its 10 s grace, so both buckets
	// are open; the tick at 1m fired on a's row at 61 s, before b's
	// arrived. a's rates are 0 at 30 s (the hold filled its gap with
	// 1000) and 3000/31 at 61 s; b's, 10 at 30 s.
	snap, err := s.Snapshot(last5m) // an immutable table of what it holds
	check(err)
	fmt.Println("last5m holds", snap.Len(), "rows")
	now, err := s.Value(peak)
	check(err)
	fmt.Println("peak:", now)
	open, err := s.Value(perMin)
	check(err)
	fmt.Println("perMin, open buckets:", open)
	tab, ok := live.Find(out, hosts, live.Event) // one node's rows of a push
	fmt.Println(ok)
	for run := range tab.Runs() { // every host's row of one tick: rows run.From to run.To
		for i := run.From; i < run.To; i++ {
			fmt.Println(tab.Row(i))
		}
	}
	// Output:
	// last5m holds 3 rows
	// peak: time=2025-01-01T00:01:01Z max=0.97
	// perMin, open buckets: time=2025-01-01T00:00:00Z n=4
	// time=2025-01-01T00:01:00Z n=2
	// true
	// [2025-01-01T00:01:00Z "a" 48.38709677419355]
	// [2025-01-01T00:01:00Z "b" 10]
}
