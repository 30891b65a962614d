package reducers

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/exact"
)

// TestMomentsSumDoesNotStickAfterAnOverflow: a count-2 window over
// 1.7e308, 1.7e308, −1.7e308, 1, 1 reads the sum of what it holds at
// every row — beyond the float64 range (NaN, which the readers' callers
// write as missing) only while it holds 1.7e308 twice — through
// each way into a Moments: one value at a time, runs of slots, short
// shifts and the event trigger's Slide, with squares kept and without.
// Before huge values were summed apart, the sum read NaN until every
// value of that magnitude had left, and the mean with it.
func TestMomentsSumDoesNotStickAfterAnOverflow(t *testing.T) {
	in := []float64{1.7e308, 1.7e308, -1.7e308, 1, 1}
	want := []float64{1.7e308, math.NaN(), 0, -1.7e308, 2}
	wantMean := []float64{1.7e308, 1.7e308, 0, -0.85e308, 1}
	for _, squares := range []bool{true, false} {
		fresh := func() *Moments {
			var m Moments
			if !squares {
				m.SkipSquares()
			}
			return &m
		}
		check := func(m *Moments, i int, way string) {
			t.Helper()
			assertSum(t, want[i], m.Sum(), "%s, squares %v, row %d: sum", way, squares, i)
			mean, ok := m.Mean()
			assert.True(t, ok)
			assert.InDelta(t, 0, relErr(mean, wantMean[i]), 1e-15, "%s, squares %v, row %d: mean %v", way, squares, i, mean)
			_, ok = m.Stdev()
			assert.Equal(t, squares && i == 4, ok, "%s, squares %v, row %d: a stdev only without a huge value held", way, squares, i)
		}

		one := fresh()
		for i, x := range in {
			one.Add(x)
			if i >= 2 {
				one.Remove(in[i-2])
			}
			check(one, i, "one by one")
		}

		runs := fresh()
		for i := range in {
			if i == 0 {
				runs.AddSlots(bitsOf(in[:1]), 0, 1, 1)
			} else {
				lo := max(0, i-2)
				runs.ShiftSlots(bitsOf(in[lo:i-1]), 0, i-1-lo, bitsOf(in[i:i+1]), 0, 1, 1)
			}
			check(runs, i, "slots")
		}

		// Rows of three slots, the value in the middle, as a deque holds
		// them: the run paths read every third word.
		wide := fresh()
		wide.FillSlots(bitsOf3(in[:2]), 1, 3, 2)
		check(wide, 1, "a filled run")
		wide.RemoveSlots(bitsOf3(in[:1]), 1, 3, 1)
		wide.AddSlots(bitsOf3(in[2:3]), 1, 3, 1)
		check(wide, 2, "a run of three-slot rows")

		slid := fresh()
		sums, means := make([]float64, len(in)), make([]float64, len(in))
		slid.Slide(in, in[:3], []int32{0, 0, 1, 1, 1}, SlideOut{Sum: sums, Mean: means})
		for i := range in {
			assertSum(t, want[i], sums[i], "Slide, squares %v, row %d: sum", squares, i)
			assert.InDelta(t, 0, relErr(means[i], wantMean[i]), 1e-15, "Slide, squares %v, row %d: mean %v", squares, i, means[i])
		}
	}
}

// assertSum compares sums bit for bit, so that a NaN equals a NaN.
func assertSum(t *testing.T, want, got float64, msg string, args ...any) {
	t.Helper()
	if math.IsNaN(want) {
		assert.True(t, math.IsNaN(got), append([]any{msg + ": got %v, want NaN"}, append(args, got)...)...)
		return
	}
	assert.Equal(t, want, got, append([]any{msg}, args...)...)
}

func bitsOf(xs []float64) []uint64 {
	b := make([]uint64, len(xs))
	for i, x := range xs {
		b[i] = math.Float64bits(x)
	}
	return b
}

// bitsOf3 lays xs out as rows of three slots, each value in its row's
// second slot.
func bitsOf3(xs []float64) []uint64 {
	b := make([]uint64, 3*len(xs))
	for i, x := range xs {
		b[3*i+1] = math.Float64bits(x)
	}
	return b
}

// TestMomentsHugeValuesMatchExact: random windows mixing values near the
// top of the float64 range (which sum beyond it) with ordinary ones and
// tiny ones, slid value by value and by runs: the sum is the exact sum of
// what the window holds, rounded, to 1e-13 of Σ|x| (compared in units of
// 2^-128, where nothing overflows), and NaN exactly when the exact sum is
// beyond the range (or within that tolerance of its end); the mean is
// within 1e-13 of Σ|x|/n of the exact mean, always finite.
func TestMomentsHugeValuesMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func() float64 {
		switch rng.IntN(6) {
		case 0, 1:
			return math.Copysign(math.Ldexp(1+rng.Float64(), 960+rng.IntN(64)), float64(rng.IntN(2)*2-1))
		case 2:
			return math.Copysign(math.MaxFloat64, float64(rng.IntN(2)*2-1))
		case 3:
			return rng.NormFloat64() * 1e6
		case 4:
			return math.Ldexp(rng.Float64(), 900+rng.IntN(60)) // just below the huge values
		default:
			return float64(rng.IntN(9) - 4)
		}
	}
	for seed := range 300 {
		var one, runs Moments
		if seed%2 == 1 {
			one.SkipSquares()
			runs.SkipSquares()
		}
		var window []float64
		span := 1 + seed%7
		for step := range 40 {
			k := 1 + rng.IntN(3)
			fresh := make([]float64, k)
			for i := range fresh {
				fresh[i] = pick()
			}
			leave := max(0, len(window)+k-span)
			leave = min(leave, len(window))
			for _, x := range window[:leave] {
				one.Remove(x)
			}
			for _, x := range fresh {
				one.Add(x)
			}
			runs.ShiftSlots(bitsOf(window[:leave]), 0, leave, bitsOf(fresh), 0, k, 1)
			window = append(window[leave:], fresh...)
			checkHuge(t, &one, window, seed, step, "one by one")
			checkHuge(t, &runs, window, seed, step, "runs")
		}
	}
}

func checkHuge(t *testing.T, m *Moments, xs []float64, seed, step int, way string) {
	t.Helper()
	sum, _ := exact.Moments(xs)
	scale := func(f *big.Float) float64 {
		g := new(big.Float).SetPrec(exact.Prec).SetMantExp(f, -hugeShift)
		x, _ := g.Float64()
		return x
	}
	absS := 0.0
	for _, x := range xs {
		absS += math.Abs(x) * hugeDown
	}
	tol := 1e-13 * absS
	wantS := scale(sum)
	got := m.Sum()
	end := math.MaxFloat64 * hugeDown
	switch {
	case math.IsInf(got, 0):
		t.Fatalf("seed %d step %d, %s: sum %v of %v", seed, step, way, got, xs)
	case math.IsNaN(got):
		if math.Abs(wantS)+tol < end {
			t.Fatalf("seed %d step %d, %s: sum NaN, want %v×2^128 (window %v)", seed, step, way, wantS, xs)
		}
	default:
		if math.Abs(got*hugeDown-wantS) > tol || math.Abs(wantS)-tol > end {
			t.Fatalf("seed %d step %d, %s: sum %v, want %v×2^128 (window %v)", seed, step, way, got, wantS, xs)
		}
	}
	mean, ok := m.Mean()
	require.True(t, ok)
	q := new(big.Float).SetPrec(exact.Prec).Quo(sum, new(big.Float).SetInt64(int64(len(xs))))
	if math.IsInf(mean, 0) || math.IsNaN(mean) || math.Abs(mean*hugeDown-scale(q)) > tol/float64(len(xs)) {
		t.Fatalf("seed %d step %d, %s: mean %v, want %v×2^128 (window %v)", seed, step, way, mean, scale(q), xs)
	}
}

// TestSmallValuesBesideCancellingHugeOnesKeepTheirSum: huge values that
// cancel (2^1000 and −2^1000, or 2^960 and values just below it that
// sum to −2^960) leave the sum and the mean of the small values beside
// them, as they do below 2^960 (2^959 and −2^959 beside 3e-300 sum to
// 3e-300): the ordinary bands' sum is not scaled by 2^-128 while the
// result is within the float64 range, where a small sum underflowed to
// zero.
func TestSmallValuesBesideCancellingHugeOnesKeepTheirSum(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		sum  float64
	}{
		{"below 2^960", []float64{0x1p959, -0x1p959, 3e-300}, 3e-300},
		{"2^1000 and −2^1000", []float64{0x1p1000, -0x1p1000, 3e-300}, 3e-300},
		{"a subnormal", []float64{0x1p1000, 5e-324, -0x1p1000}, 5e-324},
		{"2^960 against values below it", []float64{0x1p960, -0x1p959, -0x1p959, 1e-280}, 1e-280},
	}
	for _, tt := range tests {
		for _, squares := range []bool{true, false} {
			var m Moments
			if !squares {
				m.SkipSquares()
			}
			for _, x := range tt.xs {
				m.Add(x)
			}
			assert.Equal(t, tt.sum, m.Sum(), "%s, squares %v: sum", tt.name, squares)
			mean, ok := m.Mean()
			require.True(t, ok)
			assert.Equal(t, tt.sum/float64(len(tt.xs)), mean, "%s, squares %v: mean", tt.name, squares)
		}
	}
}
