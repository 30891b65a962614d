package reducers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
)

// sameMoments requires a and b to hold bit-identical state.
func sameMoments(t *testing.T, a, b *Moments, msg string, args ...any) {
	t.Helper()
	require.Equal(t, b.n, a.n, msg, args)
	require.Equal(t, b.anchored, a.anchored, msg, args)
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
