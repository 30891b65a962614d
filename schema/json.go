package schema

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the table as a JSON array of rows to dst and returns
// it: one object per row, keyed by column name in schema order, as
// [Table.AppendJSONRow] writes them.
//
//	[{"time":1000,"cpu":0.5,"host":"a"},{"time":2000,"cpu":null,"host":"b"}]
//
// The JSON encoders write a table in the shape pond-ts's toJSON gives:
// times as epoch milliseconds, numbers in JavaScript's shortest round-trip
// form, strings and booleans as themselves, arrays as JSON arrays, and a
// missing cell or a non-finite number as null. They append to a caller's
// buffer and allocate nothing once it has grown.
//
// A time on a whole millisecond is written exactly, as an integer. Any
// other is written as a JavaScript number would hold it: the float64
// quotient of its nanoseconds (as a float64) by 1e6, in the shortest form
// that reads back as that float64. For current dates that float64 is a
// multiple of 2^-12 ms (about 244 ns), so the fraction is rounded to that
// step and may vanish: 1700000000000000001 ns is written as 1700000000000,
// 1700000000000123456 ns as 1700000000000.1233. This is what pond-ts,
// whose times are JavaScript numbers of milliseconds, can read and
// write; a time that must survive to the nanosecond needs another
// encoding.
func (t *Table) AppendJSON(dst []byte) []byte {
	dst = append(dst, '[')
	for i := range t.Len() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = t.AppendJSONRow(dst, i)
	}
	return append(dst, ']')
}

// AppendJSONRow appends row i as one JSON object keyed by column name to
// dst and returns it, its cells written as [Table.AppendJSON] says.
func (t *Table) AppendJSONRow(dst []byte, i int) []byte {
	dst = append(dst, '{')
	for j := range t.cols {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, t.schema.cols[j].Name)
		dst = append(dst, ':')
		dst = appendJSONCell(dst, &t.cols[j], i)
	}
	return append(dst, '}')
}

// AppendJSONColumns appends the table as one JSON object of columns to dst
// and returns it: each column name keys an array of that column's cells,
// written as [Table.AppendJSON] says.
//
//	{"time":[1000,2000],"cpu":[0.5,null],"host":["a","b"]}
func (t *Table) AppendJSONColumns(dst []byte) []byte {
	dst = append(dst, '{')
	if t == nil {
		return append(dst, '}') // no columns
	}
	n := t.Len()
	for j := range t.cols {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, t.schema.cols[j].Name)
		dst = append(dst, ':', '[')
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONCell(dst, &t.cols[j], i)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendJSONCell appends cell i of c as a JSON value.
func appendJSONCell(dst []byte, c *col, i int) []byte {
	switch Kind(c.Kind()) {
	case Time:
		return appendJSONMillis(dst, c.Time(i))
	case Number:
		return appendJSONNumber(dst, c.Numbers()[i])
	case String:
		if s, ok := c.Str(i); ok {
			return appendJSONString(dst, s)
		}
	case Bool:
		if b, ok := c.Bool(i); ok {
			if b {
				return append(dst, "true"...)
			}
			return append(dst, "false"...)
		}
	case Array:
		if c.IsMissing(i) {
			break
		}
		if !c.Wide() {
			xs, _ := c.Nums(i)
			return appendJSONNumbers(dst, xs)
		}
		elems, _ := c.Array(i)
		return appendJSONArray(dst, elems)
	}
	return append(dst, "null"...)
}

// appendJSONNumbers appends an array cell kept as numbers, as
// appendJSONArray writes the same elements as values.
func appendJSONNumbers(dst []byte, xs []float64) []byte {
	dst = append(dst, '[')
	for k, x := range xs {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONNumber(dst, x)
	}
	return append(dst, ']')
}

func appendJSONArray(dst []byte, elems []Value) []byte {
	dst = append(dst, '[')
	for k, v := range elems {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONValue(dst, v)
	}
	return append(dst, ']')
}

func appendJSONValue(dst []byte, v Value) []byte {
	switch v.kind {
	case Time:
		return appendJSONMillis(dst, int64(v.bits))
	case Number:
		return appendJSONNumber(dst, math.Float64frombits(v.bits))
	case String:
		return appendJSONString(dst, v.str())
	case Bool:
		if v.bits == 1 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Array:
		return appendJSONArray(dst, v.arr())
	}
	return append(dst, "null"...)
}

// appendJSONMillis appends a time in nanoseconds as epoch milliseconds:
// an integer for a whole millisecond, else the nearest float64 (see the
// package's JSON comment above).
func appendJSONMillis(dst []byte, ns int64) []byte {
	const ms = 1_000_000
	if ns%ms == 0 {
		return strconv.AppendInt(dst, ns/ms, 10)
	}
	return appendJSONNumber(dst, float64(ns)/ms)
}

// appendJSONNumber appends f as JavaScript writes it (what encoding/json
// writes for a float64), or null for NaN and ±Inf.
func appendJSONNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0') // -0 too, as JavaScript writes it
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// JavaScript writes e-7, not e-07.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD, and U+2028
// and U+2029 escaped as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
