package live_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestAZeroHeldKeepsNoResidueInARollingStdev: large values pass through a
// rolling window and leave it holding small values and a zero; the
// deviation is that of the values held. A zero held kept the band the
// large values had opened, and the residue of their squares, alive: the
// window 4 2 5 0 5 9 read 2.2669 for 2.7938. A count window on every
// row, and a time window on a clock, by default and aligned (whose panes
// were summed again when the outliers left, and never had the fault).
func TestAZeroHeldKeepsNoResidueInARollingStdev(t *testing.T) {
	xs := []float64{
		-9.018055449307398e15, -7.332924750915935e15, 9.496199343501016e15, -8.907502107867178e15,
		10, -6.113671620643504e15, -8.976206992592954e15, 6, 1, 9, 8.931007275596319e15, 10,
		-2.0404037983463062e15, 8.243292742853305e15, 9.275548747388318e14, 2.3044614065524716e14,
		-5.159985989019822e15, 4, 2, 5, 0, 5, 9,
	}
	xs = append(xs, 1) // a row that closes the last second
	sd := []reduce.Agg{{Out: "sd", From: "value", Using: reduce.Stdev}}
	every := trigger.Clock(sequence.Every(time.Second))
	for _, c := range []struct {
		name   string
		window rolling.Window
		opts   rolling.Options
		held   func(i int) (lo, hi int) // the rows the window holds when row i is pushed
		small  int                      // windows of small values only
	}{
		{"count window, every row", rolling.Window{Count: 6, Aggs: sd}, rolling.Options{Trigger: trigger.Event()},
			func(i int) (int, int) { return i - 5, i + 1 }, 2},
		// The tick evicts against the crossing row's time, and holds it.
		{"6s window, every second", rolling.Window{Span: 6 * time.Second, Aggs: sd}, rolling.Options{Trigger: every},
			func(i int) (int, int) { return i - 6, i + 1 }, 1},
		{"6s window, aligned", rolling.Window{Span: 6 * time.Second, Aggs: sd}, rolling.Options{Trigger: every, Aligned: true},
			func(i int) (int, int) { return i - 6, i }, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			n, err := s.Rolling(s.Root(), []rolling.Window{c.window}, c.opts)
			require.NoError(t, err)
			require.NoError(t, s.Watch(n))
			checked := 0
			for i, x := range xs { // one row a second, one a push
				out, err := s.PushRows(nil, r(int64(i)*1000, x, ""))
				require.NoError(t, err)
				for _, o := range out {
					if o.Node != n || o.Kind != live.Event {
						continue
					}
					got, ok := o.Events.Numbers("sd")
					require.True(t, ok)
					lo, hi := c.held(i)
					if lo < 0 {
						continue
					}
					held := xs[lo:hi]
					small := true
					for _, v := range held {
						small = small && math.Abs(v) < 20
					}
					if !small {
						continue
					}
					want := exact.Stdev(held)
					require.InDelta(t, want, got[len(got)-1], 1e-12*want, "row %d, window %v", i, held)
					checked++
				}
			}
			require.Equal(t, c.small, checked, "windows of small values checked")
		})
	}
}

// TestRollingStdevOfSmallValuesAfterOutliersIsExact is the test above
// over random streams of small integers (zeros among them) and outliers
// near ±1e16, one row a push: every window of small values alone has
// their deviation, to 1e-12.
func TestRollingStdevOfSmallValuesAfterOutliersIsExact(t *testing.T) {
	sd := []reduce.Agg{{Out: "sd", From: "value", Using: reduce.Stdev}}
	every := trigger.Clock(sequence.Every(time.Second))
	for _, c := range []struct {
		name   string
		window rolling.Window
		opts   rolling.Options
		held   func(i int) (lo, hi int)
	}{
		{"count window", rolling.Window{Count: 6, Aggs: sd}, rolling.Options{Trigger: trigger.Event()},
			func(i int) (int, int) { return i - 5, i + 1 }},
		{"6s window", rolling.Window{Span: 6 * time.Second, Aggs: sd}, rolling.Options{Trigger: every},
			func(i int) (int, int) { return i - 6, i + 1 }},
		{"6s window, aligned", rolling.Window{Span: 6 * time.Second, Aggs: sd}, rolling.Options{Trigger: every, Aligned: true},
			func(i int) (int, int) { return i - 6, i }},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			checked, withZero := 0, 0
			for range 20 {
				s := newSeries(t, live.Options{MaxEvents: 16})
				n, err := s.Rolling(s.Root(), []rolling.Window{c.window}, c.opts)
				require.NoError(t, err)
				require.NoError(t, s.Watch(n))
				var xs []float64
				var out []live.Output
				for i := range 1000 {
					x := float64(rng.IntN(10))
					if rng.IntN(4) == 0 {
						x = math.Copysign(1e14+rng.Float64()*9.9e15, rng.NormFloat64())
					}
					xs = append(xs, x)
					out, err = s.PushRows(out[:0], r(int64(i)*1000, x, ""))
					require.NoError(t, err)
					for _, o := range out {
						if o.Node != n || o.Kind != live.Event {
							continue
						}
						lo, hi := c.held(i)
						if lo < 0 {
							continue
						}
						held := xs[lo:hi]
						if !slices.ContainsFunc(held, func(v float64) bool { return math.Abs(v) >= 10 }) {
							got, _ := o.Events.Numbers("sd")
							want := exact.Stdev(held)
							require.InDelta(t, want, got[len(got)-1], 1e-12*(1+want), "row %d, window %v", i, held)
							checked++
							if slices.Contains(held, 0) {
								withZero++
							}
						}
					}
				}
			}
			t.Logf("%d windows of small values, %d holding a zero", checked, withZero)
			require.Greater(t, withZero, 300)
		})
	}
}
