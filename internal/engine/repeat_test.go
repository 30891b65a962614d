package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestTickBufferHoldsNoPartitionsWhenPushesRepeatThem: 1000 partitions
// pushed a row each, in the same order, at every push; the rows between
// two ticks keep their partitions once, as the template of one push,
// not 4 bytes a row, and the group's held bytes count the template.
func TestTickBufferHoldsNoPartitionsWhenPushesRepeatThem(t *testing.T) {
	r := newGroupRig(1000, 100)
	for range 20 * 10 {
		r.tick()
	}
	g := r.g
	require.Positive(t, len(g.in.t), "rows are buffered for the next tick")
	assert.Zero(t, cap(g.in.part)+cap(g.work.part), "room for the buffered rows' partitions")
	assert.Equal(t, 1000, len(g.tmpl), "the template: one push's partitions")
	assert.LessOrEqual(t, cap(g.tmpl), 1024, "room of the template")
	assert.Equal(t, g.in.bytes()+g.work.bytes()+4*cap(g.tmpl), g.HeldBytes()-heldEnginesBytes(g), "bytes of the buffers and the template")
}

// heldEnginesBytes returns what HeldBytes counts of g besides its tick
// buffers and template.
func heldEnginesBytes(g *Group) int {
	n := g.p.pool.bytes() + 8*cap(g.sorted)
	for _, p := range g.order {
		n += g.engines[p].heldBytes()
	}
	return n
}

// TestRepeatedPartitionsMatchSpeltOnes: rows whose partitions repeat a
// push's are taken by a tick as the same rows with their partitions
// written out, bit for bit. The pushes repeat one order of partitions
// (some twice in it), their times cross the clock's boundaries anywhere
// inside them, and now and then a push breaks the repetition (another
// order, a shorter push, one partition changed) or starts a new order.
// Pushes of the same order are numbered as one list most of the time
// (see Input.SetPartsID), each other list with a number of its own or
// none.
func TestRepeatedPartitionsMatchSpeltOnes(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "avg", From: "v", Using: reduce.Avg},
		{Out: "samples", From: "v", Using: reduce.Samples},
		{Out: "sum", From: "w", Using: reduce.Sum},
	}}}
	const parts = 200
	keys := make(keyNames, parts)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	run := func(repeat bool) (*schema.Table, int) {
		defer func(b bool) { repeatParts = b }(repeatParts)
		repeatParts = repeat
		plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
			&Key{Name: "key", Kind: schema.String}, nil)
		require.NoError(t, err)
		g := plan.NewGroup(keys)
		rng := rand.New(rand.NewPCG(44, 1))
		order := func() []int32 {
			var o []int32
			for range 50 + rng.IntN(100) {
				o = append(o, int32(rng.IntN(parts)))
			}
			return o
		}
		tmpl := order()
		tmplID, lists := uint64(1), uint64(1) // tmpl's number, the last given
		all := schema.NewTable(plan.Schema())
		var in Input
		tm, repeated := int64(0), 0
		for range 600 {
			part, id := tmpl, tmplID
			switch rng.IntN(20) {
			case 0:
				part = order()
				id = 0
			case 1:
				part = tmpl[:rng.IntN(len(tmpl))+1]
				lists++
				id = lists
			case 2:
				part = append([]int32(nil), tmpl...)
				part[rng.IntN(len(part))] = int32(rng.IntN(parts))
				id = 0
			case 3:
				tmpl = order()
				lists++
				tmplID = lists
				part, id = tmpl, lists
			case 4:
				id = 0 // the same list, not numbered
			}
			tab := schema.NewTable(testSchema)
			for range part {
				table.Column(tab, 0).AppendTime(tm)
				tm += int64(time.Millisecond) / 4
				table.Column(tab, 1).AppendNum(rng.NormFloat64())
				table.Column(tab, 2).AppendNum(float64(rng.IntN(100)))
			}
			plan.Bind(&in, tab, nil)
			in.SetPartsID(id)
			g.Push(&in, part, all)
			if g.in.cyc {
				repeated++
			}
		}
		return all, repeated
	}
	spelt, none := run(false)
	require.Zero(t, none)
	got, repeated := run(true)
	require.Greater(t, repeated, 300, "pushes after which the buffer repeats a template")
	require.Equal(t, spelt.Len(), got.Len())
	for j := range spelt.Schema().Len() {
		for i := range spelt.Len() {
			x, y := spelt.Value(i, j), got.Value(i, j)
			if fx, ok := x.Num(); ok {
				fy, _ := y.Num()
				require.Equal(t, math.Float64bits(fx), math.Float64bits(fy), "row %d col %d", i, j)
				continue
			}
			require.True(t, x.Equal(y), "row %d col %d: %v, spelt %v", i, j, y, x)
		}
	}
}

// TestBufferSpellsPartitionsOutOfStep: rows whose partitions are those
// of a push, but not where the buffer's repetition of it has got to,
// are not taken as repeating it: the first five rows of a push, then a
// whole push of the same partitions, keep partitions 0–4 then 0–9.
func TestBufferSpellsPartitionsOutOfStep(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	r := newGroupRig(10, 100)
	tab := schema.NewTable(benchSchema)
	for p := range 10 {
		table.Column(tab, 0).AppendTime(int64(p))
		table.Column(tab, 1).AppendNum(1)
		table.Column(tab, 2).AppendNum(2)
	}
	r.plan.Bind(&r.in, tab, nil)
	g := r.g
	g.buffer(&r.in, r.part, 0, 5)
	g.buffer(&r.in, r.part, 0, 10)
	var got []int32
	for i := 0; i < len(g.in.t); {
		ps := g.parts(&g.in, i, len(g.in.t))
		got = append(got, ps...)
		i += len(ps)
	}
	assert.Equal(t, []int32{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, got)
}

// TestBufferReadsNoPartitionOfTheTemplatesList: a push whose partitions
// its caller numbers as the template's list (see Input.SetPartsID) is
// taken as repeating the template without its partitions being read —
// shown with a push that breaks that promise, whose partitions the
// buffer then never sees. Once Bind has forgotten the number, they are
// compared. A whole push found the same as the template makes its
// number the template's; part of one does not.
func TestBufferReadsNoPartitionOfTheTemplatesList(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	r := newGroupRig(10, 100)
	tab := schema.NewTable(benchSchema)
	for p := range 10 {
		table.Column(tab, 0).AppendTime(int64(p))
		table.Column(tab, 1).AppendNum(1)
		table.Column(tab, 2).AppendNum(2)
	}
	g := r.g
	buffered := func() []int32 {
		var got []int32
		for i := 0; i < len(g.in.t); {
			ps := g.parts(&g.in, i, len(g.in.t))
			got = append(got, ps...)
			i += len(ps)
		}
		return got
	}
	ascending := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	descending := []int32{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	push := func(part []int32, id uint64, from, to int) {
		r.plan.Bind(&r.in, tab, nil)
		if id != 0 {
			r.in.SetPartsID(id)
		}
		g.buffer(&r.in, part, from, to)
	}
	push(ascending, 7, 0, 10)
	push(descending, 7, 0, 10)
	assert.True(t, g.in.cyc, "the buffer repeats the template")
	assert.Equal(t, slices.Concat(ascending, ascending), buffered(), "a list numbered as the template's, taken as it")
	push(descending, 0, 0, 10)
	assert.False(t, g.in.cyc, "the buffer spells its partitions out")
	assert.Equal(t, slices.Concat(ascending, ascending, descending), buffered(), "a list Bind forgot the number of, compared")

	r = newGroupRig(10, 100)
	g = r.g
	push(ascending, 0, 0, 10)
	require.Zero(t, g.tmplID, "a template of a list not numbered")
	push(ascending, 5, 0, 5)
	assert.Zero(t, g.tmplID, "part of a numbered list found the same as the template")
	push(ascending, 5, 5, 10)
	assert.Zero(t, g.tmplID, "the rest of it")
	push(ascending, 5, 0, 10)
	assert.Equal(t, uint64(5), g.tmplID, "a whole numbered list found the same as the template")
	assert.True(t, g.in.cyc, "the buffer repeats the template")
}
