package benchmarks

import (
	"fmt"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// BenchmarkSeedAlignedState streams the aligned seed pipeline for 61 s
// (the 1m windows full) at several rates, without holding the stream, and
// reports the partitioned rolling's held bytes per partition at the end:
// state that does not grow with the rate is the point of the panes. The
// 200ms window's samples are read from the series' rows at each closing,
// not kept (Describe: "samples read from the series' rows"), so no part of
// it shows the rate. One op is one run; use -benchtime 1x.
func BenchmarkSeedAlignedState(b *testing.B) {
	for _, c := range []struct{ P, N int }{{100, 100}, {100, 1000}, {100, 10000}, {1000, 100}, {1000, 1000}} {
		b.Run(fmt.Sprintf("P=%d/N=%d", c.P, c.N), func(b *testing.B) {
			for b.Loop() {
				p, err := NewSeedAlignedPipeline()
				if err != nil {
					b.Fatal(err)
				}
				var out []live.Output
				err = EachSeedBatch(c.P, c.N, 61, func(x *schema.Batch) error {
					out, err = p.Series.PushMany(out[:0], x)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				held, _ := p.Series.NodeBytes(p.Hosts)
				b.ReportMetric(float64(held)/float64(c.P), "state-B/partition")
			}
		})
	}
}

// BenchmarkAligned15m compares the state of a 15m window (the seed's 1m
// outputs, on the 200ms clock) in aligned and in the default mode, per
// partition, after 15 min 10 s of 100 events/s per host, and in aligned
// mode the same per pane of the window (state-B/pane). Per-partition
// state does not depend on the number of hosts, so 10 hosts stand for
// 1000. Use -benchtime 1x.
func BenchmarkAligned15m(b *testing.B) {
	const hosts, rate, secs = 10, 100, 910
	for _, aligned := range []bool{true, false} {
		b.Run(fmt.Sprintf("aligned=%v", aligned), func(b *testing.B) {
			for b.Loop() {
				s, err := live.New("metrics", SeedSchema, live.Options{MaxAge: 30 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
				if err != nil {
					b.Fatal(err)
				}
				r, err := s.Rolling(by, []rolling.Window{{Name: "15m", Span: 15 * time.Minute, Aggs: []reduce.Agg{
					{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
					{Out: "cpu_sd", From: "cpu", Using: reduce.Stdev},
					{Out: "cpu_n", From: "cpu", Using: reduce.Count},
					{Out: "requests_avg", From: "requests", Using: reduce.Avg},
					{Out: "requests_sum", From: "requests", Using: reduce.Sum},
					{Out: "requests_n", From: "requests", Using: reduce.Count},
				}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(200 * time.Millisecond)), Aligned: aligned})
				if err != nil {
					b.Fatal(err)
				}
				var out []live.Output
				err = EachSeedBatch(hosts, rate, secs, func(x *schema.Batch) error {
					out, err = s.PushMany(out[:0], x)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				held, _ := s.NodeBytes(r)
				b.ReportMetric(float64(held)/hosts, "state-B/partition")
				if aligned {
					// What a partition holds per pane of its window,
					// fixed costs included: 4,500 panes of 200 ms.
					b.ReportMetric(float64(held)/hosts/float64(15*time.Minute/(200*time.Millisecond)), "state-B/pane")
				}
			}
		})
	}
}
