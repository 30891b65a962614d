package live_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// msX is a row of one host: its time in milliseconds and its value.
type msX struct {
	ms int64
	x  float64
}

// alignedCells pushes rows one at a time into an aligned rolling of one
// window of span, with outputs aggs over x, over one host under a 100 ms
// clock, and returns the window's output cells at each boundary (in
// milliseconds), aggs' in order.
func alignedCells(t *testing.T, span time.Duration, aggs []reduce.Agg, rows []msX) map[int64][]schema.Value {
	t.Helper()
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "x", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("t", sch, live.Options{})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	r, err := s.Rolling(by, []rolling.Window{{Span: span, Aggs: aggs}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond)), Aligned: true})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	cells := map[int64][]schema.Value{}
	var out []live.Output
	for _, row := range rows {
		out, err = s.PushRows(out[:0], schema.Row{schema.MillisValue(row.ms), schema.NumberValue(row.x), schema.StringValue("h")})
		require.NoError(t, err)
		if tab, ok := live.Find(out, r, live.Event); ok {
			for i := range tab.Len() {
				row := tab.Row(i)
				b, _ := row[0].Nanos()
				cells[b/int64(time.Millisecond)] = row[2:]
			}
		}
	}
	return cells
}

// alignedSums is alignedCells of the window's sum and count, a missing
// sum read as 0.
func alignedSums(t *testing.T, span time.Duration, rows []msX) (sums, counts map[int64]float64) {
	t.Helper()
	sums, counts = map[int64]float64{}, map[int64]float64{}
	for k, c := range alignedCells(t, span, []reduce.Agg{
		{Out: "sum", From: "x", Using: reduce.Sum}, {Out: "n", From: "x", Using: reduce.Count}}, rows) {
		sums[k], _ = c[0].Num()
		counts[k], _ = c[1].Num()
	}
	return sums, counts
}

// TestAlignedSumAfterHugeValuesLeave: after −MaxFloat64 and 1e300 have
// left an aligned 1.6 s window, it holds −1e16, −1e16 and 0.1, whose sum
// is −2e16; the running sum, whose low word had grown to 1e300's
// rounding, gave 0.
func TestAlignedSumAfterHugeValuesLeave(t *testing.T) {
	sums, counts := alignedSums(t, 1600*time.Millisecond, []msX{
		{7258, -math.MaxFloat64}, {7305, -1e16}, {8681, 1e300}, {9222, -1e16}, {9232, -1e16}, {9712, 0.1}, {10350, 0}})
	// Boundary 10.3 s: the window [8.7 s, 10.3 s) holds −1e16, −1e16, 0.1.
	require.Equal(t, 3.0, counts[10300])
	require.Equal(t, -2e16, sums[10300])
}

// extremeValues are values whose sums lose the smaller ones to rounding
// (beside 1e300, −1e16 is below the low word's rounding) or overflow.
var extremeValues = []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e16, -1e16, 1e300, -1e300, 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1e-300, 3, 2.5e-308}

// TestAlignedExtremeValuesArePure is the pure-function property of
// aligned windows (the same rows however batched, interleaved or replayed
// from the last longest window) over streams of extreme values: a huge
// value's pane leaving, with no stdev among the outputs to tell it as an
// outlier, used to leave the rows depending on the history before it.
func TestAlignedExtremeValuesArePure(t *testing.T) {
	for seed := range uint64(120) {
		rng := rand.New(rand.NewPCG(seed, 4242))
		c := strictCase(rng)
		mode := rng.IntN(3)
		for i := range c.rows {
			switch mode {
			case 0:
				c.rows[i].x = extremeValues[rng.IntN(len(extremeValues))]
			case 1:
				if rng.IntN(20) == 0 {
					c.rows[i].x = extremeValues[rng.IntN(len(extremeValues))]
				}
			case 2:
				c.rows[i].x = []float64{1e300, -1e300, math.MaxFloat64, -math.MaxFloat64, 1, 1e-300}[rng.IntN(6)]
			}
		}
		base := c.run(t, rng, c.rows)
		end := maxTime(c.rows)
		t.Run(fmt.Sprint(seed, "rebatched"), func(t *testing.T) {
			require.Equal(t, upTo(base, end), upTo(c.run(t, rng, c.rows), end))
		})
		t.Run(fmt.Sprint(seed, "interleaved"), func(t *testing.T) {
			require.Equal(t, upTo(base, end), upTo(c.run(t, rng, interleave(rng, c.rows)), end))
		})
		// A replay starts its running sums afresh where the first run's
		// carry the roundings of what left before (at 2^-106 of the
		// largest magnitudes met): with values 2^50 apart, such as 1e16
		// beside 3, a result can differ in its last bit, so the replay
		// is held to 1e-12, as the oracle holds every row to the exact
		// sums; the residue of an outlier that left (0 for −2e16) is far
		// outside that.
		t.Run(fmt.Sprint(seed, "replayed"), func(t *testing.T) {
			for _, cutAt := range []int{len(c.rows) / 3, len(c.rows) / 2, 2 * len(c.rows) / 3} {
				cut := c.rows[cutAt].t
				longest := int64(0)
				for _, w := range c.windows {
					longest = max(longest, w.Span.Milliseconds())
				}
				from := 0
				for from < len(c.rows) && c.rows[from].t < cut-longest {
					from++
				}
				replayed := c.run(t, rng, c.rows[from:])
				after := func(rows []alignedRow) map[string][]schema.Value {
					out := map[string][]schema.Value{}
					for _, r := range rows {
						if r.b > cut {
							out[fmt.Sprint(r.b, " ", r.key)] = r.vals
						}
					}
					return out
				}
				want, got := after(base), after(replayed)
				require.Equal(t, slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got)), "cut at %d", cut)
				for k, w := range want {
					g := got[k]
					for j := range w {
						wx, wok := w[j].Num()
						gx, gok := g[j].Num()
						if !wok || !gok || wx == gx {
							require.True(t, w[j].Equal(g[j]), "cut at %d, %s, output %d: %v against %v", cut, k, j, w[j], g[j])
							continue
						}
						require.InEpsilon(t, wx, gx, 1e-12, "cut at %d, %s, output %d: %v against %v in %+v", cut, k, j, w, g, c.windows)
					}
				}
			}
		})
	}
}

// TestAlignedSumFadedOnEntryIsSummedAgain: the running sum's low word,
// rounded beside values since gone (1e300s, −1e16s), comes back to the
// window's own scale when the pane of 1e300 enters beside the −1e300 in
// it: the window at 1.1 s holds −1e300, 0.25 and 1e300, whose sum is
// 0.25. The running sum gave 0 until a pane left after the row; it is now
// summed again from its panes before the row is emitted.
func TestAlignedSumFadedOnEntryIsSummedAgain(t *testing.T) {
	sums, counts := alignedSums(t, 300*time.Millisecond, []msX{
		{110, -1e16}, {210, 1e300}, {310, 0.25}, {410, 3}, {510, 1e300}, {610, 1e300}, {710, -1e16}, {810, -1e300}, {910, 0.25}, {1010, 1e300}, {1110, 1e16}})
	require.Equal(t, 3.0, counts[1100])
	require.Equal(t, 0.25, sums[1100])
}

// alignedSumAvg is alignedCells of the window's sum and avg, as cells (a
// missing sum is no 0).
func alignedSumAvg(t *testing.T, span time.Duration, rows []msX) (sums, avgs map[int64]schema.Value) {
	t.Helper()
	sums, avgs = map[int64]schema.Value{}, map[int64]schema.Value{}
	for k, c := range alignedCells(t, span, []reduce.Agg{
		{Out: "sum", From: "x", Using: reduce.Sum}, {Out: "avg", From: "x", Using: reduce.Avg}}, rows) {
		sums[k], avgs[k] = c[0], c[1]
	}
	return sums, avgs
}

// TestAlignedSumIsMissingOnlyWhileItsValuesSumBeyondTheRange: as in the
// default mode (reduce's package doc), a window of two panes over
// 1.7e308, 1.7e308, −1.7e308, 1, 1 (one a pane) reads 1.7e308, missing,
// 0, −1.7e308 and 2, and its avg is always the mean; a pane whose rows
// pass beyond the range on the way (1.7e308, 1.7e308, −1.7e308) gives
// their sum and mean. Both used to read missing until the panes that
// carried the total out of the range left.
func TestAlignedSumIsMissingOnlyWhileItsValuesSumBeyondTheRange(t *testing.T) {
	num := schema.NumberValue
	sums, avgs := alignedSumAvg(t, 200*time.Millisecond, []msX{
		{10, 1.7e308}, {110, 1.7e308}, {210, -1.7e308}, {310, 1}, {410, 1}, {510, 0}})
	assert.Equal(t, map[int64]schema.Value{100: num(1.7e308), 200: {}, 300: num(0), 400: num(-1.7e308), 500: num(2)}, sums)
	assert.Equal(t, map[int64]schema.Value{100: num(1.7e308), 200: num(1.7e308), 300: num(0), 400: num(-8.5e307), 500: num(1)}, avgs)

	sums, avgs = alignedSumAvg(t, 100*time.Millisecond, []msX{{10, 1.7e308}, {20, 1.7e308}, {30, -1.7e308}, {110, 0}})
	assert.Equal(t, num(1.7e308), sums[100])
	avg, ok := avgs[100].Num()
	require.True(t, ok)
	assert.InEpsilon(t, 1.7e308/3, avg, 1e-15)

	sums, avgs = alignedSumAvg(t, 100*time.Millisecond, []msX{{10, 1e308}, {20, 1e308}, {110, 0}})
	assert.True(t, sums[100].IsMissing(), "2e308 is beyond the range")
	assert.Equal(t, num(1e308), avgs[100])
}
