package schema

import (
	"iter"
	"strings"
	"time"

	"github.com/pond-go/pond/internal/column"
)

// Table is a columnar table of rows under a schema: one column per schema
// column, column 0 holding the times. Tables are what a series hands out:
// the rows a node produced in one push, or a snapshot of what a node holds.
//
// A Table returned inside a push's outputs is owned by the series and is
// valid until the next push; call [Table.Clone] to keep it. Read it by
// column reference ([Schema.Ref], [Table.Num], [Table.Str], [Table.Bool],
// [Table.AppendNums]), by name ([Table.Numbers], [Table.Strings]) or cell by
// cell ([Table.Value], [Table.Row]).
type Table struct {
	schema *Schema
	cols   []col
}

// NewTable returns an empty table for s. It panics if s is nil or zero
// (not built with [New]).
func NewTable(s *Schema) *Table {
	s.mustBeBuilt("NewTable")
	t := &Table{schema: s, cols: make([]col, s.Len())}
	for i := range t.cols {
		t.cols[i] = column.Make[Value](uint8(s.cols[i].Kind))
	}
	return t
}

// Schema returns the table's schema.
func (t *Table) Schema() *Schema { return t.schema }

// Len returns the number of rows.
func (t *Table) Len() int {
	if t == nil || len(t.cols) == 0 {
		return 0
	}
	return t.cols[0].Len()
}

// Times returns the time of every row in nanoseconds since the epoch. The
// slice aliases the table. A nil or zero Table has none (nil).
func (t *Table) Times() []int64 {
	if t == nil || len(t.cols) == 0 {
		return nil
	}
	return t.cols[0].Times()
}

// TimeNanos returns the time of row i in nanoseconds since the epoch.
func (t *Table) TimeNanos(i int) int64 { return t.cols[0].Time(i) }

// Time returns the time of row i.
func (t *Table) Time(i int) time.Time { return timeOf(t.cols[0].Time(i)) }

// Numbers returns the named number column without copying, NaN marking a
// missing cell, and false if there is no number column of that name. The
// slice aliases the table: read it, do not write to it (a series keeps
// the cells of the tables it hands out from one push to the next, and
// does not write again a missing cell it finds still missing).
func (t *Table) Numbers(name string) ([]float64, bool) {
	c := t.column(name)
	if c == nil || Kind(c.Kind()) != Number {
		return nil, false
	}
	return c.Numbers(), true
}

// Strings returns the named string column without copying ("" for a missing
// cell), and false if there is no string column of that name. The slice
// aliases the table: read it, do not write to it (a series keeps the cells
// of the tables it hands out from one push to the next, and does not write
// again the keys of a partitioned rolling's rows that it finds in place).
func (t *Table) Strings(name string) ([]string, bool) {
	c := t.column(name)
	if c == nil || Kind(c.Kind()) != String {
		return nil, false
	}
	return c.Strings(), true
}

// Value returns the cell at row i, column j. The elements of an array
// cell's Value are made for the call (reading one allocates), so that the
// Value stays as it is when the table is reused (a series' outputs are, at
// its next push). Read a series' samples of a number column, kept as
// float64s, in a loop with [Table.AppendNums], which allocates nothing.
func (t *Table) Value(i, j int) Value { return valueAt(&t.cols[j], i) }

// Row returns row i as a new [Row], its array cells made as
// [Table.Value] makes them.
func (t *Table) Row(i int) Row {
	r := make(Row, len(t.cols))
	for j := range t.cols {
		r[j] = valueAt(&t.cols[j], i)
	}
	return r
}

// All iterates over the rows in order. Each row is a new slice.
func (t *Table) All() iter.Seq2[int, Row] {
	return func(yield func(int, Row) bool) {
		for i := range t.Len() {
			if !yield(i, t.Row(i)) {
				return
			}
		}
	}
}

// AppendRowValues appends a row of values, one per column, the time first.
// Cells whose kind does not match the column are stored as missing; the
// result reports whether every cell fit. A row whose first cell is not a
// time (missing, or of another kind) is not appended at all, and the
// result is false: a time cell cannot be missing.
func (t *Table) AppendRowValues(r Row) bool {
	if len(r) == 0 || r[0].kind != Time {
		return false
	}
	ok := len(r) == len(t.cols)
	for j := range t.cols {
		if j < len(r) {
			if !appendValue(&t.cols[j], r[j]) && !r[j].IsMissing() {
				ok = false
			}
		} else {
			t.cols[j].AppendMissing()
		}
	}
	return ok
}

// Clone returns a deep copy of the table that the caller owns. The copy
// of a nil or zero Table is a zero Table.
func (t *Table) Clone() *Table {
	if t == nil || t.schema == nil {
		return &Table{}
	}
	c := NewTable(t.schema)
	for i := range t.Len() {
		for j := range c.cols {
			c.cols[j].AppendFrom(&t.cols[j], i)
		}
	}
	return c
}

// String renders the table one row per line, for tests and debugging:
// name=value pairs, string values and names that hold a space, a
// separator or an unprintable character quoted (see [Schema.String]).
func (t *Table) String() string {
	var b strings.Builder
	for i := range t.Len() {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j := range t.cols {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(shownName(t.schema.cols[j].Name))
			b.WriteByte('=')
			b.WriteString(valueAt(&t.cols[j], i).String())
		}
	}
	return b.String()
}

// Run is a run of consecutive rows of a table that share one time: rows
// [From, To).
type Run struct {
	Time     int64
	From, To int
}

// Len returns the number of rows in the run.
func (r Run) Len() int { return r.To - r.From }

// Runs iterates over the runs of consecutive rows with equal times, in
// order. For the output of a clock-triggered rolling each run is one
// boundary's frame: every partition's row for that tick.
func (t *Table) Runs() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		ts := t.Times()
		for i := 0; i < len(ts); {
			j := i + 1
			for j < len(ts) && ts[j] == ts[i] {
				j++
			}
			if !yield(Run{Time: ts[i], From: i, To: j}) {
				return
			}
			i = j
		}
	}
}

// column returns the named column, or nil if there is none.
func (t *Table) column(name string) *col {
	if t == nil || t.schema == nil {
		return nil // a nil or zero Table has no columns
	}
	i, ok := t.schema.Index(name)
	if !ok {
		return nil
	}
	return &t.cols[i]
}
