package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pond-go/pond/schema"
)

// probeString returns a random string: ASCII, control characters, quotes,
// non-ASCII, U+2028 and invalid UTF-8.
func probeString(r *rand.Rand) string {
	pieces := []string{"a", "b", "", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "日本", "\u2028", "\u2029", "\xff", "\xc3", "<&>", "😀", "\ufffd", " "}
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func probeNumber(r *rand.Rand) float64 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.NaN()
	case 3:
		return math.Inf(1 - 2*r.IntN(2))
	case 4:
		return math.MaxFloat64 * float64(1-2*r.IntN(2))
	case 5:
		return math.SmallestNonzeroFloat64
	case 6:
		return float64(r.Int64N(1<<60) - 1<<59)
	case 7:
		return math.Pow(10, float64(r.IntN(60)-30)) * float64(1-2*r.IntN(2))
	case 8:
		return 1e21
	case 9:
		return 1e-7
	}
	return math.Float64frombits(r.Uint64())
}

func probeScalar(r *rand.Rand) schema.Value {
	switch r.IntN(3) {
	case 0:
		return schema.NumberValue(probeNumber(r))
	case 1:
		return schema.StringValue(probeString(r))
	}
	return schema.BoolValue(r.IntN(2) == 0)
}

func probeTime(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return schema.MaxTime - r.Int64N(3)
	case 1:
		return schema.MinTime + r.Int64N(3)
	case 2:
		return r.Int64N(4_000_000_000) * 1_000_000
	case 3:
		return -r.Int64N(4_000_000_000) * 1_000_000
	}
	return r.Int64N(schema.MaxTime) * int64(1-2*r.IntN(2))
}

// wantJSONNumber checks that a JSON number token is what the docs say for f.
func wantJSONNumber(tok any, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if tok != nil {
			return fmt.Errorf("non-finite %v written as %v, want null", f, tok)
		}
		return nil
	}
	n, ok := tok.(json.Number)
	if !ok {
		return fmt.Errorf("number %v written as %#v", f, tok)
	}
	got, err := strconv.ParseFloat(string(n), 64)
	if err != nil || got != f {
		return fmt.Errorf("number %v written as %s", f, n)
	}
	if f == 0 && string(n) != "0" {
		return fmt.Errorf("zero %v written as %s, want 0", f, n)
	}
	return nil
}

// wantJSONString is s as encoding/json reads back what AppendJSON writes:
// each invalid byte becomes U+FFFD.
func wantJSONString(s string) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteRune(c)
	}
	return b.String()
}

func wantJSONValue(tok any, v schema.Value) error {
	switch v.Kind() {
	case 0:
		if tok != nil {
			return fmt.Errorf("missing written as %#v", tok)
		}
	case schema.Number:
		f, _ := v.Num()
		return wantJSONNumber(tok, f)
	case schema.String:
		s, _ := v.Str()
		if tok != wantJSONString(s) {
			return fmt.Errorf("string %q written as %#v", s, tok)
		}
	case schema.Bool:
		b, _ := v.Bool()
		if tok != b {
			return fmt.Errorf("bool %v written as %#v", b, tok)
		}
	case schema.Time:
		ns, _ := v.Nanos()
		return wantJSONTime(tok, ns)
	case schema.Array:
		elems, _ := v.Array()
		arr, ok := tok.([]any)
		if !ok || len(arr) != len(elems) {
			return fmt.Errorf("array %v written as %#v", v, tok)
		}
		for k := range elems {
			if err := wantJSONValue(arr[k], elems[k]); err != nil {
				return fmt.Errorf("element %d: %w", k, err)
			}
		}
	}
	return nil
}

func wantJSONTime(tok any, ns int64) error {
	n, ok := tok.(json.Number)
	if !ok {
		return fmt.Errorf("time %d written as %#v", ns, tok)
	}
	if ns%1_000_000 == 0 {
		if string(n) != strconv.FormatInt(ns/1_000_000, 10) {
			return fmt.Errorf("time %d written as %s, want the integer %d", ns, n, ns/1_000_000)
		}
		return nil
	}
	got, err := strconv.ParseFloat(string(n), 64)
	if want := float64(ns) / 1e6; err != nil || got != want {
		return fmt.Errorf("time %d written as %s, want %v", ns, n, want)
	}
	return nil
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return v
}

// TestProbeTableRoundTrip fills random tables with AppendRowValues and
// reads them back through every reader, comparing with the cells given.
func TestProbeTableRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 1))
	kinds := []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array}
	checked := 0
	for iter := range 300 {
		cols := []schema.Column{{Name: "time", Kind: schema.Time}}
		for j := range 1 + r.IntN(4) {
			name := fmt.Sprintf("c%d%s", j, wantJSONString(probeString(r)))
			cols = append(cols, schema.Column{Name: name, Kind: kinds[r.IntN(len(kinds))], Optional: r.IntN(2) == 0})
		}
		s, err := schema.New(cols...)
		if err != nil {
			t.Fatalf("New(%v): %v", cols, err)
		}
		tab := schema.NewTable(s)
		var rows []schema.Row
		ts := probeTime(r)
		for range r.IntN(6) {
			if r.IntN(3) == 0 {
				ts = probeTime(r)
			}
			row := schema.Row{schema.NanosValue(ts)}
			want := schema.Row{schema.NanosValue(ts)}
			fits := true
			for _, c := range cols[1:] {
				var v schema.Value
				switch {
				case r.IntN(5) == 0:
					v = schema.Missing()
				case c.Kind == schema.Number:
					v = schema.NumberValue(probeNumber(r))
				case c.Kind == schema.String:
					v = schema.StringValue(probeString(r))
				case c.Kind == schema.Bool:
					v = schema.BoolValue(r.IntN(2) == 0)
				default:
					var elems []schema.Value
					allNum := r.IntN(2) == 0
					for range r.IntN(4) {
						e := probeScalar(r)
						if allNum {
							e = schema.NumberValue(probeNumber(r))
						}
						elems = append(elems, e)
					}
					v = schema.ArrayValue(elems...)
				}
				if r.IntN(10) == 0 {
					// a cell of another kind is stored as missing
					v = pick(r, schema.NumberValue(1), schema.StringValue("s"), schema.BoolValue(true), schema.NanosValue(5), schema.ArrayValue())
					if v.Kind() != c.Kind {
						row = append(row, v)
						want = append(want, schema.Missing())
						fits = false
						continue
					}
				}
				if a, ok := v.Array(); ok && r.IntN(4) == 0 {
					// elements validation would refuse, which a table still holds
					a = append(a, pick(r, schema.Missing(), schema.NanosValue(ts), schema.ArrayValue(schema.NumberValue(2))))
					v = schema.ArrayValue(a...)
				}
				row = append(row, v)
				want = append(want, v)
			}
			switch r.IntN(12) {
			case 0: // a short row: the rest is missing
				k := 1 + r.IntN(len(row))
				for j := k; j < len(row); j++ {
					want[j] = schema.Missing()
				}
				row, fits = row[:k], fits && k == len(row)
			case 1: // a long row: the extra cells are left out
				row, fits = append(row, schema.NumberValue(1)), false
			}
			if got := tab.AppendRowValues(row); got != fits && !hasNonFinite(row) {
				t.Fatalf("iter %d: AppendRowValues(%v) = %v, want %v", iter, row, got, fits)
			}
			rows = append(rows, want)
		}
		if tab.Len() != len(rows) {
			t.Fatalf("iter %d: Len %d, want %d", iter, tab.Len(), len(rows))
		}
		clone := tab.Clone()
		for i, want := range rows {
			got := tab.Row(i)
			for j := range want {
				w := want[j]
				if f, ok := w.Num(); ok && (math.IsNaN(f) || math.IsInf(f, 0)) && j > 0 {
					// a non-finite number in a number column reads back missing
					w = schema.Missing()
				}
				if !got[j].Equal(w) && !(w.Kind() == schema.Array && equalArrayNaN(got[j], w)) {
					t.Fatalf("iter %d: row %d col %d: Row gives %v, want %v", iter, i, j, got[j], w)
				}
				if v := tab.Value(i, j); !v.Equal(got[j]) && !equalArrayNaN(v, got[j]) {
					t.Fatalf("iter %d: Value(%d,%d) = %v, Row gives %v", iter, i, j, v, got[j])
				}
				if v := clone.Value(i, j); !v.Equal(got[j]) && !equalArrayNaN(v, got[j]) {
					t.Fatalf("iter %d: clone Value(%d,%d) = %v, want %v", iter, i, j, v, got[j])
				}
				checked++
			}
			if tab.TimeNanos(i) != mustNanos(want[0]) {
				t.Fatalf("iter %d: TimeNanos(%d) = %d, want %d", iter, i, tab.TimeNanos(i), mustNanos(want[0]))
			}
		}
		n := 0
		for i, row := range tab.All() {
			if i != n || len(row) != len(cols) {
				t.Fatalf("iter %d: All gave row %d (len %d) at %d", iter, i, len(row), n)
			}
			n++
		}
		if n != len(rows) {
			t.Fatalf("iter %d: All gave %d rows, want %d", iter, n, len(rows))
		}
		// Runs: a partition of [0, Len) into maximal runs of equal times.
		next := 0
		for run := range tab.Runs() {
			if run.From != next || run.To <= run.From || run.Len() != run.To-run.From {
				t.Fatalf("iter %d: run %+v after %d", iter, run, next)
			}
			for i := run.From; i < run.To; i++ {
				if tab.TimeNanos(i) != run.Time {
					t.Fatalf("iter %d: run %+v holds row %d at %d", iter, run, i, tab.TimeNanos(i))
				}
			}
			if run.To < tab.Len() && tab.TimeNanos(run.To) == run.Time {
				t.Fatalf("iter %d: run %+v is not maximal", iter, run)
			}
			next = run.To
		}
		if next != tab.Len() {
			t.Fatalf("iter %d: runs end at %d, want %d", iter, next, tab.Len())
		}
		// Numbers and Strings by name.
		for j, c := range cols[1:] {
			nums, okN := tab.Numbers(c.Name)
			strs, okS := tab.Strings(c.Name)
			if okN != (c.Kind == schema.Number) || okS != (c.Kind == schema.String) {
				t.Fatalf("iter %d: Numbers/Strings(%q) of a %v column: %v %v", iter, c.Name, c.Kind, okN, okS)
			}
			for i := range rows {
				v := tab.Value(i, j+1)
				if okN {
					f, ok := v.Num()
					if ok != !math.IsNaN(nums[i]) || ok && f != nums[i] {
						t.Fatalf("iter %d: Numbers(%q)[%d] = %v, Value %v", iter, c.Name, i, nums[i], v)
					}
				}
				if okS {
					s, _ := v.Str()
					if strs[i] != s {
						t.Fatalf("iter %d: Strings(%q)[%d] = %q, Value %v", iter, c.Name, i, strs[i], v)
					}
				}
			}
		}
		// JSON by rows and by columns.
		byRows, ok := decodeJSON(t, tab.AppendJSON(nil)).([]any)
		if !ok || len(byRows) != tab.Len() {
			t.Fatalf("iter %d: AppendJSON gave %d rows, want %d", iter, len(byRows), tab.Len())
		}
		byCols, ok := decodeJSON(t, tab.AppendJSONColumns(nil)).(map[string]any)
		if !ok || len(byCols) != len(cols) {
			t.Fatalf("iter %d: AppendJSONColumns gave %v", iter, byCols)
		}
		for i := range rows {
			obj := byRows[i].(map[string]any)
			one := decodeJSON(t, tab.AppendJSONRow(nil, i)).(map[string]any)
			if len(obj) != len(cols) || len(one) != len(cols) {
				t.Fatalf("iter %d: row %d has %d/%d keys, want %d", iter, i, len(obj), len(one), len(cols))
			}
			for j, c := range cols {
				v := tab.Value(i, j)
				colArr := byCols[c.Name].([]any)
				for _, tok := range []any{obj[c.Name], one[c.Name], colArr[i]} {
					if err := wantJSONValue(tok, v); err != nil {
						t.Fatalf("iter %d: row %d column %q: %v", iter, i, c.Name, err)
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d cells checked", checked)
	}
}

func mustNanos(v schema.Value) int64 { ns, _ := v.Nanos(); return ns }

// equalArrayNaN is Equal for arrays, where a NaN element equals a NaN one.
func equalArrayNaN(a, b schema.Value) bool {
	x, ok1 := a.Array()
	y, ok2 := b.Array()
	if !ok1 || !ok2 || len(x) != len(y) {
		return false
	}
	for i := range x {
		fx, okx := x[i].Num()
		fy, oky := y[i].Num()
		if okx && oky && math.IsNaN(fx) && math.IsNaN(fy) {
			continue
		}
		if !x[i].Equal(y[i]) {
			return false
		}
	}
	return true
}

// TestProbeValueAccessors checks every constructor against every accessor.
func TestProbeValueAccessors(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	checked := 0
	for range 2000 {
		var v schema.Value
		var want schema.Kind
		f, s, b := probeNumber(r), probeString(r), r.IntN(2) == 0
		ns := probeTime(r)
		switch k := r.IntN(6); k {
		case 0:
			v, want = schema.Missing(), 0
		case 1:
			v, want = schema.NumberValue(f), schema.Number
		case 2:
			v, want = schema.StringValue(s), schema.String
		case 3:
			v, want = schema.BoolValue(b), schema.Bool
		case 4:
			v, want = schema.NanosValue(ns), schema.Time
		case 5:
			v, want = schema.ArrayValue(schema.NumberValue(f), schema.StringValue(s)), schema.Array
		}
		if v.Kind() != want || v.IsMissing() != (want == 0) {
			t.Fatalf("%v: Kind %v IsMissing %v, want %v", v, v.Kind(), v.IsMissing(), want)
		}
		gf, okF := v.Num()
		gs, okS := v.Str()
		gb, okB := v.Bool()
		ga, okA := v.Array()
		gn, okT := v.Nanos()
		gt, okTT := v.Time()
		if okF != (want == schema.Number) || okS != (want == schema.String) || okB != (want == schema.Bool) ||
			okA != (want == schema.Array) || okT != (want == schema.Time) || okTT != okT {
			t.Fatalf("%v: accessor oks %v %v %v %v %v %v", v, okF, okS, okB, okA, okT, okTT)
		}
		switch want {
		case 0:
			if v.String() != "null" || v.Any() != nil {
				t.Fatalf("missing: String %q Any %v", v.String(), v.Any())
			}
		case schema.Number:
			if math.Float64bits(gf) != math.Float64bits(f) {
				t.Fatalf("Num of %v = %v", f, gf)
			}
			if g, err := strconv.ParseFloat(v.String(), 64); (err != nil && !math.IsInf(f, 0)) || (g != f && !math.IsNaN(f)) {
				t.Fatalf("String of %v = %q", f, v.String())
			}
		case schema.String:
			if gs != s || v.String() != strconv.Quote(s) || v.Any() != s {
				t.Fatalf("Str of %q = %q, String %s", s, gs, v.String())
			}
		case schema.Bool:
			if gb != b || v.String() != strconv.FormatBool(b) {
				t.Fatalf("Bool of %v = %v", b, gb)
			}
		case schema.Time:
			if gn != ns || !gt.Equal(time.Unix(0, ns)) || gt.Location() != time.UTC {
				t.Fatalf("Nanos of %d = %d, Time %v", ns, gn, gt)
			}
			if want := time.Unix(0, ns).UTC().Format(time.RFC3339Nano); v.String() != want {
				t.Fatalf("String of time %d = %q, want %q", ns, v.String(), want)
			}
			if tv := schema.TimeValue(gt); !tv.Equal(v) {
				t.Fatalf("TimeValue(%v) = %v, want %v", gt, tv, v)
			}
		case schema.Array:
			if len(ga) != 2 || !ga[1].Equal(schema.StringValue(s)) {
				t.Fatalf("Array = %v", ga)
			}
		}
		if !v.Equal(v) && !(want == schema.Number && math.IsNaN(f)) && !(want == schema.Array && math.IsNaN(f)) {
			t.Fatalf("%v not Equal to itself", v)
		}
		if o, err := schema.Of(v.Any()); err != nil || (!o.Equal(v) && want != schema.Number && want != schema.Array) {
			t.Fatalf("Of(Any()) of %v = %v, %v", v, o, err)
		}
		checked++
	}
	if checked < 2000 {
		t.Fatalf("checked %d", checked)
	}
}

// TestProbeMillisValue compares MillisValue and TimeValue with the model:
// inside the range the exact time, outside a key validation rejects with
// TimeRange.
func TestProbeMillisValue(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	s := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time})
	const lim = schema.MaxTime / 1_000_000
	cases := []int64{0, 1, -1, lim, lim + 1, -lim, -lim - 1, math.MaxInt64, math.MinInt64, math.MaxInt64 / 1_000_000, math.MaxInt64/1_000_000 + 1, math.MinInt64 / 1_000_000, math.MinInt64/1_000_000 - 1}
	for range 3000 {
		switch r.IntN(3) {
		case 0:
			cases = append(cases, int64(r.Uint64()))
		case 1:
			cases = append(cases, lim+r.Int64N(2_000_000)-1_000_000)
		default:
			cases = append(cases, -lim+r.Int64N(2_000_000)-1_000_000)
		}
	}
	for _, ms := range cases {
		inRange := ms >= -lim && ms <= lim
		for _, v := range []schema.Value{schema.MillisValue(ms), schema.TimeValue(time.UnixMilli(ms))} {
			ns, ok := v.Nanos()
			if !ok {
				t.Fatalf("MillisValue(%d) is not a time", ms)
			}
			if inRange && ns != ms*1_000_000 {
				t.Fatalf("%d ms gives %d ns", ms, ns)
			}
			b := schema.NewBatch(s, 1)
			err := s.AppendRows(b, []schema.Row{{v}})
			if err == nil {
				err = s.Validate(b, true)
			}
			var re *schema.RowError
			switch {
			case inRange && err != nil:
				t.Fatalf("%d ms: %v", ms, err)
			case !inRange && (!errors.As(err, &re) || re.Reason != schema.TimeRange || !errors.Is(err, schema.ErrValidation)):
				t.Fatalf("%d ms (out of range) gives %d ns and error %v, want TimeRange", ms, ns, err)
			}
			if !inRange && !strings.HasPrefix(v.String(), "(a time") {
				t.Fatalf("%d ms out of range renders as %q", ms, v.String())
			}
		}
	}
}

// TestProbeKind checks ParseKind against String for every Kind value and
// random names.
func TestProbeKind(t *testing.T) {
	names := map[schema.Kind]string{schema.Time: "time", schema.Number: "number", schema.String: "string", schema.Bool: "boolean", schema.Array: "array"}
	for k := range 256 {
		kind := schema.Kind(k)
		s := kind.String()
		if want, ok := names[kind]; ok {
			got, err := schema.ParseKind(s)
			if s != want || err != nil || got != kind {
				t.Fatalf("Kind %d: String %q, ParseKind %v %v", k, s, got, err)
			}
			continue
		}
		if want := fmt.Sprintf("invalid(%d)", k); s != want {
			t.Fatalf("Kind %d: String %q, want %q", k, s, want)
		}
		if got, err := schema.ParseKind(s); err == nil || !errors.Is(err, schema.ErrSchema) {
			t.Fatalf("ParseKind(%q) = %v, %v", s, got, err)
		}
	}
	r := rand.New(rand.NewPCG(40, 4))
	bad := []string{"", "Time", "NUMBER", " number", "number ", "bool", "boolean\x00", "tim", "\xff", "strings"}
	for range 500 {
		bad = append(bad, probeString(r))
	}
	for _, s := range bad {
		if _, ok := map[string]bool{"time": true, "number": true, "string": true, "boolean": true, "array": true}[s]; ok {
			continue
		}
		if got, err := schema.ParseKind(s); err == nil || !errors.Is(err, schema.ErrSchema) {
			t.Fatalf("ParseKind(%q) = %v, %v, want an error wrapping ErrSchema", s, got, err)
		}
	}
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func hasNonFinite(row schema.Row) bool {
	for _, v := range row {
		if f, ok := v.Num(); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return true
		}
	}
	return false
}

// rowProblems lists the (column, reason) problems of a row under the
// docs of Schema.AppendRows and Reason.
func rowProblems(s *schema.Schema, row schema.Row) [][2]int {
	if len(row) != s.Len() {
		return [][2]int{{-1, int(schema.RowLength)}}
	}
	var out [][2]int
	add := func(j int, rs ...schema.Reason) {
		for _, r := range rs {
			out = append(out, [2]int{j, int(r)})
		}
	}
	for j, v := range row {
		c := s.Column(j)
		switch {
		case v.IsMissing():
			if !c.Optional {
				add(j, schema.MissingRequired)
			}
		case v.Kind() != c.Kind:
			add(j, schema.WrongType)
		case c.Kind == schema.Time:
			if ns, _ := v.Nanos(); ns < schema.MinTime || ns > schema.MaxTime {
				add(j, schema.TimeRange)
			}
		case c.Kind == schema.Number:
			if f, _ := v.Num(); math.IsNaN(f) || math.IsInf(f, 0) {
				add(j, schema.NonFinite)
			}
		case c.Kind == schema.Array:
			elems, _ := v.Array()
			for _, e := range elems {
				f, isNum := e.Num()
				switch {
				case isNum && (math.IsNaN(f) || math.IsInf(f, 0)):
					add(j, schema.NonFinite, schema.BadElement)
				case !isNum && e.Kind() != schema.String && e.Kind() != schema.Bool:
					add(j, schema.BadElement)
				}
			}
		}
	}
	return out
}

// TestProbeAppendRowsValidate compares AppendRows and Validate with the
// model of the docs on random rows, many of them bad.
func TestProbeAppendRowsValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	kinds := []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array}
	checked := 0
	for iter := range 3000 {
		cols := []schema.Column{{Name: "t", Kind: schema.Time}}
		for j := range 1 + r.IntN(3) {
			cols = append(cols, schema.Column{Name: fmt.Sprintf("c%d", j), Kind: kinds[r.IntN(4)], Optional: r.IntN(2) == 0})
		}
		s := schema.MustNew(cols...)
		b := schema.NewBatch(s, r.IntN(3)-1)
		// some good rows first, through the batch reused after Reset
		var prior []int64
		for range r.IntN(3) {
			ts := r.Int64N(1000)
			row := schema.Row{schema.NanosValue(ts)}
			for _, c := range cols[1:] {
				switch c.Kind {
				case schema.Number:
					row = append(row, schema.NumberValue(1))
				case schema.String:
					row = append(row, schema.StringValue("x"))
				case schema.Bool:
					row = append(row, schema.BoolValue(true))
				default:
					row = append(row, schema.ArrayValue(schema.NumberValue(1)))
				}
				if c.Optional && r.IntN(2) == 0 {
					row[len(row)-1] = schema.Missing()
				}
			}
			if err := s.AppendRows(b, []schema.Row{row}); err != nil {
				t.Fatalf("iter %d: good row %v: %v", iter, row, err)
			}
			prior = append(prior, ts)
		}
		if r.IntN(4) == 0 {
			b.Reset()
			prior = nil
		}
		var rows []schema.Row
		for range 1 + r.IntN(4) {
			row := schema.Row{pick(r, schema.NanosValue(r.Int64N(1000)), schema.NanosValue(r.Int64N(1000)), schema.NanosValue(probeTime(r)),
				schema.NanosValue(schema.MaxTime+1), schema.NanosValue(math.MinInt64), schema.Missing(), schema.NumberValue(3))}
			for range cols[1:] {
				v := pick(r, schema.Missing(), schema.NumberValue(probeNumber(r)), schema.StringValue(probeString(r)), schema.BoolValue(false),
					schema.NanosValue(7), schema.ArrayValue(), schema.ArrayValue(probeScalar(r), probeScalar(r)),
					schema.ArrayValue(schema.Missing()), schema.ArrayValue(schema.NanosValue(1)), schema.ArrayValue(schema.ArrayValue()))
				row = append(row, v)
			}
			if r.IntN(10) == 0 {
				row = row[:r.IntN(len(row))]
			} else if r.IntN(10) == 0 {
				row = append(row, schema.Missing())
			}
			rows = append(rows, row)
		}
		firstBad, probs := -1, [][2]int(nil)
		for i, row := range rows {
			if p := rowProblems(s, row); p != nil {
				firstBad, probs = i, p
				break
			}
		}
		err := s.AppendRows(b, rows)
		if firstBad < 0 {
			if err != nil {
				t.Fatalf("iter %d: AppendRows(%v) = %v, want nil", iter, rows, err)
			}
		} else {
			var re *schema.RowError
			if !errors.As(err, &re) || !errors.Is(err, schema.ErrValidation) {
				t.Fatalf("iter %d: AppendRows(%v) = %v, want a *RowError (row %d: %v)", iter, rows, err, firstBad, probs)
			}
			found := false
			for _, p := range probs {
				found = found || p[0] == re.Column && p[1] == int(re.Reason)
			}
			if re.Row != firstBad || !found {
				t.Fatalf("iter %d: AppendRows(%v) = %v (%+v), want row %d and one of %v", iter, rows, err, re, firstBad, probs)
			}
			want := fmt.Sprintf("schema: row %d", re.Row)
			if re.Column >= 0 {
				want += fmt.Sprintf(" column %d (%s)", re.Column, cols[re.Column].Name)
			}
			if !strings.HasPrefix(err.Error(), want+": "+re.Reason.String()) || re.Name != map[bool]string{true: cols[max(re.Column, 0)].Name, false: ""}[re.Column >= 0] {
				t.Fatalf("iter %d: message %q, Name %q, want prefix %q", iter, err.Error(), re.Name, want)
			}
			if b.Len() != len(prior) {
				t.Fatalf("iter %d: a failed AppendRows left %d rows, want %d", iter, b.Len(), len(prior))
			}
			checked++
			continue
		}
		// Good rows: the batch holds prior rows then these, and Validate
		// agrees; with sorted, the first unsorted time is reported.
		ts := append(prior, nil...)
		for _, row := range rows {
			ts = append(ts, mustNanos(row[0]))
		}
		if b.Len() != len(ts) {
			t.Fatalf("iter %d: batch has %d rows, want %d", iter, b.Len(), len(ts))
		}
		if err := s.Validate(b, false); err != nil {
			t.Fatalf("iter %d: Validate(unsorted ok) = %v", iter, err)
		}
		unsorted := -1
		for i := 1; i < len(ts); i++ {
			if ts[i] < ts[i-1] {
				unsorted = i
				break
			}
		}
		err = s.Validate(b, true)
		var re *schema.RowError
		switch {
		case unsorted < 0 && err != nil:
			t.Fatalf("iter %d: Validate(sorted) of %v = %v", iter, ts, err)
		case unsorted >= 0 && (!errors.As(err, &re) || re.Reason != schema.Unsorted || re.Row != unsorted || re.Column != 0):
			t.Fatalf("iter %d: Validate(sorted) of %v = %v, want Unsorted at row %d", iter, ts, err, unsorted)
		}
		checked++
	}
	if checked < 3000 {
		t.Fatal(checked)
	}
}

// TestProbeRefReaders reads random tables through Refs and compares every
// reader with Table.Value.
func TestProbeRefReaders(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 6))
	kinds := []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array}
	checked := 0
	for iter := range 500 {
		cols := []schema.Column{{Name: "time", Kind: schema.Time}}
		for j := range 1 + r.IntN(4) {
			cols = append(cols, schema.Column{Name: fmt.Sprint("c", j), Kind: kinds[r.IntN(4)], Optional: true})
		}
		s := schema.MustNew(cols...)
		tab := schema.NewTable(s)
		for range r.IntN(6) {
			row := schema.Row{schema.NanosValue(r.Int64N(100))}
			for _, c := range cols[1:] {
				var v schema.Value
				switch {
				case r.IntN(5) == 0:
				case c.Kind == schema.Number:
					v = schema.NumberValue(probeNumber(r))
				case c.Kind == schema.String:
					v = schema.StringValue(probeString(r))
				case c.Kind == schema.Bool:
					v = schema.BoolValue(r.IntN(2) == 0)
				default:
					var elems []schema.Value
					numsOnly := r.IntN(2) == 0
					for range r.IntN(4) {
						if numsOnly {
							elems = append(elems, schema.NumberValue(probeNumber(r)))
						} else {
							elems = append(elems, probeScalar(r))
						}
					}
					v = schema.ArrayValue(elems...)
				}
				row = append(row, v)
			}
			tab.AppendRowValues(row)
		}
		for j, c := range cols[1:] {
			j++
			for _, k := range append(kinds, schema.Time, 0, 9) {
				ref, err := s.Ref(c.Name, k)
				if (err == nil) != (k == c.Kind) || err != nil && !errors.Is(err, schema.ErrSchema) {
					t.Fatalf("iter %d: Ref(%q, %v) of a %v column: %v", iter, c.Name, k, c.Kind, err)
				}
				if err != nil {
					continue
				}
				for i := range tab.Len() {
					v := tab.Value(i, j)
					var ok bool
					switch k {
					case schema.Number:
						var f, wf float64
						f, ok = tab.Num(ref, i)
						wf, _ = v.Num()
						if ok && math.Float64bits(f) != math.Float64bits(wf) {
							t.Fatalf("iter %d: Num = %v, Value %v", iter, f, v)
						}
					case schema.String:
						var s, ws string
						s, ok = tab.Str(ref, i)
						ws, _ = v.Str()
						if s != ws {
							t.Fatalf("iter %d: Str = %q, Value %v", iter, s, v)
						}
					case schema.Bool:
						var b, wb bool
						b, ok = tab.Bool(ref, i)
						wb, _ = v.Bool()
						if b != wb {
							t.Fatalf("iter %d: Bool = %v, Value %v", iter, b, v)
						}
					case schema.Array:
						prefix := []float64{42}
						nums, okN := tab.AppendNums(prefix, ref, i)
						strs, okS := tab.AppendStrs([]string{"p"}, ref, i)
						elems, _ := v.Array()
						wantN, wantS := []float64{42}, []string{"p"}
						for _, e := range elems {
							if f, isNum := e.Num(); isNum {
								wantN = append(wantN, f)
							}
							if s, isStr := e.Str(); isStr {
								wantS = append(wantS, s)
							}
						}
						if okN != okS || fmt.Sprint(nums) != fmt.Sprint(wantN) || fmt.Sprint(strs) != fmt.Sprint(wantS) {
							t.Fatalf("iter %d: AppendNums %v %v, AppendStrs %q %v; Value %v", iter, nums, okN, strs, okS, v)
						}
						ok = okN
					}
					if ok == v.IsMissing() {
						t.Fatalf("iter %d: row %d column %q: present %v, Value %v", iter, i, c.Name, ok, v)
					}
					checked++
				}
			}
		}
		for _, name := range []string{"", "nope", "time ", "\xff", "C0"} {
			if _, err := s.Ref(name, schema.Number); err == nil || !errors.Is(err, schema.ErrSchema) {
				t.Fatalf("Ref(%q) = %v", name, err)
			}
		}
	}
	if checked < 1000 {
		t.Fatal(checked)
	}
}

// TestProbeOf converts plain Go values with Of and compares with the docs.
func TestProbeOf(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 7))
	checked := 0
	for range 3000 {
		i64 := int64(r.Uint64())
		u64 := r.Uint64()
		f := probeNumber(r)
		ns := probeTime(r)
		cases := []struct {
			x    any
			want schema.Value
		}{
			{nil, schema.Missing()},
			{f, schema.NumberValue(f)},
			{float32(f), schema.NumberValue(float64(float32(f)))},
			{int(i64), schema.NumberValue(float64(i64))},
			{i64, schema.NumberValue(float64(i64))},
			{int32(i64), schema.NumberValue(float64(int32(i64)))},
			{uint32(u64), schema.NumberValue(float64(uint32(u64)))},
			{u64, schema.NumberValue(float64(u64))},
			{"s" + probeString(r), schema.Missing()},
			{true, schema.BoolValue(true)},
			{time.Unix(0, ns).In(time.FixedZone("x", 3600)), schema.NanosValue(ns)},
			{[]any{1.5, "a", nil, false}, schema.ArrayValue(schema.NumberValue(1.5), schema.StringValue("a"), schema.Missing(), schema.BoolValue(false))},
			{[]schema.Value{schema.NumberValue(2)}, schema.ArrayValue(schema.NumberValue(2))},
			{schema.StringValue("v"), schema.StringValue("v")},
		}
		cases[8].want = schema.StringValue(cases[8].x.(string))
		for _, c := range cases {
			got, err := schema.Of(c.x)
			if err != nil || !got.Equal(c.want) && !(math.IsNaN(f) && got.Kind() == schema.Number) {
				t.Fatalf("Of(%#v) = %v, %v; want %v", c.x, got, err, c.want)
			}
			checked++
		}
		for _, bad := range []any{int8(1), uint(1), uint8(1), int16(1), uint16(1), uintptr(1), []int{1}, map[string]any{}, struct{}{}, &f, []any{int8(1)}, complex(1, 2)} {
			if got, err := schema.Of(bad); err == nil || !errors.Is(err, schema.ErrValidation) {
				t.Fatalf("Of(%#v) = %v, %v; want an error wrapping ErrValidation", bad, got, err)
			}
			checked++
		}
	}
	self := []any{1.0, nil}
	self[1] = self
	deep := []any{[]any{[]any{nil}}}
	deep[0].([]any)[0].([]any)[0] = deep
	for _, x := range [][]any{self, deep} {
		if got, err := schema.Of(x); err == nil || !errors.Is(err, schema.ErrValidation) {
			t.Fatalf("Of(self-holding []any) = %v, %v", got, err)
		}
	}
	if checked < 10000 {
		t.Fatal(checked)
	}
}

// TestProbeTimeValueBounds: TimeValue at and one ns beyond the range, and
// the time.Time of a key back.
func TestProbeTimeValueBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 8))
	s := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time})
	minT, maxT := time.Unix(0, schema.MinTime), time.Unix(0, schema.MaxTime)
	checked := 0
	for range 3000 {
		var tt time.Time
		switch r.IntN(4) {
		case 0:
			tt = maxT.Add(time.Duration(r.Int64N(4e9) - 2e9))
		case 1:
			tt = minT.Add(time.Duration(r.Int64N(4e9) - 2e9))
		case 2:
			tt = time.Date(r.IntN(3000), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), 0, 0, r.IntN(1e9), time.UTC)
		default:
			tt = pick(r, maxT, minT, maxT.Add(1), minT.Add(-1), time.Time{}, time.Now())
		}
		in := !tt.Before(minT) && !tt.After(maxT)
		v := schema.TimeValue(tt)
		b := schema.NewBatch(s, 1)
		err := s.AppendRows(b, []schema.Row{{v}})
		var re *schema.RowError
		if in {
			back, _ := v.Time()
			if err != nil || !back.Equal(tt) {
				t.Fatalf("TimeValue(%v): %v, back %v", tt, err, back)
			}
		} else if !errors.As(err, &re) || re.Reason != schema.TimeRange {
			t.Fatalf("TimeValue(%v) outside the range: AppendRows = %v, want TimeRange", tt, err)
		}
		checked++
	}
	if checked < 3000 {
		t.Fatal(checked)
	}
}

type cpA struct{ X int }
type cpB struct {
	T time.Time `pond:"time"`
	x float64   `pond:"x"`
}
type cpC struct {
	T *time.Time `pond:"time"`
}
type cpD struct {
	T time.Time      `pond:"time"`
	M map[string]int `pond:"m"`
}
type cpE struct {
	*cpB
}
type cpF struct {
	T  time.Time `pond:"time"`
	T2 time.Time `pond:"t2"`
}
type cpG struct {
	T time.Time `pond:"time"`
	A float64   `pond:"a"`
	B float64   `pond:"a"`
}
type cpH struct {
	T time.Time `pond:"\xff"`
}
type cpI struct {
	T int64     `pond:"ts,time"`
	U time.Time `pond:"u,time"`
}
type cpJ struct {
	T time.Time `pond:"time,bogus"`
}
type cpK struct {
	T time.Time   `pond:"time"`
	P **float64   `pond:"p"`
	S []int       `pond:"s"`
	I interface{} `pond:"i"`
}
type cpL struct {
	T time.Time `pond:"time"`
	B *bool     `pond:"b,optional"`
	C chan int  `pond:"c"`
}
type cpM struct {
	T time.Time `pond:"time"`
	cpM2
}
type cpM2 struct {
	T time.Time `pond:"t"`
}
type cpN struct {
	T time.Time `pond:",time,optional"`
}
type cpO struct {
	T time.Time  `pond:"time"`
	A [3]float64 `pond:"a"`
}

// codecNoPanic checks that For and NewCodec refuse T with an error
// wrapping ErrSchema, and do not panic.
func codecNoPanic[T any](t *testing.T, name string) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s: panic %v", name, p)
		}
	}()
	_, err := schema.For[T]()
	_, err2 := schema.NewCodec[T](nil)
	if !errors.Is(err, schema.ErrSchema) || !errors.Is(err2, schema.ErrSchema) {
		t.Errorf("%s: For: %v; NewCodec: %v; want errors wrapping ErrSchema", name, err, err2)
	}
}

// TestProbeCodecOddTypes gives For and NewCodec row types the Codec doc
// refuses.
func TestProbeCodecOddTypes(t *testing.T) {
	codecNoPanic[int](t, "int")
	codecNoPanic[*cpB](t, "*cpB")
	codecNoPanic[[]cpB](t, "[]cpB")
	codecNoPanic[cpA](t, "cpA")
	_ = cpB{x: 1} // its tagged field is unexported on purpose
	codecNoPanic[cpB](t, "cpB")
	codecNoPanic[cpC](t, "cpC")
	codecNoPanic[cpD](t, "cpD")
	codecNoPanic[cpE](t, "cpE")
	codecNoPanic[cpF](t, "cpF")
	codecNoPanic[cpG](t, "cpG")
	codecNoPanic[cpH](t, "cpH")
	codecNoPanic[cpI](t, "cpI")
	codecNoPanic[cpJ](t, "cpJ")
	codecNoPanic[cpK](t, "cpK")
	codecNoPanic[cpL](t, "cpL")
	codecNoPanic[cpM](t, "cpM")
	codecNoPanic[cpN](t, "cpN")
	codecNoPanic[cpO](t, "cpO")
	codecNoPanic[struct{}](t, "struct{}")
	codecNoPanic[any](t, "any")
}

type cpRow struct {
	At time.Time `pond:"time"`
	F  float64   `pond:"f"`
	FO float64   `pond:"fo,optional"`
	P  *float64  `pond:"p"`
	I  int64     `pond:"i"`
	U8 uint8     `pond:"u8"`
	S  string    `pond:"s"`
	SO string    `pond:"so,optional"`
	B  bool      `pond:"b"`
	PB *bool     `pond:"pb"`
	PS *string   `pond:"ps"`
	A  []float64 `pond:"a"`
	AS []string  `pond:"as"`
	X  int       // untagged: not a column
}

// batchRows turns a batch into rows as its doc reads: Cols[j-1] is
// column j, a Missing flag marks a missing cell.
func batchRows(s *schema.Schema, b *schema.Batch) []schema.Row {
	rows := make([]schema.Row, b.Len())
	for i := range rows {
		row := schema.Row{schema.NanosValue(b.Time[i])}
		for j := 1; j < s.Len(); j++ {
			v := &b.Cols[j-1]
			if v.Missing != nil && v.Missing[i] {
				row = append(row, schema.Missing())
				continue
			}
			switch s.Column(j).Kind {
			case schema.Number:
				row = append(row, schema.NumberValue(v.Num[i]))
			case schema.String:
				row = append(row, schema.StringValue(v.Str[i]))
			case schema.Bool:
				row = append(row, schema.BoolValue(v.Bool[i]))
			case schema.Array:
				row = append(row, schema.ArrayValue(v.Arr[i]...))
			}
		}
		rows[i] = row
	}
	return rows
}

// TestProbeCodecRoundTrip encodes random structs, validates the batch,
// builds a table of its rows and decodes it back.
func TestProbeCodecRoundTrip(t *testing.T) {
	s, err := schema.For[cpRow]()
	if err != nil {
		t.Fatal(err)
	}
	if want := "time:time, f:number, fo:number?, p:number?, i:number, u8:number, s:string, so:string?, b:boolean, pb:boolean?, ps:string?, a:array?, as:array?"; s.String() != want {
		t.Fatalf("For: %s, want %s", s, want)
	}
	c, err := schema.NewCodec[cpRow](s)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(40, 9))
	checked := 0
	var b *schema.Batch
	for iter := range 500 {
		in := make([]cpRow, r.IntN(5))
		ts := r.Int64N(1 << 50)
		for k := range in {
			ts += r.Int64N(1000)
			x := cpRow{At: time.Unix(0, ts), F: float64(r.Int64N(1e6)) / 8, FO: pick(r, math.NaN(), 1.25, math.Copysign(0, -1)), I: r.Int64N(1<<53) - 1<<52,
				U8: uint8(r.IntN(256)), S: wantJSONString(probeString(r)), SO: pick(r, "", "so"), B: r.IntN(2) == 0, X: 7}
			if r.IntN(2) == 0 {
				f := probeNumber(r)
				if math.IsNaN(f) || math.IsInf(f, 0) {
					f = 3
				}
				x.P = &f
			}
			if r.IntN(2) == 0 {
				bb := r.IntN(2) == 0
				x.PB = &bb
			}
			if r.IntN(2) == 0 {
				ss := pick(r, "", "x", "é")
				x.PS = &ss
			}
			switch r.IntN(3) {
			case 0:
				x.A = []float64{}
			case 1:
				x.A = []float64{1, -2.5, 1e300}
			}
			if r.IntN(2) == 0 {
				x.AS = []string{"a", "", "\u2028"}[:r.IntN(4)]
			}
			in[k] = x
		}
		b = c.Encode(b, in)
		if err := s.Validate(b, true); err != nil {
			t.Fatalf("iter %d: Validate of Encode(%+v): %v", iter, in, err)
		}
		tab := schema.NewTable(s)
		for _, row := range batchRows(s, b) {
			if !tab.AppendRowValues(row) {
				t.Fatalf("iter %d: row %v does not fit", iter, row)
			}
		}
		out, err := c.Decode(nil, tab)
		if err != nil || len(out) != len(in) {
			t.Fatalf("iter %d: Decode: %v (%d rows, want %d)", iter, err, len(out), len(in))
		}
		for k := range in {
			want, got := in[k], out[k]
			want.X = 0 // not a column: keeps its zero value
			if !got.At.Equal(want.At) {
				t.Fatalf("iter %d: At %v, want %v", iter, got.At, want.At)
			}
			got.At, want.At = time.Time{}, time.Time{}
			if math.IsNaN(want.FO) != math.IsNaN(got.FO) || !math.IsNaN(want.FO) && got.FO != want.FO {
				t.Fatalf("iter %d: FO %v, want %v", iter, got.FO, want.FO)
			}
			got.FO, want.FO = 0, 0
			if (got.P == nil) != (want.P == nil) || got.P != nil && *got.P != *want.P {
				t.Fatalf("iter %d: P %v, want %v", iter, got.P, want.P)
			}
			if (got.PB == nil) != (want.PB == nil) || got.PB != nil && *got.PB != *want.PB {
				t.Fatalf("iter %d: PB %v, want %v", iter, got.PB, want.PB)
			}
			if (got.PS == nil) != (want.PS == nil) || got.PS != nil && *got.PS != *want.PS {
				t.Fatalf("iter %d: PS %v, want %v", iter, got.PS, want.PS)
			}
			if (got.A == nil) != (want.A == nil) || fmt.Sprint(got.A) != fmt.Sprint(want.A) {
				t.Fatalf("iter %d: A %#v, want %#v", iter, got.A, want.A)
			}
			if (got.AS == nil) != (want.AS == nil) || fmt.Sprintf("%q", got.AS) != fmt.Sprintf("%q", want.AS) {
				t.Fatalf("iter %d: AS %#v, want %#v", iter, got.AS, want.AS)
			}
			got.P, want.P, got.PB, want.PB, got.PS, want.PS, got.A, want.A, got.AS, want.AS = nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Fatalf("iter %d: Decode gives %+v, want %+v", iter, got, want)
			}
			checked++
		}
	}
	if checked < 800 {
		t.Fatal(checked)
	}
}

// noPanic runs f and reports a panic as an error.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s panics: %v", what, p)
		}
	}()
	f()
}

// TestProbeZeroTableReaders: the docs make nil and zero Tables a thing
// (Times: "A nil or zero Table has none"; Clone: "The copy of a nil or
// zero Table is a zero Table"; Decode: "A nil or zero tab has no rows"),
// and Len, Times, AppendJSON, String, All and Runs read them as empty.
// Numbers and Strings ("false if there is no number column of that
// name") panic on both, and AppendJSONColumns on a nil one (AppendJSON
// of it writes []).
func TestProbeZeroTableReaders(t *testing.T) {
	var nilTab *schema.Table
	for _, tc := range []struct {
		name string
		tab  *schema.Table
	}{{"nil", nilTab}, {"zero", &schema.Table{}}, {"Clone of nil", nilTab.Clone()}} {
		noPanic(t, tc.name+" Table: Numbers", func() {
			if xs, ok := tc.tab.Numbers("x"); ok || xs != nil {
				t.Errorf("%s Table: Numbers = %v, %v; want nil, false", tc.name, xs, ok)
			}
		})
		noPanic(t, tc.name+" Table: Strings", func() {
			if xs, ok := tc.tab.Strings("x"); ok || xs != nil {
				t.Errorf("%s Table: Strings = %v, %v; want nil, false", tc.name, xs, ok)
			}
		})
		noPanic(t, tc.name+" Table: AppendJSONColumns", func() {
			if got := string(tc.tab.AppendJSONColumns(nil)); got != "{}" {
				t.Errorf("%s Table: AppendJSONColumns = %s; want {}", tc.name, got)
			}
		})
		if got := string(tc.tab.AppendJSON(nil)); got != "[]" || tc.tab.Len() != 0 || tc.tab.Times() != nil {
			t.Errorf("%s Table: AppendJSON %s, Len %d, Times %v", tc.name, got, tc.tab.Len(), tc.tab.Times())
		}
	}
}

// TestProbeNew builds random column lists and compares New with the rules
// of its doc; Reason.String on every value.
func TestProbeNew(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 10))
	checked := 0
	for range 5000 {
		var cols []schema.Column
		for range r.IntN(5) {
			cols = append(cols, schema.Column{
				Name:     pick(r, "time", "a", "b", "", "\xff", "é", "a\x00", " "),
				Kind:     schema.Kind(pick(r, 0, 1, 2, 3, 4, 5, 6, 255)),
				Optional: r.IntN(3) == 0,
			})
		}
		if len(cols) > 0 && r.IntN(2) == 0 {
			cols[0].Kind, cols[0].Optional = schema.Time, false
		}
		bad := len(cols) == 0
		seen := map[string]bool{}
		for i, c := range cols {
			valid := c.Kind == schema.Time || c.Kind == schema.Number || c.Kind == schema.String || c.Kind == schema.Bool || c.Kind == schema.Array
			bad = bad || c.Name == "" || !utf8.ValidString(c.Name) || !valid || seen[c.Name] ||
				(i == 0) != (c.Kind == schema.Time) || i == 0 && c.Optional
			seen[c.Name] = true
		}
		s, err := schema.New(cols...)
		var se *schema.SchemaError
		switch {
		case bad && (err == nil || !errors.Is(err, schema.ErrSchema) || !errors.As(err, &se)):
			t.Fatalf("New(%v) = %v, %v; want a *SchemaError", cols, s, err)
		case !bad && err != nil:
			t.Fatalf("New(%v): %v", cols, err)
		case bad && se.Column >= len(cols):
			t.Fatalf("New(%v): error names column %d", cols, se.Column)
		case bad && se.Column >= 0 && !strings.HasPrefix(err.Error(), fmt.Sprintf("schema: column %d (", se.Column)):
			t.Fatalf("New(%v): message %q", cols, err)
		case !bad:
			if s.Len() != len(cols) || fmt.Sprint(s.Columns()) != fmt.Sprint(cols) {
				t.Fatalf("New(%v) has columns %v", cols, s.Columns())
			}
			for i, c := range cols {
				if j, ok := s.Index(c.Name); !ok || j != i || s.Names()[i] != c.Name || s.Column(i) != c {
					t.Fatalf("New(%v): Index(%q) = %d, %v", cols, c.Name, j, ok)
				}
			}
			if !s.Equal(schema.MustNew(cols...)) {
				t.Fatalf("New(%v) is not Equal to itself rebuilt", cols)
			}
		}
		checked++
	}
	for k := range 256 {
		want := map[int]string{1: "wrong type", 5: "unsorted times"}[k]
		got := schema.Reason(k).String()
		switch {
		case k == 0 || k > int(schema.TimeRange):
			want = fmt.Sprintf("reason(%d)", k)
		case want == "":
			want = got // another reason: some text, not the fallback
			if strings.HasPrefix(got, "reason(") || got == "" {
				t.Fatalf("Reason(%d).String() = %q", k, got)
			}
		}
		if got != want {
			t.Fatalf("Reason(%d).String() = %q, want %q", k, got, want)
		}
	}
	if checked < 5000 {
		t.Fatal(checked)
	}
}

// TestProbeCodecEncodeOwnsCells: "The batch's cells are its own":
// encoding into another batch, or changing the encoded structs' slices and
// pointees, leaves a batch as it was.
func TestProbeCodecEncodeOwnsCells(t *testing.T) {
	s, err := schema.For[cpRow]()
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.NewCodec[cpRow](s)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(40, 11))
	for iter := range 300 {
		f, str := r.Float64(), probeString(r)
		rowsA := []cpRow{{At: time.Unix(0, r.Int64N(1e18)), P: &f, PS: &str, A: []float64{1, 2, 3}[:r.IntN(4)], AS: []string{"x", "y"}[:r.IntN(3)]}}
		b1 := c.Encode(nil, rowsA)
		before := fmt.Sprint(batchRows(s, b1))
		b2 := c.Encode(nil, []cpRow{{At: time.Unix(2, 0), A: []float64{7, 8, 9, 10}, AS: []string{"p", "q", "r"}}})
		if got := fmt.Sprint(batchRows(s, b1)); got != before {
			t.Fatalf("iter %d: encoding into another batch changed the first:\n%s\n%s", iter, before, got)
		}
		if len(rowsA[0].A) > 0 {
			rowsA[0].A[0] = 99
		}
		if len(rowsA[0].AS) > 0 {
			rowsA[0].AS[0] = "changed"
		}
		f, str = 42, "changed"
		if got := fmt.Sprint(batchRows(s, b1)); got != before {
			t.Fatalf("iter %d: changing the rows changed the batch:\n%s\n%s", iter, before, got)
		}
		if b1 = c.Encode(b1, nil); b1.Len() != 0 || b2.Len() != 1 {
			t.Fatalf("iter %d: Encode of no rows left %d rows", iter, b1.Len())
		}
	}
}
