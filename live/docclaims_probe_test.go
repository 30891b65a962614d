package live_test

// Worked examples and numeric claims of the package docs, README.md and
// docs/*.md, each fed through the public API with exactly the input the
// docs give and checked against exactly the result they state.

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// dclNumSch is [time, x (optional number)].
var dclNumSch = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
)

// dclMiss stands for a missing cell in the number inputs and results.
var dclMiss = math.NaN()

// dclNumRows makes rows of dclNumSch one second apart; NaN is missing.
func dclNumRows(xs []float64) []schema.Row {
	rows := make([]schema.Row, len(xs))
	for i, x := range xs {
		c := schema.NumberValue(x)
		if math.IsNaN(x) {
			c = schema.Missing()
		}
		rows[i] = schema.Row{schema.NanosValue(int64(i+1) * int64(time.Second)), c}
	}
	return rows
}

// dclRollCol pushes rows one at a time through a rolling of one count
// window (Count n, or every row when n is 0 and a long span) and returns
// column out of every emitted row as a Value.
func dclRollCol(t *testing.T, sch *schema.Schema, rows []schema.Row, n int, using reduce.Reducer) []schema.Value {
	t.Helper()
	s, err := live.New("dcl", sch, live.Options{})
	require.NoError(t, err)
	w := rolling.Window{Count: n, Aggs: []reduce.Agg{{Out: "out", From: sch.Column(1).Name, Using: using}}}
	if n == 0 {
		w = rolling.Window{Span: time.Hour, Aggs: w.Aggs}
	}
	r, err := s.Rolling(s.Root(), []rolling.Window{w}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r, live.Event))
	var got []schema.Value
	var out []live.Output
	for _, row := range rows {
		out, err = s.PushRows(out[:0], row)
		require.NoError(t, err)
		tab, ok := live.Find(out, r, live.Event)
		require.True(t, ok)
		require.Equal(t, 1, tab.Len())
		got = append(got, tab.Value(0, 1))
	}
	return got
}

// dclReduceAll pushes all rows in one push into a series and returns the
// reduce's one result over them.
func dclReduceAll(t *testing.T, sch *schema.Schema, rows []schema.Row, using reduce.Reducer) schema.Value {
	t.Helper()
	s, err := live.New("dcl", sch, live.Options{})
	require.NoError(t, err)
	r, err := s.Reduce(s.Root(), []reduce.Agg{{Out: "out", From: sch.Column(1).Name, Using: using}}, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(r, live.Event))
	out, err := s.PushRows(nil, rows...)
	require.NoError(t, err)
	tab, ok := live.Find(out, r, live.Event)
	require.True(t, ok)
	require.Equal(t, 1, tab.Len())
	return tab.Value(0, 1)
}

// dclNums turns number Values into floats, NaN for missing.
func dclNums(t *testing.T, vs []schema.Value) []float64 {
	t.Helper()
	out := make([]float64, len(vs))
	for i, v := range vs {
		if v.IsMissing() {
			out[i] = dclMiss
			continue
		}
		x, ok := v.Num()
		require.True(t, ok, "cell %d is %v", i, v)
		out[i] = x
	}
	return out
}

// dclSameNums compares float lists exactly, NaN matching NaN (missing).
func dclSameNums(t *testing.T, want, got []float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i := range want {
		if math.IsNaN(want[i]) {
			assert.True(t, math.IsNaN(got[i]), "%s: cell %d: want missing, got %v", msg, i, got[i])
			continue
		}
		assert.True(t, want[i] == got[i], "%s: cell %d: want %v, got %v (all %v)", msg, i, want[i], got[i], got)
	}
}

// TestDclReduceDocNumbersThroughRolling: the count-window and whole-set
// examples of package reduce ("Missing values and NaN", "Percentiles",
// "Numerics") and docs/differences.md §1, §2.
func TestDclReduceDocNumbersThroughRolling(t *testing.T) {
	cases := []struct {
		name  string
		xs    []float64
		n     int // count window; 0: a time window holding every row
		using reduce.Reducer
		want  []float64 // every emitted row's result
	}{
		// reduce: "a count-2 window over 1.7e308, 1.7e308, −1.7e308, 1, 1
		// gives 1.7e308, missing, 0, −1.7e308 and 2".
		{"sum count-2 beyond the range", []float64{1.7e308, 1.7e308, -1.7e308, 1, 1}, 2, reduce.Sum,
			[]float64{1.7e308, dclMiss, 0, -1.7e308, 2}},
		// differences §1: "a window of two over 1.7e308, 1.7e308, −1.7e308, 1
		// reads 1.7e308, missing, 0, −1.7e308".
		{"sum window of two, differences §1", []float64{1.7e308, 1.7e308, -1.7e308, 1}, 2, reduce.Sum,
			[]float64{1.7e308, dclMiss, 0, -1.7e308}},
		// reduce: "the sum of [1.7e308, 1.7e308, −1.7e308] is 1.7e308".
		{"sum of three", []float64{1.7e308, 1.7e308, -1.7e308}, 0, reduce.Sum,
			[]float64{1.7e308, dclMiss, 1.7e308}},
		// reduce: "the avg of [1e308, 1e308] is 1e308".
		{"avg of two 1e308", []float64{1e308, 1e308}, 0, reduce.Avg, []float64{1e308, 1e308}},
		// reduce: "a difference: max − min of −1e308 and 1e308 is written as missing".
		{"difference beyond the range", []float64{-1e308, 1e308}, 0, reduce.Difference, []float64{0, dclMiss}},
		// reduce: "the stdev of [1e-300, 0] reads 0".
		{"stdev of 1e-300 and 0", []float64{1e-300, 0}, 0, reduce.Stdev, []float64{0, 0}},
		// reduce: a stdev is missing while the window holds |x| ≥ 2^500,
		// even alone, and comes back when it leaves.
		{"stdev with 2^500 held", []float64{1, 0x1p500, 3, 3}, 1, reduce.Stdev, []float64{0, dclMiss, 0, 0}},
		{"stdev with 2^500 in a count-2 window", []float64{1, 0x1p500, 3, 3, 5}, 2, reduce.Stdev,
			[]float64{0, dclMiss, dclMiss, 0, 1}},
		// reduce "Numerics" / differences §1: add 1e16, add 1, remove 1e16 gives 1.
		{"add 1e16, add 1, remove 1e16", []float64{1e16, 1, 0}, 2, reduce.Sum, []float64{1e16, 1e16 + 1, 1}},
		// the stdev of 5, 5, 5 left after evictions is exactly 0.
		{"stdev of 5,5,5 after evictions", []float64{0.1, 1e6, 3.7, 5, 5, 5}, 3, reduce.Stdev,
			[]float64{0, 499999.95, 471404.4542087154, 471403.6975, 0.7542472332656507, 0}},
		// reduce "Percentiles": "the median of [−1e308, 1e308] is 0".
		{"median of ±1e308", []float64{-1e308, 1e308}, 0, reduce.Median, []float64{-1e308, 0}},
		// "the median of [4, 1, 3, 2] is 2.5".
		{"median of 4 1 3 2", []float64{4, 1, 3, 2}, 0, reduce.Median, []float64{4, 2.5, 3, 2.5}},
		// differences §2: one value gives 0.
		{"stdev of one value", []float64{7}, 0, reduce.Stdev, []float64{0}},
		// reduce "keep": "A window's keep of zeros is 0".
		{"keep of zeros", []float64{0, math.Copysign(0, -1)}, 0, reduce.Keep, []float64{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := dclNums(t, dclRollCol(t, dclNumSch, dclNumRows(c.xs), c.n, c.using))
			if c.name == "stdev of 5,5,5 after evictions" {
				// only the last, after evictions, is claimed exactly.
				require.Len(t, got, len(c.want))
				assert.Equal(t, 0.0, got[len(got)-1])
				return
			}
			dclSameNums(t, c.want, got, c.name)
		})
	}
}

// TestDclKeepSignOfZero: "A window's keep of zeros is 0, −0 alone too".
func TestDclKeepSignOfZero(t *testing.T) {
	nz := math.Copysign(0, -1)
	for _, xs := range [][]float64{{nz}, {0, nz}, {nz, 0}, {nz, nz}} {
		got := dclNums(t, dclRollCol(t, dclNumSch, dclNumRows(xs), 0, reduce.Keep))
		last := got[len(got)-1]
		assert.True(t, last == 0 && !math.Signbit(last), "keep of %v reads %v (signbit %v)", xs, last, math.Signbit(last))
	}
}

// TestDclPercentileDocNumbers: p95 and p99.9 of 1…10 (reduce "Percentiles"),
// through a Reduce and through a rolling, with the parsed names.
func TestDclPercentileDocNumbers(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		name string
		want float64
	}{{"p95", 9.549999999999999}, {"p99.9", 9.991000000000001}, {"median", 5.5}, {"p0", 1}, {"p100", 10}, {"p05", 1.45}} {
		r, err := reduce.Parse(c.name)
		require.NoError(t, err, c.name)
		got := dclNums(t, []schema.Value{dclReduceAll(t, dclNumSch, dclNumRows(xs), r)})
		assert.Equal(t, c.want, got[0], "reduce %s", c.name)
		roll := dclNums(t, dclRollCol(t, dclNumSch, dclNumRows(xs), 10, r))
		assert.Equal(t, c.want, roll[9], "rolling %s", c.name)
	}
	// The whole-set examples through a Reduce too.
	for _, c := range []struct {
		name  string
		xs    []float64
		using reduce.Reducer
		want  float64
	}{
		{"sum", []float64{1.7e308, 1.7e308, -1.7e308}, reduce.Sum, 1.7e308},
		{"avg", []float64{1e308, 1e308}, reduce.Avg, 1e308},
		{"difference", []float64{-1e308, 1e308}, reduce.Difference, dclMiss},
		{"stdev", []float64{1e-300, 0}, reduce.Stdev, 0},
		{"median", []float64{4, 1, 3, 2}, reduce.Median, 2.5},
		{"median ±1e308", []float64{-1e308, 1e308}, reduce.Median, 0},
	} {
		got := dclNums(t, []schema.Value{dclReduceAll(t, dclNumSch, dclNumRows(c.xs), c.using)})
		dclSameNums(t, []float64{c.want}, got, "reduce "+c.name)
	}
}

var (
	dclStrSch = schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "s", Kind: schema.String},
	)
	dclArrSch = schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	)
)

func dclRowsOf(cells ...schema.Value) []schema.Row {
	rows := make([]schema.Row, len(cells))
	for i, c := range cells {
		rows[i] = schema.Row{schema.NanosValue(int64(i+1) * int64(time.Second)), c}
	}
	return rows
}

func dclStrs(xs ...string) []schema.Value {
	out := make([]schema.Value, len(xs))
	for i, x := range xs {
		out[i] = schema.StringValue(x)
	}
	return out
}

// TestDclScalarOrderDocExamples: reduce "Scalar order" and the samples
// example of the reducer table, through a Reduce and a rolling.
func TestDclScalarOrderDocExamples(t *testing.T) {
	top2, err := reduce.Parse("top2")
	require.NoError(t, err)
	top3, err := reduce.Parse("top3")
	require.NoError(t, err)
	s, n, b := schema.StringValue, schema.NumberValue, schema.BoolValue
	one := func(v schema.Value) schema.Value { return schema.ArrayValue(v) }
	cases := []struct {
		name  string
		sch   *schema.Schema
		cells []schema.Value
		using reduce.Reducer
		want  schema.Value
	}{
		// "top2 of ['x', 'y', 'y', 'z', 'z', 'a'] is ['y', 'z']".
		{"top2", dclStrSch, dclStrs("x", "y", "y", "z", "z", "a"), top2, schema.ArrayValue(s("y"), s("z"))},
		// "top3 of ['a', 'b', 'b', 'c', 'c', 'c'] is ['c', 'b', 'a']".
		{"top3", dclStrSch, dclStrs("a", "b", "b", "c", "c", "c"), top3, schema.ArrayValue(s("c"), s("b"), s("a"))},
		// "unique of ['b', 2, 'a', 1, true, false, 2] is [1, 2, 'a', 'b', false, true]".
		{"unique mixed, one element a row", dclArrSch,
			[]schema.Value{one(s("b")), one(n(2)), one(s("a")), one(n(1)), one(b(true)), one(b(false)), one(n(2))},
			reduce.Unique, schema.ArrayValue(n(1), n(2), s("a"), s("b"), b(false), b(true))},
		{"unique mixed, one array", dclArrSch,
			[]schema.Value{schema.ArrayValue(s("b"), n(2), s("a"), n(1), b(true), b(false), n(2))},
			reduce.Unique, schema.ArrayValue(n(1), n(2), s("a"), s("b"), b(false), b(true))},
		// "samples of [3, –, ['a', 'b'], 1] is [3, 'a', 'b', 1]".
		{"samples flatten", dclArrSch,
			[]schema.Value{one(n(3)), schema.Missing(), schema.ArrayValue(s("a"), s("b")), one(n(1))},
			reduce.Samples, schema.ArrayValue(n(3), s("a"), s("b"), n(1))},
		// "An array counts once in count".
		{"count of arrays", dclArrSch,
			[]schema.Value{one(n(3)), schema.Missing(), schema.ArrayValue(s("a"), s("b")), one(n(1))},
			reduce.Count, n(3)},
		// "Numbers compare by value, so 0 and −0 are one value".
		{"unique of 0 and -0", dclArrSch, []schema.Value{schema.ArrayValue(n(0), n(math.Copysign(0, -1)))},
			reduce.Unique, schema.ArrayValue(n(0))},
		// keep over arrays: the array when all are equal.
		{"keep of equal arrays", dclArrSch,
			[]schema.Value{schema.ArrayValue(n(1), s("a")), schema.ArrayValue(n(1), s("a"))},
			reduce.Keep, schema.ArrayValue(n(1), s("a"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows := dclRowsOf(c.cells...)
			got := dclReduceAll(t, c.sch, rows, c.using)
			assert.True(t, c.want.Equal(got), "reduce: want %v, got %v", c.want, got)
			roll := dclRollCol(t, c.sch, rows, 0, c.using)
			last := roll[len(roll)-1]
			assert.True(t, c.want.Equal(last), "rolling: want %v, got %v", c.want, last)
		})
	}
}

// TestDclEmptyWindowResults: the "empty" column of the reducer table, read
// from a rolling whose count window holds only missing cells.
func TestDclEmptyWindowResults(t *testing.T) {
	cases := []struct {
		name string
		want schema.Value // Missing for "missing"
	}{
		{"count", schema.NumberValue(0)}, {"sum", schema.NumberValue(0)},
		{"avg", schema.Missing()}, {"mean", schema.Missing()}, {"min", schema.Missing()}, {"max", schema.Missing()},
		{"first", schema.Missing()}, {"last", schema.Missing()}, {"median", schema.Missing()}, {"p90", schema.Missing()},
		{"stdev", schema.Missing()}, {"difference", schema.Missing()}, {"keep", schema.Missing()},
		{"unique", schema.ArrayValue()}, {"top2", schema.ArrayValue()}, {"samples", schema.ArrayValue()},
	}
	for _, c := range cases {
		r, err := reduce.Parse(c.name)
		require.NoError(t, err)
		got := dclRollCol(t, dclNumSch, dclNumRows([]float64{5, dclMiss, dclMiss}), 2, r)
		last := got[len(got)-1]
		if c.want.IsMissing() {
			assert.True(t, last.IsMissing(), "%s of an empty window: %v", c.name, last)
			continue
		}
		assert.True(t, c.want.Equal(last), "%s of an empty window: want %v, got %v", c.name, c.want, last)
	}
}

// TestDclCumulativeDocExamples: Series.Cumulative's two examples.
func TestDclCumulativeDocExamples(t *testing.T) {
	for _, c := range []struct {
		xs, want []float64
	}{
		{[]float64{1.7e308, 1.7e308, -1.7e308}, []float64{1.7e308, dclMiss, 1.7e308}},
		{[]float64{dclMiss, 2, dclMiss, 3}, []float64{dclMiss, 2, 2, 5}},
	} {
		s, err := live.New("dcl", dclNumSch, live.Options{})
		require.NoError(t, err)
		n, err := s.Cumulative(s.Root(), live.Running{Column: "x", Using: reduce.Sum})
		require.NoError(t, err)
		require.NoError(t, s.Watch(n, live.Event))
		out, err := s.PushRows(nil, dclNumRows(c.xs)...)
		require.NoError(t, err)
		tab, ok := live.Find(out, n, live.Event)
		require.True(t, ok)
		got, ok := tab.Numbers("x")
		require.True(t, ok)
		dclSameNums(t, c.want, append([]float64(nil), got...), "cumulative")
	}
}

// TestDclParsersAndNames: the names the docs list for the parsers and the
// String methods.
func TestDclParsersAndNames(t *testing.T) {
	for name, want := range map[string]live.Ordering{"strict": live.Strict, "drop": live.Drop, "reorder": live.Reorder, "": live.Strict} {
		o, err := live.ParseOrdering(name)
		require.NoError(t, err, name)
		assert.Equal(t, want, o, name)
		if name != "" {
			assert.Equal(t, name, o.String())
		}
	}
	for _, bad := range []string{"Strict", "sideways", " strict"} {
		_, err := live.ParseOrdering(bad)
		assert.ErrorIs(t, err, live.ErrConfig, bad)
	}
	assert.Equal(t, "ordering(7)", live.Ordering(7).String())
	for name, want := range map[string]live.FillStrategy{"hold": live.FillHold, "zero": live.FillZero, "linear": live.FillLinear} {
		f, err := live.ParseFillStrategy(name)
		require.NoError(t, err, name)
		assert.Equal(t, want, f)
		assert.Equal(t, name, f.String())
	}
	for _, bad := range []string{"", "Hold", "bfill"} {
		_, err := live.ParseFillStrategy(bad)
		assert.ErrorIs(t, err, live.ErrConfig, bad)
	}
	assert.Equal(t, "fill(9)", live.FillStrategy(9).String())
	assert.Equal(t, "fill(0)", live.FillStrategy(0).String())
	assert.Equal(t, "event", live.Event.String())
	assert.Equal(t, "batch", live.Batch.String())
	assert.Equal(t, "evict", live.Evict.String())
	assert.Equal(t, "kind(9)", live.OutputKind(9).String())

	// trigger: "event", "count(n)" or "clock(every 30s)".
	assert.Equal(t, "event", trigger.Event().String())
	assert.Equal(t, "event", trigger.Trigger{}.String())
	assert.Equal(t, "count(3)", trigger.Count(3).String())
	assert.Equal(t, "clock(every 30s)", trigger.Every(30*time.Second).String())
	assert.Equal(t, "clock(every 30s)", trigger.Clock(sequence.Every(30*time.Second)).String())
	assert.ErrorIs(t, trigger.Count(0).Err(), trigger.ErrTrigger)
	assert.ErrorIs(t, trigger.Every(0).Err(), trigger.ErrTrigger)
	assert.ErrorIs(t, trigger.Every(sequence.MaxDuration+1).Err(), trigger.ErrTrigger)
	require.NoError(t, trigger.Every(sequence.MaxDuration).Err())

	// sequence: "every 200ms", "every 30s from 5000000000",
	// "every 1s from 3000-01-01T00:00:00Z".
	assert.Equal(t, "every 200ms", sequence.Every(200*time.Millisecond).String())
	assert.Equal(t, "every 30s from 5000000000", sequence.Every(30*time.Second).WithAnchorNanos(5_000_000_000).String())
	bad := sequence.Every(time.Second).WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC))
	assert.ErrorIs(t, bad.Err(), sequence.ErrSequence)
	assert.Equal(t, "every 1s from 3000-01-01T00:00:00Z", bad.String())
}

// TestDclDurations: sequence.ParseDuration's accepted and refused examples
// and its error format.
func TestDclDurations(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"200ms": 200 * time.Millisecond, "30s": 30 * time.Second, "1m": time.Minute, "1h": time.Hour, "1d": 24 * time.Hour,
	} {
		d, err := sequence.ParseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, d, in)
		seq, err := sequence.ParseEvery(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, seq.Step(), in)
	}
	for _, in := range []string{"0s", "0ms", "-1s", "+1s", " 1s", "1s ", "1.5s", "1m30s", "1min", "1", "s", "", "1S", "1us"} {
		_, err := sequence.ParseDuration(in)
		require.Error(t, err, in)
		assert.ErrorIs(t, err, sequence.ErrDuration, in)
		var de *sequence.DurationError
		require.True(t, errors.As(err, &de), in)
		assert.Equal(t, in, de.Input)
		// The doc writes "sequence: invalid duration <input>: <reason>";
		// the input comes quoted as Go quotes a string.
		assert.True(t, strings.HasPrefix(err.Error(), "sequence: invalid duration "+strconv.Quote(in)+": "), "%q: %v", in, err)
	}
	// 2^62 ns is the longest: as days it is beyond, 53375d is within.
	_, err := sequence.ParseDuration("53375d")
	require.NoError(t, err)
	_, err = sequence.ParseDuration("53376d")
	assert.ErrorIs(t, err, sequence.ErrDuration)
}

// TestDclSequenceStartNegative: Start is a floor division exact for
// negative times; Every(200ms) ticks at …, 0.2 s, 0.4 s, ….
func TestDclSequenceStartNegative(t *testing.T) {
	seq := sequence.Every(200 * time.Millisecond)
	ms := int64(time.Millisecond)
	for _, c := range [][2]int64{{0, 0}, {199 * ms, 0}, {200 * ms, 200 * ms}, {401 * ms, 400 * ms}, {-1, -200 * ms}, {-200 * ms, -200 * ms}, {-201 * ms, -400 * ms}} {
		assert.Equal(t, c[1], seq.Start(c[0]), "Start(%d)", c[0])
	}
	a := seq.WithAnchorNanos(50 * ms)
	assert.Equal(t, 50*ms, a.Start(50*ms))
	assert.Equal(t, -150*ms, a.Start(49*ms))
}

// TestDclReducerNames: reduce.Parse's accepted and refused names.
func TestDclReducerNames(t *testing.T) {
	for _, name := range []string{"count", "sum", "avg", "mean", "min", "max", "first", "last", "median", "stdev",
		"difference", "keep", "unique", "samples", "p99.9", "p0", "p100", "p05", "p50.25", "top3", "top1"} {
		r, err := reduce.Parse(name)
		require.NoError(t, err, name)
		// "Parse of the name of a valid reducer gives the reducer back".
		back, err := reduce.Parse(r.String())
		require.NoError(t, err, name)
		assert.Equal(t, r, back, name)
		if name != "p05" {
			assert.Equal(t, name, r.String(), name)
		}
	}
	r, err := reduce.Parse("top03")
	require.NoError(t, err)
	assert.Equal(t, reduce.Top(3), r)
	for _, name := range []string{"p1e1", "p+5", "p.5", "p5.", "p101", "p100.0001", "p", "p 5", "p0x10", "top0", "top", "Avg", "top-1", "", "p-0"} {
		_, err := reduce.Parse(name)
		assert.ErrorIs(t, err, reduce.ErrReducer, name)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "reduce: "), err.Error())
		}
	}
	assert.Equal(t, "invalid", reduce.Reducer{}.String())
	assert.ErrorIs(t, reduce.Percentile(101).Check(schema.Number), reduce.ErrReducer)
	assert.ErrorIs(t, reduce.Percentile(math.NaN()).Check(schema.Number), reduce.ErrReducer)
	assert.ErrorIs(t, reduce.Top(0).Check(schema.String), reduce.ErrReducer)
	assert.ErrorIs(t, reduce.Sum.Check(schema.String), reduce.ErrReducer)
	assert.ErrorIs(t, reduce.Count.Check(schema.Time), reduce.ErrReducer)
	assert.Equal(t, schema.String, reduce.First.OutputKind(schema.String))
	assert.Equal(t, schema.Array, reduce.Unique.OutputKind(schema.Bool))
	assert.Equal(t, schema.Number, reduce.Count.OutputKind(schema.Array))
	assert.Equal(t, schema.Kind(0), reduce.Sum.OutputKind(schema.String))
	assert.Equal(t, "p50", reduce.Percentile(50).String())
	assert.NotEqual(t, reduce.Median, reduce.Percentile(50))
	assert.NotEqual(t, reduce.Avg, reduce.Mean)
}

// TestDclDescribeStrings: Series.Describe's quoted forms.
func TestDclDescribeStrings(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("dcl", sch, live.Options{})
	require.NoError(t, err)
	wins := []rolling.Window{
		{Span: time.Minute, Aggs: []reduce.Agg{{Out: "cpu_avg", From: "cpu", Using: reduce.Avg}}},
		{Span: 200 * time.Millisecond, Aggs: []reduce.Agg{{Out: "cpu_samples", From: "cpu", Using: reduce.Median}}},
	}
	r, err := s.Rolling(s.Root(), wins, rolling.Options{Trigger: trigger.Every(200 * time.Millisecond)})
	require.NoError(t, err)
	d, err := s.Describe(r)
	require.NoError(t, err)
	assert.Equal(t, "rolling: 1m, 200ms", d)
	a, err := s.Rolling(s.Root(), wins, rolling.Options{Trigger: trigger.Every(200 * time.Millisecond), Aligned: true})
	require.NoError(t, err)
	d, err = s.Describe(a)
	require.NoError(t, err)
	assert.Equal(t, "rolling aligned: 1m: panes of 200ms; 200ms: panes of 200ms + raw rows", d)
	c, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "cpu", Using: reduce.Count}}}},
		rolling.Options{Trigger: trigger.Every(200 * time.Millisecond)})
	require.NoError(t, err)
	d, err = s.Describe(c)
	require.NoError(t, err)
	assert.Equal(t, "rolling: 1s (counts by time)", d)
	// Window names written out: "1m", "200ms", "3"; two of one span
	// are a "duplicate window name".
	_, err = s.Rolling(s.Root(), []rolling.Window{wins[0], wins[0]}, rolling.Options{})
	require.ErrorIs(t, err, rolling.ErrSpec)
	assert.Contains(t, err.Error(), "duplicate window name")
	assert.Contains(t, err.Error(), "1m")
	_, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: []reduce.Agg{{Out: "x", From: "host", Using: reduce.Sum}}}}, rolling.Options{})
	require.ErrorIs(t, err, rolling.ErrSpec)
	// "rolling: window <name>: output <name>: <reason>", names quoted.
	assert.Contains(t, err.Error(), `rolling: window "3": output "x": `)
	var ce *live.ConfigError
	require.True(t, errors.As(err, &ce))
	assert.True(t, strings.HasPrefix(err.Error(), "live: rolling: "), err.Error())
}

// TestDclSchemaAndJSONStrings: the schema package's quoted strings and JSON.
func TestDclSchemaAndJSONStrings(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
	)
	tab := schema.NewTable(sch)
	require.True(t, tab.AppendRowValues(schema.Row{schema.MillisValue(1000), schema.NumberValue(0.5), schema.StringValue("a")}))
	require.True(t, tab.AppendRowValues(schema.Row{schema.MillisValue(2000), schema.Missing(), schema.StringValue("b")}))
	assert.Equal(t, `[{"time":1000,"cpu":0.5,"host":"a"},{"time":2000,"cpu":null,"host":"b"}]`, string(tab.AppendJSON(nil)))
	assert.Equal(t, `{"time":[1000,2000],"cpu":[0.5,null],"host":["a","b"]}`, string(tab.AppendJSONColumns(nil)))
	assert.Equal(t, "time:time, cpu:number?, host:string", sch.String())
	for _, k := range []schema.Kind{schema.Time, schema.Number, schema.String, schema.Bool, schema.Array} {
		p, err := schema.ParseKind(k.String())
		require.NoError(t, err)
		assert.Equal(t, k, p)
	}
	assert.Equal(t, "boolean", schema.Bool.String())
	assert.Equal(t, "invalid(9)", schema.Kind(9).String())
	_, err := schema.ParseKind("bool")
	assert.ErrorIs(t, err, schema.ErrSchema)
	assert.Equal(t, int64(1<<62-1), int64(schema.MaxTime))
	assert.Equal(t, -int64(schema.MaxTime), int64(schema.MinTime))
	assert.Equal(t, time.Duration(1<<62), sequence.MaxDuration)
	// Years 1823 to 2116.
	assert.Equal(t, 2116, time.Unix(0, schema.MaxTime).UTC().Year())
	assert.Equal(t, 1823, time.Unix(0, schema.MinTime).UTC().Year())
	_, err = schema.New(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "", Kind: schema.Number})
	require.ErrorIs(t, err, schema.ErrSchema)
	assert.True(t, strings.HasPrefix(err.Error(), `schema: column 1 (""): `), err.Error())
	_, err = schema.New()
	require.ErrorIs(t, err, schema.ErrSchema)
	assert.True(t, strings.HasPrefix(err.Error(), "schema: "), err.Error())
	// Value.String: times outside the range.
	assert.Equal(t, "(a time after 2116)", schema.NanosValue(schema.MaxTime+1).String())
	assert.Equal(t, "(a time before 1823)", schema.NanosValue(schema.MinTime-1).String())
	assert.Equal(t, "null", schema.Missing().String())
}

// TestDclSeedRowCountFormula: docs/workload.md, "The partitioned rolling
// emits P · ⌊(K−1)·(1000/N) / 200⌋ rows for K ticks", for a few P, N, K.
func TestDclSeedRowCountFormula(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for _, c := range []struct{ p, n, k int }{{3, 10, 25}, {2, 8, 10}, {4, 1000, 450}, {1, 5, 7}, {5, 40, 33}} {
		s, err := live.New("dcl", sch, live.Options{MaxAge: 30 * time.Second})
		require.NoError(t, err)
		by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		require.NoError(t, err)
		r, err := s.Rolling(by, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "a", From: "cpu", Using: reduce.Avg}}}},
			rolling.Options{Trigger: trigger.Every(200 * time.Millisecond)})
		require.NoError(t, err)
		require.NoError(t, s.Watch(r, live.Event))
		emitted := 0
		var out []live.Output
		step := int64(1000/c.n) * int64(time.Millisecond)
		for k := range c.k {
			rows := make([]schema.Row, c.p)
			for h := range c.p {
				rows[h] = schema.Row{schema.NanosValue(t0 + int64(k)*step), schema.NumberValue(0.5), schema.StringValue(string(rune('a' + h)))}
			}
			out, err = s.PushRows(out[:0], rows...)
			require.NoError(t, err)
			if tab, ok := live.Find(out, r, live.Event); ok {
				emitted += tab.Len()
			}
		}
		want := c.p * ((c.k - 1) * (1000 / c.n) / 200)
		assert.Equal(t, want, emitted, "P=%d N=%d K=%d", c.p, c.n, c.k)
	}
}

// TestDclCrossingRule: package trigger's crossing rule on a rolling: the
// first row only sets the bucket; a row in a later bucket fires once, keyed
// at the start of its own bucket, however many boundaries it skipped; the
// row at boundary B includes the first row at or after B; rows in the
// current bucket and late rows never fire.
func TestDclCrossingRule(t *testing.T) {
	s, err := live.New("dcl", dclNumSch, live.Options{Ordering: live.Reorder})
	require.NoError(t, err)
	r, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Hour, Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}},
		rolling.Options{Trigger: trigger.Every(time.Second)})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r, live.Event))
	ms := int64(time.Millisecond)
	type step struct {
		at     int64 // ms
		fireAt int64 // ms, -1 for none
		n      float64
	}
	var out []live.Output
	for i, st := range []step{
		{1500, -1, 0}, // sets the bucket
		{1900, -1, 0}, // same bucket
		{2000, 2000, 3},
		{2100, -1, 0},
		{1100, -1, 0},   // late: never fires
		{5300, 5000, 6}, // skipped 3000 and 4000: one row at 5000
		{5300, -1, 0},
	} {
		out, err = s.PushRows(out[:0], schema.Row{schema.NanosValue(st.at * ms), schema.NumberValue(1)})
		require.NoError(t, err)
		tab, ok := live.Find(out, r, live.Event)
		if st.fireAt < 0 {
			assert.False(t, ok, "row %d fired", i)
			continue
		}
		require.True(t, ok, "row %d did not fire", i)
		require.Equal(t, 1, tab.Len())
		assert.Equal(t, st.fireAt*ms, tab.TimeNanos(0), "row %d", i)
		n, _ := tab.Value(0, 1).Num()
		assert.Equal(t, st.n, n, "row %d", i)
	}
}

// TestDclReduceTriggers: package trigger: on a reduce Event emits once per
// push keyed at its last row; Count(1) one row per row pushed; Count(n) one
// per n counted across pushes, all keyed at the push's last row; Clock the
// crossing rule on each push's last row only.
func TestDclReduceTriggers(t *testing.T) {
	pushes := [][]float64{{1, 2, 3}, {4}, {5, 6, 7, 8, 9}} // times in seconds
	for _, c := range []struct {
		name  string
		trig  trigger.Trigger
		count []int   // rows emitted per push
		key   []int64 // key (s) of the push's rows, 0 when none
	}{
		{"event", trigger.Event(), []int{1, 1, 1}, []int64{3, 4, 9}},
		{"count(1)", trigger.Count(1), []int{3, 1, 5}, []int64{3, 4, 9}},
		{"count(2)", trigger.Count(2), []int{1, 1, 2}, []int64{3, 4, 9}},
		{"clock(every 4s)", trigger.Every(4 * time.Second), []int{0, 1, 1}, []int64{0, 4, 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("dcl", dclNumSch, live.Options{})
			require.NoError(t, err)
			r, err := s.Reduce(s.Root(), []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}, c.trig)
			require.NoError(t, err)
			require.NoError(t, s.Watch(r, live.Event))
			var out []live.Output
			for i, p := range pushes {
				rows := make([]schema.Row, len(p))
				for j, sec := range p {
					rows[j] = schema.Row{schema.NanosValue(int64(sec) * int64(time.Second)), schema.NumberValue(sec)}
				}
				out, err = s.PushRows(out[:0], rows...)
				require.NoError(t, err)
				tab, ok := live.Find(out, r, live.Event)
				if c.count[i] == 0 {
					assert.False(t, ok, "push %d", i)
					continue
				}
				require.True(t, ok, "push %d", i)
				require.Equal(t, c.count[i], tab.Len(), "push %d", i)
				for row := range tab.Len() {
					assert.Equal(t, c.key[i]*int64(time.Second), tab.TimeNanos(row), "push %d row %d", i, row)
				}
			}
		})
	}
}

// TestDclAggregateEarliestBucketAtMinTime: Series.Aggregate: "the bucket
// holding the earliest times a series accepts, which may start before
// schema.MinTime, is keyed at MinTime"; reduce "keep": a bucket's keep of
// zeros is the first of them.
func TestDclAggregateEarliestBucketAtMinTime(t *testing.T) {
	s, err := live.New("dcl", dclNumSch, live.Options{})
	require.NoError(t, err)
	a, err := s.Aggregate(s.Root(), sequence.Every(time.Hour), []reduce.Agg{
		{Out: "n", From: "x", Using: reduce.Count}, {Out: "k", From: "x", Using: reduce.Keep}}, 0)
	require.NoError(t, err)
	require.NoError(t, s.Watch(a, live.Event))
	nz := math.Copysign(0, -1)
	out, err := s.PushRows(nil,
		schema.Row{schema.NanosValue(schema.MinTime), schema.NumberValue(nz)},
		schema.Row{schema.NanosValue(schema.MinTime + 1), schema.NumberValue(0)},
		schema.Row{schema.NanosValue(schema.MinTime + int64(2*time.Hour)), schema.NumberValue(1)},
	)
	require.NoError(t, err)
	tab, ok := live.Find(out, a, live.Event)
	require.True(t, ok)
	require.Equal(t, 1, tab.Len())
	assert.Equal(t, int64(schema.MinTime), tab.TimeNanos(0))
	n, _ := tab.Value(0, 1).Num()
	assert.Equal(t, 2.0, n)
	k, ok := tab.Value(0, 2).Num()
	require.True(t, ok)
	assert.True(t, k == 0 && math.Signbit(k), "a bucket's keep of −0, 0 is the first, −0: got %v", k)
}

// TestDclHeldBytesSeedRow: README "Memory": the root holds 8 bytes a row
// for the time, 8 a number, 4 a string and about a sixteenth of a byte of
// chunk headers: 28.1 bytes a row for the seed's schema.
func TestDclHeldBytesSeedRow(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "requests", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("dcl", sch, live.Options{})
	require.NoError(t, err)
	const n = 1 << 16
	b := schema.NewBatch(sch, 1024)
	for i := 0; i < n; i += 1024 {
		b.Reset()
		for j := range 1024 {
			b.Time = append(b.Time, int64(i+j)*int64(time.Millisecond))
			b.Cols[0].Num = append(b.Cols[0].Num, 0.5)
			b.Cols[1].Num = append(b.Cols[1].Num, 70)
			b.Cols[2].Str = append(b.Cols[2].Str, "host-0001")
		}
		_, err = s.PushMany(nil, b)
		require.NoError(t, err)
	}
	perRow := float64(s.HeldBytes()) / n
	assert.InDelta(t, 28.1, perRow, 0.05, "HeldBytes a row: %v", perRow)
}

// TestDclNonFiniteComputedIsMissing: reduce "Missing values and NaN": the
// sum of [1, NaN, 2, Inf] is 3 and its count is 2. A map is the one step
// that can compute a non-finite number.
func TestDclNonFiniteComputedIsMissing(t *testing.T) {
	s, err := live.New("dcl", dclNumSch, live.Options{})
	require.NoError(t, err)
	m, err := s.Map(s.Root(), dclNumSch, func(in, out schema.Row) bool {
		x, _ := in[1].Num()
		switch x {
		case -1:
			x = math.NaN()
		case -2:
			x = math.Inf(1)
		}
		out[1] = schema.NumberValue(x)
		return true
	})
	require.NoError(t, err)
	r, err := s.Reduce(m, []reduce.Agg{{Out: "sum", From: "x", Using: reduce.Sum}, {Out: "n", From: "x", Using: reduce.Count}}, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(r, live.Event))
	out, err := s.PushRows(nil, dclNumRows([]float64{1, -1, 2, -2})...)
	require.NoError(t, err)
	tab, ok := live.Find(out, r, live.Event)
	require.True(t, ok)
	sum, _ := tab.Value(0, 1).Num()
	n, _ := tab.Value(0, 2).Num()
	assert.Equal(t, 3.0, sum)
	assert.Equal(t, 2.0, n)
}

// TestDclClosedEdges: a row exactly span (MaxAge, window span, rolling span)
// old stays; a row exactly Grace late is accepted, one more nanosecond is
// ErrLate.
func TestDclClosedEdges(t *testing.T) {
	sec := int64(time.Second)
	row := func(ns int64) schema.Row { return schema.Row{schema.NanosValue(ns), schema.NumberValue(1)} }
	// MaxAge.
	s, err := live.New("dcl", dclNumSch, live.Options{MaxAge: 10 * time.Second})
	require.NoError(t, err)
	_, err = s.PushRows(nil, row(0), row(10*sec))
	require.NoError(t, err)
	assert.Equal(t, 2, s.Len())
	_, err = s.PushRows(nil, row(10*sec+1))
	require.NoError(t, err)
	assert.Equal(t, 2, s.Len())
	// Window view.
	s, err = live.New("dcl", dclNumSch, live.Options{})
	require.NoError(t, err)
	w, err := s.Window(s.Root(), 10*time.Second)
	require.NoError(t, err)
	_, err = s.PushRows(nil, row(0), row(10*sec))
	require.NoError(t, err)
	snap, err := s.Snapshot(w)
	require.NoError(t, err)
	assert.Equal(t, 2, snap.Len())
	// Rolling time window [t − Span, t].
	got := dclNums(t, dclRollColAt(t, []int64{0, 10 * sec, 10*sec + 1}, 10*time.Second))
	assert.Equal(t, []float64{1, 2, 2}, got)
	// Grace.
	s, err = live.New("dcl", dclNumSch, live.Options{Ordering: live.Reorder, Grace: 5 * time.Second})
	require.NoError(t, err)
	_, err = s.PushRows(nil, row(10*sec), row(5*sec))
	require.NoError(t, err)
	_, err = s.PushRows(nil, row(5*sec-1))
	var oe *live.OrderError
	require.ErrorAs(t, err, &oe)
	assert.ErrorIs(t, err, live.ErrLate)
	assert.Equal(t, 0, oe.Row)
	assert.Equal(t, 5*time.Second, oe.Grace)
}

// dclRollColAt counts, under the event trigger, a time window of span over
// rows at the given times.
func dclRollColAt(t *testing.T, at []int64, span time.Duration) []schema.Value {
	t.Helper()
	s, err := live.New("dcl", dclNumSch, live.Options{})
	require.NoError(t, err)
	r, err := s.Rolling(s.Root(), []rolling.Window{{Span: span, Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r, live.Event))
	var got []schema.Value
	for _, ns := range at {
		out, err := s.PushRows(nil, schema.Row{schema.NanosValue(ns), schema.NumberValue(1)})
		require.NoError(t, err)
		tab, ok := live.Find(out, r, live.Event)
		require.True(t, ok)
		got = append(got, tab.Value(0, 1))
	}
	return got
}

// TestDclAlignedPaneLimits: package rolling: "A span needing more than
// 2^20 panes is a build error, and so is a window whose span, step and
// (under reorder) grace together need more than 2^22 panes ... (a 1ns
// window on a 1s clock needs 10^9), and a grace's worth more (a 2h grace
// over panes of 1ms)". The error names the window, its span, the step and
// the grace.
func TestDclAlignedPaneLimits(t *testing.T) {
	ms := time.Millisecond
	build := func(opts live.Options, span, step time.Duration) error {
		s, err := live.New("dcl", dclNumSch, opts)
		require.NoError(t, err)
		_, err = s.Rolling(s.Root(), []rolling.Window{{Name: "w", Span: span, Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}},
			rolling.Options{Trigger: trigger.Every(step), Aligned: true})
		return err
	}
	require.NoError(t, build(live.Options{}, (1<<20)*ms, ms))
	err := build(live.Options{}, (1<<20+1)*ms, ms)
	require.ErrorIs(t, err, rolling.ErrSpec)
	assert.Contains(t, err.Error(), "w")
	err = build(live.Options{}, time.Nanosecond, time.Second)
	require.ErrorIs(t, err, rolling.ErrSpec, "a 1ns window on a 1s clock")
	err = build(live.Options{Ordering: live.Reorder, Grace: 2 * time.Hour}, time.Second, ms)
	require.ErrorIs(t, err, rolling.ErrSpec, "a 2h grace over panes of 1ms")
	assert.Contains(t, err.Error(), "2h")
	require.NoError(t, build(live.Options{Ordering: live.Reorder, Grace: time.Second}, time.Second, ms))
}

// TestDclCountLimits: Window.Aggs at most 65,535; live.MaxWorkers is 256;
// a count window's MinSamples at most Count.
func TestDclCountLimits(t *testing.T) {
	assert.Equal(t, 256, live.MaxWorkers)
	_, err := live.New("dcl", dclNumSch, live.Options{Workers: live.MaxWorkers})
	require.NoError(t, err)
	_, err = live.New("dcl", dclNumSch, live.Options{Workers: live.MaxWorkers + 1})
	require.ErrorIs(t, err, live.ErrConfig)
	s, err := live.New("dcl", dclNumSch, live.Options{})
	require.NoError(t, err)
	_, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, MinSamples: rolling.Samples(4), Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}}, rolling.Options{})
	require.ErrorIs(t, err, rolling.ErrSpec)
	_, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, MinSamples: rolling.Samples(3), Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}}, rolling.Options{})
	require.NoError(t, err)
	aggs := func(n int) []reduce.Agg {
		out := make([]reduce.Agg, n)
		for i := range out {
			out[i] = reduce.Agg{Out: "o" + strconv.Itoa(i), From: "x", Using: reduce.Count}
		}
		return out
	}
	_, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: aggs(65536)}}, rolling.Options{})
	require.ErrorIs(t, err, rolling.ErrSpec)
	_, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: aggs(65535)}}, rolling.Options{})
	require.NoError(t, err)
}

// TestDclOptionClaims: docs/differences.md §7 and live.Options: a grace
// without reordering or longer than MaxAge is an error, a grace equal to it
// is not; with MaxAge and MaxEvents both set the larger eviction wins.
func TestDclOptionClaims(t *testing.T) {
	_, err := live.New("dcl", dclNumSch, live.Options{Grace: time.Second})
	require.ErrorIs(t, err, live.ErrConfig)
	_, err = live.New("dcl", dclNumSch, live.Options{Ordering: live.Reorder, Grace: 2 * time.Second, MaxAge: time.Second})
	require.ErrorIs(t, err, live.ErrConfig)
	var ce *live.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.True(t, strings.HasPrefix(err.Error(), "live: new: "), err.Error())
	_, err = live.New("dcl", dclNumSch, live.Options{Ordering: live.Reorder, Grace: time.Second, MaxAge: time.Second})
	require.NoError(t, err)
	_, err = live.New("dcl", dclNumSch, live.Options{MaxAge: sequence.MaxDuration + 1})
	require.ErrorIs(t, err, live.ErrConfig)
	_, err = live.New("dcl", dclNumSch, live.Options{MaxAge: sequence.MaxDuration})
	require.NoError(t, err)

	sec := int64(time.Second)
	rows := dclNumRows([]float64{1, 2, 3, 4, 5, 6}) // 1 s to 6 s
	for _, c := range []struct {
		opts live.Options
		want int
	}{
		{live.Options{MaxAge: 10 * time.Second, MaxEvents: 2}, 2}, // count evicts more
		{live.Options{MaxAge: 2 * time.Second, MaxEvents: 5}, 3},  // age evicts more (4 s, 5 s, 6 s stay)
	} {
		s, err := live.New("dcl", dclNumSch, c.opts)
		require.NoError(t, err)
		_, err = s.PushRows(nil, rows...)
		require.NoError(t, err)
		assert.Equal(t, c.want, s.Len(), "%+v", c.opts)
		latest, ok := s.LatestNanos()
		require.True(t, ok)
		assert.Equal(t, 6*sec, latest)
	}
}
