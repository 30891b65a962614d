package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func TestTickOnOneGoroutineKeepsItsRowsOnceBetweenTicks(t *testing.T) {
	// 1000 partitions at 100 rows a second under a 200 ms clock: 20
	// batches of 1000 rows a tick. On one goroutine the rows between two
	// ticks are in one buffer (28 bytes a row, with append's slack), and
	// the tick takes them from there (through their indices sorted by
	// partition, 2 bytes a row, or, as here where every push repeats one
	// order of the partitions, by their place in it): no second buffer
	// and no copy of the rows laid out by partition.
	r := newGroupRig(1000, 100)
	for range 20 * 100 {
		r.tick()
	}
	g := r.g
	const perTick = 20 * 1000
	held := g.in.bytes() + g.work.bytes() + 4*cap(g.tmpl) + 8*cap(g.sorted) + 8*cap(g.at) + 4*cap(g.idx) + 2*cap(g.idx16)
	assert.LessOrEqual(t, held, (28+2)*perTick*5/4, "bytes buffering the rows of a tick")
	assert.Positive(t, g.in.bytes(), "the buffer is kept for the next tick")

	// Every row pushed is in its partition's deque or still buffered,
	// once (the 1m windows are not full yet).
	rows := len(g.in.t)
	for _, p := range g.order {
		rows += g.engines[p].Len()
	}
	require.Equal(t, 20*100*1000, rows, "rows held")
}

// TestTickBufferKeepsLittleRoomBeyondATick: append grows the tick's
// buffer by a quarter, and the room it leaves unused was held for the
// group's life. At 1000 partitions and 20 rows each a tick, the buffer
// keeps room for at most a sixteenth more rows than a tick took, and a
// steady stream, once the buffer fits, does not make it anew.
func TestTickBufferKeepsLittleRoomBeyondATick(t *testing.T) {
	r := newGroupRig(1000, 100)
	for range 20 * 10 {
		r.tick()
	}
	g := r.g
	const perTick = 20 * 1000
	in := &g.in
	for name, c := range map[string]int{"times": cap(in.t), "column 0": cap(in.c[0]), "column 1": cap(in.c[1])} {
		assert.LessOrEqual(t, c, perTick+perTick/16, "room of the buffer's %s", name)
		assert.GreaterOrEqual(t, c, perTick, "room of the buffer's %s", name)
	}
	before := unsafe.SliceData(in.t)
	for range 20 * 10 {
		r.tick()
	}
	assert.Same(t, before, unsafe.SliceData(in.t), "a steady stream makes no buffer anew")
}

// TestLinkedTicksMatchSortedTicks: a tick with a row or two a partition
// links each partition's buffered rows (see linkRows) instead of sorting
// their indices; the rows each partition takes, and so every emitted
// cell, must be the same bit for bit. 300 partitions (buffered, not
// direct) get 0 to 6 rows a tick, in random order, partitions appear late
// and are removed with rows buffered; with one column the rows go through
// the chain's general path, and with two, while deques grow, some cross
// a block. The stream runs with every tick sorted (into 16-bit indices,
// and into 32-bit ones), every tick linked, and the default.
func TestLinkedTicksMatchSortedTicks(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	for _, cols := range []string{"v and w", "v only"} {
		t.Run(cols, func(t *testing.T) {
			aggs := []reduce.Agg{
				{Out: "avg", From: "v", Using: reduce.Avg},
				{Out: "sd", From: "v", Using: reduce.Stdev},
				{Out: "samples", From: "v", Using: reduce.Samples},
				{Out: "last", From: "v", Using: reduce.Last},
			}
			if cols == "v and w" {
				aggs = append(aggs, reduce.Agg{Out: "sum", From: "w", Using: reduce.Sum},
					reduce.Agg{Out: "w_samples", From: "w", Using: reduce.Samples})
			}
			windows := []rolling.Window{{Name: "2s", Span: 2 * time.Second, Aggs: aggs},
				{Name: "150ms", Span: 150 * time.Millisecond, Aggs: []reduce.Agg{
					{Out: "cur", From: "v", Using: reduce.Avg},
					{Out: "cur_min", From: "v", Using: reduce.Min},
					{Out: "cur_samples", From: "v", Using: reduce.Samples},
				}}}
			const parts = 300
			keys := make(keyNames, parts)
			for i := range keys {
				keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
			}
			run := func(link, narrow int) (*schema.Table, int) {
				defer SetLinkRows(SetLinkRows(link))
				defer func(n int) { narrowRows = n }(narrowRows)
				narrowRows = narrow
				plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
					&Key{Name: "key", Kind: schema.String}, nil)
				require.NoError(t, err)
				g := plan.NewGroup(keys)
				rng := rand.New(rand.NewPCG(16, uint64(len(cols))))
				all := schema.NewTable(plan.Schema())
				var in Input
				linked := 0
				tm := int64(0)
				for tick := range 120 {
					// Every partition known so far gets 0 to 6 rows over
					// the tick's 100 ms, a few more are met.
					known := min(parts, 40+tick*5)
					tab := schema.NewTable(testSchema)
					var part []int32
					for p := range known {
						for range rng.IntN(7) * rng.IntN(2) {
							part = append(part, int32(p))
						}
					}
					rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
					for i := range part {
						table.Column(tab, 0).AppendTime(tm + int64(i)*int64(90*time.Millisecond)/int64(len(part)))
						table.Column(tab, 1).AppendNum(rng.NormFloat64())
						if rng.IntN(6) == 0 {
							table.Column(tab, 2).AppendMissing()
						} else {
							table.Column(tab, 2).AppendNum(float64(rng.IntN(100)))
						}
					}
					tm += int64(100 * time.Millisecond)
					// The crossing row, of a partition of its own.
					table.Column(tab, 0).AppendTime(tm)
					table.Column(tab, 1).AppendNum(1)
					table.Column(tab, 2).AppendNum(2)
					part = append(part, int32(tick%known))
					plan.Bind(&in, tab, nil)
					// The rows before the crossing, then the crossing row:
					// the tick is the second push's.
					n := tab.Len() - 1
					head, rest := in, in
					head.times, rest.times = in.times[:n], in.times[n:]
					head.enc, rest.enc = nil, nil
					for _, c := range in.enc {
						head.enc, rest.enc = append(head.enc, c[:n]), append(rest.enc, c[n:])
					}
					out := schema.NewTable(plan.Schema())
					g.Push(&head, part[:n], out)
					require.Zero(t, out.Len())
					if len(g.in.t) > 0 && len(g.in.t) <= linkRows*len(g.order) {
						linked++
					}
					if tick%9 == 4 {
						// A removal with rows buffered: they leave with it.
						g.Remove(int32(rng.IntN(known)))
					}
					g.Push(&rest, part[n:], out)
					require.Equal(t, g.Len(), out.Len(), "tick %d", tick)
					table.AppendAll(all, out)
				}
				return all, linked
			}
			sorted, none := run(0, narrowRows)
			require.Zero(t, none)
			for _, link := range []int{-1, 1 << 20, linkRows} {
				var got *schema.Table
				if link < 0 {
					// Sorted into 32-bit indices.
					got, none = run(0, 0)
					require.Zero(t, none)
				} else {
					var linked int
					got, linked = run(link, narrowRows)
					require.Greater(t, linked, 100, "linked ticks with linkRows %d", link)
				}
				requireSameTable(t, sorted, got, fmt.Sprintf("linkRows %d", link))
			}
		})
	}
}

func TestLinkedTickSizesTheScratchOfItsSlowPath(t *testing.T) {
	// 1,000 partitions at 10 rows a second, two rows each a 200 ms tick:
	// the ticks link their rows. gatherLinked's slow path (a chain that
	// crosses its ring's tail block) needs a scratch as long as the
	// chain; every linked tick sizes it for its longest chain, so that
	// the first chain to take that path after the warm-up finds it made
	// (TestSeedSteadyDoesNotAllocate once counted it growing there). With
	// the scratch let go, a tick in which no chain takes that path makes
	// it again. (The rig's pushes repeat one permutation of the
	// partitions, which strided ticks would gather without links.)
	defer func(was bool) { strideTicks = was }(strideTicks)
	strideTicks = false
	r := newGroupRig(1000, 10)
	for range 12 { // the first tick meets the partitions; the next link
		r.tick()
	}
	r.g.seq = nil
	for range 2 { // one more tick
		r.tick()
	}
	assert.GreaterOrEqual(t, cap(r.g.seq), 2, "the scratch of two rows a chain")
}
