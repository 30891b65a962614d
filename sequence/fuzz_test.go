package sequence_test

import (
	"errors"
	"math/big"
	"regexp"
	"testing"
	"time"

	"github.com/pond-go/pond/sequence"
)

// durationRE is pond-ts's duration syntax (as in pond-ts).
var durationRE = regexp.MustCompile(`^([0-9]+)(ms|s|m|h|d)$`)

var unitOf = map[string]time.Duration{
	"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour,
}

// FuzzParseDuration checks ParseDuration against a reference written with
// a regular expression and big integers: a string is accepted exactly
// when it is digits and a unit, its value is positive and at most
// MaxDuration (2^62 ns), and then the result is that value. Every error
// wraps ErrDuration and quotes the input; ParseEvery agrees.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{
		"200ms", "1s", "30s", "1m", "1h", "1d", "0s", "000ms", "007s", "1min", "1.5s", "-1s", "+1s",
		"1m30s", " 1s", "1S", "", "ms", "53375d", "53376d", "106752d", "4611686018427387904ns", "4611686018427387ms", "9223372036854775807ms", "9223372036s",
		"9223372037s", "99999999999999999999s", "1\x00s", "١s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := sequence.ParseDuration(s)

		var want *big.Int
		if m := durationRE.FindStringSubmatch(s); m != nil {
			n, _ := new(big.Int).SetString(m[1], 10)
			n.Mul(n, big.NewInt(int64(unitOf[m[2]])))
			if n.Sign() > 0 && n.Cmp(big.NewInt(int64(sequence.MaxDuration))) <= 0 {
				want = n
			}
		}
		if want == nil {
			if err == nil {
				t.Fatalf("ParseDuration(%q) = %v, want an error", s, got)
			}
			if !errors.Is(err, sequence.ErrDuration) {
				t.Fatalf("ParseDuration(%q): error %v does not wrap ErrDuration", s, err)
			}
			var de *sequence.DurationError
			if !errors.As(err, &de) || de.Input != s {
				t.Fatalf("ParseDuration(%q): error %v does not carry the input", s, err)
			}
		} else if err != nil || int64(got) != want.Int64() {
			t.Fatalf("ParseDuration(%q) = %v, %v; want %v", s, got, err, time.Duration(want.Int64()))
		}

		seq, everyErr := sequence.ParseEvery(s)
		if (everyErr == nil) != (err == nil) {
			t.Fatalf("ParseEvery(%q) error %v, ParseDuration error %v", s, everyErr, err)
		}
		if err == nil && (seq.Step() != got || seq.Err() != nil) {
			t.Fatalf("ParseEvery(%q) = %v (err %v), want a step of %v", s, seq, seq.Err(), got)
		}
	})
}
