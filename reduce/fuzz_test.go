package reduce

import (
	"errors"
	"strings"
	"testing"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// FuzzParse: Parse never panics; a name it accepts is a valid reducer whose
// String parses back to the same reducer; a name it rejects gives an error
// wrapping ErrReducer that quotes the name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"count", "mean", "p99.9", "p0", "p100", "p100.0", "p101", "p1e1", "p 5", "p0x10", "p.5", "p5.",
		"p", "top3", "top0", "top03", "top99999999999999999999", "p00000000000000000000000100.000000000001",
		"p0.00000000000000000000000000001", "Top3", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		r, err := Parse(name)
		if err != nil {
			if !errors.Is(err, ErrReducer) {
				t.Fatalf("Parse(%q): error %v does not wrap ErrReducer", name, err)
			}
			var re *ReducerError
			if !errors.As(err, &re) || re.Name != name {
				t.Fatalf("Parse(%q): error %v does not carry the name", name, err)
			}
			if !strings.Contains(err.Error(), schema.StringValue(name).String()) {
				t.Fatalf("Parse(%q): error %q does not quote the name", name, err)
			}
			if r != (Reducer{}) {
				t.Fatalf("Parse(%q) failed but returned %v", name, r)
			}
			return
		}
		if r.err() != nil {
			t.Fatalf("Parse(%q) = %v, which is invalid: %v", name, r, r.err())
		}
		if r.op == reducers.OpPercentile && !(r.q >= 0 && r.q <= 100) {
			t.Fatalf("Parse(%q) gave q = %v", name, r.q)
		}
		if r.op == reducers.OpTop && r.n < 1 {
			t.Fatalf("Parse(%q) gave N = %v", name, r.n)
		}
		back, err := Parse(r.String())
		if err != nil || back != r {
			t.Fatalf("Parse(%q) = %v; Parse(%q) = %v, %v", name, r, r.String(), back, err)
		}
		if _, err := newWindow(r, schema.Number); err != nil {
			t.Fatalf("%v cannot build a window over numbers: %v", r, err)
		}
	})
}
