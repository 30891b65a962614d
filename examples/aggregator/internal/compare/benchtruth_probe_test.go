package compare

// Checks Compare's counts against a brute-force reading of its doc
// (README.md: rows matched by (ts, host), the first ticks skipped, every
// field compared within -tol; a difference, or rows only one side has,
// is a failure).

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bt42Near is "within tol, absolute or relative, whichever is larger";
// NaN (an empty window) equals NaN only.
func bt42Near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= math.Max(tol, tol*math.Max(math.Abs(a), math.Abs(b)))
}

func TestBt42NearIsAbsoluteOrRelative(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 5))
	for range 5000 {
		a := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(20)-8))
		b := a + (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(20)-14))
		if rng.IntN(20) == 0 {
			b = math.NaN()
		}
		if rng.IntN(20) == 0 {
			a = math.NaN()
		}
		require.Equal(t, bt42Near(a, b, 1e-9), near(a, b, 1e-9), "%v %v", a, b)
	}
}

func TestBt42CompareCountsAsDocumented(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 6))
	for trial := range 300 {
		var a, b Rows
		nTicks, nHosts := 1+rng.IntN(8), 1+rng.IntN(4)
		skip := rng.IntN(3)
		type cell struct {
			inA, inB, differ bool
		}
		cells := map[Key]cell{}
		ticksA, ticksB := map[int64]bool{}, map[int64]bool{}
		for k := range nTicks {
			ts := int64(1_000_000 + 200*k)
			seenA, seenB := rng.IntN(6) > 0, rng.IntN(6) > 0
			for h := range nHosts {
				host := "host-" + strconv.Itoa(h)
				c := cell{inA: seenA && rng.IntN(8) > 0, inB: seenB && rng.IntN(8) > 0, differ: rng.IntN(6) == 0}
				x := tick(ts, host, 0.5)
				y := x
				if c.differ {
					y.CPUAvg = 0.6
				}
				if c.inA {
					a.Add([]wire.HostTick{x})
					ticksA[ts] = true
				}
				if c.inB {
					b.Add([]wire.HostTick{y})
					ticksB[ts] = true
				}
				cells[Key{ts, host}] = c
			}
		}
		// The model: ticks both saw, in order, the last one left out
		// (possibly half received), the first skip not compared.
		var common []int64
		for k := range nTicks {
			ts := int64(1_000_000 + 200*k)
			if ticksA[ts] && ticksB[ts] {
				common = append(common, ts)
			}
		}
		if len(common) > 0 {
			common = common[:len(common)-1]
		}
		var want Report
		for i, ts := range common {
			for h := range nHosts {
				c := cells[Key{ts, "host-" + strconv.Itoa(h)}]
				switch {
				case i < skip:
					if c.inA {
						want.Skipped++
					}
				case c.inA && c.inB:
					want.Compared++
					if !c.differ {
						want.Matched++
					}
				case c.inA:
					want.OnlyA++
				case c.inB:
					want.OnlyB++
				}
			}
			if i == skip {
				want.FirstTick = ts
			}
		}
		got := Compare(&a, &b, skip, 1e-9)
		require.Equal(t, want.Compared, got.Compared, "trial %d", trial)
		require.Equal(t, want.Matched, got.Matched, "trial %d", trial)
		require.Equal(t, want.OnlyA, got.OnlyA, "trial %d", trial)
		require.Equal(t, want.OnlyB, got.OnlyB, "trial %d", trial)
		require.Equal(t, want.Skipped, got.Skipped, "trial %d", trial)
		require.Equal(t, want.FirstTick, got.FirstTick, "trial %d", trial)
		require.Len(t, got.Mismatches, min(10, want.Compared-want.Matched), "trial %d", trial)
		ok := want.Compared > 0 && want.Matched == want.Compared && want.OnlyA == 0 && want.OnlyB == 0
		assert.Equal(t, ok, got.OK(), "trial %d", trial)
		assert.Equal(t, ok, got.Problem() == "", "trial %d", trial)
	}
}
