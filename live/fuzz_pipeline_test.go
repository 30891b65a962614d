package live_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
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

// pipeline is FuzzPipelineWorkers' series: views, rollings, aggregates
// and a reduce downstream of a partitioning, and the nodes to read.
type pipeline struct {
	s       *live.Series
	nodes   []live.NodeID
	parts   []live.NodeID
	aggs    []live.NodeID
	perPush []live.NodeID // nodes whose rows depend on how rows are split into pushes
}

// buildPipelineViews builds, on FuzzPushMany's schema and a series of the
// given workers, a partitioning by host and on it: a chain per host of a
// fill, a rate and running totals; a 500 ms clock rolling on that chain
// (aligned for cfg bit 64) with every reducer and a history; a diff and
// an event rolling on that rolling; aggregates of the partitions and of
// the rolling; and a reduce of the gathered chain. cfg picks the
// ordering, the root's retention, and the hosts' (one row or three, idle
// after 3 s, at most six). Every node is watched.
func buildPipelineViews(cfg byte, workers int) (*pipeline, error) {
	return buildPipelineViewsWith(cfg, workers, false)
}

// buildPipelineViewsWith is buildPipelineViews; split leaves out the partition
// limit and idle time-to-live, applied once per push by design.
func buildPipelineViewsWith(cfg byte, workers int, split bool) (*pipeline, error) {
	if split {
		cfg &^= 16 | 32
	}
	opts := fuzzOptions(cfg)
	opts.Workers = workers
	s, err := live.New("pipeline", fuzzSchema, opts)
	if err != nil {
		return nil, err
	}
	p := &pipeline{s: s, nodes: []live.NodeID{s.Root()}}
	add := func(id live.NodeID, err error) (live.NodeID, error) {
		if err == nil {
			p.nodes = append(p.nodes, id)
		}
		return id, err
	}
	popts := partition.Options{MaxEvents: 1 + 2*int(cfg>>3&1)}
	if cfg&16 != 0 {
		popts.IdleTTL = 3 * time.Second
	}
	if cfg&32 != 0 {
		popts.MaxPartitions = 6
	}
	byHost, err := add(s.PartitionBy(s.Root(), "host", popts))
	if err != nil {
		return nil, err
	}
	p.parts = append(p.parts, byHost)
	chain, err := s.PerPartition(byHost, func(s *live.Series, part live.NodeID) (live.NodeID, error) {
		filled, err := add(s.Fill(part, live.FillOptions{Strategy: live.FillHold, Columns: []string{"opt", "name"}}))
		if err != nil {
			return 0, err
		}
		rate, err := add(s.Rate(filled, "opt"))
		if err != nil {
			return 0, err
		}
		return add(s.Cumulative(rate, live.Running{Column: "num", Using: reduce.Sum}, live.Running{Column: "opt", Using: reduce.Max}))
	})
	if err != nil {
		return nil, err
	}
	roll, err := add(s.Rolling(chain, []rolling.Window{
		{Name: "2s", Span: 2 * time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "num", Using: reduce.Avg},
			{Out: "sd", From: "num", Using: reduce.Stdev},
			{Out: "min", From: "opt", Using: reduce.Min},
			{Out: "max", From: "opt", Using: reduce.Max},
			{Out: "first", From: "name", Using: reduce.First},
			{Out: "last", From: "flag", Using: reduce.Last},
			{Out: "diff", From: "num", Using: reduce.Difference},
			{Out: "med", From: "num", Using: reduce.Median},
			{Out: "p90", From: "opt", Using: reduce.Percentile(90)},
			{Out: "uniq", From: "name", Using: reduce.Unique},
			{Out: "top", From: "tags", Using: reduce.Top(2)},
		}},
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "samples", From: "num", Using: reduce.Samples},
			{Out: "keep", From: "name", Using: reduce.Keep},
			{Out: "n", From: "opt", Using: reduce.Count},
			{Out: "sum", From: "opt", Using: reduce.Sum},
		}},
	}, rolling.Options{Trigger: trigger.Clock(sequence.Every(500 * time.Millisecond)), Aligned: cfg&64 != 0 && cfg%3 != 2 || cfg&64 != 0 && opts.Grace > 0,
		History: rolling.History{MaxEvents: 20}}))
	if err != nil {
		return nil, err
	}
	if _, err := add(s.Diff(roll, "avg", "max")); err != nil {
		return nil, err
	}
	roll2, err := add(s.Rolling(roll, []rolling.Window{{Span: 3 * time.Second, Aggs: []reduce.Agg{
		{Out: "m", From: "avg", Using: reduce.Max},
		{Out: "u", From: "first", Using: reduce.Unique},
	}}}, rolling.Options{}))
	if err != nil {
		return nil, err
	}
	_ = roll2
	a1, err := add(s.Aggregate(byHost, sequence.Every(time.Second), []reduce.Agg{
		{Out: "n", From: "num", Using: reduce.Count},
		{Out: "med", From: "opt", Using: reduce.Median},
		{Out: "last", From: "host", Using: reduce.Last},
	}, 0))
	if err != nil {
		return nil, err
	}
	a2, err := add(s.Aggregate(roll, sequence.Every(time.Second), []reduce.Agg{
		{Out: "n", From: "avg", Using: reduce.Count},
		{Out: "top", From: "first", Using: reduce.Top(3)},
	}, 0))
	if err != nil {
		return nil, err
	}
	p.aggs = append(p.aggs, a1, a2)
	g, err := add(s.Gather(chain))
	if err != nil {
		return nil, err
	}
	red, err := add(s.Reduce(g, []reduce.Agg{
		{Out: "sum", From: "num", Using: reduce.Sum},
		{Out: "p50", From: "opt", Using: reduce.Percentile(50)},
	}, trigger.Event()))
	if err != nil {
		return nil, err
	}
	p.perPush = append(p.perPush, red)
	for _, id := range p.nodes {
		if err := s.Watch(id); err != nil {
			return nil, fmt.Errorf("watching node %d: %w", id, err)
		}
	}
	return p, nil
}

// state is what the series shows between pushes: its counts and rows,
// every node's snapshot and current value (and its bytes when bytes),
// the partitions and the aggregates' counters.
func (p *pipeline) state(bytes bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v %d\n", p.s.Stats(), p.s.Len())
	for i, row := range p.s.All() {
		fmt.Fprintln(&b, i, row)
	}
	for _, id := range p.nodes {
		if tab, err := p.s.Snapshot(id); err == nil {
			fmt.Fprintf(&b, "node %d\n%s\n", id, tab)
		} else {
			fmt.Fprintf(&b, "node %d snap err %v\n", id, err)
		}
		if tab, err := p.s.Value(id); err == nil {
			fmt.Fprintf(&b, "value of node %d\n%s\n", id, tab)
		} else {
			fmt.Fprintf(&b, "node %d value err %v\n", id, err)
		}
		if bytes {
			n, err := p.s.NodeBytes(id)
			fmt.Fprintf(&b, "bytes of %d: %d %v\n", id, n, err)
		}
	}
	for _, id := range p.parts {
		ps, err := p.s.Partitions(id)
		fmt.Fprintf(&b, "parts %d: %+v %v\n", id, ps, err)
	}
	for _, id := range p.aggs {
		st, err := p.s.AggregateStats(id)
		fmt.Fprintf(&b, "agg %d: %+v %v\n", id, st, err)
	}
	return b.String()
}

// pipelineWorkersInput is the body of FuzzPipelineWorkers.
func pipelineWorkersInput(t *testing.T, data []byte) {
	g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour), hosts: 8}
	cfg := g.next()
	var ps []*pipeline
	for _, w := range []int{1, 2, 4} {
		p, err := buildPipelineViews(cfg, w)
		if err != nil {
			t.Fatalf("building (cfg %d, workers %d): %v", cfg, w, err)
		}
		defer p.s.Close()
		ps = append(ps, p)
	}
	dsts := make([][]live.Output, len(ps))
	for push := 0; len(g.data) > 0 && push < 40; push++ {
		mode := g.next()
		rows := make([]schema.Row, g.next()%12)
		for i := range rows {
			rows[i] = g.row()
		}
		fp := fuzzPush{rows: rows}
		if mode&1 != 0 {
			fp.batch = batch(rows, g.next())
		}
		before := ps[0].state(false)
		var want string
		var wantErr error
		for k, p := range ps {
			out, err := fp.to(p.s, dsts[k][:0])
			if err != nil {
				if k == 0 {
					if after := p.state(false); after != before {
						t.Fatalf("cfg %d push %d failed (%v) and changed the series:\n%s\nbefore:\n%s", cfg, push, err, after, before)
					}
				}
			} else {
				dsts[k] = out
			}
			got := render(out)
			if k == 0 {
				want, wantErr = got, err
				continue
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("cfg %d push %d workers idx %d: error %v, want %v", cfg, push, k, err, wantErr)
			}
			if err == nil && got != want {
				t.Fatalf("cfg %d push %d workers idx %d: outputs\n%s\nwant\n%s", cfg, push, k, got, want)
			}
		}
		w := ps[0].state(false)
		for k := 1; k < len(ps); k++ {
			_ = ps[k].state(true) // NodeBytes between pushes, with hand-offs in flight
			if st := ps[k].state(false); st != w {
				t.Fatalf("cfg %d push %d workers idx %d: state\n%s\nwant\n%s", cfg, push, k, st, w)
			}
		}
	}
}

// FuzzPipelineWorkers pushes the same batches into the pipeline of
// buildPipelineViews on one, two and four workers: every push must give
// the same outputs, cell for cell, and the same error, and between
// pushes every snapshot, current value, partition list and aggregate
// counter must agree; a push that fails changes none of them.
func FuzzPipelineWorkers(f *testing.F) {
	for cfg := range 128 {
		rng := rand.New(rand.NewPCG(uint64(cfg), 37))
		data := []byte{byte(cfg)}
		for range 300 {
			c := byte(rng.IntN(160))
			if rng.IntN(40) == 0 {
				c = byte(rng.IntN(256))
			}
			data = append(data, c)
		}
		f.Add(data)
	}
	f.Fuzz(pipelineWorkersInput)
}
