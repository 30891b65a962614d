package live_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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

// The partition-view probes: seeded random streams of several hosts
// (string keys, number keys, a missing key, unicode and empty strings),
// with missing cells, through a partitioning under every option
// (inherited and own retention, declared groups, MaxPartitions,
// IdleTTL) and every ordering, then random PerPartition chains of views
// (fill of each strategy, diff, rate, pctChange, cumulative, filter,
// sample, select, window, windowCount), and on each chain's end a
// synchronised clock rolling, an event rolling over a count window, a
// reduce and a gather: nodes on nodes on nodes. A twin of every chain is
// built after some pushes, on held rows. Every push's outputs are
// compared, cell by cell, with a model written from the docs and fed
// with the raw stream only (not with what the library emitted); the
// order of the push's []Output, Snapshots and Partitions too.

// pvwSchema is [time, cpu (optional number), host (optional string),
// zone (optional number), seq (number)]: seq numbers rows in push order
// and identifies a row through every view.
var pvwSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "cpu", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String, Optional: true},
	schema.Column{Name: "zone", Kind: schema.Number, Optional: true},
	schema.Column{Name: "seq", Kind: schema.Number},
)

// pvwHosts are the host keys a stream draws from (the last ones only
// now and then, as keys outside declared groups).
var pvwHosts = []string{"api-1", "", "ü→東", "db", strings.Repeat("x", 300), "web", "cache", "q"}

// pvwIn is a pushed row; t in ms.
type pvwIn struct {
	t      int64
	cpu    float64
	cpuOK  bool
	host   string
	hostOK bool
	zone   float64
	zoneOK bool
	seq    int
}

func (r pvwIn) row() schema.Row {
	row := schema.Row{schema.MillisValue(r.t), schema.Missing(), schema.Missing(), schema.Missing(), schema.NumberValue(float64(r.seq))}
	if r.cpuOK {
		row[1] = schema.NumberValue(r.cpu)
	}
	if r.hostOK {
		row[2] = schema.StringValue(r.host)
	}
	if r.zoneOK {
		row[3] = schema.NumberValue(r.zone)
	}
	return row
}

// pvwKeyOf is the model's name of a key value.
func pvwKeyOf(v schema.Value) string {
	if v.IsMissing() {
		return "∅"
	}
	return v.String()
}

// pvwStep is one view of a chain.
type pvwStep struct {
	kind  string
	n     int // limit, stride, count, span (ms)
	using reduce.Reducer
}

func (st pvwStep) String() string { return fmt.Sprintf("%s%d", st.kind, st.n) }

func (st pvwStep) build(s *live.Series, src live.NodeID) (live.NodeID, error) {
	switch st.kind {
	case "hold":
		return s.Fill(src, live.FillOptions{Strategy: live.FillHold, Limit: st.n, Columns: []string{"cpu"}})
	case "holdall":
		return s.Fill(src, live.FillOptions{Strategy: live.FillHold, Limit: st.n})
	case "zero":
		return s.Fill(src, live.FillOptions{Strategy: live.FillZero, Limit: st.n})
	case "diff":
		return s.Diff(src, "cpu")
	case "rate":
		return s.Rate(src, "cpu")
	case "pct":
		return s.PctChange(src, "cpu")
	case "cum":
		return s.Cumulative(src, live.Running{Column: "cpu", Using: st.using})
	case "filter":
		sch, err := s.NodeSchema(src)
		if err != nil {
			return 0, err
		}
		keep := pvwKeep(sch)
		return s.Filter(src, keep)
	case "sample":
		return s.Sample(src, st.n)
	case "select":
		return s.Select(src, "seq", "cpu")
	case "window":
		return s.Window(src, time.Duration(st.n)*time.Millisecond)
	case "wcount":
		return s.WindowCount(src, st.n)
	}
	panic(st.kind)
}

// pvwKeep is the filters' predicate: a positive cpu, or a seq that is a
// multiple of 3.
func pvwKeep(sch *schema.Schema) func(schema.Row) bool {
	j, _ := sch.Index("cpu")
	q, _ := sch.Index("seq")
	return func(row schema.Row) bool {
		x, ok := row[j].Num()
		n, _ := row[q].Num()
		return ok && x > 0 || int(n)%3 == 0
	}
}

// pvwOp is the model of one partition of a view: the row it emits for
// in (in its source's schema), or false.
type pvwOp struct {
	st          pvwStep
	j           int // cpu in the source schema
	keep        func(schema.Row) bool
	sel         []int
	seen        int
	has, prevOK bool
	prev        float64
	prevT       int64
	run         int
	last        schema.Value
	lastOK      bool
	acc         float64
	accOK       bool
	runs        map[int]int
	lasts       map[int]schema.Value
	in          *schema.Schema
	key         string // the partition column, which a fill of every column leaves
}

func pvwNewOp(st pvwStep, in *schema.Schema, key string) *pvwOp {
	o := &pvwOp{st: st, in: in, key: key}
	o.j, _ = in.Index("cpu")
	switch st.kind {
	case "filter":
		o.keep = pvwKeep(in)
	case "select":
		for j, c := range in.Columns() {
			if c.Name == "cpu" || c.Name == "seq" {
				o.sel = append(o.sel, j)
			}
		}
	}
	return o
}

func (o *pvwOp) row(in schema.Row) (schema.Row, bool) {
	out := slices.Clone(in)
	x, ok := in[o.j].Num()
	switch o.st.kind {
	case "hold":
		if ok {
			o.last, o.lastOK, o.run = in[o.j], true, 0
			break
		}
		o.run++
		switch {
		case o.st.n > 0 && o.run > o.st.n:
		case o.lastOK:
			out[o.j] = o.last
		}
	case "holdall":
		// Every value column, each with its own last value and run.
		if o.runs == nil {
			o.runs, o.lasts = map[int]int{}, map[int]schema.Value{}
		}
		for j := 1; j < len(in); j++ {
			if !in[j].IsMissing() {
				o.runs[j], o.lasts[j] = 0, in[j]
				continue
			}
			o.runs[j]++
			if v, ok := o.lasts[j]; ok && (o.st.n == 0 || o.runs[j] <= o.st.n) {
				out[j] = v
			}
		}
	case "zero":
		// Every number column but the partition column.
		if o.runs == nil {
			o.runs = map[int]int{}
		}
		for j, c := range o.in.Columns() {
			if c.Kind != schema.Number || c.Name == o.key {
				continue
			}
			if !in[j].IsMissing() {
				o.runs[j] = 0
				continue
			}
			o.runs[j]++
			if o.st.n == 0 || o.runs[j] <= o.st.n {
				out[j] = schema.NumberValue(0)
			}
		}
	case "diff", "rate", "pct":
		t, _ := in[0].Nanos()
		res := schema.Missing()
		if o.has && ok && o.prevOK {
			d := x - o.prev
			switch o.st.kind {
			case "diff":
				res = schema.NumberValue(d)
			case "rate":
				if t != o.prevT {
					res = schema.NumberValue(d / (float64(t-o.prevT) / 1e9))
				}
			case "pct":
				if o.prev != 0 {
					res = schema.NumberValue(d / o.prev)
				}
			}
		}
		out[o.j] = res
		o.has, o.prevT, o.prev, o.prevOK = true, t, x, ok
	case "cum":
		if ok {
			switch o.st.using {
			case reduce.Sum:
				o.acc += x
			case reduce.Count:
				o.acc++
			case reduce.Min:
				if !o.accOK || x < o.acc {
					o.acc = x
				}
			case reduce.Max:
				if !o.accOK || x > o.acc {
					o.acc = x
				}
			}
			o.accOK = true
		}
		out[o.j] = schema.Missing()
		if o.accOK {
			out[o.j] = schema.NumberValue(o.acc)
		}
	case "filter":
		return out, o.keep(in)
	case "sample":
		o.seen++
		if o.seen < o.st.n {
			return nil, false
		}
		o.seen = 0
	case "select":
		out = schema.Row{in[0]}
		for _, j := range o.sel {
			out = append(out, in[j])
		}
	}
	return out, true
}

// pvwHeld is a row a node holds in the model.
type pvwHeld struct {
	t, seq int64
	key    string
	row    schema.Row
}

func pvwByKeyOrder(a, b pvwHeld) int {
	return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.seq, b.seq))
}

// pvwStage is the model of one view of a chain: its per-partition ops
// and the rows it holds.
type pvwStage struct {
	st      pvwStep
	id      live.NodeID
	in, out *schema.Schema
	key     string // the partition column
	ops     map[string]*pvwOp
	held    map[int64]pvwHeld
	maxT    map[string]int64
}

// pvwFlow is what a node passed on in one push: rows emitted (with their
// keys and seqs) and rows evicted.
type pvwFlow struct {
	rows []pvwHeld
	gone []pvwHeld
}

// feed runs a push's flow through the stage: its source's rows, then
// its source's evictions, then its own window's.
func (g *pvwStage) feed(in pvwFlow) pvwFlow {
	var out pvwFlow
	for _, h := range in.rows {
		op := g.ops[h.key]
		if op == nil {
			op = pvwNewOp(g.st, g.in, g.key)
			g.ops[h.key] = op
		}
		row, ok := op.row(h.row)
		if !ok {
			continue
		}
		nh := pvwHeld{t: h.t, seq: h.seq, key: h.key, row: row}
		g.held[h.seq] = nh
		out.rows = append(out.rows, nh)
		if old, ok := g.maxT[h.key]; !ok || h.t > old {
			g.maxT[h.key] = h.t
		}
	}
	for _, h := range in.gone {
		if mine, ok := g.held[h.seq]; ok {
			delete(g.held, h.seq)
			out.gone = append(out.gone, mine)
		}
	}
	out.gone = append(out.gone, g.trim()...)
	return out
}

// trim applies a window's own bound, per partition.
func (g *pvwStage) trim() []pvwHeld {
	var gone []pvwHeld
	switch g.st.kind {
	case "window":
		for seq, h := range g.held {
			if h.t < g.maxT[h.key]-int64(g.st.n) {
				gone = append(gone, h)
				delete(g.held, seq)
			}
		}
	case "wcount":
		by := map[string][]pvwHeld{}
		for _, h := range g.held {
			by[h.key] = append(by[h.key], h)
		}
		for _, hs := range by {
			slices.SortFunc(hs, pvwByKeyOrder)
			for _, h := range hs[:max(0, len(hs)-g.st.n)] {
				gone = append(gone, h)
				delete(g.held, h.seq)
			}
		}
	}
	return gone
}

// forget drops a removed partition's state (its rows left already).
func (g *pvwStage) forget(key string) {
	delete(g.ops, key)
	delete(g.maxT, key)
}

// replay starts a stage built on held rows: its source's holdings in
// arrival order, emitting nothing.
func (g *pvwStage) replay(src []pvwHeld) {
	rows := slices.Clone(src)
	slices.SortFunc(rows, func(a, b pvwHeld) int { return cmp.Compare(a.seq, b.seq) })
	g.feed(pvwFlow{rows: rows})
}

func (g *pvwStage) holdings() []pvwHeld {
	var hs []pvwHeld
	for _, h := range g.held {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, pvwByKeyOrder)
	return hs
}

// pvwClock is the model of a synchronised clock rolling (one window of
// span ms: count and sum of cpu) on a chain's end.
type pvwClock struct {
	step, span int64 // ms
	has        bool
	bucket     int64
	known      []string
	keys       map[string]schema.Value
	rows       map[string][]pvwHeld
	j          int
}

func (c *pvwClock) join(key string, kv schema.Value) {
	if _, ok := c.rows[key]; !ok {
		c.known = append(c.known, key)
		c.rows[key] = nil
		c.keys[key] = kv
	}
}

// take is the rows the rolling emits for a push's rows at its source.
func (c *pvwClock) take(in []pvwHeld, keyOf func(pvwHeld) schema.Value) []schema.Row {
	var out []schema.Row
	for _, h := range in {
		c.join(h.key, keyOf(h))
		c.rows[h.key] = append(c.rows[h.key], h)
		b := pvwFloorDiv(h.t, c.step)
		if !c.has {
			c.has, c.bucket = true, b
			continue
		}
		if b <= c.bucket {
			continue
		}
		c.bucket = b
		for _, k := range c.known {
			rs := c.rows[k][:0]
			n, sum := 0.0, 0.0
			for _, r := range c.rows[k] {
				if r.t < h.t-c.span {
					continue
				}
				rs = append(rs, r)
				if x, ok := r.row[c.j].Num(); ok {
					n++
					sum += x
				}
			}
			c.rows[k] = rs
			out = append(out, schema.Row{schema.MillisValue(b * c.step), c.keys[k], schema.NumberValue(n), schema.NumberValue(sum)})
		}
	}
	return out
}

func (c *pvwClock) forget(key string) {
	if i := slices.Index(c.known, key); i >= 0 {
		c.known = slices.Delete(c.known, i, i+1)
	}
	delete(c.rows, key)
}

func pvwFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// pvwCountRoll is the model of an event rolling over a count window of
// 3 rows (count and sum of cpu), per partition.
type pvwCountRoll struct {
	rows map[string][]schema.Value
	j    int
}

func (c *pvwCountRoll) take(in []pvwHeld, keyOf func(pvwHeld) schema.Value) []schema.Row {
	var out []schema.Row
	for _, h := range in {
		w := append(c.rows[h.key], h.row[c.j])
		if len(w) > 3 {
			w = w[1:]
		}
		c.rows[h.key] = w
		n, sum := 0.0, 0.0
		for _, v := range w {
			if x, ok := v.Num(); ok {
				n++
				sum += x
			}
		}
		out = append(out, schema.Row{h.row[0], keyOf(h), schema.NumberValue(n), schema.NumberValue(sum)})
	}
	return out
}

// pvwChain is one chain under probe, its model and the nodes on its end.
type pvwChain struct {
	name   string
	steps  []pvwStep
	stages []*pvwStage
	end    live.NodeID
	endSch *schema.Schema
	clock  live.NodeID // 0: none
	cm     *pvwClock
	count  live.NodeID
	crm    *pvwCountRoll
	red    live.NodeID
	gather live.NodeID
	gSch   *schema.Schema
	late   bool
}

// pvwCfg is one probe configuration.
type pvwCfg struct {
	name      string
	opts      live.Options
	key       string // "host" or "zone"
	part      partition.Options
	groups    []string // declared groups (model names), in order
	hosts     int      // keys drawn from
	late      int64    // ms a row may be late
	badLate   bool     // some pushes carry a row beyond the ordering
	clock     bool     // a clock rolling on each chain end
	unknown   bool     // now and then a key outside the declared groups
	noMissing bool     // no row without a key (outside unknown)
	lateOK    bool     // partitions keep every row: a twin built late equals one built first
	rows      int
	maxPush   int
	lateAt    int // the late twins are built after this many pushes
	nChains   int
	stepsMax  int
}

// pvwDrawKey draws a row's key.
func pvwDrawKey(rng *rand.Rand, c pvwCfg, r *pvwIn) {
	i := min(rng.IntN(c.hosts), rng.IntN(c.hosts)) // the first keys more often
	switch {
	case c.unknown && rng.IntN(150) == 0:
		i = c.hosts // outside the declared groups
	case !c.noMissing && rng.IntN(10) == 0:
		i = -1
	}
	if c.key == "host" {
		if i >= 0 {
			r.host, r.hostOK = pvwHosts[i], true
		}
		r.zone, r.zoneOK = float64(rng.IntN(3)), rng.IntN(4) > 0
		return
	}
	if i >= 0 {
		r.zone, r.zoneOK = float64(i*7-10)/2, true
	}
	r.host, r.hostOK = pvwHosts[rng.IntN(3)], true
}

// pvwDraw draws a push of n rows after latest.
func pvwDraw(rng *rand.Rand, c pvwCfg, n int, latest *int64, seq *int) []pvwIn {
	var rows []pvwIn
	t := *latest
	for range n {
		switch k := rng.IntN(10); {
		case k < 3:
		case c.late > 0 && k < 5:
			t = *latest - rng.Int64N(c.late+1)
		case k < 9:
			t = *latest + 1 + rng.Int64N(400)
		default:
			t = *latest + 1 + rng.Int64N(6000)
		}
		*latest = max(*latest, t)
		r := pvwIn{t: t, seq: *seq}
		*seq++
		if rng.IntN(5) > 0 {
			r.cpu, r.cpuOK = float64(rng.IntN(41)-20)/2, true
		}
		pvwDrawKey(rng, c, &r)
		rows = append(rows, r)
	}
	return rows
}

// pvwRandomSteps draws a chain of 1..max views.
func pvwRandomSteps(rng *rand.Rand, maxSteps int, noHoldingsChange bool) []pvwStep {
	kinds := []string{"hold", "zero", "diff", "rate", "pct", "cum", "holdall", "filter", "sample", "select", "window", "wcount"}
	if noHoldingsChange {
		kinds = kinds[:7]
	}
	usings := []reduce.Reducer{reduce.Sum, reduce.Count, reduce.Min, reduce.Max}
	var steps []pvwStep
	selected := false
	for range 1 + rng.IntN(maxSteps) {
		st := pvwStep{kind: kinds[rng.IntN(len(kinds))]}
		switch st.kind {
		case "hold", "zero", "holdall":
			st.n = rng.IntN(3)
		case "cum":
			st.using = usings[rng.IntN(len(usings))]
			st.n = slices.Index(usings, st.using)
		case "sample":
			st.n = 1 + rng.IntN(3)
		case "window":
			st.n = 200 + rng.IntN(3000)
		case "wcount":
			st.n = 1 + rng.IntN(4)
		case "select":
			if selected {
				st.kind = "diff"
			}
			selected = true
		}
		steps = append(steps, st)
	}
	return steps
}

// pvwModel is the model of the series and its partitioning.
type pvwModel struct {
	c        pvwCfg
	latest   int64
	has      bool
	parts    []string // first-seen order, declared groups first
	keys     map[string]schema.Value
	declared map[string]bool
	held     map[string][]pvwHeld // partition rows, key order
	lastT    map[string]int64
	lastAny  int64
	anyRow   bool
	keyOfSeq map[int64]schema.Value
}

func (m *pvwModel) keyVal(r pvwIn) schema.Value {
	if m.c.key == "host" {
		return r.row()[2]
	}
	return r.row()[3]
}

// push is what the partitioning does with a push: the rows it routes
// and evicts, the partitions removed, or the error a push must fail
// with.
func (m *pvwModel) push(in []pvwIn) (flow pvwFlow, pre, removed []string, err error) {
	c := m.c
	// Ordering.
	latest, has := m.latest, m.has
	var acc []pvwIn
	for i, r := range in {
		if has && r.t < latest {
			switch c.opts.Ordering {
			case live.Strict:
				return flow, nil, nil, fmt.Errorf("row %d: %w", i, live.ErrOutOfOrder)
			case live.Drop:
				continue
			case live.Reorder:
				if c.opts.Grace > 0 && latest-r.t > c.opts.Grace.Milliseconds() {
					return flow, nil, nil, fmt.Errorf("row %d: %w", i, live.ErrLate)
				}
			}
		}
		latest, has = max(latest, r.t), true
		acc = append(acc, r)
	}
	// Groups and the limit.
	var fresh []string
	routedTo := map[string]bool{}
	for _, r := range acc {
		k := pvwKeyOf(m.keyVal(r))
		routedTo[k] = true
		if len(m.declared) > 0 && !m.declared[k] {
			return flow, nil, nil, fmt.Errorf("group: %w", partition.ErrUnknownGroup)
		}
		if _, ok := m.held[k]; !ok && !slices.Contains(fresh, k) {
			fresh = append(fresh, k)
		}
	}
	var idle []string
	if c.part.IdleTTL > 0 && len(acc) > 0 {
		for _, k := range m.parts {
			if !m.declared[k] && !routedTo[k] && m.lastT[k] < latest-c.part.IdleTTL.Milliseconds() {
				idle = append(idle, k)
			}
		}
	}
	if mp := c.part.MaxPartitions; mp > 0 && len(m.parts)+len(fresh) > mp {
		if len(m.parts)-len(idle)+len(fresh) > mp {
			return flow, nil, nil, fmt.Errorf("limit: %w", partition.ErrLimit)
		}
		for _, k := range idle {
			flow.gone = append(flow.gone, m.remove(k)...)
			pre = append(pre, k)
		}
	}
	if len(acc) > 0 {
		m.latest, m.has = latest, true
	}
	// Routing.
	for _, r := range acc {
		kv := m.keyVal(r)
		k := pvwKeyOf(kv)
		if _, ok := m.held[k]; !ok {
			m.parts = append(m.parts, k)
			m.keys[k] = kv
			m.held[k] = nil
		}
		h := pvwHeld{t: r.t, seq: int64(r.seq), key: k, row: r.row()}
		m.keyOfSeq[h.seq] = kv
		hs := append(m.held[k], h)
		slices.SortStableFunc(hs, pvwByKeyOrder)
		m.held[k] = hs
		if t, ok := m.lastT[k]; !ok || r.t > t {
			m.lastT[k] = r.t
		}
		if !m.anyRow || r.t > m.lastAny {
			m.lastAny, m.anyRow = r.t, true
		}
		flow.rows = append(flow.rows, h)
	}
	// Retention, per partition, inherited when zero.
	maxEv, maxAge := c.part.MaxEvents, c.part.MaxAge
	if maxEv == 0 {
		maxEv = c.opts.MaxEvents
	}
	if maxAge == 0 {
		maxAge = c.opts.MaxAge
	}
	for _, k := range m.parts {
		hs := m.held[k]
		cut := 0
		if maxAge > 0 && len(hs) > 0 {
			for cut < len(hs) && hs[cut].t < hs[len(hs)-1].t-maxAge.Milliseconds() {
				cut++
			}
		}
		if maxEv > 0 {
			cut = max(cut, len(hs)-maxEv)
		}
		flow.gone = append(flow.gone, hs[:cut]...)
		m.held[k] = slices.Clone(hs[cut:])
	}
	// Idle partitions.
	if c.part.IdleTTL > 0 {
		for _, k := range slices.Clone(m.parts) {
			if !m.declared[k] && m.lastT[k] < m.lastAny-c.part.IdleTTL.Milliseconds() {
				flow.gone = append(flow.gone, m.remove(k)...)
				removed = append(removed, k)
			}
		}
	}
	return flow, pre, removed, nil
}

func (m *pvwModel) remove(k string) []pvwHeld {
	gone := m.held[k]
	delete(m.held, k)
	delete(m.lastT, k)
	i := slices.Index(m.parts, k)
	m.parts = slices.Delete(m.parts, i, i+1)
	return gone
}

func (m *pvwModel) holdings() []pvwHeld {
	var hs []pvwHeld
	for _, k := range m.parts {
		hs = append(hs, m.held[k]...)
	}
	slices.SortFunc(hs, pvwByKeyOrder)
	return hs
}

// pvwSame reports whether two cells agree: numbers within a relative
// 1e-9 (a rate's or a pctChange's division may round otherwise) or an
// absolute 1e-7 (a compensated sum of rates that cancel is the more
// exact).
func pvwSame(got, want schema.Value) bool {
	g, gok := got.Num()
	w, wok := want.Num()
	if gok && wok {
		return g == w || math.Abs(g-w) <= 1e-9*math.Max(math.Abs(g), math.Abs(w))+1e-7
	}
	return got.Equal(want)
}

func pvwRows(tab *schema.Table, ok bool) []schema.Row {
	if !ok || tab == nil {
		return nil
	}
	var rows []schema.Row
	for _, r := range tab.All() {
		rows = append(rows, r)
	}
	return rows
}

// pvwCheck compares rows with the model's, in order.
func pvwCheck(got, want []schema.Row) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d: %v, want %v", i, got[i], want[i])
		}
		for j := range got[i] {
			if !pvwSame(got[i][j], want[i][j]) {
				return fmt.Sprintf("row %d cell %d: %v, want %v (row %v, want %v)", i, j, got[i][j], want[i][j], got[i], want[i])
			}
		}
	}
	return ""
}

// pvwCheckSet compares rows with the model's as multisets (evictions
// come in no documented order).
func pvwCheckSet(got []schema.Row, want []pvwHeld) string {
	s := func(rs []schema.Row) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprint(r))
		}
		slices.Sort(out)
		return out
	}
	var w []schema.Row
	for _, h := range want {
		w = append(w, h.row)
	}
	if g, ww := s(got), s(w); !slices.Equal(g, ww) {
		return fmt.Sprintf("got %v\nwant %v", g, ww)
	}
	return ""
}

func pvwHeldRows(hs []pvwHeld) []schema.Row {
	var rows []schema.Row
	for _, h := range hs {
		rows = append(rows, h.row)
	}
	return rows
}

// pvwOutputOrder checks a push's outputs: Event, then Batch, then Evict,
// each in build order, at most one per node and kind, none empty.
func pvwOutputOrder(out []live.Output) string {
	for i, o := range out {
		if o.Events == nil || o.Events.Len() == 0 {
			return fmt.Sprintf("output %d (node %d, %v) is empty", i, o.Node, o.Kind)
		}
		if i > 0 {
			p := out[i-1]
			if p.Kind > o.Kind || p.Kind == o.Kind && p.Node >= o.Node {
				return fmt.Sprintf("output %d (node %d, %v) after (node %d, %v)", i, o.Node, o.Kind, p.Node, p.Kind)
			}
		}
	}
	return ""
}

// pvwRun is one probe: the series, the model and the chains.
type pvwRun struct {
	t       *testing.T
	c       pvwCfg
	s       *live.Series
	part    live.NodeID
	m       *pvwModel
	chains  []*pvwChain
	checks  int
	refused map[string]int // refused pushes, by the sentinel
}

func (p *pvwRun) keyOf(h pvwHeld) schema.Value { return p.m.keyOfSeq[h.seq] }

// build builds one chain (with its rollings, reduce and gather) on the
// partitioning; late, it starts from the rows the model holds.
func (p *pvwRun) build(name string, steps []pvwStep, late bool) {
	t, s := p.t, p.s
	ch := &pvwChain{name: name, steps: steps, late: late}
	var stages []*pvwStage
	end, err := s.PerPartition(p.part, func(s *live.Series, src live.NodeID) (live.NodeID, error) {
		for _, st := range steps {
			inSch, err := s.NodeSchema(src)
			if err != nil {
				return 0, err
			}
			id, err := st.build(s, src)
			if err != nil {
				return 0, fmt.Errorf("%v: %w", st, err)
			}
			outSch, err := s.NodeSchema(id)
			if err != nil {
				return 0, err
			}
			stages = append(stages, &pvwStage{st: st, id: id, in: inSch, out: outSch, key: p.c.key,
				ops: map[string]*pvwOp{}, held: map[int64]pvwHeld{}, maxT: map[string]int64{}})
			src = id
		}
		return src, nil
	})
	require.NoError(t, err, name)
	ch.stages, ch.end = stages, end
	if late {
		src := p.m.holdings()
		for _, g := range stages {
			g.replay(src)
			g.trim()
			src = g.holdings()
		}
	}
	ch.endSch, err = s.NodeSchema(end)
	require.NoError(t, err)
	j, _ := ch.endSch.Index("cpu")
	aggs := []reduce.Agg{{Out: "n", From: "cpu", Using: reduce.Count}, {Out: "sum", From: "cpu", Using: reduce.Sum}}
	// Built late, only where its partitions' order is the order of the
	// rows replayed (every row kept, no view that drops or trims rows):
	// see TestPvwRollingBuiltLateOnAViewOfPartitionsTicksInFirstSeenOrder.
	simple := true
	for _, st := range steps {
		simple = simple && slices.Contains([]string{"hold", "holdall", "zero", "diff", "rate", "pct", "cum", "select"}, st.kind)
	}
	if p.c.clock && (!late || p.c.lateOK && simple) {
		ch.cm = &pvwClock{step: 500, span: 1500, keys: map[string]schema.Value{}, rows: map[string][]pvwHeld{}, j: j}
		for _, g := range p.c.groups {
			ch.cm.join(g, p.m.keys[g])
		}
		if late {
			// The partitions join in first-seen order (Partitions); the
			// replay's ticks are not output.
			src := ch.stages[len(ch.stages)-1].holdings()
			hasRows := map[string]bool{}
			for _, h := range src {
				hasRows[h.key] = true
			}
			for _, k := range p.m.parts {
				if hasRows[k] {
					ch.cm.join(k, p.m.keys[k])
				}
			}
			slices.SortFunc(src, func(a, b pvwHeld) int { return cmp.Compare(a.seq, b.seq) })
			ch.cm.take(src, p.keyOf)
		}
		ch.clock, err = s.Rolling(end, []rolling.Window{{Span: 1500 * time.Millisecond, Aggs: aggs}},
			rolling.Options{Trigger: trigger.Clock(sequence.Every(500 * time.Millisecond))})
		require.NoError(t, err)
		require.NoError(t, s.Watch(ch.clock))
	}
	ch.crm = &pvwCountRoll{rows: map[string][]schema.Value{}, j: j}
	if late {
		src := ch.stages[len(ch.stages)-1].holdings()
		slices.SortFunc(src, func(a, b pvwHeld) int { return cmp.Compare(a.seq, b.seq) })
		ch.crm.take(src, p.keyOf)
	}
	ch.count, err = s.Rolling(end, []rolling.Window{{Count: 3, Aggs: aggs}}, rolling.Options{})
	require.NoError(t, err)
	ch.red, err = s.Reduce(end, aggs, trigger.Event())
	require.NoError(t, err)
	ch.gather, err = s.Gather(end)
	require.NoError(t, err)
	ch.gSch, err = s.NodeSchema(ch.gather)
	require.NoError(t, err)
	for _, g := range stages {
		require.NoError(t, s.Watch(g.id, live.Event, live.Evict))
	}
	require.NoError(t, s.Watch(ch.count))
	require.NoError(t, s.Watch(ch.red))
	require.NoError(t, s.Watch(ch.gather, live.Event, live.Evict))
	p.chains = append(p.chains, ch)
}

// forget drops a partition removed before a push's rows are routed.
func (ch *pvwChain) forget(key string) {
	for _, g := range ch.stages {
		g.forget(key)
	}
	if ch.cm != nil {
		ch.cm.forget(key)
	}
	delete(ch.crm.rows, key)
}

// gathered is a row of the chain's end as its gather emits it: with the
// partition column after the time when the end lacks it.
func (p *pvwRun) gathered(ch *pvwChain, h pvwHeld) schema.Row {
	if _, ok := ch.endSch.Index(p.c.key); ok {
		return h.row
	}
	return slices.Concat(schema.Row{h.row[0], p.keyOf(h)}, h.row[1:])
}

// step pushes one batch and checks every output against the model.
func (p *pvwRun) step(in []pvwIn, k int) {
	t, s := p.t, p.s
	var batch []schema.Row
	for _, r := range in {
		batch = append(batch, r.row())
	}
	flow, pre, removed, want := p.m.push(in)
	out, err := s.PushRows(nil, batch...)
	where := fmt.Sprintf("%s, push %d", p.c.name, k)
	if want != nil {
		require.Error(t, err, "%s: want %v", where, want)
		require.ErrorIs(t, err, errors.Unwrap(want), where)
		var ke *partition.KeyError
		if errors.Is(want, partition.ErrLimit) || errors.Is(want, partition.ErrUnknownGroup) {
			require.ErrorAs(t, err, &ke)
			if errors.Is(want, partition.ErrLimit) {
				require.Equal(t, p.c.part.MaxPartitions, ke.Limit)
			}
			require.Equal(t, p.c.key, ke.Column)
			j, _ := pvwSchema.Index(p.c.key)
			require.Equal(t, pvwKeyOf(batch[ke.Row][j]), pvwKeyOf(ke.Key), "%s: the key named is its row's", where)
			require.Contains(t, err.Error(), p.c.key)
		}
		require.Nil(t, out)
		p.refused[errors.Unwrap(want).Error()]++
		return
	}
	require.NoError(t, err, where)
	if msg := pvwOutputOrder(out); msg != "" {
		t.Fatalf("%s: %s", where, msg)
	}
	// The partitioning.
	got := pvwRows(live.Find(out, p.part, live.Event))
	if msg := pvwCheck(got, pvwHeldRows(flow.rows)); msg != "" {
		t.Fatalf("%s: partition events: %s", where, msg)
	}
	if msg := pvwCheckSet(pvwRows(live.Find(out, p.part, live.Evict)), flow.gone); msg != "" {
		t.Fatalf("%s: partition evictions: %s", where, msg)
	}
	p.checks += len(got)
	for _, ch := range p.chains {
		f := flow
		for _, r := range pre {
			ch.forget(r)
		}
		for _, g := range ch.stages {
			f = g.feed(f)
			for _, r := range removed {
				g.forget(r)
			}
			w := fmt.Sprintf("%s: chain %s (late %v) view %v node %d", where, ch.name, ch.late, g.st, g.id)
			got := pvwRows(live.Find(out, g.id, live.Event))
			if msg := pvwCheck(got, pvwHeldRows(f.rows)); msg != "" {
				t.Fatalf("%s: events: %s", w, msg)
			}
			if msg := pvwCheckSet(pvwRows(live.Find(out, g.id, live.Evict)), f.gone); msg != "" {
				t.Fatalf("%s: evictions: %s", w, msg)
			}
			p.checks += len(got)
		}
		w := fmt.Sprintf("%s: chain %s (late %v)", where, ch.name, ch.late)
		if ch.cm != nil {
			want := ch.cm.take(f.rows, p.keyOf)
			for _, r := range removed {
				ch.cm.forget(r)
			}
			got := pvwRows(live.Find(out, ch.clock, live.Event))
			if msg := pvwCheck(got, want); msg != "" {
				t.Fatalf("%s: clock rolling: %s", w, msg)
			}
			p.checks += len(got)
		}
		want := ch.crm.take(f.rows, p.keyOf)
		for _, r := range removed {
			delete(ch.crm.rows, r)
		}
		got := pvwRows(live.Find(out, ch.count, live.Event))
		if msg := pvwCheck(got, want); msg != "" {
			t.Fatalf("%s: count rolling: %s", w, msg)
		}
		p.checks += len(got)
		// The reduce: once, keyed at the last row that reached it, over
		// what the chain's end holds after the push.
		var wantRed []schema.Row
		if len(f.rows) > 0 {
			n, sum := 0.0, 0.0
			j, _ := ch.endSch.Index("cpu")
			for _, h := range ch.stages[len(ch.stages)-1].held {
				if x, ok := h.row[j].Num(); ok {
					n++
					sum += x
				}
			}
			wantRed = []schema.Row{{f.rows[len(f.rows)-1].row[0], schema.NumberValue(n), schema.NumberValue(sum)}}
		}
		if msg := pvwCheck(pvwRows(live.Find(out, ch.red, live.Event)), wantRed); msg != "" {
			t.Fatalf("%s: reduce: %s", w, msg)
		}
		var wantG []schema.Row
		for _, h := range f.rows {
			wantG = append(wantG, p.gathered(ch, h))
		}
		if msg := pvwCheck(pvwRows(live.Find(out, ch.gather, live.Event)), wantG); msg != "" {
			t.Fatalf("%s: gather: %s", w, msg)
		}
		var goneG []pvwHeld
		for _, h := range f.gone {
			h.row = p.gathered(ch, h)
			goneG = append(goneG, h)
		}
		if msg := pvwCheckSet(pvwRows(live.Find(out, ch.gather, live.Evict)), goneG); msg != "" {
			t.Fatalf("%s: gather evictions: %s", w, msg)
		}
	}
}

// between checks what a reader sees between pushes: Partitions, and the
// snapshots of the partitioning and of every view.
func (p *pvwRun) between(k int) {
	t, s := p.t, p.s
	where := fmt.Sprintf("%s, after push %d", p.c.name, k)
	ps, err := s.Partitions(p.part)
	require.NoError(t, err)
	var keys []string
	for _, q := range ps {
		keys = append(keys, pvwKeyOf(q.Key))
		require.Equal(t, len(p.m.held[pvwKeyOf(q.Key)]), q.Length, "%s: partition %v", where, q.Key)
	}
	require.Equal(t, p.m.parts, keys, "%s: partitions in first-seen order", where)
	snap, err := s.Snapshot(p.part)
	require.NoError(t, err)
	if msg := pvwCheck(pvwRows(snap, true), pvwHeldRows(p.m.holdings())); msg != "" {
		t.Fatalf("%s: partition snapshot: %s", where, msg)
	}
	for _, ch := range p.chains {
		for _, g := range ch.stages {
			snap, err := s.Snapshot(g.id)
			require.NoError(t, err)
			if msg := pvwCheck(pvwRows(snap, true), pvwHeldRows(g.holdings())); msg != "" {
				t.Fatalf("%s: chain %s (late %v) view %v: snapshot: %s", where, ch.name, ch.late, g.st, msg)
			}
			ps, err := s.Partitions(g.id)
			require.NoError(t, err)
			require.Len(t, ps, len(p.m.parts), "%s: Partitions of a view lists the partitioning's", where)
			p.checks += snap.Len()
		}
	}
}

// pvwProbe runs one configuration under one seed.
func pvwProbe(t *testing.T, c pvwCfg, seed uint64, refused map[string]int) int {
	rng := rand.New(rand.NewPCG(seed, 41))
	s, err := live.New("pvw", pvwSchema, c.opts)
	require.NoError(t, err)
	m := &pvwModel{c: c, keys: map[string]schema.Value{}, declared: map[string]bool{}, held: map[string][]pvwHeld{},
		lastT: map[string]int64{}, keyOfSeq: map[int64]schema.Value{}}
	popts := c.part
	for _, g := range c.groups {
		var v schema.Value
		switch {
		case g == "∅":
			v = schema.Missing()
		case c.key == "host":
			v = schema.StringValue(strings.Trim(g, `"`))
		default:
			var x float64
			_, err := fmt.Sscan(g, &x)
			require.NoError(t, err)
			v = schema.NumberValue(x)
		}
		require.Equal(t, g, pvwKeyOf(v))
		popts.Groups = append(popts.Groups, v)
		m.parts = append(m.parts, g)
		m.keys[g], m.declared[g], m.held[g] = v, true, nil
	}
	part, err := s.PartitionBy(s.Root(), c.key, popts)
	require.NoError(t, err)
	require.NoError(t, s.Watch(part, live.Event, live.Evict))
	p := &pvwRun{t: t, c: c, s: s, part: part, m: m, refused: refused}
	var chainSteps [][]pvwStep
	for i := range c.nChains {
		steps := pvwRandomSteps(rng, c.stepsMax, c.lateOK && c.clock && i%2 == 0)
		chainSteps = append(chainSteps, steps)
		p.build(fmt.Sprint(steps), steps, false)
	}
	latest, seq := int64(1_000_000), 0
	for k := 0; seq < c.rows && k < 20*c.rows; k++ {
		if k == c.lateAt {
			for _, steps := range chainSteps {
				p.build(fmt.Sprint(steps), steps, true)
			}
		}
		n := 1 + rng.IntN(c.maxPush)
		if rng.IntN(8) == 0 {
			n = 0
		}
		saveLatest, saveSeq := latest, seq
		in := pvwDraw(rng, c, n, &latest, &seq)
		if c.badLate && len(in) > 0 && rng.IntN(6) == 0 {
			// A row beyond the ordering: the push must fail whole.
			in[rng.IntN(len(in))].t = m.latest - c.opts.Grace.Milliseconds() - 1 - rng.Int64N(50)
		}
		p.step(in, k)
		if len(in) > 0 && p.lastFailed(in) {
			latest, seq = saveLatest, saveSeq // refused: draw again from where the model is
		}
		if k%5 == 0 {
			p.between(k)
		}
	}
	p.between(-1)
	return p.checks
}

// lastFailed reports whether the model refused in (it kept none of its
// seqs).
func (p *pvwRun) lastFailed(in []pvwIn) bool {
	for _, r := range in {
		if _, ok := p.m.keyOfSeq[int64(r.seq)]; ok {
			return false
		}
	}
	return true
}

func pvwConfigs() []pvwCfg {
	return []pvwCfg{
		{name: "strict all kept", key: "host", hosts: 5, clock: true, lateOK: true, rows: 168, maxPush: 40, lateAt: 6, nChains: 4, stepsMax: 4},
		{name: "strict all kept, big pushes", key: "host", hosts: 6, clock: true, lateOK: true, rows: 360, maxPush: 500, lateAt: 2, nChains: 3, stepsMax: 3},
		{name: "strict number key, groups", key: "zone", hosts: 3, groups: []string{"-5", "∅", "-1.5", "2"}, unknown: true, clock: true, lateOK: true, badLate: true,
			rows: 144, maxPush: 30, lateAt: 5, nChains: 4, stepsMax: 4},
		{name: "strict groups with an unknown key", key: "host", hosts: 4, groups: []string{`"db"`, `"api-1"`, `""`, `"ü→東"`}, unknown: true, noMissing: true, clock: true, lateOK: true,
			rows: 120, maxPush: 8, lateAt: 7, nChains: 3, stepsMax: 4},
		{name: "strict inherited retention", key: "host", hosts: 4, opts: live.Options{MaxEvents: 6}, clock: true, rows: 144, maxPush: 25, lateAt: 5, nChains: 4, stepsMax: 4},
		{name: "strict own retention", key: "host", hosts: 5, opts: live.Options{MaxAge: 2 * time.Second}, part: partition.Options{MaxEvents: 3, MaxAge: 1500 * time.Millisecond},
			clock: true, badLate: true, rows: 144, maxPush: 25, lateAt: 4, nChains: 4, stepsMax: 4},
		{name: "strict max events 1", key: "host", hosts: 5, part: partition.Options{MaxEvents: 1}, clock: true, rows: 120, maxPush: 20, lateAt: 3, nChains: 4, stepsMax: 3},
		{name: "drop idle ttl", key: "host", hosts: 7, opts: live.Options{Ordering: live.Drop}, part: partition.Options{IdleTTL: 2 * time.Second},
			late: 600, clock: true, lateOK: true, rows: 168, maxPush: 20, lateAt: 6, nChains: 4, stepsMax: 4},
		{name: "drop limit", key: "host", hosts: 6, opts: live.Options{Ordering: live.Drop, MaxEvents: 20}, part: partition.Options{MaxPartitions: 4},
			late: 500, clock: true, rows: 120, maxPush: 10, lateAt: 5, nChains: 3, stepsMax: 4},
		{name: "strict limit and idle ttl", key: "zone", hosts: 6, part: partition.Options{MaxPartitions: 3, IdleTTL: 1500 * time.Millisecond, MaxEvents: 4},
			clock: true, rows: 144, maxPush: 6, lateAt: 8, nChains: 3, stepsMax: 4},
		{name: "reorder grace", key: "host", hosts: 5, opts: live.Options{Ordering: live.Reorder, Grace: time.Second, MaxAge: 3 * time.Second},
			part: partition.Options{MaxEvents: 4}, late: 1200, badLate: true, rows: 144, maxPush: 25, lateAt: 5, nChains: 4, stepsMax: 4},
		{name: "reorder any lateness, all kept", key: "zone", hosts: 4, opts: live.Options{Ordering: live.Reorder}, late: 5000,
			lateOK: true, rows: 144, maxPush: 30, lateAt: 4, nChains: 4, stepsMax: 4},
		{name: "reorder idle ttl", key: "host", hosts: 6, opts: live.Options{Ordering: live.Reorder, Grace: 500 * time.Millisecond},
			part: partition.Options{IdleTTL: time.Second, MaxAge: 800 * time.Millisecond}, late: 500, rows: 144, maxPush: 15, lateAt: 6, nChains: 4, stepsMax: 4},
	}
}

// TestPvwChainsProbe runs every configuration under a few seeds.
func TestPvwChainsProbe(t *testing.T) {
	checks, refused := 0, map[string]int{}
	for _, c := range pvwConfigs() {
		for _, seed := range []uint64{1} {
			t.Run(fmt.Sprintf("%s seed %d", c.name, seed), func(t *testing.T) {
				checks += pvwProbe(t, c, seed, refused)
			})
		}
	}
	t.Logf("%d rows checked; refused pushes %v", checks, refused)
	require.Greater(t, checks, 50_000)
	for _, e := range []error{live.ErrOutOfOrder, live.ErrLate, partition.ErrUnknownGroup, partition.ErrLimit} {
		require.NotZero(t, refused[e.Error()], "no push refused with %v", e)
	}
}
