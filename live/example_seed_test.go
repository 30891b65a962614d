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

// The seed pipeline: per-host metrics kept for 30 s, partitioned by host,
// with a one-minute and a 200 ms window on a 200 ms clock, read by name.
func Example() {
	type Metric struct {
		At       time.Time `pond:"time"`
		CPU      float64   `pond:"cpu"`
		Requests float64   `pond:"requests"`
		Host     string    `pond:"host"`
	}
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}

	sch, err := schema.For[Metric]() // the schema from the struct's tags
	check(err)
	s, err := live.New("metrics", sch, live.Options{MaxAge: 30 * time.Second})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	hosts, err := s.Rolling(byHost, []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
			{Out: "requests_sum", From: "requests", Using: reduce.Sum},
		}},
		{Name: "200ms", Span: 200 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "cpu_max", From: "cpu", Using: reduce.Max},
			{Out: "cpu_samples", From: "cpu", Using: reduce.Samples},
		}},
	}, rolling.Options{Trigger: trigger.Every(200 * time.Millisecond)})
	check(err)
	check(s.Watch(hosts))

	// Columns resolved once, now: a misspelt name fails here.
	out, err := s.NodeSchema(hosts)
	check(err)
	host, err := out.Ref("host", schema.String)
	check(err)
	cpuAvg, err := out.Ref("cpu_avg", schema.Number)
	check(err)
	samples, err := out.Ref("cpu_samples", schema.Array)
	check(err)

	metrics, err := live.NewTyped[Metric](s)
	check(err)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var outs []live.Output
	var xs []float64
	for k := range 5 { // five pushes 100 ms apart, one row per host each
		at := t0.Add(time.Duration(k) * 100 * time.Millisecond)
		outs, err = metrics.Push(outs[:0], []Metric{
			{At: at, CPU: 0.25 + 0.1*float64(k), Requests: 70, Host: "host-0000"},
			{At: at, CPU: 0.5, Requests: 80 + float64(k), Host: "host-0001"},
		})
		check(err)
		// A tick fires inside the push of the first row past a boundary:
		// every host emits then, the crossing host with its own row in
		// (windows are closed at both ends), the others without theirs.
		tab, ok := live.Find(outs, hosts, live.Event)
		if !ok {
			continue // no boundary crossed in this push
		}
		for i := range tab.Len() {
			h, _ := tab.Str(host, i)
			avg, _ := tab.Num(cpuAvg, i)
			xs, _ = tab.AppendNums(xs[:0], samples, i)
			fmt.Printf("%s %s cpu_avg=%.3f samples=%v\n", tab.Time(i).Format("15:04:05.000"), h, avg, xs)
		}
	}
	// Output:
	// 00:00:00.200 host-0000 cpu_avg=0.350 samples=[0.25 0.35 0.45]
	// 00:00:00.200 host-0001 cpu_avg=0.500 samples=[0.5 0.5]
	// 00:00:00.400 host-0000 cpu_avg=0.450 samples=[0.45 0.55 0.65]
	// 00:00:00.400 host-0001 cpu_avg=0.500 samples=[0.5 0.5]
}
