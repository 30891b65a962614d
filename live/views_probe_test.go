package live_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// The view probes: seeded random streams of adversarial values (±0,
// missing cells, outliers up to ±MaxFloat64, subnormals, equal times,
// gaps, late rows) through every kind of view, on the root, on a
// partitioning by host, and on nodes that hold no rows (a rolling, an
// aggregate), under every ordering and retention, pushed one row at a
// time, in random batches and all at once. Every view is checked, push
// by push, against a model of its documented behaviour fed with what its
// source actually emitted and evicted: its Event output row by row, its
// Evict output (as a multiset) and its Snapshot (in key order); and the
// outputs of the three batchings are compared with each other.

// vpSchema is [time, value (optional number), host (optional string),
// seq (number)]: seq numbers the rows in push order, which is arrival
// order, so it identifies a row through every view that keeps it.
var vpSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "value", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String, Optional: true},
	schema.Column{Name: "seq", Kind: schema.Number},
)

// vpRow is a row of vpSchema; t in milliseconds.
type vpRow struct {
	t      int64
	v      float64
	vOK    bool
	host   string
	hostOK bool
	seq    int
}

func (r vpRow) row() schema.Row {
	v, h := schema.Missing(), schema.Missing()
	if r.vOK {
		v = schema.NumberValue(r.v)
	}
	if r.hostOK {
		h = schema.StringValue(r.host)
	}
	return schema.Row{schema.MillisValue(r.t), v, h, schema.NumberValue(float64(r.seq))}
}

// vpPool holds the adversarial values a probe draws from.
var vpPool = []float64{
	0, math.Copysign(0, -1), 1, -1, 2, 3, -3, 0.1, 0.5, 1e16, -1e16,
	1e300, -1e300, math.MaxFloat64, -math.MaxFloat64, 1.7e308, -1.7e308,
	0x1p959, -0x1p959, 0x1p960, -0x1p960, 0x1p1000, -0x1p1000,
	5e-324, -5e-324, 1e-310, 0x1p-1022, 1e-300, -3e-300,
}

// vpDraw returns a value and whether it is present.
func vpDraw(rng *rand.Rand, prev float64) (float64, bool) {
	switch k := rng.IntN(20); {
	case k < 3:
		return 0, false
	case k < 5:
		return prev, true
	case k < 8:
		x := math.Ldexp(rng.Float64()-0.5, rng.IntN(2100)-1074)
		if x-x != 0 {
			x = 1
		}
		return x, true
	case k < 11:
		return float64(rng.IntN(7) - 3), true
	}
	return vpPool[rng.IntN(len(vpPool))], true
}

// vpRows draws n rows: equal times, gaps, and (when late > 0) rows up to
// late ms older than the latest.
func vpRows(rng *rand.Rand, n int, late int64, hosts int) []vpRow {
	var rows []vpRow
	t, latest, prev := int64(1_000_000), int64(1_000_000), 0.0
	for i := range n {
		switch k := rng.IntN(10); {
		case k < 3: // same time
		case late > 0 && k < 5:
			t = latest - rng.Int64N(late+1)
		case k < 9:
			t = latest + 1 + rng.Int64N(900)
		default:
			t = latest + 1 + rng.Int64N(20_000)
		}
		latest = max(latest, t)
		x, ok := vpDraw(rng, prev)
		if ok {
			prev = x
		}
		r := vpRow{t: t, v: x, vOK: ok, seq: i}
		if hosts > 0 {
			if h := rng.IntN(hosts + 1); h < hosts {
				r.host, r.hostOK = string(rune('a'+h)), true
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// vpCell is a cell a model expects: a value, or a number within tol of
// it; either accepts a missing cell too (a result at the float64
// range's edge).
type vpCell struct {
	v      schema.Value
	tol    float64
	either bool
}

func vpExact(v schema.Value) vpCell { return vpCell{v: v} }

// vpMatch returns "" if got is what c expects, else what is wrong.
func vpMatch(got schema.Value, c vpCell) string {
	if got.IsMissing() && (c.v.IsMissing() || c.either) {
		return ""
	}
	g, gok := got.Num()
	w, wok := c.v.Num()
	if gok && wok {
		if g == w || math.Abs(g-w) <= c.tol {
			return ""
		}
		return fmt.Sprintf("got %v, want %v (±%v)", g, w, c.tol)
	}
	if got.Equal(c.v) {
		return ""
	}
	return fmt.Sprintf("got %v, want %v", got, c.v)
}

// vpUlp is the spacing of float64 values at |x|.
func vpUlp(x float64) float64 {
	x = math.Abs(x)
	if x-x != 0 {
		return math.Inf(1)
	}
	return math.Nextafter(x, math.Inf(1)) - x
}

// vpNum returns the cell of exact value q rounded, within ulps, missing
// when beyond the float64 range (either, near its edge).
func vpNum(q *big.Float, ulps float64) vpCell {
	f, _ := q.Float64()
	if math.IsInf(f, 0) {
		return vpCell{v: schema.Missing(), either: true}
	}
	c := vpCell{v: schema.NumberValue(f), tol: ulps*vpUlp(f) + ulps*5e-324}
	if math.Abs(f) >= math.MaxFloat64*(1-1e-14) {
		c.either = true
	}
	return c
}

const vpPrec = 4096

func vpBig(x float64) *big.Float { return new(big.Float).SetPrec(vpPrec).SetFloat64(x) }

// vpOp is a model of a view's per-row work in one partition: the row it
// emits for row in (cells of the source schema), or false.
type vpOp interface {
	row(in schema.Row) ([]vpCell, bool)
}

// vpView is a view under probe: how to build it on a source, and its
// model.
type vpView struct {
	name  string
	build func(s *live.Series, src live.NodeID) (live.NodeID, error)
	// op returns a fresh model of one partition for a source schema.
	op     func(src *schema.Schema) vpOp
	window *vpWindow // a window's bound, nil for other views
	passes bool      // rows pass unchanged or not at all (a filter, a sample)
}

// vpWindow is a window's bound: a span (ms) or a count.
type vpWindow struct {
	span  int64
	count int
}

// vpPass is the model of a view that copies rows.
type vpPass struct{ keep func(in schema.Row) bool }

func (o *vpPass) row(in schema.Row) ([]vpCell, bool) {
	if o.keep != nil && !o.keep(in) {
		return nil, false
	}
	out := make([]vpCell, len(in))
	for j, v := range in {
		out[j] = vpExact(v)
	}
	return out, true
}

// vpSample keeps every stride-th row.
type vpSample struct{ stride, seen int }

func (o *vpSample) row(in schema.Row) ([]vpCell, bool) {
	o.seen++
	if o.seen < o.stride {
		return nil, false
	}
	o.seen = 0
	return (&vpPass{}).row(in)
}

// vpChange is diff, rate or pctChange of column j.
type vpChange struct {
	kind  string
	j     int
	has   bool
	prevT int64
	prev  float64
	prevK bool
}

func (o *vpChange) row(in schema.Row) ([]vpCell, bool) {
	out, _ := (&vpPass{}).row(in)
	t, _ := in[0].Nanos()
	cur, ok := in[o.j].Num()
	res := vpCell{v: schema.Missing()}
	if o.has && ok && o.prevK {
		d := new(big.Float).SetPrec(vpPrec).Sub(vpBig(cur), vpBig(o.prev))
		switch o.kind {
		case "diff":
			res = vpNum(d, 0)
		case "rate":
			if dt := t - o.prevT; dt != 0 {
				q := d.Mul(d, vpBig(1e9))
				res = vpNum(q.Quo(q, new(big.Float).SetPrec(vpPrec).SetInt64(dt)), 4)
			}
		case "pct":
			if o.prev != 0 {
				res = vpNum(d.Quo(d, vpBig(o.prev)), 4)
			}
		}
	}
	out[o.j] = res
	o.has, o.prevT, o.prev, o.prevK = true, t, cur, ok
	return out, true
}

// vpCum is a running total of column j.
type vpCum struct {
	using    reduce.Reducer
	j        int
	n        int
	sum, abs *big.Float
	acc      float64
	has      bool
}

func (o *vpCum) row(in schema.Row) ([]vpCell, bool) {
	out, _ := (&vpPass{}).row(in)
	if o.sum == nil {
		o.sum, o.abs = vpBig(0), vpBig(0)
	}
	if x, ok := in[o.j].Num(); ok {
		o.n++
		switch o.using {
		case reduce.Sum:
			o.sum.Add(o.sum, vpBig(x))
			o.abs.Add(o.abs, vpBig(math.Abs(x)))
		case reduce.Count:
			o.acc++
		case reduce.Min:
			if !o.has || x < o.acc {
				o.acc = x
			}
		case reduce.Max:
			if !o.has || x > o.acc {
				o.acc = x
			}
		}
		o.has = true
	}
	switch {
	case !o.has:
		out[o.j] = vpExact(schema.Missing())
	case o.using == reduce.Sum:
		c := vpNum(o.sum, 4)
		a, _ := o.abs.Float64()
		c.tol += float64(o.n) * 0x1p-100 * a
		out[o.j] = c
	default:
		out[o.j] = vpExact(schema.NumberValue(o.acc))
	}
	return out, true
}

// vpFill fills columns js.
type vpFill struct {
	zero  bool
	limit int
	js    []int
	last  map[int]schema.Value
	run   map[int]int
}

func (o *vpFill) row(in schema.Row) ([]vpCell, bool) {
	out, _ := (&vpPass{}).row(in)
	if o.last == nil {
		o.last, o.run = map[int]schema.Value{}, map[int]int{}
	}
	for _, j := range o.js {
		if !in[j].IsMissing() {
			o.last[j], o.run[j] = in[j], 0
			continue
		}
		o.run[j]++
		switch last, ok := o.last[j]; {
		case o.limit > 0 && o.run[j] > o.limit:
		case o.zero:
			out[j] = vpExact(schema.NumberValue(0))
		case ok:
			out[j] = vpExact(last)
		}
	}
	return out, true
}

// vpProject keeps columns js.
type vpProject struct{ js []int }

func (o *vpProject) row(in schema.Row) ([]vpCell, bool) {
	out := []vpCell{vpExact(in[0])}
	for _, j := range o.js {
		out = append(out, vpExact(in[j]))
	}
	return out, true
}

// vpMapModel is the map of vpViews: thrice the value and the seq; rows
// whose seq is a multiple of 5 dropped.
type vpMapModel struct{ v, seq int }

func (o *vpMapModel) row(in schema.Row) ([]vpCell, bool) {
	sq, _ := in[o.seq].Num()
	if int(sq)%5 == 0 {
		return nil, false
	}
	x := vpExact(schema.Missing())
	if v, ok := in[o.v].Num(); ok {
		if y := 3 * v; y-y == 0 {
			x = vpExact(schema.NumberValue(y))
		}
	}
	return []vpCell{vpExact(in[0]), x, vpExact(in[o.seq])}, true
}

var vpMapSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "thrice", Kind: schema.Number},
	schema.Column{Name: "seq", Kind: schema.Number},
)

func vpCol(sch *schema.Schema, name string) int {
	j, ok := sch.Index(name)
	if !ok {
		panic("no column " + name)
	}
	return j
}

// vpViews are the views a probe builds on its source.
func vpViews() []vpView {
	change := func(kind string, f func(*live.Series, live.NodeID, ...string) (live.NodeID, error)) vpView {
		return vpView{name: kind,
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return f(s, src, "value") },
			op:    func(sch *schema.Schema) vpOp { return &vpChange{kind: kind, j: vpCol(sch, "value")} }}
	}
	cum := func(name string, using reduce.Reducer) vpView {
		return vpView{name: "cum" + name,
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
				return s.Cumulative(src, live.Running{Column: "value", Using: using})
			},
			op: func(sch *schema.Schema) vpOp { return &vpCum{using: using, j: vpCol(sch, "value")} }}
	}
	// fill fills the listed columns that the source has.
	fill := func(name string, opts live.FillOptions, cols ...string) vpView {
		has := func(sch *schema.Schema) []string {
			var in []string
			for _, c := range cols {
				if _, ok := sch.Index(c); ok {
					in = append(in, c)
				}
			}
			return in
		}
		return vpView{name: name,
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
				sch, err := s.NodeSchema(src)
				if err != nil {
					return 0, err
				}
				o := opts
				o.Columns = has(sch)
				return s.Fill(src, o)
			},
			op: func(sch *schema.Schema) vpOp {
				o := &vpFill{zero: opts.Strategy == live.FillZero, limit: opts.Limit}
				for _, c := range has(sch) {
					o.js = append(o.js, vpCol(sch, c))
				}
				return o
			}}
	}
	keep := func(sch *schema.Schema) func(schema.Row) bool {
		j, sq := vpCol(sch, "value"), vpCol(sch, "seq")
		return func(row schema.Row) bool {
			x, ok := row[j].Num()
			n, _ := row[sq].Num()
			return ok && x > 0 || int(n)%3 == 0
		}
	}
	return []vpView{
		change("diff", (*live.Series).Diff),
		change("rate", (*live.Series).Rate),
		change("pct", (*live.Series).PctChange),
		cum("sum", reduce.Sum), cum("count", reduce.Count), cum("min", reduce.Min), cum("max", reduce.Max),
		fill("hold", live.FillOptions{Strategy: live.FillHold, Columns: []string{"value"}}, "value"),
		fill("holdall2", live.FillOptions{Strategy: live.FillHold, Limit: 2, Columns: []string{"value", "host"}}, "value", "host"),
		fill("zero1", live.FillOptions{Strategy: live.FillZero, Limit: 1}, "value"),
		{name: "filter", passes: true,
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
				sch, err := s.NodeSchema(src)
				if err != nil {
					return 0, err
				}
				k := keep(sch)
				return s.Filter(src, func(row schema.Row) bool { return k(row) })
			},
			op: func(sch *schema.Schema) vpOp { return &vpPass{keep: keep(sch)} }},
		{name: "sample3", passes: true,
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Sample(src, 3) },
			op:    func(*schema.Schema) vpOp { return &vpSample{stride: 3} }},
		{name: "select",
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Select(src, "seq", "value") },
			op: func(sch *schema.Schema) vpOp {
				js := []int{vpCol(sch, "value"), vpCol(sch, "seq")}
				slices.Sort(js)
				return &vpProject{js: js}
			}},
		{name: "map",
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
				sch, err := s.NodeSchema(src)
				if err != nil {
					return 0, err
				}
				j, sq := vpCol(sch, "value"), vpCol(sch, "seq")
				return s.Map(src, vpMapSchema, func(in, out schema.Row) bool {
					n, _ := in[sq].Num()
					if int(n)%5 == 0 {
						return false
					}
					if x, ok := in[j].Num(); ok {
						out[1] = schema.NumberValue(3 * x)
					}
					out[2] = in[sq]
					return true
				})
			},
			op: func(sch *schema.Schema) vpOp { return &vpMapModel{v: vpCol(sch, "value"), seq: vpCol(sch, "seq")} }},
		{name: "window2s", window: &vpWindow{span: 2000},
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Window(src, 2*time.Second) },
			op:    func(*schema.Schema) vpOp { return &vpPass{} }},
		{name: "window4", window: &vpWindow{count: 4},
			build: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.WindowCount(src, 4) },
			op:    func(*schema.Schema) vpOp { return &vpPass{} }},
	}
}

// vpHeld is a row a view holds in the model.
type vpHeld struct {
	t    int64
	rank int
	key  string
	row  []vpCell
}

// vpStage is one view under probe and its model's state.
type vpStage struct {
	v       vpView
	id, src live.NodeID
	srcSch  *schema.Schema
	part    bool // the source is partitioned by host
	follows bool // the source holds rows
	holds   bool
	ops     map[string]vpOp
	held    map[int]*vpHeld // by identity
	maxT    map[string]int64
	nextID  int
}

// vpKey is a row's partition key.
func (st *vpStage) key(row schema.Row) string {
	if !st.part {
		return ""
	}
	j, ok := st.srcSch.Index("host")
	if !ok {
		return "?"
	}
	return row[j].String()
}

// ident returns a row's identity: its seq through a source that holds
// rows, else its rank of arrival at the view.
func (st *vpStage) ident(row schema.Row) int {
	if st.follows {
		n, _ := row[vpCol(st.srcSch, "seq")].Num()
		return int(n)
	}
	st.nextID++
	return st.nextID - 1
}

// feed runs the model over the source's rows of a push and returns the
// rows the view should emit; with record false (a replay) it only
// updates the state.
func (st *vpStage) feed(rows []schema.Row) (events [][]vpCell, trimmed []*vpHeld) {
	touched := map[string]bool{}
	for _, in := range rows {
		k := st.key(in)
		op := st.ops[k]
		if op == nil {
			op = st.v.op(st.srcSch)
			st.ops[k] = op
		}
		out, ok := op.row(in)
		if !ok {
			continue
		}
		events = append(events, out)
		if !st.holds {
			continue
		}
		t, _ := in[0].Nanos()
		id := st.ident(in)
		st.held[id] = &vpHeld{t: t, rank: id, key: k, row: out}
		touched[k] = true
		if m, ok := st.maxT[k]; !ok || t > m {
			st.maxT[k] = t
		}
	}
	if w := st.v.window; w != nil {
		for k := range touched {
			var hs []*vpHeld
			for _, h := range st.held {
				if h.key == k {
					hs = append(hs, h)
				}
			}
			slices.SortFunc(hs, vpByKey)
			for i, h := range hs {
				if w.count > 0 && i < len(hs)-w.count || w.span > 0 && h.t < st.maxT[k]-w.span*int64(time.Millisecond) {
					trimmed = append(trimmed, h)
					delete(st.held, h.rank)
				}
			}
		}
	}
	return events, trimmed
}

func vpByKey(a, b *vpHeld) int {
	return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.rank, b.rank))
}

// evict follows the source's evictions.
func (st *vpStage) evict(rows []schema.Row) []*vpHeld {
	if !st.follows {
		return nil
	}
	var gone []*vpHeld
	for _, in := range rows {
		n, _ := in[vpCol(st.srcSch, "seq")].Num()
		if h, ok := st.held[int(n)]; ok {
			gone = append(gone, h)
			delete(st.held, int(n))
		}
	}
	return gone
}

// vpRowsOf returns a table's rows.
func vpRowsOf(tab *schema.Table, ok bool) []schema.Row {
	if !ok {
		return nil
	}
	var rows []schema.Row
	for i := range tab.Len() {
		rows = append(rows, tab.Row(i))
	}
	return rows
}

// vpFmt formats a row exactly (numbers by their bits).
func vpFmt(row schema.Row) string {
	b := make([]byte, 0, 64)
	for _, v := range row {
		switch x, ok := v.Num(); {
		case ok:
			b = strconv.AppendUint(b, math.Float64bits(x), 16)
		case v.Kind() == schema.Time:
			ns, _ := v.Nanos()
			b = strconv.AppendInt(b, ns, 10)
		case v.IsMissing():
			b = append(b, '-')
		default:
			str, _ := v.Str()
			b = strconv.AppendQuote(b, str)
		}
		b = append(b, ' ')
	}
	return string(b)
}

// vpCheckRows compares rows with the model's, in order.
func vpCheckRows(got []schema.Row, want [][]vpCell) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d has %d cells, want %d", i, len(got[i]), len(want[i]))
		}
		for j := range got[i] {
			if msg := vpMatch(got[i][j], want[i][j]); msg != "" {
				return fmt.Sprintf("row %d (%v) cell %d: %s", i, got[i], j, msg)
			}
		}
	}
	return ""
}

// vpCfg is one probe configuration.
type vpCfg struct {
	name   string
	opts   live.Options
	hosts  int
	part   *partition.Options // views on a partitioning by host
	base   string             // "", "rolling" or "aggregate": the views' source on the root or partitioning
	late   int64              // ms a row may be late (Reorder, Drop)
	midway bool               // build the views after half the pushes
	rows   int
}

// vpRun is one run of a probe: its trace, for comparing batchings.
type vpRun struct {
	events map[string][]string
	final  map[string][]string
	checks int
}

// vpBuild builds the base source and the views.
func vpBuild(t *testing.T, s *live.Series, c vpCfg) (live.NodeID, []*vpStage) {
	t.Helper()
	src := s.Root()
	var err error
	if c.part != nil {
		src, err = s.PartitionBy(src, "host", *c.part)
		if err != nil {
			t.Fatal(err)
		}
	}
	switch c.base {
	case "rolling":
		src, err = s.Rolling(src, []rolling.Window{{Count: 3, Aggs: []reduce.Agg{
			{Out: "value", From: "value", Using: reduce.Sum},
			{Out: "seq", From: "seq", Using: reduce.Max},
		}}}, rolling.Options{})
	case "aggregate":
		src, err = s.Aggregate(src, sequence.Every(2*time.Second), []reduce.Agg{
			{Out: "value", From: "value", Using: reduce.Max},
			{Out: "seq", From: "seq", Using: reduce.Max},
		}, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	vpWatch(t, s, src)
	srcSch, _ := s.NodeSchema(src)
	follows := c.base == ""
	var stages []*vpStage
	for _, v := range vpViews() {
		id, err := v.build(s, src)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		vpWatch(t, s, id)
		st := &vpStage{v: v, id: id, src: src, srcSch: srcSch, part: c.part != nil, follows: follows,
			holds: follows || v.window != nil, ops: map[string]vpOp{}, held: map[int]*vpHeld{}, maxT: map[string]int64{}}
		if c.part != nil && c.base == "aggregate" {
			st.part = false // an aggregate merges the partitions
		}
		stages = append(stages, st)
	}
	// Chains: a fill then a diff, a sample then a window and a running
	// maximum, on the same source; and, on a partitioning, the gathered
	// chain.
	vs := vpViews()
	byName := func(n string) vpView {
		for _, v := range vs {
			if v.name == n {
				return v
			}
		}
		panic(n)
	}
	for _, chain := range [][]string{{"hold", "diff"}, {"sample3", "window4", "cummax", "pct"}, {"filter", "window2s", "rate"}} {
		prev, prevSch, prevHolds := src, srcSch, follows
		for _, name := range chain {
			v := byName(name)
			id, err := v.build(s, prev)
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			vpWatch(t, s, id)
			st := &vpStage{v: v, id: id, src: prev, srcSch: prevSch, part: c.part != nil && c.base != "aggregate", follows: prevHolds,
				holds: prevHolds || v.window != nil, ops: map[string]vpOp{}, held: map[int]*vpHeld{}, maxT: map[string]int64{}}
			stages = append(stages, st)
			prev, prevHolds = id, st.holds
			prevSch, _ = s.NodeSchema(id)
		}
		if c.part != nil && c.base != "aggregate" {
			g, err := s.Gather(prev)
			if err != nil {
				t.Fatal(err)
			}
			vpWatch(t, s, g)
			stages = append(stages, &vpStage{v: vpView{name: "gather", op: func(*schema.Schema) vpOp { return &vpPass{} }},
				id: g, src: prev, srcSch: prevSch, follows: prevHolds, holds: prevHolds,
				ops: map[string]vpOp{}, held: map[int]*vpHeld{}, maxT: map[string]int64{}})
		}
	}
	return src, stages
}

// vpWatch watches a node's events and, when it has them, evictions.
func vpWatch(t *testing.T, s *live.Series, id live.NodeID) {
	t.Helper()
	if err := s.Watch(id, live.Event); err != nil {
		t.Fatal(err)
	}
	_ = s.Watch(id, live.Evict) // an error for a node that holds no rows
}

// vpProbe runs rows through cfg in pushes of the given sizes (cycled)
// and checks every view against its model.
func vpProbe(t *testing.T, c vpCfg, rows []vpRow, sizes []int) vpRun {
	t.Helper()
	s, err := live.New("probe", vpSchema, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	run := vpRun{events: map[string][]string{}, final: map[string][]string{}}
	var stages []*vpStage
	var base live.NodeID
	build := func() {
		base, stages = vpBuild(t, s, c)
		// A view built on a source that holds rows starts from them,
		// replayed in arrival order, emitting nothing.
		for _, st := range stages {
			if !st.follows {
				continue
			}
			snap, err := s.Snapshot(st.src)
			if err != nil {
				t.Fatal(err)
			}
			rs := vpRowsOf(snap, true)
			sq := vpCol(st.srcSch, "seq")
			slices.SortStableFunc(rs, func(a, b schema.Row) int {
				x, _ := a[sq].Num()
				y, _ := b[sq].Num()
				return cmp.Compare(x, y)
			})
			st.feed(rs)
		}
	}
	if !c.midway {
		build()
	}
	var out []live.Output
	i, k := 0, 0
	for i < len(rows) {
		if c.midway && stages == nil && i >= len(rows)/2 {
			build()
		}
		n := min(sizes[k%len(sizes)], len(rows)-i)
		k++
		var batch []schema.Row
		for _, r := range rows[i : i+n] {
			batch = append(batch, r.row())
		}
		i += n
		out, err = s.PushRows(out[:0], batch...)
		if err != nil {
			t.Fatalf("%s: push: %v", c.name, err)
		}
		if stages == nil {
			continue
		}
		_ = base
		for _, st := range stages {
			srcRows := vpRowsOf(live.Find(out, st.src, live.Event))
			srcGone := vpRowsOf(live.Find(out, st.src, live.Evict))
			want, trimmed := st.feed(srcRows)
			got := vpRowsOf(live.Find(out, st.id, live.Event))
			where := fmt.Sprintf("%s: %s node %d, push ending at row %d", c.name, st.v.name, st.id, i)
			if msg := vpCheckRows(got, want); msg != "" {
				t.Fatalf("%s: events: %s", where, msg)
			}
			run.checks += len(got)
			for _, g := range got {
				run.events[st.v.name+fmt.Sprint(st.id)] = append(run.events[st.v.name+fmt.Sprint(st.id)], vpFmt(g))
			}
			gone := append(trimmed, st.evict(srcGone)...)
			gotGone := vpRowsOf(live.Find(out, st.id, live.Evict))
			if !st.holds {
				if len(gotGone) > 0 {
					t.Fatalf("%s: a view that holds nothing evicted %v", where, gotGone)
				}
				continue
			}
			slices.SortFunc(gone, vpByKey)
			var wantGone [][]vpCell
			for _, h := range gone {
				wantGone = append(wantGone, h.row)
			}
			// Evictions come in no documented order.
			if msg := vpCheckEvicts(gotGone, wantGone); msg != "" {
				t.Fatalf("%s: evictions: %s", where, msg)
			}
			run.checks += len(gotGone)
		}
		// Snapshots, every few pushes and after the last.
		if k%4 == 0 || i == len(rows) {
			for _, st := range stages {
				where := fmt.Sprintf("%s: %s node %d, after row %d", c.name, st.v.name, st.id, i)
				snap, err := s.Snapshot(st.id)
				if !st.holds {
					if err == nil {
						t.Fatalf("%s: a view that holds nothing gave a snapshot", where)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: snapshot: %v", where, err)
				}
				var hs []*vpHeld
				for _, h := range st.held {
					hs = append(hs, h)
				}
				slices.SortFunc(hs, vpByKey)
				var want [][]vpCell
				for _, h := range hs {
					want = append(want, h.row)
				}
				got := vpRowsOf(snap, true)
				if msg := vpCheckRows(got, want); msg != "" {
					t.Fatalf("%s: snapshot: %s", where, msg)
				}
				run.checks += len(got)
				if i == len(rows) {
					for _, g := range got {
						run.final[st.v.name+fmt.Sprint(st.id)] = append(run.final[st.v.name+fmt.Sprint(st.id)], vpFmt(g))
					}
				}
			}
		}
	}
	return run
}

// vpCheckEvicts matches evicted rows with the model's, in any order.
func vpCheckEvicts(got []schema.Row, want [][]vpCell) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows %v, want %d", len(got), got, len(want))
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if used[i] || len(g) != len(w) {
				continue
			}
			ok := true
			for j := range g {
				if vpMatch(g[j], w[j]) != "" {
					ok = false
					break
				}
			}
			if ok {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return fmt.Sprintf("no evicted row matches %v among %v", w, got)
		}
	}
	return ""
}

// vpConfigs are the probe configurations.
func vpConfigs() []vpCfg {
	p := func(o partition.Options) *partition.Options { return &o }
	return []vpCfg{
		{name: "root", rows: 200},
		{name: "root max events", opts: live.Options{MaxEvents: 7}, rows: 200},
		{name: "root max age", opts: live.Options{MaxAge: 5 * time.Second}, rows: 200},
		{name: "root reorder", opts: live.Options{Ordering: live.Reorder, Grace: 3 * time.Second, MaxAge: 8 * time.Second}, late: 3000, rows: 200},
		{name: "root reorder any grace", opts: live.Options{Ordering: live.Reorder, MaxEvents: 9}, late: 6000, rows: 200},
		{name: "root drop", opts: live.Options{Ordering: live.Drop, MaxEvents: 6}, late: 3000, rows: 200},
		{name: "root midway", opts: live.Options{MaxEvents: 8}, midway: true, rows: 200},
		{name: "hosts", hosts: 3, part: p(partition.Options{}), rows: 200},
		{name: "hosts max events", hosts: 3, opts: live.Options{MaxEvents: 10}, part: p(partition.Options{MaxEvents: 3}), rows: 200},
		{name: "hosts max age", hosts: 3, opts: live.Options{MaxAge: 4 * time.Second}, part: p(partition.Options{MaxAge: 2 * time.Second}), rows: 200},
		{name: "hosts reorder", hosts: 3, opts: live.Options{Ordering: live.Reorder, Grace: 3 * time.Second}, part: p(partition.Options{MaxEvents: 4}), late: 3000, rows: 200},
		{name: "hosts drop", hosts: 2, opts: live.Options{Ordering: live.Drop, MaxEvents: 5}, part: p(partition.Options{MaxEvents: 2}), late: 3000, rows: 200},
		{name: "hosts midway", hosts: 3, opts: live.Options{MaxEvents: 12}, part: p(partition.Options{MaxEvents: 3}), midway: true, rows: 200},
		{name: "rolling", base: "rolling", opts: live.Options{MaxEvents: 5}, rows: 200},
		{name: "hosts rolling", hosts: 3, base: "rolling", part: p(partition.Options{MaxEvents: 1}), rows: 200},
		{name: "aggregate", base: "aggregate", opts: live.Options{Ordering: live.Reorder, Grace: time.Second}, late: 1000, rows: 200},
		{name: "hosts aggregate", hosts: 2, base: "aggregate", part: p(partition.Options{}), rows: 200},
	}
}

// vpProbeAll runs the configurations whose name starts with prefix (and
// not with skip) over seeds, each in three batchings checked against
// the models, and compares the batchings' event outputs and final
// snapshots: a view's rows depend on the rows pushed, not on how they
// were cut into pushes.
func vpProbeAll(t *testing.T, prefix, skip string, seeds []uint64, minChecks int) {
	checks := 0
	for _, c := range vpConfigs() {
		if !strings.HasPrefix(c.name, prefix) || skip != "" && strings.HasPrefix(c.name, skip) {
			continue
		}
		for _, seed := range seeds {
			rng := rand.New(rand.NewPCG(seed, 40))
			rows := vpRows(rng, c.rows, c.late, c.hosts)
			var sizes []int
			for range 50 {
				sizes = append(sizes, 1+rng.IntN(20))
			}
			name := fmt.Sprintf("%s seed %d", c.name, seed)
			cc := c
			cc.name = name + " one by one"
			one := vpProbe(t, cc, rows, []int{1})
			cc.name = name + " random batches"
			some := vpProbe(t, cc, rows, sizes)
			cc.name = name + " one push"
			all := vpProbe(t, cc, rows, []int{len(rows)})
			checks += one.checks + some.checks + all.checks
			if c.midway {
				continue // built after a different push in each
			}
			for _, r := range []vpRun{some, all} {
				for node, ev := range one.events {
					if !slices.Equal(ev, r.events[node]) {
						t.Fatalf("%s: %s: the events depend on the batching: %v", name, node, vpFirstDiff(ev, r.events[node]))
					}
				}
				for node, f := range one.final {
					if !slices.Equal(f, r.final[node]) {
						t.Fatalf("%s: %s: the final snapshot depends on the batching: %v", name, node, vpFirstDiff(f, r.final[node]))
					}
				}
			}
		}
	}
	if checks < minChecks {
		t.Fatalf("only %d outputs checked", checks)
	}
	t.Logf("%d outputs checked", checks)
}

// TestViewsProbeRoot probes the views on the root, under every ordering
// and retention, built first and midway.
func TestViewsProbeRoot(t *testing.T) { vpProbeAll(t, "root", "", []uint64{0, 1}, 30_000) }

// TestViewsProbeHosts probes the views on a partitioning by host, with
// and without its own retention.
func TestViewsProbeHosts(t *testing.T) { vpProbeAll(t, "hosts", "hosts rolling", []uint64{0}, 15_000) }

// TestViewsProbeHostsMore is TestViewsProbeHosts on another seed.
func TestViewsProbeHostsMore(t *testing.T) {
	vpProbeAll(t, "hosts", "hosts rolling", []uint64{1}, 15_000)
}

// TestViewsProbeOverNodesWithoutRows probes the views on a rolling and an
// aggregate, which hold no rows: the views hold none either, but
// windows, which hold and evict their own.
func TestViewsProbeOverNodesWithoutRows(t *testing.T) {
	vpProbeAll(t, "rolling", "", []uint64{0, 1, 2}, 1000)
	vpProbeAll(t, "hosts rolling", "", []uint64{0, 1, 2}, 1000)
	vpProbeAll(t, "aggregate", "", []uint64{0, 1, 2}, 1000)
	vpProbeAll(t, "hosts aggregate", "", []uint64{0, 1, 2}, 1000)
}

func vpFirstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("row %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("%d rows vs %d", len(a), len(b))
}

// vpOutputs formats a push's outputs by node and kind.
func vpOutputs(out []live.Output) map[string][]string {
	m := map[string][]string{}
	for _, o := range out {
		k := fmt.Sprintf("node %d kind %v", o.Node, o.Kind)
		tab, _ := live.Find(out, o.Node, o.Kind)
		for _, row := range vpRowsOf(tab, true) {
			m[k] = append(m[k], vpFmt(row))
		}
	}
	return m
}

// TestViewsProbeWatchingChangesNothing runs each configuration twice in
// lockstep, with every output watched and with a random few: what a node
// emits, evicts and holds must not depend on what else is watched (a
// view follows its source's evictions whether or not anyone reads them,
// and a partitioning keeping one row a partition keeps them by id only
// while nothing reads its evictions).
func TestViewsProbeWatchingChangesNothing(t *testing.T) {
	p := func(o partition.Options) *partition.Options { return &o }
	cfgs := append(vpConfigs(),
		vpCfg{name: "hosts one row", hosts: 3, part: p(partition.Options{MaxEvents: 1}), rows: 200},
		vpCfg{name: "hosts one row midway", hosts: 3, opts: live.Options{MaxEvents: 4}, part: p(partition.Options{MaxEvents: 1}), midway: true, rows: 200},
	)
	checks := 0
	for ci, c := range cfgs {
		rng := rand.New(rand.NewPCG(uint64(ci), 41))
		rows := vpRows(rng, min(c.rows, 120), c.late, c.hosts)
		a, b, twins := vpTwins(t, c, "all", "some")
		var nodes []live.NodeID
		var err error
		build := func() {
			nodes = twins()
			for _, id := range nodes {
				if err := b.Unwatch(id); err != nil {
					t.Fatal(err)
				}
				vpWatch(t, a, id)
			}
			for _, id := range nodes {
				switch rng.IntN(4) {
				case 0:
					_ = b.Watch(id, live.Evict)
				case 1:
					_ = b.Watch(id, live.Event)
				}
			}
		}
		if !c.midway {
			build()
		}
		var outA, outB []live.Output
		for i := 0; i < len(rows); {
			if c.midway && nodes == nil && i >= len(rows)/2 {
				build()
			}
			n := min(1+rng.IntN(12), len(rows)-i)
			var batch []schema.Row
			for _, r := range rows[i : i+n] {
				batch = append(batch, r.row())
			}
			i += n
			if outA, err = a.PushRows(outA[:0], batch...); err != nil {
				t.Fatal(err)
			}
			if outB, err = b.PushRows(outB[:0], batch...); err != nil {
				t.Fatal(err)
			}
			ma, mb := vpOutputs(outA), vpOutputs(outB)
			for k, rows := range mb {
				if !slices.Equal(rows, ma[k]) {
					t.Fatalf("%s: push ending at row %d: %s: watched with a few others it gave %v, with all %v", c.name, i, k, rows, ma[k])
				}
				checks += len(rows)
			}
			for _, id := range nodes {
				sa, errA := a.Snapshot(id)
				sb, errB := b.Snapshot(id)
				if (errA == nil) != (errB == nil) {
					t.Fatalf("%s: node %d: snapshot errors %v and %v", c.name, id, errA, errB)
				}
				if errA == nil && sa.String() != sb.String() {
					t.Fatalf("%s: push ending at row %d: node %d holds\n%s\nwatched with a few others, and\n%s\nwith all", c.name, i, id, sb, sa)
				}
			}
		}
	}
	if checks < 3_000 {
		t.Fatalf("only %d outputs checked", checks)
	}
	t.Logf("%d outputs checked", checks)
}

// vpSumRun pushes xs one row a push into a running sum and a reduce's
// sum on the root, and returns both outputs row by row.
func vpSumRun(t *testing.T, xs []float64) (cum, red []schema.Value) {
	t.Helper()
	s, err := live.New("m", optSchema, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Cumulative(s.Root(), live.Running{Column: "value", Using: reduce.Sum})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := s.Reduce(s.Root(), []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}, trigger.Event())
	if err != nil {
		t.Fatal(err)
	}
	vpWatch(t, s, c)
	vpWatch(t, s, rd)
	var out []live.Output
	for i, x := range xs {
		if out, err = s.PushRows(out[:0], v(int64(i), x)); err != nil {
			t.Fatal(err)
		}
		a, _ := live.Find(out, c, live.Event)
		b, _ := live.Find(out, rd, live.Event)
		cum, red = append(cum, a.Row(0)[1]), append(red, b.Row(0)[1])
	}
	return cum, red
}

// A running sum is compensated: like a reducer's sum, and like the
// running sum of 1e16, 1, −1e16, which is 1, it keeps the 1 of 2^959,
// 2^959, 1, −2^960 and the 1e16 of 1e16, −2^959, −2^959, 2^960. It gives
// 0 for both: values from 2^960 up are summed apart (cumOp.huge), and the
// sum of the others is rounded to a float64 before the two are added,
// which drops that sum's compensation exactly when the huge values
// cancel it. A plain Neumaier sum, without the split, gives 1 and 1e16,
// as does reduce.Sum.
func TestViewsProbeCumulativeSumKeepsItsCompensationAcrossTheHugeSplit(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{0x1p959, 0x1p959, 1, -0x1p960}, 1},
		{[]float64{1e16, -0x1p959, -0x1p959, 0x1p960}, 1e16},
	} {
		cum, red := vpSumRun(t, c.xs)
		got, _ := cum[len(cum)-1].Num()
		r, _ := red[len(red)-1].Num()
		if r != c.want {
			t.Fatalf("%v: reduce.Sum gives %v", c.xs, r)
		}
		if got != c.want {
			t.Errorf("running sum of %v = %v, want %v (reduce.Sum gives %v)", c.xs, got, c.want, r)
		}
	}
}

// vpNeumaier is a plain Neumaier sum: what "compensated" promises at
// least, while no partial sum leaves the float64 range.
type vpNeumaier struct{ s, c float64 }

func (n *vpNeumaier) add(x float64) float64 {
	t := n.s + x
	if math.Abs(n.s) >= math.Abs(x) {
		n.c += (n.s - t) + x
	} else {
		n.c += (x - t) + n.s
	}
	n.s = t
	return n.s + n.c
}

// TestViewsProbeCumulativeSumAgainstAReducer compares a running sum over
// random streams of values around the 2^960 split, outliers, and small
// and subnormal values with the exact sum: it must be missing exactly
// where the exact sum is beyond the float64 range, and otherwise within
// 2 ulps of the exact sum, or no further from it than a plain Neumaier
// sum (while that stays finite) or a reducer's sum (a reduce of the
// root, which holds the same values) is; where the plain sum left the
// range, within 1e-15 of the values' absolute sum (as
// TestCumulativeSumFollowsTheExactSum asks).
func TestViewsProbeCumulativeSumAgainstAReducer(t *testing.T) {
	pool := []float64{0x1p959, -0x1p959, 0x1.8p959, -0x1.8p959, 0x1p960, -0x1p960, 5e288, -5e288, 1e289, -1e289,
		1e300, -1e300, math.MaxFloat64, -math.MaxFloat64, 1, -1, 0.5, 3, 1e16, -1e16, 1e-300, 5e-324, 0}
	checks, bad := 0, 0
	var first string
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 42))
		xs := make([]float64, 12)
		for i := range xs {
			xs[i] = pool[rng.IntN(len(pool))]
			if rng.IntN(4) == 0 {
				xs[i] = math.Ldexp(float64(rng.IntN(1<<20)-1<<19), rng.IntN(60)-30)
			}
		}
		cum, red := vpSumRun(t, xs)
		sum, abs := vpBig(0), vpBig(0)
		var plain vpNeumaier
		plainOK := true
		for i, x := range xs {
			sum.Add(sum, vpBig(x))
			abs.Add(abs, vpBig(math.Abs(x)))
			p := plain.add(x)
			plainOK = plainOK && p-p == 0
			want, _ := sum.Float64()
			got, gok := cum[i].Num()
			r, rok := red[i].Num()
			checks++
			if math.IsInf(want, 0) {
				if gok {
					t.Fatalf("seed %d %v row %d: running sum %v, want missing", seed, xs, i, got)
				}
				continue
			}
			if !gok {
				t.Fatalf("seed %d %v row %d: running sum missing, want %v", seed, xs, i, want)
			}
			errOf := func(y float64) *big.Float {
				e := new(big.Float).SetPrec(vpPrec).Sub(vpBig(y), sum)
				return e.Abs(e)
			}
			tol := vpBig(2 * vpUlp(want))
			if !plainOK {
				tol.Mul(abs, vpBig(1e-15))
			} else if e := errOf(p); e.Cmp(tol) > 0 {
				tol = e
			}
			if e := errOf(r); rok && e.Cmp(tol) > 0 {
				tol = e
			}
			if errOf(got).Cmp(tol) > 0 {
				bad++
				if first == "" {
					first = fmt.Sprintf("seed %d %v row %d: running sum %v, reducer %v, plain Neumaier %v, exact %v", seed, xs[:i+1], i, got, r, p, want)
				}
			}
		}
	}
	if checks < 4000 {
		t.Fatalf("only %d sums checked", checks)
	}
	if bad > 0 {
		t.Errorf("%d of %d running sums further from the exact sum than a plain compensated sum or a reducer's; first: %s", bad, checks, first)
	}
}

// vpBadRow returns a row a push must refuse, given the latest time
// pushed (ms) and the options, and whether it must come last (a row too
// late).
func vpBadRow(rng *rand.Rand, latest int64, opts live.Options) (schema.Row, bool) {
	good := vpRow{t: latest, v: 1, vOK: true, seq: 1 << 20}.row()
	switch k := rng.IntN(8); {
	case k == 0:
		good[1] = schema.NumberValue(math.NaN())
	case k == 1:
		good[1] = schema.NumberValue(math.Inf(-1))
	case k == 2:
		good[1] = schema.StringValue("1")
	case k == 3:
		good[3] = schema.Missing()
	case k == 4:
		good[2] = schema.NumberValue(3)
	case k == 5:
		good[0] = schema.NanosValue(schema.MaxTime + 1)
	case k == 6:
		good = good[:3]
	case opts.Ordering == live.Strict:
		good[0] = schema.MillisValue(latest - 1)
		return good, true
	case opts.Ordering == live.Reorder && opts.Grace > 0:
		good[0] = schema.MillisValue(latest - opts.Grace.Milliseconds() - 1)
		return good, true
	default:
		good[3] = schema.BoolValue(true)
	}
	return good, false
}

// TestViewsProbeBadPushesChangeNothing runs each configuration on twin
// series in lockstep, one of which also gets, between the good pushes,
// pushes with a bad row among good ones: those must fail and change
// nothing, so that every later output and every node's snapshot is the
// twin's.
func TestViewsProbeBadPushesChangeNothing(t *testing.T) {
	checks, refused := 0, 0
	for ci, c := range vpConfigs() {
		rng := rand.New(rand.NewPCG(uint64(ci), 43))
		rows := vpRows(rng, min(c.rows, 120), c.late, c.hosts)
		a, b, twins := vpTwins(t, c, "bad", "good")
		var nodes []live.NodeID
		var err error
		build := func() { nodes = twins() }
		if !c.midway {
			build()
		}
		var outA, outB []live.Output
		latest := int64(math.MinInt64)
		for i := 0; i < len(rows); {
			if c.midway && nodes == nil && i >= len(rows)/2 {
				build()
			}
			n := min(1+rng.IntN(12), len(rows)-i)
			var batch []schema.Row
			for _, r := range rows[i : i+n] {
				batch = append(batch, r.row())
				latest = max(latest, r.t)
			}
			i += n
			if rng.IntN(2) == 0 {
				bad := slices.Clone(batch)
				row, last := vpBadRow(rng, latest, c.opts)
				at := rng.IntN(len(bad) + 1)
				if last {
					at = len(bad)
				}
				bad = slices.Insert(bad, at, row)
				prev := len(outA)
				outA = append(outA, live.Output{Node: 12345})
				var e error
				if outA, e = a.PushRows(outA, bad...); e == nil {
					t.Fatalf("%s: a push with the bad row %v was accepted", c.name, bad[at])
				}
				if len(outA) != prev+1 || outA[prev].Node != 12345 {
					t.Fatalf("%s: a refused push changed dst", c.name)
				}
				outA = outA[:prev]
				refused++
			}
			if outA, err = a.PushRows(outA[:0], batch...); err != nil {
				t.Fatal(err)
			}
			if outB, err = b.PushRows(outB[:0], batch...); err != nil {
				t.Fatal(err)
			}
			ma, mb := vpOutputs(outA), vpOutputs(outB)
			if len(ma) != len(mb) {
				t.Fatalf("%s: push ending at row %d: outputs of %d nodes and kinds after a refused push, %d without", c.name, i, len(ma), len(mb))
			}
			for k, rows := range mb {
				if !slices.Equal(rows, ma[k]) {
					t.Fatalf("%s: push ending at row %d: %s: %v after a refused push, %v without", c.name, i, k, ma[k], rows)
				}
				checks += len(rows)
			}
			if a.Stats() != b.Stats() || a.Len() != b.Len() {
				t.Fatalf("%s: stats %+v after a refused push, %+v without", c.name, a.Stats(), b.Stats())
			}
			for _, id := range nodes {
				sa, errA := a.Snapshot(id)
				sb, errB := b.Snapshot(id)
				if (errA == nil) != (errB == nil) || errA == nil && sa.String() != sb.String() {
					t.Fatalf("%s: push ending at row %d: node %d holds\n%v\nafter a refused push, and\n%v\nwithout", c.name, i, id, sa, sb)
				}
				va, errA := a.Value(id)
				vb, errB := b.Value(id)
				if (errA == nil) != (errB == nil) || errA == nil && va.String() != vb.String() {
					t.Fatalf("%s: node %d: value %v after a refused push, %v without", c.name, id, va, vb)
				}
			}
		}
	}
	if checks < 3_000 || refused < 100 {
		t.Fatalf("only %d outputs checked, %d pushes refused", checks, refused)
	}
	t.Logf("%d outputs checked, %d pushes refused", checks, refused)
}

// TestViewsProbeBuildErrors builds every view with bad options, on
// unknown nodes and on a rolling's history: each is an error wrapping
// ErrConfig (ErrNode for a node that is not one), never a panic.
func TestViewsProbeBuildErrors(t *testing.T) {
	s, err := live.New("m", vpSchema, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := s.Root()
	roll, err := s.Rolling(root, []rolling.Window{{Count: 2, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}},
		rolling.Options{History: rolling.History{MaxEvents: 3}})
	if err != nil {
		t.Fatal(err)
	}
	hist := roll + 1
	fn := func(_, _ schema.Row) bool { return true }
	sum := func(c string) live.Running { return live.Running{Column: c, Using: reduce.Sum} }
	count := []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}
	cases := map[string]func() (live.NodeID, error){
		"map zero schema":       func() (live.NodeID, error) { return s.Map(root, &schema.Schema{}, fn) },
		"window negative":       func() (live.NodeID, error) { return s.Window(root, -time.Second) },
		"window too long":       func() (live.NodeID, error) { return s.Window(root, time.Duration(math.MaxInt64)) },
		"window count negative": func() (live.NodeID, error) { return s.WindowCount(root, -3) },
		"sample 0":              func() (live.NodeID, error) { return s.Sample(root, 0) },
		"sample negative":       func() (live.NodeID, error) { return s.Sample(root, -1) },
		"cumulative no reducer": func() (live.NodeID, error) { return s.Cumulative(root, live.Running{Column: "value"}) },
		"cumulative percentile": func() (live.NodeID, error) {
			return s.Cumulative(root, live.Running{Column: "value", Using: reduce.Percentile(50)})
		},
		"cumulative unknown":  func() (live.NodeID, error) { return s.Cumulative(root, sum("x")) },
		"cumulative no name":  func() (live.NodeID, error) { return s.Cumulative(root, sum("")) },
		"cumulative a string": func() (live.NodeID, error) { return s.Cumulative(root, sum("host")) },
		"cumulative twice": func() (live.NodeID, error) {
			return s.Cumulative(root, sum("value"), live.Running{Column: "value", Using: reduce.Max})
		},
		"fill time": func() (live.NodeID, error) {
			return s.Fill(root, live.FillOptions{Strategy: live.FillHold, Columns: []string{"time"}})
		},
		"fill unknown": func() (live.NodeID, error) {
			return s.Fill(root, live.FillOptions{Strategy: live.FillHold, Columns: []string{"nope"}})
		},
		"fill twice": func() (live.NodeID, error) {
			return s.Fill(root, live.FillOptions{Strategy: live.FillHold, Columns: []string{"value", "value"}})
		},
		"fill zero on a string": func() (live.NodeID, error) {
			return s.Fill(root, live.FillOptions{Strategy: live.FillZero, Columns: []string{"value", "host"}})
		},
		"fill strategy 99":     func() (live.NodeID, error) { return s.Fill(root, live.FillOptions{Strategy: 99}) },
		"diff of node -1":      func() (live.NodeID, error) { return s.Diff(-1, "value") },
		"diff of a history":    func() (live.NodeID, error) { return s.Diff(hist, "n") },
		"window of a history":  func() (live.NodeID, error) { return s.Window(hist, time.Second) },
		"filter of node -7":    func() (live.NodeID, error) { return s.Filter(-7, func(schema.Row) bool { return true }) },
		"select unknown":       func() (live.NodeID, error) { return s.Select(root, "value", "nope") },
		"gather of node -1":    func() (live.NodeID, error) { return s.Gather(-1) },
		"rate listed twice":    func() (live.NodeID, error) { return s.Rate(roll, "n", "n") },
		"pct of a rolling key": func() (live.NodeID, error) { return s.PctChange(roll, "time") },
		"per partition of -1": func() (live.NodeID, error) {
			return s.PerPartition(-1, func(s *live.Series, p live.NodeID) (live.NodeID, error) { return p, nil })
		},
		"aggregate step 0": func() (live.NodeID, error) { return s.Aggregate(root, sequence.Every(0), count, 0) },
		"aggregate zero sequence": func() (live.NodeID, error) {
			return s.Aggregate(root, sequence.Sequence{}, count, 0)
		},
		"aggregate nothing":        func() (live.NodeID, error) { return s.Aggregate(root, sequence.Every(time.Second), nil, 0) },
		"aggregate negative grace": func() (live.NodeID, error) { return s.Aggregate(root, sequence.Every(time.Second), count, -1) },
		"aggregate sum of strings": func() (live.NodeID, error) {
			return s.Aggregate(root, sequence.Every(time.Second), []reduce.Agg{{Out: "n", From: "host", Using: reduce.Sum}}, 0)
		},
	}
	for name, build := range cases {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", name, r)
				}
			}()
			id, err := build()
			switch {
			case err == nil:
				t.Errorf("%s: built node %d", name, id)
			case !errors.Is(err, live.ErrConfig) && !errors.Is(err, live.ErrNode):
				t.Errorf("%s: %v wraps neither ErrConfig nor ErrNode", name, err)
			}
		}()
	}
	// The series works on.
	out, err := s.PushRows(nil, vpRow{t: 1, v: 1, vOK: true}.row())
	if err != nil || len(out) != 0 {
		t.Fatalf("after the failed builds: %v, %v", out, err)
	}
}

// TestViewsProbeAPartitionMadeAnewStartsAfresh: a partition that idled
// out and comes back starts every view's state afresh (no previous
// value, no running total, no held value, its sample count from zero),
// and the rows of the old one leave every view, a gathered select's
// with their key.
func TestViewsProbeAPartitionMadeAnewStartsAfresh(t *testing.T) {
	s, err := live.New("m", vpSchema, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var ids []live.NodeID
	add := func(id live.NodeID, err error) live.NodeID {
		if err != nil {
			t.Fatal(err)
		}
		vpWatch(t, s, id)
		ids = append(ids, id)
		return id
	}
	d := add(s.Diff(by, "value"))
	c := add(s.Cumulative(by, vpSum("value")))
	f := add(s.Fill(by, live.FillOptions{Strategy: live.FillHold, Columns: []string{"value"}}))
	sm := add(s.Sample(by, 2))
	sel := add(s.Select(by, "value", "seq"))
	g := add(s.Gather(sel))
	a := func(t, seq int64, v float64, ok bool) schema.Row {
		return vpRow{t: t, v: v, vOK: ok, host: "a", hostOK: true, seq: int(seq)}.row()
	}
	got := map[live.NodeID][]string{}
	gone := map[live.NodeID]int{}
	for _, row := range []schema.Row{a(0, 0, 1, true), a(100, 1, 2, true),
		vpRow{t: 5000, v: 7, vOK: true, host: "b", hostOK: true, seq: 2}.row(),
		a(5001, 3, 0, false), a(5002, 4, 4, true), a(5003, 5, 5, true)} {
		out, err := s.PushRows(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			tab, _ := live.Find(out, id, live.Event)
			for _, r := range vpRowsOf(tab, tab != nil) {
				got[id] = append(got[id], fmt.Sprint(r[1:]))
			}
			if tab, ok := live.Find(out, id, live.Evict); ok {
				gone[id] += tab.Len()
				if id == g && tab.Row(0)[1].String() != `"a"` {
					t.Errorf("a gathered row of an idled partition left without its key: %v", tab.Row(0))
				}
			}
		}
	}
	want := map[live.NodeID][]string{
		d:  {`[null "a" 0]`, `[1 "a" 1]`, `[null "b" 2]`, `[null "a" 3]`, `[null "a" 4]`, `[1 "a" 5]`},
		c:  {`[1 "a" 0]`, `[3 "a" 1]`, `[7 "b" 2]`, `[null "a" 3]`, `[4 "a" 4]`, `[9 "a" 5]`},
		f:  {`[1 "a" 0]`, `[2 "a" 1]`, `[7 "b" 2]`, `[null "a" 3]`, `[4 "a" 4]`, `[5 "a" 5]`},
		sm: {`[2 "a" 1]`, `[4 "a" 4]`},
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("node %d: %v, want %v", id, got[id], w)
		}
		wantGone := 2 // the idled partition's two rows
		if id == sm {
			wantGone = 1 // the one it passed
		}
		if gone[id] != wantGone {
			t.Errorf("node %d: %d rows left, want %d", id, gone[id], wantGone)
		}
	}
	if gone[g] != 2 || gone[sel] != 2 {
		t.Errorf("the select and the gather evicted %d and %d rows, want 2", gone[sel], gone[g])
	}
}

func vpSum(c string) live.Running { return live.Running{Column: c, Using: reduce.Sum} }

// vpTwins makes two series of c's options, named an and bn, and a build
// that gives both c's nodes and returns them (the root, then each
// stage's source and node), the same ids in each.
func vpTwins(t *testing.T, c vpCfg, an, bn string) (a, b *live.Series, build func() []live.NodeID) {
	t.Helper()
	a, err := live.New(an, vpSchema, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err = live.New(bn, vpSchema, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	return a, b, func() []live.NodeID {
		_, stages := vpBuild(t, a, c)
		vpBuild(t, b, c)
		nodes := []live.NodeID{a.Root()}
		for _, st := range stages {
			nodes = append(nodes, st.src, st.id)
		}
		return nodes
	}
}
