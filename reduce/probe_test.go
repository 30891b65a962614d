package reduce_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

var plainNames = map[string]reduce.Reducer{
	"count": reduce.Count, "sum": reduce.Sum, "avg": reduce.Avg, "mean": reduce.Mean, "min": reduce.Min,
	"max": reduce.Max, "first": reduce.First, "last": reduce.Last, "median": reduce.Median, "stdev": reduce.Stdev,
	"difference": reduce.Difference, "keep": reduce.Keep, "unique": reduce.Unique, "samples": reduce.Samples,
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// modelParse is Parse from its doc.
func modelParse(name string) (reduce.Reducer, bool) {
	if r, ok := plainNames[name]; ok {
		return r, true
	}
	if n, ok := strings.CutPrefix(name, "top"); ok && allDigits(n) {
		v, ok := new(big.Int).SetString(n, 10)
		if !ok || v.Sign() <= 0 || !v.IsInt64() || v.Int64() > math.MaxInt {
			return reduce.Reducer{}, false
		}
		return reduce.Top(int(v.Int64())), true
	}
	if q, ok := strings.CutPrefix(name, "p"); ok {
		whole, frac, dot := strings.Cut(q, ".")
		if !allDigits(whole) || dot && !allDigits(frac) {
			return reduce.Reducer{}, false
		}
		x, ok := new(big.Rat).SetString(q)
		if !ok || x.Cmp(big.NewRat(100, 1)) > 0 {
			return reduce.Reducer{}, false
		}
		f, _ := strconv.ParseFloat(q, 64)
		return reduce.Percentile(f), true
	}
	return reduce.Reducer{}, false
}

// TestProbeParse compares Parse with the model on random and adversarial
// names, and checks String round trips.
func TestProbeParse(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 20))
	in := []string{"", "p", "p95", "p99.9", "p0", "p100", "p100.0", "p100.0000000000000000000001", "p101", "p05", "p.5", "p5.",
		"p1e1", "p+5", "p-5", "p 5", "p0x10", "P95", "p95 ", " p95", "p٩", "top", "top0", "top3", "top03", "Top3", "top-1",
		"top+1", "top 3", "top9223372036854775807", "top9223372036854775808", "top99999999999999999999", "samples", "Samples",
		"SUM", "sum ", "avg\x00", "medianx", "p50", "p99.99999999999999999999", "p00000000000000000000100", "p0100.5", "p\xff",
		"mean", "median", "p100.", "p1..2", "p1.2.3", "p99,9"}
	parts := []string{"p", "top", "sum", "1", "0", "9", ".", "100", "e", "-", " ", "x", "\xff", "é", "5"}
	for range 5000 {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		in = append(in, b.String())
	}
	for range 500 {
		in = append(in, "p"+strconv.FormatFloat(r.Float64()*101, 'f', r.IntN(20), 64))
	}
	checked := 0
	for _, name := range in {
		want, ok := modelParse(name)
		got, err := reduce.Parse(name)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("Parse(%q) = %v, %v; want %v (ok=%v)", name, got, err, want, ok)
		}
		if !ok {
			var re *reduce.ReducerError
			if !errors.Is(err, reduce.ErrReducer) || !errors.As(err, &re) || re.Name != name {
				t.Fatalf("Parse(%q): error %#v", name, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Fatalf("Parse(%q): message %q does not quote the name", name, err.Error())
			}
			continue
		}
		back, err := reduce.Parse(got.String())
		if err != nil || back != got {
			t.Fatalf("Parse(%q).String() = %q, parsed back as %v, %v", name, got.String(), back, err)
		}
		checked++
	}
	if checked < 200 {
		t.Fatalf("only %d valid names", checked)
	}
}

// TestProbeCheckOutputKind checks Check and OutputKind for each reducer and
// each kind against the table of the package doc.
func TestProbeCheckOutputKind(t *testing.T) {
	rs := []reduce.Reducer{reduce.Percentile(0), reduce.Percentile(99.9), reduce.Percentile(100), reduce.Top(1), reduce.Top(math.MaxInt)}
	for _, r := range plainNames {
		rs = append(rs, r)
	}
	numeric := map[string]bool{"sum": true, "avg": true, "mean": true, "min": true, "max": true, "median": true, "stdev": true, "difference": true}
	checked := 0
	for _, r := range rs {
		name := r.String()
		isNum := numeric[name] || strings.HasPrefix(name, "p")
		for k := range 256 {
			kind := schema.Kind(k)
			valueKind := kind == schema.Number || kind == schema.String || kind == schema.Bool || kind == schema.Array
			ok := kind == schema.Number || valueKind && !isNum
			err := r.Check(kind)
			if ok != (err == nil) || err != nil && !errors.Is(err, reduce.ErrReducer) {
				t.Fatalf("%s.Check(%v) = %v, want ok=%v", name, kind, err, ok)
			}
			var want schema.Kind
			switch {
			case !ok:
			case name == "first" || name == "last" || name == "keep":
				want = kind
			case name == "unique" || name == "samples" || strings.HasPrefix(name, "top"):
				want = schema.Array
			default:
				want = schema.Number
			}
			if got := r.OutputKind(kind); got != want {
				t.Fatalf("%s.OutputKind(%v) = %v, want %v", name, kind, got, want)
			}
			checked++
		}
	}
	// Invalid reducers refuse every kind.
	for _, r := range []reduce.Reducer{{}, reduce.Percentile(-1), reduce.Percentile(math.NaN()), reduce.Percentile(100.00000000000001), reduce.Percentile(math.Inf(1)), reduce.Top(0), reduce.Top(-5), reduce.Top(math.MinInt)} {
		for _, kind := range []schema.Kind{schema.Number, schema.String, schema.Bool, schema.Array, schema.Time, 0} {
			if err := r.Check(kind); err == nil || !errors.Is(err, reduce.ErrReducer) || r.OutputKind(kind) != 0 {
				t.Fatalf("%v.Check(%v) = %v, OutputKind %v", r, kind, err, r.OutputKind(kind))
			}
			checked++
		}
	}
	if checked < 4000 {
		t.Fatal(checked)
	}
}

// TestProbePercentileNames: the name of every valid Percentile and Top
// parses back to it, as Reducer.String promises.
func TestProbePercentileNames(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 21))
	qs := []float64{0, math.Copysign(0, -1), 100, 50, 99.9, math.SmallestNonzeroFloat64, 1e-7, 1e-300, math.Nextafter(100, 0), 33.333333333333336}
	for range 5000 {
		switch r.IntN(3) {
		case 0:
			qs = append(qs, r.Float64()*100)
		case 1:
			qs = append(qs, math.Float64frombits(r.Uint64()>>2)) // tiny to huge
		default:
			qs = append(qs, float64(r.IntN(101)))
		}
	}
	checked := 0
	for _, q := range qs {
		p := reduce.Percentile(q)
		valid := q >= 0 && q <= 100
		if (p.Check(schema.Number) == nil) != valid {
			t.Fatalf("Percentile(%v).Check(number) = %v", q, p.Check(schema.Number))
		}
		if !valid {
			continue
		}
		back, err := reduce.Parse(p.String())
		if err != nil || back != p {
			t.Fatalf("Percentile(%v).String() = %q, Parse gives %v, %v", q, p.String(), back, err)
		}
		checked++
	}
	for _, n := range []int{1, 2, 10, math.MaxInt, math.MaxInt32 + 1} {
		back, err := reduce.Parse(reduce.Top(n).String())
		if err != nil || back != reduce.Top(n) {
			t.Fatalf("Top(%d): %q parses as %v, %v", n, reduce.Top(n).String(), back, err)
		}
	}
	if checked < 3000 {
		t.Fatal(checked)
	}
}
