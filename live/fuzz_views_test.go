package live_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// viewsPipeline is FuzzViews' series and its nodes.
type viewsPipeline struct {
	s     *live.Series
	nodes []live.NodeID // every node built, root first
}

// buildViewsPipeline builds, on FuzzPushMany's schema, a pipeline of the
// views: a filter, a map and a select on the root; a partitioning by
// host with, per partition, a fill and a diff, gathered back into a
// reduce on a count trigger, and a sample, a count window, a running
// maximum and its change, gathered too; an aggregate of 1 s buckets; a
// reduce on the root, one on its last 2 s, and a rate. cfg picks the ordering (strict, drop, reorder with a
// 2 s grace), the root's retention (10 s, or 16 rows), the hosts' (one
// row or three, at most four hosts or any number, idle after 3 s) and the
// aggregate's grace. Every node is watched.
func buildViewsPipeline(cfg byte) (*viewsPipeline, error) {
	s, err := live.New("views", fuzzSchema, fuzzOptions(cfg))
	if err != nil {
		return nil, err
	}
	p := &viewsPipeline{s: s, nodes: []live.NodeID{s.Root()}}
	add := func(id live.NodeID, err error) (live.NodeID, error) {
		if err == nil {
			p.nodes = append(p.nodes, id)
		}
		return id, err
	}
	root := s.Root()
	if _, err := add(s.Filter(root, func(row schema.Row) bool {
		x, ok := row[1].Num()
		return ok && x > 0
	})); err != nil {
		return nil, err
	}
	mapped := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "twice", Kind: schema.Number, Optional: true},
	)
	if _, err := add(s.Map(root, mapped, func(in, out schema.Row) bool {
		out[0] = in[0]
		out[1] = schema.Missing()
		if x, ok := in[1].Num(); ok {
			out[1] = schema.NumberValue(2 * x)
		}
		return !in[5].IsMissing()
	})); err != nil {
		return nil, err
	}
	if _, err := add(s.Select(root, "num", "host", "tags")); err != nil {
		return nil, err
	}
	popts := partition.Options{MaxEvents: 1 + 2*int(cfg>>3&1), IdleTTL: 3 * time.Second}
	if cfg&16 != 0 {
		popts.MaxPartitions = 4
	}
	byHost, err := add(s.PartitionBy(root, "host", popts))
	if err != nil {
		return nil, err
	}
	chain, err := s.PerPartition(byHost, func(s *live.Series, part live.NodeID) (live.NodeID, error) {
		filled, err := add(s.Fill(part, live.FillOptions{Strategy: live.FillHold, Limit: 2, Columns: []string{"opt", "name"}}))
		if err != nil {
			return 0, err
		}
		return add(s.Diff(filled, "num"))
	})
	if err != nil {
		return nil, err
	}
	gathered, err := add(s.Gather(chain))
	if err != nil {
		return nil, err
	}
	// A second chain per partition: every second row, the last three of
	// those, their running maximum and its change.
	chain2, err := s.PerPartition(byHost, func(s *live.Series, part live.NodeID) (live.NodeID, error) {
		sampled, err := add(s.Sample(part, 2))
		if err != nil {
			return 0, err
		}
		last3, err := add(s.WindowCount(sampled, 3))
		if err != nil {
			return 0, err
		}
		running, err := add(s.Cumulative(last3, live.Running{Column: "num", Using: reduce.Max}))
		if err != nil {
			return 0, err
		}
		return add(s.PctChange(running, "num"))
	})
	if err != nil {
		return nil, err
	}
	if _, err := add(s.Gather(chain2)); err != nil {
		return nil, err
	}
	// A reduce over the root's last 2 s, which sees the window's
	// evictions.
	last2s, err := add(s.Window(root, 2*time.Second))
	if err != nil {
		return nil, err
	}
	if _, err := add(s.Reduce(last2s, []reduce.Agg{
		{Out: "sum", From: "num", Using: reduce.Sum},
		{Out: "min", From: "opt", Using: reduce.Min},
	}, trigger.Event())); err != nil {
		return nil, err
	}
	if _, err := add(s.Reduce(gathered, []reduce.Agg{
		{Out: "sum", From: "num", Using: reduce.Sum},
		{Out: "last", From: "name", Using: reduce.Last},
	}, trigger.Count(2))); err != nil {
		return nil, err
	}
	grace := time.Duration(0)
	if cfg&32 != 0 {
		grace = 500 * time.Millisecond
	}
	if _, err := add(s.Aggregate(root, sequence.Every(time.Second), []reduce.Agg{
		{Out: "n", From: "num", Using: reduce.Count},
		{Out: "max", From: "opt", Using: reduce.Max},
		{Out: "first", From: "flag", Using: reduce.First},
	}, grace)); err != nil {
		return nil, err
	}
	if _, err := add(s.Reduce(root, []reduce.Agg{
		{Out: "avg", From: "num", Using: reduce.Avg},
		{Out: "uniq", From: "tags", Using: reduce.Unique},
	}, trigger.Event())); err != nil {
		return nil, err
	}
	if _, err := add(s.Rate(root, "num")); err != nil {
		return nil, err
	}
	for _, id := range p.nodes {
		if err := s.Watch(id); err != nil {
			return nil, fmt.Errorf("watching node %d: %w", id, err)
		}
	}
	return p, nil
}

// state is what the series shows between pushes: its counts, its rows,
// and the snapshot and current value of every node that has them.
func (p *viewsPipeline) state() string {
	out := fmt.Sprintf("%+v %d\n", p.s.Stats(), p.s.Len())
	for i, row := range p.s.All() {
		out += fmt.Sprintln(i, row)
	}
	for _, id := range p.nodes {
		if tab, err := p.s.Snapshot(id); err == nil {
			out += fmt.Sprintf("node %d\n%s\n", id, tab)
		}
		if tab, err := p.s.Value(id); err == nil {
			out += fmt.Sprintf("value of node %d\n%s\n", id, tab)
		}
	}
	return out
}

// FuzzViews pushes FuzzPushMany's rows (late, out of order, extreme,
// invalid, empty pushes among them) through every kind of view under
// every ordering: no push may panic, and a push that fails leaves every
// node as it was.
func FuzzViews(f *testing.F) {
	for cfg := range 64 {
		rng := rand.New(rand.NewPCG(uint64(cfg), 13))
		data := []byte{byte(cfg)}
		for range 200 {
			c := byte(rng.IntN(160))
			if rng.IntN(30) == 0 {
				c = byte(rng.IntN(256))
			}
			data = append(data, c)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour)}
		cfg := g.next()
		p, err := buildViewsPipeline(cfg)
		if err != nil {
			t.Fatalf("building the pipeline (cfg %d): %v", cfg, err)
		}
		defer p.s.Close()
		var dst []live.Output
		for push := 0; len(g.data) > 0 && push < 32; push++ {
			mode := g.next()
			rows := make([]schema.Row, g.next()%9)
			for i := range rows {
				rows[i] = g.row()
			}
			fp := fuzzPush{rows: rows}
			if mode&1 != 0 {
				fp.batch = batch(rows, g.next())
			}
			before := p.state()
			out, err := fp.to(p.s, dst[:0])
			if err != nil {
				if after := p.state(); after != before {
					t.Fatalf("push %d failed (%v) and changed the series:\n%s\nbefore:\n%s", push, err, after, before)
				}
				continue
			}
			dst = out
		}
	})
}

// fuzzOptions returns the series options a fuzzed pipeline's cfg picks:
// its ordering (cfg % 3: strict, drop, reorder with a 2 s grace) and its
// retention (cfg&4: 16 rows, else 10 s).
func fuzzOptions(cfg byte) live.Options {
	opts := live.Options{MaxAge: 10 * time.Second}
	switch cfg % 3 {
	case 1:
		opts.Ordering = live.Drop
	case 2:
		opts.Ordering, opts.Grace = live.Reorder, 2*time.Second
	}
	if cfg&4 != 0 {
		opts.MaxAge, opts.MaxEvents = 0, 16
	}
	return opts
}
