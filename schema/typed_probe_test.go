package schema_test

// The typed probes: the tag grammar of For and NewCodec on adversarial
// struct types (embedding, named types, name clashes, unicode, quotes),
// round trips of random rows of a wide struct through Encode, a table
// and Decode, Decode's refusals leaving dst as it was, AppendRows'
// refusals leaving the batch as it was, and the JSON encoders' structure
// (key order, names that need escaping, arrays of mixed kinds) against a
// model written from the docs. Every identifier here starts with ty42.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
)

// Named types: a field's kind is its underlying type's.
type (
	ty42Celsius float64
	ty42Label   string
	ty42Flag    bool
	ty42Count   uint16
	ty42Floats  []float64
	ty42Strings []string
)

type ty42Inner struct {
	Host ty42Label `pond:"host"`
	Zone string    `pond:"zone,optional"`
}

// ty42hidden is unexported, its fields exported: embedded, they are
// columns as encoding/json would make them fields.
type ty42hidden struct {
	Deep ty42Count `pond:"deep"`
}

type ty42Middle struct {
	ty42hidden
	Mid *int8 `pond:"mid"`
}

// ty42Wide has a column of every field kind, embedded structs at two
// depths, named types, pointers, optional floats and strings, arrays,
// unicode and escaped names, and fields that are not columns.
type ty42Wide struct {
	ty42Inner
	At   time.Time   `pond:"ts,time"`
	Temp ty42Celsius `pond:"温度"`
	F32  float32     `pond:"f32,optional"`
	I    int         `pond:"i"`
	I8   int8        `pond:"i8"`
	I16  int16       `pond:"i16"`
	I32  int32       `pond:"i32"`
	I64  int64       `pond:"i64"`
	U    uint        `pond:"u"`
	U8   uint8       `pond:"u8"`
	U32  uint32      `pond:"u32"`
	U64  uint64      `pond:"u64"`
	PU64 *uint64     `pond:"pu64"`
	PF   *float64    `pond:"pf"`
	Q    string      `pond:"q\"\\"`
	PS   *string     `pond:"ps"`
	Up   ty42Flag    `pond:"up"`
	PB   *bool       `pond:"pb"`
	Xs   ty42Floats  `pond:"xs"`
	Ss   ty42Strings `pond:"ss"`
	ty42Middle
	Skip  float64 `pond:"-"`
	Plain int
	priv  float64
}

const ty42WideSchema = "ts:time, host:string, zone:string?, 温度:number, f32:number?, i:number, i8:number, i16:number, i32:number, i64:number, u:number, u8:number, u32:number, u64:number, pu64:number?, pf:number?, \"q\\\"\\\\\":string, ps:string?, up:boolean, pb:boolean?, xs:array?, ss:array?, deep:number, mid:number?"

// ty42Case is a struct type the tag grammar is tried on: the schema For
// derives, or "" when it must refuse the type.
type ty42Case struct {
	name string
	for_ func() (*schema.Schema, error)
	nc   func() error
	want string
}

func ty42CaseOf[T any](name, want string) ty42Case {
	return ty42Case{
		name: name,
		for_: schema.For[T],
		nc: func() error {
			_, err := schema.NewCodec[T](nil)
			return err
		},
		want: want,
	}
}

type (
	ty42DupEmbedded struct {
		At time.Time `pond:"time"`
		ty42Inner
		Other string `pond:"host"`
	}
	ty42TimeNameClash struct {
		At time.Time `pond:"x"`
		X  float64   `pond:"x"`
	}
	ty42EmbeddedTime struct {
		time.Time         // untagged: not a column
		N         int64   `pond:"ts,time"`
		X         float64 `pond:"x"`
	}
	ty42Names struct {
		At time.Time `pond:""`
		V  float64   `pond:",optional"`
		D  float64   `pond:"-,"`
		S  string    `pond:" spaced name "`
		E  float64   `pond:"emoji😀"`
	}
	ty42BadName struct {
		At time.Time `pond:"\xff"`
	}
	ty42SpaceOption struct {
		At time.Time `pond:"time"`
		V  float64   `pond:"v, optional"`
	}
	ty42TimeOnString struct {
		S string `pond:"s,time"`
	}
	ty42TwoTimes struct {
		At time.Time `pond:"at"`
		N  int64     `pond:"ts,time"`
	}
	ty42DashedTime struct {
		At time.Time `pond:"-"`
		N  int64     `pond:"ts,time"`
	}
	ty42PtrPtr struct {
		At time.Time `pond:"time"`
		P  **float64 `pond:"p"`
	}
	ty42Float32s struct {
		At time.Time `pond:"time"`
		P  []float32 `pond:"p"`
	}
	ty42GoArray struct {
		At time.Time  `pond:"time"`
		P  [3]float64 `pond:"p"`
	}
	ty42PtrSlice struct {
		At time.Time  `pond:"time"`
		P  *[]float64 `pond:"p"`
	}
	ty42Iface struct {
		At time.Time `pond:"time"`
		P  any       `pond:"p"`
	}
	ty42Uintptr struct {
		At time.Time `pond:"time"`
		P  uintptr   `pond:"p"`
	}
	ty42OptBool struct {
		At time.Time `pond:"time"`
		P  bool      `pond:"p,optional"`
	}
	ty42OnlyTime struct {
		At int64 `pond:"t,time"`
	}
	ty42TaggedStruct struct {
		At time.Time `pond:"time"`
		In ty42Inner `pond:"in"`
	}
	ty42NoColumnsPtr struct {
		At time.Time `pond:"time"`
		*strings.Builder
	}
)

func TestTy42ForTagGrammar(t *testing.T) {
	cases := []ty42Case{
		ty42CaseOf[ty42Wide]("wide", ty42WideSchema),
		ty42CaseOf[ty42DupEmbedded]("a name twice through embedding", ""),
		ty42CaseOf[ty42TimeNameClash]("the time's name on a value", ""),
		ty42CaseOf[ty42EmbeddedTime]("an untagged embedded time.Time", "ts:time, x:number"),
		ty42CaseOf[ty42Names]("names", "At:time, V:number?, -:number, \" spaced name \":string, emoji😀:number"),
		ty42CaseOf[ty42BadName]("a name not UTF-8", ""),
		ty42CaseOf[ty42SpaceOption]("an option with a space", ""),
		ty42CaseOf[ty42TimeOnString]("the time option on a string", ""),
		ty42CaseOf[ty42TwoTimes]("a time.Time beside a time option", ""),
		ty42CaseOf[ty42DashedTime]("a skipped time.Time", "ts:time"),
		ty42CaseOf[ty42PtrPtr]("a pointer to a pointer", ""),
		ty42CaseOf[ty42Float32s]("a []float32", ""),
		ty42CaseOf[ty42GoArray]("a Go array", ""),
		ty42CaseOf[ty42PtrSlice]("a pointer to a slice", ""),
		ty42CaseOf[ty42Iface]("an interface", ""),
		ty42CaseOf[ty42Uintptr]("a uintptr", ""),
		ty42CaseOf[ty42OptBool]("an optional bool", ""),
		ty42CaseOf[ty42OnlyTime]("only a time", "t:time"),
		ty42CaseOf[ty42TaggedStruct]("a tagged struct field", ""),
		ty42CaseOf[ty42NoColumnsPtr]("an embedded pointer without columns", "time:time"),
		ty42CaseOf[*ty42Wide]("a pointer type", ""),
		ty42CaseOf[[]ty42Wide]("a slice type", ""),
		ty42CaseOf[map[string]float64]("a map type", ""),
	}
	for _, c := range cases {
		s, err := c.for_()
		cerr := c.nc()
		if c.want == "" {
			require.Error(t, err, c.name)
			require.ErrorIs(t, err, schema.ErrSchema, c.name)
			var se *schema.SchemaError
			require.ErrorAs(t, err, &se, c.name)
			require.Error(t, cerr, c.name)
			require.ErrorIs(t, cerr, schema.ErrSchema, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		require.NoError(t, cerr, c.name)
		require.Equal(t, c.want, s.String(), c.name)
	}
}

// ty42RandWide returns a random row of ty42Wide whose every number a
// float64 holds exactly (so that it comes back as it went in), at time
// ns.
func ty42RandWide(r *rand.Rand, ns int64) ty42Wide {
	exact := func(lo, hi int64) int64 { return lo + r.Int64N(hi-lo+1) }
	pick := func(xs ...int64) int64 { return xs[r.IntN(len(xs))] }
	w := ty42Wide{
		At:    time.Unix(0, ns),
		Temp:  ty42Celsius(ty42Number(r)),
		I:     int(pick(exact(-1<<53, 1<<53), math.MinInt64, math.MaxInt64-1023, 0)),
		I8:    int8(exact(math.MinInt8, math.MaxInt8)),
		I16:   int16(exact(math.MinInt16, math.MaxInt16)),
		I32:   int32(exact(math.MinInt32, math.MaxInt32)),
		I64:   pick(exact(-1<<53, 1<<53), math.MinInt64, math.MaxInt64-1023, -1),
		U:     uint(exact(0, 1<<53)),
		U8:    uint8(exact(0, math.MaxUint8)),
		U32:   uint32(exact(0, math.MaxUint32)),
		U64:   uint64(exact(0, 1<<53)) << uint(r.IntN(11)),
		Q:     ty42String(r),
		Up:    ty42Flag(r.IntN(2) == 0),
		Plain: r.IntN(9) + 1, Skip: 1, priv: 2,
	}
	w.Host = ty42Label(ty42String(r))
	if r.IntN(2) == 0 {
		w.Zone = ty42String(r) // "" is missing
	}
	w.Deep = ty42Count(r.IntN(1 << 16))
	if r.IntN(2) == 0 {
		x := int8(exact(math.MinInt8, math.MaxInt8))
		w.Mid = &x
	}
	switch r.IntN(3) {
	case 0:
		w.F32 = float32(math.NaN()) // missing
	case 1:
		w.F32 = float32(ty42Number(r))
		if math.IsInf(float64(w.F32), 0) {
			w.F32 = math.MaxFloat32
		}
	case 2:
		w.F32 = math.SmallestNonzeroFloat32
	}
	if r.IntN(2) == 0 {
		x := uint64(math.MaxUint64 - 2047) // the largest float64 below 2^64
		if r.IntN(2) == 0 {
			x = uint64(r.Int64N(1 << 53))
		}
		w.PU64 = &x
	}
	if r.IntN(2) == 0 {
		x := ty42Number(r)
		w.PF = &x
	}
	if r.IntN(2) == 0 {
		s := ty42String(r)
		w.PS = &s
	}
	if r.IntN(2) == 0 {
		b := r.IntN(2) == 0
		w.PB = &b
	}
	switch r.IntN(3) {
	case 0:
		w.Xs = ty42Floats{}
	case 1:
		for range r.IntN(5) + 1 {
			w.Xs = append(w.Xs, ty42Number(r))
		}
	}
	switch r.IntN(3) {
	case 0:
		w.Ss = ty42Strings{}
	case 1:
		for range r.IntN(4) + 1 {
			w.Ss = append(w.Ss, ty42String(r))
		}
	}
	return w
}

// ty42Number returns a finite number, often one at an edge.
func ty42Number(r *rand.Rand) float64 {
	switch r.IntN(12) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.MaxFloat64 * float64(1-2*r.IntN(2))
	case 2:
		return math.SmallestNonzeroFloat64
	case 3:
		return 1 << 53
	case 4:
		return 1<<53 + 2
	case 5:
		return 1e308
	case 6:
		return 1e21
	case 7:
		return 1e-7
	case 8:
		return float64(r.IntN(2000)-1000) / 16
	}
	for {
		if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

// ty42String returns a string, often an awkward one: empty, quotes and
// control characters, U+2028, invalid UTF-8, unicode, long.
func ty42String(r *rand.Rand) string {
	switch r.IntN(12) {
	case 0:
		return ""
	case 1:
		return "\"\\\n\r\t\b\f\x00\x1f"
	case 2:
		return "\u2028\u2029"
	case 3:
		return "bad\xffutf8\xc3"
	case 4:
		return "温度😀é"
	case 5:
		return strings.Repeat("long-", 2000+r.IntN(100))
	case 6:
		return "<script>&amp;</script>"
	case 7:
		return "\ufffd"
	case 8:
		return "\xed\xa0\x80" // a surrogate half
	}
	return "host-" + strconv.Itoa(r.IntN(50))
}

// ty42Same compares two ty42Wide rows field by field: times by Equal,
// numbers bit for bit (so -0 stays -0) except NaN, which is any NaN,
// and the fields that are not columns are not compared.
func ty42Same(t *testing.T, want, got ty42Wide, what string) {
	t.Helper()
	require.True(t, want.At.Equal(got.At), "%s: time %v, want %v", what, got.At, want.At)
	bits := func(name string, w, g float64) {
		t.Helper()
		if math.IsNaN(w) && math.IsNaN(g) {
			return
		}
		require.Equal(t, math.Float64bits(w), math.Float64bits(g), "%s: %s = %v, want %v", what, name, g, w)
	}
	bits("温度", float64(want.Temp), float64(got.Temp))
	bits("f32", float64(want.F32), float64(got.F32))
	require.Equal(t, []any{want.I, want.I8, want.I16, want.I32, want.I64, want.U, want.U8, want.U32, want.U64, want.Deep},
		[]any{got.I, got.I8, got.I16, got.I32, got.I64, got.U, got.U8, got.U32, got.U64, got.Deep}, what)
	require.Equal(t, want.PU64, got.PU64, what)
	require.Equal(t, want.Mid, got.Mid, what)
	require.Equal(t, want.PF == nil, got.PF == nil, what)
	if want.PF != nil {
		bits("pf", *want.PF, *got.PF)
	}
	require.Equal(t, []any{want.Host, want.Zone, want.Q, want.PS, want.Up, want.PB},
		[]any{got.Host, got.Zone, got.Q, got.PS, got.Up, got.PB}, what)
	require.Equal(t, want.Xs == nil, got.Xs == nil, "%s: xs %#v, want %#v", what, got.Xs, want.Xs)
	require.Equal(t, len(want.Xs), len(got.Xs), what)
	for k := range want.Xs {
		bits("xs", want.Xs[k], got.Xs[k])
	}
	require.Equal(t, want.Ss == nil, got.Ss == nil, "%s: ss %#v, want %#v", what, got.Ss, want.Ss)
	require.Equal(t, len(want.Ss), len(got.Ss), what)
	for k := range want.Ss {
		require.Equal(t, want.Ss[k], got.Ss[k], what)
	}
}

// ty42Table turns a batch into a table through Table.AppendRowValues,
// reading the batch as its doc says (Cols[j-1] is column j, a Missing
// flag marks a missing cell).
func ty42Table(t *testing.T, s *schema.Schema, b *schema.Batch) *schema.Table {
	t.Helper()
	tab := schema.NewTable(s)
	for i := range b.Len() {
		row := schema.Row{schema.NanosValue(b.Time[i])}
		for j := 1; j < s.Len(); j++ {
			v := &b.Cols[j-1]
			var c schema.Value
			switch {
			case v.Missing != nil && v.Missing[i]:
			case s.Column(j).Kind == schema.Number:
				c = schema.NumberValue(v.Num[i])
			case s.Column(j).Kind == schema.String:
				c = schema.StringValue(v.Str[i])
			case s.Column(j).Kind == schema.Bool:
				c = schema.BoolValue(v.Bool[i])
			default:
				c = schema.ArrayValue(v.Arr[i]...)
			}
			row = append(row, c)
		}
		require.True(t, tab.AppendRowValues(row), "row %d does not fit: %v", i, row)
	}
	return tab
}

func TestTy42CodecRoundTripsAWideStruct(t *testing.T) {
	s, err := schema.For[ty42Wide]()
	require.NoError(t, err)
	require.Equal(t, ty42WideSchema, s.String())
	c, err := schema.NewCodec[ty42Wide](s)
	require.NoError(t, err)
	// The codec built on the derived schema and the one that derives it
	// are the same codec.
	c2, err := schema.NewCodec[ty42Wide](nil)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(42, 1))
	var b, b2 *schema.Batch
	prefix := []ty42Wide{{Plain: -1}}
	for iter := range 150 {
		n := r.IntN(6)
		in := make([]ty42Wide, n)
		ns := schema.MinTime + r.Int64N(1<<62)*int64(1+r.IntN(2))
		if r.IntN(8) == 0 {
			ns = schema.MinTime
		}
		for k := range in {
			ns += r.Int64N(1e9)
			ns = min(ns, schema.MaxTime)
			in[k] = ty42RandWide(r, ns)
		}
		b = c.Encode(b, in)
		b2 = c2.Encode(b2, in)
		what := fmt.Sprintf("iter %d", iter)
		require.NoError(t, s.Validate(b, true), what)
		require.Equal(t, b.Len(), n, what)
		tab := ty42Table(t, s, b)
		require.Equal(t, tab.String(), ty42Table(t, s, b2).String(), what)
		out, err := c.Decode(prefix, tab)
		require.NoError(t, err, what)
		require.Len(t, out, n+1, what)
		require.Equal(t, -1, out[0].Plain, "%s: Decode changed what dst held", what)
		for k := range in {
			require.Zero(t, out[k+1].Plain, what)
			require.Zero(t, out[k+1].Skip, what)
			require.Zero(t, out[k+1].priv, what)
			ty42Same(t, in[k], out[k+1], fmt.Sprintf("%s row %d", what, k))
		}
		// Decoding again through the cloned table gives the same rows.
		again, err := c2.Decode(nil, tab.Clone())
		require.NoError(t, err, what)
		for k := range in {
			ty42Same(t, in[k], again[k], fmt.Sprintf("%s clone row %d", what, k))
		}
	}
}

// ty42Narrow reads a table of ty42Wide's schema into narrower fields:
// the numbers that do not fit make Decode refuse the table.
type ty42Narrow struct {
	At  int64    `pond:"ts,time"`
	I8  int8     `pond:"i8"`
	U32 uint32   `pond:"u32"`
	F32 float32  `pond:"f32"`
	I64 *int64   `pond:"温度"`
	Xs  []string `pond:"xs"`
	Up  *bool    `pond:"up"`
}

func TestTy42DecodeRefusalLeavesDstAsItWas(t *testing.T) {
	cols := []schema.Column{
		{Name: "ts", Kind: schema.Time},
		{Name: "i8", Kind: schema.Number, Optional: true},
		{Name: "u32", Kind: schema.Number, Optional: true},
		{Name: "f32", Kind: schema.Number, Optional: true},
		{Name: "温度", Kind: schema.Number, Optional: true},
		{Name: "xs", Kind: schema.Array, Optional: true},
		{Name: "up", Kind: schema.Bool, Optional: true},
	}
	s := schema.MustNew(cols...)
	c, err := schema.NewCodec[ty42Narrow](nil)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(42, 2))
	fits := map[string]func(float64) bool{
		"i8":  func(x float64) bool { return x == math.Trunc(x) && x >= -128 && x <= 127 },
		"u32": func(x float64) bool { return x == math.Trunc(x) && x >= 0 && x <= math.MaxUint32 },
		"f32": func(x float64) bool { return !math.IsInf(float64(float32(x)), 0) },
		"温度": func(x float64) bool {
			return x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63
		},
	}
	numbers := []float64{0, -1, 127, 128, -129, 2.5, math.MaxUint32, math.MaxUint32 + 1, -0.5, math.Copysign(0, -1),
		math.MaxFloat32, math.MaxFloat32 * 1.0000001, -(1 << 63), 1 << 63, 1e300, math.SmallestNonzeroFloat64}
	for iter := range 400 {
		tab := schema.NewTable(s)
		wantBad := false
		n := r.IntN(5)
		for i := range n {
			row := schema.Row{schema.NanosValue(int64(i))}
			for j := 1; j < s.Len(); j++ {
				name := cols[j].Name
				switch {
				case r.IntN(4) == 0:
					row = append(row, schema.Missing())
				case cols[j].Kind == schema.Number:
					x := numbers[r.IntN(len(numbers))]
					if r.IntN(3) > 0 {
						x = float64(r.IntN(100))
					}
					wantBad = wantBad || !fits[name](x)
					row = append(row, schema.NumberValue(x))
				case cols[j].Kind == schema.Array:
					var elems []schema.Value
					for range r.IntN(3) {
						if r.IntN(4) == 0 {
							elems = append(elems, schema.NumberValue(1))
							wantBad = true
						} else {
							elems = append(elems, schema.StringValue(ty42String(r)))
						}
					}
					row = append(row, schema.ArrayValue(elems...))
				default:
					row = append(row, schema.BoolValue(r.IntN(2) == 0))
				}
			}
			require.True(t, tab.AppendRowValues(row))
		}
		dst := make([]ty42Narrow, 1, 1+r.IntN(8))
		dst[0].I8 = 7
		spare := dst[:cap(dst)]
		for k := 1; k < len(spare); k++ {
			spare[k].U32 = 99
		}
		out, err := c.Decode(dst, tab)
		what := fmt.Sprintf("iter %d: %s", iter, tab)
		if !wantBad {
			require.NoError(t, err, what)
			require.Len(t, out, n+1, what)
			require.Equal(t, int8(7), out[0].I8, what)
			continue
		}
		require.Error(t, err, what)
		require.ErrorIs(t, err, schema.ErrValidation, what)
		var re *schema.RowError
		require.ErrorAs(t, err, &re, what)
		require.Equal(t, schema.WrongType, re.Reason, what)
		require.GreaterOrEqual(t, re.Row, 0, what)
		require.Less(t, re.Row, n, what)
		require.Equal(t, cols[re.Column].Name, re.Name, what)
		require.Len(t, out, 1, what)
		require.Equal(t, int8(7), out[0].I8, what)
		for k := 1; k < len(spare); k++ {
			require.Equal(t, uint32(99), spare[k].U32, "%s: Decode wrote past dst before refusing", what)
		}
	}
}

// ty42BadRow returns a row that AppendRows must refuse under s, and the
// reason.
func ty42BadRow(r *rand.Rand, s *schema.Schema, good schema.Row) (schema.Row, schema.Reason) {
	bad := append(schema.Row(nil), good...)
	j := 1 + r.IntN(s.Len()-1)
	switch r.IntN(8) {
	case 0:
		return bad[:len(bad)-1], schema.RowLength
	case 1:
		return append(bad, schema.NumberValue(1)), schema.RowLength
	case 2:
		bad[0] = schema.NanosValue([]int64{schema.MaxTime + 1, schema.MinTime - 1, math.MinInt64, math.MaxInt64}[r.IntN(4)])
		return bad, schema.TimeRange
	case 3:
		bad[0] = schema.NumberValue(1)
		return bad, schema.WrongType
	case 4:
		bad[0] = schema.Missing()
		return bad, schema.MissingRequired
	}
	switch s.Column(j).Kind {
	case schema.Number:
		bad[j] = schema.NumberValue([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)])
		return bad, schema.NonFinite
	case schema.Array:
		bad[j] = schema.ArrayValue(schema.NumberValue(1), []schema.Value{
			schema.NumberValue(math.NaN()), schema.Missing(), schema.NanosValue(5),
			schema.ArrayValue(), schema.NumberValue(math.Inf(-1)),
		}[r.IntN(5)])
		return bad, schema.BadElement
	}
	bad[j] = schema.TimeValue(time.Unix(1, 0))
	return bad, schema.WrongType
}

func TestTy42AppendRowsRefusalLeavesTheBatchAsItWas(t *testing.T) {
	s := schema.MustNew(
		schema.Column{Name: "t", Kind: schema.Time},
		schema.Column{Name: "n", Kind: schema.Number},
		schema.Column{Name: "s", Kind: schema.String, Optional: true},
		schema.Column{Name: "b", Kind: schema.Bool},
		schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	)
	r := rand.New(rand.NewPCG(42, 3))
	b := schema.NewBatch(s, 0)
	var model []schema.Row
	for iter := range 300 {
		var rows []schema.Row
		wantErr, wantRow := schema.Reason(0), -1
		for i := range r.IntN(4) {
			row := schema.Row{
				schema.NanosValue(r.Int64N(1 << 60)),
				schema.NumberValue(ty42Number(r)),
				schema.StringValue(ty42String(r)),
				schema.BoolValue(r.IntN(2) == 0),
				schema.ArrayValue(schema.NumberValue(ty42Number(r)), schema.StringValue(ty42String(r)), schema.BoolValue(true)),
			}
			if r.IntN(3) == 0 {
				row[2] = schema.Missing()
			}
			if r.IntN(3) == 0 {
				row[4] = schema.Missing()
			}
			if wantErr == 0 && r.IntN(6) == 0 {
				row, wantErr = ty42BadRow(r, s, row)
				wantRow = i
			}
			rows = append(rows, row)
		}
		before := fmt.Sprintf("%#v", *b)
		err := s.AppendRows(b, rows)
		what := fmt.Sprintf("iter %d: %v", iter, rows)
		if wantErr != 0 {
			require.ErrorIs(t, err, schema.ErrValidation, what)
			var re *schema.RowError
			require.ErrorAs(t, err, &re, what)
			require.Equal(t, wantErr, re.Reason, what)
			require.Equal(t, wantRow, re.Row, what)
			require.Equal(t, before, fmt.Sprintf("%#v", *b), "%s: a refused AppendRows changed the batch", what)
		} else {
			require.NoError(t, err, what)
			model = append(model, rows...)
		}
		// The batch holds the model's rows, cell for cell.
		tab := ty42Table(t, s, b)
		require.Equal(t, len(model), tab.Len(), what)
		for i, row := range model {
			for j := range row {
				require.True(t, row[j].Equal(tab.Value(i, j)), "%s: cell %d,%d = %v, want %v", what, i, j, tab.Value(i, j), row[j])
			}
		}
		if r.IntN(10) == 0 {
			b.Reset()
			model = model[:0]
		}
	}
}

// ty42JSONModel writes a cell as the docs say the encoders do: times as
// epoch milliseconds (whole ones as integers), numbers in JavaScript's
// form (rdrJSNumber, the readers probe's model), strings as themselves,
// booleans, arrays as arrays, a missing cell or a non-finite number as
// null. Strings are compared after decoding, so they come back as
// values here.
func ty42JSONModel(v schema.Value) any {
	switch v.Kind() {
	case schema.Time:
		ns, _ := v.Nanos()
		return json.Number(rdrJSTime(ns))
	case schema.Number:
		f, _ := v.Num()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return json.Number(rdrJSNumber(f))
	case schema.String:
		s, _ := v.Str()
		return ty42Sanitize(s)
	case schema.Bool:
		b, _ := v.Bool()
		return b
	case schema.Array:
		elems, _ := v.Array()
		out := []any{}
		for _, e := range elems {
			out = append(out, ty42JSONModel(e))
		}
		return out
	}
	return nil
}

// ty42Sanitize replaces each byte of s that is not part of valid UTF-8
// with U+FFFD, as encoding/json does.
func ty42Sanitize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// ty42ReadJSON reads one JSON value with its objects as ordered lists
// of key/value pairs, numbers as their text.
func ty42ReadJSON(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '[':
			out := []any{}
			for d.More() {
				v, err := ty42ReadJSON(d)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := d.Token()
			return out, err
		case '{':
			var out [][2]any
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := ty42ReadJSON(d)
				if err != nil {
					return nil, err
				}
				out = append(out, [2]any{k, v})
			}
			_, err := d.Token()
			return out, err
		}
	}
	return tok, nil
}

func ty42ParseJSON(t *testing.T, b []byte) any {
	t.Helper()
	require.True(t, json.Valid(b), "not JSON: %q", b)
	require.False(t, bytes.ContainsRune(b, '\u2028') || bytes.ContainsRune(b, '\u2029'), "a raw U+2028 or U+2029 in %q", b)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := ty42ReadJSON(d)
	require.NoError(t, err)
	_, err = d.Token()
	require.Error(t, err, "trailing data after the JSON value")
	return v
}

func TestTy42JSONWritesEveryCellInSchemaOrder(t *testing.T) {
	names := []string{"a", "温度", "\"q\"", "back\\slash", "nl\n", "\u2028", "<b>&", "😀", " ", "\x01", strings.Repeat("n", 300), "time"}
	kinds := []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array}
	r := rand.New(rand.NewPCG(42, 4))
	for iter := range 120 {
		perm := r.Perm(len(names))
		cols := []schema.Column{{Name: names[perm[0]], Kind: schema.Time}}
		for _, p := range perm[1 : 1+r.IntN(5)] {
			cols = append(cols, schema.Column{Name: names[p], Kind: kinds[r.IntN(len(kinds))], Optional: r.IntN(2) == 0})
		}
		s := schema.MustNew(cols...)
		tab := schema.NewTable(s)
		var rows []schema.Row
		for range r.IntN(5) {
			row := schema.Row{schema.NanosValue(schema.MinTime + r.Int64N(1<<62)*int64(1+r.IntN(2)))}
			fits := true // a non-finite number is stored as missing
			if r.IntN(5) == 0 {
				row[0] = schema.NanosValue([]int64{schema.MinTime, schema.MaxTime, 0, -1, -1_000_000, 1}[r.IntN(6)])
			}
			for _, c := range cols[1:] {
				var v schema.Value
				switch k := c.Kind; {
				case r.IntN(5) == 0:
				case k == schema.Number:
					v = schema.NumberValue(ty42Number(r))
					if r.IntN(10) == 0 {
						v = schema.NumberValue(math.Inf(1 - 2*r.IntN(2)))
						fits = false
					}
				case k == schema.String:
					v = schema.StringValue(ty42String(r))
				case k == schema.Bool:
					v = schema.BoolValue(r.IntN(2) == 0)
				default:
					var elems []schema.Value
					allNums := r.IntN(2) == 0
					for range r.IntN(4) {
						switch {
						case allNums || r.IntN(3) == 0:
							elems = append(elems, schema.NumberValue(ty42Number(r)))
						case r.IntN(2) == 0:
							elems = append(elems, schema.StringValue(ty42String(r)))
						default:
							elems = append(elems, schema.BoolValue(r.IntN(2) == 0))
						}
					}
					v = schema.ArrayValue(elems...)
				}
				row = append(row, v)
			}
			require.Equal(t, fits, tab.AppendRowValues(row), "%s: %v", s, row)
			rows = append(rows, row)
		}
		what := fmt.Sprintf("iter %d: %s", iter, s)
		// The model, by rows and by columns.
		var wantRows []any
		wantCols := make([][2]any, len(cols))
		for j, c := range cols {
			wantCols[j] = [2]any{c.Name, []any{}}
		}
		for _, row := range rows {
			var obj [][2]any
			for j, c := range cols {
				cell := ty42JSONModel(row[j])
				obj = append(obj, [2]any{c.Name, cell})
				wantCols[j][1] = append(wantCols[j][1].([]any), cell)
			}
			wantRows = append(wantRows, obj)
		}
		if wantRows == nil {
			wantRows = []any{}
		}
		prefix := []byte("prefix:")
		got := tab.AppendJSON(append([]byte(nil), prefix...))
		require.True(t, bytes.HasPrefix(got, prefix), what)
		require.Equal(t, wantRows, ty42ParseJSON(t, got[len(prefix):]), what)
		gotCols := tab.AppendJSONColumns(nil)
		var wantColsAny any = wantCols
		if len(cols) == 0 {
			wantColsAny = nil
		}
		require.Equal(t, wantColsAny, ty42ParseJSON(t, gotCols), what)
		// AppendJSON is its rows' AppendJSONRow, joined.
		var joined []byte
		joined = append(joined, '[')
		for i := range tab.Len() {
			if i > 0 {
				joined = append(joined, ',')
			}
			joined = tab.AppendJSONRow(joined, i)
		}
		joined = append(joined, ']')
		require.Equal(t, string(got[len(prefix):]), string(joined), what)
		// A clone writes the same bytes.
		require.Equal(t, string(got[len(prefix):]), string(tab.Clone().AppendJSON(nil)), what)
	}
}

// TestTy42JSONOfAWideStructReadsBackThroughEncodingJSON pushes wide rows
// through Encode and a table, writes the table as JSON and reads it with
// encoding/json into a struct shaped like pond-ts's rows: every value
// comes back (times as milliseconds, to the nearest float64).
func TestTy42JSONOfAWideStructReadsBackThroughEncodingJSON(t *testing.T) {
	s, err := schema.For[ty42Wide]()
	require.NoError(t, err)
	c, err := schema.NewCodec[ty42Wide](s)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(42, 5))
	for iter := range 60 {
		in := make([]ty42Wide, r.IntN(4))
		ns := r.Int64N(1 << 61)
		for k := range in {
			ns += r.Int64N(1e9)
			in[k] = ty42RandWide(r, ns)
		}
		tab := ty42Table(t, s, c.Encode(nil, in))
		var got []map[string]any
		d := json.NewDecoder(bytes.NewReader(tab.AppendJSON(nil)))
		d.UseNumber()
		require.NoError(t, d.Decode(&got))
		require.Len(t, got, len(in))
		for k, w := range in {
			what := fmt.Sprintf("iter %d row %d", iter, k)
			g := got[k]
			require.Len(t, g, s.Len(), what)
			num := func(name string) any {
				if g[name] == nil {
					return nil
				}
				f, err := strconv.ParseFloat(string(g[name].(json.Number)), 64)
				require.NoError(t, err, what)
				return f
			}
			ms := float64(w.At.UnixNano()) / 1e6
			if w.At.UnixNano()%1e6 == 0 {
				ms = float64(w.At.UnixNano() / 1e6)
			}
			require.Equal(t, ms, num("ts"), what)
			tf := float64(w.Temp)
			require.Equal(t, tf+0, num("温度"), what) // -0 is written as 0
			require.Equal(t, float64(w.I64), num("i64"), what)
			require.Equal(t, float64(w.U64), num("u64"), what)
			require.Equal(t, ty42Sanitize(string(w.Host)), g["host"], what)
			require.Equal(t, ty42Sanitize(w.Q), g["q\"\\"], what)
			if w.Zone == "" {
				require.Nil(t, g["zone"], what)
			} else {
				require.Equal(t, ty42Sanitize(w.Zone), g["zone"], what)
			}
			if math.IsNaN(float64(w.F32)) {
				require.Nil(t, g["f32"], what)
			} else {
				require.Equal(t, float64(w.F32)+0, num("f32"), what)
			}
			require.Equal(t, bool(w.Up), g["up"], what)
			if w.Xs == nil {
				require.Nil(t, g["xs"], what)
			} else {
				require.Len(t, g["xs"], len(w.Xs), what)
			}
			if w.Ss == nil {
				require.Nil(t, g["ss"], what)
			} else {
				xs := g["ss"].([]any)
				require.Len(t, xs, len(w.Ss), what)
				for e, x := range w.Ss {
					require.Equal(t, ty42Sanitize(x), xs[e], what)
				}
			}
		}
	}
}

// TestTy42NewCodecWithASchemaChecksEveryColumn builds codecs of ty42Wide
// for schemas that differ from the derived one by one change: a renamed,
// dropped, added or re-kinded column must be refused; a column made
// required or optional, or a time column of another name, is fine.
func TestTy42NewCodecWithASchemaChecksEveryColumn(t *testing.T) {
	base, err := schema.For[ty42Wide]()
	require.NoError(t, err)
	cols := base.Columns()
	try := func(what string, ok bool, cs []schema.Column) {
		t.Helper()
		s, err := schema.New(cs...)
		require.NoError(t, err, what)
		c, err := schema.NewCodec[ty42Wide](s)
		if !ok {
			require.ErrorIs(t, err, schema.ErrSchema, what)
			require.Nil(t, c, what)
			return
		}
		require.NoError(t, err, what)
		// Encode gives a batch of s's shape.
		b := c.Encode(nil, []ty42Wide{ty42RandWide(rand.New(rand.NewPCG(1, 1)), 5)})
		require.Len(t, b.Cols, s.Len()-1, what)
	}
	r := rand.New(rand.NewPCG(42, 6))
	for iter := range 200 {
		cs := append([]schema.Column(nil), cols...)
		j := 1 + r.IntN(len(cs)-1)
		what := fmt.Sprintf("iter %d column %q", iter, cs[j].Name)
		switch r.IntN(6) {
		case 0:
			cs[j].Name += "x"
			try(what+" renamed", false, cs)
		case 1:
			try(what+" dropped", false, append(cs[:j:j], cs[j+1:]...))
		case 2:
			try(what+" added", false, append(cs, schema.Column{Name: "extra", Kind: schema.Number}))
		case 3:
			k := []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array}[r.IntN(4)]
			ok := k == cs[j].Kind
			cs[j].Kind = k
			try(what+" re-kinded as "+k.String(), ok, cs)
		case 4:
			cs[j].Optional = !cs[j].Optional
			try(what+" optional flipped", true, cs)
		case 5:
			cs[0].Name = "another time"
			r.Shuffle(len(cs)-1, func(a, b int) { cs[a+1], cs[b+1] = cs[b+1], cs[a+1] })
			try(what+" time renamed, columns shuffled", true, cs)
		}
	}
}

// TestTy42EncodeOfAShuffledSchemaPutsEachFieldInItsColumn checks that a
// codec for a schema whose columns come in another order than the
// fields writes each field into its own column.
func TestTy42EncodeOfAShuffledSchemaPutsEachFieldInItsColumn(t *testing.T) {
	base, err := schema.For[ty42Wide]()
	require.NoError(t, err)
	cBase, err := schema.NewCodec[ty42Wide](base)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(42, 7))
	for iter := range 40 {
		cs := base.Columns()
		r.Shuffle(len(cs)-1, func(a, b int) { cs[a+1], cs[b+1] = cs[b+1], cs[a+1] })
		s := schema.MustNew(cs...)
		c, err := schema.NewCodec[ty42Wide](s)
		require.NoError(t, err)
		in := []ty42Wide{ty42RandWide(r, 1), ty42RandWide(r, 2)}
		tab := ty42Table(t, s, c.Encode(nil, in))
		ref := ty42Table(t, base, cBase.Encode(nil, in))
		for _, col := range cs {
			j, _ := s.Index(col.Name)
			k, _ := base.Index(col.Name)
			for i := range in {
				require.True(t, ref.Value(i, k).Equal(tab.Value(i, j)) || reflect.DeepEqual(ref.Value(i, k).Any(), tab.Value(i, j).Any()),
					"iter %d: column %q row %d: %v, want %v", iter, col.Name, i, tab.Value(i, j), ref.Value(i, k))
			}
		}
		out, err := cBase.Decode(nil, tab)
		require.NoError(t, err)
		for i := range in {
			ty42Same(t, in[i], out[i], fmt.Sprintf("iter %d row %d", iter, i))
		}
	}
}

// TestTy42ErrorsAreTyped checks the error values of the typed ways in:
// every refusal is a typed error that errors.Is finds the sentinel of.
func TestTy42ErrorsAreTyped(t *testing.T) {
	_, err := schema.NewCodec[ty42Wide](&schema.Schema{})
	require.ErrorIs(t, err, schema.ErrSchema)
	var se *schema.SchemaError
	require.ErrorAs(t, err, &se)
	c, err := schema.NewCodec[ty42Wide](nil)
	require.NoError(t, err)
	out, err := c.Decode([]ty42Wide{{}}, nil)
	require.NoError(t, err)
	require.Len(t, out, 1)
	out, err = c.Decode(nil, &schema.Table{})
	require.NoError(t, err)
	require.Empty(t, out)
	// A table whose column of a field's name is of another kind.
	other := schema.MustNew(schema.Column{Name: "t", Kind: schema.Time}, schema.Column{Name: "host", Kind: schema.Number})
	_, err = c.Decode(nil, schema.NewTable(other))
	require.ErrorIs(t, err, schema.ErrSchema)
	assert.True(t, errors.As(err, &se))
	// The codec still decodes its own tables after that.
	s, _ := schema.For[ty42Wide]()
	in := []ty42Wide{ty42RandWide(rand.New(rand.NewPCG(42, 8)), 3)}
	out, err = c.Decode(nil, ty42Table(t, s, c.Encode(nil, in)))
	require.NoError(t, err)
	ty42Same(t, in[0], out[0], "after a refusal")
}
