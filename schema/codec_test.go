package schema_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/schema"
)

// numbersRow is a row of one number column per Go number type a Codec
// field can have.
type numbersRow struct {
	At  time.Time `pond:"time"`
	I   int       `pond:"i"`
	I8  int8      `pond:"i8"`
	I16 int16     `pond:"i16"`
	I32 int32     `pond:"i32"`
	I64 int64     `pond:"i64"`
	U   uint      `pond:"u"`
	U8  uint8     `pond:"u8"`
	U16 uint16    `pond:"u16"`
	U32 uint32    `pond:"u32"`
	U64 uint64    `pond:"u64"`
	F32 float32   `pond:"f32"`
	F64 float64   `pond:"f64"`
	P8  *int8     `pond:"p8"`
}

var numberColumns = []string{"i", "i8", "i16", "i32", "i64", "u", "u8", "u16", "u32", "u64", "f32", "f64", "p8"}

// numbersTable returns a table of numbersRow's schema whose rows hold 0
// in every number column but the cells set, by column name and row.
func numbersTable(t *testing.T, rows int, set map[string]map[int]float64) *schema.Table {
	t.Helper()
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for _, name := range numberColumns {
		cols = append(cols, schema.Column{Name: name, Kind: schema.Number, Optional: true})
	}
	tab := schema.NewTable(schema.MustNew(cols...))
	for i := range rows {
		row := schema.Row{schema.NanosValue(int64(i))}
		for _, name := range numberColumns {
			v := schema.NumberValue(0)
			if x, ok := set[name][i]; ok {
				v = schema.NumberValue(x)
				if math.IsNaN(x) {
					v = schema.Missing()
				}
			}
			row = append(row, v)
		}
		require.True(t, tab.AppendRowValues(row))
	}
	return tab
}

func newNumbersCodec(t *testing.T) *schema.Codec[numbersRow] {
	t.Helper()
	c, err := schema.NewCodec[numbersRow](nil)
	require.NoError(t, err)
	return c
}

// TestDecodeTakesEveryNumberItsFieldHolds decodes the bounds of every
// integer type, and numbers far apart in float32, exactly.
func TestDecodeTakesEveryNumberItsFieldHolds(t *testing.T) {
	two := func(e int) float64 { return math.Ldexp(1, e) }
	set := map[string]map[int]float64{
		"i8":  {0: -128, 1: 127},
		"i16": {0: -32768, 1: 32767},
		"i32": {0: -two(31), 1: two(31) - 1},
		"i64": {0: -two(63), 1: two(63) - 1024}, // the largest float64 below 2^63
		"i":   {0: -two(31), 1: two(31) - 1},
		"u8":  {0: 0, 1: 255},
		"u16": {0: 0, 1: 65535},
		"u32": {0: 0, 1: two(32) - 1},
		"u64": {0: 0, 1: two(64) - 2048}, // the largest float64 below 2^64
		"u":   {0: 0, 1: two(32) - 1},
		"f32": {0: -math.MaxFloat32, 1: 0.1},
		"f64": {0: -math.MaxFloat64, 1: math.MaxFloat64},
		"p8":  {0: math.NaN(), 1: -7},
	}
	rows, err := newNumbersCodec(t).Decode(nil, numbersTable(t, 2, set))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, []int8{-128, 127}, []int8{rows[0].I8, rows[1].I8})
	assert.Equal(t, []int16{-32768, 32767}, []int16{rows[0].I16, rows[1].I16})
	assert.Equal(t, []int32{math.MinInt32, math.MaxInt32}, []int32{rows[0].I32, rows[1].I32})
	assert.Equal(t, []int64{math.MinInt64, math.MaxInt64 - 1023}, []int64{rows[0].I64, rows[1].I64})
	assert.Equal(t, []int{math.MinInt32, math.MaxInt32}, []int{rows[0].I, rows[1].I})
	assert.Equal(t, []uint8{0, 255}, []uint8{rows[0].U8, rows[1].U8})
	assert.Equal(t, []uint16{0, 65535}, []uint16{rows[0].U16, rows[1].U16})
	assert.Equal(t, []uint32{0, math.MaxUint32}, []uint32{rows[0].U32, rows[1].U32})
	assert.Equal(t, []uint64{0, math.MaxUint64 - 2047}, []uint64{rows[0].U64, rows[1].U64})
	assert.Equal(t, []uint{0, math.MaxUint32}, []uint{rows[0].U, rows[1].U})
	assert.Equal(t, []float32{-math.MaxFloat32, 0.1}, []float32{rows[0].F32, rows[1].F32})
	assert.Equal(t, []float64{-math.MaxFloat64, math.MaxFloat64}, []float64{rows[0].F64, rows[1].F64})
	assert.Nil(t, rows[0].P8, "a missing cell leaves a pointer nil")
	require.NotNil(t, rows[1].P8)
	assert.Equal(t, int8(-7), *rows[1].P8)
}

// requireWrongType fails t unless err is Decode's refusal of a cell of
// tab at row and column col, for the field described as field ("I8 of
// type int8").
func requireWrongType(t *testing.T, err error, tab *schema.Table, row int, col, field string) {
	t.Helper()
	require.ErrorIs(t, err, schema.ErrValidation)
	var re *schema.RowError
	require.True(t, errors.As(err, &re))
	j, _ := tab.Schema().Index(col)
	assert.Equal(t, schema.RowError{Row: row, Column: j, Name: col, Reason: schema.WrongType, Detail: re.Detail}, *re)
	assert.Contains(t, re.Detail, "does not fit field "+field)
}

// TestDecodeRefusesANumberItsFieldCannotHold: a fraction or a number out
// of range for an integer field, or beyond float32's range, is an error
// that names the row, the column and the field; dst is unchanged, and
// the codec decodes the next table as if nothing had happened. Before,
// 300 decoded into an int8 as 44, -1 into a uint as 2^64 − 1, 2.5 into
// an int as 2.
func TestDecodeRefusesANumberItsFieldCannotHold(t *testing.T) {
	two := func(e int) float64 { return math.Ldexp(1, e) }
	cases := []struct {
		col   string
		x     float64
		field string
	}{
		{"i8", 128, "I8 of type int8"},
		{"i8", -129, "I8 of type int8"},
		{"i8", 2.5, "I8 of type int8"},
		{"i16", 32768, "I16 of type int16"},
		{"i32", two(31), "I32 of type int32"},
		{"i32", -two(31) - 1, "I32 of type int32"},
		{"i64", two(63), "I64 of type int64"},
		{"i64", 1e300, "I64 of type int64"},
		{"i64", -0.5, "I64 of type int64"},
		{"i", 0.25, "I of type int"},
		{"u8", 256, "U8 of type uint8"},
		{"u8", -1, "U8 of type uint8"},
		{"u16", -1, "U16 of type uint16"},
		{"u32", two(32), "U32 of type uint32"},
		{"u64", two(64), "U64 of type uint64"},
		{"u64", -1, "U64 of type uint64"},
		{"u", -1, "U of type uint"},
		{"f32", 1e39, "F32 of type float32"},
		{"f32", -math.MaxFloat64, "F32 of type float32"},
		{"p8", 1000, "P8 of type int8"},
	}
	c := newNumbersCodec(t)
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s=%v", tc.col, tc.x), func(t *testing.T) {
			tab := numbersTable(t, 3, map[string]map[int]float64{tc.col: {2: tc.x}})
			dst := []numbersRow{{I: 41}}
			got, err := c.Decode(dst, tab)
			requireWrongType(t, err, tab, 2, tc.col, tc.field)
			assert.Equal(t, []numbersRow{{I: 41}}, got, "dst unchanged")

			ok, err := c.Decode(got, numbersTable(t, 2, nil))
			require.NoError(t, err)
			assert.Len(t, ok, 3)
		})
	}
}

// FuzzDecodeNumbers decodes one number into each number field of
// numbersRow and checks, against exact arithmetic (math/big), that
// Decode either takes it exactly (the nearest float32 for a float32
// field) or refuses it because the field cannot hold it.
func FuzzDecodeNumbers(f *testing.F) {
	for _, x := range []float64{0, -1, 2.5, 127, 128, -129, 255, 256, 1 << 31, 1 << 32, 1 << 53, 1 << 63, 1 << 64, -(1 << 63), 1e39, 1e300, math.Copysign(0, -1), math.SmallestNonzeroFloat64} {
		f.Add(math.Float64bits(x))
	}
	c, err := schema.NewCodec[numbersRow](nil)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if math.IsInf(x, 0) {
			return // a table holds finite numbers only
		}
		for _, col := range numberColumns {
			tab := numbersTable(t, 1, map[string]map[int]float64{col: {0: x}})
			rows, err := c.Decode(nil, tab)
			if math.IsNaN(x) {
				require.NoError(t, err, "%s: a missing cell", col)
				continue
			}
			want, fits := exactly(col, x)
			if !fits {
				require.ErrorIs(t, err, schema.ErrValidation, "%s = %v", col, x)
				require.Empty(t, rows)
				continue
			}
			require.NoError(t, err, "%s = %v", col, x)
			require.Equal(t, want, fieldOf(rows[0], col), "%s = %v", col, x)
		}
	})
}

// exactly returns what field col of numbersRow should hold after decoding
// x, as a float64, and whether it can: computed with math/big, apart
// from Codec.
func exactly(col string, x float64) (float64, bool) {
	switch col {
	case "f64":
		return x, true
	case "f32":
		y := float32(x)
		return float64(y), !math.IsInf(float64(y), 0)
	}
	b := new(big.Float).SetFloat64(x)
	if !b.IsInt() {
		return 0, false
	}
	i, _ := b.Int(nil)
	bits := map[string]int{"i": strconv.IntSize, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "p8": 8,
		"u": strconv.IntSize, "u8": 8, "u16": 16, "u32": 32, "u64": 64}[col]
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits)) // unsigned: [0, 2^bits)
	if col[0] != 'u' {
		hi.Rsh(hi, 1) // 2^(bits−1)
		lo.Neg(hi)    // −2^(bits−1)
	}
	return x, i.Cmp(lo) >= 0 && i.Cmp(hi) < 0
}

// fieldOf returns field col of r as a float64.
func fieldOf(r numbersRow, col string) float64 {
	switch col {
	case "i":
		return float64(r.I)
	case "i8":
		return float64(r.I8)
	case "i16":
		return float64(r.I16)
	case "i32":
		return float64(r.I32)
	case "i64":
		return float64(r.I64)
	case "u":
		return float64(r.U)
	case "u8":
		return float64(r.U8)
	case "u16":
		return float64(r.U16)
	case "u32":
		return float64(r.U32)
	case "u64":
		return float64(r.U64)
	case "f32":
		return float64(r.F32)
	case "p8":
		return float64(*r.P8)
	}
	return r.F64
}

// TestEncodeLeavesATimeOutsideTheRangeOutsideIt: time.Time.UnixNano wraps
// around for times outside the years 1678 to 2262, into the range a
// series accepts for some of them (3000-01-01 came out as 1830-11-23 and
// was pushed as such). Encode gives such a time a value that validation
// rejects, and keeps the range's own bounds exact.
func TestEncodeLeavesATimeOutsideTheRangeOutsideIt(t *testing.T) {
	type row struct {
		At  time.Time `pond:"time"`
		CPU float64   `pond:"cpu"`
	}
	sch, err := schema.For[row]()
	require.NoError(t, err)
	c, err := schema.NewCodec[row](sch)
	require.NoError(t, err)
	date := func(y int) time.Time { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC) }
	for _, at := range []time.Time{{}, date(100), date(1500), date(1822), date(2117), date(2300), date(3000), date(9999)} {
		b := c.Encode(nil, []row{{At: time.Unix(0, 0)}, {At: at}})
		err := sch.Validate(b, false)
		var re *schema.RowError
		require.True(t, errors.As(err, &re), "%v: %v", at, err)
		assert.Equal(t, schema.TimeRange, re.Reason, "%v", at)
		assert.Equal(t, 1, re.Row, "%v", at)
		side := "a time after 2116"
		if at.Year() < 1823 {
			side = "a time before 1823"
		}
		assert.Equal(t, side, re.Detail, "%v", at)
	}
	// A time in nanoseconds out of the range is told as a date.
	b := schema.NewBatch(sch, 1)
	b.Time = append(b.Time, schema.MaxTime+1)
	b.Cols[0].Num = append(b.Cols[0].Num, 0.5)
	assert.ErrorContains(t, sch.Validate(b, true), "4611686018427387904 ns (2116-02-20T23:53:38.427387904Z)")
	lo, hi := time.Unix(0, schema.MinTime), time.Unix(0, schema.MaxTime)
	b = c.Encode(nil, []row{{At: lo}, {At: hi}})
	require.NoError(t, sch.Validate(b, true))
	assert.Equal(t, []int64{schema.MinTime, schema.MaxTime}, b.Time)
}

// TestTimeValuesOutsideTheRangeStayOutsideIt: TimeValue and MillisValue
// wrapped around as UnixNano and a multiplication by 10^6 do (3000-01-01
// became 1830-11-23); now a time outside the years 1823 to 2116 gives a
// key outside [MinTime, MaxTime], which validation rejects, and the
// bounds themselves stay exact.
func TestTimeValuesOutsideTheRangeStayOutsideIt(t *testing.T) {
	outside := func(v schema.Value) bool {
		ns, ok := v.Nanos()
		return ok && (ns < schema.MinTime || ns > schema.MaxTime)
	}
	for _, y := range []int{1, 100, 1500, 1822, 2117, 2300, 3000, 9999} {
		at := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		assert.True(t, outside(schema.TimeValue(at)), "TimeValue, year %d", y)
		assert.True(t, outside(schema.MillisValue(at.Unix()*1000)), "MillisValue, year %d", y)
	}
	for _, ns := range []int64{schema.MinTime, schema.MaxTime, 0} {
		got, _ := schema.TimeValue(time.Unix(0, ns)).Nanos()
		assert.Equal(t, ns, got)
		assert.Equal(t, time.Unix(0, ns).UTC().Format(time.RFC3339Nano), schema.TimeValue(time.Unix(0, ns)).String())
	}
	// Printed, such a key says which side it is on, not the int64 bound's
	// date (2262), which was never given.
	assert.Equal(t, "(a time after 2116)", schema.TimeValue(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)).String())
	assert.Equal(t, "(a time before 1823)", schema.TimeValue(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)).String())
	for _, ms := range []int64{schema.MinTime / 1_000_000, schema.MaxTime / 1_000_000, -1, 1714000000250} {
		got, _ := schema.MillisValue(ms).Nanos()
		assert.Equal(t, ms*1e6, got)
	}
}

// TestDecodeRefusesAnArrayElementItsSliceCannotHold: an array cell with a
// string decoded into a []float64 field (or a number into a []string)
// was left out of the slice without a word (an array of strings read as
// empty); it is now an error naming the row, the column and the field,
// and dst is unchanged. Arrays of the field's own kind, empty arrays and
// missing cells decode as before.
func TestDecodeRefusesAnArrayElementItsSliceCannotHold(t *testing.T) {
	type row struct {
		At   time.Time `pond:"time"`
		Nums []float64 `pond:"nums"`
		Strs []string  `pond:"strs"`
	}
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "nums", Kind: schema.Array, Optional: true},
		schema.Column{Name: "strs", Kind: schema.Array, Optional: true})
	c, err := schema.NewCodec[row](sch)
	require.NoError(t, err)
	num, str := schema.NumberValue, schema.StringValue
	arr := schema.ArrayValue
	table := func(cells ...[2]schema.Value) *schema.Table {
		tab := schema.NewTable(sch)
		for i, cs := range cells {
			require.True(t, tab.AppendRowValues(schema.Row{schema.NanosValue(int64(i)), cs[0], cs[1]}))
		}
		return tab
	}
	good := table([2]schema.Value{arr(num(1), num(2)), arr(str("a"))},
		[2]schema.Value{arr(), arr()},
		[2]schema.Value{schema.Missing(), schema.Missing()})
	rows, err := c.Decode(nil, good)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, []float64{1, 2}, rows[0].Nums)
	assert.Equal(t, []string{"a"}, rows[0].Strs)
	assert.Equal(t, []float64{}, rows[1].Nums)
	assert.Equal(t, []string{}, rows[1].Strs)
	assert.Nil(t, rows[2].Nums)
	assert.Nil(t, rows[2].Strs)

	for _, tc := range []struct {
		name  string
		tab   *schema.Table
		col   string
		field string
	}{
		{"a string in []float64", table([2]schema.Value{arr(num(1)), arr()}, [2]schema.Value{arr(num(2), str("x")), arr()}), "nums", "Nums of type []float64"},
		{"strings only in []float64", table([2]schema.Value{arr(), arr()}, [2]schema.Value{arr(str("x")), arr()}), "nums", "Nums of type []float64"},
		{"a number in []string", table([2]schema.Value{arr(), arr(str("a"))}, [2]schema.Value{arr(), arr(str("b"), num(3))}), "strs", "Strs of type []string"},
		{"numbers only in []string", table([2]schema.Value{arr(), arr()}, [2]schema.Value{arr(), arr(num(3))}), "strs", "Strs of type []string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := []row{{Strs: []string{"kept"}}}
			got, err := c.Decode(dst, tc.tab)
			requireWrongType(t, err, tc.tab, 1, tc.col, tc.field)
			assert.Equal(t, []row{{Strs: []string{"kept"}}}, got, "dst unchanged")
		})
	}
}

// TestForRejectsAPointerToATime: a *time.Time field without the option
// time was taken for the time field (the one time.Time field) and then
// read as a time.Time where the pointer was, so that Encode pushed the
// pointer's bits and the next fields' as a time. Like a *time.Time (or
// *int64) tagged with the option time, it is now an error naming the
// field.
func TestForRejectsAPointerToATime(t *testing.T) {
	type untagged struct {
		At  *time.Time `pond:"at"`
		CPU float64    `pond:"cpu"`
	}
	type tagged struct {
		At  *time.Time `pond:"at,time"`
		CPU float64    `pond:"cpu"`
	}
	type nanos struct {
		At  *int64  `pond:"at,time"`
		CPU float64 `pond:"cpu"`
	}
	for name, f := range map[string]func() error{
		"untagged *time.Time": func() error { _, err := schema.For[untagged](); return err },
		"codec of it":         func() error { _, err := schema.NewCodec[untagged](nil); return err },
		"tagged *time.Time":   func() error { _, err := schema.For[tagged](); return err },
		"tagged *int64":       func() error { _, err := schema.For[nanos](); return err },
	} {
		err := f()
		var se *schema.SchemaError
		require.ErrorAs(t, err, &se, name)
		assert.ErrorIs(t, err, schema.ErrSchema, name)
		assert.Contains(t, se.Reason, "At: the time field cannot be a pointer", name)
	}
}

// TestForRejectsAnOptionalTime: an untagged-as-time time.Time field is
// the time field, and the option optional on it was dropped silently
// (the check ran before the field became the time field); it is refused
// as on a field tagged time.
func TestForRejectsAnOptionalTime(t *testing.T) {
	type untagged struct {
		At  time.Time `pond:"at,optional"`
		CPU float64   `pond:"cpu"`
	}
	type tagged struct {
		At  int64   `pond:"at,time,optional"`
		CPU float64 `pond:"cpu"`
	}
	for name, f := range map[string]func() error{
		"time.Time": func() error { _, err := schema.For[untagged](); return err },
		"codec":     func() error { _, err := schema.NewCodec[untagged](nil); return err },
		"int64":     func() error { _, err := schema.For[tagged](); return err },
	} {
		err := f()
		var se *schema.SchemaError
		require.ErrorAs(t, err, &se, name)
		assert.ErrorIs(t, err, schema.ErrSchema, name)
		assert.Contains(t, se.Reason, "At: the time field cannot be optional", name)
	}
}

// TestEncodeIntoTwoBatchesKeepsEachOnesMissingCells: the missing flags
// of an encoded batch were the codec's buffer, so that encoding into a
// second batch rewrote the first one's: a cell the first batch held went
// missing, and a missing one came back as 0. Each batch now has flags of
// its own, and a batch encoded again keeps no stale flag.
func TestEncodeIntoTwoBatchesKeepsEachOnesMissingCells(t *testing.T) {
	type row struct {
		At   int64    `pond:"time,time"`
		CPU  *float64 `pond:"cpu"`
		Host string   `pond:"host,optional"`
	}
	c, err := schema.NewCodec[row](nil)
	require.NoError(t, err)
	one := 1.0
	first := c.Encode(nil, []row{{At: 1}, {At: 2, CPU: &one, Host: "a"}})
	second := c.Encode(nil, []row{{At: 1, CPU: &one, Host: "b"}, {At: 2}})
	assert.Equal(t, []bool{true, false}, first.Cols[0].Missing, "first batch, cpu")
	assert.Equal(t, []bool{true, false}, first.Cols[1].Missing, "first batch, host")
	assert.Equal(t, []bool{false, true}, second.Cols[0].Missing, "second batch, cpu")
	assert.Equal(t, []bool{false, true}, second.Cols[1].Missing, "second batch, host")

	// Encoded again, a batch drops its flags when no cell is missing,
	// and takes flags again, not shared with the other batch, when one is.
	c.Encode(first, []row{{At: 3, CPU: &one, Host: "c"}})
	assert.Nil(t, first.Cols[0].Missing)
	c.Encode(first, []row{{At: 4}, {At: 5, CPU: &one, Host: "d"}})
	c.Encode(second, []row{{At: 4, CPU: &one, Host: "e"}, {At: 5}})
	assert.Equal(t, []bool{true, false}, first.Cols[0].Missing, "first batch, cpu")
	assert.Equal(t, []bool{false, true}, second.Cols[0].Missing, "second batch, cpu")

	// One batch encoded again and again, with missing cells and without,
	// allocates nothing once grown.
	some, none := []row{{At: 1}, {At: 2, CPU: &one}}, []row{{At: 1, CPU: &one, Host: "a"}}
	k := 0
	encode := func() {
		if k++; k%2 == 0 {
			c.Encode(first, some)
		} else {
			c.Encode(first, none)
		}
	}
	assert.Zero(t, allocs.Count(20, encode))
}

// Memory is a struct of tagged fields, embedded in rows by pointer in
// TestForRejectsAnEmbeddedPointerWithColumns.
type Memory struct {
	Used float64 `pond:"used"`
}

// Host embeds Memory.
type Host struct {
	Name string
	Memory
}

// Loop embeds a pointer to itself, with no tagged field.
type Loop struct {
	*Loop
	Note string
}

// TestForRejectsAnEmbeddedPointerWithColumns: the tagged fields of a
// struct embedded by pointer were left out without a word (a schema
// without the column "used", rows encoded without it). Such a field is
// now an error naming it; an embedded pointer to a struct without
// tagged fields is still passed over, as an untagged field is.
func TestForRejectsAnEmbeddedPointerWithColumns(t *testing.T) {
	type direct struct {
		At time.Time `pond:"time"`
		*Memory
	}
	type nested struct {
		At time.Time `pond:"time"`
		*Host
	}
	for name, f := range map[string]func() error{
		"embedded *Memory":        func() error { _, err := schema.For[direct](); return err },
		"codec of it":             func() error { _, err := schema.NewCodec[direct](nil); return err },
		"Memory embedded further": func() error { _, err := schema.For[nested](); return err },
	} {
		err := f()
		var se *schema.SchemaError
		require.ErrorAs(t, err, &se, name)
		assert.ErrorIs(t, err, schema.ErrSchema, name)
		assert.Contains(t, se.Reason, "cannot hold columns; embed the struct itself", name)
	}

	type untagged struct {
		At time.Time `pond:"time"`
		X  float64   `pond:"x"`
		*Loop
		*strings.Builder
	}
	sch, err := schema.For[untagged]()
	require.NoError(t, err)
	assert.Equal(t, "time:time, x:number", sch.String())
}

// TestEncodeShapesABatchOfAnotherShape: Encode into the zero Batch (or
// one made for a schema with fewer columns) panicked with an index out
// of range. It empties the batch in any case, and now shapes it for the
// codec's schema too.
func TestEncodeShapesABatchOfAnotherShape(t *testing.T) {
	type row struct {
		At   int64    `pond:"time,time"`
		CPU  *float64 `pond:"cpu"`
		Host string   `pond:"host"`
	}
	c, err := schema.NewCodec[row](nil)
	require.NoError(t, err)
	sch, err := schema.For[row]()
	require.NoError(t, err)
	one := 1.0
	rows := []row{{At: 1, Host: "a"}, {At: 2, CPU: &one, Host: "b"}}
	other := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "up", Kind: schema.Bool},
		schema.Column{Name: "x", Kind: schema.Number, Optional: true}, schema.Column{Name: "y", Kind: schema.Number})
	wide := schema.NewBatch(other, 1)
	require.NoError(t, other.AppendRows(wide, []schema.Row{{schema.NanosValue(9), schema.BoolValue(true), schema.Missing(), schema.NumberValue(3)}}))
	for name, b := range map[string]*schema.Batch{
		"the zero batch":            {},
		"a batch of a narrower one": schema.NewBatch(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}), 1),
		"a batch of a wider one":    wide,
	} {
		t.Run(name, func(t *testing.T) {
			got := c.Encode(b, rows)
			assert.Same(t, b, got)
			require.NoError(t, sch.Validate(got, true))
			assert.Equal(t, []int64{1, 2}, got.Time)
			require.Len(t, got.Cols, 2)
			assert.Equal(t, []bool{true, false}, got.Cols[0].Missing)
			assert.Equal(t, 1.0, got.Cols[0].Num[1])
			assert.Equal(t, []string{"a", "b"}, got.Cols[1].Str)
			assert.Nil(t, got.Cols[1].Missing)
		})
	}
}

// A time.Time field beside a field with the option time is a second time
// field; the error says why rather than advise the option already there.
func TestACodecOfTwoTimeFieldsSaysWhichIsTheTime(t *testing.T) {
	type twoTimes struct {
		At   int64     `pond:"at,time"`
		Seen time.Time `pond:"seen"`
		X    float64   `pond:"x"`
	}
	_, err := schema.For[twoTimes]()
	require.ErrorIs(t, err, schema.ErrSchema)
	require.ErrorContains(t, err, "a second time field (the first is At): a tagged time.Time field is always the time field")
	require.ErrorContains(t, err, "Seen")
}
