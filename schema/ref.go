package schema

import (
	"fmt"

	"github.com/pond-go/pond/internal/article"
)

// Ref is a column of a schema resolved once, by name and kind, so that a
// misspelt name or a wrong kind is an error when a pipeline is built
// rather than a surprise when its rows are read. Resolve it with
// [Schema.Ref] on the schema of the rows to read (a node's schema), then
// read cells with [Table.Num], [Table.Str], [Table.Bool],
// [Table.AppendNums] and [Table.AppendStrs]; row i is always a row index of
// the table, the same base as [Table.Time] and [Table.Value].
//
// The zero Ref is not a column; reading through it panics.
type Ref struct {
	col  int
	kind Kind
}

// Ref resolves the named column, which must be of kind k (for an array
// column such as a samples reducer's output, [Array]). An unknown name or
// another kind is a [*SchemaError] wrapping [ErrSchema], as is a nil or
// zero s.
func (s *Schema) Ref(name string, k Kind) (Ref, error) {
	if err := s.unbuilt(); err != nil {
		return Ref{}, err
	}
	i, ok := s.Index(name)
	if !ok {
		return Ref{}, &SchemaError{Column: -1, Reason: fmt.Sprintf("no column %q (columns: %s)", name, s.String())}
	}
	if got := s.cols[i].Kind; got != k {
		return Ref{}, &SchemaError{Column: i, Name: name, Reason: fmt.Sprintf("the column is of kind %s, not %s", got, k)}
	}
	return Ref{col: i, kind: k}, nil
}

// col returns the column r names, checking that it is of r's kind: a Ref
// resolved on another schema is a programmer error.
func (t *Table) col(r Ref, k Kind) *col {
	if r.kind != k || r.col >= len(t.cols) || Kind(t.cols[r.col].Kind()) != k {
		panic(fmt.Sprintf("schema: %s column reference used as %s on a table whose column %d is not one", article.A(r.kind.String()), k, r.col))
	}
	return &t.cols[r.col]
}

// Num returns row i of the number column r and whether it is present. It
// panics if r is not a number column of the table's schema.
func (t *Table) Num(r Ref, i int) (float64, bool) { return t.col(r, Number).Num(i) }

// Str returns row i of the string column r and whether it is present. It
// panics if r is not a string column of the table's schema.
func (t *Table) Str(r Ref, i int) (string, bool) { return t.col(r, String).Str(i) }

// Bool returns row i of the boolean column r and whether it is present.
// It panics if r is not a boolean column of the table's schema.
func (t *Table) Bool(r Ref, i int) (bool, bool) { return t.col(r, Bool).Bool(i) }

// AppendNums appends the number elements of row i of the array column r
// (a samples output, for instance) to dst and returns it with whether the
// cell is present. Elements that are not numbers are skipped. It panics if
// r is not an array column of the table's schema.
//
// It allocates nothing once dst has grown: the way to read samples in a
// loop (where [Table.Value] makes the elements of a cell of samples of a
// number column anew).
func (t *Table) AppendNums(dst []float64, r Ref, i int) ([]float64, bool) {
	c := t.col(r, Array)
	if !c.Wide() {
		xs, ok := c.Nums(i)
		return append(dst, xs...), ok
	}
	elems, ok := c.Array(i)
	for _, e := range elems {
		if x, isNum := e.Num(); isNum {
			dst = append(dst, x)
		}
	}
	return dst, ok
}

// AppendStrs appends the string elements of row i of the array column r to
// dst and returns it with whether the cell is present, as
// [Table.AppendNums] does for numbers.
func (t *Table) AppendStrs(dst []string, r Ref, i int) ([]string, bool) {
	c := t.col(r, Array)
	if !c.Wide() {
		// Numbers only.
		return dst, !c.IsMissing(i)
	}
	elems, ok := c.Array(i)
	for _, e := range elems {
		if s, isStr := e.Str(); isStr {
			dst = append(dst, s)
		}
	}
	return dst, ok
}
