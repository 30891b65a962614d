package reducers

import (
	"fmt"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Op identifies a reducer's operation.
type Op uint8

// The operations. The zero Op is not an operation.
const (
	OpCount Op = iota + 1
	OpSum
	OpAvg
	OpMin
	OpMax
	OpFirst
	OpLast
	OpMedian
	OpPercentile
	OpStdev
	OpDifference
	OpKeep
	OpUnique
	OpTop
	OpSamples
)

var opNames = [...]string{
	OpCount:      "count",
	OpSum:        "sum",
	OpAvg:        "avg",
	OpMin:        "min",
	OpMax:        "max",
	OpFirst:      "first",
	OpLast:       "last",
	OpMedian:     "median",
	OpPercentile: "percentile",
	OpStdev:      "stdev",
	OpDifference: "difference",
	OpKeep:       "keep",
	OpUnique:     "unique",
	OpTop:        "top",
	OpSamples:    "samples",
}

// String returns the operation's name ("count", "avg", "percentile",
// "top"…), or "Op(n)" for a value that is not an operation.
func (o Op) String() string {
	if o >= OpCount && o <= OpSamples {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Numeric reports whether the operation reads numbers only.
func (o Op) Numeric() bool {
	switch o {
	case OpSum, OpAvg, OpMin, OpMax, OpMedian, OpPercentile, OpStdev, OpDifference:
		return true
	}
	return false
}

// Spec is what the states need of a reducer: its operation and parameter
// (q for a percentile, 50 for median; N for top).
type Spec struct {
	Op Op
	Q  float64
	N  int
}

// SpecOf returns the Spec of a reduce.Reducer. Package reduce, which
// imports this one, sets it when it is initialised, so that the engines
// read a reducer without reduce exporting its insides.
var SpecOf func(reducer any) Spec

// ErrOf returns nil for a usable reduce.Reducer, or the error wrapping
// reduce.ErrReducer that says why it is not (the zero Reducer, a
// percentile outside [0, 100], a top N below 1). Package reduce sets it
// as it sets SpecOf.
var ErrOf func(reducer any) error

// finite reports whether f is neither NaN nor ±Inf.
func finite(f float64) bool { return f-f == 0 }

// num returns v as a finite number, or false: missing, another kind and
// non-finite numbers are not numbers to a reducer, as in pond-ts.
func num(v schema.Value) (float64, bool) {
	f, ok := v.Num()
	return f, ok && finite(f)
}

// defined reports whether v counts as a present value: any value kind
// except time, numbers only when finite.
func defined(v schema.Value) bool {
	switch v.Kind() {
	case schema.Number:
		f, _ := v.Num()
		return finite(f)
	case schema.String, schema.Bool, schema.Array:
		return true
	}
	return false
}

// appendNum appends f, or a missing cell when f is not finite.
func appendNum(dst *table.Col, f float64) {
	if finite(f) {
		dst.AppendNum(f)
	} else {
		dst.AppendMissing()
	}
}
