package reduce

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// v converts test literals: nil is missing, []any is an array.
func v(x any) schema.Value {
	val, err := schema.Of(x)
	if err != nil {
		panic(err)
	}
	return val
}

func vals(xs ...any) []schema.Value {
	out := make([]schema.Value, len(xs))
	for i, x := range xs {
		out[i] = v(x)
	}
	return out
}

// readCell appends one cell with app and returns it.
func readCell(t *testing.T, kind schema.Kind, app func(*table.Col)) schema.Value {
	t.Helper()
	col := table.NewCol(kind)
	app(col)
	require.Equal(t, 1, col.Len(), "Append appends exactly one cell")
	return table.Value(col, 0)
}

// windowOf adds ins to a new window, then removes the first `drop` of
// them, oldest first, and returns the window's cell.
func windowOf(t *testing.T, r Reducer, src schema.Kind, ins []schema.Value, drop int) schema.Value {
	t.Helper()
	w, err := newWindow(r, src)
	require.NoError(t, err)
	for i, x := range ins {
		w.Add(uint64(i), x)
	}
	for i := range drop {
		w.Remove(uint64(i), ins[i])
	}
	return readCell(t, r.OutputKind(src), w.Append)
}

func bucketOf(t *testing.T, r Reducer, src schema.Kind, ins []schema.Value) schema.Value {
	t.Helper()
	b, err := newBucket(r, src)
	require.NoError(t, err)
	for _, x := range ins {
		b.Add(x)
	}
	return readCell(t, r.OutputKind(src), b.Append)
}

func oneToTen() []schema.Value {
	return vals(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
}

// TestReducerKernels pins the values of pond-ts's reducers and its reference case 27, for
// window and bucket states alike.
func TestReducerKernels(t *testing.T) {
	num, str, arr := schema.Number, schema.String, schema.Array
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		r    Reducer
		src  schema.Kind
		in   []schema.Value
		drop int // oldest values removed afterwards (windows only)
		want schema.Value
	}{
		{"stdev of 2 4 4 4 5 5 7 9", Stdev, num, vals(2, 4, 4, 4, 5, 5, 7, 9), 0, v(2)},
		{"stdev of one value", Stdev, num, vals(5), 0, v(0)},
		{"stdev of 1 2 3 4", Stdev, num, vals(1, 2, 3, 4), 0, v(1.118033988749895)},
		{"stdev of nothing", Stdev, num, nil, 0, v(nil)},
		{"stdev of 5 5 5 after evictions", Stdev, num, vals(-3, 9, 5, 5, 5), 2, v(0)},
		{"p95 of 1..10", Percentile(95), num, oneToTen(), 0, v(9.549999999999999)},
		{"p99.9 of 1..10", Percentile(99.9), num, oneToTen(), 0, v(9.991000000000001)},
		{"median of 4 1 3 2", Median, num, vals(4, 1, 3, 2), 0, v(2.5)},
		{"p50 of 4 1 3 2", Percentile(50), num, vals(4, 1, 3, 2), 0, v(2.5)},
		{"p0 of 3 1 2", Percentile(0), num, vals(3, 1, 2), 0, v(1)},
		{"p100 of 3 1 2", Percentile(100), num, vals(3, 1, 2), 0, v(3)},
		{"median of nothing", Median, num, vals(nil), 0, v(nil)},
		{"difference of 3 9 1", Difference, num, vals(3, 9, 1), 0, v(8)},
		{"difference of one value", Difference, num, vals(4), 0, v(0)},
		{"difference of nothing", Difference, num, nil, 0, v(nil)},
		{"count of a, missing, b, true", Count, str, vals("a", nil, "b", true), 0, v(3)},
		{"count skips NaN", Count, num, vals(1, nan, inf, nil), 0, v(1)},
		{"count of arrays, even empty", Count, arr, vals([]any{}, nil, []any{"x", 1}), 0, v(2)},
		{"sum of 1 NaN 2 Inf", Sum, num, vals(1, nan, 2, inf), 0, v(3)},
		{"sum of nothing is 0", Sum, num, nil, 0, v(0)},
		{"avg of nothing is missing", Avg, num, vals(nil, nan), 0, v(nil)},
		{"avg", Avg, num, vals(1, 2, nil, 4), 0, v(7.0 / 3)},
		{"mean is avg", Mean, num, vals(1, 2), 0, v(1.5)},
		{"sum after 1e16 leaves", Sum, num, vals(1e16, 1), 1, v(1)},
		{"min of 1 5 3 2 minus index 0", Min, num, vals(1, 5, 3, 2), 1, v(2)},
		{"max of 9 5 3 7 minus index 0", Max, num, vals(9, 5, 3, 7), 1, v(7)},
		{"min keeps equal values", Min, num, vals(2, 2, 3), 1, v(2)},
		{"min of nothing", Min, num, vals(nil), 0, v(nil)},
		{"first skips missing", First, str, vals(nil, "a", "b", nil), 0, v("a")},
		{"last skips missing", Last, str, vals(nil, "a", "b", nil), 0, v("b")},
		{"first of nothing", First, str, vals(nil), 0, v(nil)},
		{"last of an array column", Last, arr, vals([]any{"x", 1}, []any{}, nil), 0, v([]any{})},
		{"first after eviction", First, num, vals(1, nil, 2, 3), 2, v(2)},
		{"keep of equal strings", Keep, str, vals("a", nil, "a"), 0, v("a")},
		{"keep of different strings", Keep, str, vals("a", "b"), 0, v(nil)},
		{"keep of b a a minus b", Keep, str, vals("b", "a", "a"), 1, v("a")},
		{"keep of nothing", Keep, num, vals(nil), 0, v(nil)},
		{"keep compares 0 and -0 equal", Keep, num, vals(0, math.Copysign(0, -1)), 0, v(0)},
		{"keep of equal arrays", Keep, arr, vals([]any{"x", 1}, []any{"x", 1}), 0, v([]any{"x", 1})},
		{"keep of different arrays", Keep, arr, vals([]any{"x", 1}, []any{"x", 2}), 0, v(nil)},
		{"keep of a prefix array", Keep, arr, vals([]any{"x"}, []any{"x", "x"}), 0, v(nil)},
		{"unique sorts numbers, strings, booleans", Unique, str, vals("b", 2, "a", 1, true, false, 2), 0,
			v([]any{1, 2, "a", "b", false, true})},
		{"unique flattens arrays", Unique, arr, vals([]any{"x", 1}, []any{}, []any{"y", "x", true}), 0,
			v([]any{1, "x", "y", true})},
		{"unique orders strings as UTF-16", Unique, str, vals("\uff01", "😀", "z", "é"), 0,
			v([]any{"z", "é", "😀", "\uff01"})},
		{"unique of nothing", Unique, num, vals(nil), 0, v([]any{})},
		{"unique folds -0 into 0", Unique, num, vals(math.Copysign(0, -1), 0), 0, v([]any{0})},
		{"top2 by count then order", Top(2), str, vals("x", "y", "y", "z", "z", "a"), 0, v([]any{"y", "z"})},
		{"top5 of fewer values", Top(5), str, vals("b", "a", "b"), 0, v([]any{"b", "a"})},
		{"top of nothing", Top(3), str, nil, 0, v([]any{})},
		{"samples flattens in order", Samples, num, vals(3, nil, []any{"a", "b"}, 1), 0, v([]any{3, "a", "b", 1})},
		{"samples skips NaN", Samples, num, vals(3, nan, 1), 0, v([]any{3, 1})},
		{"samples after evictions", Samples, str, vals("b", "a", nil, "c"), 1, v([]any{"a", "c"})},
		{"samples of nothing", Samples, num, nil, 0, v([]any{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := windowOf(t, tt.r, tt.src, tt.in, tt.drop)
			assertCell(t, tt.want, got, "window")
			if tt.drop == 0 {
				assertCell(t, tt.want, bucketOf(t, tt.r, tt.src, tt.in), "bucket")
				set, err := newSet(tt.r, tt.src)
				require.NoError(t, err)
				for i, x := range tt.in {
					set.Add(uint64(i), x)
				}
				assertCell(t, tt.want, readCell(t, tt.r.OutputKind(tt.src), set.Append), "set")
			}
		})
	}
}

func TestKeepBucketGivesTheFirstOfEqualZeros(t *testing.T) {
	negZero := math.Copysign(0, -1)
	got := bucketOf(t, Keep, schema.Number, vals(negZero, 0))
	f, ok := got.Num()
	require.True(t, ok)
	assert.True(t, math.Signbit(f), "a bucket gives the first value, -0")
	got = windowOf(t, Keep, schema.Number, vals(negZero, 0), 0)
	f, _ = got.Num()
	assert.False(t, math.Signbit(f), "a window gives 0, as pond-ts's Map does")
}

// TestWindowAppendAppendsOneCell checks that Append adds to what dst holds
// and leaves the state unchanged.
func TestWindowAppendAppendsOneCell(t *testing.T) {
	w, err := newWindow(Samples, schema.Number)
	require.NoError(t, err)
	col := table.NewCol(schema.Array)
	w.Append(col)
	w.Add(0, v(1))
	w.Append(col)
	w.Add(1, v(2))
	w.Append(col)
	w.Append(col)
	require.Equal(t, 4, col.Len())
	for i, want := range []schema.Value{v([]any{}), v([]any{1}), v([]any{1, 2}), v([]any{1, 2})} {
		assertCell(t, want, table.Value(col, i), "cell %d", i)
	}
}

// assertCell compares two cells: missing with missing, numbers with ==
// (0 equals -0), arrays element by element.
func assertCell(t *testing.T, want, got schema.Value, msg string, args ...any) {
	t.Helper()
	assert.True(t, want.Equal(got), append([]any{msg + ": want %v, got %v"}, append(args, want, got)...)...)
}

// sameCell reports whether got matches want: exactly, except for avg and
// stdev, which are compared to the exact value within tolerance.
func sameCell(op reducers.Op, want, got schema.Value) bool {
	if op == reducers.OpAvg || op == reducers.OpStdev {
		w, wok := want.Num()
		g, gok := got.Num()
		if wok != gok {
			return false
		}
		tol := 1e-15
		if op == reducers.OpStdev {
			tol = 1e-12
		}
		return !wok || relErr(g, w) <= tol || math.Abs(g-w) < 1e-300
	}
	return want.Equal(got)
}

// gen returns random values of a kind, with missing cells, non-finite
// numbers, repeats and runs of equal values so that keep, unique and top
// see interesting windows.
func gen(rng *rand.Rand, kind schema.Kind) func() schema.Value {
	numbers := []float64{0, math.Copysign(0, -1), 1, 2, 2.5, -3, 1e16, 0.1}
	strs := []string{"a", "b", "B", "ab", "", "é", "\uff01", "😀", "a\U0010ffff", "a\uffff"}
	scalar := func() schema.Value {
		switch rng.IntN(3) {
		case 0:
			return v(numbers[rng.IntN(len(numbers))])
		case 1:
			return v(strs[rng.IntN(len(strs))])
		}
		return v(rng.IntN(2) == 0)
	}
	var prev schema.Value
	return func() schema.Value {
		if rng.IntN(3) == 0 {
			return prev // runs of equal values
		}
		var x schema.Value
		switch p := rng.IntN(20); {
		case p < 3:
			x = schema.Missing()
		case p < 4 && kind == schema.Number:
			x = v([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)])
		default:
			switch kind {
			case schema.Number:
				if rng.IntN(2) == 0 {
					x = v(numbers[rng.IntN(len(numbers))])
				} else {
					x = v(rng.NormFloat64() * 100)
				}
			case schema.String:
				x = v(strs[rng.IntN(len(strs))])
			case schema.Bool:
				x = v(rng.IntN(2) == 0)
			default:
				elems := make([]schema.Value, rng.IntN(4))
				for i := range elems {
					elems[i] = scalar()
				}
				x = schema.ArrayValue(elems...)
			}
		}
		prev = x
		return x
	}
}

type entry struct {
	seq uint64
	v   schema.Value
}

func values(es []entry) []schema.Value {
	out := make([]schema.Value, len(es))
	for i, e := range es {
		out[i] = e.v
	}
	return out
}

// forEachState runs f for every reducer and every kind it reads.
func forEachState(t *testing.T, f func(t *testing.T, r Reducer, src schema.Kind)) {
	for _, r := range allReducers {
		for _, src := range []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array} {
			if r.Check(src) != nil {
				continue
			}
			t.Run(r.String()+"/"+src.String(), func(t *testing.T) { f(t, r, src) })
		}
	}
}

// TestWindowMatchesRecomputation slides random data through every window
// state (FIFO removals) and compares each result with a recomputation from
// the window's contents.
func TestWindowMatchesRecomputation(t *testing.T) {
	forEachState(t, func(t *testing.T, r Reducer, src schema.Kind) {
		testSliding(t, r, src, false)
	})
}

// TestSetMatchesRecomputation does the same with removals in random order
// for the NewSet states.
func TestSetMatchesRecomputation(t *testing.T) {
	forEachState(t, func(t *testing.T, r Reducer, src schema.Kind) {
		testSliding(t, r, src, true)
	})
}

func testSliding(t *testing.T, r Reducer, src schema.Kind, anyOrder bool) {
	rng := rand.New(rand.NewPCG(uint64(r.op), uint64(src)))
	next := gen(rng, src)
	newState := func(k schema.Kind) (reducers.Window, error) { return newWindow(r, k) }
	if anyOrder {
		newState = func(k schema.Kind) (reducers.Window, error) { return newSet(r, k) }
	}
	w, err := newState(src)
	require.NoError(t, err)
	col := table.NewCol(r.OutputKind(src))
	var held []entry
	seq := uint64(0)
	limit := 1 + rng.IntN(30)
	for step := range 2000 {
		switch p := rng.IntN(100); {
		case p == 0:
			w.Reset()
			held = held[:0]
			limit = 1 + rng.IntN(30)
		case len(held) == 0 || p < 55 && len(held) < limit:
			x := next()
			w.Add(seq, x)
			held = append(held, entry{seq, x})
			seq += 1 + uint64(rng.IntN(3)) // gaps: filtered rows
		default:
			i := 0
			if anyOrder {
				i = rng.IntN(len(held))
			}
			w.Remove(held[i].seq, held[i].v)
			held = slices.Delete(held, i, i+1)
		}
		col.Reset()
		w.Append(col)
		require.Equal(t, 1, col.Len())
		got := table.Value(col, 0)
		want := refReduce(r, values(held), false)
		if want.Kind() != 0 && want.Kind() != table.Kind(col) {
			want = schema.Missing() // first/last/keep of another kind
		}
		require.True(t, sameCell(r.op, want, got), "step %d over %v: want %v, got %v", step, values(held), want, got)
	}
}

// TestBucketMatchesRecomputation adds random data to every bucket state and
// compares each result with a recomputation from everything added.
func TestBucketMatchesRecomputation(t *testing.T) {
	forEachState(t, func(t *testing.T, r Reducer, src schema.Kind) {
		rng := rand.New(rand.NewPCG(uint64(r.op)+100, uint64(src)))
		next := gen(rng, src)
		b, err := newBucket(r, src)
		require.NoError(t, err)
		col := table.NewCol(r.OutputKind(src))
		var added []schema.Value
		for step := range 1000 {
			if rng.IntN(50) == 0 {
				b.Reset()
				added = added[:0]
			} else {
				x := next()
				b.Add(x)
				added = append(added, x)
			}
			col.Reset()
			b.Append(col)
			require.Equal(t, 1, col.Len())
			got := table.Value(col, 0)
			want := refReduce(r, added, true)
			if want.Kind() != 0 && want.Kind() != table.Kind(col) {
				want = schema.Missing()
			}
			require.True(t, sameCell(r.op, want, got), "step %d over %v: want %v, got %v", step, added, want, got)
		}
	})
}

// TestWindowsDoNotAllocate slides windows of steady size and checks that
// adding, removing and appending allocate nothing once warmed up.
func TestWindowsDoNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	data := make([]schema.Value, 256)
	for i := range data {
		data[i] = v(float64(rng.IntN(20)))
	}
	for _, r := range allReducers {
		for _, set := range []bool{false, true} {
			name := r.String() + "/window"
			newState := func(k schema.Kind) (reducers.Window, error) { return newWindow(r, k) }
			if set {
				name = r.String() + "/set"
				newState = func(k schema.Kind) (reducers.Window, error) { return newSet(r, k) }
			}
			t.Run(name, func(t *testing.T) {
				w, err := newState(schema.Number)
				require.NoError(t, err)
				col := table.NewCol(r.OutputKind(schema.Number))
				const size = 64
				i := 0
				step := func() {
					w.Add(uint64(i), data[i%len(data)])
					if i >= size {
						w.Remove(uint64(i-size), data[(i-size)%len(data)])
					}
					i++
					if col.Len() > 100 {
						col.Reset()
					}
					w.Append(col)
				}
				for range 2000 {
					step()
				}
				assert.Zero(t, allocs.Count(1000, step))
			})
		}
	}
}

// TestBucketsDoNotAllocate checks that a reused bucket allocates nothing.
func TestBucketsDoNotAllocate(t *testing.T) {
	for _, r := range allReducers {
		t.Run(r.String(), func(t *testing.T) {
			b, err := newBucket(r, schema.Number)
			require.NoError(t, err)
			col := table.NewCol(r.OutputKind(schema.Number))
			round := func() {
				b.Reset()
				for i := range 50 {
					b.Add(schema.NumberValue(float64(i % 7)))
				}
				col.Reset()
				b.Append(col)
			}
			for range 10 {
				round()
			}
			assert.Zero(t, allocs.Count(100, round))
		})
	}
}

// TestCompensatedSumsVector replays the conformance case
// rolling-compensated-sums (a count window of 3), where pond-go's exact
// sums differ from pond-ts's drifting ones.
func TestCompensatedSumsVector(t *testing.T) {
	big := []float64{1e16, 1, 2, 3, 4, 0.5}
	small := []float64{-3, 9, 5, 5, 5, 5}
	want := []struct{ sum, avg, sd, vsum float64 }{
		{1e16, 1e16, 0, -3},
		{1e16, 5e15, 6, 6},
		{10000000000000004, 3333333333333334.5, 4.988876515698588, 11},
		{6, 2, 1.8856180831641267, 19},
		{9, 3, 0, 15},
		{7.5, 2.5, 0, 15},
	}
	mk := func(r Reducer) reducers.Window {
		w, err := newWindow(r, schema.Number)
		require.NoError(t, err)
		return w
	}
	sum, avg, sd, vsum := mk(Sum), mk(Avg), mk(Stdev), mk(Sum)
	for i := range big {
		sum.Add(uint64(i), v(big[i]))
		avg.Add(uint64(i), v(big[i]))
		sd.Add(uint64(i), v(small[i]))
		vsum.Add(uint64(i), v(small[i]))
		if i >= 3 {
			sum.Remove(uint64(i-3), v(big[i-3]))
			avg.Remove(uint64(i-3), v(big[i-3]))
			sd.Remove(uint64(i-3), v(small[i-3]))
			vsum.Remove(uint64(i-3), v(small[i-3]))
		}
		for _, c := range []struct {
			w    reducers.Window
			want float64
			name string
		}{{sum, want[i].sum, "sum"}, {avg, want[i].avg, "avg"}, {sd, want[i].sd, "sd"}, {vsum, want[i].vsum, "vsum"}} {
			got := readCell(t, schema.Number, c.w.Append)
			if c.name == "sd" {
				// The standard deviation is finished in float64 when the
				// variance does not cancel: within a few ulps.
				g, _ := got.Num()
				assert.LessOrEqual(t, relErr(g, c.want), 1e-14, "row %d sd: want %v, got %v", i, c.want, g)
				continue
			}
			assertCell(t, v(c.want), got, "row %d %s", i, c.name)
		}
	}
}

// TestASumBeyondTheRangeOnTheWayComesBack pins the package doc's
// overflow rule: huge values are summed apart, so a bucket whose values
// sum within the float64 range reads their sum though its running total
// passed beyond it, an avg of values near the top of the range is their
// mean, and a count-2 window's sum is missing exactly while what it holds
// sums beyond the range. (Before, the bucket read missing and the window
// stayed missing until every value of 1.7e308's magnitude had left.)
func TestASumBeyondTheRangeOnTheWayComesBack(t *testing.T) {
	in := vals(1.7e308, 1.7e308, -1.7e308, 1, 1)
	assertCell(t, v(1.7e308), bucketOf(t, Sum, schema.Number, in[:3]), "bucket of 1.7e308, 1.7e308, -1.7e308")
	assertCell(t, v(nil), bucketOf(t, Sum, schema.Number, in[:2]), "bucket of 1.7e308, 1.7e308")
	assertCell(t, v(1.7e308), bucketOf(t, Avg, schema.Number, in[:2]), "avg of 1.7e308, 1.7e308")

	w, err := newWindow(Sum, schema.Number)
	require.NoError(t, err)
	want := []any{1.7e308, nil, 0, -1.7e308, 2} // holding 1.7e308, 2×1.7e308, 0, −1.7e308, 2
	for i, x := range in {
		w.Add(uint64(i), x)
		if i >= 2 {
			w.Remove(uint64(i-2), in[i-2])
		}
		assertCell(t, v(want[i]), readCell(t, schema.Number, w.Append), "count-2 window at row %d", i)
	}
}
