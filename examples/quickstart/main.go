// Command quickstart shows pond-go's live layer in one screen: a series of
// CPU readings from a few hosts, partitioned by host, with a one-minute
// and a one-second window rolled over each host and emitted every second
// of event time.
//
//	go run ./examples/quickstart
package main

import (
	"fmt"
	"log"
	"math"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func main() {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("metrics", sch, live.Options{MaxAge: 30 * time.Second})
	check(err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	check(err)
	stats, err := s.Rolling(byHost, []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
			{Out: "cpu_p95", From: "cpu", Using: reduce.Percentile(95)},
		}},
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "cpu_max_1s", From: "cpu", Using: reduce.Max},
			{Out: "n_1s", From: "cpu", Using: reduce.Count},
		}},
	}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	check(err)
	check(s.Watch(stats, live.Event))
	check(s.Watch(s.Root(), live.Evict))

	hosts := []string{"api-1", "api-2", "db-1"}
	batch := schema.NewBatch(sch, len(hosts))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []live.Output
	// Four readings per host per second for 3 seconds, one batch per tick.
	for tick := range 13 {
		batch.Reset()
		at := t0.Add(time.Duration(tick) * 250 * time.Millisecond)
		for h, host := range hosts {
			batch.Time = append(batch.Time, at.UnixNano())
			batch.Cols[0].Num = append(batch.Cols[0].Num, 0.3+0.2*float64(h)+0.05*math.Sin(float64(tick)))
			batch.Cols[1].Str = append(batch.Cols[1].Str, host)
		}
		out, err = s.PushMany(out[:0], batch)
		check(err)
		for _, o := range out {
			if o.Node != stats || o.Kind != live.Event {
				continue
			}
			avg, _ := o.Events.Numbers("cpu_avg")
			p95, _ := o.Events.Numbers("cpu_p95")
			mx, _ := o.Events.Numbers("cpu_max_1s")
			n, _ := o.Events.Numbers("n_1s")
			names, _ := o.Events.Strings("host")
			for i := range o.Events.Len() {
				fmt.Printf("%s %-6s avg=%.3f p95=%.3f max1s=%.3f n1s=%v\n",
					o.Events.Time(i).Format("15:04:05.000"), names[i], avg[i], p95[i], mx[i], n[i])
			}
		}
	}
	st := s.Stats()
	fmt.Printf("ingested %d rows, holding %d\n", st.Ingested, st.Length)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
