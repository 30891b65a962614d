package schema_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/pond-go/pond/schema"
)

var jsonFuzzSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "b", Kind: schema.Bool, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
)

// FuzzTableJSON writes tables of any strings (control characters, bytes
// that are not UTF-8, U+2028), any numbers (NaN, ±Inf, -0, subnormal,
// huge), times off the millisecond and arrays of mixed values: every
// form the table writes (whole, by columns, row by row) must be valid
// JSON.
func FuzzTableJSON(f *testing.F) {
	f.Add(int64(1735689600000000000), 0.5, "host", true, uint64(0))
	f.Add(int64(-1), math.Inf(1), "a\x00\x1f\"\\\u2028\xff", false, math.Float64bits(math.NaN()))
	f.Add(int64(math.MaxInt64), math.Copysign(0, -1), "", true, math.Float64bits(5e-324))
	f.Fuzz(func(t *testing.T, ns int64, x float64, s string, b bool, ybits uint64) {
		y := math.Float64frombits(ybits)
		tab := schema.NewTable(jsonFuzzSchema)
		tab.AppendRowValues(schema.Row{schema.NanosValue(ns), schema.NumberValue(x), schema.StringValue(s), schema.BoolValue(b),
			schema.ArrayValue(schema.NumberValue(y), schema.StringValue(s), schema.BoolValue(!b), schema.Missing())})
		tab.AppendRowValues(schema.Row{schema.NanosValue(ns / 3), schema.Missing(), schema.Missing(), schema.Missing(), schema.Missing()})
		tab.AppendRowValues(schema.Row{schema.NanosValue(ns / 7), schema.NumberValue(y), schema.StringValue(s + s), schema.BoolValue(b), schema.ArrayValue()})
		for name, out := range map[string][]byte{
			"table":   tab.AppendJSON(nil),
			"columns": tab.AppendJSONColumns(nil),
			"row 0":   tab.AppendJSONRow(nil, 0),
			"row 1":   tab.AppendJSONRow(nil, 1),
			"row 2":   tab.AppendJSONRow(nil, 2),
		} {
			if !json.Valid(out) {
				t.Fatalf("%s: not JSON:\n%s", name, out)
			}
		}
	})
}
