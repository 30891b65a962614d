package schema_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

func col(name string, k schema.Kind) schema.Column { return schema.Column{Name: name, Kind: k} }

func opt(name string, k schema.Kind) schema.Column {
	return schema.Column{Name: name, Kind: k, Optional: true}
}

func metrics() *schema.Schema {
	return schema.MustNew(col("time", schema.Time), col("cpu", schema.Number), col("host", schema.String),
		opt("up", schema.Bool), opt("tags", schema.Array))
}

func TestNewRejectsBadSchemas(t *testing.T) {
	cases := []struct {
		name string
		cols []schema.Column
		col  int
	}{
		{"empty schema", nil, -1},
		{"first column not time", []schema.Column{col("cpu", schema.Number)}, 0},
		{"time column optional", []schema.Column{opt("time", schema.Time)}, 0},
		{"second time column", []schema.Column{col("time", schema.Time), col("t2", schema.Time)}, 1},
		{"empty name", []schema.Column{col("time", schema.Time), col("", schema.Number)}, 1},
		{"duplicate name", []schema.Column{col("time", schema.Time), col("a", schema.Number), col("a", schema.String)}, 2},
		{"unknown kind", []schema.Column{col("time", schema.Time), col("a", schema.Kind(42))}, 1},
		{"zero kind", []schema.Column{col("time", schema.Time), col("a", 0)}, 1},
		// JSON writes invalid UTF-8 as U+FFFD: "a\xff" and "a\xfe" were
		// both the key "a\ufffd", and one column's cells were lost.
		{"name not UTF-8", []schema.Column{col("time", schema.Time), col("a\xff", schema.Number), col("a\xfe", schema.Number)}, 1},
		{"time name not UTF-8", []schema.Column{col("t\xc3", schema.Time)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := schema.New(c.cols...)
			require.Error(t, err)
			assert.ErrorIs(t, err, schema.ErrSchema)
			var se *schema.SchemaError
			require.True(t, errors.As(err, &se))
			assert.Equal(t, c.col, se.Column)
		})
	}
}

func TestSchemaAccessors(t *testing.T) {
	s := metrics()
	assert.Equal(t, 5, s.Len())
	i, ok := s.Index("host")
	assert.True(t, ok)
	assert.Equal(t, 2, i)
	_, ok = s.Index("nope")
	assert.False(t, ok)
	assert.Equal(t, []string{"time", "cpu", "host", "up", "tags"}, s.Names())
	assert.True(t, s.Equal(metrics()))
	assert.Equal(t, "time:time, cpu:number, host:string, up:boolean?, tags:array?", s.String())
	assert.False(t, s.Column(1).Optional)
	assert.True(t, s.Column(3).Optional)
}

func TestParseKind(t *testing.T) {
	for _, k := range []schema.Kind{schema.Time, schema.Number, schema.String, schema.Bool, schema.Array} {
		got, err := schema.ParseKind(k.String())
		require.NoError(t, err)
		assert.Equal(t, k, got)
	}
	_, err := schema.ParseKind("float")
	assert.ErrorIs(t, err, schema.ErrSchema)
}

func TestValueRoundTrips(t *testing.T) {
	now := time.UnixMilli(1735689600000).UTC()
	f, ok := schema.NumberValue(1.5).Num()
	assert.True(t, ok)
	assert.Equal(t, 1.5, f)
	s, ok := schema.StringValue("").Str()
	assert.True(t, ok, "the empty string is a value")
	assert.Equal(t, "", s)
	b, ok := schema.BoolValue(false).Bool()
	assert.True(t, ok)
	assert.False(t, b)
	tm, ok := schema.TimeValue(now).Time()
	assert.True(t, ok)
	assert.True(t, now.Equal(tm))
	ns, _ := schema.MillisValue(5).Nanos()
	assert.Equal(t, int64(5_000_000), ns)
	assert.True(t, schema.Missing().IsMissing())
	_, ok = schema.Missing().Num()
	assert.False(t, ok)
	arr, ok := schema.ArrayValue().Array()
	assert.True(t, ok)
	assert.NotNil(t, arr, "an empty array is not missing")
	assert.True(t, schema.NumberValue(0).Equal(schema.NumberValue(math.Copysign(0, -1))))
	assert.False(t, schema.NumberValue(1).Equal(schema.StringValue("1")))
	assert.Equal(t, `[1, "a", true]`, schema.ArrayValue(schema.NumberValue(1), schema.StringValue("a"), schema.BoolValue(true)).String())
}

func TestOfConvertsPlainValues(t *testing.T) {
	v, err := schema.Of([]any{1, "a", nil, true})
	require.NoError(t, err)
	assert.Equal(t, `[1, "a", null, true]`, v.String())
	_, err = schema.Of(struct{}{})
	assert.ErrorIs(t, err, schema.ErrValidation)
	_, err = schema.Of([]any{map[string]int{}})
	assert.ErrorIs(t, err, schema.ErrValidation)
}

// TestOfRefusesAnArrayThatHoldsItself: a []any holding itself (or a
// slice of itself), at any depth, made Of recurse until the stack
// overflowed, a fatal error no recover catches. It is now an error; the
// same []any twice side by side, or nested arrays without a cycle, are
// converted as before.
func TestOfRefusesAnArrayThatHoldsItself(t *testing.T) {
	self := []any{1.0, nil}
	self[1] = self
	tail := []any{1.0, nil}
	tail[1] = tail[1:]
	deep := []any{"a", []any{[]any{nil}}}
	deep[1].([]any)[0].([]any)[0] = deep
	for name, x := range map[string][]any{"itself": self, "a slice of itself": tail, "itself two arrays down": deep} {
		_, err := schema.Of(x)
		assert.ErrorIs(t, err, schema.ErrValidation, name)
		assert.ErrorContains(t, err, "holds itself", name)
	}

	inner := []any{1.0}
	v, err := schema.Of([]any{inner, inner, []any{inner[:0]}})
	require.NoError(t, err)
	assert.Equal(t, "[[1], [1], [[]]]", v.String())
}

// TestOfTakesBackWhatAnyGives: for a value of every kind (arrays of
// them included), Of(v.Any()) is v again.
func TestOfTakesBackWhatAnyGives(t *testing.T) {
	at := time.Date(2026, 12, 6, 16, 0, 0, 123456789, time.UTC)
	scalars := []schema.Value{
		schema.Missing(), schema.NumberValue(-2.5), schema.NumberValue(0), schema.StringValue(""),
		schema.StringValue("host-7"), schema.BoolValue(true), schema.BoolValue(false),
		schema.TimeValue(at), schema.NanosValue(schema.MinTime), schema.NanosValue(schema.MaxTime),
	}
	values := append(scalars, schema.ArrayValue(), schema.ArrayValue(scalars...))
	for _, v := range values {
		got, err := schema.Of(v.Any())
		require.NoError(t, err, "%v", v)
		assert.True(t, v.Equal(got), "%v came back as %v", v, got)
		assert.Equal(t, v.Kind(), got.Kind(), "%v", v)
	}
	tm, ok := schema.TimeValue(at).Any().(time.Time)
	require.True(t, ok)
	assert.True(t, at.Equal(tm), "nanoseconds kept")
}

func row(cells ...any) schema.Row {
	r := make(schema.Row, len(cells))
	for i, c := range cells {
		if ms, ok := c.(int); ok && i == 0 {
			r[i] = schema.MillisValue(int64(ms))
			continue
		}
		v, err := schema.Of(c)
		if err != nil {
			panic(err)
		}
		r[i] = v
	}
	return r
}

func TestAppendRowsNamesTheBadCell(t *testing.T) {
	s := metrics()
	cases := []struct {
		name   string
		row    schema.Row
		col    int
		reason schema.Reason
	}{
		{"wrong type", row(0, "bad", "a", nil, nil), 1, schema.WrongType},
		{"NaN", row(0, math.NaN(), "a", nil, nil), 1, schema.NonFinite},
		{"Inf", row(0, math.Inf(-1), "a", nil, nil), 1, schema.NonFinite},
		{"number in string column", row(0, 1.0, 5, nil, nil), 2, schema.WrongType},
		{"string in boolean column", row(0, 1.0, "a", "yes", nil), 3, schema.WrongType},
		{"string in array column", row(0, 1.0, "a", nil, "x"), 4, schema.WrongType},
		{"nested array", row(0, 1.0, "a", nil, []any{[]any{"n"}}), 4, schema.BadElement},
		{"NaN element", row(0, 1.0, "a", nil, []any{math.NaN()}), 4, schema.BadElement},
		{"missing element", row(0, 1.0, "a", nil, []any{nil}), 4, schema.BadElement},
		{"short row", row(0, 1.0, "a", nil), -1, schema.RowLength},
		{"long row", row(0, 1.0, "a", nil, nil, 7), -1, schema.RowLength},
		{"missing required number", row(0, nil, "a", nil, nil), 1, schema.MissingRequired},
		{"missing required string", row(0, 1.0, nil, nil, nil), 2, schema.MissingRequired},
		{"missing time", schema.Row{schema.Missing(), schema.NumberValue(1), schema.StringValue("a"), {}, {}}, 0, schema.MissingRequired},
		{"time not a time", row(1.5, 1.0, "a", nil, nil), 0, schema.WrongType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := schema.NewBatch(s, 4)
			good := row(0, 1.0, "a", true, []any{"x", 1})
			err := s.AppendRows(b, []schema.Row{good, c.row})
			require.Error(t, err)
			assert.ErrorIs(t, err, schema.ErrValidation)
			var re *schema.RowError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, 1, re.Row)
			assert.Equal(t, c.col, re.Column)
			assert.Equal(t, c.reason, re.Reason)
			assert.Zero(t, b.Len(), "a failed append leaves the batch as it was")
		})
	}
}

// TestNewBatchTakesANegativeCapacityAsNone: a negative capacity (a
// length computed as a difference, say) panicked in make.
func TestNewBatchTakesANegativeCapacityAsNone(t *testing.T) {
	s := metrics()
	b := schema.NewBatch(s, -1)
	assert.Zero(t, b.Len())
	require.Len(t, b.Cols, s.Len()-1)
	require.NoError(t, s.AppendRows(b, []schema.Row{row(0, 1.0, "a", true, nil)}))
	assert.NoError(t, s.Validate(b, true))
}

// TestAppendRowsRefusesABatchOfAnotherShape: a batch with fewer value
// columns than the schema (the zero Batch, or one made for another
// schema) panicked with an index out of range, after the time of the
// first row was appended. It is now a RowLength error for the batch as
// a whole, and the batch is left as it was.
func TestAppendRowsRefusesABatchOfAnotherShape(t *testing.T) {
	s := metrics()
	for name, b := range map[string]*schema.Batch{
		"the zero batch":              {},
		"a batch for another schema":  schema.NewBatch(schema.MustNew(col("time", schema.Time), col("cpu", schema.Number)), 1),
		"a batch with a column extra": {Cols: make([]schema.Vec, s.Len())},
	} {
		t.Run(name, func(t *testing.T) {
			cols := len(b.Cols)
			err := s.AppendRows(b, []schema.Row{row(0, 1.0, "a", true, nil)})
			var re *schema.RowError
			require.ErrorAs(t, err, &re)
			assert.ErrorIs(t, err, schema.ErrValidation)
			assert.Equal(t, schema.RowLength, re.Reason)
			assert.Equal(t, -1, re.Row)
			assert.Zero(t, b.Len(), "the batch is left as it was")
			assert.Len(t, b.Cols, cols)
		})
	}
}

func TestValidateAndAppendRowsRefuseANilBatch(t *testing.T) {
	s := metrics()
	for name, err := range map[string]error{
		"Validate":   s.Validate(nil, true),
		"AppendRows": s.AppendRows(nil, []schema.Row{row(0, 1.0, "a", true, nil)}),
	} {
		var re *schema.RowError
		require.ErrorAs(t, err, &re, name)
		assert.Equal(t, schema.RowLength, re.Reason, name)
		assert.Equal(t, -1, re.Row, name)
		assert.Equal(t, "schema: batch: wrong row length: the batch is nil", err.Error(), name)
	}
}

func TestValidateBatch(t *testing.T) {
	s := metrics()
	ok := func() *schema.Batch {
		b := schema.NewBatch(s, 2)
		require.NoError(t, s.AppendRows(b, []schema.Row{
			row(0, 1.0, "a", nil, nil),
			row(1000, 2.0, "b", true, []any{}),
		}))
		return b
	}
	require.NoError(t, s.Validate(ok(), true))

	b := ok()
	b.Time[1] = -1
	err := s.Validate(b, true)
	var re *schema.RowError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, schema.Unsorted, re.Reason)
	assert.NoError(t, s.Validate(b, false), "order is checked only when asked")

	b = ok()
	b.Time[0], b.Time[1] = 2000, schema.MinTime-1
	require.True(t, errors.As(s.Validate(b, true), &re))
	assert.Equal(t, schema.TimeRange, re.Reason, "a time out of range comes before the order")
	assert.Equal(t, 1, re.Row)
	b.Time[0], b.Time[1] = schema.MaxTime+1, 1000
	require.True(t, errors.As(s.Validate(b, true), &re))
	assert.Equal(t, schema.TimeRange, re.Reason, "out of order, the first time out of range")
	assert.Equal(t, 0, re.Row)
	b.Time[0], b.Time[1] = schema.MinTime-1, 1000
	require.True(t, errors.As(s.Validate(b, true), &re))
	assert.Equal(t, schema.TimeRange, re.Reason, "in order, the first time out of range")
	assert.Equal(t, 0, re.Row)

	b = ok()
	b.Cols[0].Num = b.Cols[0].Num[:1]
	require.True(t, errors.As(s.Validate(b, false), &re))
	assert.Equal(t, schema.ColumnLength, re.Reason)
	assert.Equal(t, 1, re.Column)

	b = ok()
	b.Cols[0].Num[1] = math.Inf(1)
	require.True(t, errors.As(s.Validate(b, false), &re))
	assert.Equal(t, schema.NonFinite, re.Reason)
	assert.Equal(t, 1, re.Row)

	b = ok()
	b.Cols[0].Num[1] = math.NaN()
	b.Cols[0].Missing = []bool{false, true}
	require.True(t, errors.As(s.Validate(b, false), &re), "cpu is required")
	assert.Equal(t, schema.MissingRequired, re.Reason)

	b = ok()
	b.Cols = b.Cols[:3]
	require.True(t, errors.As(s.Validate(b, false), &re))
	assert.Equal(t, schema.RowLength, re.Reason)

	b = ok()
	b.Cols[2].Missing = []bool{true}
	require.True(t, errors.As(s.Validate(b, false), &re))
	assert.Equal(t, schema.ColumnLength, re.Reason)
}

func TestTableCells(t *testing.T) {
	s := metrics()
	tab := schema.NewTable(s)
	assert.True(t, tab.AppendRowValues(row(0, 1.0, "a", nil, []any{"x", 2})))
	assert.True(t, tab.AppendRowValues(row(1000, 2.0, "", false, nil)))
	assert.False(t, tab.AppendRowValues(row(2000, "bad", "b", nil, nil)), "a cell of the wrong kind is stored missing")
	require.Equal(t, 3, tab.Len())
	cpu, ok := tab.Numbers("cpu")
	require.True(t, ok)
	assert.Equal(t, []float64{1, 2}, cpu[:2])
	assert.True(t, math.IsNaN(cpu[2]))
	hosts, ok := tab.Strings("host")
	require.True(t, ok)
	assert.Equal(t, []string{"a", "", "b"}, hosts)
	assert.False(t, table.Column(tab, 2).IsMissing(1), "the empty string is present")
	assert.True(t, table.Column(tab, 3).IsMissing(0))
	elems, ok := table.Column(tab, 4).Array(0)
	require.True(t, ok)
	assert.Equal(t, `["x", 2]`, schema.ArrayValue(elems...).String())
	_, ok = table.Column(tab, 4).Array(1)
	assert.False(t, ok)
	_, ok = tab.Numbers("host")
	assert.False(t, ok)
	assert.Equal(t, int64(1_000_000_000), tab.TimeNanos(1))
	assert.Equal(t, time.UnixMilli(1000).UTC(), tab.Time(1))

	c := tab.Clone()
	table.Reset(tab)
	assert.Zero(t, tab.Len())
	assert.Equal(t, 3, c.Len(), "a clone is independent")
	assert.Equal(t, "time=1970-01-01T00:00:00Z cpu=1 host=\"a\" up=null tags=[\"x\", 2]", c.String()[:len("time=1970-01-01T00:00:00Z cpu=1 host=\"a\" up=null tags=[\"x\", 2]")])
	n := 0
	for i, r := range c.All() {
		assert.True(t, slices.EqualFunc(c.Row(i), r, schema.Value.Equal), "row %d", i)
		n++
	}
	assert.Equal(t, 3, n)
}

// TestTableAppendRowValuesRefusesARowWithoutATime: a row whose time cell
// was missing (or not a time) appended a cell to every column but the
// time column, which cannot hold a missing cell, and reported success:
// every later row read the cells of the row before. Such a row is now
// refused whole.
func TestTableAppendRowValuesRefusesARowWithoutATime(t *testing.T) {
	for name, bad := range map[string]schema.Row{
		"a missing time":   {schema.Missing(), schema.NumberValue(1), schema.StringValue("a"), schema.Missing(), schema.Missing()},
		"a number as time": {schema.NumberValue(5), schema.NumberValue(1), schema.StringValue("a"), schema.Missing(), schema.Missing()},
		"an empty row":     {},
	} {
		t.Run(name, func(t *testing.T) {
			tab := schema.NewTable(metrics())
			assert.False(t, tab.AppendRowValues(bad))
			require.True(t, tab.AppendRowValues(row(1000, 2.0, "b", true, nil)))
			require.Equal(t, 1, tab.Len())
			assert.Equal(t, `time=1970-01-01T00:00:01Z cpu=2 host="b" up=true tags=null`, tab.String())
			for j := range metrics().Len() {
				assert.Equal(t, 1, table.Column(tab, j).Len(), "column %d", j)
			}
		})
	}
}

func TestTableAppendDoesNotAllocateOnceGrown(t *testing.T) {
	s := metrics()
	tab := schema.NewTable(s)
	fill := func() {
		table.Reset(tab)
		for i := range 100 {
			table.Column(tab, 0).AppendTime(int64(i))
			table.Column(tab, 1).AppendNum(1)
			table.Column(tab, 2).AppendStr("h")
			table.Column(tab, 3).AppendMissing()
			table.Column(tab, 4).BeginArray()
			table.Column(tab, 4).AppendElem(schema.NumberValue(1))
			table.Column(tab, 4).EndArray()
		}
	}
	fill()
	assert.Zero(t, allocs.Count(20, fill))
}

func ExampleNew() {
	s, err := schema.New(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "note", Kind: schema.String, Optional: true},
	)
	fmt.Println(s, err)
	_, err = schema.New(schema.Column{Name: "cpu", Kind: schema.Number})
	fmt.Println(err)
	// Output:
	// time:time, cpu:number, host:string, note:string? <nil>
	// schema: column 0 ("cpu"): the first column must be of kind time, not number
}

func ExampleBatch() {
	s := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	b := schema.NewBatch(s, 2)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i, host := range []string{"a", "b"} {
		b.Time = append(b.Time, t0+int64(i)*int64(time.Second))
		b.Cols[0].Num = append(b.Cols[0].Num, 0.5)
		b.Cols[1].Str = append(b.Cols[1].Str, host)
	}
	fmt.Println(b.Len(), s.Validate(b, true))
	b.Cols[0].Num[1] = math.NaN()
	fmt.Println(s.Validate(b, true))
	// Output:
	// 2 <nil>
	// schema: row 1 column 1 (cpu): non-finite number: NaN
}

func TestRunsGroupEqualTimes(t *testing.T) {
	s := schema.MustNew(col("time", schema.Time), col("v", schema.Number))
	tab := schema.NewTable(s)
	for _, ms := range []int64{0, 0, 5, 7, 7, 7} {
		table.Column(tab, 0).AppendTime(ms)
		table.Column(tab, 1).AppendNum(1)
	}
	var got []schema.Run
	for r := range tab.Runs() {
		got = append(got, r)
	}
	assert.Equal(t, []schema.Run{{0, 0, 2}, {5, 2, 3}, {7, 3, 6}}, got)
	assert.Equal(t, 3, got[2].Len())
	for range schema.NewTable(s).Runs() {
		t.Fatal("an empty table has no runs")
	}
}

func TestAliasedColumnsGiveTheirMemoryBack(t *testing.T) {
	s := schema.MustNew(col("time", schema.Time), col("v", schema.Number), col("h", schema.String))
	tab := schema.NewTable(s)
	ts := []int64{1, 2}
	vs := []float64{1.5, 2.5}
	hs := []string{"a", "b"}
	table.Column(tab, 0).AliasTimes(ts)
	table.Column(tab, 1).AliasNums(vs)
	table.Column(tab, 2).AliasStrs(hs)
	require.Equal(t, 2, tab.Len())
	got, _ := tab.Strings("h")
	assert.Equal(t, hs, got)
	assert.False(t, table.Column(tab, 2).IsMissing(1))
	table.Reset(tab)
	table.Column(tab, 0).AppendTime(9)
	table.Column(tab, 1).AppendNum(9)
	table.Column(tab, 2).AppendStr("z")
	assert.Equal(t, []int64{1, 2}, ts, "appending after a reset never writes into the borrowed slices")
	assert.Equal(t, []float64{1.5, 2.5}, vs)
	assert.Equal(t, []string{"a", "b"}, hs)
	assert.Equal(t, 1, tab.Len())
}

// TestANilOrZeroSchemaIsRefused: functions that return an error refuse a
// schema not built with New; those that cannot panic, saying so.
func TestANilOrZeroSchemaIsRefused(t *testing.T) {
	for name, s := range map[string]*schema.Schema{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			assert.ErrorIs(t, s.Validate(&schema.Batch{}, false), schema.ErrSchema)
			assert.ErrorIs(t, s.AppendRows(&schema.Batch{}, nil), schema.ErrSchema)
			_, err := s.Ref("value", schema.Number)
			assert.ErrorIs(t, err, schema.ErrSchema)
			if s != nil {
				_, err = schema.NewCodec[numbersRow](s)
				assert.ErrorIs(t, err, schema.ErrSchema)
			}
			assert.PanicsWithValue(t, "schema: NewTable of a nil or zero *Schema (build one with New)", func() { schema.NewTable(s) })
			assert.PanicsWithValue(t, "schema: NewBatch of a nil or zero *Schema (build one with New)", func() { schema.NewBatch(s, 1) })
		})
	}
}

// TestAZeroTableIsEmpty: a zero Table reads as a table without rows, as
// its Len says, and clones to one.
func TestAZeroTableIsEmpty(t *testing.T) {
	var z schema.Table
	assert.Nil(t, z.Times())
	c := z.Clone()
	assert.Equal(t, 0, c.Len())
	assert.Nil(t, c.Times())
	codec, err := schema.NewCodec[numbersRow](nil)
	require.NoError(t, err)
	rows, err := codec.Decode(nil, &z)
	require.NoError(t, err)
	assert.Empty(t, rows)
}

// TestNilAndZeroSchemasAreEqual: Equal takes a nil and a zero Schema
// (the type's doc), and reads both as schemas without columns: equal to
// each other, unequal to a schema with columns.
func TestNilAndZeroSchemasAreEqual(t *testing.T) {
	var nilSch *schema.Schema
	zero := &schema.Schema{}
	full := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time})
	assert.True(t, nilSch.Equal(zero))
	assert.True(t, zero.Equal(nilSch))
	assert.True(t, nilSch.Equal(nil))
	assert.False(t, nilSch.Equal(full))
	assert.False(t, full.Equal(zero))
	assert.True(t, full.Equal(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time})))
}

// A name may hold a line break, a space or the renderings' separators:
// Table.String keeps one row per line and Schema.String one pair per
// column by quoting such a name.
func TestStringsQuoteNamesThatWouldBreakThem(t *testing.T) {
	sch, err := schema.New(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "a\nb", Kind: schema.Number},
		schema.Column{Name: "x=1 y", Kind: schema.String, Optional: true},
		schema.Column{Name: "naïve", Kind: schema.Bool},
	)
	require.NoError(t, err)
	assert.Equal(t, `time:time, "a\nb":number, "x=1 y":string?, naïve:boolean`, sch.String())
	tb := schema.NewTable(sch)
	for i := range 2 {
		require.True(t, tb.AppendRowValues(schema.Row{
			schema.TimeValue(time.Unix(int64(i), 0).UTC()), schema.NumberValue(1), schema.StringValue("v\n"), schema.BoolValue(true),
		}))
	}
	lines := strings.Split(tb.String(), "\n")
	require.Len(t, lines, 2, "one row per line")
	assert.Equal(t, `time=1970-01-01T00:00:00Z "a\nb"=1 "x=1 y"="v\n" naïve=true`, lines[0])
}
