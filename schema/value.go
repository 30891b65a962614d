package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Value is one cell: a time, a number, a string, a boolean, an array of
// scalars, or missing. The zero Value is missing. Values are small and
// immutable; copy them freely. Arrays share their elements: do not modify
// the slice returned by [Value.Array].
type Value struct {
	ptr  unsafe.Pointer // String: the bytes; Array: the first element
	bits uint64         // Number: float64 bits; Time: int64 nanoseconds; Bool: 0 or 1; String, Array: the length
	kind Kind
}

// A Value is three words: strings and arrays are held by pointer and
// length, so that columns of values (array cells, rows) stay compact.

var emptyArray = []Value{}

func (v Value) str() string {
	if v.kind != String {
		return ""
	}
	return unsafe.String((*byte)(v.ptr), int(v.bits))
}

func (v Value) arr() []Value {
	if v.kind != Array {
		return nil
	}
	if v.bits == 0 {
		return emptyArray
	}
	return unsafe.Slice((*Value)(v.ptr), int(v.bits))
}

// Row is one row of values in schema order, the time first.
type Row []Value

// Missing returns the missing value (the zero Value).
func Missing() Value { return Value{} }

// NumberValue returns a number. Non-finite numbers are representable but are
// rejected by validation.
func NumberValue(f float64) Value { return Value{kind: Number, bits: math.Float64bits(f)} }

// StringValue returns a string.
func StringValue(s string) Value {
	return Value{kind: String, ptr: unsafe.Pointer(unsafe.StringData(s)), bits: uint64(len(s))}
}

// BoolValue returns a boolean.
func BoolValue(b bool) Value {
	v := Value{kind: Bool}
	if b {
		v.bits = 1
	}
	return v
}

// ArrayValue returns an array of the given scalars. The slice is kept, not
// copied. Elements that are not scalars are rejected by validation.
func ArrayValue(elems ...Value) Value {
	return Value{kind: Array, ptr: unsafe.Pointer(unsafe.SliceData(elems)), bits: uint64(len(elems))}
}

// TimeValue returns a time key. A time outside the years 1823 to 2116
// ([MinTime], [MaxTime]) gives a key that validation rejects
// ([TimeRange]).
func TimeValue(t time.Time) Value { return Value{kind: Time, bits: uint64(nanosOf(t))} }

// The times a series accepts, as time.Time.
var (
	minTime = time.Unix(0, MinTime)
	maxTime = time.Unix(0, MaxTime)
)

// nanosOf returns t in nanoseconds since the epoch, or, for a t outside
// [MinTime, MaxTime], the int64 bound on its side, which validation
// rejects ([TimeRange]). (t.UnixNano wraps around outside the years 1678
// to 2262, for some years into the range: 3000-01-01 to 1830-11-23.)
func nanosOf(t time.Time) int64 {
	// Seconds well inside the range take the one conversion UnixNano
	// makes, inlined; only a time near a bound or beyond compares as
	// time.Time (farNanos).
	if s := t.Unix(); s > MinTime/1_000_000_000 && s < MaxTime/1_000_000_000 {
		return s*1_000_000_000 + int64(t.Nanosecond())
	}
	return farNanos(t)
}

// farNanos is nanosOf for a time within a second of the range's bounds or
// beyond.
func farNanos(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return math.MinInt64
	case t.After(maxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// NanosValue returns a time key given in nanoseconds since the Unix epoch.
func NanosValue(ns int64) Value { return Value{kind: Time, bits: uint64(ns)} }

// MillisValue returns a time key given in milliseconds since the Unix epoch,
// the unit pond-ts uses. A time outside the years 1823 to 2116 gives a key
// that validation rejects ([TimeRange]), not one wrapped around into them.
func MillisValue(ms int64) Value {
	switch {
	case ms < MinTime/int64(time.Millisecond):
		return NanosValue(math.MinInt64)
	case ms > MaxTime/int64(time.Millisecond):
		return NanosValue(math.MaxInt64)
	}
	return NanosValue(ms * int64(time.Millisecond))
}

// Of converts a plain Go value: nil is missing; float64, float32, int,
// int32, int64, uint32 and uint64 are numbers; string; bool; time.Time is
// a time; []any and []Value are arrays (their elements converted the same
// way); a Value is returned as it is. Any other type (int8, uint, …) is an
// error wrapping [ErrValidation]. Numbers are float64: an integer beyond
// ±2^53 takes the nearest float64; a time outside the years 1823 to 2116
// gives a key validation rejects (see [TimeValue]). A []any that holds
// itself, at any depth, is an error wrapping [ErrValidation].
func Of(x any) (Value, error) { return of(x, nil) }

// of is [Of] for a value inside the arrays outer, the []any being
// converted around it: one of them met again is a cycle, which would
// recurse without end. (A []any is met again exactly when its elements
// and length are: a slice of it is another one.)
func of(x any, outer [][]any) (Value, error) {
	switch x := x.(type) {
	case nil:
		return Value{}, nil
	case Value:
		return x, nil
	case float64:
		return NumberValue(x), nil
	case float32:
		return NumberValue(float64(x)), nil
	case int:
		return NumberValue(float64(x)), nil
	case int64:
		return NumberValue(float64(x)), nil
	case int32:
		return NumberValue(float64(x)), nil
	case uint32:
		return NumberValue(float64(x)), nil
	case uint64:
		return NumberValue(float64(x)), nil
	case string:
		return StringValue(x), nil
	case bool:
		return BoolValue(x), nil
	case time.Time:
		return TimeValue(x), nil
	case []Value:
		return ArrayValue(x...), nil
	case []any:
		for _, o := range outer {
			if len(o) == len(x) && unsafe.SliceData(o) == unsafe.SliceData(x) {
				return Value{}, fmt.Errorf("%w: cannot convert a []any that holds itself", ErrValidation)
			}
		}
		elems := make([]Value, len(x))
		path := append(outer, x)
		for i, e := range x {
			v, err := of(e, path)
			if err != nil {
				return Value{}, err
			}
			elems[i] = v
		}
		return ArrayValue(elems...), nil
	}
	return Value{}, fmt.Errorf("%w: cannot convert %T to a value", ErrValidation, x)
}

// Kind returns the kind of the value, or 0 when it is missing.
func (v Value) Kind() Kind { return v.kind }

// IsMissing reports whether the value is missing.
func (v Value) IsMissing() bool { return v.kind == 0 }

// Num returns the number and true, or 0 and false if v is not a number.
func (v Value) Num() (float64, bool) {
	if v.kind != Number {
		return 0, false
	}
	return math.Float64frombits(v.bits), true
}

// Str returns the string and true, or "" and false if v is not a string.
func (v Value) Str() (string, bool) { return v.str(), v.kind == String }

// Bool returns the boolean and true, or false and false if v is not a boolean.
func (v Value) Bool() (bool, bool) { return v.bits == 1 && v.kind == Bool, v.kind == Bool }

// Array returns the elements and true, or nil and false if v is not an array.
func (v Value) Array() ([]Value, bool) { return v.arr(), v.kind == Array }

// Nanos returns the time in nanoseconds since the epoch and true, or 0 and
// false if v is not a time.
func (v Value) Nanos() (int64, bool) {
	if v.kind != Time {
		return 0, false
	}
	return int64(v.bits), true
}

// Time returns the time and true, or the zero time and false if v is not a
// time.
func (v Value) Time() (time.Time, bool) {
	ns, ok := v.Nanos()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, ns).UTC(), true
}

// Equal reports whether two values are the same: same kind and same
// contents (numbers by ==, so 0 equals -0; arrays element by element).
func (v Value) Equal(o Value) bool {
	if v.kind != o.kind {
		return false
	}
	switch v.kind {
	case Number:
		return math.Float64frombits(v.bits) == math.Float64frombits(o.bits)
	case String:
		return v.str() == o.str()
	case Array:
		a, b := v.arr(), o.arr()
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
		return true
	}
	return v.bits == o.bits
}

// Any returns the value as a plain Go value: nil, float64, string, bool,
// time.Time or []any.
func (v Value) Any() any {
	switch v.kind {
	case Number:
		return math.Float64frombits(v.bits)
	case String:
		return v.str()
	case Bool:
		return v.bits == 1
	case Time:
		t, _ := v.Time()
		return t
	case Array:
		out := make([]any, v.bits)
		for i, e := range v.arr() {
			out[i] = e.Any()
		}
		return out
	}
	return nil
}

// String renders the value for humans: numbers in the shortest form that
// round-trips, strings quoted, arrays in brackets, missing as "null", times
// in RFC 3339 with nanoseconds (a key made of a time outside [MinTime,
// MaxTime] as "(a time after 2116)" or "(a time before 1823)").
func (v Value) String() string {
	switch v.kind {
	case Number:
		return strconv.FormatFloat(math.Float64frombits(v.bits), 'g', -1, 64)
	case String:
		return strconv.Quote(v.str())
	case Bool:
		return strconv.FormatBool(v.bits == 1)
	case Time:
		// A key made of a time outside the range holds the bound on its
		// side, not the time: say which side rather than print a date
		// that was never given.
		switch ns := int64(v.bits); {
		case ns < MinTime:
			return "(a time before 1823)"
		case ns > MaxTime:
			return "(a time after 2116)"
		}
		t, _ := v.Time()
		return t.Format(time.RFC3339Nano)
	case Array:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range v.arr() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.String())
		}
		b.WriteByte(']')
		return b.String()
	}
	return "null"
}
