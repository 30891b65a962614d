package schema

import (
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/pond-go/pond/internal/column"
)

// col is one column of a [Table]; see package internal/column. Engines
// reach a table's columns through package internal/table, by way of the
// offset set here.
type col = column.Col[Value]

func init() {
	column.ColsOffset = unsafe.Offsetof(Table{}.cols)
	column.SetNumElem(NumberValue)
}

// valueAt returns cell i of c as a [Value]. The elements of an array cell
// kept as float64s are made anew (see [Table.Value]).
func valueAt(c *col, i int) Value {
	switch Kind(c.Kind()) {
	case Time:
		return NanosValue(c.Time(i))
	case Number:
		if f, ok := c.Num(i); ok {
			return NumberValue(f)
		}
	case String:
		if s, ok := c.Str(i); ok {
			return StringValue(s)
		}
	case Bool:
		if b, ok := c.Bool(i); ok {
			return BoolValue(b)
		}
	case Array:
		if elems, ok := c.Array(i); ok {
			if c.Wide() {
				// The elements are the table's, which a series reuses at
				// its next push: a Value is immutable, so it gets a copy.
				elems = slices.Clone(elems)
			}
			return ArrayValue(elems...)
		}
	}
	return Value{}
}

// appendValue appends v to c; see [column.Col.AppendCell].
func appendValue(c *col, v Value) bool {
	return c.AppendCell(uint8(v.kind), math.Float64frombits(v.bits), int64(v.bits), v.str(), v.bits == 1, v.arr())
}

// timeOf is a helper for tests and renderers.
func timeOf(ns int64) time.Time { return time.Unix(0, ns).UTC() }
