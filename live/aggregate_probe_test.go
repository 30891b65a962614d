package live_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// The aggregate and reduce probes: seeded random streams (equal times,
// late rows under drop and reorder, gaps of many buckets, sequences
// anchored off zero, series and partition retention) pushed one row at a
// time or in batches of up to 40 rows, through an aggregate, a reduce
// under event, count and clock triggers, over the root or a partitioning;
// every emitted row, every Value, AggregateStats, Stats, Len and Snapshot
// between pushes is compared with a model written from the docs.

// agSchema has an optional number v, string s and array a, and a host.
var agSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
)

// agRow is a pushed row; seq is its arrival index.
type agRow struct {
	t       int64 // ns
	v, s, a schema.Value
	host    string
	seq     int
}

func (r agRow) row() schema.Row {
	return schema.Row{schema.NanosValue(r.t), r.v, r.s, r.a, schema.StringValue(r.host)}
}

func (r agRow) cell(col string) schema.Value {
	switch col {
	case "v":
		return r.v
	case "s":
		return r.s
	}
	return r.a
}

// agNumReds are the reducers of the number column; agAnyReds those of the
// string and array columns.
var agNumReds = []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Min, reduce.Max, reduce.First,
	reduce.Last, reduce.Difference, reduce.Median, reduce.Percentile(10), reduce.Percentile(95), reduce.Stdev,
	reduce.Keep, reduce.Unique, reduce.Top(2), reduce.Samples}
var agAnyReds = []reduce.Reducer{reduce.Count, reduce.First, reduce.Last, reduce.Keep, reduce.Unique,
	reduce.Top(1), reduce.Top(2), reduce.Samples}

// agAllAggs are every reducer over every column.
func agAllAggs() []reduce.Agg {
	var aggs []reduce.Agg
	for _, red := range agNumReds {
		aggs = append(aggs, reduce.Agg{Out: "v_" + red.String(), From: "v", Using: red})
	}
	for _, c := range []string{"s", "a"} {
		for _, red := range agAnyReds {
			aggs = append(aggs, reduce.Agg{Out: c + "_" + red.String(), From: c, Using: red})
		}
	}
	return aggs
}

// agWants computes the documented results of aggs over rows (in arrival
// order).
func agWants(aggs []reduce.Agg, rows []agRow) []schema.Value {
	models := map[string]*strpModel{}
	out := make([]schema.Value, len(aggs))
	var xs, sorted []float64
	numDone := false
	for k, a := range aggs {
		vals := make([]schema.Value, len(rows))
		for i, r := range rows {
			vals[i] = r.cell(a.From)
		}
		if a.From == "v" && !numDone {
			numDone = true
			for _, v := range vals {
				if x, ok := v.Num(); ok {
					xs = append(xs, x)
				}
			}
			sorted = slices.Clone(xs)
			slices.Sort(sorted)
		}
		if w, ok := agNumWant(a, xs, sorted); ok {
			out[k] = w
			continue
		}
		m := models[a.From]
		if m == nil {
			first, last := strpFirstLast(vals)
			m = strpModelOf(vals, first, last)
			models[a.From] = m
		}
		out[k] = m.want(a.Using)
	}
	return out
}

// agNumWant returns the result of a numeric reducer over xs (arrival
// order; sorted: the same, sorted), and false for another reducer.
func agNumWant(a reduce.Agg, xs, sorted []float64) (schema.Value, bool) {
	if a.From != "v" {
		return schema.Value{}, false
	}
	num := func(x float64, ok bool) schema.Value {
		if !ok {
			return schema.Value{}
		}
		return schema.NumberValue(x)
	}
	n := float64(len(xs))
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	pct := func(q float64) schema.Value {
		if len(sorted) == 0 {
			return schema.Value{}
		}
		rank := q / 100 * float64(len(sorted)-1)
		lo, hi := int(math.Floor(rank)), int(math.Ceil(rank))
		if lo == hi {
			return schema.NumberValue(sorted[lo])
		}
		return schema.NumberValue(sorted[lo] + (sorted[hi]-sorted[lo])*(rank-float64(lo)))
	}
	switch a.Using {
	case reduce.Sum:
		return schema.NumberValue(sum), true
	case reduce.Avg:
		return num(sum/n, n > 0), true
	case reduce.Min:
		return num(slices.Min(append(slices.Clip(sorted), math.Inf(1))), n > 0), true
	case reduce.Max:
		return num(slices.Max(append(slices.Clip(sorted), math.Inf(-1))), n > 0), true
	case reduce.Difference:
		if n == 0 {
			return schema.Value{}, true
		}
		return schema.NumberValue(sorted[len(sorted)-1] - sorted[0]), true
	case reduce.Median:
		return pct(50), true
	case reduce.Percentile(10):
		return pct(10), true
	case reduce.Percentile(95):
		return pct(95), true
	case reduce.Stdev:
		if n == 0 {
			return schema.Value{}, true
		}
		m, ss := sum/n, 0.0
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		return schema.NumberValue(math.Sqrt(ss / n)), true
	}
	return schema.Value{}, false
}

// agSame compares a cell with the model's: numbers by value (within 1e-9
// for a standard deviation), the rest as strpSame.
func agSame(red reduce.Reducer, got, want schema.Value) bool {
	if want.Kind() == schema.Number && red != reduce.Keep && red != reduce.First && red != reduce.Last {
		x, ok := got.Num()
		if !ok {
			return false
		}
		y, _ := want.Num()
		if red == reduce.Stdev {
			return math.Abs(x-y) <= 1e-9*max(1, math.Abs(y))
		}
		return x == y
	}
	return strpSame(red, got, want)
}

// agCheckRow compares row i of tab with the reduction of rows keyed at
// key; it returns "" or what differs.
//
// A window's keep of zeros is 0 (package reduce, "keep"): a reduce's
// is compared by value (window true), a bucket's by its bits.
func agCheckRow(tab *schema.Table, i int, aggs []reduce.Agg, key int64, rows []agRow, window bool) string {
	if got := tab.TimeNanos(i); got != key {
		return fmt.Sprintf("row %d at %d, want %d", i, got, key)
	}
	wants := agWants(aggs, rows)
	for k, a := range aggs {
		want := wants[k]
		got := tab.Value(i, k+1)
		if window && a.Using == reduce.Keep && want.Kind() == schema.Number {
			x, ok := got.Num()
			y, _ := want.Num()
			if !ok || x != y {
				return fmt.Sprintf("row %d at %d: %s = %v, want %v (over %d rows)", i, key, a.Out, got, want, len(rows))
			}
			continue
		}
		if !agSame(a.Using, got, want) {
			return fmt.Sprintf("row %d at %d: %s = %v, want %v (over %d rows)", i, key, a.Out, got, want, len(rows))
		}
	}
	return ""
}

// agSeriesModel models a series' ordering and retention, and a
// partitioning's rows.
type agSeriesModel struct {
	ord                 live.Ordering
	grace, maxAge       int64
	maxEvents           int
	held                []agRow // time order, then arrival
	latest              int64
	has                 bool
	ingested, rejected  uint64
	evicted             uint64
	part                bool
	pMaxEvents, pMaxAge int64
	parts               map[string][]agRow // time order, then arrival
}

// accept returns the rows of a push the series accepts, in arrival order,
// and false when the push is rejected (a row beyond the grace).
func (m *agSeriesModel) accept(rows []agRow) ([]agRow, bool) {
	latest, has := m.latest, m.has
	var acc []agRow
	dropped := 0
	for _, r := range rows {
		if has && r.t < latest {
			switch m.ord {
			case live.Strict:
				return nil, false
			case live.Drop:
				dropped++
				continue
			case live.Reorder:
				if m.grace > 0 && latest-r.t > m.grace {
					return nil, false
				}
			}
		}
		if !has || r.t > latest {
			latest, has = r.t, true
		}
		acc = append(acc, r)
	}
	m.latest, m.has = latest, has
	m.rejected += uint64(dropped)
	m.ingested += uint64(len(acc))
	for _, r := range acc {
		m.held = agInsert(m.held, r)
		if m.part {
			m.parts[r.host] = agInsert(m.parts[r.host], r)
		}
	}
	m.held, m.evicted = agRetain(m.held, m.maxEvents, m.maxAge, m.latest, m.evicted)
	for h, p := range m.parts {
		me, ma := int(m.pMaxEvents), m.pMaxAge
		if me == 0 {
			me = m.maxEvents
		}
		if ma == 0 {
			ma = m.maxAge
		}
		pl := int64(math.MinInt64)
		for _, r := range p {
			pl = max(pl, r.t)
		}
		m.parts[h], _ = agRetain(p, me, ma, pl, 0)
	}
	return acc, true
}

func agInsert(rows []agRow, r agRow) []agRow {
	i := len(rows)
	for i > 0 && rows[i-1].t > r.t {
		i--
	}
	return slices.Insert(rows, i, r)
}

// agRetain applies a retention to rows in time order.
func agRetain(rows []agRow, maxEvents int, maxAge, latest int64, evicted uint64) ([]agRow, uint64) {
	cut := 0
	if maxAge > 0 {
		for cut < len(rows) && rows[cut].t < latest-maxAge {
			cut++
		}
	}
	if maxEvents > 0 && len(rows)-cut > maxEvents {
		cut = len(rows) - maxEvents
	}
	return rows[cut:], evicted + uint64(cut)
}

// source returns the rows the aggregate's or reduce's source holds now, in
// arrival order (first and last are the earliest and latest arrived).
func (m *agSeriesModel) source() []agRow {
	out := slices.Clone(m.held)
	if m.part {
		out = nil
		for _, p := range m.parts {
			out = append(out, p...)
		}
	}
	slices.SortFunc(out, func(a, b agRow) int { return a.seq - b.seq })
	return out
}

// agAggModel models an aggregate from its doc.
type agAggModel struct {
	seq         sequence.Sequence
	grace       int64
	wm          int64
	hasWM       bool
	open        map[int64][]agRow
	observed    uint64
	dropped     uint64
	closed      uint64
	emittedKeys []int64
	emittedRows [][]agRow
}

func (m *agAggModel) start(t int64) int64 { return m.seq.Start(t) }

func agKey(start int64) int64 { return max(start, schema.MinTime) }

// add takes one row in.
func (m *agAggModel) add(r agRow) {
	if !m.hasWM || r.t > m.wm {
		m.wm, m.hasWM = r.t, true
	}
	cut := m.wm - m.grace
	step := int64(m.seq.Step())
	st := m.start(r.t)
	if st+step <= cut {
		m.dropped++
		return
	}
	m.open[st] = append(m.open[st], r)
	m.observed++
	for _, s := range m.starts() {
		if s+step > cut {
			break
		}
		m.emittedKeys = append(m.emittedKeys, agKey(s))
		m.emittedRows = append(m.emittedRows, m.open[s])
		delete(m.open, s)
		m.closed++
	}
}

func (m *agAggModel) starts() []int64 {
	var ss []int64
	for s := range m.open {
		ss = append(ss, s)
	}
	slices.Sort(ss)
	return ss
}

// agCfg is one probe configuration.
type agCfg struct {
	ord         live.Ordering
	grace       time.Duration // the series'
	aggGrace    time.Duration
	maxEvents   int
	maxAge      time.Duration
	part        bool
	pMaxEvents  int
	step        time.Duration
	anchor      int64
	base        int64
	rows        int
	hosts       int
	maxGap      int64 // ms
	late        int   // per cent of rows drawn late
	lateBy      int64 // ms, at most
	batch       int   // largest push (1: row by row)
	buildAt     int   // pushes before the aggregate is built
	trig        trigger.Trigger
	trigName    string
	aggSubset   bool
	beyondGrace bool // sometimes push a row beyond the series' grace
}

func (c agCfg) String() string {
	return fmt.Sprintf("ord=%v grace=%v aggGrace=%v maxEvents=%d maxAge=%v part=%v pMaxEvents=%d step=%v anchor=%d base=%d rows=%d hosts=%d gap=%d late=%d/%d batch=%d buildAt=%d trig=%s",
		c.ord, c.grace, c.aggGrace, c.maxEvents, c.maxAge, c.part, c.pMaxEvents, c.step, c.anchor, c.base, c.rows, c.hosts, c.maxGap, c.late, c.lateBy, c.batch, c.buildAt, c.trigName)
}

func agDraw(rng *rand.Rand) agCfg {
	var c agCfg
	c.ord = []live.Ordering{live.Strict, live.Drop, live.Reorder}[rng.IntN(3)]
	c.step = time.Duration(1+rng.IntN(20)) * time.Millisecond
	if c.ord == live.Reorder && rng.IntN(4) > 0 {
		c.grace = time.Duration(1+rng.IntN(40)) * time.Millisecond
	}
	if rng.IntN(3) == 0 {
		c.aggGrace = time.Duration(1+rng.IntN(40)) * time.Millisecond
	}
	if rng.IntN(3) == 0 {
		c.maxEvents = 1 + rng.IntN(30)
	}
	if rng.IntN(3) == 0 {
		c.maxAge = c.grace + time.Duration(rng.IntN(60))*time.Millisecond
		if c.maxAge == 0 {
			c.maxAge = time.Millisecond
		}
	}
	c.part = rng.IntN(3) == 0
	if c.part && rng.IntN(2) == 0 {
		c.pMaxEvents = 1 + rng.IntN(5)
	}
	switch rng.IntN(4) {
	case 0:
		c.anchor = 0
	case 1:
		c.anchor = rng.Int64N(int64(c.step)) + 1
	default:
		c.anchor = rng.Int64N(1 << 40)
	}
	switch rng.IntN(6) {
	case 0:
		c.base = schema.MinTime + rng.Int64N(int64(c.step))
	case 1:
		c.base = -rng.Int64N(1 << 40)
	default:
		c.base = rng.Int64N(1 << 40)
	}
	c.rows = 20 + rng.IntN(100)
	c.hosts = 1 + rng.IntN(4)
	c.maxGap = []int64{0, 1, 3, 10, 50}[rng.IntN(5)]
	if c.ord != live.Strict {
		c.late = []int{0, 5, 20, 50}[rng.IntN(4)]
		c.lateBy = 1 + rng.Int64N(60)
	}
	c.batch = []int{1, 1, 3, 10, 40}[rng.IntN(5)]
	c.buildAt = 0
	if rng.IntN(4) == 0 {
		c.buildAt = 1 + rng.IntN(5)
	}
	c.aggSubset = rng.IntN(3) == 0
	c.beyondGrace = c.ord == live.Reorder && c.grace > 0 && rng.IntN(3) == 0
	switch rng.IntN(4) {
	case 0:
		c.trigName = "event"
	case 1:
		n := 1 + rng.IntN(5)
		c.trig, c.trigName = trigger.Count(n), fmt.Sprintf("count%d", n)
	default:
		c.trig, c.trigName = trigger.Clock(sequence.Every(c.step).WithAnchorNanos(c.anchor)), "clock"
	}
	return c
}

// agStream draws the pushes of a case.
func agStream(rng *rand.Rand, c agCfg) [][]agRow {
	var rows []agRow
	t := c.base
	hi := t
	for i := range c.rows {
		if i > 0 {
			t += rng.Int64N(c.maxGap+1) * int64(time.Millisecond)
			if rng.IntN(20) == 0 {
				t += int64(c.step) * rng.Int64N(6)
			}
		}
		rt := t
		if c.late > 0 && rng.IntN(100) < c.late {
			rt = hi - rng.Int64N(c.lateBy+1)*int64(time.Millisecond)
			if c.ord == live.Reorder && c.grace > 0 && !c.beyondGrace {
				rt = max(rt, hi-int64(c.grace))
			}
			rt = max(rt, schema.MinTime)
		}
		if rt > hi {
			hi = rt
		}
		var v schema.Value
		if rng.IntN(6) > 0 {
			v = schema.NumberValue([]float64{0, math.Copysign(0, -1), 1, 2, -3, 7, 100, 0.5}[rng.IntN(8)])
		}
		s, _, a := strpMixes["pool"](rng, i)
		rows = append(rows, agRow{t: rt, v: v, s: s, a: a, host: fmt.Sprintf("h%d", rng.IntN(c.hosts)), seq: i})
	}
	var pushes [][]agRow
	for len(rows) > 0 {
		n := min(len(rows), 1+rng.IntN(c.batch))
		pushes = append(pushes, rows[:n])
		rows = rows[n:]
	}
	return pushes
}

func agRows(rows []agRow) []schema.Row {
	srs := make([]schema.Row, len(rows))
	for i, r := range rows {
		srs[i] = r.row()
	}
	return srs
}

// agRun runs one case of the aggregate and reduce probe; it returns the
// rows and values checked, and "" or the first discrepancy.
func agRun(t *testing.T, c agCfg, pushes [][]agRow, aggs []reduce.Agg) (checked int, fail string) {
	s, err := live.New("ag", agSchema, live.Options{Ordering: c.ord, Grace: c.grace, MaxEvents: c.maxEvents, MaxAge: c.maxAge})
	require.NoError(t, err)
	src := s.Root()
	sm := &agSeriesModel{ord: c.ord, grace: int64(c.grace), maxAge: int64(c.maxAge), maxEvents: c.maxEvents,
		part: c.part, pMaxEvents: int64(c.pMaxEvents), parts: map[string][]agRow{}}
	if c.part {
		src, err = s.PartitionBy(src, "host", partition.Options{MaxEvents: c.pMaxEvents})
		require.NoError(t, err)
	}
	seq := sequence.Every(c.step).WithAnchorNanos(c.anchor)
	grace := c.aggGrace
	if grace == 0 {
		grace = c.grace
	}
	am := &agAggModel{seq: seq, grace: int64(grace), open: map[int64][]agRow{}}
	var agg, red live.NodeID
	built := false
	// the reduce's model
	var redCount int
	var redBucket int64
	redHasBucket, redSeen := false, false
	var redLastT int64
	build := func() {
		agg, err = s.Aggregate(src, seq, aggs, c.aggGrace)
		require.NoError(t, err)
		red, err = s.Reduce(src, aggs, c.trig)
		require.NoError(t, err)
		require.NoError(t, s.Watch(agg, live.Event))
		require.NoError(t, s.Watch(red, live.Event))
		for _, r := range sm.source() {
			am.add(r)
		}
		am.closed, am.emittedKeys, am.emittedRows = 0, nil, nil
		// a reduce's replay: what it would emit is dropped, and the
		// trigger's state after it is not documented; only Value is
		// checked (the latest row that reached it), and triggers are
		// checked on cases built before the first push.
		if held := sm.source(); len(held) > 0 {
			redSeen = true
			redLastT = held[len(held)-1].t
		}
		built = true
	}
	if c.buildAt == 0 {
		build()
	}
	var outs []live.Output
	for pi, push := range pushes {
		if pi == c.buildAt && !built {
			build()
		}
		before := *sm
		acc, ok := sm.accept(push)
		outs, err = s.PushRows(outs[:0], agRows(push)...)
		if !ok {
			if err == nil {
				return checked, fmt.Sprintf("push %d: accepted, want an error (beyond grace)", pi)
			}
			*sm = before
			continue
		}
		if err != nil {
			return checked, fmt.Sprintf("push %d: %v", pi, err)
		}
		if !built {
			continue
		}
		// aggregate
		am.emittedKeys, am.emittedRows = nil, nil
		for _, r := range acc {
			am.add(r)
		}
		tab, _ := live.Find(outs, agg, live.Event)
		gotN := 0
		if tab != nil {
			gotN = tab.Len()
		}
		if gotN != len(am.emittedKeys) {
			return checked, fmt.Sprintf("push %d: aggregate emitted %d rows, want %d (keys %v)", pi, gotN, len(am.emittedKeys), am.emittedKeys)
		}
		for i := range gotN {
			if msg := agCheckRow(tab, i, aggs, am.emittedKeys[i], am.emittedRows[i], false); msg != "" {
				return checked, fmt.Sprintf("push %d: aggregate %s", pi, msg)
			}
			checked++
		}
		val, err := s.Value(agg)
		if err != nil {
			return checked, fmt.Sprintf("push %d: aggregate Value: %v", pi, err)
		}
		starts := am.starts()
		if val.Len() != len(starts) {
			return checked, fmt.Sprintf("push %d: aggregate Value has %d rows, want %d open buckets", pi, val.Len(), len(starts))
		}
		for i, st := range starts {
			if msg := agCheckRow(val, i, aggs, agKey(st), am.open[st], false); msg != "" {
				return checked, fmt.Sprintf("push %d: aggregate Value %s", pi, msg)
			}
			checked++
		}
		ast, err := s.AggregateStats(agg)
		require.NoError(t, err)
		want := live.AggregateStats{Observed: am.observed, Dropped: am.dropped, Closed: am.closed, Open: len(starts)}
		if ast != want {
			return checked, fmt.Sprintf("push %d: AggregateStats %+v, want %+v", pi, ast, want)
		}
		// series reads
		st := s.Stats()
		wst := live.Stats{Ingested: sm.ingested, Rejected: sm.rejected, Evicted: sm.evicted, Length: len(sm.held)}
		if st != wst || s.Len() != len(sm.held) {
			return checked, fmt.Sprintf("push %d: Stats %+v Len %d, want %+v", pi, st, s.Len(), wst)
		}
		snap, err := s.Snapshot(s.Root())
		require.NoError(t, err)
		if snap.Len() != len(sm.held) {
			return checked, fmt.Sprintf("push %d: root Snapshot %d rows, want %d", pi, snap.Len(), len(sm.held))
		}
		for i, r := range sm.held {
			if snap.TimeNanos(i) != r.t || !strpSame(reduce.Samples, snap.Value(i, 3), r.a) || !snap.Value(i, 2).Equal(r.s) {
				return checked, fmt.Sprintf("push %d: root Snapshot row %d: %v, want %v", pi, i, snap.Row(i), r.row())
			}
		}
		checked++
		// reduce
		held := sm.source()
		if len(acc) > 0 {
			last := acc[len(acc)-1]
			redSeen, redLastT = true, last.t
			nRows := 0
			switch {
			case c.trigName == "event":
				nRows = 1
			case strings.HasPrefix(c.trigName, "count"):
				var k int
				fmt.Sscanf(c.trigName, "count%d", &k)
				redCount += len(acc)
				nRows = redCount / k
				redCount %= k
			default:
				b := seq.Start(last.t)
				if !redHasBucket {
					redHasBucket, redBucket = true, b
				} else if b > redBucket {
					redBucket = b
					nRows = 1
				}
			}
			if c.buildAt > 0 && c.trigName != "event" {
				nRows = -1 // not checked
			}
			rtab, _ := live.Find(outs, red, live.Event)
			gotR := 0
			if rtab != nil {
				gotR = rtab.Len()
			}
			if nRows >= 0 && gotR != nRows {
				return checked, fmt.Sprintf("push %d: reduce emitted %d rows, want %d", pi, gotR, nRows)
			}
			key := last.t
			if c.trigName == "clock" {
				key = seq.Start(last.t)
			}
			for i := range gotR {
				if msg := agCheckRow(rtab, i, aggs, key, held, true); msg != "" {
					return checked, fmt.Sprintf("push %d: reduce %s", pi, msg)
				}
				checked++
			}
		} else if tab, ok := live.Find(outs, red, live.Event); ok {
			return checked, fmt.Sprintf("push %d: reduce emitted %d rows after a push that reached it with none", pi, tab.Len())
		}
		rv, err := s.Value(red)
		if err != nil {
			return checked, fmt.Sprintf("push %d: reduce Value: %v", pi, err)
		}
		if !redSeen {
			if rv.Len() != 0 {
				return checked, fmt.Sprintf("push %d: reduce Value has %d rows before any row", pi, rv.Len())
			}
		} else {
			if rv.Len() != 1 {
				return checked, fmt.Sprintf("push %d: reduce Value has %d rows, want 1", pi, rv.Len())
			}
			if msg := agCheckRow(rv, 0, aggs, redLastT, held, true); msg != "" {
				return checked, fmt.Sprintf("push %d: reduce Value %s; held %s", pi, msg, agShow(held))
			}
			checked++
		}
	}
	return checked, ""
}

func TestAgAggregateReduceProbe(t *testing.T) {
	seed := agSeed(20240611)
	rng := rand.New(rand.NewPCG(seed, 7))
	all := agAllAggs()
	total, cases := 0, 0
	for cases < 60*agScale() {
		c := agDraw(rng)
		aggs := all
		if c.aggSubset {
			aggs = nil
			for _, a := range all {
				if rng.IntN(4) == 0 {
					aggs = append(aggs, a)
				}
			}
			if len(aggs) == 0 {
				aggs = all[:1]
			}
		}
		pushes := agStream(rng, c)
		n, fail := agRun(t, c, pushes, aggs)
		if fail != "" {
			t.Fatalf("case %d (%v): %s", cases, c, fail)
		}
		total += n
		cases++
	}
	t.Logf("%d cases, %d rows checked", cases, total)
	require.GreaterOrEqual(t, total, 5000)
}

func agShow(rows []agRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "[#%d t=%d v=%v] ", r.seq, r.t, r.v)
	}
	return b.String()
}

// agSeed returns the probes' seed: def, or AG_SEED when set (for a longer
// hunt: AG_SEED=n AG_SCALE=k go test ./live -run TestAg).
func agSeed(def uint64) uint64 {
	var n uint64
	if _, err := fmt.Sscan(os.Getenv("AG_SEED"), &n); err == nil {
		return n
	}
	return def
}

// agScale is AG_SCALE, at least 1.
func agScale() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("AG_SCALE"), &n); err == nil && n > 1 {
		return n
	}
	return 1
}

// Every read and builder called from inside a push (a filter's function)
// returns an error or a result, never panics nor deadlocks; Value,
// Snapshot, a push, a builder and Close give ErrReentrant; the series
// works on afterwards and the filter's calls change nothing it emits.
func TestAgReadsInsideAPush(t *testing.T) {
	build := func(inside bool) (*live.Series, []live.NodeID, *[]string) {
		s, err := live.New("ag", agSchema, live.Options{Ordering: live.Reorder, Grace: 50 * time.Millisecond, MaxEvents: 20})
		require.NoError(t, err)
		part, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 30 * time.Millisecond, MaxEvents: 3})
		require.NoError(t, err)
		var ids []live.NodeID
		var errs []string
		var nodes []live.NodeID
		f, err := s.Filter(part, func(row schema.Row) bool {
			if !inside {
				return true
			}
			for _, id := range append([]live.NodeID{0, 1, 99}, nodes...) {
				if _, err := s.Value(id); err != nil && id != 99 && !errorsIs(err, live.ErrReentrant) {
					errs = append(errs, fmt.Sprintf("Value(%d): %v", id, err))
				}
				if _, err := s.Snapshot(id); err != nil && id != 99 && !errorsIs(err, live.ErrReentrant) {
					errs = append(errs, fmt.Sprintf("Snapshot(%d): %v", id, err))
				}
				_, _ = s.NodeSchema(id)
				_, _ = s.NodeBytes(id)
				_, _ = s.Describe(id)
				_, _ = s.Partitions(id)
				_, _ = s.AggregateStats(id)
				if slices.Contains(nodes, id) { // already watched: no change
					_ = s.Watch(id, live.Event)
				}
				_ = s.Unwatch(id, live.Evict)
				if _, err := s.Reduce(id, []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}, trigger.Trigger{}); !errorsIs(err, live.ErrReentrant) && id != 99 {
					errs = append(errs, fmt.Sprintf("Reduce(%d) inside a push: %v", id, err))
				}
			}
			_ = s.Stats()
			_ = s.Len()
			_, _ = s.Latest()
			_ = s.HeldBytes()
			for range s.All() {
			}
			if _, err := s.PushRows(nil, agRow{t: 1, host: "x"}.row()); !errorsIs(err, live.ErrReentrant) {
				errs = append(errs, fmt.Sprintf("PushRows inside a push: %v", err))
			}
			if _, err := s.Aggregate(0, sequence.Every(time.Millisecond), []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}, 0); !errorsIs(err, live.ErrReentrant) {
				errs = append(errs, fmt.Sprintf("Aggregate inside a push: %v", err))
			}
			if err := s.Close(); !errorsIs(err, live.ErrReentrant) {
				errs = append(errs, fmt.Sprintf("Close inside a push: %v", err))
			}
			return true
		})
		require.NoError(t, err)
		agg, err := s.Aggregate(f, sequence.Every(10*time.Millisecond), agAllAggs(), 0)
		require.NoError(t, err)
		red, err := s.Reduce(part, agAllAggs(), trigger.Clock(sequence.Every(7*time.Millisecond)))
		require.NoError(t, err)
		roll, err := s.Rolling(part, []rolling.Window{{Span: 20 * time.Millisecond, Aggs: []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}}},
			rolling.Options{History: rolling.History{MaxEvents: 5}})
		require.NoError(t, err)
		w, err := s.Window(f, 15*time.Millisecond)
		require.NoError(t, err)
		ids = []live.NodeID{part, f, agg, red, roll, w}
		nodes = ids
		for _, id := range ids {
			require.NoError(t, s.Watch(id, live.Event))
		}
		return s, ids, &errs
	}
	a, ids, errs := build(true)
	b, _, _ := build(false)
	rng := rand.New(rand.NewPCG(3, 3))
	pushes := agStream(rng, agCfg{ord: live.Reorder, grace: 50 * time.Millisecond, step: 10 * time.Millisecond, base: 1e9, rows: 300, hosts: 6,
		maxGap: 10, late: 20, lateBy: 40, batch: 10})
	var oa, ob []live.Output
	compared := 0
	for pi, p := range pushes {
		var ea, eb error
		oa, ea = a.PushRows(oa[:0], agRows(p)...)
		ob, eb = b.PushRows(ob[:0], agRows(p)...)
		require.Equal(t, eb, ea, "push %d", pi)
		require.Empty(t, *errs, "push %d", pi)
		require.Equal(t, len(ob), len(oa), "push %d", pi)
		for k := range oa {
			require.Equal(t, ob[k].Events.String(), oa[k].Events.String(), "push %d output %d", pi, k)
			compared++
		}
		for _, id := range ids {
			va, e1 := a.Value(id)
			vb, e2 := b.Value(id)
			require.Equal(t, e2 == nil, e1 == nil)
			if e1 == nil {
				require.Equal(t, vb.String(), va.String())
			}
		}
	}
	require.Greater(t, compared, 200)
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// The history probe: a rolling with a random History (MaxEvents, MaxAge
// or both) over the root or a partitioning, under an event or clock
// trigger, over a strict or reorder series; after every push the
// rolling's Snapshot is the rows it emitted with the largest keys (time,
// then emission), the newest MaxEvents and those no older than the
// newest emitted time minus MaxAge.
func TestAgHistoryProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(agSeed(77), 11))
	checked, cases := 0, 0
	for cases < 120*agScale() {
		cases++
		c := agCfg{ord: []live.Ordering{live.Strict, live.Reorder}[rng.IntN(2)], step: time.Duration(1+rng.IntN(10)) * time.Millisecond,
			base: rng.Int64N(1 << 40), rows: 50 + rng.IntN(150), hosts: 1 + rng.IntN(4), maxGap: []int64{0, 1, 5}[rng.IntN(3)], batch: []int{1, 5, 30}[rng.IntN(3)]}
		if c.ord == live.Reorder {
			c.grace = time.Duration(1+rng.IntN(20)) * time.Millisecond
			c.late, c.lateBy = 30, 20
		}
		var h rolling.History
		if rng.IntN(3) > 0 {
			h.MaxEvents = 1 + rng.IntN(20)
		}
		if h.MaxEvents == 0 || rng.IntN(2) == 0 {
			h.MaxAge = time.Duration(rng.IntN(30)+1) * time.Millisecond
		}
		part := rng.IntN(2) == 0
		var trig trigger.Trigger
		if rng.IntN(2) == 0 {
			trig = trigger.Clock(sequence.Every(c.step))
		}
		s, err := live.New("ag", agSchema, live.Options{Ordering: c.ord, Grace: c.grace})
		require.NoError(t, err)
		src := s.Root()
		if part {
			src, err = s.PartitionBy(src, "host", partition.Options{})
			require.NoError(t, err)
		}
		roll, err := s.Rolling(src, []rolling.Window{{Span: 10 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "n", From: "v", Using: reduce.Count}, {Out: "last", From: "s", Using: reduce.Last}}}},
			rolling.Options{Trigger: trig, History: h})
		require.NoError(t, err)
		require.NoError(t, s.Watch(roll, live.Event))
		type em struct {
			t   int64
			row string
		}
		var emitted []em
		var outs []live.Output
		for pi, p := range agStream(rng, c) {
			outs, err = s.PushRows(outs[:0], agRows(p)...)
			require.NoError(t, err)
			if tab, ok := live.Find(outs, roll, live.Event); ok {
				for i := range tab.Len() {
					emitted = append(emitted, em{tab.TimeNanos(i), fmt.Sprint(tab.Row(i))})
				}
			}
			want := slices.Clone(emitted)
			slices.SortStableFunc(want, func(a, b em) int { return cmpInt(a.t, b.t) })
			if h.MaxEvents > 0 && len(want) > h.MaxEvents {
				want = want[len(want)-h.MaxEvents:]
			}
			if h.MaxAge > 0 && len(want) > 0 {
				newest := int64(math.MinInt64)
				for _, e := range emitted {
					newest = max(newest, e.t)
				}
				want = slices.DeleteFunc(want, func(e em) bool { return e.t < newest-int64(h.MaxAge) })
			}
			snap, err := s.Snapshot(roll)
			require.NoError(t, err)
			var got []string
			for i := range snap.Len() {
				got = append(got, fmt.Sprint(snap.Row(i)))
			}
			var ws []string
			for _, e := range want {
				ws = append(ws, e.row)
			}
			require.Equal(t, ws, got, "case %d %v history %+v part %v trig %v: push %d", cases, c, h, part, trig, pi)
			checked += len(got)
		}
	}
	t.Logf("%d cases, %d history rows checked", cases, checked)
	require.Greater(t, checked, 5000)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Under churn (a new partition key every few rows, each idle after a
// while and removed by IdleTTL; a fresh string in most rows) with a
// steady rate, what every node holds does not grow: NodeBytes of each
// node, HeldBytes and the partitions listed stay within a bound measured
// after the first quarter of the run.
func TestAgNodeBytesStayBoundedUnderChurn(t *testing.T) {
	s, err := live.New("ag", agSchema, live.Options{MaxAge: 50 * time.Millisecond})
	require.NoError(t, err)
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 20 * time.Millisecond})
	require.NoError(t, err)
	win := []rolling.Window{{Span: 10 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "n", From: "v", Using: reduce.Count}, {Out: "u", From: "s", Using: reduce.Unique}, {Out: "med", From: "v", Using: reduce.Median}}}}
	rollE, err := s.Rolling(part, win, rolling.Options{History: rolling.History{MaxAge: 5 * time.Millisecond}})
	require.NoError(t, err)
	rollC, err := s.Rolling(part, win, rolling.Options{Trigger: trigger.Clock(sequence.Every(3 * time.Millisecond)), History: rolling.History{MaxEvents: 100}})
	require.NoError(t, err)
	rollA, err := s.Rolling(part, win, rolling.Options{Trigger: trigger.Clock(sequence.Every(5 * time.Millisecond)), Aligned: true})
	require.NoError(t, err)
	agg, err := s.Aggregate(part, sequence.Every(4*time.Millisecond), agAllAggs(), 2*time.Millisecond)
	require.NoError(t, err)
	few := []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}, {Out: "sum", From: "v", Using: reduce.Sum},
		{Out: "med", From: "v", Using: reduce.Median}, {Out: "max", From: "v", Using: reduce.Max},
		{Out: "last", From: "s", Using: reduce.Last}, {Out: "top", From: "s", Using: reduce.Top(2)}}
	red, err := s.Reduce(part, few, trigger.Every(2*time.Millisecond))
	require.NoError(t, err)
	redRoot, err := s.Reduce(s.Root(), few, trigger.Count(3))
	require.NoError(t, err)
	w, err := s.Window(part, 8*time.Millisecond)
	require.NoError(t, err)
	f, err := s.Filter(part, func(row schema.Row) bool { return !row[1].IsMissing() })
	require.NoError(t, err)
	d, err := s.Diff(f, "v")
	require.NoError(t, err)
	cum, err := s.Cumulative(part, live.Running{Column: "v", Using: reduce.Sum})
	require.NoError(t, err)
	nodes := map[string]live.NodeID{"part": part, "rollE": rollE, "rollC": rollC, "rollA": rollA, "agg": agg, "red": red,
		"redRoot": redRoot, "window": w, "filter": f, "diff": d, "cumulative": cum}
	rng := rand.New(rand.NewPCG(9, 9))
	const rows = 16000
	tNow := int64(1e12)
	measure := func() map[string]int {
		m := map[string]int{"held": s.HeldBytes()}
		for name, id := range nodes {
			b, err := s.NodeBytes(id)
			require.NoError(t, err)
			m[name] = b
		}
		ps, err := s.Partitions(part)
		require.NoError(t, err)
		m["partitions"] = len(ps)
		return m
	}
	var base map[string]int
	peak := map[string]int{}
	var outs []live.Output
	for i := 0; i < rows; {
		batch := make([]schema.Row, 1+rng.IntN(20))
		for k := range batch {
			tNow += int64(rng.IntN(200)) * int64(time.Microsecond)
			key := fmt.Sprintf("k%d", (i+k)/7+rng.IntN(3)) // about 3 live keys at a time, each for ~7 rows
			var sv schema.Value
			if rng.IntN(4) > 0 {
				sv = schema.StringValue(fmt.Sprintf("fresh-%d", i+k))
			}
			v := schema.NumberValue(float64(rng.IntN(100)))
			if rng.IntN(10) == 0 {
				v = schema.Value{}
			}
			av := schema.ArrayValue(schema.NumberValue(1))
			if !sv.IsMissing() {
				av = schema.ArrayValue(sv, schema.NumberValue(2))
			}
			batch[k] = schema.Row{schema.NanosValue(tNow), v, sv, av, schema.StringValue(key)}
		}
		i += len(batch)
		outs, err = s.PushRows(outs[:0], batch...)
		require.NoError(t, err)
		switch {
		case i >= rows/4 && base == nil:
			base = measure()
		case base != nil:
			for k, v := range measure() {
				peak[k] = max(peak[k], v)
			}
		}
	}
	for k, v := range peak {
		require.LessOrEqualf(t, v, 2*base[k]+4096, "%s grew from %d bytes after a quarter of the run to %d", k, base[k], v)
	}
	t.Logf("after a quarter: %v; peak after: %v", base, peak)
}
