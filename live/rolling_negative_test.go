package live_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
)

// Event times are data, and those before 1970 (negative nanoseconds) are
// times like any other. The tests below move streams back in time so
// that they end at the epoch, a millisecond before it, or hours before
// it, and each push must emit the model's rows. An engine that took its
// latest time, still unset, for 0 would evict a window's rows against
// the epoch: every row more than the window's span before it would leave.

// beforeTheEpoch moves the rows of c back in time so that the latest is
// at end (ms), and checks them against the model.
func beforeTheEpoch(t *testing.T, c *rollCase, rng *rand.Rand, end int64, label string) {
	t.Helper()
	latest := c.rows[0].t
	for _, r := range c.rows {
		latest = max(latest, r.t)
	}
	for i := range c.rows {
		c.rows[i].t += end - latest
	}
	n := len(c.rows) - c.prefill
	checkRollCase(t, c, fmt.Sprintf("%s, ending at %d ms", label, end), randomCuts(rng, n, 25), []int{n})
}

// epochEnds are the times (ms) the streams end at.
var epochEnds = []int64{0, -1, -10_000_000}

// TestRollingBeforeTheEpochMatchesTheModel: the model's random streams
// (every ordering, trigger and window, partitioned or not).
func TestRollingBeforeTheEpochMatchesTheModel(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 45))
		c := newRollCase(rng)
		beforeTheEpoch(t, &c, rng, epochEnds[seed%3], fmt.Sprintf("seed %d", seed))
		if t.Failed() {
			return
		}
	}
}

// TestRollingPathsBeforeTheEpoch: every trigger (the count trigger
// emitting at every row and at every third), ordering and kind of
// window, partitioned or not, over streams with runs at one time, gaps
// that empty the windows and, under reorder, late rows: windows that
// count rows and values alone (kept as runs of times when not
// partitioned), windows
// of sums (folded in the engine's own loop) and windows with a maximum
// (the general fold).
func TestRollingPathsBeforeTheEpoch(t *testing.T) {
	windows := map[string]func() []rolling.Window{
		"counts": func() []rolling.Window {
			return []rolling.Window{{Name: "w", Span: 300 * time.Millisecond, Aggs: []reduce.Agg{
				{Out: "n", From: "x", Using: reduce.Count}, {Out: "ns", From: "s", Using: reduce.Count}}}}
		},
		"sums": func() []rolling.Window {
			return []rolling.Window{{Name: "w", Span: 300 * time.Millisecond, Aggs: []reduce.Agg{
				{Out: "sum", From: "x", Using: reduce.Sum}, {Out: "avg", From: "x", Using: reduce.Avg}}}}
		},
		"general": func() []rolling.Window {
			return []rolling.Window{{Name: "w", Span: 300 * time.Millisecond, Aggs: []reduce.Agg{
				{Out: "sum", From: "x", Using: reduce.Sum}, {Out: "hi", From: "x", Using: reduce.Max}}}}
		},
	}
	k := 0
	for _, kind := range []string{"counts", "sums", "general"} {
		for _, trig := range []struct{ trig, n int }{{trigEvent, 0}, {trigCount, 1}, {trigCount, 3}, {trigClock, 0}} {
			for _, ord := range []struct {
				o     live.Ordering
				grace int64
			}{{live.Strict, 0}, {live.Drop, 0}, {live.Reorder, 500}} {
				for _, by := range []bool{false, true} {
					rng := rand.New(rand.NewPCG(uint64(k), 46))
					c := rollCase{ordering: ord.o, grace: ord.grace, by: by, trig: trig.trig, n: trig.n, step: 100,
						windows: windows[kind](), required: true}
					c.rows = c.genRows(rng, 2)
					label := fmt.Sprintf("%s trigger %d/%d ordering %v by %v", kind, trig.trig, trig.n, ord.o, by)
					beforeTheEpoch(t, &c, rng, epochEnds[k%3], label)
					k++
					if t.Failed() {
						return
					}
				}
			}
		}
	}
}
