package schema

import (
	"fmt"

	"github.com/pond-go/pond/internal/column"
)

// Kind is the kind of a column: the key column is [Time]; value columns are
// [Number], [String], [Bool] or [Array] (an array of scalars).
type Kind uint8

// The column kinds. The zero Kind is not a valid column kind; a [Value] of
// kind zero is a missing value.
const (
	Time   Kind = column.Time
	Number Kind = column.Number
	String Kind = column.String
	Bool   Kind = column.Bool
	Array  Kind = column.Array
)

var kindNames = [...]string{
	Time:   "time",
	Number: "number",
	String: "string",
	Bool:   "boolean",
	Array:  "array",
}

// String returns the pond-ts name of the kind ("time", "number", "string",
// "boolean", "array"), or "invalid(n)" for anything else.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("invalid(%d)", uint8(k))
}

// valid reports whether k is one of the five column kinds.
func (k Kind) valid() bool { return k >= Time && k <= Array }

// ParseKind parses a pond-ts kind name ("time", "number", "string",
// "boolean", "array"). It returns an error wrapping [ErrSchema] for any other
// name.
func ParseKind(name string) (Kind, error) {
	for k, n := range kindNames {
		if n != "" && n == name {
			return Kind(k), nil
		}
	}
	return 0, &SchemaError{Column: -1, Name: name, Reason: fmt.Sprintf("unknown kind %q", name)}
}
