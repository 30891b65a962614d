package live_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A naive model of the default (synchronised) rolling, for
// TestRollingOracle: it keeps every accepted row and, at each emission,
// recomputes every window from the rows in it, by brute force and with
// exact sums. It follows the spec (pond-ts-live.md §4.3, §4.4, §4.6, §5,
// §6.4, §8, with docs/differences.md):
//
//   - a time window lets its partition's rows go from the front, in
//     arrival order, while the oldest is older than T − span, at each of
//     the partition's rows (T its time) and at each tick (T the crossing
//     row's time): in time order that leaves the rows in [T − span, T];
//     under reorder a late row stays until the rows that arrived before
//     it have gone, and the rows later than it are in its window;
//   - a count window holds the partition's last Count rows;
//   - an event trigger emits at each row, keyed at its time; a count
//     trigger at every n-th row of a partition; a clock trigger, at the
//     first row whose bucket is past the last one (one for all
//     partitions), one row for every partition known then — declared
//     groups first, then by first row — keyed at the boundary;
//   - a window holding fewer rows than its MinSamples has missing
//     outputs;
//   - IdleTTL removes a quiet partition at the end of a push, and a
//     rolling built on held rows starts from them without emitting.

// Trigger kinds of a rollCase.
const (
	trigEvent = iota
	trigCount
	trigClock
)

// rollCase is one random configuration of the default rolling.
type rollCase struct {
	ordering   live.Ordering // Strict, Drop or Reorder
	grace      int64         // Reorder's grace, ms (0: none)
	by         bool          // partitioned by host
	groups     []string      // declared groups (partitioned only)
	trig       int           // trigEvent, trigCount or trigClock
	n          int           // the count trigger's n
	step       int64         // the clock's step, ms
	anchor     int64         // the clock's anchor, ms
	windows    []rolling.Window
	minSamples int  // rolling.Options.MinSamples
	required   bool // x is a required column
	// hostless: host may be missing, and some rows have none (their own
	// partition, keyed missing).
	hostless bool
	// maxEvents and maxAge (ms) are the series' retention, which must not
	// shorten the windows.
	maxEvents int
	maxAge    int64
	// partMaxEvents and partMaxAge (ms), partitioned only, are the
	// partitions' own retention (zero inherits the series'), which only
	// decides what a rolling built after the prefill starts from.
	partMaxEvents int
	partMaxAge    int64
	// huge: x mixes values near the top of the float64 range (which sum
	// beyond it) with small ones (see makeHuge).
	huge bool
	// idleTTL (ms), partitioned only, removes at the end of a push the
	// undeclared partitions whose latest row is more than idleTTL older
	// than the latest row routed; the model needs the pushes then.
	idleTTL int64
	// prefill rows are pushed before the rolling is built, which starts
	// from those its source holds then (replayed in arrival order) and
	// emits nothing for them.
	prefill int
	rows    []arow
}

// modelRow is one emitted row: its time (ms), its partition key ("" when
// not partitioned) and its output cells.
type modelRow struct {
	t    int64
	key  string
	vals []schema.Value
	// slack is, per cell, an absolute error the engine's own numerics
	// allow on top of the comparison's (a stdev's; see stdevSlack).
	slack []float64
}

func (r modelRow) String() string { return fmt.Sprintf("%dms %q %v", r.t, r.key, r.vals) }

var oracleNumberReducers = append(slices.Clone(numberReducers),
	reduce.Percentile(0), reduce.Percentile(37.5), reduce.Percentile(100), reduce.Percentile(99.9))

// newRollCase draws a configuration and a stream.
func newRollCase(rng *rand.Rand) rollCase {
	var c rollCase
	switch rng.IntN(4) {
	case 1:
		c.ordering = live.Drop
	case 2:
		c.ordering = live.Reorder
		c.grace = []int64{0, 100, 400, 1500}[rng.IntN(4)]
	}
	c.by = rng.IntN(3) != 0
	c.trig = rng.IntN(3)
	if c.by && rng.IntN(2) == 0 {
		c.trig = trigClock // the synchronised tick is the point
	}
	c.n = 1 + rng.IntN(4)
	c.step = []int64{100, 200, 300, 500, 1000}[rng.IntN(5)]
	c.anchor = rng.Int64N(c.step)
	c.windows = drawWindows(rng)
	count := c.windows[0].Count > 0
	if rng.IntN(4) == 0 {
		c.minSamples = 1 + rng.IntN(3)
		if count {
			c.minSamples = min(c.minSamples, c.windows[0].Count)
		}
	}
	c.required = rng.IntN(3) == 0
	c.hostless = c.by && rng.IntN(5) == 0
	keys := 1 + rng.IntN(5)
	if c.by && rng.IntN(4) == 0 {
		// Declare every key, shuffled, and sometimes one that never comes.
		for k := range keys {
			c.groups = append(c.groups, fmt.Sprintf("h%d", k))
		}
		if rng.IntN(2) == 0 {
			c.groups = append(c.groups, "quiet")
		}
		if c.hostless {
			c.groups = append(c.groups, missingKey)
		}
		rng.Shuffle(len(c.groups), func(i, j int) { c.groups[i], c.groups[j] = c.groups[j], c.groups[i] })
	}
	c.rows = c.genRows(rng, keys)
	switch rng.IntN(5) {
	case 0:
		c.maxEvents = 1 + rng.IntN(50)
	case 1:
		c.maxAge = max(c.grace, []int64{100, 1000, 3000}[rng.IntN(3)])
	}
	if rng.IntN(4) == 0 {
		c.prefill = rng.IntN(len(c.rows))
	}
	if c.by && rng.IntN(5) == 0 {
		c.idleTTL = []int64{1, 200, 1000}[rng.IntN(3)]
	}
	if c.by && rng.IntN(4) == 0 {
		c.partMaxEvents = rng.IntN(10)
		if c.ordering != live.Reorder || c.grace > 0 {
			c.partMaxAge = []int64{0, c.grace + 100, 1000}[rng.IntN(3)]
		}
	}
	switch rng.IntN(8) {
	case 0:
		c.makeHuge(rng)
	case 1:
		c.makeOutliers(rng)
	}
	return c
}

// makeOutliers draws the case's values of x as small integers, zeros
// among them, and now and then a value of either sign between 1e14 and
// 1e16: far beyond the small ones' magnitude band, so that a window whose
// outliers have left holds small values alone, and its deviation must
// be theirs, without the rounding residue of the outliers' squares.
func (c *rollCase) makeOutliers(rng *rand.Rand) {
	drawX(c.rows, func() float64 { return drawOutlier(rng) })
}

// drawOutlier is one value of makeOutliers.
func drawOutlier(rng *rand.Rand) float64 {
	if rng.IntN(3) == 0 {
		return math.Copysign(1e14+rng.Float64()*9.9e15, rng.NormFloat64())
	}
	return float64(rng.IntN(10))
}

// hugeValues are makeHuge's values of x: near the top of the float64
// range, where two can sum beyond it and the sums of others come back
// into it, and small ones. Sums of any of them in a window are exact in
// the engine (within 106 bits of each other in their bands).
var hugeValues = []float64{1.7e308, -1.7e308, 1e300, -1e300, math.MaxFloat64, 5e307, 1, -2.5, 3, 0}

// makeHuge draws the case's values of x from hugeValues, and makes its
// aggregates over x fit them (hugeAggs).
func (c *rollCase) makeHuge(rng *rand.Rand) {
	c.huge = true
	drawHuge(c.rows, c.windows, rng)
}

// drawHuge draws the values of x of rows from hugeValues, and makes the
// aggregates over x of windows fit them (hugeAggs).
func drawHuge(rows []arow, windows []rolling.Window, rng *rand.Rand) {
	drawX(rows, func() float64 { return hugeValues[rng.IntN(len(hugeValues))] })
	hugeAggs(windows)
}

// drawX sets the values of x of the rows that have one from draw.
func drawX(rows []arow, draw func() float64) {
	for i := range rows {
		if rows[i].xOK {
			rows[i].x = draw()
		}
	}
}

// hugeAggs turns the reducers over x that interpolate or subtract
// (difference, median, percentiles), whose arithmetic over hugeValues the
// oracles do not follow, into sums and means.
func hugeAggs(windows []rolling.Window) {
	for w := range windows {
		for k, a := range windows[w].Aggs {
			switch reducers.SpecOf(a.Using).Op {
			case reducers.OpDifference, reducers.OpMedian, reducers.OpPercentile:
				if a.From == "x" {
					windows[w].Aggs[k].Using = []reduce.Reducer{reduce.Sum, reduce.Avg}[k%2]
				}
			}
		}
	}
}

// drawWindows draws one count window or one to three time windows, each
// with one to six outputs over the number, string or array column.
func drawWindows(rng *rand.Rand) []rolling.Window {
	arrays := rng.IntN(4) == 0
	count := rng.IntN(5) == 0
	nw := 1 + rng.IntN(3)
	if count {
		nw = 1
	}
	var windows []rolling.Window
	out := 0
	for w := range nw {
		win := rolling.Window{Name: fmt.Sprintf("w%d", w)}
		if count {
			win.Count = 1 + rng.IntN(20)
		} else {
			win.Span = time.Duration(50*(1+rng.Int64N(40))) * time.Millisecond
		}
		for range 1 + rng.IntN(6) {
			a := reduce.Agg{Out: fmt.Sprintf("o%d", out)}
			out++
			switch {
			case arrays && rng.IntN(3) == 0:
				a.From, a.Using = "a", arrayReducers[rng.IntN(len(arrayReducers))]
			case rng.IntN(4) == 0:
				a.From, a.Using = "s", stringReducers[rng.IntN(len(stringReducers))]
			default:
				a.From, a.Using = "x", oracleNumberReducers[rng.IntN(len(oracleNumberReducers))]
			}
			win.Aggs = append(win.Aggs, a)
		}
		if rng.IntN(5) == 0 {
			win.MinSamples = rolling.Samples(rng.IntN(4))
			if count {
				*win.MinSamples = min(*win.MinSamples, win.Count)
			}
		}
		windows = append(windows, win)
	}
	return windows
}

// genRows draws a stream in time order, with runs of rows at one time
// (several keys at a boundary), gaps, and under drop and reorder some
// late rows (within the grace, or up to 2 s late without one).
func (c *rollCase) genRows(rng *rand.Rand, keys int) []arow {
	base := []float64{0, 1000, 1e6, 1e12}[rng.IntN(4)]
	// A narrow spread over a large base puts the stdev on the engine's
	// double-double path, and sometimes under its zero threshold.
	spread := []float64{1000, 1000, 1000, 3}[rng.IntN(4)]
	t := int64(rng.IntN(2000)) - 1000
	spacing := []int64{60, 60, 20, 4}[rng.IntN(4)]
	var rows []arow
	for i := range 60 + rng.IntN(200) {
		switch rng.IntN(40) {
		case 0:
			t += rng.Int64N(3000) // a gap
		case 1, 2, 3:
			// a run at one time
		default:
			t += rng.Int64N(spacing)
		}
		rt := t
		switch {
		case c.ordering == live.Drop && rng.IntN(8) == 0:
			rt = t - rng.Int64N(300) // dropped unless at the latest time
		case c.ordering == live.Reorder && rng.IntN(4) == 0:
			lag := c.grace
			if lag == 0 {
				lag = 2000
			}
			rt = t - rng.Int64N(lag+1) // t is the latest time
		}
		r := arow{t: rt, host: fmt.Sprintf("h%d", rng.IntN(keys)), index: i}
		r.noHost = c.hostless && rng.IntN(4) == 0
		if c.required || rng.IntN(10) != 0 {
			r.x, r.xOK = base+math.Round(rng.NormFloat64()*spread)/64, true
		}
		if rng.IntN(10) != 0 {
			r.s, r.sOK = string(rune('a'+rng.IntN(4))), true
		}
		if rng.IntN(5) != 0 {
			r.arr = []schema.Value{}
			for range rng.IntN(3) {
				r.arr = append(r.arr, schema.NumberValue(float64(rng.IntN(3))))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// build makes the series and its partitioning, pushes the prefill, and
// builds the rolling.
func (c *rollCase) build(workers int) (*live.Series, live.NodeID, error) {
	sch := alignedSchema
	if c.required {
		sch = alignedRequired
	}
	if c.hostless {
		sch = hostlessSchema
	}
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	s, err := live.New("oracle", sch, live.Options{Ordering: c.ordering, Grace: ms(c.grace),
		MaxEvents: c.maxEvents, MaxAge: ms(c.maxAge), Workers: workers})
	if err != nil {
		return nil, 0, err
	}
	src := s.Root()
	if c.by {
		groups := partition.Strings(c.groups...)
		for i, g := range c.groups {
			if g == missingKey {
				groups[i] = schema.Value{} // the partition of rows without a host
			}
		}
		src, err = s.PartitionBy(src, "host", partition.Options{Groups: groups, IdleTTL: ms(c.idleTTL),
			MaxEvents: c.partMaxEvents, MaxAge: ms(c.partMaxAge)})
		if err != nil {
			return nil, 0, err
		}
	}
	if c.prefill > 0 {
		var batch []schema.Row
		for _, r := range c.rows[:c.prefill] {
			batch = append(batch, r.row())
		}
		if _, err := s.PushRows(nil, batch...); err != nil {
			return nil, 0, err
		}
	}
	opts := rolling.Options{MinSamples: c.minSamples}
	switch c.trig {
	case trigCount:
		opts.Trigger = trigger.Count(c.n)
	case trigClock:
		opts.Trigger = trigger.Clock(sequence.Every(time.Duration(c.step) * time.Millisecond).
			WithAnchorNanos(c.anchor * int64(time.Millisecond)))
	}
	r, err := s.Rolling(src, c.windows, opts)
	if err != nil {
		return nil, 0, err
	}
	return s, r, s.Watch(r)
}

// model returns, for each row of the stream, the rows the rolling emits
// while taking it in (none for a dropped row), when the rows after the
// prefill are pushed in batches of the sizes in cuts.
func (c *rollCase) model(cuts []int) [][]modelRow {
	out := make([][]modelRow, len(c.rows))
	ends := map[int]bool{c.prefill - 1: true} // the last rows of pushes
	for i, n := c.prefill, 0; n < len(cuts); n++ {
		i += cuts[n]
		ends[i-1] = true
	}
	declared := map[string]bool{}
	parts := map[string]*modelPart{}
	var keys []string
	for _, g := range c.groups {
		parts[g] = &modelPart{gone: make([]int, len(c.windows))}
		keys = append(keys, g)
		declared[g] = true
	}
	counts := map[string]int{}
	started := false
	var lastIdx, latest int64
	held := c.heldAtBuild()
	// The partitions of the rows held when the rolling is built join it
	// in the order the partitioning first saw them (that of their first
	// accepted rows, held or not), as if it had been there from the
	// start; the others join at their next row.
	inHeld := map[string]bool{}
	for i, r := range c.rows[:c.prefill] {
		if held[i] && c.by {
			inHeld[r.key()] = true
		}
	}
	for i, r := range c.rows[:c.prefill] {
		if c.ordering == live.Drop && i > 0 && r.t < latest {
			continue
		}
		latest = max(latest, r.t)
		if i == 0 {
			latest = r.t
		}
		if k := r.key(); inHeld[k] && parts[k] == nil {
			parts[k] = &modelPart{gone: make([]int, len(c.windows))}
			keys = append(keys, k)
		}
	}
	latest = 0
	for i, r := range c.rows {
		if c.idleTTL > 0 && i > 0 && ends[i-1] {
			keys = c.expire(keys, parts, counts, declared, latest)
		}
		if c.ordering == live.Drop && i > 0 && r.t < latest {
			continue
		}
		latest = max(latest, r.t)
		if i == 0 {
			latest = r.t
		}
		if i < c.prefill && !held[i] {
			continue // retention let it go before the rolling was built
		}
		k := ""
		if c.by {
			k = r.key()
		}
		p := parts[k]
		if p == nil {
			p = &modelPart{gone: make([]int, len(c.windows))}
			parts[k] = p
			keys = append(keys, k)
		}
		// Add, then evict against the row's own time (§4.3, §6.4 step 1).
		p.rows = append(p.rows, r)
		p.latest = max(p.latest, r.t)
		if len(p.rows) == 1 {
			p.latest = r.t
		}
		c.evict(p, r.t)
		switch c.trig {
		case trigEvent:
			out[i] = append(out[i], c.eval(r.t, k, p))
		case trigCount:
			counts[k]++
			if counts[k] == c.n {
				counts[k] = 0
				out[i] = append(out[i], c.eval(r.t, k, p))
			}
		case trigClock:
			idx := floorDiv(r.t-c.anchor, c.step)
			if !started {
				started, lastIdx = true, idx
				continue
			}
			if idx <= lastIdx {
				continue
			}
			lastIdx = idx
			// Every partition known now, evicted against the crossing
			// row's time, keyed at the boundary (§6.4 emitTick).
			for _, k := range keys {
				c.evict(parts[k], r.t)
				out[i] = append(out[i], c.eval(c.anchor+idx*c.step, k, parts[k]))
			}
		}
	}
	return out
}

// missingKey is the key of the partition of rows without a host.
const missingKey = "(missing)"

// key is the row's partition key.
func (r arow) key() string {
	if r.noHost {
		return missingKey
	}
	return r.host
}

// hostlessSchema is alignedSchema with host optional.
var hostlessSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "host", Kind: schema.String, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
)

// heldAtBuild returns the prefill rows the rolling's source holds when
// it is built, by arrival index: the accepted ones that the retention
// keeps — the series' (MaxEvents the newest by time, MaxAge from the
// latest time), or, partitioned, each partition's, field by field its
// own or else the series' (MaxAge from the partition's latest time).
func (c *rollCase) heldAtBuild() map[int]bool {
	byKey := map[string][]arow{}
	var latest int64
	for i, r := range c.rows[:c.prefill] {
		if c.ordering == live.Drop && i > 0 && r.t < latest {
			continue
		}
		if i == 0 || r.t > latest {
			latest = r.t
		}
		k := ""
		if c.by {
			k = r.key()
		}
		byKey[k] = append(byKey[k], r)
	}
	maxEvents, maxAge := c.maxEvents, c.maxAge
	if c.partMaxEvents > 0 {
		maxEvents = c.partMaxEvents
	}
	if c.partMaxAge > 0 {
		maxAge = c.partMaxAge
	}
	held := map[int]bool{}
	for _, rows := range byKey {
		// In time order, ties by arrival, as a series keeps them.
		slices.SortStableFunc(rows, func(a, b arow) int { return cmp.Compare(a.t, b.t) })
		if maxEvents > 0 && len(rows) > maxEvents {
			rows = rows[len(rows)-maxEvents:]
		}
		for _, r := range rows {
			if maxAge == 0 || r.t >= rows[len(rows)-1].t-maxAge {
				held[r.index] = true
			}
		}
	}
	return held
}

// modelPart is what the model holds of a partition: every row it took,
// in arrival order, and for each time window how many of them have left
// its front.
type modelPart struct {
	rows   []arow
	gone   []int
	latest int64 // the latest time of rows
}

// expire removes, at the end of a push, the partitions IdleTTL lets go
// (partition.Options): undeclared ones whose latest row is more than
// idleTTL older than latest, the latest row routed. A later row of their
// key starts a new partition, at the end of the order.
func (c *rollCase) expire(keys []string, parts map[string]*modelPart, counts map[string]int, declared map[string]bool, latest int64) []string {
	return slices.DeleteFunc(keys, func(k string) bool {
		p := parts[k]
		if declared[k] || len(p.rows) == 0 || p.latest >= latest-c.idleTTL {
			return false
		}
		delete(parts, k)
		delete(counts, k)
		return true
	})
}

// evict lets the front of each time window go while its oldest row by
// arrival is older than at − span (§4.3: eviction is from the front of
// the arrival-ordered deque and stops at the first row still inside, so
// under reorder a late row stays until the rows before it have left).
// With rows in time order (strict, drop) each window is then exactly the
// rows in [at − span, at].
func (c *rollCase) evict(p *modelPart, at int64) {
	for w, win := range c.windows {
		if win.Count > 0 {
			continue
		}
		for p.gone[w] < len(p.rows) && p.rows[p.gone[w]].t < at-win.Span.Milliseconds() {
			p.gone[w]++
		}
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// eval returns the row keyed t of partition key: every output of every
// window over the rows it holds (in arrival order).
func (c *rollCase) eval(t int64, key string, p *modelPart) modelRow {
	row := modelRow{t: t, key: key}
	for w, win := range c.windows {
		in := p.rows[p.gone[w]:]
		if win.Count > 0 {
			in = p.rows[max(0, len(p.rows)-win.Count):]
		}
		ms := c.minSamples
		if win.MinSamples != nil {
			ms = *win.MinSamples
		}
		for _, a := range win.Aggs {
			v, slack := schema.Value{}, 0.0
			if len(in) >= ms {
				v, slack = modelAgg(a, in)
			}
			row.vals = append(row.vals, v)
			row.slack = append(row.slack, slack)
		}
	}
	return row
}

// cell is the value of column from in row r.
func (r arow) cell(from string) schema.Value {
	switch from {
	case "s":
		return r.row()[2]
	case "a":
		return r.row()[4]
	}
	return r.row()[1]
}

// modelAgg computes one output over rows in arrival order: every reducer
// the spec defines by its rule, except keep, unique and top, which the
// aligned oracle's refAgg computes through a bucket. The float64 is the
// slack of a stdev.
func modelAgg(a reduce.Agg, rows []arow) (schema.Value, float64) {
	if reducers.SpecOf(a.Using).Op == reducers.OpStdev {
		return modelStdev(a, rows)
	}
	return modelValue(a, rows)
}

func modelStdev(a reduce.Agg, rows []arow) (schema.Value, float64) {
	var xs []float64
	for _, r := range rows {
		if x, ok := r.cell(a.From).Num(); ok {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return schema.Value{}, 0
	}
	for _, x := range xs {
		if math.Abs(x) >= 0x1p500 {
			// Its square is beyond what the sums keep: missing while
			// it is held (reduce's package doc).
			return schema.Value{}, 0
		}
	}
	sd := exact.Stdev(xs)
	mean := exact.Mean(xs)
	return schema.NumberValue(sd), stdevSlack(sd, mean)
}

// stdevSlack is the error the engine's stdev may have beyond rounding
// (internal/reducers Moments.Stdev, √(Σx²/n − mean²)). Where the
// variance is at least 1e-3 of the squared mean the subtraction is in
// float64 and loses a few ulps of mean², under 1e-12 of the variance;
// below, it is in double-double and loses a few of its ulps,
// 2^-100 of mean²; and a spread under 2^-50 of the mean is taken for
// rounding residue and reported as 0. The deviation is off by the
// variance's error over 2·sd.
func stdevSlack(sd, mean float64) float64 {
	sq := mean*mean + sd*sd
	switch {
	case sd == 0:
		return 0
	case sd*sd >= 1e-3*mean*mean:
		return 0x1p-50 * sq / (2 * sd)
	case sd <= 0x1p-49*math.Abs(mean):
		return sd
	}
	return 0x1p-100 * sq / (2 * sd)
}

func modelValue(a reduce.Agg, rows []arow) (schema.Value, float64) {
	var vals []schema.Value
	var xs []float64
	for _, r := range rows {
		v := r.cell(a.From)
		if v.IsMissing() {
			continue
		}
		vals = append(vals, v)
		if x, ok := v.Num(); ok {
			xs = append(xs, x)
		}
	}
	spec := reducers.SpecOf(a.Using)
	switch spec.Op {
	case reducers.OpCount:
		return schema.NumberValue(float64(len(vals))), 0
	case reducers.OpSum:
		s := exact.SumFloat(xs)
		if math.IsInf(s, 0) {
			return schema.Value{}, 0 // beyond the float64 range: missing
		}
		return schema.NumberValue(s), 0
	case reducers.OpAvg:
		if len(xs) == 0 {
			return schema.Value{}, 0
		}
		m := exact.Mean(xs)
		return schema.NumberValue(m), 0
	case reducers.OpStdev:
		if len(xs) == 0 {
			return schema.Value{}, 0
		}
		return schema.NumberValue(exact.Stdev(xs)), 0
	case reducers.OpMin, reducers.OpMax, reducers.OpDifference:
		if len(xs) == 0 {
			return schema.Value{}, 0
		}
		lo, hi := slices.Min(xs), slices.Max(xs)
		switch spec.Op {
		case reducers.OpMin:
			return schema.NumberValue(lo), 0
		case reducers.OpMax:
			return schema.NumberValue(hi), 0
		}
		return schema.NumberValue(hi - lo), 0
	case reducers.OpFirst, reducers.OpLast:
		if len(vals) == 0 {
			return schema.Value{}, 0
		}
		if spec.Op == reducers.OpFirst {
			return vals[0], 0
		}
		return vals[len(vals)-1], 0
	case reducers.OpMedian, reducers.OpPercentile:
		if len(xs) == 0 {
			return schema.Value{}, 0
		}
		q := spec.Q
		if spec.Op == reducers.OpMedian {
			q = 50
		}
		return schema.NumberValue(linearPercentile(xs, q)), 0
	case reducers.OpSamples:
		flat := []schema.Value{}
		for _, v := range vals {
			if arr, ok := v.Array(); ok {
				flat = append(flat, arr...)
				continue
			}
			flat = append(flat, v)
		}
		return schema.ArrayValue(flat...), 0
	}
	return refAgg(a, rows), 0
}

// linearPercentile is the spec's rule (§8.3): rank = q/100·(n−1), and
// the linear interpolation between the neighbours of rank.
func linearPercentile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := q / 100 * float64(len(s)-1)
	lo, hi := int(math.Floor(rank)), int(math.Ceil(rank))
	if lo == hi {
		return s[lo]
	}
	return s[lo] + (s[hi]-s[lo])*(rank-float64(lo))
}
