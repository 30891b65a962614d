package reducers

import (
	"cmp"
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/pond-go/pond/schema"
)

// key is a value as a map key: numbers by their bits with −0 folded into 0
// (so keys compare like JavaScript's SameValueZero), strings by content,
// booleans as 0 or 1, and arrays (for keep) by an encoding of their
// elements, so two arrays are one key exactly when [schema.Value.Equal]
// holds.
type key struct {
	kind schema.Kind
	bits uint64
	str  string
}

// scalarKey returns the key of a scalar, or false for anything that is not
// a finite number, a string or a boolean.
func scalarKey(v schema.Value) (key, bool) {
	switch v.Kind() {
	case schema.Number:
		f, _ := v.Num()
		if !finite(f) {
			return key{}, false
		}
		return key{kind: schema.Number, bits: math.Float64bits(f + 0)}, true // f + 0 folds −0 into 0
	case schema.String:
		s, _ := v.Str()
		return key{kind: schema.String, str: s}, true
	case schema.Bool:
		b, _ := v.Bool()
		k := key{kind: schema.Bool}
		if b {
			k.bits = 1
		}
		return k, true
	}
	return key{}, false
}

// valueKey returns the key of a defined value of any kind (keep), or false.
func valueKey(v schema.Value) (key, bool) {
	elems, ok := v.Array()
	if !ok {
		if !defined(v) {
			return key{}, false
		}
		return scalarKey(v)
	}
	// kind byte, then 8 bytes of number bits or a length-prefixed string.
	b := make([]byte, 0, 9*len(elems))
	for _, e := range elems {
		b = append(b, byte(e.Kind()))
		switch e.Kind() {
		case schema.Number:
			f, _ := e.Num()
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f+0))
		case schema.String:
			s, _ := e.Str()
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		case schema.Bool:
			t, _ := e.Bool()
			if t {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		default:
			b = append(b, e.String()...) // not a scalar: not produced by validated data
		}
	}
	return key{kind: schema.Array, str: string(b)}, true
}

// value returns the scalar a key stands for.
func (k key) value() schema.Value {
	switch k.kind {
	case schema.Number:
		return schema.NumberValue(math.Float64frombits(k.bits))
	case schema.String:
		return schema.StringValue(k.str)
	case schema.Bool:
		return schema.BoolValue(k.bits == 1)
	}
	return schema.Value{}
}

// compareKeys orders scalars as pond-ts does for unique and top: numbers
// ascending, then strings by UTF-16 code units, then false before true.
func compareKeys(a, b key) int {
	if a.kind != b.kind {
		return cmp.Compare(a.kind, b.kind) // Number < String < Bool
	}
	switch a.kind {
	case schema.Number:
		return cmp.Compare(math.Float64frombits(a.bits), math.Float64frombits(b.bits))
	case schema.String:
		return compareUTF16(a.str, b.str)
	}
	return cmp.Compare(a.bits, b.bits)
}

// compareUTF16 compares two strings as JavaScript does: by their UTF-16 code
// units. This is Go's byte order except where a character above U+FFFF
// (a surrogate pair in UTF-16, D800–DBFF first) meets one in U+E000–U+FFFF:
// JavaScript puts the former first. Invalid UTF-8 bytes count as U+FFFD, one
// each, as a conversion to UTF-16 would make them.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	// Back up to the start of the character the first difference is in.
	for i > 0 && (i < len(a) && !utf8.RuneStart(a[i]) || i < len(b) && !utf8.RuneStart(b[i])) {
		i--
	}
	ia, ib := i, i
	for ia < len(a) && ib < len(b) {
		ra, wa := utf8.DecodeRuneInString(a[ia:])
		rb, wb := utf8.DecodeRuneInString(b[ib:])
		if ra != rb {
			return cmp.Compare(utf16Order(ra), utf16Order(rb))
		}
		ia += wa
		ib += wb
	}
	if c := cmp.Compare(len(a)-ia, len(b)-ib); c != 0 {
		return c
	}
	return cmp.Compare(a, b) // invalid bytes that read alike: fall back to bytes
}

// utf16Order maps a code point to a number that sorts as its UTF-16 encoding
// does: characters above U+FFFF (encoded from D800) between U+D7FF and
// U+E000.
func utf16Order(r rune) rune {
	if r >= 0xE000 && r <= 0xFFFF {
		return r + 0x110000
	}
	return r
}
