package schema

import (
	"math"
	"time"

	"github.com/pond-go/pond/internal/cell"
)

// Col is one column of a [Table]: a growable, typed slice of cells. Numbers
// are stored as float64 with NaN marking a missing cell (non-finite numbers
// never enter a series, so NaN is free to mean "missing"); strings, booleans
// and arrays keep a presence byte per cell; arrays keep their elements in
// one flat slice, so appending an array does not allocate once the column
// has grown.
//
// Tables handed out by a series are read-only: the append methods are for
// the code that builds tables (engines, tests, decoders).
type Col struct {
	kind  Kind
	ts    []int64   // Time
	num   []float64 // Number
	str   []string  // String
	flag  []uint8   // String, Array, Bool: presence and truth as in internal/cell
	end   []int32   // Array: end offset of each cell in elems
	elems []Value   // Array elements
	open  bool      // an array is being appended
	// aliased: ts, num, str and flag share memory the column does not own
	// (see [Col.AliasNums]); own keeps the column's buffers meanwhile.
	aliased bool
	own     struct {
		ts   []int64
		num  []float64
		str  []string
		flag []uint8
	}
	ones []uint8 // all ones, the presence flags of aliased strings
}

// NewCol returns an empty column of kind k.
func NewCol(k Kind) *Col { return &Col{kind: k} }

// Kind returns the column's kind.
func (c *Col) Kind() Kind { return c.kind }

// Len returns the number of cells.
func (c *Col) Len() int {
	switch c.kind {
	case Time:
		return len(c.ts)
	case Number:
		return len(c.num)
	}
	return len(c.flag)
}

// Reset empties the column and keeps its capacity.
func (c *Col) Reset() {
	if c.aliased {
		c.ts, c.num, c.str, c.flag = c.own.ts, c.own.num, c.own.str, c.own.flag
		c.own.ts, c.own.num, c.own.str, c.own.flag = nil, nil, nil, nil
		c.aliased = false
	}
	c.ts = c.ts[:0]
	c.num = c.num[:0]
	clear(c.str) // drop references so old strings can be collected
	c.str = c.str[:0]
	c.flag = c.flag[:0]
	c.end = c.end[:0]
	clear(c.elems)
	c.elems = c.elems[:0]
	c.open = false
}

// IsMissing reports whether cell i is missing.
func (c *Col) IsMissing(i int) bool {
	switch c.kind {
	case Time:
		return false
	case Number:
		return c.num[i] != c.num[i]
	}
	return c.flag[i] == cell.Missing
}

// Time returns cell i of a time column in nanoseconds since the epoch.
func (c *Col) Time(i int) int64 { return c.ts[i] }

// Num returns cell i of a number column and whether it is present.
func (c *Col) Num(i int) (float64, bool) {
	if c.kind != Number {
		return 0, false
	}
	f := c.num[i]
	return f, f == f
}

// Str returns cell i of a string column and whether it is present.
func (c *Col) Str(i int) (string, bool) {
	if c.kind != String || c.flag[i] == cell.Missing {
		return "", false
	}
	return c.str[i], true
}

// Bool returns cell i of a boolean column and whether it is present.
func (c *Col) Bool(i int) (bool, bool) {
	if c.kind != Bool || c.flag[i] == cell.Missing {
		return false, false
	}
	return c.flag[i] == cell.True, true
}

// Array returns the elements of cell i of an array column and whether it is
// present. The slice aliases the column: do not modify or keep it past the
// table's lifetime.
func (c *Col) Array(i int) ([]Value, bool) {
	if c.kind != Array || c.flag[i] == cell.Missing {
		return nil, false
	}
	start := int32(0)
	if i > 0 {
		start = c.end[i-1]
	}
	return c.elems[start:c.end[i]:c.end[i]], true
}

// Value returns cell i as a [Value].
func (c *Col) Value(i int) Value {
	switch c.kind {
	case Time:
		return NanosValue(c.ts[i])
	case Number:
		if f := c.num[i]; f == f {
			return NumberValue(f)
		}
	case String:
		if c.flag[i] != cell.Missing {
			return StringValue(c.str[i])
		}
	case Bool:
		if c.flag[i] != cell.Missing {
			return BoolValue(c.flag[i] == cell.True)
		}
	case Array:
		if elems, ok := c.Array(i); ok {
			return ArrayValue(elems...)
		}
	}
	return Value{}
}

// Times returns the cells of a time column (nil for other kinds). The slice
// aliases the column.
func (c *Col) Times() []int64 { return c.ts }

// Numbers returns the cells of a number column, NaN marking missing ones
// (nil for other kinds). The slice aliases the column.
func (c *Col) Numbers() []float64 { return c.num }

// Strings returns the cells of a string column, "" for missing ones (nil for
// other kinds); [Col.IsMissing] tells a missing cell from an empty string.
// The slice aliases the column.
func (c *Col) Strings() []string { return c.str }

// AppendTime appends a time in nanoseconds to a time column.
func (c *Col) AppendTime(ns int64) { c.ts = append(c.ts, ns) }

// AppendNum appends a number to a number column; NaN appends a missing cell.
func (c *Col) AppendNum(f float64) { c.num = append(c.num, f) }

// AppendStr appends a string to a string column.
func (c *Col) AppendStr(s string) {
	c.str = append(c.str, s)
	c.flag = append(c.flag, cell.Present)
}

// AppendBool appends a boolean to a boolean column.
func (c *Col) AppendBool(b bool) {
	f := uint8(cell.False)
	if b {
		f = cell.True
	}
	c.flag = append(c.flag, f)
}

// AppendMissing appends a missing cell (nothing, for a time column, which
// cannot hold one).
func (c *Col) AppendMissing() {
	switch c.kind {
	case Number:
		c.num = append(c.num, math.NaN())
	case String:
		c.str = append(c.str, "")
		c.flag = append(c.flag, cell.Missing)
	case Bool:
		c.flag = append(c.flag, cell.Missing)
	case Array:
		c.flag = append(c.flag, cell.Missing)
		c.end = append(c.end, int32(len(c.elems)))
	}
}

// BeginArray starts an array cell; add its elements with [Col.AppendElem]
// and finish it with [Col.EndArray].
func (c *Col) BeginArray() { c.open = true }

// AppendElem appends one element to the array cell being built.
func (c *Col) AppendElem(v Value) { c.elems = append(c.elems, v) }

// EndArray finishes the array cell begun with [Col.BeginArray].
func (c *Col) EndArray() {
	c.open = false
	c.flag = append(c.flag, cell.Present)
	c.end = append(c.end, int32(len(c.elems)))
}

// AppendArray appends an array cell holding a copy of elems.
func (c *Col) AppendArray(elems []Value) {
	c.elems = append(c.elems, elems...)
	c.EndArray()
}

// AppendValue appends v. A missing value, or a value whose kind does not
// match the column's, appends a missing cell and reports false; a
// non-finite number appends a missing cell and reports false.
func (c *Col) AppendValue(v Value) bool {
	if v.kind != c.kind {
		c.AppendMissing()
		return v.kind == 0
	}
	switch c.kind {
	case Time:
		c.AppendTime(int64(v.bits))
	case Number:
		f := math.Float64frombits(v.bits)
		c.AppendNum(f)
		if math.IsInf(f, 0) || f != f {
			c.num[len(c.num)-1] = math.NaN()
			return false
		}
	case String:
		c.AppendStr(v.str())
	case Bool:
		c.AppendBool(v.bits == 1)
	case Array:
		c.AppendArray(v.arr())
	}
	return true
}

// appendFrom appends cell i of src, which must have the same kind.
func (c *Col) appendFrom(src *Col, i int) {
	switch c.kind {
	case Time:
		c.ts = append(c.ts, src.ts[i])
	case Number:
		c.num = append(c.num, src.num[i])
	case String:
		c.str = append(c.str, src.str[i])
		c.flag = append(c.flag, src.flag[i])
	case Bool:
		c.flag = append(c.flag, src.flag[i])
	case Array:
		if elems, ok := src.Array(i); ok {
			c.AppendArray(elems)
		} else {
			c.AppendMissing()
		}
	}
}

// timeOf is a helper for tests and renderers.
func timeOf(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// AppendTimes appends times in nanoseconds to a time column.
func (c *Col) AppendTimes(ts []int64) { c.ts = append(c.ts, ts...) }

// AppendNums appends numbers to a number column (NaN for missing cells).
func (c *Col) AppendNums(fs []float64) { c.num = append(c.num, fs...) }

// AppendStrs appends present strings to a string column.
func (c *Col) AppendStrs(ss []string) {
	c.str = append(c.str, ss...)
	for range ss {
		c.flag = append(c.flag, cell.Present)
	}
}

// alias swaps the column's buffers out for borrowed ones, to be given back
// by Reset.
func (c *Col) alias() {
	if !c.aliased {
		c.own.ts, c.own.num, c.own.str, c.own.flag = c.ts[:0], c.num[:0], c.str[:0], c.flag[:0]
		c.aliased = true
	}
}

// AliasTimes makes an empty time column hold ts without copying it. The
// column then shares ts's memory until [Col.Reset]; appending to it is not
// allowed meanwhile.
func (c *Col) AliasTimes(ts []int64) {
	c.alias()
	c.ts = ts[:len(ts):len(ts)]
}

// AliasNums makes an empty number column hold xs without copying it (NaN
// cells are missing), as [Col.AliasTimes] does.
func (c *Col) AliasNums(xs []float64) {
	c.alias()
	c.num = xs[:len(xs):len(xs)]
}

// AliasStrs makes an empty string column hold ss, every cell present,
// without copying it, as [Col.AliasTimes] does.
func (c *Col) AliasStrs(ss []string) {
	if len(c.ones) < len(ss) {
		c.ones = make([]uint8, max(len(ss), 2*len(c.ones)))
		for i := range c.ones {
			c.ones[i] = 1
		}
	}
	c.alias()
	c.str = ss[:len(ss):len(ss)]
	c.flag = c.ones[:len(ss):len(ss)]
}
