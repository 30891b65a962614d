package schema_test

// The readers probes: the exact text the JSON encoders write, checked
// against a model of JavaScript's Number.prototype.toString (which the
// docs name: "numbers in JavaScript's shortest round-trip form", times as
// epoch milliseconds, whole ones as integers), the strings they write
// against encoding/json's reading of them, and a clone's independence of
// the table it was cloned from. Every identifier here starts with rdr.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
)

// rdrJSNumber writes f as ECMAScript's Number::toString does (radix 10):
// the shortest digits that round-trip, in fixed notation for decimal
// exponents from -6 to 20, else in exponential notation with an explicit
// sign ("1e+21", "1e-7"); NaN and ±Inf have no JSON form and are null.
func rdrJSNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, err := strconv.Atoi(exp)
	if err != nil {
		panic(err)
	}
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	s := digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if n-1 >= 0 {
		return sign + s + "e+" + strconv.Itoa(n-1)
	}
	return sign + s + "e-" + strconv.Itoa(1-n)
}

// rdrJSTime writes a time in nanoseconds as the docs say: an integer of
// milliseconds when whole, else the float64 quotient by 1e6 as JavaScript
// writes it.
func rdrJSTime(ns int64) string {
	if ns%1_000_000 == 0 {
		return strconv.FormatInt(ns/1_000_000, 10)
	}
	return rdrJSNumber(float64(ns) / 1e6)
}

func rdrNumber(r *rand.Rand) float64 {
	switch r.IntN(14) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.SmallestNonzeroFloat64 * float64(1+r.IntN(1000))
	case 2:
		return math.MaxFloat64 / float64(1+r.IntN(3))
	case 3:
		return 1e308
	case 4:
		return math.Float64frombits(r.Uint64N(1 << 52)) // a subnormal
	case 5:
		return float64(r.Int64N(1<<62)) * rdrSign(r)
	case 6: // around the thresholds of fixed notation
		return math.Pow(10, float64(rdrPickOf(r, -7, -6, 20, 21, 22))) * (1 + float64(r.IntN(3))/7) * rdrSign(r)
	case 7:
		return float64(r.IntN(2000)-1000) / 8
	case 8:
		return math.Pow(10, float64(r.IntN(640)-330)) * rdrSign(r)
	}
	for {
		if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

func rdrSign(r *rand.Rand) float64 { return float64(1 - 2*r.IntN(2)) }

func rdrPickOf(r *rand.Rand, xs ...int) int { return xs[r.IntN(len(xs))] }

// TestRdrJSONNumbersAndTimesAreJavaScriptsText writes random numbers (in
// a number column and inside arrays) and times and compares the text with
// the model of JavaScript's.
func TestRdrJSONNumbersAndTimesAreJavaScriptsText(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 1))
	sch := schema.MustNew(col("time", schema.Time), opt("x", schema.Number), opt("a", schema.Array))
	// A few by hand, which the model itself must get right.
	for f, want := range map[float64]string{
		1e21: "1e+21", 1e20: "100000000000000000000", 1e-7: "1e-7", 1e-6: "0.000001", 123e-20: "1.23e-18",
		5e-324: "5e-324", 1e308: "1e+308", -1.5: "-1.5", 0.1: "0.1", 1.7976931348623157e308: "1.7976931348623157e+308",
		math.Copysign(0, -1): "0", 2.5e-9: "2.5e-9", 123456789012345680000: "123456789012345680000",
	} {
		require.Equal(t, want, rdrJSNumber(f), "model of %v", f)
	}
	for iter := range 4000 {
		f, g := rdrNumber(r), rdrNumber(r)
		var ns int64
		switch r.IntN(4) {
		case 0:
			ns = r.Int64N(schema.MaxTime) * int64(rdrSign(r))
		case 1:
			ns = (r.Int64N(schema.MaxTime/1_000_000) * int64(rdrSign(r))) * 1_000_000
		case 2:
			ns = int64(rdrPickOf(r, 0, 1, -1, 999_999, -999_999, 1_000_001, -1_000_001, 1_500_000))
		default:
			ns = schema.MaxTime - r.Int64N(1e7)
			if r.IntN(2) == 0 {
				ns = -ns
			}
		}
		tab := schema.NewTable(sch)
		require.True(t, tab.AppendRowValues(schema.Row{schema.NanosValue(ns), schema.NumberValue(f),
			schema.ArrayValue(schema.NumberValue(g), schema.NumberValue(f))}))
		want := `{"time":` + rdrJSTime(ns) + `,"x":` + rdrJSNumber(f) + `,"a":[` + rdrJSNumber(g) + "," + rdrJSNumber(f) + `]}`
		if got := string(tab.AppendJSONRow(nil, 0)); got != want {
			t.Fatalf("iter %d: ns %d, x %v, a [%v %v]:\n got %s\nwant %s", iter, ns, f, g, f, got, want)
		}
		wantCols := `{"time":[` + rdrJSTime(ns) + `],"x":[` + rdrJSNumber(f) + `],"a":[[` + rdrJSNumber(g) + "," + rdrJSNumber(f) + `]]}`
		if got := string(tab.AppendJSONColumns(nil)); got != wantCols {
			t.Fatalf("iter %d: columns:\n got %s\nwant %s", iter, got, wantCols)
		}
	}
}

func rdrString(r *rand.Rand) string {
	pieces := []string{"a", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "é", "\u2028", "\u2029",
		"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "😀", "\U0010ffff", "\ufffd", "<&>", "/", "\u0085", "\u00a0", "'"}
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestRdrJSONStringsReadBackAsEncodingJSONsOwn writes random strings as
// string cells and array elements: the text must be JSON, safe to embed
// in JavaScript (no raw control character, U+2028 or U+2029) and read
// back as encoding/json reads its own encoding of the same string
// (invalid bytes as U+FFFD).
func TestRdrJSONStringsReadBackAsEncodingJSONsOwn(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	sch := schema.MustNew(col("time", schema.Time), opt("s", schema.String), opt("a", schema.Array), opt("b", schema.Bool))
	for iter := range 3000 {
		s, u := rdrString(r), rdrString(r)
		tab := schema.NewTable(sch)
		b := schema.BoolValue(r.IntN(2) == 0)
		require.True(t, tab.AppendRowValues(schema.Row{schema.MillisValue(int64(iter)), schema.StringValue(s),
			schema.ArrayValue(schema.StringValue(u), b, schema.NumberValue(1.5), schema.StringValue(s)), b}))
		out := tab.AppendJSON(nil)
		for i := 0; i < len(out); {
			c, size := utf8.DecodeRune(out[i:])
			if c < 0x20 || c == '\u2028' || c == '\u2029' || c == utf8.RuneError && size == 1 {
				t.Fatalf("iter %d: raw %U at byte %d of %q", iter, c, i, out)
			}
			i += size
		}
		var got []map[string]any
		require.NoError(t, json.Unmarshal(out, &got), "%q", out)
		var ws, wu string
		es, _ := json.Marshal(s)
		eu, _ := json.Marshal(u)
		require.NoError(t, json.Unmarshal(es, &ws))
		require.NoError(t, json.Unmarshal(eu, &wu))
		bv, _ := b.Bool()
		want := []map[string]any{{"time": float64(iter), "s": ws, "a": []any{wu, bv, 1.5, ws}, "b": bv}}
		require.Equal(t, want, got, "iter %d: %q", iter, out)
	}
}

// TestRdrCloneIsIndependent appends to a table after cloning it, and to
// the clone, and reads each as it was.
func TestRdrCloneIsIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 3))
	sch := schema.MustNew(col("time", schema.Time), opt("x", schema.Number), opt("s", schema.String), opt("b", schema.Bool), opt("a", schema.Array))
	row := func(i int) schema.Row {
		var elems []schema.Value
		wide := r.IntN(2) == 0
		for range r.IntN(4) {
			if wide {
				elems = append(elems, schema.StringValue(rdrString(r)))
			} else {
				elems = append(elems, schema.NumberValue(rdrNumber(r)))
			}
		}
		cells := schema.Row{schema.MillisValue(int64(i)), schema.NumberValue(rdrNumber(r)), schema.StringValue(rdrString(r)),
			schema.BoolValue(r.IntN(2) == 0), schema.ArrayValue(elems...)}
		for j := 1; j < len(cells); j++ {
			if r.IntN(4) == 0 {
				cells[j] = schema.Missing()
			}
		}
		return cells
	}
	for iter := range 300 {
		tab := schema.NewTable(sch)
		for i := range r.IntN(5) {
			tab.AppendRowValues(row(i))
		}
		before := tab.AppendJSON(nil)
		clone := tab.Clone()
		require.True(t, clone.Schema().Equal(sch))
		require.Equal(t, string(before), string(clone.AppendJSON(nil)), "iter %d", iter)
		for i := range 3 {
			tab.AppendRowValues(row(10 + i))
		}
		require.Equal(t, string(before), string(clone.AppendJSON(nil)), "iter %d: the original grew", iter)
		again := tab.AppendJSON(nil)
		clone.AppendRowValues(row(20))
		require.Equal(t, string(again), string(tab.AppendJSON(nil)), "iter %d: the clone grew", iter)
		if !bytes.HasPrefix(again, before[:len(before)-1]) {
			t.Fatalf("iter %d: appending changed the rows before:\n%s\n%s", iter, before, again)
		}
	}
}
