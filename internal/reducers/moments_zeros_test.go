package reducers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/exact"
)

// zeroResidueRows are a count-6 window's rows: large values open the main
// band, leave, and the last window holds small values and a zero, far
// below the band the large ones opened. Its deviation is that of
// 4, 2, 5, 0, 5, 9: 2.7938…; it read 2.2669 while a held zero kept the
// large values' band, and their rounding residue, alive.
var zeroResidueRows = []float64{
	-9.018055449307398e15, -7.332924750915935e15, 9.496199343501016e15, -8.907502107867178e15,
	10, -6.113671620643504e15, -8.976206992592954e15, 6, 1, 9, 8.931007275596319e15, 10,
	-2.0404037983463062e15, 8.243292742853305e15, 9.275548747388318e14, 2.3044614065524716e14,
	-5.159985989019822e15, 4, 2, 5, 0, 5, 9,
}

// zeroPaths are the ways a window's sums move, each applied to a state:
// remove the values of rem (oldest first), then add those of add.
var zeroPaths = []struct {
	name  string
	shift func(m *Moments, rem, add []float64)
}{
	{"one by one", func(m *Moments, rem, add []float64) {
		for _, x := range rem {
			m.Remove(x)
		}
		for _, x := range add {
			m.Add(x)
		}
	}},
	{"slots", func(m *Moments, rem, add []float64) {
		m.RemoveSlots(bitsOf(rem), 0, 1, len(rem))
		m.AddSlots(bitsOf(add), 0, 1, len(add))
	}},
	{"shift slots", func(m *Moments, rem, add []float64) {
		m.ShiftSlots(bitsOf(rem), 0, len(rem), bitsOf(add), 0, len(add), 1)
	}},
	{"shift run", func(m *Moments, rem, add []float64) {
		// As a rolling engine does: the pass, or the values one run at
		// a time when it does not apply.
		sl := Slide{Rem: bitsOf(rem), Add: bitsOf(add), Stride: 1, RN: len(rem), AN: len(add)}
		if ShiftRun(m, []int{0}, &sl) == 0 {
			m.RemoveSlots(sl.Rem, 0, 1, sl.RN)
			m.AddSlots(sl.Add, 0, 1, sl.AN)
		}
	}},
}

// TestAHeldZeroKeepsNoResidue: a zero changes no sum, so a band holding
// only zeros holds no residue of the values that left it. Zeros are
// counted in the main band, whatever their magnitude; a zero held there
// kept a band emptied of every other value from being reset, and the
// rounding residue of large values' squares that had left stayed in the
// deviation of the small values left (19 % off here). Every way the
// sums move: one value at a time, runs, the one-pass shifts (in assembly
// on amd64), the event trigger's Slide, and a refill.
func TestAHeldZeroKeepsNoResidue(t *testing.T) {
	want := exact.Stdev([]float64{4, 2, 5, 0, 5, 9})
	for _, p := range zeroPaths {
		var m Moments
		for i, x := range zeroResidueRows {
			var rem []float64
			if i >= 6 {
				rem = zeroResidueRows[i-6 : i-5]
			}
			p.shift(&m, rem, []float64{x})
		}
		sd, ok := m.Stdev()
		require.True(t, ok, p.name)
		require.InEpsilon(t, want, sd, 1e-12, p.name)
	}

	var m Moments
	out := make([]float64, len(zeroResidueRows))
	remCount := make([]int32, len(zeroResidueRows))
	for i := 6; i < len(remCount); i++ {
		remCount[i] = 1
	}
	m.Slide(zeroResidueRows, zeroResidueRows, remCount, SlideOut{Stdev: out})
	require.InEpsilon(t, want, out[len(out)-1], 1e-12, "slide")
	// A count-3 window whose large values leave in rows that enter
	// zeros: Slide's pass in registers finds the band holding zeros
	// alone; small values come after.
	var z Moments
	adds := []float64{4.308200476109769e15, 1.1107454038291142e15, -4.329429712212076e15, 0, 0, 0, 4, 2}
	out = make([]float64, len(adds))
	z.Slide(adds, adds, []int32{0, 0, 0, 1, 1, 1, 1, 1}, SlideOut{Stdev: out})
	require.Equal(t, 0.0, out[5], "three zeros")
	require.InEpsilon(t, exact.Stdev([]float64{0, 4, 2}), out[7], 1e-12, "slide, zeros entering")

	// A window refilled with large values and a zero in one pass, then
	// slid on until only the zero is left of what it held.
	for _, p := range zeroPaths {
		var f Moments
		big := []float64{4.308200476109769e15, 1.1107454038291142e15, -4.329429712212076e15}
		f.FillSlots(bitsOf(append(big, 0)), 0, 1, 4)
		p.shift(&f, big[:1], []float64{4})
		p.shift(&f, big[1:], []float64{2})
		sd, ok := f.Stdev()
		require.True(t, ok, p.name)
		require.InEpsilon(t, exact.Stdev([]float64{0, 4, 2}), sd, 1e-12, "refilled, "+p.name)
	}
}

// TestSmallValuesLeftAfterLargeOnesAreExact: whatever left a window, a
// window of small integers and zeros has its exact deviation (to 1e-12),
// by every path, in random histories where large values come and go.
// Without its zeros counted apart, a window holding a zero kept the
// residue of large values that had left in about one in a hundred such
// windows.
func TestSmallValuesLeftAfterLargeOnesAreExact(t *testing.T) {
	paths := append([]struct {
		name  string
		shift func(m *Moments, rem, add []float64)
	}{}, zeroPaths...)
	paths = append(paths, struct {
		name  string
		shift func(m *Moments, rem, add []float64)
	}{"slide", func(m *Moments, rem, add []float64) {
		// One row a call: its value enters, then those leaving leave.
		out := make([]float64, len(add))
		counts := make([]int32, len(add))
		counts[len(add)-1] = int32(len(rem))
		m.Slide(add, rem, counts, SlideOut{Stdev: out})
	}})
	for _, p := range paths {
		rng := rand.New(rand.NewPCG(71, 72))
		checked, withZero := 0, 0
		for range 1500 {
			var m Moments
			var window []float64
			for range 60 {
				// Runs of up to four take the one-pass shifts, longer
				// ones the slot paths' lanes and vector kernel.
				rn := min(len(window), rng.IntN(7))
				an := 1 + rng.IntN(6)
				add := make([]float64, an)
				for i := range add {
					if rng.IntN(4) == 0 {
						add[i] = math.Copysign(1e14+rng.Float64()*9.9e15, rng.NormFloat64())
					} else {
						add[i] = float64(rng.IntN(20))
					}
				}
				p.shift(&m, window[:rn], add)
				window = append(window[rn:], add...)
				small, zero := true, false
				for _, x := range window {
					small = small && math.Abs(x) < 20
					zero = zero || x == 0
				}
				if !small {
					continue
				}
				want := exact.Stdev(window)
				sd, ok := m.Stdev()
				require.True(t, ok, p.name)
				require.InDelta(t, want, sd, 1e-12*(1+want), "%s: window %v", p.name, window)
				checked++
				if zero {
					withZero++
				}
			}
		}
		t.Logf("%s: %d windows of small values checked, %d holding a zero", p.name, checked, withZero)
		require.Greater(t, withZero, 1000, p.name)
		require.Greater(t, checked, 2*withZero/3, p.name)
	}
}

// TestZerosBeyondTheCountNeverResetLiveSums: the count of zeros stops at
// maxZeros and is then a lower bound; it must never exceed the zeros
// held, or a band still holding other values would be reset. 70,000
// zeros around a few values, added and removed in runs of every length.
func TestZerosBeyondTheCountNeverResetLiveSums(t *testing.T) {
	const zeros = maxZeros + 4465
	for _, run := range []int{1, 3, 4, 5, 1000} {
		var m Moments
		xs := []float64{3, 5, 8, 13}
		block := make([]float64, run)
		add := func(xs []float64) { m.AddSlots(bitsOf(xs), 0, 1, len(xs)) }
		rem := func(xs []float64) { m.RemoveSlots(bitsOf(xs), 0, 1, len(xs)) }
		add(xs[:2])
		for n := 0; n < zeros; n += run {
			add(block[:min(run, zeros-n)])
		}
		add(xs[2:])
		require.Equal(t, uint16(maxZeros), m.zeros, "run %d", run)
		for n := 0; n < zeros; n += run {
			rem(block[:min(run, zeros-n)])
		}
		require.Equal(t, 4, m.N(), "run %d", run)
		require.Equal(t, 29.0, m.Sum(), "run %d", run)
		sd, ok := m.Stdev()
		require.True(t, ok)
		require.InEpsilon(t, exact.Stdev(xs), sd, 1e-12, "run %d", run)
		// The values leave one by one through the shifts, zeros
		// entering: the last of them leaves the band with zeros alone.
		for _, x := range xs {
			sl := Slide{Rem: bitsOf([]float64{x}), Add: bitsOf([]float64{0}), Stride: 1, RN: 1, AN: 1}
			if ShiftRun(&m, []int{0}, &sl) == 0 {
				m.Remove(x)
				m.Add(0)
			}
		}
		require.Equal(t, 4, m.N(), "run %d", run)
		require.Equal(t, 0.0, m.Sum(), "run %d", run)
		require.Equal(t, [4]float64{}, [4]float64{m.main.s, m.main.c, m.main.q, m.main.qc}, "run %d: zeros alone", run)
	}
}
