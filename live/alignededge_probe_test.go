package live_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// Aligned windows at their edges, against a brute-force model written from
// the docs (README "Aligned windows", the rolling package's "Aligned
// windows", partition.Options, reduce's table of reducers): when boundary
// b closes, each live partition whose windows hold a row emits one row
// keyed at b, each window holding exactly its rows with b − span ≤ t < b.
// The model follows partitions through IdleTTL (removed at the end of a
// push, or before its rows are routed when MaxPartitions needs the room),
// declared groups (first, never removed), refused pushes (nothing changes)
// and computes every reducer in exact arithmetic.

// aleSchema: a number, a string and an array column, all optional, and
// an optional key (a missing key is a partition of its own).
var aleSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	schema.Column{Name: "k", Kind: schema.String, Optional: true},
)

// aleNumKeySchema is aleSchema keyed by a number column.
var aleNumKeySchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	schema.Column{Name: "k", Kind: schema.Number, Optional: true},
)

type aleRow struct {
	t          int64
	x, s, a, k schema.Value
	idx        int // arrival index among accepted rows (model)
}

func (r aleRow) row() schema.Row { return schema.Row{schema.NanosValue(r.t), r.x, r.s, r.a, r.k} }

type aleAgg struct {
	from string // "x", "s" or "a"
	red  reduce.Reducer
}

type aleWin struct {
	span int64
	aggs []aleAgg
	min  *int
}

type aleCfg struct {
	ordering    live.Ordering
	grace       int64 // ns, reorder only
	step        int64
	anchor      int64
	windows     []aleWin
	partitioned bool
	numKey      bool
	groups      []schema.Value
	maxParts    int
	ttl         int64
	workers     int
	history     rolling.History
	// held: the rolling reads its samples from the series' rows (a
	// required key, a first window of one step whose only raw output is
	// the samples of x, no reordering), the series keeping maxAge of them.
	held   bool
	maxAge int64
	// filter: the rolling is built on a filter of the source that drops
	// the rows whose s is "b" (on a partitioning, still partitioned).
	filter bool
	pushes [][]aleRow
}

func (c *aleCfg) lag() int64 {
	if c.ordering == live.Reorder {
		return c.grace
	}
	return 0
}

var aleNumberReducers = []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Mean, reduce.Stdev, reduce.Min, reduce.Max,
	reduce.First, reduce.Last, reduce.Difference, reduce.Median, reduce.Percentile(0), reduce.Percentile(100),
	reduce.Percentile(33.3), reduce.Percentile(99.9), reduce.Keep, reduce.Unique, reduce.Top(1), reduce.Top(3), reduce.Samples}
var aleAnyReducers = []reduce.Reducer{reduce.Count, reduce.First, reduce.Last, reduce.Keep, reduce.Unique, reduce.Top(1), reduce.Top(2), reduce.Samples}

// Strings chosen for the scalar order: "" first, then by UTF-16 code
// units, where U+1D11E (a surrogate pair) comes before U+E000.
var aleStrings = []string{"", "a", "b", "é", "\ue000", "𝄞", "ab"}

// The ends of the range and the units a case's clock counts in.
var aleUnits = []int64{1, 1, int64(time.Microsecond), int64(time.Millisecond), int64(time.Second)}

func aleNew(rng *rand.Rand) aleCfg {
	var c aleCfg
	unit := aleUnits[rng.IntN(len(aleUnits))]
	c.step = unit * []int64{1, 2, 3, 5, 6, 7, 10, 12, 15}[rng.IntN(9)]
	switch rng.IntN(3) {
	case 1:
		c.ordering = live.Drop
	case 2:
		c.ordering = live.Reorder
		c.grace = unit * (1 + rng.Int64N(3*c.step/unit+3))
	}
	for w := range 1 + rng.IntN(3) {
		win := aleWin{span: unit * (1 + rng.Int64N(5*c.step/unit+4))}
		for range 1 + rng.IntN(5) {
			switch rng.IntN(5) {
			case 0:
				win.aggs = append(win.aggs, aleAgg{"s", aleAnyReducers[rng.IntN(len(aleAnyReducers))]})
			case 1:
				win.aggs = append(win.aggs, aleAgg{"a", aleAnyReducers[rng.IntN(len(aleAnyReducers))]})
			default:
				win.aggs = append(win.aggs, aleAgg{"x", aleNumberReducers[rng.IntN(len(aleNumberReducers))]})
			}
		}
		if rng.IntN(6) == 0 {
			win.min = rolling.Samples(rng.IntN(4))
		}
		_ = w
		c.windows = append(c.windows, win)
	}
	c.partitioned = rng.IntN(6) != 0
	c.numKey = c.partitioned && rng.IntN(4) == 0
	if c.partitioned && c.ordering != live.Reorder && rng.IntN(5) == 0 {
		c.held = true
		mergeable := []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Stdev, reduce.Min, reduce.Max, reduce.First, reduce.Last, reduce.Difference}
		for i := range c.windows {
			w := &c.windows[i]
			w.span = c.step * (1 + w.span/c.step)
			for j := range w.aggs {
				w.aggs[j] = aleAgg{"x", mergeable[rng.IntN(len(mergeable))]}
			}
		}
		c.windows[0].span = c.step
		c.windows[0].aggs = append(c.windows[0].aggs, aleAgg{"x", reduce.Samples})
		if rng.IntN(2) == 0 {
			c.maxAge = c.step * (1 + rng.Int64N(3))
		}
	}
	c.workers = 1 + rng.IntN(3)
	switch rng.IntN(6) {
	case 0:
		c.history.MaxEvents = 1 + rng.IntN(20)
	case 1:
		c.history.MaxAge = time.Duration(c.step * rng.Int64N(6))
		if c.history.MaxAge == 0 {
			c.history.MaxEvents = 1
		}
	}
	var keys []schema.Value
	if c.numKey {
		keys = []schema.Value{schema.NumberValue(1), schema.NumberValue(-2.5), schema.NumberValue(1e300), schema.NumberValue(0), schema.NumberValue(math.Copysign(0, -1)), {}}
	} else {
		keys = []schema.Value{schema.StringValue("h1"), schema.StringValue(""), schema.StringValue("ü"), schema.StringValue("h2"), schema.StringValue("h3"), schema.StringValue(strings.Repeat("k", 300)), {}}
	}
	if c.held {
		keys = keys[:len(keys)-1] // a required key: none missing
	}
	keys = keys[:1+rng.IntN(len(keys))]
	if !c.numKey && rng.IntN(6) == 0 { // many keys: the workers' chunks
		for i := range 20 + rng.IntN(60) {
			keys = append(keys, schema.StringValue(fmt.Sprintf("m%d", i)))
		}
	}
	c.filter = !c.held && rng.IntN(5) == 0
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	if c.partitioned {
		switch rng.IntN(4) {
		case 0: // declared groups, in a random order, maybe with keys outside them
			c.groups = slices.Clone(keys[:1+rng.IntN(len(keys))])
			for i := len(c.groups) - 1; i > 0; i-- { // 0 and −0 are one group
				if slices.ContainsFunc(c.groups[:i], func(g schema.Value) bool { return aleKeyOf(g) == aleKeyOf(c.groups[i]) }) {
					c.groups = slices.Delete(c.groups, i, i+1)
				}
			}
			rng.Shuffle(len(c.groups), func(i, j int) { c.groups[i], c.groups[j] = c.groups[j], c.groups[i] })
		case 1:
			c.maxParts = 1 + rng.IntN(3)
		}
		if rng.IntN(2) == 0 || c.maxParts > 0 && rng.IntN(4) != 0 {
			c.ttl = unit * (1 + rng.Int64N(6*c.step/unit+2))
		}
	}

	// Where the stream lives: near the epoch, at the start of the range,
	// at its end, or jumping across it.
	where := rng.IntN(4)
	var t int64
	switch where {
	case 0:
		t = -rng.Int64N(40 * c.step)
	case 1:
		t = schema.MinTime + rng.Int64N(3*c.step)
	default:
		t = schema.MaxTime - rng.Int64N(200*c.step+1)
	}
	switch rng.IntN(4) {
	case 0:
		c.anchor = rng.Int64N(2*schema.MaxTime+1) - schema.MaxTime // anywhere
	case 1:
		c.anchor = []int64{schema.MinTime, schema.MaxTime, -1, 0, 1}[rng.IntN(5)]
	default:
		c.anchor = t + rng.Int64N(2*c.step+1) - c.step
		c.anchor = max(schema.MinTime, min(schema.MaxTime, c.anchor))
	}
	// A boundary near the stream's times, for rows exactly on one or just
	// before one.
	floorB := func(t int64) int64 {
		r := (t - c.anchor) % c.step
		if r < 0 {
			r += c.step
		}
		return t - r
	}
	// The keys most rows take: the declared groups, or as many keys as
	// MaxPartitions allows, moving on now and then (hosts renamed).
	hot := 0
	width := len(keys)
	switch {
	case c.groups != nil:
		keys = append(slices.Clone(c.groups), keys...)
		width = len(c.groups)
	case c.maxParts > 0:
		width = min(width, c.maxParts)
	}
	latest := t
	has := false
	for range 3 + rng.IntN(30) {
		if rng.IntN(8) == 0 {
			hot = rng.IntN(len(keys) - width + 1)
		}
		var push []aleRow
		for range rng.IntN(12) {
			switch rng.IntN(30) {
			case 0: // a gap of many steps, or across the range
				if where == 3 && rng.IntN(2) == 0 {
					t = schema.MaxTime - rng.Int64N(10*c.step+1)
				} else {
					t = aleAdd(t, c.step*(2+rng.Int64N(1000)))
				}
			case 1, 2: // exactly on the next boundary, or just before it
				b := floorB(t)
				if b <= schema.MaxTime-c.step {
					t = b + c.step - rng.Int64N(2)
				}
			default:
				t = aleAdd(t, []int64{0, 1, unit, c.step / 3, c.step}[rng.IntN(5)]*rng.Int64N(2))
			}
			rt := t
			late := 6
			if c.ordering == live.Strict {
				late = 60
			}
			if has && rng.IntN(late) == 0 { // late: by exactly the grace, one more, around a boundary
				switch rng.IntN(4) {
				case 0:
					rt = latest - c.grace
				case 1:
					rt = latest - c.grace - 1
				case 2:
					b := floorB(latest - c.grace)
					rt = b - rng.Int64N(2)
				default:
					rt = latest - rng.Int64N(c.grace+unit+1)
				}
				rt = max(rt, schema.MinTime)
			}
			if !has || rt > latest {
				latest = rt
			}
			has = true
			push = append(push, aleRow{t: rt, x: aleX(rng), s: aleS(rng), a: aleA(rng), k: keys[hot+rng.IntN(width)]})
			if rng.IntN(20) == 0 {
				push[len(push)-1].k = keys[rng.IntN(len(keys))]
			}
		}
		if rng.IntN(25) == 0 && len(push) > 0 { // a cell a push refuses
			push[rng.IntN(len(push))].x = schema.NumberValue([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)])
		}
		if c.groups != nil && rng.IntN(20) == 0 && len(push) > 0 && !c.numKey {
			push[rng.IntN(len(push))].k = schema.StringValue("undeclared")
		}
		c.pushes = append(c.pushes, push)
	}
	return c
}

// aleAdd adds d to t, stopping at the end of the range.
func aleAdd(t, d int64) int64 {
	if t > schema.MaxTime-d {
		return schema.MaxTime
	}
	return t + d
}

func aleX(rng *rand.Rand) schema.Value {
	switch rng.IntN(14) {
	case 0:
		return schema.Value{}
	case 1:
		return schema.NumberValue(math.Copysign(0, -1))
	case 2:
		return schema.NumberValue(rng.NormFloat64() * 1e15)
	case 3:
		return schema.NumberValue([]float64{1e200, -1e200, 1e-300, math.MaxFloat64, -math.MaxFloat64}[rng.IntN(5)])
	case 4, 5, 6:
		return schema.NumberValue(rng.NormFloat64())
	default:
		return schema.NumberValue(float64(rng.IntN(9)-4) / 4)
	}
}

func aleS(rng *rand.Rand) schema.Value {
	if rng.IntN(6) == 0 {
		return schema.Value{}
	}
	return schema.StringValue(aleStrings[rng.IntN(len(aleStrings))])
}

func aleA(rng *rand.Rand) schema.Value {
	if rng.IntN(4) == 0 {
		return schema.Value{}
	}
	var el []schema.Value
	for range rng.IntN(4) {
		switch rng.IntN(4) {
		case 0:
			el = append(el, schema.BoolValue(rng.IntN(2) == 0))
		case 1:
			el = append(el, schema.StringValue(aleStrings[rng.IntN(len(aleStrings))]))
		default:
			el = append(el, schema.NumberValue(float64(rng.IntN(3))))
		}
	}
	return schema.ArrayValue(el...)
}

// build makes the series and the aligned rolling of c.
func (c *aleCfg) build() (*live.Series, live.NodeID, error) {
	sch := aleSchema
	if c.numKey {
		sch = aleNumKeySchema
	}
	if c.held {
		cols := sch.Columns()
		cols[4].Optional = false
		sch = schema.MustNew(cols...)
	}
	s, err := live.New("ale", sch, live.Options{Ordering: c.ordering, Grace: time.Duration(c.grace), Workers: c.workers, MaxAge: time.Duration(c.maxAge)})
	if err != nil {
		return nil, 0, err
	}
	src := s.Root()
	if c.partitioned {
		src, err = s.PartitionBy(s.Root(), "k", partition.Options{Groups: c.groups, MaxPartitions: c.maxParts, IdleTTL: time.Duration(c.ttl)})
		if err != nil {
			s.Close()
			return nil, 0, err
		}
	}
	if c.filter {
		src, err = s.Filter(src, aleKeepRow)
		if err != nil {
			s.Close()
			return nil, 0, err
		}
	}
	var wins []rolling.Window
	n := 0
	for i, w := range c.windows {
		rw := rolling.Window{Name: fmt.Sprintf("w%d", i), Span: time.Duration(w.span), MinSamples: w.min}
		for _, a := range w.aggs {
			rw.Aggs = append(rw.Aggs, reduce.Agg{Out: fmt.Sprintf("o%d", n), From: a.from, Using: a.red})
			n++
		}
		wins = append(wins, rw)
	}
	seq := sequence.Every(time.Duration(c.step)).WithAnchorNanos(c.anchor)
	id, err := s.Rolling(src, wins, rolling.Options{Trigger: trigger.Clock(seq), Aligned: true, History: c.history})
	if err != nil {
		s.Close()
		return nil, 0, err
	}
	if d, err := s.Describe(id); err != nil || c.held != strings.Contains(d, "samples read from the series' rows") {
		s.Close()
		return nil, 0, fmt.Errorf("held %v, described as %q (%v)", c.held, d, err)
	}
	return s, id, s.Watch(id)
}

// aleKeepRow is the filter of cases with one: it drops the rows whose s
// is "b".
func aleKeepRow(row schema.Row) bool {
	x, ok := row[2].Str()
	return !ok || x != "b"
}

// aleInc is one life of a partition: from its first row (or its
// declaration) to its removal.
type aleInc struct {
	key      schema.Value
	declared bool
	// seen orders the partition in the rolling: a declared group's
	// place, or when the rolling got its first row (behind a filter,
	// not when the partitioning saw it: see the rolling's order below).
	seen  int
	rows  []aleRow // routed to it
	wrows []aleRow // passed on to the rolling (all but a filter's)
	last  int64
	gone  bool
}

func aleKeyOf(v schema.Value) string {
	if v.IsMissing() {
		return "\x00missing"
	}
	if x, ok := v.Num(); ok && x == 0 {
		return "0" // 0 and −0 are one value
	}
	return v.Kind().String() + ":" + v.String()
}

// aleOut is one emitted row: boundary, key and cells.
type aleOut struct {
	b    int64
	key  schema.Value
	vals []schema.Value
	inc  *aleInc // the model's partition
}

func (o aleOut) String() string { return fmt.Sprintf("%d %v %v", o.b, o.key, o.vals) }

// aleModel plays the pushes of c through the documented rules. The
// rolling's partitions come, within a boundary, in first-seen order,
// declared groups first: first seen by the rolling, which behind a filter
// is when the filter first passes a row of the partition (the docs do not
// say whose first sight; the partition package's "the order in which a
// synchronised clock emits them" would be the partitioning's).
type aleModel struct {
	c      *aleCfg
	incs   []*aleInc
	live   map[string]*aleInc
	latest int64
	has    bool
	n      int // accepted rows so far
	seen   int // partitions the rolling has seen
	stats  map[string]int
}

func newAleModel(c *aleCfg) *aleModel {
	m := &aleModel{c: c, live: map[string]*aleInc{}, stats: map[string]int{}}
	for _, g := range c.groups {
		in := &aleInc{key: g, declared: true, seen: len(m.incs)}
		m.incs = append(m.incs, in)
		m.live[aleKeyOf(g)] = in
	}
	return m
}

func (m *aleModel) keyOf(r aleRow) string {
	if !m.c.partitioned {
		return ""
	}
	return aleKeyOf(r.k)
}

// push applies one push: the error sentinel it must fail with (nil: it
// succeeds) and the rows it emits.
func (m *aleModel) push(rows []aleRow) ([]error, []aleOut) {
	c := m.c
	for _, r := range rows {
		if x, ok := r.x.Num(); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
			m.stats["refused invalid"]++
			return []error{schema.ErrValidation}, nil
		}
	}
	run, has := m.latest, m.has
	var acc []aleRow
	for _, r := range rows {
		if has {
			switch {
			case c.ordering == live.Strict && r.t < run:
				m.stats["refused out of order"]++
				return []error{live.ErrOutOfOrder}, nil
			case c.ordering == live.Reorder && r.t < run-c.grace:
				m.stats["refused late"]++
				return []error{live.ErrLate}, nil
			case c.ordering == live.Drop && r.t < run:
				continue
			}
		}
		if !has || r.t > run {
			run = r.t
		}
		has = true
		acc = append(acc, r)
	}
	var errs []error
	if c.groups != nil {
		for _, r := range acc {
			if _, ok := m.live[m.keyOf(r)]; !ok {
				errs = append(errs, partition.ErrUnknownGroup)
				break
			}
		}
	}
	var upfront []string
	if c.maxParts > 0 {
		routed := map[string]bool{}
		var fresh []string
		for _, r := range acc {
			k := m.keyOf(r)
			if !routed[k] {
				routed[k] = true
				if m.live[k] == nil {
					fresh = append(fresh, k)
				}
			}
		}
		if len(m.live)+len(fresh) > c.maxParts {
			if c.ttl > 0 {
				for k, in := range m.live {
					if !in.declared && !routed[k] && in.last < run-c.ttl {
						upfront = append(upfront, k)
					}
				}
			}
			if len(m.live)-len(upfront)+len(fresh) > c.maxParts {
				errs = append(errs, partition.ErrLimit)
			}
		}
	}
	if errs != nil {
		for _, e := range errs {
			m.stats["refused "+e.Error()]++
		}
		return errs, nil
	}
	if len(acc) < len(rows) {
		m.stats["pushes with dropped rows"]++
		if len(acc) == 0 {
			m.stats["pushes all dropped"]++
		}
	}
	if len(upfront) > 0 {
		m.stats["upfront removals"]++
	}
	for _, k := range upfront {
		m.live[k].gone = true
		delete(m.live, k)
	}
	wmOld, hadOld := m.latest-c.lag(), m.has
	for _, r := range acc {
		k := m.keyOf(r)
		in := m.live[k]
		if in == nil {
			in = &aleInc{key: r.k, last: r.t}
			m.incs = append(m.incs, in)
			m.live[k] = in
		}
		r.idx = m.n
		m.n++
		if len(in.rows) == 0 {
			in.last = r.t
		}
		in.rows = append(in.rows, r)
		in.last = max(in.last, r.t)
		if !c.filter || aleKeepRow(r.row()) {
			if len(in.wrows) == 0 && !in.declared {
				m.seen++
				in.seen = len(c.groups) + m.seen
			}
			in.wrows = append(in.wrows, r)
		}
	}
	m.latest, m.has = run, has
	var outs []aleOut
	if m.has {
		wm := m.latest - c.lag()
		type cand struct {
			b   int64
			pos int
		}
		var cands []cand
		longest := int64(0)
		for _, w := range c.windows {
			longest = max(longest, w.span)
		}
		for pos, in := range m.incs {
			if in.gone {
				continue
			}
			seen := map[int64]bool{}
			for _, r := range in.wrows {
				// The boundaries whose windows can hold r: t < b ≤ t + longest.
				rem := (r.t - c.anchor) % c.step
				if rem < 0 {
					rem += c.step
				}
				b := r.t - rem
				for b <= wm-c.step && b-r.t < longest {
					b += c.step
					if (hadOld && b <= wmOld) || seen[b] {
						continue
					}
					seen[b] = true
					cands = append(cands, cand{b, pos})
				}
			}
		}
		slices.SortFunc(cands, func(a, b cand) int {
			return cmp.Or(cmp.Compare(a.b, b.b), cmp.Compare(m.incs[a.pos].seen, m.incs[b.pos].seen))
		})
		bs := map[int64]bool{}
		for _, cd := range cands {
			in := m.incs[cd.pos]
			var vals []schema.Value
			held := false
			for _, w := range c.windows {
				var win []aleRow
				for _, r := range in.wrows {
					if r.t >= cd.b-w.span && r.t < cd.b {
						win = append(win, r)
					}
				}
				held = held || len(win) > 0
				for _, a := range w.aggs {
					if w.min != nil && len(win) < *w.min {
						vals = append(vals, schema.Value{})
						continue
					}
					vals = append(vals, aleReduce(a, win))
				}
			}
			if held {
				outs = append(outs, aleOut{b: cd.b, key: in.key, vals: vals, inc: in})
				bs[cd.b] = true
				switch {
				case cd.b > schema.MaxTime-1<<40:
					m.stats["rows near the end"]++
				case cd.b < schema.MinTime+1<<40:
					m.stats["rows near the start"]++
				}
				if in.declared {
					m.stats["rows of declared groups"]++
				}
				if in.gone || m.c.ttl > 0 && in.last < m.latest-m.c.ttl {
					m.stats["rows of partitions removed at the end of their push"]++
				}
				if m.c.maxParts > 0 {
					m.stats["rows under MaxPartitions"]++
				}
			}
		}
		if len(bs) > 1 {
			m.stats["pushes closing several boundaries"]++
		}
		if c.ttl > 0 {
			for k, in := range m.live {
				if !in.declared && in.last < m.latest-c.ttl {
					in.gone = true
					delete(m.live, k)
				}
			}
		}
	}
	return nil, outs
}

// aleCell is a row's cell of column from.
func aleCell(r aleRow, from string) schema.Value {
	switch from {
	case "s":
		return r.s
	case "a":
		return r.a
	}
	return r.x
}

// aleReduce computes one reducer over the window's rows (arrival order
// within the model's rows, which are in arrival order) from the reduce
// package's table.
func aleReduce(a aleAgg, win []aleRow) schema.Value {
	var vals []schema.Value
	var idx []int // window index of each present value
	var xs []float64
	for i, r := range win {
		v := aleCell(r, a.from)
		if v.IsMissing() {
			continue
		}
		vals = append(vals, v)
		idx = append(idx, i)
		if x, ok := v.Num(); ok {
			xs = append(xs, x)
		}
	}
	num := func(x float64) schema.Value {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return schema.Value{}
		}
		return schema.NumberValue(x)
	}
	name := a.red.String()
	switch {
	case name == "count":
		return schema.NumberValue(float64(len(vals)))
	case name == "sum":
		return num(aleExactSum(xs))
	case name == "avg" || name == "mean":
		if len(xs) == 0 {
			return schema.Value{}
		}
		return num(aleExactMean(xs))
	case name == "stdev":
		if len(xs) == 0 {
			return schema.Value{}
		}
		for _, x := range xs {
			if math.Abs(x) >= 0x1p500 {
				return schema.Value{}
			}
		}
		return num(aleExactStdev(xs))
	case name == "min" || name == "max" || name == "difference":
		if len(xs) == 0 {
			return schema.Value{}
		}
		lo, hi := slices.Min(xs), slices.Max(xs)
		switch name {
		case "min":
			return schema.NumberValue(lo)
		case "max":
			return schema.NumberValue(hi)
		}
		return num(hi - lo)
	case name == "first" || name == "last":
		best := -1
		for j := range vals {
			t := win[idx[j]].t
			if best < 0 || name == "first" && t < win[idx[best]].t || name == "last" && t >= win[idx[best]].t {
				best = j
			}
		}
		if best < 0 {
			return schema.Value{}
		}
		return vals[best]
	case name == "median" || strings.HasPrefix(name, "p"):
		if len(xs) == 0 {
			return schema.Value{}
		}
		q := 50.0
		if name != "median" {
			fmt.Sscan(name[1:], &q)
		}
		s := slices.Clone(xs)
		slices.Sort(s)
		rank := q / 100 * float64(len(s)-1)
		lo, hi := int(math.Floor(rank)), int(math.Ceil(rank))
		if lo == hi {
			return schema.NumberValue(s[lo])
		}
		f := rank - float64(lo)
		d := s[hi] - s[lo]
		if math.IsInf(d, 0) {
			return schema.NumberValue(s[lo]*(1-f) + s[hi]*f)
		}
		return schema.NumberValue(s[lo] + d*f)
	case name == "keep":
		if len(vals) == 0 {
			return schema.Value{}
		}
		for _, v := range vals[1:] {
			if !aleEqual(v, vals[0]) {
				return schema.Value{}
			}
		}
		return vals[0]
	}
	// samples, unique, top<N>: the scalars, arrays flattened one level.
	var sc []schema.Value
	for _, v := range vals {
		if el, ok := v.Array(); ok {
			sc = append(sc, el...)
		} else {
			sc = append(sc, v)
		}
	}
	if name == "samples" {
		return schema.ArrayValue(sc...)
	}
	type kc struct {
		v schema.Value
		n int
	}
	var counts []kc
	for _, v := range sc {
		found := false
		for i := range counts {
			if aleCompareScalars(counts[i].v, v) == 0 {
				counts[i].n++
				found = true
				break
			}
		}
		if !found {
			counts = append(counts, kc{v, 1})
		}
	}
	if name == "unique" {
		slices.SortFunc(counts, func(a, b kc) int { return aleCompareScalars(a.v, b.v) })
	} else {
		var n int
		fmt.Sscan(name[3:], &n)
		slices.SortFunc(counts, func(a, b kc) int { return cmp.Or(cmp.Compare(b.n, a.n), aleCompareScalars(a.v, b.v)) })
		counts = counts[:min(n, len(counts))]
	}
	out := []schema.Value{}
	for _, e := range counts {
		out = append(out, e.v)
	}
	return schema.ArrayValue(out...)
}

// aleCompareScalars is pond-ts's scalar order: numbers ascending, then
// strings by UTF-16 code units, then false before true.
func aleCompareScalars(a, b schema.Value) int {
	rank := func(v schema.Value) int {
		switch v.Kind() {
		case schema.Number:
			return 0
		case schema.String:
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch a.Kind() {
	case schema.Number:
		x, _ := a.Num()
		y, _ := b.Num()
		return cmp.Compare(x, y)
	case schema.String:
		x, _ := a.Str()
		y, _ := b.Str()
		return slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(y)))
	}
	x, _ := a.Bool()
	y, _ := b.Bool()
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// aleEqual is keep's equality: numbers by ==, the rest by value, arrays
// element by element.
func aleEqual(a, b schema.Value) bool {
	if x, ok := a.Num(); ok {
		y, ok := b.Num()
		return ok && x == y
	}
	ea, oka := a.Array()
	eb, okb := b.Array()
	if oka || okb {
		if !oka || !okb || len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			if !aleEqual(ea[i], eb[i]) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

const alePrec = 2200 // bits: exact for any sum of a few thousand float64s

func aleBigSum(xs []float64) *big.Float {
	s := new(big.Float).SetPrec(alePrec)
	for _, x := range xs {
		s.Add(s, new(big.Float).SetPrec(alePrec).SetFloat64(x))
	}
	return s
}

func aleExactSum(xs []float64) float64 {
	f, _ := aleBigSum(xs).Float64()
	return f
}

func aleExactMean(xs []float64) float64 {
	s := aleBigSum(xs)
	s.Quo(s, new(big.Float).SetPrec(alePrec).SetInt64(int64(len(xs))))
	f, _ := s.Float64()
	return f
}

func aleExactStdev(xs []float64) float64 {
	n := new(big.Float).SetPrec(alePrec).SetInt64(int64(len(xs)))
	mean := aleBigSum(xs)
	mean.Quo(mean, n)
	ss := new(big.Float).SetPrec(alePrec)
	for _, x := range xs {
		d := new(big.Float).SetPrec(alePrec).SetFloat64(x)
		d.Sub(d, mean)
		ss.Add(ss, d.Mul(d, d))
	}
	ss.Quo(ss, n)
	ss.Sqrt(ss)
	f, _ := ss.Float64()
	return f
}

// aleUlp is the distance from |x| to the next float64.
func aleUlp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// aleSame compares a cell with the model's, within what the docs allow:
// a sum rounded once from a double-double (an ulp, and a double-double's
// error at the largest value held), an avg within an ulp of the mean, a
// stdev to 1e-12 of itself or of the spread of the values.
func aleSame(red string, got, want schema.Value, win []float64) bool {
	g, gok := got.Num()
	w, wok := want.Num()
	if gok && wok {
		if g == w {
			return true
		}
		scale := 0.0
		for _, x := range win {
			scale = max(scale, math.Abs(x))
		}
		switch red {
		case "sum":
			return math.Abs(g-w) <= aleUlp(w)+scale*0x1p-100*float64(len(win))
		case "avg", "mean":
			return math.Abs(g-w) <= 2*aleUlp(w)+scale*0x1p-100
		case "stdev":
			// Squares of values below about 2^-511 underflow: the
			// deviation of such values is lost (see
			// TestAleStdevOfTinyValuesIsNotLost in alignededge_bugs_test.go),
			// which the probe leaves to that test.
			return math.Abs(g-w) <= 1e-12*w+scale*0x1p-80+0x1p-500
		case "difference":
			return false
		}
		return math.Abs(g-w) <= 4*aleUlp(w)
	}
	if gok != wok {
		return false
	}
	ga, gaok := got.Array()
	wa, waok := want.Array()
	if gaok && waok {
		if len(ga) != len(wa) {
			return false
		}
		for i := range ga {
			if !aleEqual(ga[i], wa[i]) || ga[i].Kind() != wa[i].Kind() {
				return false
			}
		}
		return true
	}
	if got.IsMissing() || want.IsMissing() {
		return got.IsMissing() == want.IsMissing()
	}
	return got.Kind() == want.Kind() && aleEqual(got, want)
}

// aleRows reads a push's rows of the rolling.
func aleRows(out []live.Output, node live.NodeID, partitioned bool) []aleOut {
	var got []aleOut
	for _, o := range out {
		if o.Node != node || o.Kind != live.Event {
			continue
		}
		for i := range o.Events.Len() {
			row := o.Events.Row(i)
			e := aleOut{b: o.Events.TimeNanos(i)}
			if partitioned {
				e.key, e.vals = row[1], row[2:]
			} else {
				e.vals = row[1:]
			}
			got = append(got, e)
		}
	}
	return got
}

// aleWindowXs gives, for the comparison's tolerance, the numbers of x in
// each output's window of the model row (recomputed from the model).
func (m *aleModel) windowXs(o aleOut) [][]float64 {
	in := o.inc
	var out [][]float64
	for _, w := range m.c.windows {
		var xs []float64
		for _, r := range in.wrows {
			if r.t >= o.b-w.span && r.t < o.b {
				if x, ok := r.x.Num(); ok {
					xs = append(xs, x)
				}
			}
		}
		for range w.aggs {
			out = append(out, xs)
		}
	}
	return out
}

func (w aleWin) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{span %d", w.span)
	if w.min != nil {
		fmt.Fprintf(&b, " min %d", *w.min)
	}
	for _, a := range w.aggs {
		fmt.Fprintf(&b, " %s(%s)", a.red, a.from)
	}
	return b.String() + "}"
}

func (c *aleCfg) String() string {
	return fmt.Sprintf("ordering %v grace %d step %d anchor %d windows %v partitioned %v numKey %v groups %v maxParts %d ttl %d workers %d history %+v held %v maxAge %d filter %v",
		c.ordering, c.grace, c.step, c.anchor, c.windows, c.partitioned, c.numKey, c.groups, c.maxParts, c.ttl, c.workers, c.history, c.held, c.maxAge, c.filter)
}

// aleRun pushes c's pushes, some cut in two, and compares every call's
// rows with the model's, and a refused call's error and dst.
func aleRun(t *testing.T, rng *rand.Rand, c *aleCfg, label string, stats map[string]int) (rows, refused int) {
	t.Helper()
	s, node, err := c.build()
	require.NoError(t, err, label)
	defer s.Close()
	m := newAleModel(c)
	var out []live.Output
	var value, history []aleOut
	for p, push := range c.pushes {
		// A push may be cut in two: the model takes each part as a push.
		parts := [][]aleRow{push}
		if len(push) > 1 && rng.IntN(3) == 0 {
			cut := 1 + rng.IntN(len(push)-1)
			parts = [][]aleRow{push[:cut], push[cut:]}
		}
		for _, part := range parts {
			batch := make([]schema.Row, len(part))
			for i, r := range part {
				batch[i] = r.row()
			}
			dst := append(out[:0], live.Output{Node: 99, Events: schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}))})
			got, err := s.PushRows(dst, batch...)
			errs, want := m.push(part)
			where := fmt.Sprintf("push %d (%d rows) of %s", p, len(part), label)
			if errs != nil {
				require.Error(t, err, where)
				matched := false
				for _, e := range errs {
					matched = matched || errors.Is(err, e)
				}
				require.True(t, matched, "%s: error %v, want one of %v", where, err, errs)
				require.Len(t, got, 1, "%s: dst comes back as it was", where)
				refused++
				continue
			}
			require.NoError(t, err, where)
			require.Equal(t, live.NodeID(99), got[0].Node, where)
			gotRows := aleRows(got[1:], node, c.partitioned)
			aleSameRows(t, gotRows, want, m, c, where)
			if c.partitioned {
				parts, err := s.Partitions(node)
				require.NoError(t, err)
				var gotP, wantP []string
				for _, p := range parts {
					last := "none"
					if !p.Last.IsZero() {
						last = fmt.Sprint(p.Last.UnixNano())
					}
					gotP = append(gotP, fmt.Sprint(p.Key, " ", p.Ingested, " ", last))
				}
				for _, in := range m.incs {
					if !in.gone {
						last := "none"
						if len(in.rows) > 0 {
							last = fmt.Sprint(in.last)
						}
						wantP = append(wantP, fmt.Sprint(in.key, " ", len(in.rows), " ", last))
					}
				}
				if !slices.Equal(gotP, wantP) {
					t.Fatalf("%s: partitions\nwant %v\ngot  %v", where, wantP, gotP)
				}
			}
			rows += len(want)
			// Value: the last row of each partition that emitted in the
			// latest push that emitted, in the partitions' order; the
			// history: the newest rows emitted.
			if len(want) > 0 {
				value = value[:0]
				for _, in := range m.incs {
					for i := len(want) - 1; i >= 0; i-- {
						if want[i].inc == in {
							value = append(value, want[i])
							break
						}
					}
				}
			}
			v, err := s.Value(node)
			require.NoError(t, err, where)
			// (Value's order of partitions is not documented: compare in
			// the order of keys.)
			gotV := aleRows([]live.Output{{Node: node, Kind: live.Event, Events: v}}, node, c.partitioned)
			byKey := func(a, b aleOut) int { return cmp.Compare(aleKeyOf(a.key), aleKeyOf(b.key)) }
			slices.SortStableFunc(gotV, byKey)
			wantV := slices.Clone(value)
			slices.SortStableFunc(wantV, byKey)
			aleSameRows(t, gotV, wantV, m, c, where+": Value")
			history = append(history, want...)
			if c.history != (rolling.History{}) {
				if n := c.history.MaxEvents; n > 0 && len(history) > n {
					history = history[len(history)-n:]
				}
				if a := int64(c.history.MaxAge); a > 0 && len(history) > 0 {
					newest := history[len(history)-1].b
					for len(history) > 0 && history[0].b < newest-a {
						history = history[1:]
					}
				}
				h, err := s.Snapshot(node)
				require.NoError(t, err, where)
				aleSameRows(t, aleRows([]live.Output{{Node: node, Kind: live.Event, Events: h}}, node, c.partitioned), history, m, c, where+": history")
			}
			out = got[:0]
		}
	}
	for k, v := range m.stats {
		stats[k] += v
	}
	if c.held {
		stats["rows of rollings reading samples from the series"] += rows
	}
	return rows, refused
}

// aleSameRows compares rows read from the series with the model's.
func aleSameRows(t *testing.T, gotRows, want []aleOut, m *aleModel, c *aleCfg, where string) {
	t.Helper()
	if len(gotRows) != len(want) {
		t.Fatalf("%s: rows\nwant %v\ngot  %v", where, aleStrs(want), aleStrs(gotRows))
	}
	for i := range want {
		g, w := gotRows[i], want[i]
		if w.b != g.b || c.partitioned && (g.key.Kind() != w.key.Kind() || !w.key.IsMissing() && !aleEqual(g.key, w.key)) {
			t.Fatalf("%s: row %d\nwant %v\ngot  %v", where, i, aleStrs(want), aleStrs(gotRows))
		}
		xs := m.windowXs(w)
		j := 0
		for _, win := range c.windows {
			for _, a := range win.aggs {
				if !aleSame(a.red.String(), g.vals[j], w.vals[j], xs[j]) {
					t.Fatalf("%s: row %d (%d %v) output %d %s of %s: got %v, want %v", where, i, w.b, w.key, j, a.red, a.from, g.vals[j], w.vals[j])
				}
				j++
			}
		}
	}
}

func aleStrs(rows []aleOut) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.String())
	}
	return out
}

// TestAleProbe: random aligned rollings at the edges (odd steps and
// spans on nanosecond to second grids, anchors anywhere, times at both
// ends of the range and gaps across it, late rows on and just before
// boundaries, declared groups, MaxPartitions, IdleTTL, refused pushes)
// against the model, every reducer, push by push.
func TestAleProbe(t *testing.T) {
	total, refused, removed := 0, 0, 0
	stats := map[string]int{}
	for seed := range uint64(160) {
		rng := rand.New(rand.NewPCG(seed, 0xa1e))
		c := aleNew(rng)
		label := fmt.Sprintf("seed %d: %s", seed, c.String())
		n, r := aleRun(t, rng, &c, label, stats)
		total += n
		refused += r
		if c.ttl > 0 {
			removed++
		}
	}
	require.Greater(t, total, 3000)
	require.Greater(t, refused, 50)
	t.Logf("%d rows compared, %d pushes refused, %d cases with IdleTTL; %v", total, refused, removed, stats)
}

// aleEmit pushes rows into a fresh series of c in batches of the sizes
// sizes draws and returns every row it emits, as text, and its final
// watermark (latest − grace).
func aleEmit(t *testing.T, c *aleCfg, rows []aleRow, sizes func() int) (map[string]bool, int64) {
	t.Helper()
	s, node, err := c.build()
	require.NoError(t, err)
	defer s.Close()
	got := map[string]bool{}
	var out []live.Output
	latest := rows[0].t
	for i := 0; i < len(rows); {
		n := min(sizes(), len(rows)-i)
		batch := make([]schema.Row, n)
		for k := range n {
			batch[k] = rows[i+k].row()
			latest = max(latest, rows[i+k].t)
		}
		i += n
		out, err = s.PushRows(out[:0], batch...)
		require.NoError(t, err)
		for _, e := range aleRows(out, node, c.partitioned) {
			s := e.String()
			require.False(t, got[s], "a row emitted twice: %s", s)
			got[s] = true
		}
	}
	return got, latest - c.lag()
}

// aleUpTo gives the rows keyed at or before b, sorted.
func aleUpTo(rows map[string]bool, b int64) []string {
	var out []string
	for r := range rows {
		var rb int64
		fmt.Sscan(r, &rb)
		if rb <= b {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// TestAlePureAcrossBatchingAndSeries: the same events pushed one by one,
// all at once, in random batches, or split by key over two or three
// series give the same (boundary, key, row) set, bit for bit, up to the
// boundaries every series has closed — with declared groups, odd clocks
// and times at the ends of the range. (Streams without IdleTTL or
// MaxPartitions, whose removals depend on the pushes' ends, and whose
// rows every series accepts: in time order, or late within the grace of
// every row before them.)
func TestAlePureAcrossBatchingAndSeries(t *testing.T) {
	compared := 0
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 0x9a1e))
		c := aleNew(rng)
		c.partitioned, c.maxParts, c.ttl, c.history = true, 0, 0, rolling.History{}
		if c.ordering == live.Drop {
			c.ordering = live.Strict
		}
		var rows []aleRow
		var latest int64
		for _, p := range c.pushes {
			for _, r := range p {
				if x, ok := r.x.Num(); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
					continue
				}
				if c.groups != nil && !slices.ContainsFunc(c.groups, func(g schema.Value) bool { return aleKeyOf(g) == aleKeyOf(r.k) }) {
					continue
				}
				if len(rows) > 0 && c.ordering == live.Strict {
					r.t = max(r.t, latest)
				}
				if len(rows) > 0 && c.ordering == live.Reorder {
					r.t = max(r.t, latest-c.grace)
				}
				if len(rows) == 0 || r.t > latest {
					latest = r.t
				}
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		label := fmt.Sprintf("seed %d: %s", seed, c.String())
		base, end := aleEmit(t, &c, rows, func() int { return 1 })
		all, _ := aleEmit(t, &c, rows, func() int { return len(rows) })
		require.Equal(t, aleUpTo(base, end), aleUpTo(all, end), "%s: one push", label)
		random, _ := aleEmit(t, &c, rows, func() int { return 1 + rng.IntN(9) })
		require.Equal(t, aleUpTo(base, end), aleUpTo(random, end), "%s: random batches", label)

		parts := 2 + rng.IntN(2)
		of := map[string]int{}
		split := make([][]aleRow, parts)
		for _, r := range rows {
			k := aleKeyOf(r.k)
			if _, ok := of[k]; !ok {
				of[k] = rng.IntN(parts)
			}
			split[of[k]] = append(split[of[k]], r)
		}
		common := end
		union := map[string]bool{}
		for _, part := range split {
			if len(part) == 0 {
				continue
			}
			got, wm := aleEmit(t, &c, part, func() int { return 1 + rng.IntN(9) })
			common = min(common, wm)
			for r := range got {
				union[r] = true
			}
		}
		want := aleUpTo(base, common)
		require.Equal(t, want, aleUpTo(union, common), "%s: split over %d series", label, parts)
		compared += len(want)
	}
	require.Greater(t, compared, 1000)
	t.Logf("%d rows compared", compared)
}

// TestAleEdgesOnTheDot: a late row one nanosecond before the boundary the
// watermark has just reached is refused, one on it lands in the next
// window; a partition quiet for exactly IdleTTL is not idle (MaxPartitions
// refuses the new key), one quiet a nanosecond longer makes room before
// the push's rows are routed, so the closings in that push leave it out.
func TestAleEdgesOnTheDot(t *testing.T) {
	row := func(ns int64, k string) schema.Row {
		return schema.Row{schema.NanosValue(ns), schema.NumberValue(1), schema.Value{}, schema.Value{}, schema.StringValue(k)}
	}
	emitted := func(out []live.Output, node live.NodeID) []string {
		return aleStrs(aleRows(out, node, true))
	}
	count := []rolling.Window{{Span: 20, Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}}

	s, err := live.New("t", aleSchema, live.Options{Ordering: live.Reorder, Grace: 7})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "k", partition.Options{})
	require.NoError(t, err)
	r, err := s.Rolling(by, count, rolling.Options{Trigger: trigger.Every(10), Aligned: true})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	out, err := s.PushRows(nil, row(3, "a"), row(17, "a")) // 17 − 7 reaches 10
	require.NoError(t, err)
	require.Equal(t, []string{`10 "a" [1]`}, emitted(out, r))
	_, err = s.PushRows(nil, row(9, "a"))
	require.ErrorIs(t, err, live.ErrLate, "8 ns late: beyond the grace, and before the boundary that closed")
	out, err = s.PushRows(nil, row(10, "a"), row(27, "a"))
	require.NoError(t, err)
	require.Equal(t, []string{`20 "a" [3]`}, emitted(out, r), "[0, 20) holds 3, 10 and 17")

	for _, quiet := range []int64{100, 101} {
		s, err := live.New("t", aleSchema, live.Options{})
		require.NoError(t, err)
		by, err := s.PartitionBy(s.Root(), "k", partition.Options{MaxPartitions: 1, IdleTTL: 100})
		require.NoError(t, err)
		r, err := s.Rolling(by, []rolling.Window{{Span: 200, Aggs: count[0].Aggs}}, rolling.Options{Trigger: trigger.Every(50), Aligned: true})
		require.NoError(t, err)
		require.NoError(t, s.Watch(r))
		_, err = s.PushRows(nil, row(0, "a"))
		require.NoError(t, err)
		out, err := s.PushRows(nil, row(quiet, "b"))
		if quiet == 100 {
			require.ErrorIs(t, err, partition.ErrLimit, "a is quiet for exactly IdleTTL: not idle")
			continue
		}
		require.NoError(t, err)
		require.Empty(t, emitted(out, r), "a was removed before b's row closed 50 and 100")
		parts, err := s.Partitions(r)
		require.NoError(t, err)
		require.Len(t, parts, 1)
		require.Equal(t, schema.StringValue("b"), parts[0].Key)
	}
}
