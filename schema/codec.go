package schema

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/pond-go/pond/internal/article"
)

// fieldKind is the Go type of a tagged field.
type fieldKind uint8

const (
	fTime  fieldKind = iota + 1 // time.Time
	fNanos                      // int64 nanoseconds (time column)
	fFloat64
	fFloat32
	fInt
	fInt8
	fInt16
	fInt32
	fInt64
	fUint
	fUint8
	fUint16
	fUint32
	fUint64
	fString
	fBool
	fFloats  // []float64 (array column)
	fStrings // []string (array column)
)

// typedField is one tagged field.
type typedField struct {
	name   string // column name
	goName string // field name, for errors
	off    uintptr
	kind   fieldKind
	ptr    bool // a pointer to the kind: nil is missing
	opt    bool // the "optional" option
	isTime bool
}

func (f *typedField) colKind() Kind {
	switch {
	case f.isTime:
		return Time
	case f.kind == fString:
		return String
	case f.kind == fBool:
		return Bool
	case f.kind == fFloats || f.kind == fStrings:
		return Array
	}
	return Number
}

// optional reports whether the field's column is optional in a derived
// schema: a pointer, the option "optional", or a slice (nil is missing).
func (f *typedField) optional() bool {
	return !f.isTime && (f.ptr || f.opt || f.kind == fFloats || f.kind == fStrings)
}

var timeType = reflect.TypeFor[time.Time]()

func kindOf(t reflect.Type) (fieldKind, bool) {
	if t == timeType {
		return fTime, true
	}
	switch t.Kind() {
	case reflect.Float64:
		return fFloat64, true
	case reflect.Float32:
		return fFloat32, true
	case reflect.Int:
		return fInt, true
	case reflect.Int8:
		return fInt8, true
	case reflect.Int16:
		return fInt16, true
	case reflect.Int32:
		return fInt32, true
	case reflect.Int64:
		return fInt64, true
	case reflect.Uint:
		return fUint, true
	case reflect.Uint8:
		return fUint8, true
	case reflect.Uint16:
		return fUint16, true
	case reflect.Uint32:
		return fUint32, true
	case reflect.Uint64:
		return fUint64, true
	case reflect.String:
		return fString, true
	case reflect.Bool:
		return fBool, true
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.Float64:
			return fFloats, true
		case reflect.String:
			return fStrings, true
		}
	}
	return 0, false
}

// fieldsOf reads the tagged fields of struct type t (embedded structs
// included), in field order, with the time field first.
func fieldsOf(t reflect.Type) ([]typedField, error) {
	if t.Kind() != reflect.Struct {
		return nil, codecErr(t.String(), "a row type must be a struct")
	}
	var fields []typedField
	var walk func(t reflect.Type, base uintptr) error
	walk = func(t reflect.Type, base uintptr) error {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag, tagged := sf.Tag.Lookup("pond")
			if !tagged {
				switch {
				case !sf.Anonymous:
				case sf.Type.Kind() == reflect.Struct && sf.Type != timeType:
					if err := walk(sf.Type, base+sf.Offset); err != nil {
						return err
					}
				case sf.Type.Kind() == reflect.Pointer && hasColumns(sf.Type.Elem(), nil):
					return codecErr(sf.Name, fmt.Sprintf("an embedded pointer (%s) cannot hold columns; embed the struct itself", sf.Type))
				}
				continue
			}
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = sf.Name
			}
			f := typedField{name: name, goName: sf.Name, off: base + sf.Offset}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "":
				case "time":
					f.isTime = true
				case "optional":
					f.opt = true
				default:
					return codecErr(sf.Name, fmt.Sprintf("unknown tag option %q (time, optional)", o))
				}
			}
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				f.ptr = true
				ft = ft.Elem()
			}
			k, ok := kindOf(ft)
			if !ok {
				return codecErr(sf.Name, fmt.Sprintf("unsupported field type %s", sf.Type))
			}
			f.kind = k
			switch {
			case !sf.IsExported():
				return codecErr(sf.Name, "a tagged field must be exported")
			case f.ptr && (f.isTime || k == fTime):
				// A *time.Time field would otherwise become the time
				// field below and be read as a time.Time.
				return codecErr(sf.Name, fmt.Sprintf("the time field cannot be a pointer (%s)", sf.Type))
			case f.isTime && k != fTime && k != fInt64:
				return codecErr(sf.Name, fmt.Sprintf("a time field is a time.Time or an int64 of nanoseconds, not %s", sf.Type))
			case (f.isTime || k == fTime) && f.opt:
				// A time.Time field is the time field whatever its tag.
				return codecErr(sf.Name, "the time field cannot be optional")
			case !f.isTime && k == fTime:
				f.isTime = true
			case f.opt && f.ptr:
				return codecErr(sf.Name, "a pointer field is optional already; drop the option")
			case (k == fFloats || k == fStrings) && (f.ptr || f.opt):
				return codecErr(sf.Name, "a slice field is optional already (nil is missing); drop the pointer or the option")
			case f.opt && k != fFloat64 && k != fFloat32 && k != fString:
				return codecErr(sf.Name, fmt.Sprintf("option optional needs a float or string field (use a pointer for %s)", sf.Type))
			}
			if f.isTime && k == fInt64 {
				f.kind = fNanos
			}
			fields = append(fields, f)
		}
		return nil
	}
	if err := walk(t, 0); err != nil {
		return nil, err
	}
	ti := -1
	for i, f := range fields {
		if !f.isTime {
			continue
		}
		if ti >= 0 {
			return nil, codecErr(f.goName, fmt.Sprintf("a second time field (the first is %s): a tagged time.Time field is always the time field, as is one with the option time; make the other an int64 value field without the option, or skip it with `pond:\"-\"`", fields[ti].goName))
		}
		ti = i
	}
	if ti < 0 {
		return nil, codecErr(t.String(), "no time field: tag a time.Time or int64 field with `pond:\"time,time\"`")
	}
	tf := fields[ti]
	fields = append(fields[:ti], fields[ti+1:]...)
	return append([]typedField{tf}, fields...), nil
}

// hasColumns reports whether the struct type t has a tagged field, or
// embeds a struct (or a pointer to one) that has; seen holds the struct
// types looked at already, for types that embed pointers to each other.
func hasColumns(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t.Kind() != reflect.Struct || t == timeType || seen[t] {
		return false
	}
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	seen[t] = true
	for i := range t.NumField() {
		sf := t.Field(i)
		if tag, tagged := sf.Tag.Lookup("pond"); tagged {
			if tag != "-" {
				return true
			}
			continue
		}
		if et := sf.Type; sf.Anonymous {
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if hasColumns(et, seen) {
				return true
			}
		}
	}
	return false
}

// For derives a schema from the tagged fields of the struct type T
// (see [Codec]). Errors wrap [ErrSchema].
func For[T any]() (*Schema, error) {
	fields, err := fieldsOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	cols := make([]Column, len(fields))
	for i, f := range fields {
		cols[i] = Column{Name: f.name, Kind: f.colKind(), Optional: f.optional()}
	}
	s, err := New(cols...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Codec encodes slices of a struct type T into columnar batches of a
// schema, and decodes tables into slices of T. Build it once with
// [NewCodec]; it reflects over T then, and never per row. A Codec is not
// safe for concurrent use.
//
// The struct tags: a struct type stands for a row, and its fields tagged
// `pond:"name"` are columns:
//
//	type Metric struct {
//		At   time.Time `pond:"time"`
//		CPU  float64   `pond:"cpu"`
//		Mem  *float64  `pond:"mem"`           // optional: nil is missing
//		Host string    `pond:"host"`
//		Tag  string    `pond:"tag,optional"`  // optional: "" is missing
//	}
//
// The time column is the field tagged with the option "time"
// (`pond:"ts,time"`), or else the one field of type [time.Time]; it is a
// time.Time or an int64 of nanoseconds since the epoch, never a pointer
// (a *time.Time field is an error). A row has one time: a tagged
// time.Time field is always the time field, so a second one, or one
// beside a field with the option time, is an error (keep another time
// as an int64 value field). Value fields are
// float64, float32, any integer type (number columns), string or bool, or
// a pointer to one of those for an optional column (nil is missing), or a
// []float64 or []string for an array column such as a samples reducer's
// output (an optional column: nil is missing). The
// option "optional" makes a float column optional with NaN as missing, a
// string column with "" as missing. Untagged fields and fields tagged
// "-" are not columns; embedded structs contribute their fields (an
// embedded pointer to a struct with tagged fields is an error: embed the
// struct itself). Columns come in field order, the time first.
//
// A tag is the column name, then options after commas: `pond:"name"`,
// `pond:"name,time"`, `pond:"name,optional"`; an empty name takes the
// field's name (`pond:",optional"`), and `pond:"-"` skips the field.
// Reflection runs once, when a Codec is built; encoding and decoding then
// read and write fields at fixed offsets, a column at a time.
type Codec[T any] struct {
	sch    *Schema
	fields []typedField // in schema column order
	miss   [][]bool     // per column: a spare buffer of missing flags, held by no batch

	// decoding: the table schema last seen and where each field reads
	decSch  *Schema
	decCols []int
	decRefs []Ref // array fields' columns
}

// NewCodec returns a codec of T for the schema sch, or for the schema
// derived from T ([For]) when sch is nil; [Codec] gives the tag
// grammar. With a schema, every
// column needs a tagged field of that name and a fitting type (the time
// field for column 0, a number, string or bool field for the others, and a
// []float64 or []string field for an array column), and
// every tagged field a column; an optional field for a required column is
// allowed (a missing value fails its push). Errors wrap [ErrSchema]; a
// zero sch is one.
func NewCodec[T any](sch *Schema) (*Codec[T], error) {
	fields, err := fieldsOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	if sch == nil {
		if sch, err = For[T](); err != nil {
			return nil, err
		}
	} else if err := sch.unbuilt(); err != nil {
		return nil, err // a zero Schema
	}
	byName := map[string]int{}
	for i, f := range fields {
		if _, dup := byName[f.name]; dup {
			return nil, codecErr(f.goName, fmt.Sprintf("two fields for column %q", f.name))
		}
		byName[f.name] = i
	}
	c := &Codec[T]{sch: sch, fields: make([]typedField, sch.Len()), miss: make([][]bool, sch.Len())}
	for j := range sch.Len() {
		col := sch.Column(j)
		i, ok := byName[col.Name]
		if j == 0 {
			i, ok = 0, true
		}
		if !ok {
			return nil, codecErr(col.Name, fmt.Sprintf("no field for column %q", col.Name))
		}
		f := fields[i]
		if f.colKind() != col.Kind {
			return nil, codecErr(f.goName, fmt.Sprintf("%s field cannot hold column %q of kind %s", article.A(f.colKind().String()), col.Name, col.Kind))
		}
		c.fields[j] = f
		delete(byName, f.name)
	}
	for name, i := range byName {
		if i != 0 {
			return nil, codecErr(fields[i].goName, fmt.Sprintf("no column %q in the schema", name))
		}
	}
	return c, nil
}

// Encode fills dst (emptied first, and shaped for the codec's schema; a
// new batch when nil) with rows, a column at a time, and returns it. It does not validate: pushing the
// batch does. The batch's cells are its own: encoding into another batch
// leaves them as they are. Number columns are float64: an integer field beyond ±2^53
// takes the nearest float64, as any conversion to float64 does.
func (c *Codec[T]) Encode(dst *Batch, rows []T) *Batch {
	n := len(rows)
	if dst == nil {
		dst = NewBatch(c.sch, n)
	}
	if len(dst.Cols) != len(c.fields)-1 {
		// The zero Batch, or one of another schema: its columns are
		// emptied below in any case.
		dst.Cols = slices.Grow(dst.Cols[:0], len(c.fields)-1)[:len(c.fields)-1]
	}
	// Every cell is written below, so the batch is emptied without
	// clearing, except string cells past the new rows, which would keep
	// old strings alive.
	dst.Time = dst.Time[:0]
	for j := range dst.Cols {
		v := &dst.Cols[j]
		if len(v.Str) > n {
			clear(v.Str[n:])
		}
		v.Num, v.Str, v.Bool, v.Arr = v.Num[:0], v.Str[:0], v.Bool[:0], v.Arr[:0]
	}
	var zero T
	size := unsafe.Sizeof(zero)
	var base unsafe.Pointer
	if n > 0 {
		base = unsafe.Pointer(unsafe.SliceData(rows))
	}
	dst.Time = encTime(dst.Time, &c.fields[0], base, n, size)
	for j := 1; j < len(c.fields); j++ {
		f := &c.fields[j]
		v := &dst.Cols[j-1]
		// The flags are the batch's own: its buffer, else the codec's
		// spare, which the batch keeps while it has a missing cell and
		// which comes back when it has none, so that no two batches
		// share flags and a steady push allocates none.
		miss, owned := v.Missing[:0], v.Missing != nil
		if !owned {
			miss = c.miss[j][:0]
		}
		some := false
		switch f.kind {
		case fString:
			v.Str, miss, some = encStr(v.Str, miss, f, base, n, size)
		case fBool:
			v.Bool, miss, some = encBool(v.Bool, miss, f, base, n, size)
		case fFloats, fStrings:
			v.Arr, miss, some = encArray(v.Arr, miss, f, base, n, size)
		default:
			v.Num, miss, some = encNumber(v.Num, miss, f, base, n, size)
		}
		if some {
			v.Missing = miss
			if !owned {
				c.miss[j] = nil
			}
		} else {
			v.Missing, c.miss[j] = nil, miss
		}
	}
	return dst
}

// encArray encodes a []float64 or []string field into array cells, nil
// as missing. Each present cell is a new []Value: array columns
// are for outputs (samples) more than inputs, and this is the one
// encoding that allocates per row.
func encArray(dst [][]Value, miss []bool, f *typedField, base unsafe.Pointer, n int, size uintptr) ([][]Value, []bool, bool) {
	dst, out := grow(dst, n)
	miss, flags := grow(miss, n)
	some := false
	for i := range n {
		p := at(base, i, size, f.off)
		var cell []Value
		if f.kind == fFloats {
			if xs := *(*[]float64)(p); xs != nil {
				cell = make([]Value, len(xs))
				for k, x := range xs {
					cell[k] = NumberValue(x)
				}
			}
		} else if ss := *(*[]string)(p); ss != nil {
			cell = make([]Value, len(ss))
			for k, x := range ss {
				cell[k] = StringValue(x)
			}
		}
		out[i], flags[i] = cell, cell == nil
		some = some || cell == nil
	}
	return dst, miss, some
}

func at(base unsafe.Pointer, i int, size, off uintptr) unsafe.Pointer {
	return unsafe.Add(base, uintptr(i)*size+off)
}

// grow returns s resliced to n more elements (reallocated if needed) and
// the new tail.
func grow[E any](s []E, n int) ([]E, []E) {
	k := len(s)
	s = slices.Grow(s, n)[:k+n]
	return s, s[k:]
}

func encTime(dst []int64, f *typedField, base unsafe.Pointer, n int, size uintptr) []int64 {
	dst, out := grow(dst, n)
	if f.kind == fNanos {
		for i := range out {
			out[i] = *(*int64)(at(base, i, size, f.off))
		}
		return dst
	}
	for i := range out {
		// nanosOf, written out: a call a row cost the typed push a
		// quarter of its rows a second.
		t := (*time.Time)(at(base, i, size, f.off))
		if s := t.Unix(); s > MinTime/1_000_000_000 && s < MaxTime/1_000_000_000 {
			out[i] = s*1_000_000_000 + int64(t.Nanosecond())
		} else {
			out[i] = farNanos(*t)
		}
	}
	return dst
}

func encStr(dst []string, miss []bool, f *typedField, base unsafe.Pointer, n int, size uintptr) ([]string, []bool, bool) {
	dst, out := grow(dst, n)
	if !f.ptr && !f.opt {
		for i := range out {
			// Rewriting the same string (a host name in the same slot
			// push after push) is skipped: a pointer write costs a write
			// barrier while the collector runs.
			if s := *(*string)(at(base, i, size, f.off)); !sameString(out[i], s) {
				out[i] = s
			}
		}
		return dst, miss, false
	}
	miss, flags := grow(miss, n)
	some := false
	for i := range out {
		p := at(base, i, size, f.off)
		var s string
		m := false
		if f.ptr {
			if sp := *(**string)(p); sp != nil {
				s = *sp
			} else {
				m = true
			}
		} else {
			s = *(*string)(p)
			m = s == ""
		}
		out[i], flags[i] = s, m
		some = some || m
	}
	return dst, miss, some
}

func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

func encBool(dst []bool, miss []bool, f *typedField, base unsafe.Pointer, n int, size uintptr) ([]bool, []bool, bool) {
	dst, out := grow(dst, n)
	if !f.ptr {
		for i := range out {
			out[i] = *(*bool)(at(base, i, size, f.off))
		}
		return dst, miss, false
	}
	miss, flags := grow(miss, n)
	some := false
	for i := range out {
		bp := *(**bool)(at(base, i, size, f.off))
		if bp != nil {
			out[i], flags[i] = *bp, false
		} else {
			out[i], flags[i] = false, true
			some = true
		}
	}
	return dst, miss, some
}

// number is the Go types of number fields.
type number interface {
	~float64 | ~float32 | ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func encNumber(dst []float64, miss []bool, f *typedField, base unsafe.Pointer, n int, size uintptr) ([]float64, []bool, bool) {
	switch f.kind {
	case fFloat64:
		return encNum[float64](dst, miss, f, base, n, size)
	case fFloat32:
		return encNum[float32](dst, miss, f, base, n, size)
	case fInt:
		return encNum[int](dst, miss, f, base, n, size)
	case fInt8:
		return encNum[int8](dst, miss, f, base, n, size)
	case fInt16:
		return encNum[int16](dst, miss, f, base, n, size)
	case fInt32:
		return encNum[int32](dst, miss, f, base, n, size)
	case fInt64:
		return encNum[int64](dst, miss, f, base, n, size)
	case fUint:
		return encNum[uint](dst, miss, f, base, n, size)
	case fUint8:
		return encNum[uint8](dst, miss, f, base, n, size)
	case fUint16:
		return encNum[uint16](dst, miss, f, base, n, size)
	case fUint32:
		return encNum[uint32](dst, miss, f, base, n, size)
	default:
		return encNum[uint64](dst, miss, f, base, n, size)
	}
}

func encNum[N number](dst []float64, miss []bool, f *typedField, base unsafe.Pointer, n int, size uintptr) ([]float64, []bool, bool) {
	dst, out := grow(dst, n)
	if !f.ptr && !f.opt {
		for i := range out {
			out[i] = float64(*(*N)(at(base, i, size, f.off)))
		}
		return dst, miss, false
	}
	miss, flags := grow(miss, n)
	some := false
	for i := range out {
		x, m := math.NaN(), true
		if f.ptr {
			if p := *(**N)(at(base, i, size, f.off)); p != nil {
				x, m = float64(*p), false
			}
		} else {
			x = float64(*(*N)(at(base, i, size, f.off)))
			m = x != x
		}
		out[i], flags[i] = x, m
		some = some || m
	}
	return dst, miss, some
}

// Decode appends one T per row of tab to dst and returns it. Fields are
// matched to columns by name (the time field to column 0); a field whose
// column the table lacks keeps its zero value. A missing cell leaves a
// pointer field nil, and a float field NaN, other fields their zero
// value. A column whose kind its field cannot hold is an error wrapping
// [ErrSchema]. A number its field cannot hold exactly (a fraction or a
// value out of range for an integer field, a value beyond float32's range
// for a float32 field), or an array element of another kind than its
// slice field's (a string for a []float64), is a [*RowError] ([WrongType],
// naming the row, the column and the field) wrapping [ErrValidation], as
// encoding/json refuses 2.5 for an int; a float32 field otherwise takes
// the nearest float32. On either error dst is returned unchanged. A nil
// or zero tab has no rows.
func (c *Codec[T]) Decode(dst []T, tab *Table) ([]T, error) {
	if tab == nil || tab.schema == nil {
		return dst, nil
	}
	if tab.Schema() != c.decSch {
		if err := c.bind(tab.Schema()); err != nil {
			return dst, err
		}
	}
	if err := c.checkCells(tab); err != nil {
		return dst, err
	}
	n := tab.Len()
	first := len(dst)
	dst = slices.Grow(dst, n)[:first+n]
	clear(dst[first:])
	if n == 0 {
		return dst, nil
	}
	var zero T
	size := unsafe.Sizeof(zero)
	base := unsafe.Pointer(&dst[first])
	for k := range c.fields {
		f := &c.fields[k]
		j := c.decCols[k]
		if j < 0 {
			continue
		}
		col := &tab.cols[j]
		switch {
		case f.isTime:
			for i, t := range col.Times() {
				p := at(base, i, size, f.off)
				if f.kind == fNanos {
					*(*int64)(p) = t
				} else {
					*(*time.Time)(p) = time.Unix(0, t).UTC()
				}
			}
		case f.kind == fString:
			for i := range n {
				s, ok := col.Str(i)
				p := at(base, i, size, f.off)
				switch {
				case f.ptr && ok:
					*(**string)(p) = &s
				case !f.ptr:
					*(*string)(p) = s
				}
			}
		case f.kind == fBool:
			for i := range n {
				b, ok := col.Bool(i)
				p := at(base, i, size, f.off)
				switch {
				case f.ptr && ok:
					*(**bool)(p) = &b
				case !f.ptr:
					*(*bool)(p) = b
				}
			}
		case f.kind == fFloats:
			for i := range n {
				if xs, ok := tab.AppendNums(nil, c.decRefs[k], i); ok {
					if xs == nil {
						xs = []float64{}
					}
					*(*[]float64)(at(base, i, size, f.off)) = xs
				}
			}
		case f.kind == fStrings:
			for i := range n {
				if ss, ok := tab.AppendStrs(nil, c.decRefs[k], i); ok {
					if ss == nil {
						ss = []string{}
					}
					*(*[]string)(at(base, i, size, f.off)) = ss
				}
			}
		default:
			decNumber(f, col.Numbers(), base, size)
		}
	}
	return dst, nil
}

// checkCells returns a [*RowError] for the first cell of tab, column by
// column, that its field cannot hold, or nil: a number its field (of a
// type narrower than float64) cannot hold, or an array element of
// another kind than its slice field's ([]float64 or []string).
func (c *Codec[T]) checkCells(tab *Table) error {
	for k := range c.fields {
		f := &c.fields[k]
		j := c.decCols[k]
		if j < 0 || f.isTime {
			continue
		}
		col := &tab.cols[j]
		switch {
		case f.kind == fFloats || f.kind == fStrings:
			if i, e, bad := f.kind.strayElement(col, tab.Len()); bad {
				return tab.schema.rowErr(i, j, WrongType,
					fmt.Sprintf("an element %s does not fit field %s of type %s", e, f.goName, f.kind))
			}
		case f.colKind() != Number || f.kind == fFloat64:
		default:
			for i, x := range col.Numbers() {
				if x != x || f.kind.holds(x) {
					continue // missing, or fits
				}
				return tab.schema.rowErr(i, j, WrongType,
					fmt.Sprintf("%v does not fit field %s of type %s", x, f.goName, f.kind))
			}
		}
	}
	return nil
}

// strayElement returns the first row of the n of the array column col
// with an element that a field of kind k ([]float64 or []string) cannot
// hold, that element's kind and value for the message, and whether there
// is one.
func (k fieldKind) strayElement(col *col, n int) (row int, elem string, found bool) {
	want := Number
	if k == fStrings {
		want = String
	}
	for i := range n {
		if !col.Wide() {
			// Numbers only.
			if xs, _ := col.Nums(i); want != Number && len(xs) > 0 {
				return i, fmt.Sprintf("%v (number)", xs[0]), true
			}
			continue
		}
		elems, _ := col.Array(i)
		for _, e := range elems {
			if e.Kind() != want {
				return i, fmt.Sprintf("%v (%s)", e, e.Kind()), true
			}
		}
	}
	return 0, "", false
}

// holds reports whether a number field of kind k holds x (not NaN)
// exactly, or for float32 as a finite float32.
func (k fieldKind) holds(x float64) bool {
	if k == fFloat32 {
		return !math.IsInf(float64(float32(x)), 0)
	}
	if x != math.Trunc(x) {
		return false // a fraction, or ±Inf
	}
	lo, hi := k.intRange()
	return x >= lo && x < hi
}

// intRange returns the range [lo, hi) of the integer field kind k as
// float64s: each bound is a power of two, so exact.
func (k fieldKind) intRange() (lo, hi float64) {
	bits, signed := 64, true
	switch k {
	case fInt8:
		bits = 8
	case fInt16:
		bits = 16
	case fInt32:
		bits = 32
	case fInt:
		bits = strconv.IntSize
	case fUint8:
		bits, signed = 8, false
	case fUint16:
		bits, signed = 16, false
	case fUint32:
		bits, signed = 32, false
	case fUint:
		bits, signed = strconv.IntSize, false
	case fUint64:
		signed = false
	}
	if signed {
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
	}
	return 0, math.Ldexp(1, bits)
}

// String returns the Go type of a field kind ("int8", "float32"…).
func (k fieldKind) String() string {
	if int(k) < len(fieldKindNames) && fieldKindNames[k] != "" {
		return fieldKindNames[k]
	}
	return fmt.Sprintf("fieldKind(%d)", uint8(k))
}

var fieldKindNames = [...]string{
	fTime: "time.Time", fNanos: "int64", fFloat64: "float64", fFloat32: "float32",
	fInt: "int", fInt8: "int8", fInt16: "int16", fInt32: "int32", fInt64: "int64",
	fUint: "uint", fUint8: "uint8", fUint16: "uint16", fUint32: "uint32", fUint64: "uint64",
	fString: "string", fBool: "bool", fFloats: "[]float64", fStrings: "[]string",
}

// bind maps the fields to the columns of a table
func (c *Codec[T]) bind(sch *Schema) error {
	cols := make([]int, len(c.fields))
	refs := make([]Ref, len(c.fields))
	for k := range c.fields {
		f := &c.fields[k]
		j, ok := sch.Index(f.name)
		if f.isTime {
			j, ok = 0, true
		}
		if !ok {
			cols[k] = -1
			continue
		}
		if want := f.colKind(); sch.Column(j).Kind != want {
			return codecErr(f.goName, fmt.Sprintf("%s field cannot hold column %q of kind %s", article.A(want.String()), f.name, sch.Column(j).Kind))
		}
		cols[k] = j
		if f.colKind() == Array {
			refs[k], _ = sch.Ref(f.name, Array) // the kind is checked above
		}
	}
	c.decSch, c.decCols, c.decRefs = sch, cols, refs
	return nil
}

func decNumber(f *typedField, nums []float64, base unsafe.Pointer, size uintptr) {
	switch f.kind {
	case fFloat64:
		decNum[float64](f, nums, base, size)
	case fFloat32:
		decNum[float32](f, nums, base, size)
	case fInt:
		decNum[int](f, nums, base, size)
	case fInt8:
		decNum[int8](f, nums, base, size)
	case fInt16:
		decNum[int16](f, nums, base, size)
	case fInt32:
		decNum[int32](f, nums, base, size)
	case fInt64:
		decNum[int64](f, nums, base, size)
	case fUint:
		decNum[uint](f, nums, base, size)
	case fUint8:
		decNum[uint8](f, nums, base, size)
	case fUint16:
		decNum[uint16](f, nums, base, size)
	case fUint32:
		decNum[uint32](f, nums, base, size)
	default:
		decNum[uint64](f, nums, base, size)
	}
}

func decNum[N number](f *typedField, nums []float64, base unsafe.Pointer, size uintptr) {
	float := f.kind == fFloat64 || f.kind == fFloat32
	for i, x := range nums {
		p := at(base, i, size, f.off)
		missing := x != x
		switch {
		case f.ptr:
			if !missing {
				v := N(x)
				*(**N)(p) = &v
			}
		case missing && !float:
		default:
			*(*N)(p) = N(x)
		}
	}
}

// codecErr is the error for a struct type a [Codec] cannot use: a
// [*SchemaError] wrapping [ErrSchema] that names the field or type.
func codecErr(field, reason string) error {
	return &SchemaError{Column: -1, Reason: field + ": " + reason}
}
