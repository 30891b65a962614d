package schema_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// jsonTable holds every kind of cell the encoder writes: present and
// missing, finite and not, escapes, arrays, a sub-millisecond time.
func jsonTable(t *testing.T) *schema.Table {
	t.Helper()
	tab := schema.NewTable(metrics())
	rows := []schema.Row{
		{schema.MillisValue(1000), schema.NumberValue(0.5), schema.StringValue("a"), schema.BoolValue(true),
			schema.ArrayValue(schema.NumberValue(1), schema.NumberValue(2.5))},
		{schema.NanosValue(2_000_500_000), schema.NumberValue(1e-7), schema.StringValue("q\"uo\\te\n\t\x01 é \u2028"), schema.BoolValue(false),
			schema.ArrayValue(schema.StringValue("x"), schema.StringValue("y"))},
		{schema.MillisValue(3000), schema.NumberValue(1e21), schema.StringValue(""), {}, {}},
		{schema.MillisValue(-4000), schema.NumberValue(-123456.789), schema.StringValue("\xff"), {}, schema.ArrayValue()},
	}
	for _, r := range rows {
		require.True(t, tab.AppendRowValues(r))
	}
	// Non-finite numbers never enter a series; a table built by hand may
	// still hold one, and it is written as null.
	table.Column(tab, 1).AppendNum(math.Inf(1))
	table.Column(tab, 0).AppendTime(5_000_000_000)
	table.Column(tab, 2).AppendMissing()
	table.Column(tab, 3).AppendMissing()
	table.Column(tab, 4).AppendMissing()
	return tab
}

func TestTableJSONRowsRoundTripThroughEncodingJSON(t *testing.T) {
	tab := jsonTable(t)
	out := tab.AppendJSON(nil)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(out, &rows), "%s", out)
	want := []map[string]any{
		{"time": 1000.0, "cpu": 0.5, "host": "a", "up": true, "tags": []any{1.0, 2.5}},
		{"time": 2000.5, "cpu": 1e-7, "host": "q\"uo\\te\n\t\x01 é \u2028", "up": false, "tags": []any{"x", "y"}},
		{"time": 3000.0, "cpu": 1e21, "host": "", "up": nil, "tags": nil},
		{"time": -4000.0, "cpu": -123456.789, "host": "\ufffd", "up": nil, "tags": []any{}},
		{"time": 5000.0, "cpu": nil, "host": nil, "up": nil, "tags": nil},
	}
	assert.Equal(t, want, rows)
}

func TestTableJSONColumnsRoundTripThroughEncodingJSON(t *testing.T) {
	tab := jsonTable(t)
	out := tab.AppendJSONColumns(nil)
	var cols map[string][]any
	require.NoError(t, json.Unmarshal(out, &cols), "%s", out)
	assert.Equal(t, []any{1000.0, 2000.5, 3000.0, -4000.0, 5000.0}, cols["time"])
	assert.Equal(t, []any{0.5, 1e-7, 1e21, -123456.789, nil}, cols["cpu"])
	assert.Equal(t, []any{true, false, nil, nil, nil}, cols["up"])
	assert.Len(t, cols, 5)
}

func TestTableJSONWritesNumbersAndStringsAsEncodingJSONDoes(t *testing.T) {
	nums := []float64{0, 1, -1, 0.1, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, 5e-324, math.MaxFloat64, -2.5e-9}
	strs := []string{"", "plain", "<&>", "\x00\x1f\x7f", "日本", "a\u2029b", "bad\xc3("}
	sch := schema.MustNew(col("time", schema.Time), opt("x", schema.Number), opt("s", schema.String))
	for _, x := range nums {
		tab := schema.NewTable(sch)
		require.True(t, tab.AppendRowValues(schema.Row{schema.MillisValue(0), schema.NumberValue(x), {}}))
		want, err := json.Marshal(x)
		require.NoError(t, err)
		assert.Equal(t, `{"time":0,"x":`+string(want)+`,"s":null}`, string(tab.AppendJSONRow(nil, 0)), "%v", x)
	}
	for _, s := range strs {
		tab := schema.NewTable(sch)
		require.True(t, tab.AppendRowValues(schema.Row{schema.MillisValue(0), {}, schema.StringValue(s)}))
		var got map[string]any
		require.NoError(t, json.Unmarshal(tab.AppendJSONRow(nil, 0), &got))
		var want string
		enc, _ := json.Marshal(s)
		require.NoError(t, json.Unmarshal(enc, &want))
		assert.Equal(t, want, got["s"], "%q", s)
	}
}

func TestTableJSONWritesNegativeZeroAsZero(t *testing.T) {
	// JavaScript's JSON.stringify, and so pond-ts's toJSON, write -0 as 0;
	// encoding/json would write -0.
	sch := schema.MustNew(col("time", schema.Time), opt("x", schema.Number))
	tab := schema.NewTable(sch)
	require.True(t, tab.AppendRowValues(schema.Row{schema.MillisValue(0), schema.NumberValue(math.Copysign(0, -1))}))
	assert.Equal(t, `{"time":0,"x":0}`, string(tab.AppendJSONRow(nil, 0)))
}

func TestTableJSONAppendsWithoutAllocating(t *testing.T) {
	tab := jsonTable(t)
	buf := tab.AppendJSON(nil)
	n := allocs.Count(100, func() {
		buf = tab.AppendJSON(buf[:0])
		buf = tab.AppendJSONColumns(buf[:0])
	})
	assert.Zero(t, n)
}

// TestTableJSONWritesASubMillisecondTimeAsAFloat64: a time off the whole
// millisecond is written as the float64 of its milliseconds, as pond-ts
// holds it: its fraction is rounded to the float64's step and may vanish.
func TestTableJSONWritesASubMillisecondTimeAsAFloat64(t *testing.T) {
	cases := []struct {
		ns   int64
		want string
	}{
		{2_000_500_000, "2000.5"},
		{-1_500_000, "-1.5"},
		{1_700_000_000_000_000_000, "1700000000000"},
		{1_700_000_000_000_123_456, "1700000000000.1233"},
		{1_700_000_000_000_000_001, "1700000000000"},
	}
	sch := schema.MustNew(col("time", schema.Time))
	for _, c := range cases {
		tab := schema.NewTable(sch)
		require.True(t, tab.AppendRowValues(schema.Row{schema.NanosValue(c.ns)}))
		assert.Equal(t, `{"time":`+c.want+`}`, string(tab.AppendJSONRow(nil, 0)), "%d ns", c.ns)
	}
}
