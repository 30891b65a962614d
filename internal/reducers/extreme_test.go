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

func TestExtremeMinusOldest(t *testing.T) {
	tests := []struct {
		name string
		e    *Extreme
		xs   []float64
		drop int
		want float64
	}{
		{"min of 1 5 3 2 minus index 0", NewMin(), []float64{1, 5, 3, 2}, 1, 2},
		{"max of 1 5 3 2 minus index 0", NewMax(), []float64{1, 5, 3, 2}, 1, 5},
		{"max of 9 5 3 7 minus two", NewMax(), []float64{9, 5, 3, 7}, 2, 7},
		{"min keeps an equal later value", NewMin(), []float64{2, 2, 3}, 1, 2},
		{"max keeps an equal later value", NewMax(), []float64{4, 4, 1}, 1, 4},
		{"zero Extreme is a min", &Extreme{}, []float64{3, 1, 2}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, x := range tt.xs {
				tt.e.Add(uint64(i), x)
			}
			for i := range tt.drop {
				tt.e.Remove(uint64(i))
			}
			got, ok := tt.e.Value()
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExtremeEmpty(t *testing.T) {
	e := NewMax()
	_, ok := e.Value()
	assert.False(t, ok)
	e.Remove(3) // nothing held: no effect
	e.Add(0, 1)
	e.Remove(0)
	_, ok = e.Value()
	assert.False(t, ok)
	e.Add(1, 2)
	e.Reset()
	assert.Zero(t, e.Len())
	_, ok = e.Value()
	assert.False(t, ok)
}

// TestExtremeMatchesBruteForce slides random windows (with repeats) and
// compares the deque with the min and max of the window's contents.
func TestExtremeMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	lo, hi := NewMin(), NewMax()
	type item struct {
		seq uint64
		x   float64
	}
	var held []item
	seq := uint64(0)
	for step := range 20000 {
		if len(held) == 0 || rng.IntN(2) == 0 && len(held) < 50 {
			x := float64(rng.IntN(10))
			lo.Add(seq, x)
			hi.Add(seq, x)
			held = append(held, item{seq, x})
			seq += 1 + uint64(rng.IntN(2))
		} else {
			lo.Remove(held[0].seq)
			hi.Remove(held[0].seq)
			held = held[1:]
		}
		if len(held) == 0 {
			_, ok := lo.Value()
			require.False(t, ok)
			continue
		}
		xs := make([]float64, len(held))
		for i, h := range held {
			xs[i] = h.x
		}
		gotLo, _ := lo.Value()
		gotHi, _ := hi.Value()
		require.Equal(t, slices.Min(xs), gotLo, "step %d", step)
		require.Equal(t, slices.Max(xs), gotHi, "step %d", step)
		require.LessOrEqual(t, lo.Len(), len(held))
	}
}

func TestExtremeDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = rng.Float64()
	}
	e := NewMax()
	const w = 100
	i := 0
	step := func() {
		e.Add(uint64(i), xs[i%len(xs)])
		if i >= w {
			e.Remove(uint64(i - w))
		}
		i++
	}
	for range 5000 {
		step()
	}
	assert.Zero(t, allocs.Count(10000, step))

	// A decreasing run keeps every value: the ring grows once, then is
	// reused.
	e = NewMax()
	i = 0
	dec := func() {
		e.Add(uint64(i), float64(-i))
		if i >= w {
			e.Remove(uint64(i - w))
		}
		i++
	}
	for range 5000 {
		dec()
	}
	assert.Zero(t, allocs.Count(10000, dec))
	assert.Equal(t, w, e.Len())
}

func TestExtremeSlotsMatchOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, mx := range []bool{false, true} {
		a, b := NewMin(), NewMin()
		if mx {
			a, b = NewMax(), NewMax()
		}
		var seq, front uint64
		for step := range 3000 {
			run := 1 + rng.IntN(6)
			slots := make([]uint64, run*2)
			for r := range run {
				x := float64(rng.IntN(20))
				if rng.IntN(10) == 0 {
					x = math.NaN()
				}
				slots[r*2+1] = math.Float64bits(x)
				b.Add(seq+uint64(r), x)
			}
			a.AddSlots(slots, 1, 2, run, seq)
			seq += uint64(run)
			for range rng.IntN(run + 1) {
				b.Remove(front)
				front++
			}
			a.RemoveBefore(front)
			av, aok := a.Value()
			bv, bok := b.Value()
			require.Equal(t, bok, aok, "step %d", step)
			require.Equal(t, bv, av, "step %d", step)
		}
	}
}

func TestExtremePrependBuildsTheSameDeque(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, mx := range []bool{false, true} {
		for trial := range 500 {
			n := rng.IntN(40)
			slots := make([]uint64, n)
			fwd := NewMin()
			back := NewMin()
			if mx {
				fwd, back = NewMax(), NewMax()
			}
			for i := range slots {
				x := float64(rng.IntN(8))
				if rng.IntN(9) == 0 {
					x = math.NaN()
				}
				slots[i] = math.Float64bits(x)
				fwd.Add(uint64(100+i), x)
			}
			// Two runs, newest first.
			cut := rng.IntN(n + 1)
			back.PrependSlots(slots, cut, 1, n-cut, uint64(100+cut))
			back.PrependSlots(slots, 0, 1, cut, 100)
			require.Equal(t, fwd.Len(), back.Len(), "trial %d", trial)
			// Slide both to empty: they must agree all the way.
			for s := uint64(100); s < uint64(100+n); s++ {
				fv, fok := fwd.Value()
				bv, bok := back.Value()
				require.Equal(t, fok, bok)
				require.Equal(t, fv, bv, "trial %d seq %d", trial, s)
				fwd.Remove(s)
				back.RemoveBefore(s + 1)
			}
		}
	}
}

func TestPrependMinMaxMatchesSeparate(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 300 {
		n := rng.IntN(30)
		slots := make([]uint64, n)
		for i := range slots {
			x := float64(rng.IntN(6))
			if rng.IntN(7) == 0 {
				x = math.NaN()
			}
			slots[i] = math.Float64bits(x)
		}
		a, b, c, d := NewMin(), NewMax(), NewMin(), NewMax()
		a.PrependSlots(slots, 0, 1, n, 7)
		b.PrependSlots(slots, 0, 1, n, 7)
		PrependMinMax(c, d, slots, 0, 1, n, 7)
		for s := uint64(7); s <= uint64(7+n); s++ {
			av, aok := a.Value()
			cv, cok := c.Value()
			require.Equal(t, aok, cok, "trial %d", trial)
			require.Equal(t, av, cv, "trial %d", trial)
			bv, bok := b.Value()
			dv, dok := d.Value()
			require.Equal(t, bok, dok)
			require.Equal(t, bv, dv, "trial %d", trial)
			a.RemoveBefore(s)
			b.RemoveBefore(s)
			c.RemoveBefore(s)
			d.RemoveBefore(s)
		}
	}
}

// TestExtremeReserve: Reserve keeps the entries held, rounds up to a power
// of two, and spares the deque any growth up to that size.
func TestExtremeReserve(t *testing.T) {
	e := NewMin()
	for i := range 5 {
		e.Add(uint64(i), float64(i)) // increasing: every value stays
	}
	e.Reserve(20)
	require.Len(t, e.entries(), 32)
	x, ok := e.Value()
	require.True(t, ok)
	require.Equal(t, 0.0, x)
	e.Reserve(3) // never shrinks
	require.Len(t, e.entries(), 32)
	buf := &e.entries()[0]
	for i := 5; i < 32; i++ {
		e.Add(uint64(i), float64(i))
	}
	require.Same(t, buf, &e.entries()[0], "the deque grew")
	require.Equal(t, 32, e.Len())
	for s := range uint64(31) {
		e.Remove(s)
	}
	x, _ = e.Value()
	require.Equal(t, 31.0, x)
}

// dequeEntries lists a deque's entries front to back.
func dequeEntries(e *Extreme) []extremeEntry {
	var out []extremeEntry
	buf := e.entries()
	for i := range int(e.n) {
		out = append(out, buf[(int(e.head)+i)&(len(buf)-1)])
	}
	return out
}

// TestPrependMinMaxWithRoomBuildsTheSameDeques: with room reserved,
// PrependMinMax takes its branch-free path; the deques it builds, over
// runs prepended one after the other as a multi-block window is, must be
// entry for entry those of the growing path, with ties, signed zeros,
// infinities and missing values.
func TestPrependMinMaxWithRoomBuildsTheSameDeques(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	vals := []float64{0, math.Copysign(0, -1), 1, 2, 2, 3, math.Inf(1), math.Inf(-1), math.NaN()}
	for trial := range 3000 {
		runs := 1 + rng.IntN(3)
		stride := 1 + rng.IntN(3)
		a, b, c, d := NewMin(), NewMax(), NewMin(), NewMax()
		total := 0
		var slotsOf [][]uint64
		var ns []int
		for range runs {
			n := rng.IntN(12)
			slots := make([]uint64, n*stride+1)
			for r := range n {
				x := vals[rng.IntN(len(vals))]
				if rng.IntN(2) == 0 {
					x = rng.NormFloat64()
				}
				slots[r*stride] = math.Float64bits(x)
			}
			slotsOf, ns = append(slotsOf, slots), append(ns, n)
			total += n
		}
		c.Reserve(total)
		d.Reserve(total)
		seq := uint64(1000)
		for i := range runs { // newest run first
			seq -= uint64(ns[i])
			PrependMinMax(a, b, slotsOf[i], 0, stride, ns[i], seq)
			PrependMinMax(c, d, slotsOf[i], 0, stride, ns[i], seq)
		}
		got, want := dequeEntries(c), dequeEntries(a)
		require.Equal(t, len(want), len(got), "trial %d: min deque", trial)
		for i := range want {
			require.Equal(t, want[i].seq, got[i].seq, "trial %d: min entry %d", trial, i)
			require.Equal(t, math.Float64bits(want[i].x), math.Float64bits(got[i].x), "trial %d: min entry %d", trial, i)
		}
		got, want = dequeEntries(d), dequeEntries(b)
		require.Equal(t, len(want), len(got), "trial %d: max deque", trial)
		for i := range want {
			require.Equal(t, want[i].seq, got[i].seq, "trial %d: max entry %d", trial, i)
			require.Equal(t, math.Float64bits(want[i].x), math.Float64bits(got[i].x), "trial %d: max entry %d", trial, i)
		}
	}
}

func TestMinMaxSlotsSkipsMissingAndKeepsTheOldestOfEqualValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name   string
		vals   []float64
		lo, hi float64
		ok     bool
	}{
		{"none", nil, 0, 0, false},
		{"missing only", []float64{math.NaN(), math.NaN()}, 0, 0, false},
		{"zero first", []float64{0, negZero, math.NaN()}, 0, 0, true},
		{"negative zero first", []float64{math.NaN(), negZero, 0}, negZero, negZero, true},
		{"infinities", []float64{math.Inf(1), math.Inf(1)}, math.Inf(1), math.Inf(1), true},
		{"spread", []float64{3, math.NaN(), -2, 7, -2}, -2, 7, true},
		{"negative infinity only", []float64{math.NaN(), math.Inf(-1)}, math.Inf(-1), math.Inf(-1), true},
		{"first value the maximum", []float64{9, 1, 4, 1}, 1, 9, true},
		{"zeros after the first value", []float64{math.NaN(), 2, 0, negZero, 5, negZero}, 0, 5, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			slots := make([]uint64, 2*len(c.vals)+1)
			for i, x := range c.vals {
				slots[1+2*i] = math.Float64bits(x)
			}
			lo, hi, ok := MinMaxSlots(slots, 1, 2, len(c.vals))
			require.Equal(t, c.ok, ok)
			if c.ok {
				assert.Equal(t, math.Float64bits(c.lo), math.Float64bits(lo), "min")
				assert.Equal(t, math.Float64bits(c.hi), math.Float64bits(hi), "max")
			}
		})
	}
}

func TestMinMaxSlotsMatchesTheScanOfEveryValue(t *testing.T) {
	// The values the scan compares strictly against running extremes
	// started at the infinities: what MinMaxSlots returns, bit for bit,
	// over runs of every length with missing values, signed zeros,
	// infinities and repeats anywhere, at strides 1 to 3.
	pick := []float64{math.NaN(), 0, math.Copysign(0, -1), 1, -1, 2.5, -2.5, math.Inf(1), math.Inf(-1), 1e300, -1e-300}
	rng := rand.New(rand.NewPCG(15, 11))
	for trial := range 5000 {
		n, stride := rng.IntN(12), 1+rng.IntN(3)
		off := rng.IntN(stride)
		slots := make([]uint64, off+n*stride)
		for i := range slots {
			slots[i] = math.Float64bits(pick[rng.IntN(len(pick))])
		}
		wlo, whi := math.Inf(1), math.Inf(-1)
		for i := range n {
			x := math.Float64frombits(slots[off+i*stride])
			if x < wlo {
				wlo = x
			}
			if x > whi {
				whi = x
			}
		}
		lo, hi, ok := MinMaxSlots(slots, off, stride, n)
		require.Equal(t, wlo <= whi, ok, "trial %d", trial)
		if ok {
			require.Equal(t, math.Float64bits(wlo), math.Float64bits(lo), "trial %d: min", trial)
			require.Equal(t, math.Float64bits(whi), math.Float64bits(hi), "trial %d: max", trial)
		}
	}
}

func TestExtremeOfAFewRowsHoldsAFewEntries(t *testing.T) {
	// A window of two or three rows, as 200 ms of a host reporting every
	// 100 ms: its deque never holds more than four entries.
	for _, reserve := range []bool{false, true} {
		e := NewMax()
		for i := range uint64(1000) {
			if reserve && i%3 == 0 {
				e.Reset()
				e.Reserve(3)
			}
			e.Add(i, float64(1000-i)) // decreasing: every value stays
			if i >= 3 {
				e.Remove(i - 3)
			}
		}
		assert.LessOrEqual(t, e.Cap(), 4, "reserve=%v", reserve)
	}
}
