package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestTickKeepsNoIndicesWhenPushesRepeatAPermutation: 1000 partitions
// pushed a row each, in the same order, at every push. The rows between
// two ticks repeat a template that names each partition once, so a tick
// finds each partition's rows by their place in it: no index a row is
// kept, neither the sorted 2-byte indices (20 rows a partition a tick)
// nor the 4-byte links (2 rows a partition a tick), and every row is
// still taken once.
func TestTickKeepsNoIndicesWhenPushesRepeatAPermutation(t *testing.T) {
	for _, perSec := range []int{100, 10} {
		t.Run(fmt.Sprintf("%d rows a second", perSec), func(t *testing.T) {
			r := newGroupRig(1000, perSec)
			const secs = 10
			for range secs * perSec {
				r.tick()
			}
			g := r.g
			assert.Zero(t, cap(g.idx16)+cap(g.idx), "room for indices of the buffered rows")
			assert.LessOrEqual(t, cap(g.seq), 32, "the scratch of one partition's rows")
			rows := len(g.in.t)
			for _, p := range g.order {
				rows += g.engines[p].Len()
			}
			require.Equal(t, secs*perSec*1000, rows, "rows held")
		})
	}
}

// TestStridedTicksMatchSortedTicks: a tick whose buffered rows repeat a
// template naming each partition at most once takes every partition's
// rows by their place in the template (see strideChains); the rows each
// partition takes, and so every emitted cell, must be those of a tick
// that sorts or links them, bit for bit. The pushes repeat a permutation
// of some of 300 partitions (a new one now and then), their times cross
// the clock's boundaries anywhere inside them, and now and then a push
// breaks the repetition (another order, a shorter push, a partition
// named twice), comes out of order, the template names a partition
// twice, or a partition is removed with rows buffered. With one column the rows go through the general path; with
// two, while the deques grow, some cross a block. The same with two and
// four workers: every tick split over them, each gathering its
// partitions' rows by stride; or every push's rows handed to a worker
// between ticks (spelt out first), the tick striding over the rest.
func TestStridedTicksMatchSortedTicks(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	for _, cols := range []string{"v and w", "v only"} {
		t.Run(cols, func(t *testing.T) {
			aggs := []reduce.Agg{
				{Out: "avg", From: "v", Using: reduce.Avg},
				{Out: "samples", From: "v", Using: reduce.Samples},
				{Out: "last", From: "v", Using: reduce.Last},
			}
			if cols == "v and w" {
				aggs = append(aggs, reduce.Agg{Out: "sum", From: "w", Using: reduce.Sum})
			}
			windows := []rolling.Window{{Name: "2s", Span: 2 * time.Second, Aggs: aggs},
				{Name: "150ms", Span: 150 * time.Millisecond, Aggs: []reduce.Agg{
					{Out: "cur_min", From: "v", Using: reduce.Min},
					{Out: "cur_samples", From: "v", Using: reduce.Samples},
				}}}
			const parts = 300
			keys := make(keyNames, parts)
			for i := range keys {
				keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
			}
			run := func(stride bool, link, nw int, handAll bool, pushes int) (*schema.Table, int) {
				defer func(b bool) { strideTicks = b }(strideTicks)
				strideTicks = stride
				defer SetLinkRows(SetLinkRows(link))
				defer SetHandOffRows(SetHandOffRows(1 << 30)) // no hand-over, every tick split
				handOffSpan = 0
				if handAll {
					SetHandOffRows(1)
				}
				plan, g := clockGroup(t, windows, keys, nw)
				rng := rand.New(rand.NewPCG(45, uint64(len(cols))))
				permutation := func() []int32 {
					o := rng.Perm(parts)[:50+rng.IntN(parts-50)]
					p := make([]int32, len(o))
					for i, x := range o {
						p[i] = int32(x)
					}
					return p
				}
				tmpl := permutation()
				all := schema.NewTable(plan.Schema())
				var in Input
				placed, tm := 0, int64(0)
				for push := range pushes {
					part, sorted := tmpl, true
					switch rng.IntN(30) {
					case 0:
						part = permutation()
					case 1:
						part = tmpl[:rng.IntN(len(tmpl))+1]
					case 2:
						part = append([]int32(nil), tmpl...)
						part[rng.IntN(len(part))] = part[rng.IntN(len(part))]
					case 3, 4:
						tmpl = permutation()
						part = tmpl
					case 5:
						sorted = false
					case 6:
						// A template that names a partition twice.
						tmpl = append([]int32(nil), tmpl...)
						tmpl[rng.IntN(len(tmpl))] = tmpl[rng.IntN(len(tmpl))]
						part = tmpl
					}
					tab := schema.NewTable(testSchema)
					for i := range part {
						at := tm
						if !sorted && i%7 == 3 {
							at -= int64(30 * time.Millisecond)
						}
						table.Column(tab, 0).AppendTime(at)
						tm += int64(time.Millisecond) / 8
						table.Column(tab, 1).AppendNum(rng.NormFloat64())
						if rng.IntN(6) == 0 {
							table.Column(tab, 2).AppendMissing()
						} else {
							table.Column(tab, 2).AppendNum(float64(rng.IntN(100)))
						}
					}
					plan.Bind(&in, tab, nil)
					in.SetSorted(sorted)
					g.Push(&in, part, all)
					if push%97 == 50 {
						// A removal with rows buffered: they leave with it.
						g.Remove(tmpl[rng.IntN(len(tmpl))])
					}
					if g.in.cyc && len(g.in.t) >= len(g.tmpl) && distinct(g.tmpl) && !g.bg.busy {
						placed++
					}
				}
				g.settle()
				return all, placed
			}
			want, _ := run(false, 0, 1, false, 1500)
			for _, link := range []int{0, linkRows, 1 << 20} {
				got, placed := run(true, link, 1, false, 1500)
				require.Greater(t, placed, 250, "pushes after which the next tick finds rows by their place")
				requireSameTable(t, want, got, fmt.Sprintf("linkRows %d", link))
			}
			// Fewer pushes with workers (a -race run is slow).
			want, _ = run(false, 0, 1, false, 400)
			for _, nw := range []int{2, 4} {
				got, placed := run(true, 0, nw, false, 400)
				require.Greater(t, placed, 60, "%d workers: pushes after which the next tick finds rows by their place", nw)
				requireSameTable(t, want, got, fmt.Sprintf("%d workers", nw))
				got, _ = run(true, 0, nw, true, 400)
				requireSameTable(t, want, got, fmt.Sprintf("%d workers, every push handed over", nw))
			}
		})
	}
}

// distinct reports whether parts names no partition twice.
func distinct(parts []int32) bool {
	seen := map[int32]bool{}
	for _, p := range parts {
		if seen[p] {
			return false
		}
		seen[p] = true
	}
	return true
}

// TestStridedTickNotesUnsortedRows: rows a tick finds by their place in
// the template (see strideChains) leave their deque known sorted when
// the pushes were, and note it may not be when they were not known to
// be in order (see dqUnsorted).
func TestStridedTickNotesUnsortedRows(t *testing.T) {
	// Every row buffered, none appended directly before the first tick.
	defer SetDirectParts(SetDirectParts(0))
	for _, sorted := range []bool{true, false} {
		// Five seconds of sorted pushes, then those of one tick (200 ms)
		// either way: the deques' tails then have room for a tick's rows.
		r := newGroupRig(1000, 100)
		r.sorted = true
		for range 20 * 5 {
			r.tick()
		}
		r.sorted = sorted
		for range 20 {
			r.tick()
		}
		g := r.g
		require.Zero(t, cap(g.idx16)+cap(g.idx), "the ticks found the rows by their place")
		for _, p := range g.order {
			require.Positive(t, g.engines[p].Len())
			require.Equal(t, sorted, g.engines[p].dq.sorted(), "partition %d, pushes known sorted: %v", p, sorted)
		}
	}
}

// TestStridedTicksTakeLongChains: three partitions a push, 1,000 rows a
// partition a tick, so that a partition's rows seldom fit the room left
// in its deque's tail block and are gathered by stride a few at a time
// (gatherStrided's slow path), on one goroutine and split over two
// workers; the rows are those of sorted ticks, bit for bit.
func TestStridedTicksTakeLongChains(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	defer SetHandOffRows(SetHandOffRows(1 << 30))
	handOffSpan = 0 // every tick with workers split over them
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "avg", From: "v", Using: reduce.Avg},
		{Out: "sum", From: "w", Using: reduce.Sum},
		{Out: "last", From: "v", Using: reduce.Last},
	}}}
	keys := keyNames{schema.StringValue("a"), schema.StringValue("b"), schema.StringValue("c")}
	run := func(stride bool, nw int) (*schema.Table, int) {
		defer func(b bool) { strideTicks = b }(strideTicks)
		strideTicks = stride
		plan, g := clockGroup(t, windows, keys, nw)
		rng := rand.New(rand.NewPCG(46, 1))
		all := schema.NewTable(plan.Schema())
		var in Input
		part := []int32{2, 0, 1}
		slow, last, checked := 0, 0, false
		for push := range 12000 {
			tab := schema.NewTable(testSchema)
			for range part {
				table.Column(tab, 0).AppendTime(int64(push) * int64(100*time.Microsecond))
				table.Column(tab, 1).AppendNum(rng.NormFloat64())
				table.Column(tab, 2).AppendNum(float64(rng.IntN(100)))
			}
			plan.Bind(&in, tab, nil)
			g.Push(&in, part, all)
			if n := len(g.in.t); n < last {
				checked = false // a tick took the rows
			}
			last = len(g.in.t)
			if g.in.cyc && !checked && last >= 3*990 {
				checked = true
				// The tick after this push: would a partition's rows fit
				// its tail block?
				for _, p := range part {
					if int(p) >= len(g.engines) {
						continue
					}
					if e := g.engines[p]; e != nil {
						if blk, o := e.dq.slotOf(e.dq.tail); 3*1000 > len(blk)-o {
							slow++
						}
					}
				}
			}
		}
		return all, slow
	}
	want, _ := run(false, 1)
	for _, nw := range []int{1, 2} {
		got, slow := run(true, nw)
		require.Positive(t, slow, "ticks whose rows do not fit a tail block")
		requireSameTable(t, want, got, fmt.Sprintf("%d workers", nw))
	}
}

// clockGroup returns a plan of windows under a 100 ms clock, keyed by a
// string, and a group of it over keys, spread over nw workers when nw is
// above one (the pool closed when the test ends).
func clockGroup(t *testing.T, windows []rolling.Window, keys keyNames, nw int) (*Plan, *Group) {
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keys)
	if nw > 1 {
		pool := workers.New(nw)
		t.Cleanup(pool.Close)
		g.SetWorkers(pool)
	}
	return plan, g
}
