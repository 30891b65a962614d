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

// stdevWindow is a rolling stdev of the value column over the root, and
// the rows [lo, hi) its window holds when row i is pushed, one row a
// second and one a push.
type stdevWindow struct {
	name   string
	window rolling.Window
	opts   rolling.Options
	held   func(i int) (lo, hi int)
}

// stdevWindows are a count window on every row, and a time window on a
// clock, by default and aligned.
func stdevWindows() []stdevWindow {
	sd := []reduce.Agg{{Out: "sd", From: "value", Using: reduce.Stdev}}
	every := trigger.Clock(sequence.Every(time.Second))
	return []stdevWindow{
		{"count window, every row", rolling.Window{Count: 6, Aggs: sd}, rolling.Options{Trigger: trigger.Event()},
			func(i int) (int, int) { return i - 5, i + 1 }},
		// The tick evicts against the crossing row's time, and holds it.
		{"6s window, every second", rolling.Window{Span: 6 * time.Second, Aggs: sd}, rolling.Options{Trigger: every},
			func(i int) (int, int) { return i - 6, i + 1 }},
		{"6s window, aligned", rolling.Window{Span: 6 * time.Second, Aggs: sd}, rolling.Options{Trigger: every, Aligned: true},
			func(i int) (int, int) { return i - 6, i }},
	}
}

// smallWindows pushes xs through c's rolling, one row a push, and
// checks every emitted deviation whose window holds values below 10 in
// magnitude alone against their exact deviation, to 1e-12; it returns
// how many it checked and how many of those held a zero.
func smallWindows(t *testing.T, c stdevWindow, xs []float64) (checked, withZero int) {
	t.Helper()
	s := newSeries(t, live.Options{MaxEvents: 16})
	n, err := s.Rolling(s.Root(), []rolling.Window{c.window}, c.opts)
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	var out []live.Output
	for i, x := range xs {
		out, err = s.PushRows(out[:0], r(int64(i)*1000, x, ""))
		require.NoError(t, err)
		for _, o := range out {
			lo, hi := c.held(i)
			if o.Node != n || o.Kind != live.Event || lo < 0 {
				continue
			}
			held := xs[lo:hi]
			if slices.ContainsFunc(held, func(v float64) bool { return math.Abs(v) >= 10 }) {
				continue
			}
			got, ok := o.Events.Numbers("sd")
			require.True(t, ok)
			want := exact.Stdev(held)
			require.InDelta(t, want, got[len(got)-1], 1e-12*(1+want), "row %d, window %v", i, held)
			checked++
			if slices.Contains(held, 0) {
				withZero++
			}
		}
	}
	return checked, withZero
}

// TestAZeroHeldKeepsNoResidueInARollingStdev: large values pass through a
// rolling window and leave it holding small values and a zero; the
// deviation is that of the values held. A zero held kept the band the
// large values had opened, and the residue of their squares, alive: the
// window 4 2 5 0 5 9 read 2.2669 for 2.7938. The aligned window's panes
// were summed again when the outliers left; it never had the fault.
func TestAZeroHeldKeepsNoResidueInARollingStdev(t *testing.T) {
	xs := []float64{
		-9.018055449307398e15, -7.332924750915935e15, 9.496199343501016e15, -8.907502107867178e15,
		10, -6.113671620643504e15, -8.976206992592954e15, 6, 1, 9, 8.931007275596319e15, 10,
		-2.0404037983463062e15, 8.243292742853305e15, 9.275548747388318e14, 2.3044614065524716e14,
		-5.159985989019822e15, 4, 2, 5, 0, 5, 9,
		1, // a row that closes the last second
	}
	// The windows of small values alone: 4 2 5 0 5 9 (and 2 5 0 5 9 1
	// for the count window; 4 2 5 0 5 9 1 for the default clock's).
	small := map[string]int{"count window, every row": 2, "6s window, every second": 1, "6s window, aligned": 1}
	for _, c := range stdevWindows() {
		t.Run(c.name, func(t *testing.T) {
			checked, _ := smallWindows(t, c, xs)
			require.Equal(t, small[c.name], checked, "windows of small values checked")
		})
	}
}

// TestRollingStdevOfSmallValuesAfterOutliersIsExact is the test above
// over random streams of small integers (zeros among them) and outliers
// near ±1e16.
func TestRollingStdevOfSmallValuesAfterOutliersIsExact(t *testing.T) {
	for _, c := range stdevWindows() {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			checked, withZero := 0, 0
			for range 20 {
				xs := make([]float64, 1000)
				for i := range xs {
					xs[i] = float64(rng.IntN(10))
					if rng.IntN(4) == 0 {
						xs[i] = math.Copysign(1e14+rng.Float64()*9.9e15, rng.NormFloat64())
					}
				}
				c, z := smallWindows(t, c, xs)
				checked, withZero = checked+c, withZero+z
			}
			t.Logf("%d windows of small values, %d holding a zero", checked, withZero)
			require.Greater(t, withZero, 300)
		})
	}
}
