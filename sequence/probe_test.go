package sequence_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// modelStart is anchor + floor((t − anchor)/step)·step in exact arithmetic.
func modelStart(anchor, step, t int64) *big.Int {
	d := new(big.Int).Sub(big.NewInt(t), big.NewInt(anchor))
	q := new(big.Int)
	m := new(big.Int)
	q.DivMod(d, big.NewInt(step), m) // Euclidean: m >= 0 for a positive step
	q.Mul(q, big.NewInt(step))
	return q.Add(q, big.NewInt(anchor))
}

func probeInt(r *rand.Rand, lim int64) int64 {
	switch r.IntN(5) {
	case 0:
		return lim - r.Int64N(3)
	case 1:
		return -lim + r.Int64N(3)
	case 2:
		return r.Int64N(1_000_000) - 500_000
	}
	return r.Int64N(lim) * int64(1-2*r.IntN(2))
}

// TestProbeStart checks Start against exact arithmetic for valid sequences
// at and near MinTime, MaxTime and negative times.
func TestProbeStart(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 10))
	checked := 0
	for range 20000 {
		var step int64
		switch r.IntN(4) {
		case 0:
			step = int64(sequence.MaxDuration) - r.Int64N(3)
		case 1:
			step = 1 + r.Int64N(3)
		case 2:
			step = 1 + r.Int64N(int64(sequence.MaxDuration))
		default:
			step = int64(time.Duration(1+r.IntN(1000)) * time.Millisecond)
		}
		anchor := probeInt(r, schema.MaxTime)
		ts := probeInt(r, schema.MaxTime)
		s := sequence.Every(time.Duration(step)).WithAnchorNanos(anchor)
		if err := s.Err(); err != nil {
			t.Fatalf("Every(%d) from %d: %v", step, anchor, err)
		}
		want := modelStart(anchor, step, ts)
		got := s.Start(ts)
		if !want.IsInt64() || got != want.Int64() {
			t.Fatalf("Every(%d).WithAnchorNanos(%d).Start(%d) = %d, want %s", step, anchor, ts, got, want)
		}
		if !(got <= ts && ts-got < step) {
			t.Fatalf("Start(%d) = %d with step %d: t not in [Start, Start+step)", ts, got, step)
		}
		if s.Step() != time.Duration(step) || s.Anchor() != anchor {
			t.Fatalf("Step %v Anchor %d, want %d %d", s.Step(), s.Anchor(), step, anchor)
		}
		checked++
	}
	if checked < 20000 {
		t.Fatal(checked)
	}
}

// TestProbeSequenceErr checks which steps and anchors Err refuses.
func TestProbeSequenceErr(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 11))
	steps := []int64{0, -1, 1, math.MinInt64, math.MaxInt64, int64(sequence.MaxDuration), int64(sequence.MaxDuration) + 1}
	anchors := []int64{0, schema.MaxTime, schema.MaxTime + 1, schema.MinTime, schema.MinTime - 1, math.MaxInt64, math.MinInt64}
	for range 500 {
		steps = append(steps, int64(r.Uint64()))
		anchors = append(anchors, int64(r.Uint64()))
	}
	for _, step := range steps {
		for _, a := range anchors[:20] {
			s := sequence.Every(time.Duration(step)).WithAnchorNanos(a)
			ok := step > 0 && step <= int64(sequence.MaxDuration) && a >= schema.MinTime && a <= schema.MaxTime
			err := s.Err()
			if (err == nil) != ok || err != nil && !errors.Is(err, sequence.ErrSequence) {
				t.Fatalf("Every(%d).WithAnchorNanos(%d).Err() = %v, want ok=%v", step, a, err, ok)
			}
		}
	}
	// WithAnchor on time.Time: the range and one ns beyond, and far years.
	for _, tc := range []struct {
		t  time.Time
		ok bool
	}{
		{time.Unix(0, schema.MaxTime), true},
		{time.Unix(0, schema.MinTime), true},
		{time.Unix(0, schema.MaxTime).Add(1), false},
		{time.Unix(0, schema.MinTime).Add(-1), false},
		{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(1830, 11, 23, 0, 0, 0, 0, time.UTC), true},
		{time.Time{}, false},
		{time.Unix(0, 0), true},
	} {
		s := sequence.Every(time.Second).WithAnchor(tc.t)
		if err := s.Err(); (err == nil) != tc.ok {
			t.Fatalf("WithAnchor(%v).Err() = %v, want ok=%v", tc.t, err, tc.ok)
		}
		if tc.ok && s.Anchor() != tc.t.UnixNano() {
			t.Fatalf("WithAnchor(%v).Anchor() = %d", tc.t, s.Anchor())
		}
		if !tc.ok && !strings.Contains(s.String(), "from ") {
			t.Fatalf("WithAnchor(%v).String() = %q", tc.t, s.String())
		}
		// WithAnchorNanos after a far WithAnchor clears it.
		if s2 := s.WithAnchorNanos(5); s2.Err() != nil || s2.String() != "every 1s from 5" {
			t.Fatalf("WithAnchorNanos after WithAnchor(%v): %v %q", tc.t, s2.Err(), s2.String())
		}
	}
}

// modelDuration is ParseDuration from its doc: ASCII digits then one of
// ms, s, m, h, d; positive; at most MaxDuration.
func modelDuration(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	units := map[string]int64{"ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}
	u, ok := units[s[i:]]
	if i == 0 || !ok {
		return 0, false
	}
	n, ok := new(big.Int).SetString(s[:i], 10)
	if !ok {
		return 0, false
	}
	n.Mul(n, big.NewInt(u))
	if n.Sign() <= 0 || n.Cmp(big.NewInt(int64(sequence.MaxDuration))) > 0 {
		return 0, false
	}
	return time.Duration(n.Int64()), true
}

// TestProbeParseDuration compares ParseDuration and ParseEvery with the
// model on random and adversarial strings.
func TestProbeParseDuration(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 12))
	in := []string{"", "0s", "-1s", "+1s", "1.5s", "1h30m", "1m30s", "9223372036854775807ns", "1ns", "1us", "1µs",
		"1min", "1 s", " 1s", "1s ", "007s", "1S", "1D", "1d", "106751d", "53375d", "53376d", "4611686018427ms",
		"4611686018428ms", "4611686018s", "4611686019s", "76861433m", "76861434m", "1281023h", "1281024h",
		"99999999999999999999999s", "00000000000000000000000001s", "١s", "1ｓ", "1s\x00", "1\xffs", ".5s", "5.s", "1e3s", "0x10s", "ms", "s"}
	units := []string{"ms", "s", "m", "h", "d", "", "ns", "us", "M", "sec", "µs", "y", "w"}
	for range 5000 {
		var num string
		switch r.IntN(4) {
		case 0:
			num = strconv.FormatInt(r.Int64N(1000), 10)
		case 1:
			num = strconv.FormatUint(r.Uint64(), 10)
		case 2:
			num = strings.Repeat("0", r.IntN(3)) + strconv.FormatInt(r.Int64N(1<<62), 10)
		default:
			num = fmt.Sprintf("%d", r.Int64N(200)-100)
		}
		in = append(in, num+units[r.IntN(len(units))])
	}
	checked := 0
	for _, s := range in {
		want, ok := modelDuration(s)
		got, err := sequence.ParseDuration(s)
		var de *sequence.DurationError
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("ParseDuration(%q) = %v, %v; want %v (ok=%v)", s, got, err, want, ok)
		}
		if !ok {
			if !errors.Is(err, sequence.ErrDuration) || !errors.As(err, &de) || de.Input != s {
				t.Fatalf("ParseDuration(%q): error %#v", s, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "sequence: invalid duration "+strconv.Quote(s)+": ") {
				t.Fatalf("ParseDuration(%q): message %q", s, msg)
			}
		}
		seq, err := sequence.ParseEvery(s)
		if ok != (err == nil) || ok && (seq.Step() != want || seq.Err() != nil || seq.Anchor() != 0) {
			t.Fatalf("ParseEvery(%q) = %v, %v", s, seq, err)
		}
		if ok && seq.String() != "every "+want.String() {
			t.Fatalf("ParseEvery(%q).String() = %q", s, seq.String())
		}
		checked++
	}
	if checked < 5000 {
		t.Fatal(checked)
	}
}
