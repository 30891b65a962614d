package aligned

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRunSumsMatchTheScalarSums checks a run's sums (the vector kernel
// for whole groups of four rows, then the rest one by one) against the
// scalar sums of every row: the same count, and Σx and Σx² equal to
// double-double precision, for runs with missing values, infinities and
// values too big to square and huge ones (which take the scalar path).
func TestRunSumsMatchTheScalarSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		odd  func() float64
	}{
		{"all present", nil},
		{"a missing value", func() float64 { return math.NaN() }},
		{"an infinity", func() float64 { return math.Inf(-1) }},
		{"a value too big to square", func() float64 { return 0x1p600 }},
		{"a huge value, summed apart", func() float64 { return 1.7e308 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{1, 3, 4, 7, 20, 33} {
				const w = 3
				rows := make([]uint64, n*w)
				for r := range n {
					rows[r*w] = uint64(r)
					rows[r*w+1] = math.Float64bits(1e6 + rng.NormFloat64())
					rows[r*w+2] = math.Float64bits(rng.Float64() * 100)
				}
				if c.odd != nil {
					rows[rng.IntN(n)*w+1] = math.Float64bits(c.odd())
				}
				for _, sq := range []bool{false, true} {
					var sc sumsCache
					got := sc.get(rows, w, 1, 0, n, sq)
					var f [4]uint64
					var h [2]float64
					var want int64
					if sq {
						want = addSquares(f[:], &h, rows, w, 1)
					} else {
						want = addSums(f[:2], &h, rows, w, 1)
					}
					assert.Equal(t, want, got.n, "n=%d squares=%v", n, sq)
					same(t, math.Float64frombits(f[0])+math.Float64frombits(f[1]), got.s+got.c)
					assert.Equal(t, h, got.h, "the huge values' lane, n=%d squares=%v", n, sq)
					if sq {
						same(t, math.Float64frombits(f[2])+math.Float64frombits(f[3]), got.q+got.qc)
					}
				}
			}
		})
	}
}

// same asserts that two sums agree to 1e-15 relative, or are the same
// non-finite value.
func same(t *testing.T, want, got float64) {
	t.Helper()
	if math.IsInf(want, 0) || want != want {
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got))
		return
	}
	assert.InDelta(t, want, got, 1e-15*math.Abs(want))
}
