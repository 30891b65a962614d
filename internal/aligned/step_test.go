package aligned

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
func stepCaseGroup(t testing.TB) (*Group, *schema.Table) {
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
	return p.NewGroup(nil, 1, 0), outTable([]Window{{Aggs: aggs}, {Aggs: raw}})
}

// outTable is the table a group of windows emits into: the time, then
// one optional column per output, named by window and output ("ab" is
// the first window's second), arrays for samples.
func outTable(wins []Window) *schema.Table {
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for w, win := range wins {
		for i, a := range win.Aggs {
			kind := schema.Number
			if a.Using == reduce.Samples {
				kind = schema.Array
			}
			cols = append(cols, schema.Column{Name: string(rune('a'+w)) + string(rune('a'+i)), Kind: kind, Optional: true})
		}
	}
	return schema.NewTable(schema.MustNew(cols...))
}

func TestStepRecordsAgreeWithInboxes(t *testing.T) {
	// The same rows, in random batches, into a group folding them into
	// open-step records and into one taking them through inboxes: the
	// same rows out (sums to double-double rounding). The seed's group
	// folds its second column's sums in the squares' pass.
	t.Run("every kind", func(t *testing.T) { recordsAgreeWithInboxes(t, stepCaseGroup, true) })
	t.Run("seed", func(t *testing.T) { recordsAgreeWithInboxes(t, seedGroup, false) })
}

func recordsAgreeWithInboxes(t *testing.T, build func(testing.TB) (*Group, *schema.Table), missing bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	stepped, out := build(t)
	inbox, want := build(t)
	require.True(t, stepped.stepped)
	inbox.stepped = false
	ts, ps, xs, ys := randomRows(rng, 7, missing)
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

// randomRows is 3000 rows over parts partitions, in time order with
// gaps of 2 s now and then (partitions go dormant), in two encoded number
// columns: x about 1e6 ± 1e3, y a small integer, missing in a third of the
// rows when missing is set.
func randomRows(rng *rand.Rand, parts int, missing bool) (ts []int64, ps []int32, xs, ys []uint64) {
	tm := int64(0)
	for range 3000 {
		tm += rng.Int64N(30 * ms)
		if rng.IntN(50) == 0 {
			tm += 2000 * ms
		}
		ts = append(ts, tm)
		ps = append(ps, int32(rng.IntN(parts)))
		xs = append(xs, math.Float64bits(rng.NormFloat64()*1e3+1e6))
		y := math.NaN()
		if !missing || rng.IntN(3) > 0 {
			y = float64(rng.IntN(100))
		}
		ys = append(ys, math.Float64bits(y))
	}
	return ts, ps, xs, ys
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

func TestASecondColumnFoldedWithTheSquaresGivesTheRecordsOfItsOwnFold(t *testing.T) {
	// Records of 8 words: sums and squares of x at 0, min and max at 4,
	// sums of y at 6. Both columns are required: every value is finite
	// (Spec.Required), some too big to square.
	rng := rand.New(rand.NewPCG(3, 4))
	const w, nparts = 8, 5
	value := func() uint64 {
		switch rng.IntN(12) {
		case 0:
			return math.Float64bits(0x1p501)
		case 1:
			return math.Float64bits(-0x1p600)
		}
		return math.Float64bits(rng.NormFloat64()*10 + 100)
	}
	fresh := func() []uint64 {
		recs := make([]uint64, nparts*w)
		for q := range nparts {
			recs[q*w+4], recs[q*w+5] = math.Float64bits(math.NaN()), math.Float64bits(math.NaN())
		}
		return recs
	}
	paired, apart := fresh(), fresh()
	for range 200 {
		n := rng.IntN(30)
		parts, xs, ys := make([]int32, n), make([]uint64, n), make([]uint64, n)
		for i := range n {
			parts[i], xs[i], ys[i] = int32(rng.IntN(nparts)), value(), value()
		}
		foldSquaresWith(paired, w, 0, 4, parts, xs, 6, ys)
		foldSquares(apart, w, 0, -1, 4, parts, xs)
		foldSums(apart, w, 6, -1, parts, ys)
	}
	assert.Equal(t, apart, paired)
	assert.True(t, math.IsInf(math.Float64frombits(paired[2]), 1), "a value too big to square marks the squares")
	for _, q := range []int32{nparts, -1} {
		assert.Panics(t, func() { foldSquaresWith(paired, w, 0, 4, []int32{q}, xs1, 6, xs1) }, "partition %d", q)
	}
	assert.Panics(t, func() { foldSquaresWith(paired, w, 0, 4, []int32{0}, xs1, 7, xs1) }, "second sums past the record")
}

func TestThePairedFoldKernelWritesTheGoLoopsBits(t *testing.T) {
	if !pairKernel {
		t.Skip("the CPU lacks AVX2 or FMA (fsum.Available): the Go loop is the only fold, and the other tests cover it")
	}
	// Records of 10 words: sums of y at 0, min and max at 2, sums and
	// squares of x at 4 (two words unused). Values of every size: too
	// big to square, huge (the folds stop at their rows, and both at the
	// same ones; see hugeValue), subnormals, signed zeros.
	rng := rand.New(rand.NewPCG(5, 6))
	const w, nparts = 10, 7
	value := func() uint64 {
		switch rng.IntN(16) {
		case 0:
			return math.Float64bits(0x1p501)
		case 1:
			return math.Float64bits(-0x1p600)
		case 2:
			return math.Float64bits(math.MaxFloat64 / 3)
		case 3:
			return math.Float64bits(math.Copysign(0, -1))
		case 4:
			return math.Float64bits(0x1p-1070 * float64(rng.IntN(9)))
		case 5:
			return math.Float64bits(rng.NormFloat64() * 0x1p499)
		}
		return math.Float64bits(rng.NormFloat64()*10 + 100)
	}
	fresh := func() []uint64 {
		recs := make([]uint64, nparts*w)
		for q := range nparts {
			recs[q*w+2], recs[q*w+3] = math.Float64bits(math.NaN()), math.Float64bits(math.NaN())
		}
		return recs
	}
	defer func(k bool) { pairKernel = k }(pairKernel)
	// fold folds every row but those it stops at, and returns those.
	fold := func(recs []uint64, parts []int32, xs, ys []uint64) []int {
		var stops []int
		for i := 0; i < len(parts); i++ {
			i += foldSquaresWith(recs, w, 4, 2, parts[i:], xs[i:], 0, ys[i:])
			if i < len(parts) {
				stops = append(stops, i)
			}
		}
		return stops
	}
	stopped := 0
	for range 300 {
		kernel, loop := fresh(), fresh()
		n := rng.IntN(40)
		parts, xs, ys := make([]int32, n), make([]uint64, n), make([]uint64, n)
		for i := range n {
			parts[i], xs[i], ys[i] = int32(rng.IntN(nparts)), value(), value()
		}
		pairKernel = true
		stops := fold(kernel, parts, xs, ys)
		pairKernel = false
		require.Equal(t, fold(loop, parts, xs, ys), stops)
		require.Equal(t, loop, kernel)
		stopped += len(stops)
	}
	assert.Positive(t, stopped, "some rows had a huge value")
	// The extremes of equal values of other signs, in both orders, from
	// none yet: the first of equals stays (the min takes x only when
	// !(x >= min), the max only when !(max >= x)).
	z, nz := math.Float64bits(0), math.Float64bits(math.Copysign(0, -1))
	for _, xs := range [][]uint64{{z, nz, z}, {nz, z, nz}} {
		parts, ys := []int32{0, 0, 0}, []uint64{z, z, z}
		kernel, loop := fresh(), fresh()
		pairKernel = true
		foldSquaresWith(kernel, w, 4, 2, parts, xs, 0, ys)
		pairKernel = false
		foldSquaresWith(loop, w, 4, 2, parts, xs, 0, ys)
		require.Equal(t, loop, kernel)
		assert.Equal(t, xs[0], kernel[2], "the min of equals is the first")
		assert.Equal(t, xs[0], kernel[3], "the max of equals is the first")
	}
	pairKernel = true
	for _, q := range []int32{nparts, -1} {
		rec, ones := fresh(), []uint64{math.Float64bits(1), math.Float64bits(1)}
		assert.Panics(t, func() { foldSquaresWith(rec, w, 4, 2, []int32{0, q}, ones, 0, ones) }, "partition %d", q)
		assert.Equal(t, 1.0, math.Float64frombits(rec[0]), "the rows before it are folded, as the Go loop folds them")
	}
}

func TestTheSeedsShapeIsCountedAndFoldedInOnePass(t *testing.T) {
	g, _ := seedGroup(t)
	assert.True(t, g.p.st.pairRaw, "cpu's squares paired with requests' sums, cpu the one raw slot")
	g, _ = stepCaseGroup(t)
	assert.False(t, g.p.st.pairRaw, "counts, firsts and lasts have a pass of their own")
}

func TestCountingAndFoldingInOnePassGivesTheRowsOfTwoPasses(t *testing.T) {
	if !pairKernel {
		t.Skip("the CPU lacks AVX2 or FMA (fsum.Available): rows are counted and folded in two passes, which the other tests cover")
	}
	// The seed's group, fed batches of random partitions (new ones wake
	// mid-batch, raw buffers grow), values of every size, times that
	// close steps and skip some: each batch's rows and the records after
	// it are the same whether rows are counted and folded in one pass or
	// in two.
	defer func(k bool) { pairKernel = k }(pairKernel)
	rng := rand.New(rand.NewPCG(7, 8))
	one, outOne := seedGroup(t)
	two, outTwo := seedGroup(t)
	value := func() uint64 {
		switch rng.IntN(20) {
		case 0:
			return math.Float64bits(0x1p501)
		case 1:
			return math.Float64bits(-1e300)
		}
		return math.Float64bits(rng.NormFloat64()*10 + 100)
	}
	var tm int64
	var jsOne, jsTwo []byte
	for batch := range 600 {
		tm += int64(rng.IntN(3)) * 100 * ms
		n := rng.IntN(80)
		parts, times, enc := make([]int32, n), make([]int64, n), [][]uint64{make([]uint64, n), make([]uint64, n)}
		for i := range n {
			tm += int64(rng.IntN(2)) * ms
			parts[i], times[i] = int32(rng.IntN(5+batch/10)), tm
			enc[0][i], enc[1][i] = value(), value()
		}
		table.Reset(outOne)
		table.Reset(outTwo)
		pairKernel = true
		one.Push(&Rows{Times: times, Enc: enc}, parts, outOne)
		pairKernel = false
		two.Push(&Rows{Times: times, Enc: enc}, parts, outTwo)
		jsOne, jsTwo = outOne.AppendJSON(jsOne[:0]), outTwo.AppendJSON(jsTwo[:0])
		require.Equal(t, string(jsTwo), string(jsOne), "batch %d", batch)
		require.Equal(t, two.st.n, one.st.n, "batch %d", batch)
		require.Equal(t, two.st.recs, one.st.recs, "batch %d", batch)
		for q := range two.st.n {
			require.Equal(t, two.st.raws(int32(q), 1), one.st.raws(int32(q), 1), "batch %d, partition %d", batch, q)
		}
	}
	assert.Greater(t, len(one.st.n), 60, "partitions woke as the batches went")
}

func TestCountingAndFoldingInOnePassStopsAtARowThatNeedsMore(t *testing.T) {
	if !pairKernel {
		t.Skip("the CPU lacks AVX2 or FMA (fsum.Available): rows are counted and folded in two passes, which the other tests cover")
	}
	g, out := seedGroup(t)
	rows := func(parts ...int32) *Rows {
		enc := [][]uint64{make([]uint64, len(parts)), make([]uint64, len(parts))}
		for i := range parts {
			enc[0][i], enc[1][i] = math.Float64bits(float64(i)+1), math.Float64bits(2)
		}
		return &Rows{Times: make([]int64, len(parts)), Enc: enc}
	}
	g.Push(rows(0, 1), []int32{0, 1}, out) // partitions 0 and 1 live, their records open
	g.st.roomRaw(0, 1, 8)
	g.st.roomRaw(1, 1, 8)
	in := rows(1, 0, 2, 0)
	require.Equal(t, 2, g.countFoldPair(in, []int32{1, 0, 2, 0}, 0, stepFlushAt-4), "partition 2 wakes")
	assert.Equal(t, []uint32{2, 2}, g.st.n[:2])
	assert.Equal(t, []uint64{math.Float64bits(1), math.Float64bits(2)}, g.st.raws(0, 1), "row 1's cpu is partition 0's second raw value")
	assert.Equal(t, 0, g.countFoldPair(in, []int32{0}, 0, 1), "a record past the limit")
	g.st.raw[1] = g.st.raw[1][:2]
	assert.Equal(t, 0, g.countFoldPair(in, []int32{1}, 0, stepFlushAt-1), "a raw buffer without room")
	assert.Equal(t, []uint32{2, 2}, g.st.n[:2], "a row it stops at is not counted")
}

// xs1 is one value, 1.
var xs1 = []uint64{math.Float64bits(1)}

func TestAColumnOfPlainSumsIsFoldedInTheSquaresPass(t *testing.T) {
	// The seed's shape: cpu with a stdev and extremes, requests with a
	// sum, both required. Requests' sums go into cpu's pass; an optional
	// column (it counts its values) keeps its own.
	p, err := NewPlan(Spec{
		Step: 200 * ms, Kinds: []schema.Kind{schema.Number, schema.Number, schema.Number}, Required: []bool{true, true, false},
		Windows: []Window{{Span: 1000 * ms, Aggs: []Agg{
			{Slot: 3, Using: reduce.Avg}, {Slot: 2, Using: reduce.Sum}, {Slot: 1, Using: reduce.Stdev}, {Slot: 1, Using: reduce.Min},
		}}},
	})
	require.NoError(t, err)
	folds := p.st.folds
	require.Len(t, folds, 2)
	cpu := slices.IndexFunc(folds, func(f stepFold) bool { return f.slot == 1 })
	require.GreaterOrEqual(t, cpu, 0)
	require.GreaterOrEqual(t, folds[cpu].with, 0)
	assert.Equal(t, 2, p.st.moms[folds[cpu].with].slot, "requests' sums ride with cpu's squares")
	assert.Equal(t, -1, folds[1-cpu].with)
	assert.Equal(t, 3, folds[1-cpu].slot, "slot 3 is optional: its own pass")
}

func TestCountingRowsInWakesPartitionsAndUndoesAtTheLimit(t *testing.T) {
	g, out := stepCaseGroup(t)
	require.True(t, g.stepped)
	enc := func(n int) [][]uint64 {
		xs, ys := make([]uint64, n), make([]uint64, n)
		return [][]uint64{xs, ys}
	}
	g.Push(&Rows{Times: []int64{10 * ms, 20 * ms, 30 * ms}, Enc: enc(3)}, []int32{0, 1, 1}, out)
	require.Equal(t, []uint32{1, 2}, g.st.n[:2])
	times := []int64{40 * ms, 40 * ms, 40 * ms, 40 * ms}

	// The raw slots' columns (the plan keeps both slots' raw values).
	require.Len(t, g.p.st.raw, 2)
	cols := func(n int) [][]uint64 {
		xs, ys := make([]uint64, n), make([]uint64, n)
		for i := range n {
			xs[i], ys[i] = uint64(100+i), uint64(200+i)
		}
		return [][]uint64{xs, ys}
	}

	// Partition 1 is over the limit: partition 2 wakes, then every count
	// is undone.
	assert.False(t, g.countIn([]int32{0, 2, 0, 1}, times, 1, cols(4)))
	require.Len(t, g.st.n, 3)
	assert.Equal(t, []uint32{1, 2, 0}, g.st.n, "counts as before, partition 2's record open and empty")
	assert.Empty(t, g.st.raws(2, 2))
	assert.True(t, g.parts[2].live)

	// Under the limit: every row counted, its raw values written after
	// the partition's rows, partition 3 woken mid-batch.
	assert.True(t, g.countIn([]int32{3, 0, 2, 0, 1, 3}, append(times, 40*ms, 40*ms), 100, cols(6)))
	assert.Equal(t, []uint32{3, 3, 1, 2}, g.st.n)
	assert.True(t, g.parts[3].live)
	assert.Equal(t, []uint64{100, 200, 105, 205}, g.st.raws(3, 2))
	assert.Equal(t, []uint64{101, 201, 103, 203}, g.st.raws(0, 2)[2:])

	// One raw slot: the counting pass writes the values.
	n := []uint32{0, 5, stepShut}
	raw := [][]uint64{make([]uint64, 2), make([]uint64, 8), make([]uint64, 8)}
	assert.Equal(t, 3, countLiveRaw(n, []int32{0, 1, 0, 0, 2}, 100, raw, []uint64{7, 8, 9, 10, 11}), "partition 0's buffer full at its third row")
	assert.Equal(t, []uint32{2, 6, stepShut}, n)
	assert.Equal(t, []uint64{7, 9}, raw[0])
	assert.Equal(t, uint64(8), raw[1][5])
}

func TestTheSquaresOverflowTestOnTheSquareIsTheTestOnTheValue(t *testing.T) {
	// The folds test x² < bigSquare² where they meant |x| < bigSquare: the
	// same for the values on either side of the edge, and a value at or
	// past it marks Σx² infinite.
	below := math.Nextafter(bigSquare, 0)
	for _, c := range []struct {
		x   float64
		big bool
	}{
		{below, false}, {-below, false}, {bigSquare, true}, {-bigSquare, true},
		{math.Nextafter(bigSquare, math.Inf(1)), true}, {1, false}, {0, false},
	} {
		assert.Equal(t, c.big, !(c.x*c.x < bigSquare*bigSquare), "x = %g", c.x)
		assert.Equal(t, c.big, math.Abs(c.x) >= bigSquare, "x = %g", c.x)
		var f [4]uint64
		foldSquare(&f, c.x)
		assert.Equal(t, c.big, math.IsInf(math.Float64frombits(f[2]), 1), "Σx² infinite, x = %g", c.x)
		recs := make([]uint64, 6)
		recs[4], recs[5] = math.Float64bits(math.NaN()), math.Float64bits(math.NaN())
		foldSquares(recs, 6, 0, -1, 4, []int32{0}, []uint64{math.Float64bits(c.x)})
		assert.Equal(t, f[:4], recs[:4], "the column pass agrees with the row, x = %g", c.x)
	}
}

func TestWordRunFindsWordsInTheRecordsOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		words []int
		want  int
	}{
		{"none", nil, -1},
		{"one word", []int{3}, 3},
		{"consecutive from 0", []int{0, 1, 2, 3, 4, 5}, 0},
		{"consecutive from 4", []int{4, 5, 6}, 4},
		{"a gap", []int{0, 1, 3}, -1},
		{"out of order", []int{1, 0}, -1},
		{"a word twice", []int{2, 2}, -1},
	} {
		assert.Equal(t, c.want, wordRun(c.words), c.name)
	}
}
