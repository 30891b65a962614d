// Package table gives the engines the columns of a schema.Table, which the
// public API keeps to itself: a user reads a table through its typed
// accessors, the code that builds tables appends to its columns here.
package table

import (
	"unsafe"

	"github.com/pond-go/pond/internal/column"
	"github.com/pond-go/pond/schema"
)

// Col is one column of a schema.Table.
type Col = column.Col[schema.Value]

// Column returns column j of t (0 is the time column). It panics if j is out
// of range.
func Column(t *schema.Table, j int) *Col { return &cols(t)[j] }

// Columns returns the columns of t (0 is the time column): for code that
// reads several columns of one table.
func Columns(t *schema.Table) []Col { return cols(t) }

// cols returns the columns of t.
func cols(t *schema.Table) []Col {
	return *(*[]Col)(unsafe.Add(unsafe.Pointer(t), column.ColsOffset))
}

// Reset empties t and keeps its capacity.
func Reset(t *schema.Table) { column.ResetAll(cols(t)) }

// Empty reports whether t holds no row and borrows no memory, so that
// [Reset] would leave it as it is. A table's columns hold as many cells as
// its time column (column 0), which is the one looked at.
func Empty(t *schema.Table) bool {
	return cols(t)[0].EmptyTimes()
}

// AppendFrom appends row i of src to dst, whose schema must have the same
// column kinds in the same order.
func AppendFrom(dst, src *schema.Table, i int) {
	d, s := cols(dst), cols(src)
	for j := range d {
		d[j].AppendFrom(&s[j], i)
	}
}

// AppendRowInto appends the cells of row i of t to dst, for a reader that
// reuses its row from call to call: the elements of array cells kept as
// numbers are made in elems (grown and returned) instead of in memory of
// their own, so that reading rows allocates nothing once elems has grown.
// The row's arrays are valid until elems is reused.
func AppendRowInto(dst schema.Row, elems []schema.Value, t *schema.Table, i int) (schema.Row, []schema.Value) {
	cs := cols(t)
	for j := range cs {
		c := &cs[j]
		if c.Kind() != column.Array {
			dst = append(dst, Value(c, i))
			continue
		}
		a, grown, ok := c.ArrayInto(elems, i)
		elems = grown
		v := schema.Missing()
		if ok {
			v = schema.ArrayValue(a...)
		}
		dst = append(dst, v)
	}
	return dst, elems
}

// NewCol returns an empty column of kind k, for code that builds cells
// outside a table.
func NewCol(k schema.Kind) *Col {
	c := column.Make[schema.Value](uint8(k))
	return &c
}

// Kind returns the column's kind.
func Kind(c *Col) schema.Kind { return schema.Kind(c.Kind()) }

// AppendValue appends v to c. A missing value, or a value whose kind does
// not match the column's, appends a missing cell and reports false (true
// for a missing value); a non-finite number appends a missing cell and
// reports false.
func AppendValue(c *Col, v schema.Value) bool {
	k := uint8(v.Kind())
	switch v.Kind() {
	case schema.Time:
		ns, _ := v.Nanos()
		return c.AppendCell(k, 0, ns, "", false, nil)
	case schema.Number:
		f, _ := v.Num()
		return c.AppendCell(k, f, 0, "", false, nil)
	case schema.String:
		s, _ := v.Str()
		if c.Kind() == column.String {
			c.AppendStr(s) // a partition's key, once per row emitted
			return true
		}
		return c.AppendCell(k, 0, 0, s, false, nil)
	case schema.Bool:
		b, _ := v.Bool()
		return c.AppendCell(k, 0, 0, "", b, nil)
	case schema.Array:
		elems, _ := v.Array()
		return c.AppendCell(k, 0, 0, "", false, elems)
	}
	return c.AppendCell(k, 0, 0, "", false, nil)
}

// Value returns cell i of c as a schema.Value.
func Value(c *Col, i int) schema.Value {
	switch c.Kind() {
	case column.Time:
		return schema.NanosValue(c.Time(i))
	case column.Number:
		if f, ok := c.Num(i); ok {
			return schema.NumberValue(f)
		}
	case column.String:
		if s, ok := c.Str(i); ok {
			return schema.StringValue(s)
		}
	case column.Bool:
		if b, ok := c.Bool(i); ok {
			return schema.BoolValue(b)
		}
	case column.Array:
		if elems, ok := c.Array(i); ok {
			return schema.ArrayValue(elems...)
		}
	}
	return schema.Missing()
}

// AppendRange appends rows [from, to) of src to dst; the two tables must
// have the same schema.
func AppendRange(dst, src *schema.Table, from, to int) {
	for j := range src.Schema().Len() {
		Column(dst, j).AppendRange(Column(src, j), from, to)
	}
}

// AppendAll appends every row of src to dst; the two tables must have the
// same schema.
func AppendAll(dst, src *schema.Table) {
	for j := range src.Schema().Len() {
		Column(dst, j).AppendAll(Column(src, j))
	}
}

// Reserve makes room in dst, empty, for rows [from, to) of src, whose
// schema must have the same column kinds in the same order, so that
// appending as many rows later grows none of its columns (see
// [column.Col.Reserve]).
func Reserve(dst, src *schema.Table, from, to int) {
	for j := range src.Schema().Len() {
		Column(dst, j).Reserve(Column(src, j), from, to)
	}
}

// Empties returns n empty tables of schema s, reusing (and emptying)
// those of ts.
func Empties(ts []*schema.Table, n int, s *schema.Schema) []*schema.Table {
	for len(ts) < n {
		ts = append(ts, nil)
	}
	ts = ts[:n]
	for i, t := range ts {
		if t == nil || t.Schema() != s {
			ts[i] = schema.NewTable(s)
		} else {
			Reset(t)
		}
	}
	return ts
}

// Widen appends to t a row whose array cells each hold a string, so that
// its array columns keep their elements as values until t is reset (see
// [column.Col.Wide]), and reports whether every array column is now
// wide. Tests use it to run the engines' writers against both forms of
// an array column.
func Widen(t *schema.Table) bool {
	row := make(schema.Row, t.Schema().Len())
	row[0] = schema.NanosValue(0)
	for j := 1; j < len(row); j++ {
		if t.Schema().Column(j).Kind == schema.Array {
			row[j] = schema.ArrayValue(schema.StringValue("w"))
		}
	}
	if !t.AppendRowValues(row) {
		return false
	}
	for j := range row {
		if c := Column(t, j); Kind(c) == schema.Array && !c.Wide() {
			return false
		}
	}
	return true
}
