package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

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

// pushRows pushes k rows a partition to the rig's group in one push, the
// partitions in turn at each time.
func (r *groupRig) pushRows(k int) {
	table.Reset(r.tab)
	table.Reset(r.out)
	var part []int32
	for range k {
		for p := range r.parts {
			table.Column(r.tab, 0).AppendTime(r.t)
			table.Column(r.tab, 1).AppendNum(0.5 + 0.1*math.Sin(float64(r.t/r.step+int64(p))))
			table.Column(r.tab, 2).AppendNum(float64(70 + p%61))
			part = append(part, int32(p))
		}
		r.t += r.step
	}
	r.plan.Bind(&r.in, r.tab, nil)
	r.g.Push(&r.in, part, r.out)
}

// TestTickBufferStaysUnderItsBound: on one goroutine the rows between two
// ticks are buffered up to spillRows, however many a tick takes; a full
// buffer goes to the deques before more rows enter it. At 1000
// partitions, 20,000 rows a tick arrive in pushes of a row a partition,
// then of 100 rows a partition (five ticks in a push); the buffer, its
// indices and the second buffer never have room for more than spillRows
// rows, and a steady stream keeps the same buffer. Without the bound they
// hold a tick's rows and a sixteenth more (21,250).
func TestTickBufferStaysUnderItsBound(t *testing.T) {
	r := newGroupRig(1000, 100)
	check := func(what string) {
		t.Helper()
		g := r.g
		for name, c := range map[string]int{
			"times": cap(g.in.t), "partitions": cap(g.in.part), "column 0": cap(g.in.c[0]), "column 1": cap(g.in.c[1]),
			"second buffer's times": cap(g.work.t), "second buffer's partitions": cap(g.work.part),
			"indices": cap(g.idx), "a chain's rows": cap(g.seq),
		} {
			assert.LessOrEqual(t, c, spillRows, "%s: room of the buffer's %s", what, name)
		}
		assert.Zero(t, cap(g.sorted), "%s: rows laid out", what)
	}
	for range 20 * 20 {
		r.tick()
	}
	check("pushes of a row a partition")
	before := unsafe.SliceData(r.g.in.t)
	for range 20 * 20 {
		r.tick()
	}
	assert.Same(t, before, unsafe.SliceData(r.g.in.t), "a steady stream makes no buffer anew")
	for range 10 {
		r.pushRows(100)
	}
	check("pushes of 100 rows a partition")

	// Every row pushed is in its partition's deque or still buffered,
	// once (the 1m windows are not full yet).
	rows := len(r.g.in.part)
	for _, p := range r.g.order {
		rows += r.g.engines[p].Len()
	}
	require.Equal(t, 40*20*1000+10*100*1000, rows, "rows held")
}

// TestSpilledTicksMatchBufferedTicks: a bounded buffer moves its rows to
// the deques before the tick (see spillRows), at any row of a push;
// every emitted cell must be the one an unbounded buffer gives, bit for
// bit. 300 partitions get 0 to 30 rows a tick, out of order within a
// push (and so within the partition), pushes span up to three ticks,
// partitions appear late and are removed with rows buffered. The bounds
// go from a row to more than a tick's rows; with one worker the group
// bounds its buffer, with two it does not.
func TestSpilledTicksMatchBufferedTicks(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	aggs := []reduce.Agg{
		{Out: "avg", From: "v", Using: reduce.Avg},
		{Out: "sd", From: "v", Using: reduce.Stdev},
		{Out: "samples", From: "v", Using: reduce.Samples},
		{Out: "min", From: "v", Using: reduce.Min},
		{Out: "last", From: "v", Using: reduce.Last},
		{Out: "sum", From: "w", Using: reduce.Sum},
	}
	windows := []rolling.Window{{Name: "2s", Span: 2 * time.Second, Aggs: aggs},
		{Name: "150ms", Span: 150 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "cur", From: "v", Using: reduce.Avg},
			{Out: "cur_max", From: "v", Using: reduce.Max},
		}}}
	const parts = 300
	keys := make(keyNames, parts)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	run := func(bound, nw int) (*schema.Table, int) {
		defer SetSpillRows(SetSpillRows(bound))
		plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
			&Key{Name: "key", Kind: schema.String}, nil)
		require.NoError(t, err)
		g := plan.NewGroup(keys)
		if nw > 0 {
			pool := workers.New(nw)
			defer pool.Close()
			g.SetWorkers(pool)
		}
		rng := rand.New(rand.NewPCG(22, 15))
		all := schema.NewTable(plan.Schema())
		var in Input
		spills := 0
		tm := int64(0)
		for push := range 80 {
			// Every partition known so far gets 0 to 30 rows over the
			// push's one to three ticks, a few more are met.
			known := min(parts, 40+push*5)
			span := int64(1+rng.IntN(3)) * int64(100*time.Millisecond)
			tab := schema.NewTable(testSchema)
			var part []int32
			for p := range known {
				for range rng.IntN(31) * rng.IntN(2) {
					part = append(part, int32(p))
				}
			}
			rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
			for i := range part {
				// Mostly in order, a row now and then from up to 20 ms
				// before.
				at := tm + int64(i)*span/int64(len(part)+1)
				if rng.IntN(8) == 0 {
					at -= int64(rng.IntN(20)) * int64(time.Millisecond)
				}
				table.Column(tab, 0).AppendTime(max(at, 0))
				table.Column(tab, 1).AppendNum(rng.NormFloat64())
				table.Column(tab, 2).AppendNum(float64(rng.IntN(100)))
			}
			tm += span
			plan.Bind(&in, tab, nil)
			if push%7 == 3 {
				// A removal with rows buffered: they leave with it.
				g.Remove(int32(rng.IntN(known)))
			}
			out := schema.NewTable(plan.Schema())
			g.Push(&in, part, out)
			if g.spilt {
				spills++
			}
			table.AppendAll(all, out)
		}
		g.settle()
		return all, spills
	}
	want, none := run(0, 0)
	require.Zero(t, none)
	require.Positive(t, want.Len())
	for _, c := range []struct{ bound, workers int }{{1, 0}, {5, 0}, {64, 0}, {1000, 0}, {spillRows, 0}, {1 << 20, 0}, {64, 1}, {64, 2}} {
		got, spills := run(c.bound, c.workers)
		if c.bound < 1000 && c.workers < 2 {
			require.Greater(t, spills, 40, "pushes that spilled, bound %d", c.bound)
		}
		if c.workers > 1 {
			require.Zero(t, spills, "a group with workers keeps its buffer")
		}
		require.Equal(t, want.Len(), got.Len())
		for j := range want.Schema().Len() {
			for i := range want.Len() {
				x, y := want.Value(i, j), got.Value(i, j)
				if fx, ok := x.Num(); ok {
					fy, _ := y.Num()
					require.Equal(t, math.Float64bits(fx), math.Float64bits(fy), "bound %d, %d workers: row %d col %d", c.bound, c.workers, i, j)
					continue
				}
				require.True(t, x.Equal(y), "bound %d, %d workers: row %d col %d: %v, want %v", c.bound, c.workers, i, j, y, x)
			}
		}
	}
}
