package reducers

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/internal/fsum"
)

// relErr is |got − want| / |want|, or |got| when want is 0.
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func momentsOf(xs ...float64) *Moments {
	var m Moments
	for _, x := range xs {
		m.Add(x)
	}
	return &m
}

func TestMomentsSpecKernels(t *testing.T) {
	tests := []struct {
		name  string
		xs    []float64
		sum   float64
		mean  float64
		stdev float64
	}{
		{"stdev of 2 4 4 4 5 5 7 9 is 2", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 40, 5, 2},
		{"stdev of one value is 0", []float64{5}, 5, 5, 0},
		{"stdev of 1 2 3 4", []float64{1, 2, 3, 4}, 10, 2.5, 1.118033988749895},
		{"sum skips NaN and Inf", []float64{1, math.NaN(), 2, math.Inf(1), math.Inf(-1)}, 3, 1.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := momentsOf(tt.xs...)
			assert.Equal(t, tt.sum, m.Sum())
			mean, ok := m.Mean()
			require.True(t, ok)
			assert.Equal(t, tt.mean, mean)
			sd, ok := m.Stdev()
			require.True(t, ok)
			assert.Equal(t, tt.stdev, sd)
		})
	}
}

func TestMomentsEmpty(t *testing.T) {
	var m Moments
	assert.Equal(t, 0, m.N())
	assert.Equal(t, 0.0, m.Sum())
	_, ok := m.Mean()
	assert.False(t, ok, "mean of nothing is missing")
	_, ok = m.Stdev()
	assert.False(t, ok, "stdev of nothing is missing")
	m.Remove(3) // nothing to remove: no effect
	assert.Equal(t, 0, m.N())
}

func TestMomentsCancellation(t *testing.T) {
	t.Run("add 1e16, add 1, remove 1e16 leaves 1", func(t *testing.T) {
		m := momentsOf(1e16, 1)
		m.Remove(1e16)
		assert.Equal(t, 1.0, m.Sum())
		mean, _ := m.Mean()
		assert.Equal(t, 1.0, mean)
		assert.Equal(t, 1, m.N())
	})
	t.Run("0.1 0.2 0.3 minus 0.1 and 0.2 is exactly 0.3", func(t *testing.T) {
		m := momentsOf(0.1, 0.2, 0.3)
		m.Remove(0.1)
		m.Remove(0.2)
		assert.Equal(t, 0.3, m.Sum())
	})
	t.Run("1e16 1 2 3 slid in a count window of 3", func(t *testing.T) {
		// rolling-compensated-sums: the window sum after 1e16 leaves is 6.
		m := momentsOf(1e16, 1, 2)
		assert.Equal(t, 10000000000000004.0, m.Sum())
		mean, _ := m.Mean()
		assert.Equal(t, 3333333333333334.5, mean)
		m.Add(3)
		m.Remove(1e16)
		assert.Equal(t, 6.0, m.Sum())
		mean, _ = m.Mean()
		assert.Equal(t, 2.0, mean)
	})
	t.Run("stdev of 5 5 5 after evictions is exactly 0", func(t *testing.T) {
		m := momentsOf(-3, 9, 5, 5, 5)
		m.Remove(-3)
		m.Remove(9)
		sd, ok := m.Stdev()
		require.True(t, ok)
		assert.Equal(t, 0.0, sd)
	})
}

// TestMomentsEqualValuesGiveZero: values exact in binary at modest
// magnitudes (integers, halves, quarters) are summed exactly, so whatever
// such values came and went, a window of equal values has stdev exactly 0,
// mean exactly the value and an exact sum.
func TestMomentsEqualValuesGiveZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	junk := func() float64 {
		switch rng.IntN(3) {
		case 0:
			return float64(rng.IntN(2_000_000) - 1_000_000)
		case 1:
			return float64(rng.IntN(400)) / 4
		}
		return float64(rng.IntN(1 << 20))
	}
	for i := range 3000 {
		c := junk()
		k := 1 + rng.IntN(5)
		var m Moments
		var before []float64
		for range rng.IntN(20) {
			x := junk()
			before = append(before, x)
			m.Add(x)
		}
		for range k {
			m.Add(c)
		}
		for _, x := range before {
			m.Remove(x)
		}
		sd, ok := m.Stdev()
		require.True(t, ok)
		require.Equal(t, 0.0, sd, "case %d: %d × %v", i, k, c)
		mean, _ := m.Mean()
		require.Equal(t, c, mean, "case %d", i)
		require.Equal(t, exact.SumFloat(repeat(c, k)), m.Sum(), "case %d", i)
	}
}

// TestMomentsResidueIsBounded documents the limit of double-double sums: a
// large value that leaves beside inexact small ones leaves a residue of the
// order of 2^-106 of it — far under the 1e-9 the conformance vectors allow.
func TestMomentsResidueIsBounded(t *testing.T) {
	m := momentsOf(1e16, 0.1, 0.7, 0.3)
	m.Remove(1e16)
	assert.InDelta(t, 1.1, m.Sum(), 1e-15)
	m.Remove(0.1)
	m.Remove(0.7)
	m.Remove(0.3)
	assert.Equal(t, 0.0, m.Sum(), "an emptied window starts afresh")
	m.Add(5)
	m.Add(5)
	sd, _ := m.Stdev()
	assert.Equal(t, 0.0, sd)
}

func repeat(x float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = x
	}
	return xs
}

// checkMoments compares m with the exact results over xs: sum and mean to
// 1e-15 relative (of the largest magnitude held, for sums that cancel),
// stdev to tol.
func checkMoments(t *testing.T, m *Moments, xs []float64, tol float64, msg string) {
	t.Helper()
	require.Equal(t, len(xs), m.N(), msg)
	scale := 0.0
	for _, x := range xs {
		scale = math.Max(scale, math.Abs(x))
	}
	want := exact.SumFloat(xs)
	require.LessOrEqual(t, math.Abs(m.Sum()-want), 1e-15*math.Max(math.Abs(want), 1e-16*scale), "%s: sum %v want %v", msg, m.Sum(), want)
	if len(xs) == 0 {
		return
	}
	mean, _ := m.Mean()
	require.LessOrEqual(t, relErr(mean, exact.Mean(xs)), 1e-15, "%s: mean %v want %v", msg, mean, exact.Mean(xs))
	sd, _ := m.Stdev()
	wantSD := exact.Stdev(xs)
	require.LessOrEqual(t, math.Abs(sd-wantSD), tol*math.Max(wantSD, 1e-300), "%s: stdev %v want %v", msg, sd, wantSD)
}

// TestMomentsMatchExact slides random windows over data of several shapes,
// removing in any order, and compares every result with an exact
// recomputation from the window's contents. The stdev tolerance is
// 1e-12, that of the oracles of the live package (the conformance vectors
// ask for 1e-9); "a few over a thousand" has the variance between 1e-6
// and 1e-3 of the squared mean, where a float64 subtraction loses more.
// TestStdevOfACloseSpreadIsExactTo1e12: the case the live package's
// rolling oracle found, through each of the three readings.
func TestStdevOfACloseSpreadIsExactTo1e12(t *testing.T) {
	xs := []float64{1000.9375, 1008.453125, 1013.6875}
	want := exact.Stdev(xs) // 5.232864106153744
	m := momentsOf(xs...)
	sd, ok := m.Stdev()
	require.True(t, ok)
	assert.LessOrEqual(t, relErr(sd, want), 1e-12, "Stdev %v want %v", sd, want)
	mean, dev := make([]float64, 1), make([]float64, 1)
	ReadEach([]*Moments{m}, 0, nil, nil, mean, dev)
	assert.LessOrEqual(t, relErr(dev[0], want), 1e-12, "ReadEach's mean and deviation %v want %v", dev[0], want)
	n, sum := make([]float64, 1), make([]float64, 1)
	ReadEach([]*Moments{m}, 0, n, sum, mean, dev)
	assert.LessOrEqual(t, relErr(dev[0], want), 1e-12, "ReadEach's every reading %v want %v", dev[0], want)
}

func TestMomentsMatchExact(t *testing.T) {
	shapes := []struct {
		name string
		gen  func(*rand.Rand) float64
	}{
		{"large mean, small spread", func(r *rand.Rand) float64 { return 1e6 + float64(r.IntN(1000))*1e-3 }},
		{"normal", func(r *rand.Rand) float64 { return r.NormFloat64() }},
		{"cpu-like", func(r *rand.Rand) float64 { return 0.5 + 0.1*r.NormFloat64() }},
		{"a few over a thousand", func(r *rand.Rand) float64 { return 1000 + math.Round(64*5*r.NormFloat64())/64 }},
		{"integers with repeats", func(r *rand.Rand) float64 { return float64(r.IntN(5)) }},
		{"wide magnitudes", func(r *rand.Rand) float64 {
			return math.Ldexp(r.Float64()-0.5, r.IntN(60)-30)
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(sh.name))))
			var m Moments
			var xs []float64
			for range 3000 {
				if len(xs) == 0 || rng.IntN(3) > 0 && len(xs) < 40 {
					x := sh.gen(rng)
					m.Add(x)
					xs = append(xs, x)
				} else {
					i := rng.IntN(len(xs)) // any order
					m.Remove(xs[i])
					xs = append(xs[:i], xs[i+1:]...)
				}
				checkMoments(t, &m, xs, 1e-12, sh.name)
			}
		})
	}
}

// TestMomentsLongSlide adds and removes 1e5 values through a window of
// 1000 and checks the results against the exact ones along the way.
func TestMomentsLongSlide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, w = 100_000, 1000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1e6 + float64(rng.IntN(1_000_000))*1e-3
	}
	var m Moments
	for i, x := range xs {
		m.Add(x)
		if i >= w {
			m.Remove(xs[i-w])
		}
		if i%997 == 0 || i == n-1 {
			checkMoments(t, &m, xs[max(0, i-w+1):i+1], 1e-10, "slide")
		}
	}
}

func TestMomentsExtremeMagnitudes(t *testing.T) {
	tests := []struct {
		name  string
		xs    []float64
		sum   float64
		stdev float64
		ok    bool
	}{
		{"huge equal", []float64{1e150, 1e150}, 2e150, 0, true},
		{"huge", []float64{1e150, 3e150}, 4e150, 1e150, true},
		{"tiny", []float64{1e-150, 3e-150}, 4e-150, 1e-150, true},
		{"squares overflow: stdev missing", []float64{1e300, 3e300}, 4e300, 0, false},
		{"one square too big: stdev missing", []float64{1, 2, 1e151}, 1e151, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := momentsOf(tt.xs...)
			assert.Equal(t, tt.sum, m.Sum())
			sd, ok := m.Stdev()
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.InEpsilon(t, tt.stdev+1e-300, sd+1e-300, 1e-15)
			}
		})
	}
}

func TestMomentsOutlierLeavesNoResidue(t *testing.T) {
	x := 58.95465139167753
	for _, outlier := range []float64{1e16, -3e20, 1e-20} {
		m := momentsOf(x, outlier, x, 0.1)
		m.Remove(outlier)
		m.Remove(0.1)
		sd, ok := m.Stdev()
		require.True(t, ok)
		assert.Equal(t, 0.0, sd, "outlier %v", outlier)
		assert.Equal(t, 2*x, m.Sum())
	}
	// An outlier that opened the main band: the others are in the band
	// below, and its residue leaves with it.
	m := momentsOf(1e16, 3, 3)
	m.Remove(1e16)
	m.Add(3)
	sd, _ := m.Stdev()
	assert.Equal(t, 0.0, sd)
	assert.Equal(t, 9.0, m.Sum())
	// A tiny value opened the main band: ordinary values and the outlier
	// are both far above it, but not within one band of each other, so
	// the outlier still has a band of its own and takes its residue away.
	for _, outlier := range []float64{1e16, 1e30, -1e25} {
		m := momentsOf(1e-12, x, x, x)
		m.Add(outlier)
		m.Add(x)
		m.Remove(outlier)
		m.Remove(1e-12)
		sd, ok := m.Stdev()
		require.True(t, ok)
		assert.Equal(t, 0.0, sd, "outlier %v", outlier)
		assert.Equal(t, 4*x, m.Sum(), "outlier %v", outlier)
	}
}

// TestMomentsRecoverFromHugeSquares: a value whose square would overflow
// makes the stdev missing while it is held, and only then; a zero or
// another value sharing its band does not keep the band poisoned. Each
// way in: one value at a time, runs, and the event trigger's Slide.
func TestMomentsRecoverFromHugeSquares(t *testing.T) {
	for _, big := range []float64{1e200, -1e151, 1e308} {
		m := momentsOf(big, 0, -4, -4, -4, -4)
		_, ok := m.Stdev()
		assert.False(t, ok, "%v held", big)
		m.Remove(big)
		sd, ok := m.Stdev()
		require.True(t, ok, "%v left", big)
		assert.InDelta(t, 1.6, sd, 1e-15)

		var r Moments
		run := []uint64{math.Float64bits(big), 0, math.Float64bits(-4), math.Float64bits(-4), math.Float64bits(-4), math.Float64bits(-4)}
		r.AddSlots(run, 0, 1, len(run))
		r.RemoveSlots(run, 0, 1, 1)
		sd, ok = r.Stdev()
		require.True(t, ok, "%v left a run", big)
		assert.InDelta(t, 1.6, sd, 1e-15)

		var s Moments
		out := make([]float64, 6)
		s.Slide([]float64{big, 0, -4, -4, -4, -4}, []float64{big}, []int32{0, 0, 0, 0, 0, 1}, SlideOut{Stdev: out})
		assert.True(t, math.IsNaN(out[4]), "%v held while sliding", big)
		assert.InDelta(t, 1.6, out[5], 1e-15, "%v slid out", big)
		sd, ok = s.Stdev()
		require.True(t, ok, "%v slid out", big)
		assert.InDelta(t, 1.6, sd, 1e-15)
	}
}

func TestMomentsReset(t *testing.T) {
	m := momentsOf(1, 2, 3, 1e300)
	m.Reset()
	assert.Equal(t, 0, m.N())
	assert.Equal(t, 0.0, m.Sum())
	m.Add(4)
	assert.Equal(t, 4.0, m.Sum())
}

func TestMomentsDoNotAllocate(t *testing.T) {
	xs := benchData(1024)
	var m Moments
	i := 0
	n := allocs.Count(1000, func() {
		m.Add(xs[i%len(xs)])
		if i >= 100 {
			m.Remove(xs[(i-100)%len(xs)])
		}
		i++
		_ = m.Sum()
		_, _ = m.Mean()
		_, _ = m.Stdev()
	})
	assert.Zero(t, n)
}

// TestMomentsSlotsMatchOneByOne runs the same random histories through
// AddSlots/RemoveSlots and through Add/Remove: the results must agree to
// the last bits a double-double leaves (and exactly on counts).
func TestMomentsSlotsMatchOneByOne(t *testing.T) {
	t.Run("vector kernel as detected", checkSlotsMatchOneByOne)
	t.Run("scalar lanes only", func(t *testing.T) {
		defer func(a bool) { fsum.Available = a }(fsum.Available)
		fsum.Available = false
		checkSlotsMatchOneByOne(t)
	})
}

func checkSlotsMatchOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	gen := []func() float64{
		func() float64 { return 0.5 + 0.1*rng.NormFloat64() },
		func() float64 { return float64(rng.IntN(7)) },
		func() float64 {
			switch rng.IntN(12) {
			case 0:
				return math.NaN()
			case 1:
				return 1e16
			case 2:
				return 1e-12
			case 3:
				return 0
			}
			return rng.NormFloat64() * 100
		},
	}
	for gi, g := range gen {
		var a, b Moments
		var window []float64
		for step := range 2000 {
			run := 1 + rng.IntN(30) // up to several groups of four for the kernel
			stride := 1 + rng.IntN(3)
			slots := make([]uint64, run*stride)
			var xs []float64
			for r := range run {
				x := g()
				xs = append(xs, x)
				slots[r*stride] = math.Float64bits(x)
			}
			if len(window) < run || rng.IntN(2) == 0 {
				a.AddSlots(slots, 0, stride, run)
				for _, x := range xs {
					b.Add(x)
				}
				window = append(window, xs...)
			} else {
				old := window[:run]
				for r, x := range old {
					slots[r*stride] = math.Float64bits(x)
				}
				a.RemoveSlots(slots, 0, stride, run)
				for _, x := range old {
					b.Remove(x)
				}
				window = window[run:]
			}
			require.Equal(t, b.N(), a.N(), "gen %d step %d", gi, step)
			var live []float64
			for _, x := range window {
				if x == x {
					live = append(live, x)
				}
			}
			checkMoments(t, &a, live, 1e-10, "slots")
		}
	}
}

// TestReadEachMatchesTheReaders: the joint reading gives bit for bit
// what N, Sum, Mean and Stdev give, the missing ones as NaN, whatever the
// state, with or without the deviation, through the loops of the two
// common sets of readings (the mean and deviation; the sum and mean), of
// a state given directly or as the second of two side by side.
func TestReadEachMatchesTheReaders(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	vals := []float64{0, 1, 2, 5, 5, 0.1, 1e16, 1e-12, 1e200, -3, 58.95465139167753}
	nan := func(x float64, ok bool) uint64 {
		if !ok {
			return math.Float64bits(math.NaN())
		}
		return math.Float64bits(x)
	}
	for trial := range 5000 {
		var m Moments
		if trial%4 == 0 {
			m.SkipSquares()
		}
		var held []float64
		for range rng.IntN(8) {
			x := vals[rng.IntN(len(vals))]
			if rng.IntN(3) == 0 {
				x = rng.NormFloat64()
			}
			m.Add(x)
			held = append(held, x)
		}
		for len(held) > 0 && rng.IntN(3) == 0 {
			m.Remove(held[0])
			held = held[1:]
		}
		n, sum, mean, sd := []float64{-1}, []float64{-1}, []float64{-1}, []float64{-1}
		switch trial % 5 {
		case 0:
			sd = nil // no deviation wanted: none written
		case 1:
			n, sum = nil, nil // the means and deviations alone
		case 2:
			n, sd = nil, nil // the sums and means alone
		}
		// Every other trial reads m as the second of two states side by
		// side (k = 1), the first holding other values.
		pair := [2]Moments{}
		pair[0].Add(12345)
		pair[1] = m
		if trial%2 == 0 {
			ReadEach([]*Moments{&pair[0]}, 1, n, sum, mean, sd)
		} else {
			ReadEach([]*Moments{&m}, 0, n, sum, mean, sd)
		}
		if n != nil {
			require.Equal(t, float64(m.N()), n[0], "trial %d", trial)
		}
		if sum != nil {
			require.Equal(t, math.Float64bits(m.Sum()), math.Float64bits(sum[0]), "trial %d", trial)
		}
		require.Equal(t, nan(m.Mean()), math.Float64bits(mean[0]), "trial %d", trial)
		if sd != nil {
			require.Equal(t, nan(m.Stdev()), math.Float64bits(sd[0]), "trial %d", trial)
		}
	}
}

// TestMomentsHotPartIsItsFirst48Bytes: a rolling engine keeps a Moments
// per sum of each window of every partition, side by side in its record,
// and a partition-tick at 100,000 hosts reads the seed's minute window's
// two: 56 bytes each, and what the shift and the common readers read
// (the flags and the main band) before the outer pointer, which is last.
func TestMomentsHotPartIsItsFirst48Bytes(t *testing.T) {
	var m Moments
	assert.Equal(t, uintptr(56), unsafe.Sizeof(m))
	assert.Equal(t, uintptr(48), unsafe.Offsetof(m.outer), "the outer pointer last")
	assert.Less(t, unsafe.Offsetof(m.rare), uintptr(48))
	assert.Less(t, unsafe.Offsetof(m.main)+unsafe.Sizeof(m.main), uintptr(49))
}

// TestMomentsRareCountsValuesBeyondTheMainBand: values outside the main
// band and values whose squares are not summed are counted in the outer
// state, which rare says holds any; N counts every value, and rare
// clears when the last of them leaves, however it left.
func TestMomentsRareCountsValuesBeyondTheMainBand(t *testing.T) {
	x := 58.95465139167753
	for _, c := range []struct {
		name     string
		outlier  float64
		big, far int // the outlier counted as big, and beyond the main band
	}{
		{"beyond the band", 1e16, 0, 1},
		{"big, beyond the band", 1e200, 1, 1},
		{"below the band", 1e-20, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := momentsOf(x, x, x)
			require.False(t, m.rare)
			m.Add(c.outlier)
			m.Add(c.outlier)
			assert.True(t, m.rare)
			assert.Equal(t, 5, m.N())
			assert.Equal(t, 3, m.main.n)
			assert.Equal(t, 2*c.far, m.outer.n)
			assert.Equal(t, 2*c.big, m.big())
			m.Remove(c.outlier)
			assert.True(t, m.rare, "one outlier still held")
			assert.Equal(t, 4, m.N())
			m.Remove(c.outlier)
			assert.False(t, m.rare, "the outliers left")
			assert.Equal(t, 3, m.N())
			assert.Equal(t, 0, m.big())
			sd, ok := m.Stdev()
			require.True(t, ok)
			assert.Equal(t, 0.0, sd)
			// Emptied with outliers held: rare clears with the rest.
			m.Add(c.outlier)
			for range 3 {
				m.Remove(x)
			}
			m.Remove(c.outlier)
			assert.False(t, m.rare)
			assert.Equal(t, 0, m.N())
			// A run through AddSlots and RemoveSlots, and a refill.
			run := []uint64{math.Float64bits(x), math.Float64bits(c.outlier), math.Float64bits(x), math.Float64bits(x), math.Float64bits(x), math.Float64bits(x)}
			m.AddSlots(run, 0, 1, len(run))
			assert.True(t, m.rare)
			assert.Equal(t, 6, m.N())
			m.RemoveSlots(run, 0, 1, 2)
			assert.False(t, m.rare)
			assert.Equal(t, 4, m.N())
			m.AddSlots(run, 1, 1, 1)
			m.FillSlots(run, 2, 1, 3)
			assert.False(t, m.rare, "a refill of the main band's values")
			assert.Equal(t, 3, m.N())
		})
	}
	// A big value inside the main band (anchored near it): counted big,
	// in the main band, and rare while held.
	m := momentsOf(3e200, 1e200)
	assert.True(t, m.rare)
	assert.Equal(t, 2, m.main.n)
	assert.Equal(t, 0, m.outer.n)
	assert.Equal(t, 2, m.big())
	_, ok := m.Stdev()
	assert.False(t, ok)
}
