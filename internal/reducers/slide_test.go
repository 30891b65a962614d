package reducers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSlideMatchesOneByOne runs random event-trigger runs through Slide
// and through Add/Remove/readers: every result must agree.
func TestSlideMatchesOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	gens := []func() float64{
		func() float64 { return 0.5 + 0.1*rng.NormFloat64() },
		func() float64 { return float64(rng.IntN(5)) },
		func() float64 {
			switch rng.IntN(10) {
			case 0:
				return math.NaN()
			case 1:
				return 1e16
			case 2:
				return 0
			}
			return rng.NormFloat64() * 100
		},
	}
	for gi, g := range gens {
		for _, squares := range []bool{true, false} {
			var a, b Moments
			if !squares {
				a.SkipSquares()
				b.SkipSquares()
			}
			var window []float64
			for run := range 300 {
				n := 1 + rng.IntN(20)
				adds := make([]float64, n)
				var rems []float64
				remCount := make([]int32, n)
				want := SlideOut{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
				for i := range adds {
					adds[i] = g()
					b.Add(adds[i])
					window = append(window, adds[i])
					k := rng.IntN(3)
					if k > len(window) {
						k = len(window)
					}
					for _, y := range window[:k] {
						b.Remove(y)
						rems = append(rems, y)
					}
					window = window[k:]
					remCount[i] = int32(k)
					b.write(want, i)
				}
				got := SlideOut{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
				a.Slide(adds, rems, remCount, got)
				for i := range n {
					for name, pair := range map[string][2]float64{
						"count": {want.Count[i], got.Count[i]},
						"sum":   {want.Sum[i], got.Sum[i]},
						"mean":  {want.Mean[i], got.Mean[i]},
						"stdev": {want.Stdev[i], got.Stdev[i]},
					} {
						w, g := pair[0], pair[1]
						if w != w {
							require.True(t, g != g, "gen %d run %d row %d %s: want missing, got %v", gi, run, i, name, g)
							continue
						}
						require.InDelta(t, w, g, 1e-12*math.Max(1, math.Abs(w)), "gen %d run %d row %d %s", gi, run, i, name)
					}
				}
				require.Equal(t, b.N(), a.N())
			}
		}
	}
}
