package live_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// The numeric probes of aligned windows: streams of values of chosen
// magnitudes through an aligned rolling of the mergeable reducers, each
// emitted cell compared with exact results over the rows its window
// holds, [b − span, b).

// probeSchema has an optional number column x and a host to partition
// by.
var probeSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
)

// probeRow is one row of a probe: its time in ms, its x (NaN: a missing
// cell) and its host ("": "h").
type probeRow struct {
	ms   int64
	x    float64
	host string
}

func (r probeRow) key() string {
	if r.host == "" {
		return "h"
	}
	return r.host
}

// probeOut is one emitted row: its boundary (ms), key and cells.
type probeOut struct {
	b    int64
	key  string
	vals []schema.Value
}

// probeSpec is an aligned rolling: its windows' spans (ms), each with
// aggs over x, on a clock of step (ms), over a series of opts.
type probeSpec struct {
	opts  live.Options
	spans []int64
	step  int64
	aggs  []reduce.Reducer
}

func (p probeSpec) windows() []rolling.Window {
	var ws []rolling.Window
	for i, sp := range p.spans {
		w := rolling.Window{Name: fmt.Sprintf("w%d", i), Span: time.Duration(sp) * time.Millisecond}
		for j, red := range p.aggs {
			w.Aggs = append(w.Aggs, reduce.Agg{Out: fmt.Sprintf("o%d_%d", i, j), From: "x", Using: red})
		}
		ws = append(ws, w)
	}
	return ws
}

// run pushes rows, batch rows a push, into the rolling partitioned by
// host, and returns every row it emits.
func (p probeSpec) run(rows []probeRow, batch int) ([]probeOut, error) {
	s, err := live.New("p", probeSchema, p.opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	if err != nil {
		return nil, err
	}
	n, err := s.Rolling(by, p.windows(),
		rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Duration(p.step) * time.Millisecond)), Aligned: true})
	if err != nil {
		return nil, err
	}
	if err := s.Watch(n); err != nil {
		return nil, err
	}
	var got []probeOut
	var out []live.Output
	for i := 0; i < len(rows); i += batch {
		var b []schema.Row
		for _, pr := range rows[i:min(i+batch, len(rows))] {
			x := schema.NumberValue(pr.x)
			if pr.x != pr.x {
				x = schema.Value{}
			}
			b = append(b, schema.Row{schema.MillisValue(pr.ms), x, schema.StringValue(pr.key())})
		}
		out, err = s.PushRows(out[:0], b...)
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			if o.Node != n || o.Kind != live.Event {
				continue
			}
			for j := range o.Events.Len() {
				row := o.Events.Row(j)
				k, _ := row[1].Str()
				got = append(got, probeOut{b: o.Events.TimeNanos(j) / int64(time.Millisecond), key: k, vals: append([]schema.Value(nil), row[2:]...)})
			}
		}
	}
	return got, nil
}

// probeHeld returns key's rows with b − span ≤ t < b, in arrival order.
func probeHeld(rows []probeRow, key string, b, span int64) []probeRow {
	var in []probeRow
	for _, r := range rows {
		if r.key() == key && r.ms >= b-span && r.ms < b {
			in = append(in, r)
		}
	}
	return in
}

// presentX returns the present values of rows.
func presentX(rows []probeRow) []float64 {
	var xs []float64
	for _, r := range rows {
		if r.x == r.x {
			xs = append(xs, r.x)
		}
	}
	return xs
}

// expectedBoundaries returns, for a stream accepted whole (strictly
// ordered, or late rows within grace), each closed boundary and key
// whose windows hold a row, in order.
func (p probeSpec) expected(rows []probeRow) []probeOut {
	if len(rows) == 0 {
		return nil
	}
	lag := p.opts.Grace.Milliseconds()
	latest := rows[0].ms
	var keys []string
	for _, r := range rows {
		latest = max(latest, r.ms)
		if !slices.Contains(keys, r.key()) {
			keys = append(keys, r.key())
		}
	}
	floor := func(t int64) int64 {
		q := t / p.step
		if t%p.step != 0 && t < 0 {
			q--
		}
		return q * p.step
	}
	var want []probeOut
	for b := floor(rows[0].ms-lag) + p.step; b <= latest-lag; b += p.step {
		for _, k := range keys {
			for _, sp := range p.spans {
				if len(probeHeld(rows, k, b, sp)) > 0 {
					want = append(want, probeOut{b: b, key: k})
					break
				}
			}
		}
	}
	return want
}

// checkCell compares a cell of reducer red with the exact result over
// the rows held, and returns a description of the difference ("" when
// they agree). Counts, extremes, firsts and lasts must be exact; a sum
// and an avg agree to 1e-12 relative or, for a result cancelled far
// below the values held, to 2^-96 of the largest held (a double-double
// at the largest of them); a stdev's square agrees with the exact
// variance to 2e-12 relative or 2^-96 of the largest held squared.
func checkCell(red reduce.Reducer, got schema.Value, held []probeRow) string {
	xs := presentX(held)
	g, gok := got.Num()
	scale := 0.0
	for _, x := range xs {
		scale = max(scale, math.Abs(x))
	}
	same := func(w float64, wok bool) string {
		if gok != wok || wok && math.Float64bits(g) != math.Float64bits(w) && !(g != g && w != w) {
			return fmt.Sprintf("got %v, want %v", got, w)
		}
		return ""
	}
	near := func(w float64, wok bool, floor float64) string {
		if gok != wok {
			return fmt.Sprintf("got %v, want %v (present %v)", got, w, wok)
		}
		if wok && !(math.Abs(g-w) <= 1e-12*math.Abs(w)+floor) {
			return fmt.Sprintf("got %v, want %v (rel %.3g)", g, w, math.Abs(g-w)/math.Abs(w))
		}
		return ""
	}
	switch red {
	case reduce.Count:
		return same(float64(len(xs)), true)
	case reduce.Min, reduce.Max, reduce.Difference:
		if len(xs) == 0 {
			return same(0, false)
		}
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			// min and max as the reducers order ±0: −0 below +0.
			if x < lo || x == lo && math.Signbit(x) {
				lo = x
			}
			if x > hi || x == hi && !math.Signbit(x) {
				hi = x
			}
		}
		switch red {
		case reduce.Min:
			if gok && g == lo {
				return "" // ±0: either zero
			}
			return same(lo, true)
		case reduce.Max:
			if gok && g == hi {
				return ""
			}
			return same(hi, true)
		}
		d := hi - lo
		if math.IsInf(d, 0) {
			return same(0, false)
		}
		if gok && g == d {
			return ""
		}
		return same(d, true)
	case reduce.First, reduce.Last:
		best := -1
		for i, r := range held {
			if r.x != r.x {
				continue
			}
			if best < 0 || red == reduce.First && r.ms < held[best].ms || red == reduce.Last && r.ms >= held[best].ms {
				best = i
			}
		}
		if best < 0 {
			return same(0, false)
		}
		return same(held[best].x, true)
	case reduce.Sum:
		w := exact.SumFloat(xs)
		return near(w, !math.IsInf(w, 0), 0x1p-96*scale)
	case reduce.Avg:
		if len(xs) == 0 {
			return same(0, false)
		}
		return near(exact.Mean(xs), true, 0x1p-96*scale)
	case reduce.Stdev:
		if len(xs) == 0 {
			return same(0, false)
		}
		if scale >= 0x1p500 {
			return same(0, false) // documented: missing while held
		}
		w := exact.Stdev(xs)
		if !gok {
			return fmt.Sprintf("got missing, want %v", w)
		}
		// Compare the variances, exactly.
		bg, bw := new(big.Float).SetFloat64(g), new(big.Float).SetFloat64(w)
		bg.Mul(bg, bg)
		bw.Mul(bw, bw)
		d, _ := new(big.Float).Sub(bg, bw).Float64()
		ww, _ := bw.Float64()
		if !(math.Abs(d) <= 2e-12*ww+0x1p-96*scale*scale) {
			return fmt.Sprintf("got %v, want %v (rel %.3g)", g, w, math.Abs(g-w)/w)
		}
		return ""
	}
	panic("unchecked reducer " + red.String())
}

// mergeable are the reducers an aligned window keeps per pane.
var mergeable = []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Stdev, reduce.Min, reduce.Max,
	reduce.First, reduce.Last, reduce.Difference}

// checkProbe runs rows through p, batch rows a push, and compares
// every emitted row with the expected boundaries and every cell with
// exact results; it returns how many cells it checked, and fails at the
// first difference.
func checkProbe(t *testing.T, p probeSpec, rows []probeRow, batch int) int {
	t.Helper()
	cells, diffs := probeDiffs(t, p, rows, batch)
	if len(diffs) > 0 {
		require.Fail(t, "cell differs", "%s (%d differences)", diffs[0], len(diffs))
	}
	return cells
}

// probeDiffs is checkProbe returning every difference.
func probeDiffs(t *testing.T, p probeSpec, rows []probeRow, batch int) (int, []string) {
	t.Helper()
	cells, diffs, err := probeCompare(p, rows, batch)
	require.NoError(t, err)
	return cells, diffs
}

// probeCompare is probeDiffs returning an error for rows emitted
// otherwise than expected.
func probeCompare(p probeSpec, rows []probeRow, batch int) (int, []string, error) {
	got, err := p.run(rows, batch)
	if err != nil {
		return 0, nil, err
	}
	want := p.expected(rows)
	if len(want) != len(got) {
		return 0, nil, fmt.Errorf("%d rows emitted, want %d", len(got), len(want))
	}
	cells := 0
	var diffs []string
	for i, g := range got {
		if want[i].b != g.b || want[i].key != g.key {
			return 0, nil, fmt.Errorf("row %d at %d (%s), want %d (%s)", i, g.b, g.key, want[i].b, want[i].key)
		}
		for wi, sp := range p.spans {
			held := probeHeld(rows, g.key, g.b, sp)
			for j, red := range p.aggs {
				if d := checkCell(red, g.vals[wi*len(p.aggs)+j], held); d != "" {
					diffs = append(diffs, fmt.Sprintf("%v of window %d ms at %d (%s): %s; values held %v",
						red, sp, g.b, g.key, d, presentX(held)))
				}
				cells++
			}
		}
	}
	return cells, diffs, nil
}

// randomProbe draws an aligned rolling of some of the mergeable
// reducers (stdev or not among them) over one to three windows, and a
// stream of n rows of one or two hosts whose values draw gives (a few
// cells missing), in order or, under reorder, late within the grace.
func randomProbe(rng *rand.Rand, n int, draw func() float64) (probeSpec, []probeRow) {
	var p probeSpec
	p.step = []int64{100, 200, 500}[rng.IntN(3)]
	for range 1 + rng.IntN(3) {
		p.spans = append(p.spans, 50*(1+rng.Int64N(30)))
	}
	for _, red := range mergeable {
		if rng.IntN(2) == 0 {
			p.aggs = append(p.aggs, red)
		}
	}
	if len(p.aggs) == 0 || rng.IntN(2) == 0 {
		p.aggs = append(p.aggs, reduce.Stdev)
	}
	var lag int64
	if rng.IntN(3) == 0 {
		p.opts.Ordering = live.Reorder
		lag = 50 * (1 + rng.Int64N(8))
		p.opts.Grace = time.Duration(lag) * time.Millisecond
	}
	hosts := 1 + rng.IntN(2)
	t, latest := int64(0), int64(0)
	rows := make([]probeRow, 0, n)
	for range n {
		t += rng.Int64N(80)
		if rng.IntN(50) == 0 {
			t += rng.Int64N(3000)
		}
		rt := t
		if lag > 0 && rng.IntN(4) == 0 {
			rt = max(latest-lag, t-rng.Int64N(lag+1))
		}
		latest = max(latest, rt)
		x := draw()
		if rng.IntN(12) == 0 {
			x = math.NaN()
		}
		rows = append(rows, probeRow{ms: rt, x: x, host: fmt.Sprintf("h%d", rng.IntN(hosts))})
	}
	return p, rows
}

// probeStdev3s is an aligned 3 s window of stdev over x on a 1 s clock;
// its rows are one a second from 0, one a push, and at each boundary b
// it holds the values of the seconds b−3 to b−1.
func probeStdev3s(t *testing.T, xs []float64) (rows []probeRow, got []probeOut) {
	t.Helper()
	for i, x := range xs {
		rows = append(rows, probeRow{ms: int64(i) * 1000, x: x})
	}
	p := probeSpec{spans: []int64{3000}, step: 1000, aggs: []reduce.Reducer{reduce.Stdev}}
	got, err := p.run(rows, 1)
	require.NoError(t, err)
	require.Len(t, got, len(xs)-1)
	return rows, got
}

// TestAlignedStdevAfterOutliersLeaveInTurn: 2e14, 3e11 and 4e8 leave an
// aligned 3 s window in turn, each of their squares under 2^20 times
// those of what stays — until 4e8 leaves 1, 2 and 3. The window's Σx²
// kept the rounding residue of 2e14's square: the deviation of 1 2 3,
// and of every three consecutive integers after, read 0.81650904 for
// 0.81649658 (1.5e-5 relative). An outlier leaving is told by its
// squares against the high word of the window's Σx² less its own, and
// that high word, never renormalised, is off by the low word, about
// 2^-53 of the largest square it held: when 4e8 leaves, the rest reads
// 1.4e12 (the low word's −1.4e12 not folded in) where 1, 2, 3 hold 14,
// and 1.6e17 is under 2^20 times that.
func TestAlignedStdevAfterOutliersLeaveInTurn(t *testing.T) {
	xs := []float64{2e14, 3e11, 4e8, 1, 2, 3, 4, 5, 6, 7}
	_, got := probeStdev3s(t, xs)
	for _, g := range got[5:] { // boundaries 6 s to 9 s: three small integers
		sd, ok := g.vals[0].Num()
		require.True(t, ok)
		require.InDelta(t, math.Sqrt(2.0/3), sd, 1e-15, "stdev at %d ms", g.b)
	}
}

// TestAlignedStdevOfValuesNearTheirMeanAfterAnOutlier: 1.4e9 leaves an
// aligned 3 s window holding values near 1e6 that differ by 1e-3. Its
// square, 1.96e18, is under 2^20 times theirs (2e12), so it is not told
// as an outlier and the window is not summed again; its residue in Σx²,
// about 2^-106 of 1.96e18, is small against Σx² but not against
// n·Σx² − (Σx)², their spread, which is 1e-18 of it: the deviation of
// 1000000.001, 1000000, 1000000.002 read 8.164965712e-4 for
// 8.164965722e-4 (1.2e-9 relative), and every window after it is off.
func TestAlignedStdevOfValuesNearTheirMeanAfterAnOutlier(t *testing.T) {
	xs := []float64{1e6, 1.4e9, 1e6 + 1e-3, 1e6, 1e6 + 2e-3, 1e6, 1e6 + 1e-3, 1e6, 1e6 + 2e-3, 1e6}
	rows, got := probeStdev3s(t, xs)
	for _, g := range got[4:] { // boundaries 5 s on: values near 1e6
		held := presentX(probeHeld(rows, g.key, g.b, 3000))
		sd, ok := g.vals[0].Num()
		require.True(t, ok)
		want := exact.Stdev(held)
		require.InDelta(t, want, sd, 1e-12*want, "stdev at %d ms of %v", g.b, held)
	}
}

// probeMixes are the value distributions of TestAlignedNumericProbe,
// each drawing one value of x; chain, when set, makes a case's draw
// instead.
var probeMixes = []struct {
	name  string
	draw  func(rng *rand.Rand) float64
	chain bool
}{
	// Now and then a chain of outliers of falling magnitude, 2^47, 2^38,
	// 2^28, 2^19 of random signs, each within 2^20 of the next in their
	// squares, so that they leave in turn; values in [1, 2) between.
	{name: "chains of falling outliers", chain: true},
	// Values near 1e3, 1e6 or 1e9 a case, 1e-3 apart, and one in ten an
	// outlier of either sign 10 to 10^4 times them: the spread of what
	// stays is far below Σx², and the outliers' squares within 2^20 of
	// it.
	{name: "values near their mean, outliers", draw: func(rng *rand.Rand) float64 {
		base := []float64{1e3, 1e6, 1e9}[rng.IntN(3)]
		if rng.IntN(10) == 0 {
			return probeSign(rng) * base * math.Pow(10, 1+3*rng.Float64())
		}
		return base + float64(rng.IntN(1000))*1e-3
	}},
	// Values in [1, 2) and one in eight from 1e8 to 1e11, of either sign.
	{name: "outliers 1e8 to 1e11 beside values near 1", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(8) == 0 {
			return probeSign(rng) * math.Pow(10, 8+3*rng.Float64())
		}
		return 1 + rng.Float64()
	}},
	// Magnitudes 2^0, 2^9, 2^19, 2^28, 2^38 and 2^47 of either sign:
	// outliers that leave in turn, each within 2^20 of the next in
	// their squares.
	{name: "magnitudes 2^0 to 2^47, signed", draw: func(rng *rand.Rand) float64 {
		return probeSign(rng) * math.Ldexp(1+rng.Float64(), int(float64(rng.IntN(6))*9.5))
	}},
	{name: "magnitudes 2^0 to 2^47, positive", draw: func(rng *rand.Rand) float64 {
		return math.Ldexp(1+rng.Float64(), int(float64(rng.IntN(6))*9.5))
	}},
	// ±1e8 (±1e8 + 0 to 2) cancelling in Σx while Σx² holds them, beside
	// small integers or values near 1.
	{name: "cancelling outliers beside small integers", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(4) == 0 {
			return probeSign(rng) * 1e8
		}
		return float64(rng.IntN(10))
	}},
	{name: "cancelling outliers beside values near 1", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(4) == 0 {
			return probeSign(rng) * (1e8 + float64(rng.IntN(3)))
		}
		return 1 + float64(rng.IntN(10))*1e-6
	}},
	// Zeros of both signs, subnormals, 1e-300 and 2.5e-308 beside
	// ordinary values and ±1e16.
	{name: "zeros, subnormals and tiny values", draw: func(rng *rand.Rand) float64 {
		return []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-300, -1e-300, 2.5e-308, 1, 3, 0.1, 1e16, -1e16}[rng.IntN(12)]
	}},
	{name: "values below 1e-300 beside values below 1", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(2) == 0 {
			return rng.Float64() * 1e-300
		}
		return rng.Float64()
	}},
	{name: "subnormals beside values near 1", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(3) == 0 {
			return 1 + rng.Float64()
		}
		return probeSign(rng) * float64(rng.IntN(1000)) * 5e-324
	}},
	// From 2^500 up, whose squares are not summed (stdev missing while
	// held), beside normal draws.
	{name: "values from 2^500 to 2^600", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(5) == 0 {
			return probeSign(rng) * math.Ldexp(1+rng.Float64(), 500+rng.IntN(100))
		}
		return rng.NormFloat64()
	}},
	// From 2^955 to the top of the range (sums in units of 2^128 from
	// 2^960), beside normal draws of scale 1, 1e16 and 1e300.
	{name: "values from 2^955 to the top of the range", draw: func(rng *rand.Rand) float64 {
		if rng.IntN(4) == 0 {
			return probeSign(rng) * math.Ldexp(1+rng.Float64(), 955+rng.IntN(69))
		}
		return rng.NormFloat64() * []float64{1, 1e16, 1e300}[rng.IntN(3)]
	}},
	{name: "extreme values", draw: func(rng *rand.Rand) float64 {
		return extremeValues[rng.IntN(len(extremeValues))]
	}},
}

// chainDraw returns a draw of the chains' mix.
func chainDraw(rng *rand.Rand) func() float64 {
	next := 0 // the next link of the chain; 0: none
	return func() float64 {
		if next == 0 && rng.IntN(20) == 0 {
			next = 4
		}
		if next > 0 {
			x := probeSign(rng) * math.Ldexp(1+rng.Float64(), []int{19, 28, 38, 47}[next-1])
			if rng.IntN(3) != 0 { // some links repeat
				next--
			}
			return x
		}
		return 1 + rng.Float64()
	}
}

func probeSign(rng *rand.Rand) float64 { return float64(1 - 2*rng.IntN(2)) }

// TestAlignedNumericProbe runs random aligned rollings of the mergeable
// reducers (one to three windows of 50 ms to 1.5 s, clocks of 100 to
// 500 ms, one or two hosts, a few cells missing, under reorder a third of
// the time with late rows within the grace) over streams of each mix,
// batched at random, and compares every cell with exact results over
// the rows its window holds.
func TestAlignedNumericProbe(t *testing.T) {
	for i, mix := range probeMixes {
		t.Run(mix.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 40))
			cells := 0
			for range 24 {
				draw := func() float64 { return mix.draw(rng) }
				if mix.chain {
					draw = chainDraw(rng)
				}
				p, rows := randomProbe(rng, 400, draw)
				cells += checkProbe(t, p, rows, 1+rng.IntN(12))
				if t.Failed() {
					t.Logf("case: %+v", p)
					return
				}
			}
			require.Greater(t, cells, 20000, "cells checked")
		})
	}
}

// TestAlignedOracleChains is TestAlignedOracle over the cases of chains
// of outliers alone (makeChains), which it draws one in eight of: many
// more of them, every output of every row against the brute-force
// oracle, each number to 1e-12 of the largest |x| its window holds.
func TestAlignedOracleChains(t *testing.T) {
	cases, rows := 0, 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 14))
		c := newAlignedCase(rng)
		if rng.IntN(8) != 1 {
			continue
		}
		c.makeChains(rng)
		s, node, err := c.build()
		require.NoError(t, err)
		got, err := pushAligned(s, node, c.rows, func() int { return 1 + rng.IntN(25) })
		s.Close()
		require.NoError(t, err)
		want := c.oracle()
		compareEmitted(t, got, want, 1, fmt.Sprintf("seed %d", seed))
		if t.Failed() {
			t.Logf("case: ordering %v lag %d step %d anchor %d windows %+v", c.opts.Ordering, c.lag, c.step, c.anchor, c.windows)
			return
		}
		cases++
		rows += len(want)
	}
	require.Greater(t, cases, 30, "cases of chains")
	require.Greater(t, rows, 5000, "rows compared")
}
