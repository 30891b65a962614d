package aligned

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// stepCaseGroup builds a group over a required number slot and an
// optional one (missing values as NaN): a 1s window and a 200ms window
// (one pane) on a 200ms clock, with outputs of every kind the records
// keep, and the table it emits into.
func stepCaseGroup(t *testing.T) (*Group, *schema.Table) {
	t.Helper()
	aggs := []Agg{
		{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Stdev}, {Slot: 1, Using: reduce.Min}, {Slot: 1, Using: reduce.Max},
		{Slot: 2, Using: reduce.Avg}, {Slot: 2, Using: reduce.Count}, {Slot: 2, Using: reduce.First}, {Slot: 2, Using: reduce.Last},
		{Slot: 2, Using: reduce.Difference}, {Slot: 0, Using: reduce.Count},
	}
	raw := append(append([]Agg(nil), aggs...), Agg{Slot: 1, Using: reduce.Samples}, Agg{Slot: 2, Using: reduce.Median})
	p, err := NewPlan(Spec{
		Step: 200 * ms, Kinds: []schema.Kind{schema.Number, schema.Number}, Required: []bool{true, false},
		Windows: []Window{{Span: 1000 * ms, Aggs: aggs}, {Span: 200 * ms, Aggs: raw}},
	})
	require.NoError(t, err)
	require.True(t, p.st.ok)
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for w, win := range []Window{{Aggs: aggs}, {Aggs: raw}} {
		for i, a := range win.Aggs {
			kind := schema.Number
			if a.Using == reduce.Samples {
				kind = schema.Array
			}
			cols = append(cols, schema.Column{Name: string(rune('a'+w)) + string(rune('a'+i)), Kind: kind, Optional: true})
		}
	}
	return p.NewGroup(nil, 1, 0), schema.NewTable(schema.MustNew(cols...))
}

func TestStepRecordsAgreeWithInboxes(t *testing.T) {
	// The same rows, in random batches, into a group folding them into
	// open-step records and into one taking them through inboxes: the
	// same rows out (sums to double-double rounding).
	rng := rand.New(rand.NewPCG(1, 2))
	stepped, out := stepCaseGroup(t)
	inbox, want := stepCaseGroup(t)
	require.True(t, stepped.stepped)
	inbox.stepped = false
	const parts = 7
	var ts []int64
	var ps []int32
	var xs, ys []uint64
	tm := int64(0)
	for range 3000 {
		tm += rng.Int64N(30 * ms)
		if rng.IntN(50) == 0 {
			tm += 2000 * ms // a gap: partitions go dormant
		}
		ts = append(ts, tm)
		ps = append(ps, int32(rng.IntN(parts)))
		xs = append(xs, math.Float64bits(rng.NormFloat64()*1e3+1e6))
		y := math.NaN()
		if rng.IntN(3) > 0 {
			y = float64(rng.IntN(100))
		}
		ys = append(ys, math.Float64bits(y))
	}
	for i := 0; i < len(ts); {
		j := min(len(ts), i+1+rng.IntN(40))
		for _, g := range []struct {
			g   *Group
			out *schema.Table
		}{{stepped, out}, {inbox, want}} {
			g.g.Push(&Rows{Times: ts[i:j], Enc: [][]uint64{xs[i:j], ys[i:j]}}, ps[i:j], g.out)
		}
		i = j
	}
	require.Equal(t, want.Len(), out.Len())
	require.Greater(t, out.Len(), 100)
	for c := range table.Columns(want) {
		for r := range want.Len() {
			got, exp := table.Value(table.Column(out, c), r), table.Value(table.Column(want, c), r)
			if x, ok := exp.Num(); ok {
				y, ok := got.Num()
				require.True(t, ok, "column %d row %d", c, r)
				assert.InDelta(t, x, y, 1e-9*math.Max(1, math.Abs(x)), "column %d row %d", c, r)
				continue
			}
			if a, ok := exp.Array(); ok {
				b, _ := got.Array()
				assert.Equal(t, a, b, "column %d row %d", c, r)
				continue
			}
			assert.Equal(t, exp, got, "column %d row %d", c, r)
		}
	}
}

func TestAChangeOfLatenessMovesWaitingRows(t *testing.T) {
	// Rows waiting in records move to the panes when the group starts
	// taking late rows, and back to records when it stops: the row at
	// each boundary holds them all.
	g, out := numberGroup(t, reduce.Sum, reduce.Count)
	require.True(t, g.stepped)
	pushParts(g, out, []int32{0, 1}, []int64{10 * ms, 20 * ms}, []float64{1, 2})
	require.NoError(t, g.p.SetLateness(ms))
	g.SetLag(ms)
	require.False(t, g.stepped)
	pushParts(g, out, []int32{0}, []int64{30 * ms}, []float64{4})
	g.SetLag(0)
	require.True(t, g.stepped)
	pushParts(g, out, []int32{1, 0}, []int64{40 * ms, 500 * ms}, []float64{8, 16})
	sum, _ := out.Numbers("a")
	n, _ := out.Numbers("b")
	assert.Equal(t, []float64{5, 10}, sum)
	assert.Equal(t, []float64{2, 2}, n)
}

// markSet collects the intern ids a group marks.
type markSet map[uint32]bool

func (m markSet) Mark(id uint32) { m[id] = true }

// idSyms names intern id i "s<i>".
type idSyms struct{}

func (idSyms) Str(id uint32) string { return fmt.Sprintf("s%d", id) }

func TestOpenStepStringsAreMarkedAndARemovedPartitionsRowsLeave(t *testing.T) {
	// A string column's first, last and samples on a one-pane window:
	// the open step's records hold the ids, so MarkSyms marks them; a
	// partition removed mid-step takes its rows with it.
	p, err := NewPlan(Spec{Step: 200 * ms, Kinds: []schema.Kind{schema.String}, Syms: idSyms{}, Windows: []Window{{Span: 200 * ms, Aggs: []Agg{
		{Slot: 1, Using: reduce.First}, {Slot: 1, Using: reduce.Last}, {Slot: 1, Using: reduce.Samples}, {Slot: 0, Using: reduce.Count},
	}}}})
	require.NoError(t, err)
	g := p.NewGroup(nil, 1, 0)
	require.True(t, g.stepped)
	out := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "f", Kind: schema.String, Optional: true}, schema.Column{Name: "l", Kind: schema.String, Optional: true},
		schema.Column{Name: "s", Kind: schema.Array, Optional: true}, schema.Column{Name: "n", Kind: schema.Number, Optional: true}))
	rows := func(parts []int32, ts []int64, ids ...uint64) {
		g.Push(&Rows{Times: ts, Enc: [][]uint64{ids}}, parts, out)
	}
	rows([]int32{0, 1, 0, 1}, []int64{10 * ms, 20 * ms, 30 * ms, 40 * ms}, 5, 6, 7, 8)
	marks := markSet{}
	g.MarkSyms(marks)
	assert.Equal(t, markSet{5: true, 6: true, 7: true, 8: true}, marks)
	g.Remove(1)
	marks = markSet{}
	g.MarkSyms(marks)
	assert.Equal(t, markSet{5: true, 7: true}, marks)
	rows([]int32{0}, []int64{200 * ms}, 9)
	require.Equal(t, 1, out.Len(), "only partition 0 emits at 200")
	n, _ := out.Numbers("n")
	assert.Equal(t, []float64{2}, n)
	f, _ := out.Strings("f")
	l, _ := out.Strings("l")
	assert.Equal(t, []string{"s5"}, f)
	assert.Equal(t, []string{"s7"}, l)
	samples, _ := table.Column(out, 3).Array(0)
	var got []string
	for _, v := range samples {
		x, _ := v.Str()
		got = append(got, x)
	}
	assert.Equal(t, []string{"s5", "s7"}, got)
}

func TestAFoldPanicsOnAPartitionWithoutARecord(t *testing.T) {
	recs := make([]uint64, 2*8) // two records of 8 words: sums, squares, min, max, count
	recs[8+4], recs[8+5] = math.Float64bits(math.NaN()), math.Float64bits(math.NaN())
	xs := []uint64{math.Float64bits(1)}
	for _, q := range []int32{2, -1} {
		assert.Panics(t, func() { foldSquares(recs, 8, 0, -1, 4, []int32{q}, xs) }, "squares, partition %d", q)
		assert.Panics(t, func() { foldSums(recs, 8, 0, -1, []int32{q}, xs) }, "sums, partition %d", q)
	}
	assert.Panics(t, func() { foldSquares(recs, 8, 6, -1, -1, []int32{0}, xs) }, "sums past the record")
	assert.NotPanics(t, func() { foldSquares(recs, 8, 0, 6, 4, []int32{1}, xs) })
	assert.Equal(t, []uint64{math.Float64bits(1), math.Float64bits(1)}, recs[8+4:8+6], "min and max of partition 1")
	assert.Equal(t, uint64(1), recs[8+6], "partition 1's count")
}

func TestAPartitionReadFromItsRingKeepsItsPlaceAmongRecords(t *testing.T) {
	// A one-pane window is read from the open-step records of most
	// partitions, but from its ring for one whose record was merged into
	// the ring (here by a change of lateness): that partition's row, the
	// second of the boundary, stays second in every column.
	p, err := NewPlan(Spec{Step: 200 * ms, Kinds: []schema.Kind{schema.Number},
		Windows: []Window{{Span: 200 * ms, Aggs: []Agg{{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Count}}}}})
	require.NoError(t, err)
	g := p.NewGroup(nil, 1, 0)
	out := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "a", Kind: schema.Number, Optional: true}, schema.Column{Name: "b", Kind: schema.Number, Optional: true}))
	require.True(t, g.stepped)
	pushParts(g, out, []int32{0, 1, 2, 1}, []int64{10 * ms, 20 * ms, 30 * ms, 210 * ms}, []float64{1, 2, 4, 8})
	require.NoError(t, g.p.SetLateness(ms))
	g.SetLag(ms) // partition 1's record (8) goes into its ring
	g.SetLag(0)
	require.True(t, g.stepped)
	require.False(t, g.viewed(g.parts[1], 0))
	pushParts(g, out, []int32{0, 2, 1, 0}, []int64{220 * ms, 230 * ms, 240 * ms, 410 * ms}, []float64{16, 32, 64, 0})
	sum, _ := out.Numbers("a")
	n, _ := out.Numbers("b")
	assert.Equal(t, []float64{1, 2, 4, 16, 72, 32}, sum)
	assert.Equal(t, []float64{1, 1, 1, 1, 2, 1}, n)
}
