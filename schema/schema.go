package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors returned by this package. Use [errors.Is] to test for them; the
// typed errors [*SchemaError] and [*RowError] carry the details.
var (
	// ErrSchema reports a schema that cannot be built: no columns, a first
	// column that is not time or is optional, a time column after the
	// first, an empty or duplicate name, a name that is not valid UTF-8, an
	// unknown kind.
	ErrSchema = errors.New("schema: invalid schema")
	// ErrValidation reports data that does not fit a schema: a cell of the
	// wrong type, a missing required cell, a non-finite number, a row of
	// the wrong length, unsorted times.
	ErrValidation = errors.New("schema: invalid data")
)

// Column describes one column of a schema. Columns are required unless
// Optional is set (pond-ts's "required" defaults to true): a missing cell in
// a required column is a validation error.
type Column struct {
	Name     string
	Kind     Kind
	Optional bool
}

// Schema is an ordered, immutable list of columns. Column 0 is the time key;
// the others are value columns. Build one with [New]: a nil or zero
// *Schema has no time column and is not a schema. Functions that return
// an error refuse it with an error wrapping [ErrSchema]; [NewTable] and
// [NewBatch] panic. The methods that describe a schema ([Schema.Len],
// [Schema.Columns], [Schema.Index], [Schema.Names], [Schema.String]) read
// a zero Schema as one without columns and, like [Schema.Column], panic
// on a nil one; [Schema.Equal] takes either.
type Schema struct {
	cols  []Column
	index map[string]int
}

// SchemaError is the error [New] returns. It wraps [ErrSchema].
type SchemaError struct {
	Column int    // index of the offending column, -1 for the schema as a whole
	Name   string // its name, if it has one
	Reason string
}

// Error returns "schema: column <i> ("<name>"): <reason>", the name
// quoted as Go quotes a string (a bad name may be empty or not valid
// UTF-8), or "schema: <reason>" for the schema as a whole.
func (e *SchemaError) Error() string {
	if e.Column < 0 {
		return "schema: " + e.Reason
	}
	return fmt.Sprintf("schema: column %d (%q): %s", e.Column, e.Name, e.Reason)
}

// Unwrap returns [ErrSchema].
func (e *SchemaError) Unwrap() error { return ErrSchema }

// New builds a schema. The first column must be of kind [Time], and
// required (an Optional time column is an error), and no other column may
// be of kind Time; names must be non-empty, valid UTF-8 and distinct; kinds
// must be valid. Every error wraps [ErrSchema].
func New(cols ...Column) (*Schema, error) {
	if len(cols) == 0 {
		return nil, &SchemaError{Column: -1, Reason: "a schema needs at least one column"}
	}
	s := &Schema{cols: make([]Column, len(cols)), index: make(map[string]int, len(cols))}
	for i, c := range cols {
		switch {
		case c.Name == "":
			return nil, &SchemaError{Column: i, Reason: "empty column name"}
		case !utf8.ValidString(c.Name):
			// JSON (and pond-ts) cannot hold such a name: AppendJSON
			// would write it with U+FFFD, perhaps as another column's.
			return nil, &SchemaError{Column: i, Name: c.Name, Reason: "column name is not valid UTF-8"}
		case !c.Kind.valid():
			return nil, &SchemaError{Column: i, Name: c.Name, Reason: fmt.Sprintf("unknown kind %s", c.Kind)}
		case i == 0 && c.Kind != Time:
			return nil, &SchemaError{Column: 0, Name: c.Name, Reason: fmt.Sprintf("the first column must be of kind time, not %s", c.Kind)}
		case i > 0 && c.Kind == Time:
			return nil, &SchemaError{Column: i, Name: c.Name, Reason: "only the first column may be of kind time"}
		case i == 0 && c.Optional:
			return nil, &SchemaError{Column: 0, Name: c.Name, Reason: "the time column cannot be optional"}
		}
		if j, dup := s.index[c.Name]; dup {
			return nil, &SchemaError{Column: i, Name: c.Name, Reason: fmt.Sprintf("duplicate column name (also column %d)", j)}
		}
		s.index[c.Name] = i
		s.cols[i] = c
	}
	return s, nil
}

// unbuilt returns an error wrapping [ErrSchema] if s is nil or zero (not
// built with [New]), or nil.
func (s *Schema) unbuilt() error {
	if s == nil || len(s.cols) == 0 {
		return &SchemaError{Column: -1, Reason: "a nil or zero *Schema is not a schema (build one with New)"}
	}
	return nil
}

// mustBeBuilt panics, naming fn, if s is nil or zero: a programmer error.
func (s *Schema) mustBeBuilt(fn string) {
	if s == nil || len(s.cols) == 0 {
		panic("schema: " + fn + " of a nil or zero *Schema (build one with New)")
	}
}

// MustNew is like [New] but panics on error. It is meant for schemas written
// as literals in programs and tests.
func MustNew(cols ...Column) *Schema {
	s, err := New(cols...)
	if err != nil {
		panic(err)
	}
	return s
}

// Len returns the number of columns, the time column included.
func (s *Schema) Len() int { return len(s.cols) }

// Column returns column i. It panics if i is out of range.
func (s *Schema) Column(i int) Column { return s.cols[i] }

// Columns returns a copy of the columns.
func (s *Schema) Columns() []Column { return append([]Column(nil), s.cols...) }

// Index returns the position of the named column.
func (s *Schema) Index(name string) (int, bool) {
	i, ok := s.index[name]
	return i, ok
}

// Names returns the column names in order.
func (s *Schema) Names() []string {
	names := make([]string, len(s.cols))
	for i, c := range s.cols {
		names[i] = c.Name
	}
	return names
}

// Equal reports whether two schemas have the same columns in the same
// order. A nil and a zero Schema are equal: neither has columns.
func (s *Schema) Equal(o *Schema) bool {
	if s == o {
		return true
	}
	cols := func(x *Schema) []Column {
		if x == nil {
			return nil
		}
		return x.cols
	}
	if len(cols(s)) != len(cols(o)) {
		return false
	}
	if s == nil || o == nil {
		return true // both without columns
	}
	for i := range s.cols {
		if s.cols[i] != o.cols[i] {
			return false
		}
	}
	return true
}

// shownName is a column name as [Schema.String] and [Table.String] write
// it: as it is when it reads unambiguously there, else quoted as a Go
// string (a name may hold any UTF-8, a line break or the separators
// included, which would break a table's one row per line).
func shownName(name string) string {
	for _, r := range name {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || strings.ContainsRune(`"=:,?[]`, r) {
			return strconv.Quote(name)
		}
	}
	return name
}

// String renders the schema as "time:time, cpu:number, host:string?" (a
// question mark marks an optional column); a name that holds a space, a
// separator (one of "=:,?[]) or an unprintable character is quoted, as
// "\"cpu load\":number".
func (s *Schema) String() string {
	var b strings.Builder
	for i, c := range s.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(shownName(c.Name))
		b.WriteByte(':')
		b.WriteString(c.Kind.String())
		if c.Optional {
			b.WriteByte('?')
		}
	}
	return b.String()
}
