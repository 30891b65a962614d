package aggregator

import (
	"fmt"
	"math"
	"time"

	"github.com/pond-go/pond/examples/internal/seed"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// Schema is the raw series' schema, in the order of the proto's Event
// fields.
var Schema = seed.Schema

// TickEvery is the period of the per-host clock.
const TickEvery = seed.TickEvery

// HostIdleTTL is how long a host may be quiet, in event time, before the
// per-host partitioning forgets it and frees its place under MaxHosts.
const HostIdleTTL = time.Minute

// pipeline is the seed pipeline (docs/workload.md, the same nodes as
// benchmarks.NewSeedPipeline) with the example's two additions: an
// optional per-host stride sampler between the partition and the rolling,
// and an idle TTL that forgets a host quiet for longer than the 1m window.
type pipeline struct {
	s         *live.Series
	byHost    live.NodeID // the partitioning by host
	hosts     live.NodeID // the partitioned two-window rolling
	perSec    live.NodeID // the unpartitioned 1s count
	cols      seed.Cols   // the per-host rolling's output columns
	perSecCol schema.Ref
}

// pipelineOptions are the knobs of the pipeline.
type pipelineOptions struct {
	Retention    time.Duration
	Ordering     live.Ordering
	Grace        time.Duration
	SampleStride int
	MaxHosts     int  // 0: no bound
	Aligned      bool // the per-host rolling in aligned mode
	Workers      int  // live.Options.Workers
}

func newPipeline(o pipelineOptions) (*pipeline, error) {
	s, err := live.New("metrics", Schema, live.Options{MaxAge: o.Retention, Ordering: o.Ordering, Grace: o.Grace, Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	clock := trigger.Clock(sequence.Every(TickEvery))
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: HostIdleTTL, MaxPartitions: o.MaxHosts})
	if err != nil {
		return nil, err
	}
	src := byHost
	if o.SampleStride > 1 {
		if src, err = s.Sample(byHost, o.SampleStride); err != nil {
			return nil, err
		}
	}
	hosts, err := s.Rolling(src, seed.Windows(), rolling.Options{Trigger: clock, Aligned: o.Aligned})
	if err != nil {
		return nil, err
	}
	perSec, err := s.Rolling(s.Root(), []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "events_per_sec", From: "cpu", Using: reduce.Count}}},
	}, rolling.Options{Trigger: clock})
	if err != nil {
		return nil, err
	}
	for _, w := range []live.NodeID{s.Root(), hosts, perSec} {
		if err := s.Watch(w, live.Event); err != nil {
			return nil, err
		}
	}
	p := &pipeline{s: s, byHost: byHost, hosts: hosts, perSec: perSec}
	hs, err := s.NodeSchema(hosts)
	if err != nil {
		return nil, err
	}
	if p.cols, err = seed.OutputCols(hs); err != nil {
		return nil, fmt.Errorf("aggregator: %w", err)
	}
	ps, _ := s.NodeSchema(perSec)
	if p.perSecCol, err = ps.Ref("events_per_sec", schema.Number); err != nil {
		return nil, fmt.Errorf("aggregator: %w", err)
	}
	return p, nil
}

// CountAnomalies counts the samples of a 200 ms slice beyond each σ
// threshold of the 1m baseline: with diff = v − avg and
// cut = t·sd, a sample counts above when diff > cut, else below when
// −diff > cut; the comparisons are strict. When avg or sd is missing (NaN)
// or there are no samples, the counts stay zero. above and below must have
// one slot per threshold and are overwritten.
//
// With sd = 0 the cut is 0 and any sample off the mean would count. pond-go
// keeps exact (compensated) sums, so a window of equal values has exactly
// sd = 0 and avg = the value, and its samples (a subset of that window)
// count nothing; no epsilon is needed, and the rule stays the one of the
// reference implementations.
func CountAnomalies(samples []float64, avg, sd float64, thresholds []float64, above, below []int) {
	clear(above)
	clear(below)
	if avg != avg || sd != sd || len(samples) == 0 {
		return
	}
	for _, v := range samples {
		diff := v - avg
		for i, t := range thresholds {
			cut := t * sd
			if diff > cut {
				above[i]++
			} else if -diff > cut {
				below[i]++
			}
		}
	}
}

// tickBuilder turns the rolling's rows of one boundary into HostTicks.
type tickBuilder struct {
	thresholds []float64
	samples    []float64
}

// build appends the HostTicks of rows [from, to) of tab (the per-host
// rolling's output) to dst. Hosts whose 1m window is empty are left out.
// firstMs is the time of the first event ever taken, for
// window_age_seconds.
func (tb *tickBuilder) build(dst []wire.HostTick, tab *schema.Table, c *seed.Cols, from, to int, tsMs, firstMs int64) []wire.HostTick {
	// A missing number reads as NaN, as the wire format wants it.
	num := func(r schema.Ref, i int) float64 { x, _ := tab.Num(r, i); return x }
	age := math.Max(0, math.Min(60, float64(tsMs-firstMs)/1000))
	k := len(tb.thresholds)
	counts := make([]int, 2*k*(to-from))
	for i := from; i < to; i++ {
		n := int(num(c.CPUN, i))
		if n == 0 {
			continue
		}
		tb.samples, _ = tab.AppendNums(tb.samples[:0], c.Samples, i)
		host, _ := tab.Str(c.Host, i)
		cpuAvg, cpuSd := num(c.CPUAvg, i), num(c.CPUSd, i)
		above, below := counts[:k:k], counts[k:2*k:2*k]
		counts = counts[2*k:]
		CountAnomalies(tb.samples, cpuAvg, cpuSd, tb.thresholds, above, below)
		dst = append(dst, wire.HostTick{
			TS: tsMs, Host: host,
			CPUAvg: cpuAvg, CPUSd: cpuSd, CPUN: n,
			NCurrent: len(tb.samples), AnomaliesAbove: above, AnomaliesBelow: below,
			RequestsAvg: num(c.ReqAvg, i), RequestsSum: zeroIfMissing(num(c.ReqSum, i)), RequestsN: int(num(c.ReqN, i)),
			WindowAgeSeconds: age,
			CPUMin:           num(c.CPUMin, i), CPUMax: num(c.CPUMax, i), CurrentAvg: num(c.CurAvg, i), CurrentSd: num(c.CurSd, i),
		})
	}
	return dst
}

func zeroIfMissing(f float64) float64 {
	if f != f {
		return 0
	}
	return f
}
