package reduce

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

func TestParseValidNames(t *testing.T) {
	tests := []struct {
		name string
		want Reducer
		str  string // String() of the result, when it is not name
	}{
		{name: "count", want: Count},
		{name: "sum", want: Sum},
		{name: "avg", want: Avg},
		{name: "mean", want: Mean},
		{name: "min", want: Min},
		{name: "max", want: Max},
		{name: "first", want: First},
		{name: "last", want: Last},
		{name: "median", want: Median},
		{name: "stdev", want: Stdev},
		{name: "difference", want: Difference},
		{name: "keep", want: Keep},
		{name: "unique", want: Unique},
		{name: "samples", want: Samples},
		{name: "p99.9", want: Percentile(99.9)},
		{name: "p95", want: Percentile(95)},
		{name: "p50", want: Percentile(50)},
		{name: "p0", want: Percentile(0)},
		{name: "p100", want: Percentile(100)},
		{name: "p50.25", want: Percentile(50.25)},
		{name: "p05", want: Percentile(5), str: "p5"},
		{name: "p0.0", want: Percentile(0), str: "p0"},
		{name: "p100.000", want: Percentile(100), str: "p100"},
		{name: "p000100", want: Percentile(100), str: "p100"},
		{name: "p0.001", want: Percentile(0.001)},
		{name: "top1", want: Top(1)},
		{name: "top3", want: Top(3)},
		{name: "top03", want: Top(3), str: "top3"},
		{name: "top1000000", want: Top(1000000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.name)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r)
			assert.NoError(t, r.err())
			str := tt.str
			if str == "" {
				str = tt.name
			}
			assert.Equal(t, str, r.String())
			back, err := Parse(r.String())
			require.NoError(t, err)
			assert.Equal(t, r, back, "Parse(String()) gives the reducer back")
		})
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{"", `reduce: unknown reducer ""`},
		{"Mean", `reduce: unknown reducer "Mean"`},
		{"AVG", `reduce: unknown reducer "AVG"`},
		{"median ", `reduce: unknown reducer "median "`},
		{"p", `reduce: unknown reducer "p"`},
		{"p101", `reduce: reducer "p101": percentile 101 outside [0, 100]`},
		{"p100.0001", `reduce: reducer "p100.0001": percentile 100.0001 outside [0, 100]`},
		{"p100.0000000000000000001", `reduce: reducer "p100.0000000000000000001": percentile 100.0000000000000000001 outside [0, 100]`},
		{"p1000", `reduce: reducer "p1000": percentile 1000 outside [0, 100]`},
		{"p1e1", `reduce: unknown reducer "p1e1"`},
		{"p 5", `reduce: unknown reducer "p 5"`},
		{"p0x10", `reduce: unknown reducer "p0x10"`},
		{"p+5", `reduce: unknown reducer "p+5"`},
		{"p-1", `reduce: unknown reducer "p-1"`},
		{"p.5", `reduce: unknown reducer "p.5"`},
		{"p5.", `reduce: unknown reducer "p5."`},
		{"p5..1", `reduce: unknown reducer "p5..1"`},
		{"p1_0", `reduce: unknown reducer "p1_0"`},
		{"pNaN", `reduce: unknown reducer "pNaN"`},
		{"pInf", `reduce: unknown reducer "pInf"`},
		{"P50", `reduce: unknown reducer "P50"`},
		{"top", `reduce: unknown reducer "top"`},
		{"top0", `reduce: reducer "top0": top N must be at least 1`},
		{"top00", `reduce: reducer "top00": top N must be at least 1`},
		{"top-1", `reduce: unknown reducer "top-1"`},
		{"top 3", `reduce: unknown reducer "top 3"`},
		{"top3.0", `reduce: unknown reducer "top3.0"`},
		{"top+3", `reduce: unknown reducer "top+3"`},
		{"Top3", `reduce: unknown reducer "Top3"`},
		{"top99999999999999999999", `reduce: reducer "top99999999999999999999": N too large`},
		{"percentile", `reduce: unknown reducer "percentile"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.name)
			require.Error(t, err)
			assert.Equal(t, Reducer{}, r)
			assert.ErrorIs(t, err, ErrReducer)
			var re *ReducerError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tt.name, re.Name)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
}

func TestReducerAccessors(t *testing.T) {
	tests := []struct {
		r    Reducer
		op   reducers.Op
		q    float64
		n    int
		name string
	}{
		{Avg, reducers.OpAvg, 0, 0, "avg"},
		{Mean, reducers.OpAvg, 0, 0, "mean"},
		{Median, reducers.OpMedian, 50, 0, "median"},
		{Percentile(99.9), reducers.OpPercentile, 99.9, 0, "p99.9"},
		{Percentile(math.Copysign(0, -1)), reducers.OpPercentile, 0, 0, "p0"},
		{Top(3), reducers.OpTop, 0, 3, "top3"},
		{Reducer{}, 0, 0, 0, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.op, tt.r.op)
			assert.Equal(t, tt.q, tt.r.q)
			assert.Equal(t, tt.n, tt.r.n)
			assert.Equal(t, tt.name, tt.r.String())
		})
	}
	assert.NotEqual(t, Avg, Mean, "avg and mean are distinct values")
	assert.Equal(t, "percentile", reducers.OpPercentile.String())
	assert.Equal(t, "Op(99)", reducers.Op(99).String())
}

func TestReducerErr(t *testing.T) {
	tests := []struct {
		name string
		r    Reducer
		msg  string
	}{
		{"zero Reducer", Reducer{}, "reduce: zero Reducer (use Parse or a predefined reducer)"},
		{"percentile above 100", Percentile(101), "reduce: percentile 101 outside [0, 100]"},
		{"percentile below 0", Percentile(-1), "reduce: percentile -1 outside [0, 100]"},
		{"percentile NaN", Percentile(math.NaN()), "reduce: percentile NaN outside [0, 100]"},
		{"percentile Inf", Percentile(math.Inf(1)), "reduce: percentile +Inf outside [0, 100]"},
		{"top 0", Top(0), "reduce: top N 0 below 1"},
		{"top -2", Top(-2), "reduce: top N -2 below 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.err()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrReducer)
			assert.Equal(t, tt.msg, err.Error())
			assert.Equal(t, err, tt.r.Check(schema.Number), "Check reports the reducer's own error first")
			_, werr := newWindow(tt.r, schema.Number)
			assert.ErrorIs(t, werr, ErrReducer)
			_, serr := newSet(tt.r, schema.Number)
			assert.ErrorIs(t, serr, ErrReducer)
			_, berr := newBucket(tt.r, schema.Number)
			assert.ErrorIs(t, berr, ErrReducer)
			assert.Zero(t, tt.r.OutputKind(schema.Number))
		})
	}
}

// allReducers lists one reducer of every kind, parameters included.
var allReducers = []Reducer{
	Count, Sum, Avg, Mean, Min, Max, First, Last, Median, Percentile(0), Percentile(95),
	Percentile(99.9), Percentile(100), Stdev, Difference, Keep, Unique, Top(1), Top(2), Top(5), Samples,
}

func TestCheckAndOutputKind(t *testing.T) {
	type kinds struct{ number, str, boolean, array schema.Kind }
	num, str, boo, arr := schema.Number, schema.String, schema.Bool, schema.Array
	want := map[reducers.Op]kinds{ // 0: cannot read
		reducers.OpCount:      {num, num, num, num},
		reducers.OpSum:        {num, 0, 0, 0},
		reducers.OpAvg:        {num, 0, 0, 0},
		reducers.OpMin:        {num, 0, 0, 0},
		reducers.OpMax:        {num, 0, 0, 0},
		reducers.OpMedian:     {num, 0, 0, 0},
		reducers.OpPercentile: {num, 0, 0, 0},
		reducers.OpStdev:      {num, 0, 0, 0},
		reducers.OpDifference: {num, 0, 0, 0},
		reducers.OpFirst:      {num, str, boo, arr},
		reducers.OpLast:       {num, str, boo, arr},
		reducers.OpKeep:       {num, str, boo, arr},
		reducers.OpUnique:     {arr, arr, arr, arr},
		reducers.OpTop:        {arr, arr, arr, arr},
		reducers.OpSamples:    {arr, arr, arr, arr},
	}
	for _, r := range allReducers {
		w := want[r.op]
		for src, out := range map[schema.Kind]schema.Kind{num: w.number, str: w.str, boo: w.boolean, arr: w.array} {
			t.Run(r.String()+"/"+src.String(), func(t *testing.T) {
				assert.Equal(t, out, r.OutputKind(src))
				err := r.Check(src)
				if out == 0 {
					require.Error(t, err)
					assert.ErrorIs(t, err, ErrReducer)
					a := map[schema.Kind]string{num: "a ", str: "a ", boo: "a ", arr: "an "}[src]
					assert.Contains(t, err.Error(), `"`+r.String()+`" cannot read `+a+src.String()+" column")
					_, werr := newWindow(r, src)
					assert.Equal(t, err, werr)
					return
				}
				require.NoError(t, err)
				for _, mk := range []func(schema.Kind) (any, error){
					func(k schema.Kind) (any, error) { return newWindow(r, k) },
					func(k schema.Kind) (any, error) { return newSet(r, k) },
					func(k schema.Kind) (any, error) { return newBucket(r, k) },
				} {
					s, err := mk(src)
					require.NoError(t, err)
					require.NotNil(t, s)
				}
			})
		}
		t.Run(r.String()+"/time", func(t *testing.T) {
			err := r.Check(schema.Time)
			assert.ErrorIs(t, err, ErrReducer, "no reducer reads a time column")
			assert.Zero(t, r.OutputKind(schema.Time))
			err = r.Check(schema.Kind(42))
			assert.ErrorIs(t, err, ErrReducer)
			assert.Contains(t, err.Error(), "column of kind invalid(42)")
		})
	}
}

func TestErrorsUnwrap(t *testing.T) {
	_, err := Parse("p101")
	var re *ReducerError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, "p101", re.Name)
	assert.Equal(t, ErrReducer, re.Unwrap())
}
