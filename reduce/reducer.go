package reduce

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pond-go/pond/internal/article"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// Errors returned by this package. Use [errors.Is] to test for them; the
// typed error [*ReducerError] carries the details.
var (
	// ErrReducer reports a reducer that cannot be used: an unknown name, a
	// parameter out of range (p101, top0), the zero Reducer, or a reducer
	// that cannot read a column of the given kind (sum over strings).
	ErrReducer = errors.New("reduce: invalid reducer")
)

// ReducerError is the error [Parse] and [Reducer.Check] return, and the
// operators built with an invalid reducer. It wraps [ErrReducer].
type ReducerError struct {
	Name   string // the reducer's name as given, "" for the zero Reducer
	Reason string // what is wrong, quoting the bad value
}

// Error returns "reduce: " followed by the reason.
func (e *ReducerError) Error() string { return "reduce: " + e.Reason }

// Unwrap returns [ErrReducer].
func (e *ReducerError) Unwrap() error { return ErrReducer }

// Reducer is a parsed reducer: an operation plus its parameter (q for a
// percentile, N for top). Build one with [Parse], [Percentile], [Top] or
// take one of the predefined values ([Count], [Avg]…). The zero Reducer is
// invalid. Reducers are small, comparable values: copy them freely and use
// == to compare them ("avg" and "mean" are different values with the same
// behaviour; so are "median" and "p50").
type Reducer struct {
	op   reducers.Op
	mean bool    // avg spelled "mean"
	q    float64 // percentile in [0, 100]; 50 for median
	n    int     // top N
}

// The reducers without a parameter. [Mean] is [Avg] under the name "mean".
var (
	Count      = Reducer{op: reducers.OpCount}
	Sum        = Reducer{op: reducers.OpSum}
	Avg        = Reducer{op: reducers.OpAvg}
	Mean       = Reducer{op: reducers.OpAvg, mean: true}
	Min        = Reducer{op: reducers.OpMin}
	Max        = Reducer{op: reducers.OpMax}
	First      = Reducer{op: reducers.OpFirst}
	Last       = Reducer{op: reducers.OpLast}
	Median     = Reducer{op: reducers.OpMedian, q: 50}
	Stdev      = Reducer{op: reducers.OpStdev}
	Difference = Reducer{op: reducers.OpDifference}
	Keep       = Reducer{op: reducers.OpKeep}
	Unique     = Reducer{op: reducers.OpUnique}
	Samples    = Reducer{op: reducers.OpSamples}
)

// Percentile returns the p<q> reducer. A q outside [0, 100] (or NaN) gives a
// Reducer that [Reducer.Check] and the operators refuse; such a Reducer
// builds no state.
func Percentile(q float64) Reducer {
	return Reducer{op: reducers.OpPercentile, q: q + 0} // + 0 turns -0 into 0
}

// Top returns the top<N> reducer: the N most frequent values. N < 1 gives a
// Reducer that [Reducer.Check] and the operators refuse; such a Reducer
// builds no state.
func Top(n int) Reducer { return Reducer{op: reducers.OpTop, n: n} }

var byName = map[string]Reducer{
	"count":      Count,
	"sum":        Sum,
	"avg":        Avg,
	"mean":       Mean,
	"min":        Min,
	"max":        Max,
	"first":      First,
	"last":       Last,
	"median":     Median,
	"stdev":      Stdev,
	"difference": Difference,
	"keep":       Keep,
	"unique":     Unique,
	"samples":    Samples,
}

// Parse parses a reducer name: "count", "sum", "avg", "mean", "min", "max",
// "first", "last", "median", "stdev", "difference", "keep", "unique",
// "samples", "p<q>" or "top<N>". Names are case-sensitive.
//
// In "p<q>", q is a plain decimal number in [0, 100]: digits, optionally
// followed by a point and more digits ("p99.9", "p0", "p100", "p05",
// "p50.25"). Signs, exponents, hexadecimal, spaces, a bare "p", a leading or
// trailing point ("p.5", "p5.") and anything above 100 ("p101",
// "p100.0001") are rejected. pond-ts parses q with JavaScript's Number(),
// which also accepts "p1e1", "p 5", "p0x10" and even "p"; pond-go does not.
//
// In "top<N>", N is one or more decimal digits with a value of at least 1
// ("top0" is rejected; "top03" is top3).
//
// Any other name is an error wrapping [ErrReducer].
func Parse(name string) (Reducer, error) {
	if r, ok := byName[name]; ok {
		return r, nil
	}
	switch {
	case strings.HasPrefix(name, "top") && len(name) > 3 && allDigits(name[3:]):
		n, err := strconv.Atoi(name[3:])
		if err != nil {
			return Reducer{}, &ReducerError{Name: name, Reason: fmt.Sprintf("reducer %q: N too large", name)}
		}
		if n < 1 {
			return Reducer{}, &ReducerError{Name: name, Reason: fmt.Sprintf("reducer %q: top N must be at least 1", name)}
		}
		return Top(n), nil
	case strings.HasPrefix(name, "p") && isDecimal(name[1:]):
		digits := name[1:]
		if !decimalAtMost100(digits) {
			return Reducer{}, &ReducerError{Name: name, Reason: fmt.Sprintf("reducer %q: percentile %s outside [0, 100]", name, digits)}
		}
		q, err := strconv.ParseFloat(digits, 64)
		if err != nil { // not reached: digits is a plain decimal in range
			return Reducer{}, &ReducerError{Name: name, Reason: fmt.Sprintf("reducer %q: %v", name, err)}
		}
		return Percentile(q), nil
	}
	return Reducer{}, &ReducerError{Name: name, Reason: fmt.Sprintf("unknown reducer %q", name)}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is digits, optionally followed by '.' and
// more digits.
func isDecimal(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	return whole != "" && allDigits(whole) && (!dot || frac != "" && allDigits(frac))
}

// decimalAtMost100 reports whether the plain decimal s is at most 100,
// exactly (so "100.0000000000000000001" is out, although it rounds to 100).
func decimalAtMost100(s string) bool {
	whole, frac, _ := strings.Cut(s, ".")
	whole = strings.TrimLeft(whole, "0")
	switch {
	case len(whole) < 3:
		return true
	case len(whole) > 3 || whole > "100":
		return false
	}
	return strings.Trim(frac, "0") == "" // whole is "100"
}

// String returns the reducer's name: "avg", "mean", "median", "p99.9",
// "top3"… [Parse] of the name of a valid reducer gives the reducer back. The
// zero Reducer is "invalid".
func (r Reducer) String() string {
	switch r.op {
	case 0:
		return "invalid"
	case reducers.OpAvg:
		if r.mean {
			return "mean"
		}
	case reducers.OpPercentile:
		return "p" + strconv.FormatFloat(r.q, 'f', -1, 64)
	case reducers.OpTop:
		return "top" + strconv.Itoa(r.n)
	}
	return r.op.String()
}

func init() {
	reducers.SpecOf = func(r any) reducers.Spec { return r.(Reducer).spec() }
	reducers.ErrOf = func(r any) error { return r.(Reducer).err() }
}

// spec returns what the states need of r.
func (r Reducer) spec() reducers.Spec { return reducers.Spec{Op: r.op, Q: r.q, N: r.n} }

// err returns nil for a valid reducer, and an error wrapping [ErrReducer]
// for the zero Reducer, a percentile outside [0, 100] or a top N below 1.
func (r Reducer) err() error {
	switch {
	case r.op < reducers.OpCount || r.op > reducers.OpSamples:
		return &ReducerError{Reason: "zero Reducer (use Parse or a predefined reducer)"}
	case r.op == reducers.OpPercentile && !(r.q >= 0 && r.q <= 100):
		return &ReducerError{Name: r.String(), Reason: fmt.Sprintf("percentile %s outside [0, 100]", strconv.FormatFloat(r.q, 'g', -1, 64))}
	case r.op == reducers.OpTop && r.n < 1:
		return &ReducerError{Name: r.String(), Reason: fmt.Sprintf("top N %d below 1", r.n)}
	}
	return nil
}

// Check reports whether the reducer can read a column of kind src: count,
// first, last and keep read any value kind (number, string, boolean,
// array); unique, top and samples read the same kinds and flatten arrays;
// sum, avg, min, max, median, percentiles, stdev and difference read
// numbers only. No reducer reads a time column. The error wraps
// [ErrReducer]; an invalid reducer (the zero Reducer, a percentile outside
// [0, 100], a top N below 1) gives that error.
func (r Reducer) Check(src schema.Kind) error {
	if err := r.err(); err != nil {
		return err
	}
	var what string
	switch src {
	case schema.Number:
		return nil
	case schema.String, schema.Bool, schema.Array:
		if !r.op.Numeric() {
			return nil
		}
		what = src.String() + " column"
	case schema.Time:
		what = src.String() + " column"
	default:
		what = "column of kind " + src.String()
	}
	return &ReducerError{Name: r.String(), Reason: fmt.Sprintf("reducer %q cannot read %s", r.String(), article.A(what))}
}

// OutputKind is the kind of the reducer's result column for a source of kind
// src: number for count and for the numeric reducers, the source kind for
// first, last and keep, array for unique, top and samples. It is 0 when
// [Reducer.Check] fails.
func (r Reducer) OutputKind(src schema.Kind) schema.Kind {
	if r.Check(src) != nil {
		return 0
	}
	switch r.op {
	case reducers.OpFirst, reducers.OpLast, reducers.OpKeep:
		return src
	case reducers.OpUnique, reducers.OpTop, reducers.OpSamples:
		return schema.Array
	}
	return schema.Number
}

// Agg is one output column of an aggregation: Out is its name, From the
// source column it reads, Using the reducer.
type Agg struct {
	Out, From string
	Using     Reducer
}
