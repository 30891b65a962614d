package fsum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reference is the scalar definition of Run: lane k takes rows k, k+4, …
// with the same TwoSum and FMA steps, then the lanes fold as Run folds
// them.
func reference(slots []uint64, off, stride, rows int, sq bool, lo, hi uint64) (Sum, bool) {
	var s, c, q, qc [4]float64
	outside := false
	for r := range rows {
		bits := slots[off+r*stride]
		x := math.Float64frombits(bits)
		if e := bits >> 52 & 0x7ff; e < lo || e > hi {
			outside = true
		}
		k := r % 4
		s[k], c[k] = twoSum(s[k], c[k], x)
		if sq {
			p := x * x
			e := math.FMA(x, x, -p)
			var d float64
			q[k], d = twoSum(q[k], 0, p)
			qc[k] += d + e
		}
	}
	fold := func(a, ac, b, bc float64) (float64, float64) {
		return twoSum(a, ac+bc, b)
	}
	var out Sum
	s0, c0 := fold(s[0], c[0], s[2], c[2])
	s1, c1 := fold(s[1], c[1], s[3], c[3])
	out.S, out.C = fold(s0, c0, s1, c1)
	if sq {
		q0, qc0 := fold(q[0], qc[0], q[2], qc[2])
		q1, qc1 := fold(q[1], qc[1], q[3], qc[3])
		out.Q, out.QC = fold(q0, qc0, q1, qc1)
	}
	return out, outside
}

// twoSum adds x to s + c: the sum and the new compensation.
func twoSum(s, c, x float64) (float64, float64) {
	t := s + x
	d := t - s
	return t, c + ((s - (t - d)) + (x - d))
}

// TestRunMatchesReference compares the kernel with the scalar definition,
// bit for bit, over random runs: strides, offsets, lengths, with and
// without squares, values of every magnitude, zeros, NaN and infinities.
func TestRunMatchesReference(t *testing.T) {
	if !Available {
		t.Skip("no AVX2/FMA on this machine: Run is a no-op (checked by TestRunWithoutKernel)")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func() float64 {
		switch rng.IntN(50) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(-1)
		case 2:
			return 0
		case 3:
			return 1e300
		case 4:
			return 5e-324
		}
		return math.Ldexp(rng.Float64()-0.5, rng.IntN(40)-20)
	}
	for trial := range 20000 {
		stride := 1 + rng.IntN(4)
		off := rng.IntN(stride)
		n := rng.IntN(40)
		slots := make([]uint64, off+n*stride+1)
		for r := range n {
			slots[off+r*stride] = math.Float64bits(draw())
			for k := 1; k < stride; k++ {
				slots[off+r*stride+k] = rng.Uint64() // neighbours must not leak in
			}
		}
		sq := rng.IntN(2) == 0
		lo := uint64(rng.IntN(1100))
		hi := lo + uint64(rng.IntN(1100))
		var got Sum
		rows, outside := Run(slots, off, stride, n, sq, lo, hi, &got)
		if rows != n/4*4 {
			t.Fatalf("trial %d: %d rows of %d", trial, rows, n)
		}
		if rows == 0 {
			continue
		}
		want, wantOutside := reference(slots, off, stride, rows, sq, lo, hi)
		if outside != wantOutside {
			t.Fatalf("trial %d: outside %v, want %v", trial, outside, wantOutside)
		}
		if !sameBits(got.S, want.S) || !sameBits(got.C, want.C) {
			t.Fatalf("trial %d: sums %v %v, want %v %v", trial, got.S, got.C, want.S, want.C)
		}
		if sq && (!sameBits(got.Q, want.Q) || !sameBits(got.QC, want.QC)) {
			t.Fatalf("trial %d: squares %v %v, want %v %v", trial, got.Q, got.QC, want.Q, want.QC)
		}
	}
}

// TestRunWithoutKernel: with the kernel off, Run sums nothing, so callers
// fall back to their scalar loops.
func TestRunWithoutKernel(t *testing.T) {
	defer func(a bool) { Available = a }(Available)
	Available = false
	var l Sum
	rows, outside := Run(make([]uint64, 64), 0, 1, 64, true, 0, 2047, &l)
	if rows != 0 || outside {
		t.Fatalf("Run without the kernel: %d rows, outside %v", rows, outside)
	}
}

// BenchmarkRun sums runs of a few rows (as a window sliding by one tick's
// rows does) and of many (as a rebuilt window does); a short run shows
// the kernel's fixed cost per call.
func BenchmarkRun(b *testing.B) {
	slots := make([]uint64, 3*1024)
	for r := range 1024 {
		slots[r*3+1] = math.Float64bits(0.5 + float64(r%97)/200)
	}
	for _, n := range []int{20, 1024} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			var l Sum
			b.ReportAllocs()
			for b.Loop() {
				Run(slots, 1, 3, n, true, 0, 2047, &l)
			}
			b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// sameBits compares bit for bit, any NaN matching any NaN.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}
