package live_test

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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

// The numeric probes: random streams of adversarial values (small
// integers with ±0, outliers up to 1e300, values near 1e-300 and
// subnormals, long runs of equal values, magnitudes changing batch by
// batch) through a default-mode rolling, in pushes of 1 to 1000 rows, on
// the root or partitioned; every emitted value is compared with the
// exact reduction of the rows its window holds, within what package
// reduce's "Numerics" promises.

// probe is one configuration of a numeric probe.
type probe struct {
	count   int   // a count window of Count rows (0: a time window)
	span    int64 // the time window's span, ms
	clock   int64 // a clock trigger's step, ms (0: an event trigger)
	hosts   int   // partitioned by host over this many hosts (0: the root)
	aggs    []reduce.Agg
	batches []int                             // push sizes, cycled
	gap     func(r *rand.Rand) int64          // time from one row to the next, ms
	draw    func(r *rand.Rand, i int) float64 // row i's value
	rows    int
	fused   []int64  // the spans of more time windows in the node, ms, with the same aggregations
	fixed   []numRow // the rows to push, if not drawn
}

// numRow is a pushed row.
type numRow struct {
	t    int64 // ms
	v    float64
	host string
}

// numAggs are the number reducers, each with its output column.
var numAggs = []reduce.Agg{
	{Out: "count", From: "value", Using: reduce.Count},
	{Out: "sum", From: "value", Using: reduce.Sum},
	{Out: "avg", From: "value", Using: reduce.Avg},
	{Out: "sd", From: "value", Using: reduce.Stdev},
	{Out: "min", From: "value", Using: reduce.Min},
	{Out: "max", From: "value", Using: reduce.Max},
	{Out: "first", From: "value", Using: reduce.First},
	{Out: "last", From: "value", Using: reduce.Last},
	{Out: "diff", From: "value", Using: reduce.Difference},
	{Out: "median", From: "value", Using: reduce.Median},
	{Out: "p0", From: "value", Using: reduce.Percentile(0)},
	{Out: "p10", From: "value", Using: reduce.Percentile(10)},
	{Out: "p95", From: "value", Using: reduce.Percentile(95)},
	{Out: "p99.9", From: "value", Using: reduce.Percentile(99.9)},
	{Out: "p100", From: "value", Using: reduce.Percentile(100)},
	{Out: "keep", From: "value", Using: reduce.Keep},
}

// aggsNamed returns the aggregations of numAggs with these outputs.
func aggsNamed(names ...string) []reduce.Agg {
	var out []reduce.Agg
	for _, n := range names {
		i := slices.IndexFunc(numAggs, func(a reduce.Agg) bool { return a.Out == n })
		out = append(out, numAggs[i])
	}
	return out
}

// probeStats counts what a probe checked.
type probeStats struct {
	windows int // emitted rows checked
	values  int // emitted values checked
}

// ulp returns the spacing of float64 values at |x|.
func ulp(x float64) float64 {
	x = math.Abs(x)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Inf(1)
	}
	return math.Nextafter(x, math.Inf(1)) - x
}

// numHeld is what the window of an emitted row holds, and the values
// that left it whose rounding residue the docs allow to remain.
type numHeld struct {
	xs []float64
	// Σ|y| and Σy² of the values that have left it, from the
	// partition's whole history, within 2^54 of one held: a value that
	// has left can leave a residue of about 2^-106 of its square while
	// values of its band remain, and a band spans 2^53.
	left, leftSq float64
}

// heldAt returns the window of host h at row c (its crossing row).
func (p *probe) heldAt(rows []numRow, c int, h string) numHeld {
	var idx []int
	for i := 0; i <= c; i++ {
		if rows[i].host == h {
			idx = append(idx, i)
		}
	}
	var in []int
	if p.count > 0 {
		in = idx[max(0, len(idx)-p.count):]
	} else {
		tc := rows[c].t
		for _, i := range idx {
			if rows[i].t >= tc-p.span {
				in = append(in, i)
			}
		}
	}
	var hd numHeld
	maxHeld := 0.0
	for _, i := range in {
		hd.xs = append(hd.xs, rows[i].v)
		maxHeld = max(maxHeld, math.Abs(rows[i].v))
	}
	for _, i := range idx {
		if len(in) > 0 && i >= in[0] {
			break
		}
		if a := math.Abs(rows[i].v); a <= 0x1p54*maxHeld {
			hd.left += a
			hd.leftSq += a * a
		}
	}
	return hd
}

// checkProbeValue compares one emitted value with the exact reduction of
// hd, within the documented tolerance; it returns "" or what is wrong.
func checkProbeValue(a reduce.Agg, got float64, hd numHeld) string {
	xs := hd.xs
	n := len(xs)
	maxHeld, minNZ := 0.0, math.Inf(1)
	for _, x := range xs {
		maxHeld = max(maxHeld, math.Abs(x))
		if x != 0 {
			minNZ = min(minNZ, math.Abs(x))
		}
	}
	missing := math.IsNaN(got)
	bad := func(want any) string {
		return fmt.Sprintf("%s: got %v, want %v", a.Out, got, want)
	}
	if a.Using != reduce.Count && a.Using != reduce.Sum && n == 0 {
		if !missing {
			return bad("missing")
		}
		return ""
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	switch a.Using {
	case reduce.Count:
		if got != float64(n) {
			return bad(n)
		}
	case reduce.Sum, reduce.Avg:
		want := exact.SumFloat(xs)
		resid := 0x1p-100 * (float64(n)*maxHeld + hd.left)
		if a.Using == reduce.Avg {
			want = exact.Mean(xs)
			resid /= float64(n)
		}
		if math.IsInf(want, 0) {
			if !missing {
				return bad("missing (beyond the range)")
			}
			return ""
		}
		if missing || math.Abs(got-want) > 2*ulp(want)+resid {
			return bad(want)
		}
	case reduce.Stdev:
		if maxHeld >= 0x1p500 {
			if !missing {
				return bad("missing (a square not summed)")
			}
			return ""
		}
		want := exact.Stdev(xs)
		mean := math.Abs(exact.Mean(xs))
		if missing {
			return bad(want)
		}
		if got == 0 && want <= 0x1p-49*mean {
			return "" // a spread below 2^-50 of the mean reads 0
		}
		errVar := 2e-12*want*want + 0x1p-98*(float64(n)*maxHeld*maxHeld+hd.leftSq)
		if minNZ < 1e-150 {
			errVar += 1e-300 // squares lost to underflow
		}
		if mean > 1e6*want {
			errVar += 0x1p-98 * mean * mean
		}
		g, w := new(big.Float).SetFloat64(got), new(big.Float).SetFloat64(want)
		g.Mul(g, g)
		w.Mul(w, w)
		d, _ := g.Sub(g, w).Float64()
		if math.Abs(d) > errVar {
			return bad(want)
		}
	case reduce.Min, reduce.Max, reduce.Difference:
		want := sorted[0]
		if a.Using == reduce.Max {
			want = sorted[n-1]
		}
		if a.Using == reduce.Difference {
			want = sorted[n-1] - sorted[0]
			if math.IsInf(want, 0) {
				if !missing {
					return bad("missing (beyond the range)")
				}
				return ""
			}
		}
		if got != want {
			return bad(want)
		}
	case reduce.First, reduce.Last:
		want := xs[0]
		if a.Using == reduce.Last {
			want = xs[n-1]
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			return bad(want)
		}
	case reduce.Keep:
		if sorted[0] == sorted[n-1] {
			if got != sorted[0] {
				return bad(sorted[0])
			}
		} else if !missing {
			return bad("missing")
		}
	default: // a percentile
		want := probePercentile(sorted, a.Using)
		if got != want {
			return bad(want)
		}
	}
	return ""
}

// probePercentile is the documented linear rule over sorted.
func probePercentile(sorted []float64, r reduce.Reducer) float64 {
	q := 50.0
	if r != reduce.Median {
		fmt.Sscanf(r.String(), "p%g", &q)
	}
	rank := q / 100 * float64(len(sorted)-1)
	lo, hi := math.Floor(rank), math.Ceil(rank)
	a, b, f := sorted[int(lo)], sorted[int(hi)], rank-lo
	if f == 0 {
		return a
	}
	if d := b - a; d-d == 0 {
		return a + float64(d*f)
	}
	return a*(1-f) + b*f
}

// genRows draws the probe's rows.
func (p *probe) genRows(rng *rand.Rand) []numRow {
	rows := make([]numRow, p.rows)
	t := int64(1_000_000)
	for i := range rows {
		if i > 0 {
			t += p.gap(rng)
		}
		h := ""
		if p.hosts > 0 {
			h = fmt.Sprintf("h%d", rng.IntN(p.hosts))
		}
		rows[i] = numRow{t: t, v: p.draw(rng, i), host: h}
	}
	return rows
}

// run pushes the probe's rows and checks every emitted row; it returns
// the first discrepancy found ("" for none) and what it checked.
func (p *probe) run(t *testing.T, rng *rand.Rand) (string, probeStats) {
	t.Helper()
	var st probeStats
	rows := p.fixed
	if rows == nil {
		rows = p.genRows(rng)
	}
	s := newSeries(t, live.Options{MaxEvents: 8})
	src := s.Root()
	if p.hosts > 0 {
		var err error
		src, err = s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 4})
		require.NoError(t, err)
	}
	ws := []rolling.Window{{Count: p.count, Span: time.Duration(p.span) * time.Millisecond, Aggs: p.aggs}}
	for k, span := range p.fused {
		var aggs []reduce.Agg
		for _, a := range p.aggs {
			aggs = append(aggs, reduce.Agg{Out: fmt.Sprintf("%s_%d", a.Out, k), From: a.From, Using: a.Using})
		}
		ws = append(ws, rolling.Window{Span: time.Duration(span) * time.Millisecond, Aggs: aggs})
	}
	opts := rolling.Options{Trigger: trigger.Event()}
	if p.clock > 0 {
		opts.Trigger = trigger.Clock(sequence.Every(time.Duration(p.clock) * time.Millisecond))
	}
	n, err := s.Rolling(src, ws, opts)
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	var out []live.Output
	times := make([]int64, 0, len(rows))
	for i, k := 0, 0; i < len(rows); k++ {
		m := min(p.batches[k%len(p.batches)], len(rows)-i)
		batch := make([]schema.Row, m)
		for j := range m {
			pr := rows[i+j]
			batch[j] = r(pr.t, pr.v, pr.host)
			times = append(times, pr.t)
		}
		out, err = s.PushRows(out[:0], batch...)
		require.NoError(t, err)
		var tab *schema.Table
		for _, o := range out {
			if o.Node == n && o.Kind == live.Event {
				tab = o.Events
			}
		}
		emitted := 0
		if tab != nil {
			emitted = tab.Len()
		}
		if p.clock == 0 && emitted != m {
			return fmt.Sprintf("push at row %d: %d rows emitted for %d pushed", i, emitted, m), st
		}
		var hosts []string
		if tab != nil && p.hosts > 0 {
			hosts, _ = tab.Strings("host")
		}
		for e := range emitted {
			c := i + e
			if p.clock > 0 {
				b := tab.TimeNanos(e) / int64(time.Millisecond)
				c, _ = slices.BinarySearch(times, b) // the first row at or after the boundary
				if c < i || c >= i+m {
					return fmt.Sprintf("push at row %d: a tick at %dms crossed by row %d", i, b, c), st
				}
			}
			h := ""
			if p.hosts > 0 {
				h = hosts[e]
				if p.clock == 0 && h != rows[c].host {
					return fmt.Sprintf("row %d: emitted for %q, pushed for %q", c, h, rows[c].host), st
				}
			}
			for k, w := range ws {
				q := *p
				if k > 0 {
					q.count, q.span = 0, p.fused[k-1]
				}
				hd := q.heldAt(rows, c, h)
				st.windows++
				for j, a := range w.Aggs {
					col, _ := tab.Numbers(a.Out)
					st.values++
					if msg := checkProbeValue(p.aggs[j], col[e], hd); msg != "" {
						return fmt.Sprintf("row %d (push of %d at row %d), host %q, window %d %v (left %g): %s",
							c, m, i, h, k, hd.xs, hd.left, msg), st
					}
				}
			}
		}
		i += m
	}
	return "", st
}

// The value mixes.
var numMixes = map[string]func(r *rand.Rand, i int) float64{
	// small integers, zeros and −0
	"small": func(r *rand.Rand, _ int) float64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		}
		return float64(r.IntN(19) - 9)
	},
	// small values, zeros, and outliers from 1e8 to 1e300
	"outliers": func(r *rand.Rand, _ int) float64 {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2, 3:
			return math.Copysign(math.Pow(10, 8+292*r.Float64()), r.NormFloat64())
		case 4:
			return math.Copysign(math.Pow(10, 8+12*r.Float64()), r.NormFloat64())
		}
		return float64(r.IntN(19)-9) + float64(r.IntN(4))/4
	},
	// values near 1e-300 and subnormals beside ordinary ones
	"tiny": func(r *rand.Rand, _ int) float64 {
		switch r.IntN(6) {
		case 0:
			return math.Copysign(math.SmallestNonzeroFloat64*float64(1+r.IntN(1000)), r.NormFloat64())
		case 1:
			return math.Copysign(math.Pow(10, -300-8*r.Float64()), r.NormFloat64())
		case 2:
			return 0
		case 3:
			return math.Copysign(math.Pow(10, -160+20*r.Float64()), r.NormFloat64())
		}
		return float64(1 + r.IntN(9))
	},
	// long runs of one value, between bursts of others
	"runs": func(r *rand.Rand, i int) float64 {
		vals := []float64{0.1, 5, 1e10 + 0.3, -7.25, 1e-5, 3e15, 0, 1.0 / 3}
		if i%97 < 15 {
			return math.Copysign(math.Pow(10, 20*r.Float64()-5), r.NormFloat64())
		}
		return vals[(i/97)%len(vals)]
	},
	// magnitudes that change every few dozen rows, from 1e-300 to 1e300
	"bands": func(r *rand.Rand, i int) float64 {
		e := float64((i/37*7919)%600) - 300
		return math.Copysign(math.Pow(10, e+r.Float64()), r.NormFloat64())
	},
	// values beyond 2^500 and 2^960 beside ordinary ones
	"huge": func(r *rand.Rand, _ int) float64 {
		switch r.IntN(6) {
		case 0:
			return math.Copysign(1.7e308*(0.5+r.Float64()/2), r.NormFloat64())
		case 1:
			return math.Copysign(math.Pow(10, 150+150*r.Float64()), r.NormFloat64())
		case 2:
			return 0
		}
		return float64(r.IntN(100))
	},
	// runs of zeros, or of values from 2^960 up, that leave a window
	// together, between runs of small values
	"zero runs": func(r *rand.Rand, i int) float64 {
		switch (i / 20) % 4 {
		case 0:
			return math.Copysign(0, r.NormFloat64())
		case 2:
			return math.Copysign(0x1p970*(1+r.Float64()), r.NormFloat64())
		}
		if r.IntN(3) == 0 {
			return 0
		}
		return float64(r.IntN(9) + 1)
	},
	// one constant with exact-in-binary neighbours and their negatives
	"cancel": func(r *rand.Rand, _ int) float64 {
		x := float64(1+r.IntN(3)) * 0x1p40
		if r.IntN(2) == 0 {
			x = -x
		}
		if r.IntN(3) == 0 {
			return x + float64(r.IntN(3))
		}
		return x
	},
}

// reduceProbe is a probe of s.Reduce over a node holding the last keep
// rows: the root under MaxEvents, or a partitioning keeping each host's
// last keep rows (whose rows leave out of arrival order).
type reduceProbe struct {
	keep    int
	hosts   int // partitioned by host (0: the root)
	aggs    []reduce.Agg
	batches []int
	draw    func(r *rand.Rand, i int) float64
	rows    int
}

// run pushes the probe's rows and checks the row each push emits.
func (p *reduceProbe) run(t *testing.T, rng *rand.Rand) (string, probeStats) {
	t.Helper()
	var st probeStats
	pp := probe{hosts: p.hosts, gap: func(*rand.Rand) int64 { return 1000 }, draw: p.draw, rows: p.rows}
	rows := pp.genRows(rng)
	opts := live.Options{MaxEvents: p.keep}
	if p.hosts > 0 {
		opts = live.Options{}
	}
	s := newSeries(t, opts)
	src := s.Root()
	if p.hosts > 0 {
		var err error
		src, err = s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: p.keep})
		require.NoError(t, err)
	}
	n, err := s.Reduce(src, p.aggs, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	var out []live.Output
	for i, k := 0, 0; i < len(rows); k++ {
		m := min(p.batches[k%len(p.batches)], len(rows)-i)
		batch := make([]schema.Row, m)
		for j := range m {
			pr := rows[i+j]
			batch[j] = r(pr.t, pr.v, pr.host)
		}
		out, err = s.PushRows(out[:0], batch...)
		require.NoError(t, err)
		i += m
		var tab *schema.Table
		for _, o := range out {
			if o.Node == n && o.Kind == live.Event {
				tab = o.Events
			}
		}
		if tab == nil || tab.Len() != 1 {
			return fmt.Sprintf("push at row %d: no reduction", i-m), st
		}
		// What the node holds: each host's last keep rows, in arrival order.
		held := map[string]int{}
		var hd numHeld
		in := make([]bool, i)
		for j := i - 1; j >= 0; j-- {
			if held[rows[j].host] < p.keep {
				held[rows[j].host]++
				in[j] = true
			}
		}
		maxHeld := 0.0
		for j := range i {
			if in[j] {
				hd.xs = append(hd.xs, rows[j].v)
				maxHeld = max(maxHeld, math.Abs(rows[j].v))
			}
		}
		for j := range i {
			if a := math.Abs(rows[j].v); !in[j] && a <= 0x1p54*maxHeld {
				hd.left += a
				hd.leftSq += a * a
			}
		}
		// A push adds its rows before retention takes them out again:
		// the sums held them all at once, and a double-double of m values
		// rounds at m·2^-106 of their magnitude.
		hd.left *= float64(slices.Max(p.batches))
		hd.leftSq *= float64(slices.Max(p.batches))
		st.windows++
		for _, a := range p.aggs {
			col, _ := tab.Numbers(a.Out)
			st.values++
			if msg := checkProbeValue(a, col[0], hd); msg != "" {
				return fmt.Sprintf("push of %d at row %d, window %v (left %g): %s", m, i-m, hd.xs, hd.left, msg), st
			}
		}
	}
	return "", st
}

// TestZerosOrHugeValuesLeavingATimeWindowTogetherLeaveIt: a 3s window on
// a 1s clock holds ten zeros (or ten 1e300), five of which leave at the
// tick of a row of 1 at 3.5s. The window then holds 0 0 0 0 0 1: count
// 6, sum 1, avg 1/6, stdev √5/6. The five leaving values were added
// again instead of removed (the sums' state held zeros or huge values
// alone, so no band was anchored, and the removal of a run of more than
// four took the anchoring loop, which adds): avg read 1/16 and stdev
// 0.2421; over 1e300 the sum read 1.5e301 for 5e300. One row a push and
// one push of all rows alike.
func TestZerosOrHugeValuesLeavingATimeWindowTogetherLeaveIt(t *testing.T) {
	for _, c := range []struct {
		x                 float64
		sum, avg, sd      float64
		sdMissing, oneRow bool
	}{
		{0, 1, 1.0 / 6, math.Sqrt(5) / 6, false, false},
		{0, 1, 1.0 / 6, math.Sqrt(5) / 6, false, true},
		{math.Copysign(0, -1), 1, 1.0 / 6, math.Sqrt(5) / 6, false, false},
		{1e300, 5e300, 5e300 / 6, 0, true, false},
		{1e300, 5e300, 5e300 / 6, 0, true, true},
	} {
		t.Run(fmt.Sprintf("%g/one row a push %v", c.x, c.oneRow), func(t *testing.T) {
			s := newSeries(t, live.Options{})
			n, err := s.Rolling(s.Root(), []rolling.Window{{Span: 3 * time.Second, Aggs: aggsNamed("count", "sum", "avg", "sd")}},
				rolling.Options{Trigger: trigger.Every(time.Second)})
			require.NoError(t, err)
			require.NoError(t, s.Watch(n))
			var rows []schema.Row
			for _, ms := range []int64{0, 100, 200, 300, 400, 1000, 1100, 1200, 1300, 2000} {
				rows = append(rows, r(ms, c.x, ""))
			}
			rows = append(rows, r(3500, 1, "")) // its tick evicts the rows before 0.5s
			var last *schema.Table
			push := func(rows ...schema.Row) {
				out, err := s.PushRows(nil, rows...)
				require.NoError(t, err)
				if tab, ok := live.Find(out, n, live.Event); ok {
					last = tab.Clone()
				}
			}
			if c.oneRow {
				for _, row := range rows {
					push(row)
				}
			} else {
				push(rows...)
			}
			require.NotNil(t, last)
			k := last.Len() - 1
			require.Equal(t, int64(3000), last.TimeNanos(k)/int64(time.Millisecond))
			col := func(name string) float64 { v, _ := last.Numbers(name); return v[k] }
			require.Equal(t, 6.0, col("count"))
			assert.InDelta(t, c.sum, col("sum"), 1e-15*c.sum, "sum")
			assert.InDelta(t, c.avg, col("avg"), 1e-15*c.avg, "avg")
			if c.sdMissing {
				assert.True(t, math.IsNaN(col("sd")), "stdev missing while 1e300 is held")
			} else {
				assert.InDelta(t, c.sd, col("sd"), 1e-15, "stdev")
			}
		})
	}
}

// probeShape is a window, trigger, partitioning, batching and pace.
type probeShape struct {
	name    string
	count   int
	span    int64
	clock   int64
	hosts   int
	batches []int
	gap     func(r *rand.Rand) int64
	fused   []int64
}

var (
	everySecond = func(*rand.Rand) int64 { return 1000 }
	jittered    = func(r *rand.Rand) int64 { return int64(r.IntN(2500)) }
	// equal times, small steps and long gaps
	bursty = func(r *rand.Rand) int64 {
		switch r.IntN(10) {
		case 0, 1, 2:
			return 0
		case 3:
			return int64(r.IntN(20000))
		}
		return int64(r.IntN(300))
	}
)

// probeShapes are the shapes the committed probes run.
var probeShapes = []probeShape{
	{"count 6, event, a row a push", 6, 0, 0, 0, []int{1}, everySecond, nil},
	{"count 6, event, 1-50 rows a push", 6, 0, 0, 0, []int{1, 3, 7, 50}, everySecond, nil},
	{"count 700, event, 1000 rows a push", 700, 0, 0, 0, []int{1000, 3, 50}, everySecond, nil},
	{"6s on a 1s clock", 0, 6000, 1000, 0, []int{1, 3, 7, 50}, jittered, nil},
	{"3s, 0.5s, 10s, 1s fused on a 1s clock, bursts", 0, 3000, 1000, 0, []int{1, 7, 50, 1000}, bursty, []int64{500, 10000, 1000}},
	{"count 8 on a 1s clock, 3 hosts", 8, 0, 1000, 3, []int{1, 7, 50}, jittered, nil},
	{"5s on a 0.5s clock, 7 hosts, bursts", 0, 5000, 500, 7, []int{1, 3, 50, 1000}, bursty, []int64{250}},
	{"20s, event, 7 hosts", 0, 20000, 0, 7, []int{1000, 50}, jittered, nil},
}

// runProbes runs every mix through every shape, rows rows each, the
// aggregation sets taken in turn, and requires at least minWindows
// emitted windows checked.
func runProbes(t *testing.T, seed uint64, sets [][]reduce.Agg, shapes []probeShape, rows, minWindows int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	mixes := slices.Sorted(maps.Keys(numMixes))
	var tot probeStats
	k := 0
	for _, mix := range mixes {
		for _, sh := range shapes {
			p := probe{count: sh.count, span: sh.span, clock: sh.clock, hosts: sh.hosts, aggs: sets[k%len(sets)],
				batches: sh.batches, gap: sh.gap, draw: numMixes[mix], rows: rows, fused: sh.fused}
			k++
			msg, st := p.run(t, rng)
			tot.windows += st.windows
			tot.values += st.values
			if msg != "" {
				t.Errorf("%s, %s, aggregations %v: %s", mix, sh.name, outs(p.aggs), msg)
			}
		}
	}
	t.Logf("%d windows, %d values checked", tot.windows, tot.values)
	require.Greater(t, tot.windows, minWindows)
}

// outs returns the output names of aggs.
func outs(aggs []reduce.Agg) []string {
	var o []string
	for _, a := range aggs {
		o = append(o, a.Out)
	}
	return o
}

// TestNumericProbeMoments: count, sum, avg and stdev over every value
// mix and shape, each emitted value against the exact reduction of its
// window (sum within an ulp, avg within two, stdev to 1e-12, each with
// the rounding residue the docs allow). Sets of outputs that engines read
// on paths of their own (mean and deviation, sum and mean, a deviation
// alone, an avg alone, which keeps no squares) are taken in turn.
func TestNumericProbeMoments(t *testing.T) {
	runProbes(t, 1, [][]reduce.Agg{
		aggsNamed("count", "sum", "avg", "sd"), aggsNamed("avg", "sd"), aggsNamed("sum", "avg"),
		aggsNamed("sd"), aggsNamed("avg"), aggsNamed("sum"),
	}, probeShapes, 300, 20000)
}

// TestNumericProbeExtremes: min, max, difference, first, last and keep,
// exactly, over every value mix and shape.
func TestNumericProbeExtremes(t *testing.T) {
	runProbes(t, 2, [][]reduce.Agg{
		aggsNamed("min", "max"), aggsNamed("diff"), aggsNamed("first", "last", "keep"),
		aggsNamed("avg", "min", "max"), aggsNamed("count", "sd", "min"),
	}, probeShapes, 300, 20000)
}

// TestNumericProbePercentiles: median and p0, p10, p95, p99.9, p100 by the
// documented linear rule, exactly, over every value mix and shape (the
// count-700 window crosses the sorted slice's 512 to the tree and back).
func TestNumericProbePercentiles(t *testing.T) {
	runProbes(t, 3, [][]reduce.Agg{
		aggsNamed("median", "p0", "p10", "p95", "p99.9", "p100"), aggsNamed("p95"), aggsNamed("median", "min", "max"),
	}, probeShapes, 300, 20000)
}

// TestNumericProbeReduce: s.Reduce over the root keeping the last rows,
// and over a partitioning keeping each host's last rows (removals out of
// arrival order), every number reducer over every value mix, in pushes
// of 1 to 1000 rows.
func TestNumericProbeReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	var tot probeStats
	for _, mix := range slices.Sorted(maps.Keys(numMixes)) {
		for _, keep := range []int{1, 2, 6, 600} {
			for _, hosts := range []int{0, 3} {
				p := reduceProbe{keep: keep, hosts: hosts, aggs: numAggs, batches: []int{1, 3, 7, 50, 1000, 1, 2, 1, 5, 1}, draw: numMixes[mix], rows: 1200}
				msg, st := p.run(t, rng)
				tot.windows += st.windows
				tot.values += st.values
				if msg != "" {
					t.Errorf("%s, keep %d, %d hosts: %s", mix, keep, hosts, msg)
				}
			}
		}
	}
	t.Logf("%d reductions, %d values checked", tot.windows, tot.values)
	require.Greater(t, tot.windows, 800)
}
