package reducers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchData returns n values around 20 with full 53-bit mantissas.
func benchData(n int) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 20 + rng.NormFloat64()*5
	}
	return xs
}

// benchShapes are the data the Moments benchmarks run on: real-valued data
// and small integers (one magnitude band), and values spanning 2^±100,
// which fall in several bands.
var benchShapes = []struct {
	name string
	data func() []float64
}{
	{"real", func() []float64 { return benchData(1 << 12) }},
	{"integers", func() []float64 {
		xs := benchData(1 << 12)
		for i := range xs {
			xs[i] = math.Round(xs[i])
		}
		return xs
	}},
	{"wide", func() []float64 {
		rng := rand.New(rand.NewPCG(3, 4))
		xs := make([]float64, 1<<12)
		for i := range xs {
			xs[i] = math.Ldexp(rng.Float64(), rng.IntN(200)-100)
		}
		return xs
	}},
}

// BenchmarkMoments measures Add alone (the sums grow), a slide (one Add and
// one Remove on a window of 1000 values) and the three reads.
func BenchmarkMoments(b *testing.B) {
	const w = 1000
	for _, sh := range benchShapes {
		xs := sh.data()
		mask := len(xs) - 1
		fill := func() *Moments {
			var m Moments
			for _, x := range xs[:w] {
				m.Add(x)
			}
			return &m
		}
		b.Run("Add/"+sh.name, func(b *testing.B) {
			m := fill()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.Add(xs[i&mask])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		b.Run("AddRemove/"+sh.name, func(b *testing.B) {
			m := fill()
			b.ReportAllocs()
			i := w
			for b.Loop() {
				m.Add(xs[i&mask])
				m.Remove(xs[(i-w)&mask])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		m := fill()
		b.Run("Sum/"+sh.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m.Sum()
			}
		})
		b.Run("Mean/"+sh.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = m.Mean()
			}
		})
		b.Run("Stdev/"+sh.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = m.Stdev()
			}
		})
	}
}

// BenchmarkExtreme measures one Add and one Remove on a sliding window of
// 1000: random values (a short deque) and a decreasing run (every value
// stays in a max deque).
func BenchmarkExtreme(b *testing.B) {
	const w = 1000
	xs := benchData(1 << 12)
	mask := len(xs) - 1
	for _, tc := range []struct {
		name string
		x    func(i int) float64
	}{
		{"random", func(i int) float64 { return xs[i&mask] }},
		{"decreasing", func(i int) float64 { return float64(-i) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := NewMax()
			for i := range w {
				e.Add(uint64(i), tc.x(i))
			}
			b.ReportAllocs()
			i := w
			for b.Loop() {
				e.Add(uint64(i), tc.x(i))
				e.Remove(uint64(i - w))
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkShiftSlots slides a 600-value window by two values out and two
// in, as the seed's 1m window does at 10 events/s under a 200ms clock,
// with and without squares.
func BenchmarkShiftSlots(b *testing.B) {
	const stride = 3
	slots := make([]uint64, 1024*stride)
	for r := range 1024 {
		slots[r*stride+1] = math.Float64bits(0.5 + float64(r%97)/200)
	}
	for _, sq := range []bool{true, false} {
		b.Run(fmt.Sprintf("squares=%t", sq), func(b *testing.B) {
			var m Moments
			if !sq {
				m.SkipSquares()
			}
			m.AddSlots(slots, 1, stride, 600)
			r := 0
			for b.Loop() {
				a := (r + 600) % 1020
				m.ShiftSlots(slots, r*stride+1, 2, slots, a*stride+1, 2, stride)
				r = (r + 2) % 1020
			}
		})
	}
}
