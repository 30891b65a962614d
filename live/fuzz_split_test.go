package live_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// splitPartition is the partitioning by host of FuzzPushSplit: per
// partition retention, but neither a limit nor an idle time-to-live, the
// two rules that are applied once per push by design.
var splitPartition = partition.Options{MaxEvents: 2}

// FuzzPushSplit decodes its input into the pipeline of FuzzPushMany
// (without partition limits) and a sequence of pushes, made on one series
// as they come and on a twin as one push of the rows the first series
// accepted. How rows are split into pushes is invisible: the twin's one
// push succeeds, every node emits the same events in the same order
// (Evict outputs aside, which come when each push applies retention), and
// afterwards both series hold the same rows and every node the same
// snapshot. The host column takes "" as one of its keys, next to missing
// cells. The series pushed in pieces sweeps its intern table after every
// push, which must not show either.
func FuzzPushSplit(f *testing.F) {
	f.Add([]byte{0})
	// A missing host, then "" at the same position of the next push (each
	// push: mode, row count; each row: time, num, opt, host, name, flag,
	// tags, shape; then the batch's corruption byte).
	f.Add([]byte{0, 1, 1, 0, 5, 0, 170, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0})
	for cfg := range 24 {
		rng := rand.New(rand.NewPCG(uint64(cfg), 11))
		data := []byte{byte(cfg) | byte(cfg%2)<<6 | byte(cfg/12)<<5 | byte(cfg%4/2)<<7}
		for range 200 {
			c := byte(rng.IntN(208)) // valid or missing cells
			if rng.IntN(40) == 0 {
				c = byte(rng.IntN(256))
			}
			data = append(data, c)
		}
		f.Add(data)
	}
	f.Fuzz(splitFuzzInput)
}

// splitFuzzInput is the body of FuzzPushSplit.
func splitFuzzInput(t *testing.T, data []byte) {
	g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour), hosts: 6}
	cfg := g.next()
	split, err := buildPipeline(cfg, splitPartition)
	if err != nil {
		t.Fatalf("building pipeline %d: %v", cfg, err)
	}
	whole, err := buildPipeline(cfg, splitPartition)
	if err != nil {
		t.Fatalf("building twin %d: %v", cfg, err)
	}
	live.SweepEveryPush(split.s) // forgetting strings is invisible too
	var accepted []schema.Row
	events := map[outputKey]*strings.Builder{}
	var out []live.Output
	for push := 0; len(g.data) > 0 && push < 32; push++ {
		mode := g.next()
		rows := make([]schema.Row, g.next()%9)
		for i := range rows {
			rows[i] = g.row()
		}
		p := fuzzPush{rows: rows}
		if mode&1 != 0 {
			p.batch = batch(rows, g.next())
		}
		if out, err = p.to(split.s, out[:0]); err != nil {
			continue // atomic: as if it had not been made (FuzzPushMany)
		}
		accepted = append(accepted, p.accepted()...)
		appendEvents(events, out)
	}
	one := fuzzPush{rows: accepted}
	if cfg&0x80 != 0 {
		one.batch = batch(accepted, 0)
	}
	out, err = one.to(whole.s, nil)
	if err != nil {
		t.Fatalf("the %d rows the pushes took, in one push: %v", len(accepted), err)
	}
	wholeEvents := map[outputKey]*strings.Builder{}
	appendEvents(wholeEvents, out)
	for id, b := range events {
		w := wholeEvents[id]
		if w == nil {
			w = &strings.Builder{}
		}
		if got, want := b.String(), w.String(); got != want {
			t.Fatalf("node %d %s, over the pushes:\n%s\nin one push:\n%s", id.node, id.kind, got, want)
		}
	}
	for id, w := range wholeEvents {
		if events[id] == nil {
			t.Fatalf("node %d %s only in one push:\n%s", id.node, id.kind, w)
		}
	}
	a, err := split.state()
	if err != nil {
		t.Fatal(err)
	}
	b, err := whole.state()
	if err != nil {
		t.Fatal(err)
	}
	if d := a.diff(b); d != "" {
		t.Fatalf("after %d rows, pushed in pieces and in one push: %s", len(accepted), d)
	}
}

// outputKey names the output of one kind of one node.
type outputKey struct {
	node live.NodeID
	kind live.OutputKind
}

// appendEvents writes the rows of the Event and Batch outputs, by node and
// kind.
func appendEvents(to map[outputKey]*strings.Builder, out []live.Output) {
	for _, o := range out {
		if o.Kind == live.Evict {
			continue
		}
		k := outputKey{o.Node, o.Kind}
		b := to[k]
		if b == nil {
			b = &strings.Builder{}
			to[k] = b
		}
		for _, row := range o.Events.All() {
			fmt.Fprintln(b, row)
		}
	}
}
