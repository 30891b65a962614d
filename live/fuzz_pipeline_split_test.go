package live_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

// snapshots renders the rows the series holds and every node's snapshot.
func (p *pipeline) snapshots() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", p.s.Len())
	for i, row := range p.s.All() {
		fmt.Fprintln(&b, i, row)
	}
	for _, id := range p.nodes {
		if tab, err := p.s.Snapshot(id); err == nil {
			fmt.Fprintf(&b, "node %d\n%s\n", id, tab)
		}
	}
	return b.String()
}

// pipelineSplitInput is the body of FuzzPipelineSplit.
func pipelineSplitInput(t *testing.T, data []byte) {
	g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour), hosts: 8}
	cfg := g.next()
	split, err := buildPipelineViewsWith(cfg, 1+int(cfg%3), true)
	if err != nil {
		t.Fatal(err)
	}
	defer split.s.Close()
	whole, err := buildPipelineViewsWith(cfg, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.s.Close()
	live.SweepEveryPush(split.s)
	var accepted []schema.Row
	events := map[outputKey]*strings.Builder{}
	var out []live.Output
	for push := 0; len(g.data) > 0 && push < 40; push++ {
		mode := g.next()
		rows := make([]schema.Row, g.next()%12)
		for i := range rows {
			rows[i] = g.row()
		}
		p := fuzzPush{rows: rows}
		if mode&1 != 0 {
			p.batch = batch(rows, g.next())
		}
		if out, err = p.to(split.s, out[:0]); err != nil {
			continue
		}
		accepted = append(accepted, p.accepted()...)
		appendEvents(events, out)
	}
	out, err = fuzzPush{rows: accepted}.to(whole.s, nil)
	if err != nil {
		t.Fatalf("cfg %d: the %d rows the pushes took, in one push: %v", cfg, len(accepted), err)
	}
	wholeEvents := map[outputKey]*strings.Builder{}
	appendEvents(wholeEvents, out)
	for id, b := range events {
		if slices.Contains(split.perPush, id.node) {
			continue
		}
		w := wholeEvents[id]
		if w == nil {
			w = &strings.Builder{}
		}
		if got, want := b.String(), w.String(); got != want {
			t.Fatalf("cfg %d node %d %s, over the pushes:\n%s\nin one push:\n%s", cfg, id.node, id.kind, got, want)
		}
	}
	for id, w := range wholeEvents {
		if events[id] == nil && !slices.Contains(split.perPush, id.node) {
			t.Fatalf("cfg %d node %d %s only in one push:\n%s", cfg, id.node, id.kind, w)
		}
	}
	if a, b := split.snapshots(), whole.snapshots(); a != b {
		t.Fatalf("cfg %d after %d rows, pushed in pieces:\n%s\nin one push:\n%s", cfg, len(accepted), a, b)
	}
}

// FuzzPipelineSplit decodes its input into the pipeline of
// buildPipelineViews (without partition limits or idle time-to-live, which
// apply once per push by design) and pushes, made on one series as they
// come (on one to three workers, sweeping its strings after every push)
// and on a twin as one push of the rows the first series accepted: every
// node but the reduce, whose trigger fires once per push, emits the same
// rows in the same order, and both hold the same rows and snapshots.
func FuzzPipelineSplit(f *testing.F) {
	for cfg := range 128 {
		rng := rand.New(rand.NewPCG(uint64(cfg), 777))
		data := []byte{byte(cfg)}
		for range 400 {
			c := byte(rng.IntN(160))
			if rng.IntN(60) == 0 {
				c = byte(rng.IntN(256))
			}
			data = append(data, c)
		}
		f.Add(data)
	}
	f.Fuzz(pipelineSplitInput)
}
