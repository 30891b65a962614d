package reducers

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
)

// sameMoments requires a and b to hold bit-identical state.
func sameMoments(t *testing.T, a, b *Moments, msg string, args ...any) {
	t.Helper()
	require.Equal(t, b.N(), a.N(), msg, args)
	require.Equal(t, b.rare, a.rare, msg, args)
	require.Equal(t, b.big(), a.big(), msg, args)
	require.Equal(t, b.anchored, a.anchored, msg, args)
	require.Equal(t, b.zeros, a.zeros, msg, args)
	if b.anchored {
		require.Equal(t, b.anchor, a.anchor, msg, args)
	}
	bits := func(x band) [5]uint64 {
		return [5]uint64{uint64(x.n), math.Float64bits(x.s), math.Float64bits(x.c), math.Float64bits(x.q), math.Float64bits(x.qc)}
	}
	require.Equal(t, bits(b.main), bits(a.main), msg, args)
	outer := func(m *Moments) map[int32][5]uint64 {
		out := map[int32][5]uint64{}
		if m.outer != nil {
			for i, k := range m.outer.k {
				if m.outer.b[i].n != 0 {
					out[k] = bits(m.outer.b[i])
				}
			}
		}
		return out
	}
	require.Equal(t, outer(b), outer(a), msg, args)
}

// shiftValues draws the values the one-pass paths must handle like the
// general ones: ordinary data, and now and then a missing value, a zero,
// an outlier, an infinity, a subnormal, a value whose square overflows.
func shiftValues(rng *rand.Rand) float64 {
	switch rng.IntN(40) {
	case 0:
		return math.NaN()
	case 1:
		return 0
	case 2:
		return 1e16
	case 3:
		return math.Inf(1)
	case 4:
		return 5e-324
	case 5:
		return 1e200
	case 6:
		return -1e-12
	}
	return 50 + 10*rng.NormFloat64()
}

// TestFillSlotsMatchesResetAndAdd: FillSlots leaves exactly the state of
// Reset followed by AddSlots, whatever the values and the previous state.
func TestFillSlotsMatchesResetAndAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for step := range 20000 {
		var a, b Moments
		if step%3 == 0 {
			a.SkipSquares()
			b.SkipSquares()
		}
		// Some history first, so that both start from a used state.
		for range rng.IntN(4) {
			x := shiftValues(rng)
			a.Add(x)
			b.Add(x)
		}
		n := rng.IntN(7)
		stride := 1 + rng.IntN(3)
		off := rng.IntN(5) // the run starts anywhere in its block
		slots := make([]uint64, off+n*stride+1)
		for r := range n {
			slots[off+r*stride] = math.Float64bits(shiftValues(rng))
		}
		a.FillSlots(slots, off, stride, n)
		b.Reset()
		b.AddSlots(slots, off, stride, n)
		sameMoments(t, &a, &b, "step %d", step)
	}
}

// TestShiftSlotsMatchesRemoveAndAdd slides windows by short and long runs
// through ShiftSlots and through RemoveSlots then AddSlots: the states
// must stay bit-identical, including when the window empties, a band
// empties or a value leaves the main band.
func TestShiftSlotsMatchesRemoveAndAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for trial := range 200 {
		var a, b Moments
		if trial%3 == 0 {
			a.SkipSquares()
			b.SkipSquares()
		}
		var window []float64
		for step := range 300 {
			stride := 1 + rng.IntN(3)
			rn := min(len(window), rng.IntN(7))
			an := rng.IntN(7)
			// The runs start anywhere in their blocks.
			roff, aoff := rng.IntN(5), rng.IntN(5)
			rem := make([]uint64, roff+rn*stride+1)
			for r, x := range window[:rn] {
				rem[roff+r*stride] = math.Float64bits(x)
			}
			add := make([]uint64, aoff+an*stride+1)
			var xs []float64
			for r := range an {
				x := shiftValues(rng)
				xs = append(xs, x)
				add[aoff+r*stride] = math.Float64bits(x)
			}
			a.ShiftSlots(rem, roff, rn, add, aoff, an, stride)
			b.RemoveSlots(rem, roff, stride, rn)
			b.AddSlots(add, aoff, stride, an)
			window = append(window[rn:], xs...)
			sameMoments(t, &a, &b, "trial %d step %d", trial, step)
		}
	}
}

// TestShiftSlotsSteadySlide: a slide of ordinary values keeps exact
// counts and sums, opens no outer band and does not allocate.
func TestShiftSlotsSteadySlide(t *testing.T) {
	var m Moments
	for i := range 10 {
		m.Add(float64(50 + i))
	}
	rem := []uint64{math.Float64bits(50), math.Float64bits(51)}
	add := []uint64{math.Float64bits(60), math.Float64bits(61)}
	m.ShiftSlots(rem, 0, 2, add, 0, 2, 1)
	require.Equal(t, 10, m.N())
	require.Nil(t, m.outer)
	mean, ok := m.Mean()
	require.True(t, ok)
	require.Equal(t, 56.5, mean)
	n := allocs.Count(100, func() { m.ShiftSlots(rem, 0, 2, rem, 0, 2, 1) })
	require.Zero(t, n)
}

// TestShiftEachMatchesShiftSlots: shifting several states of a window at
// once, each on its own slot of the rows, leaves each state exactly as
// its own ShiftSlots would.
func TestShiftEachMatchesShiftSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const stride = 3
	for trial := range 100 {
		each, one := make([]Moments, 2), make([]Moments, 2)
		if trial%2 == 0 {
			each[1].SkipSquares()
			one[1].SkipSquares()
		}
		slots := []int{1, 2}
		var window [][stride]uint64
		for step := range 200 {
			rn := min(len(window), rng.IntN(7))
			an := rng.IntN(7)
			roff, aoff := stride*rng.IntN(3), stride*rng.IntN(3)
			rem := make([]uint64, roff+rn*stride+stride)
			for r, row := range window[:rn] {
				copy(rem[roff+r*stride:], row[:])
			}
			add := make([]uint64, aoff+an*stride+stride)
			var rows [][stride]uint64
			for r := range an {
				row := [stride]uint64{0, math.Float64bits(shiftValues(rng)), math.Float64bits(shiftValues(rng))}
				rows = append(rows, row)
				copy(add[aoff+r*stride:], row[:])
			}
			ShiftEach(each, slots, &Slide{rem[roff : roff+rn*stride], add[aoff : aoff+an*stride], stride, rn, an})
			for i, s := range slots {
				one[i].ShiftSlots(rem, roff+s, rn, add, aoff+s, an, stride)
				sameMoments(t, &each[i], &one[i], "trial %d step %d state %d", trial, step, i)
			}
			window = append(window[rn:], rows...)
		}
	}
}

// TestFillMinMaxMatchesFillAndMinMax: filling with the extremes in one
// pass leaves the state of FillSlots and returns MinMaxSlots' results, bit
// for bit, whatever the values and the previous state.
func TestFillMinMaxMatchesFillAndMinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for step := range 20000 {
		var a, b Moments
		if step%3 == 0 {
			a.SkipSquares()
			b.SkipSquares()
		}
		for range rng.IntN(4) {
			x := shiftValues(rng)
			a.Add(x)
			b.Add(x)
		}
		n := rng.IntN(7)
		stride := 1 + rng.IntN(3)
		off := rng.IntN(5)
		slots := make([]uint64, off+n*stride+1)
		for r := range n {
			x := shiftValues(rng)
			if rng.IntN(8) == 0 {
				x = math.Copysign(0, -1) // -0 before or after 0: the first stays
			}
			slots[off+r*stride] = math.Float64bits(x)
		}
		lo, hi, ok := a.FillMinMax(slots, off, stride, n)
		b.FillSlots(slots, off, stride, n)
		wlo, whi, wok := MinMaxSlots(slots, off, stride, n)
		sameMoments(t, &a, &b, "step %d", step)
		require.Equal(t, wok, ok, "step %d", step)
		if wok {
			require.Equal(t, math.Float64bits(wlo), math.Float64bits(lo), "step %d", step)
			require.Equal(t, math.Float64bits(whi), math.Float64bits(hi), "step %d", step)
		}
	}
}

// TestShiftEachPanicsOnASlotOutsideTheRow: a short shift reads each
// state's slot within whole rows, so a slot at or beyond the stride is a
// programmer's error, not a read of the next row.
func TestShiftEachPanicsOnASlotOutsideTheRow(t *testing.T) {
	ms := make([]Moments, 1)
	for _, x := range []float64{1, 2, 3, 4} {
		ms[0].Add(x)
	}
	rows := []uint64{0, math.Float64bits(1), 0, math.Float64bits(2)}
	assert.Panics(t, func() { ShiftEach(ms, []int{2}, &Slide{rows[:2], rows[2:], 2, 1, 1}) })
}

// TestNotFiniteFindsAnyInfinityOrNaN: the one-pass paths reject their
// sums when any of them is an infinity or a NaN, whichever it is, and
// accept any finite ones, the largest and the smallest included.
func TestNotFiniteFindsAnyInfinityOrNaN(t *testing.T) {
	finite := []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64, 5e-324}
	for _, a := range finite {
		for _, b := range finite {
			assert.False(t, notFinite(a, b, a, b), "%v %v", a, b)
		}
	}
	for _, bad := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		for place := range 4 {
			xs := [4]float64{1, math.MaxFloat64, -math.MaxFloat64, 0}
			xs[place] = bad
			assert.True(t, notFinite(xs[0], xs[1], xs[2], xs[3]), "%v at %d", bad, place)
		}
	}
}

// TestFillRunMinMaxChangesNothingWhenItDoesNotApply: the one pass alone
// either sets the state FillMinMax sets, with its extremes, or reports
// false and leaves the state as it was (a missing or non-finite value, a
// value outside the first one's band, a first value of zero), whatever
// the state held before.
func TestFillRunMinMaxChangesNothingWhenItDoesNotApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	applied, refused := 0, 0
	for step := range 20000 {
		var a, b, was Moments
		if step%3 == 0 {
			a.SkipSquares()
			b.SkipSquares()
			was.SkipSquares()
		}
		for range rng.IntN(4) {
			x := shiftValues(rng)
			a.Add(x)
			b.Add(x)
			was.Add(x)
		}
		n := 1 + rng.IntN(ShortRun)
		stride := 1 + rng.IntN(3)
		slots := make([]uint64, n*stride)
		for r := range n {
			x := float64(rng.IntN(1000)) / 8
			if rng.IntN(6) == 0 {
				x = shiftValues(rng)
			}
			slots[r*stride] = math.Float64bits(x)
		}
		lo, hi, ok := a.FillRunMinMax(slots[:(n-1)*stride+1], stride, n)
		if !ok {
			refused++
			sameMoments(t, &a, &was, "step %d: refused, yet changed", step)
			continue
		}
		applied++
		wlo, whi, _ := b.FillMinMax(slots, 0, stride, n)
		sameMoments(t, &a, &b, "step %d", step)
		require.Equal(t, math.Float64bits(wlo), math.Float64bits(lo), "step %d", step)
		require.Equal(t, math.Float64bits(whi), math.Float64bits(hi), "step %d", step)
	}
	require.Greater(t, applied, 1000)
	require.Greater(t, refused, 1000)
}

// TestSquaresTellsWhichShiftApplies: a Moments keeps Σx² unless told to
// skip it, and says so; each kind shifts through its own pass.
func TestSquaresTellsWhichShiftApplies(t *testing.T) {
	var with, without Moments
	without.SkipSquares()
	for _, x := range []float64{1, 2, 3} {
		with.Add(x)
		without.Add(x)
	}
	require.True(t, with.Squares())
	require.False(t, without.Squares())
	rows := []uint64{math.Float64bits(1), math.Float64bits(4)}
	sl := Slide{Rem: rows[:1], Add: rows[1:], Stride: 1, RN: 1, AN: 1}
	require.True(t, with.ShiftSquares(&sl, 0))
	require.True(t, without.ShiftSums(&sl, 0))
	sd, ok := with.Stdev()
	require.True(t, ok)
	require.InDelta(t, math.Sqrt(2.0/3), sd, 1e-15)
	require.Equal(t, 9.0, without.Sum())
}

// TestShiftRunMatchesTheGoPasses runs ShiftRun (in assembly on amd64
// with FMA) and the Go passes it stands for on the same states and
// slides: the same count, every field bit for bit, for runs of one to
// three states of squares and of sums side by side, values of every scale
// (up to the squares' limit, where no band fits), with missing values,
// zeros, outliers and infinities, leaving rows checked or not, and the
// slots anywhere in rows of garbage. A state whose pass does not apply
// has its values removed and added, and the run goes on after it, as a
// rolling engine does.
func TestShiftRunMatchesTheGoPasses(t *testing.T) {
	if !shiftAsm {
		t.Log("no assembly pass on this machine: ShiftRun is the Go pass")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	scales := []float64{1, 0x1p-1000, 0x1p-1050, 0x1p440, 0x1p470, 0x1p480, 0x1p526, 0x1p1000}
	applied := [2]int{}
	for trial := range 300 {
		k := 1 + trial%3
		ms := make([]Moments, k)
		for j := range ms {
			if rng.IntN(3) == 0 {
				ms[j].SkipSquares()
			}
		}
		scale := scales[trial%len(scales)]
		draw := func() float64 {
			if rng.IntN(10) == 0 {
				// The lowest exponent of the band of values near
				// 2^525, whose band is one exponent wide: the squares'
				// limit cuts it.
				return 0x1p499
			}
			if rng.IntN(10) == 0 {
				// A value at the lowest exponent of the band of
				// values near scale/2.
				return scale * 0x1p-27
			}
			if trial%2 == 0 {
				return scale * (0.5 + 0.1*rng.NormFloat64())
			}
			return scale * shiftValues(rng)
		}
		stride := k + rng.IntN(3)
		slots := rng.Perm(stride)[:k]
		var window [][]float64
		for step := range 200 {
			rn := min(len(window), rng.IntN(ShortRun+2))
			an := rng.IntN(ShortRun + 2)
			row := func(dst []uint64, rows [][]float64) {
				for i := range dst {
					dst[i] = rng.Uint64()
				}
				for r, xs := range rows {
					for j, x := range xs {
						dst[r*stride+slots[j]] = math.Float64bits(x)
					}
				}
			}
			added := make([][]float64, an)
			for r := range added {
				added[r] = make([]float64, k)
				for j := range added[r] {
					added[r][j] = draw()
				}
			}
			sl := Slide{Rem: make([]uint64, rn*stride), Add: make([]uint64, an*stride), Stride: stride, RN: rn, AN: an}
			row(sl.Rem, window[:rn])
			row(sl.Add, added)
			for i := 0; i < k; {
				a, b := slices.Clone(ms), slices.Clone(ms)
				na := ShiftRun(&a[i], slots[i:], &sl)
				nb := shiftRunGo(&b[i], slots[i:], &sl)
				require.Equal(t, nb, na, "trial %d step %d from %d", trial, step, i)
				for j := range ms {
					sameMoments(t, &a[j], &b[j], "trial %d step %d state %d", trial, step, j)
				}
				for j := i; j < i+na; j++ {
					applied[btoi(ms[j].noSquares)]++
				}
				ms = a
				if i += na; i < k {
					ms[i].RemoveSlots(sl.Rem, slots[i], stride, rn)
					ms[i].AddSlots(sl.Add, slots[i], stride, an)
					i++
				}
			}
			window = append(window[rn:], added...)
		}
	}
	// Both passes ran often enough for the comparison to mean something.
	require.Greater(t, applied[0], 10000)
	require.Greater(t, applied[1], 5000)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestShiftRunSlidesAWindowWithoutAllocating: a slide of one row out
// and one in, through ShiftRun, moves the counts and sums of two states
// and does not allocate; a state whose pass does not apply stops the run.
func TestShiftRunSlidesAWindowWithoutAllocating(t *testing.T) {
	ms := make([]Moments, 2)
	ms[1].SkipSquares()
	for _, x := range []float64{1, 2, 3, 4} {
		ms[0].Add(x)
		ms[1].Add(10 * x)
	}
	row := func(x float64) []uint64 { return []uint64{math.Float64bits(x), math.Float64bits(10 * x)} }
	slots := []int{0, 1}
	sl := Slide{Rem: row(1), Add: row(5), Stride: 2, RN: 1, AN: 1}
	require.Equal(t, 2, ShiftRun(&ms[0], slots, &sl))
	require.Equal(t, 4, ms[0].N())
	require.Equal(t, 14.0, ms[0].Sum())
	require.Equal(t, 140.0, ms[1].Sum())
	sd, ok := ms[0].Stdev()
	require.True(t, ok)
	require.Equal(t, math.Sqrt(1.25), sd)
	back := Slide{Rem: sl.Add, Add: sl.Rem, Stride: 2, RN: 1, AN: 1}
	require.Zero(t, allocs.Count(100, func() {
		ShiftRun(&ms[0], slots, &back)
		ShiftRun(&ms[0], slots, &sl)
	}))
	// A missing value entering the first state: no state shifted.
	miss := Slide{Rem: row(2), Add: []uint64{math.Float64bits(math.NaN()), math.Float64bits(7)}, Stride: 2, RN: 1, AN: 1}
	require.Equal(t, 0, ShiftRun(&ms[0], slots, &miss))
	require.Equal(t, 14.0, ms[0].Sum())
	require.Equal(t, 1, ShiftRun(&ms[1], slots[1:], &miss))
	require.Equal(t, 140.0-20+7, ms[1].Sum())
}

// TestFillRunMinMaxMatchesTheGoPass runs Moments.FillRunMinMax (in
// assembly on amd64 with FMA) and the Go pass it stands for on the same
// states and runs: the same answer, extremes and state bit for bit, for
// states with and without squares and outer bands, runs of one to six
// values of every scale, with missing values, zeros of both signs,
// infinities and outliers, first or later in the run.
func TestFillRunMinMaxMatchesTheGoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	scales := []float64{1, 0x1p-1000, 0x1p-1050, 0x1p470, 0x1p526, 0x1p1000}
	special := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1e16, 5e-324, 0x1p499, -3}
	applied := 0
	for trial := range 20000 {
		var m Moments
		if trial%3 == 0 {
			m.SkipSquares()
		}
		// Now and then a state with outer bands, which the pass empties.
		if trial%5 == 0 {
			m.Add(1)
			m.Add(1e30)
		}
		scale := scales[trial%len(scales)]
		stride := 1 + rng.IntN(4)
		n := 1 + rng.IntN(6)
		run := make([]uint64, (n-1)*stride+1)
		for i := range run {
			run[i] = rng.Uint64()
		}
		for r := range n {
			x := scale * (0.5 + 0.1*rng.NormFloat64())
			switch rng.IntN(8) {
			case 0:
				x = special[rng.IntN(len(special))]
			case 1:
				x = scale * 0x1p-27 // the band's lowest exponent
			}
			run[r*stride] = math.Float64bits(x)
		}
		a, b := m, m
		if m.outer != nil {
			// Each its own outer bands, which the pass clears.
			a.outer = &outerBands{k: slices.Clone(m.outer.k), b: slices.Clone(m.outer.b), n: m.outer.n, big: m.outer.big}
			b.outer = &outerBands{k: slices.Clone(m.outer.k), b: slices.Clone(m.outer.b), n: m.outer.n, big: m.outer.big}
		}
		loA, hiA, okA := a.FillRunMinMax(run, stride, n)
		loB, hiB, okB := fillRunMinMaxGo(&b, run, stride, n)
		require.Equal(t, okB, okA, "trial %d", trial)
		require.Equal(t, math.Float64bits(loB), math.Float64bits(loA), "trial %d", trial)
		require.Equal(t, math.Float64bits(hiB), math.Float64bits(hiA), "trial %d", trial)
		sameMoments(t, &a, &b, "trial %d", trial)
		if okA {
			applied++
		}
	}
	// Often enough to mean something (not at the scales of 2^-1000 and
	// below, whose bands reach a zero's exponent).
	require.Greater(t, applied, 4000)
}

// TestShiftRunWhereNoBandFits: a state anchored beyond the squares'
// limit has no band (bandRange gives none): no slide applies, not even
// one of values at what would be the band's lowest exponent, whose
// squares are finite, as in the Go pass.
func TestShiftRunWhereNoBandFits(t *testing.T) {
	var m Moments
	m.Add(0x1p527)
	for range 3 {
		m.Add(0x1p501)
	}
	x := []uint64{math.Float64bits(0x1p501)}
	sl := Slide{Rem: x, Add: x, Stride: 1, RN: 1, AN: 1}
	a, b := m, m
	require.Equal(t, shiftRunGo(&b, []int{0}, &sl), ShiftRun(&a, []int{0}, &sl))
	require.Equal(t, 0, ShiftRun(&a, []int{0}, &sl))
	sameMoments(t, &a, &b, "")
	run := []uint64{math.Float64bits(0x1p527), math.Float64bits(0x1p501)}
	lo, hi, ok := a.FillRunMinMax(run, 1, 2)
	lo2, hi2, ok2 := fillRunMinMaxGo(&b, run, 1, 2)
	require.Equal(t, []any{lo2, hi2, ok2}, []any{lo, hi, ok})
	sameMoments(t, &a, &b, "")
}

// TestShiftRunAtTheSquaresLimit: the band of a state anchored 26
// exponents below the squares' limit stops short of it: a value at the
// limit (2^500) does not slide in, nor fill a run, as in the Go pass.
func TestShiftRunAtTheSquaresLimit(t *testing.T) {
	for _, anchor := range []float64{0x1p473, 0x1p474, 0x1p475} {
		var m Moments
		for range 3 {
			m.Add(anchor)
		}
		sl := Slide{Rem: []uint64{math.Float64bits(anchor)}, Add: []uint64{math.Float64bits(0x1p500)}, Stride: 1, RN: 1, AN: 1}
		a, b := m, m
		require.Equal(t, shiftRunGo(&b, []int{0}, &sl), ShiftRun(&a, []int{0}, &sl), "anchor %g", anchor)
		sameMoments(t, &a, &b, "anchor %g", anchor)
		run := []uint64{math.Float64bits(anchor), math.Float64bits(0x1p500)}
		lo, hi, ok := a.FillRunMinMax(run, 1, 2)
		lo2, hi2, ok2 := fillRunMinMaxGo(&b, run, 1, 2)
		require.Equal(t, []any{lo2, hi2, ok2}, []any{lo, hi, ok}, "anchor %g", anchor)
		sameMoments(t, &a, &b, "anchor %g", anchor)
	}
}

// TestShiftRunWithoutTheAssembly: with the assembly passes off (a
// processor without FMA), ShiftRun and FillRunMinMax take the Go passes
// and give their results.
func TestShiftRunWithoutTheAssembly(t *testing.T) {
	defer func(a bool) { shiftAsm = a }(shiftAsm)
	shiftAsm = false
	ms := make([]Moments, 2)
	ms[1].SkipSquares()
	for _, x := range []float64{1, 2, 3, 4} {
		ms[0].Add(x)
		ms[1].Add(x)
	}
	bits := func(xs ...float64) []uint64 {
		var out []uint64
		for _, x := range xs {
			out = append(out, math.Float64bits(x))
		}
		return out
	}
	sl := Slide{Rem: bits(1, 1), Add: bits(5, math.NaN()), Stride: 2, RN: 1, AN: 1}
	require.Equal(t, 1, ShiftRun(&ms[0], []int{0, 1}, &sl))
	require.Equal(t, 14.0, ms[0].Sum())
	require.Equal(t, 10.0, ms[1].Sum())
	lo, hi, ok := ms[0].FillRunMinMax(bits(3, 9, 2), 2, 2)
	require.True(t, ok)
	require.Equal(t, []float64{2, 3, 5}, []float64{lo, hi, ms[0].Sum()})
}
