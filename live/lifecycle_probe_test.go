package live_test

// Probes of a Series' lifecycle and of its less-travelled readers: Close
// (with and without workers), pushes refused half way against a twin that
// never saw them, Typed pushes against PushMany and PushRows of the same
// rows, every reader between pushes, after errors and after Close, checked
// against a model of the pushed rows written from the package doc, and
// calls in unusual orders. Every identifier here starts with lcy.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
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

// lcyRow is the typed row of lcySchema.
type lcyRow struct {
	At   time.Time `pond:"time"`
	V    float64   `pond:"v"`
	W    *float64  `pond:"w"`
	Host string    `pond:"host"`
	Up   *bool     `pond:"up"`
}

var lcySchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number},
	schema.Column{Name: "w", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "up", Kind: schema.Bool, Optional: true},
)

var lcyHosts = []string{"a", "b", "c", "é-ü", "", "d", strings.Repeat("long-", 12), "h"}

// lcyMkRow makes a row of lcySchema at ms milliseconds.
func lcyMkRow(ns int64, v float64, w *float64, host string, up *bool) schema.Row {
	r := schema.Row{schema.NanosValue(ns), schema.NumberValue(v), schema.Missing(), schema.StringValue(host), schema.Missing()}
	if w != nil {
		r[2] = schema.NumberValue(*w)
	}
	if up != nil {
		r[4] = schema.BoolValue(*up)
	}
	return r
}

// lcyBatch lays rows out as a batch by hand (AppendRows would validate
// them): a cell of another kind than its column's becomes a missing one,
// except a number column's NaN, which stays NaN.
func lcyBatch(rows []schema.Row) *schema.Batch {
	b := schema.NewBatch(lcySchema, len(rows))
	b.Cols[0].Missing = make([]bool, 0, len(rows))
	b.Cols[1].Missing = make([]bool, 0, len(rows))
	b.Cols[2].Missing = make([]bool, 0, len(rows))
	b.Cols[3].Missing = make([]bool, 0, len(rows))
	for _, r := range rows {
		ns, _ := r[0].Nanos()
		b.Time = append(b.Time, ns)
		for j := 1; j <= 2; j++ {
			x, ok := r[j].Num()
			b.Cols[j-1].Num = append(b.Cols[j-1].Num, x)
			b.Cols[j-1].Missing = append(b.Cols[j-1].Missing, !ok)
		}
		h, ok := r[3].Str()
		b.Cols[2].Str = append(b.Cols[2].Str, h)
		b.Cols[2].Missing = append(b.Cols[2].Missing, !ok)
		u, ok := r[4].Bool()
		b.Cols[3].Bool = append(b.Cols[3].Bool, u)
		b.Cols[3].Missing = append(b.Cols[3].Missing, !ok)
	}
	return b
}

// lcyTyped converts rows to lcyRow, false when one cannot be written as
// one (a missing v or a cell of another kind).
func lcyTyped(rows []schema.Row) ([]lcyRow, bool) {
	out := make([]lcyRow, 0, len(rows))
	for _, r := range rows {
		if len(r) != 5 {
			return nil, false
		}
		ns, ok := r[0].Nanos()
		if !ok {
			return nil, false
		}
		v, ok := r[1].Num()
		if !ok {
			return nil, false
		}
		h, ok := r[3].Str()
		if !ok {
			return nil, false
		}
		x := lcyRow{At: time.Unix(0, ns).UTC(), V: v, Host: h}
		if w, ok := r[2].Num(); ok {
			x.W = &w
		} else if !r[2].IsMissing() {
			return nil, false
		}
		if u, ok := r[4].Bool(); ok {
			x.Up = &u
		} else if !r[4].IsMissing() {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

// lcyPipe is a pipeline of one node of (nearly) every kind on a series.
type lcyPipe struct {
	names []string
	ids   map[string]live.NodeID
}

func lcyAggs(pairs ...any) []reduce.Agg {
	var aggs []reduce.Agg
	for i := 0; i < len(pairs); i += 3 {
		aggs = append(aggs, reduce.Agg{Out: pairs[i].(string), From: pairs[i+1].(string), Using: pairs[i+2].(reduce.Reducer)})
	}
	return aggs
}

// lcyBuild builds the pipeline on s and watches every output of every
// node; limit caps the partitioning "lim" at 5 partitions (its IdleTTL
// frees them).
func lcyBuild(t testing.TB, s *live.Series, opts live.Options, limit bool) *lcyPipe {
	p := &lcyPipe{ids: map[string]live.NodeID{"root": s.Root()}, names: []string{"root"}}
	add := func(name string, id live.NodeID, err error) {
		require.NoError(t, err, name)
		p.ids[name] = id
		p.names = append(p.names, name)
	}
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 3})
	add("part", part, err)
	lim := partition.Options{IdleTTL: 80 * time.Millisecond}
	if limit {
		lim.MaxPartitions = 5
	}
	id, err := s.PartitionBy(s.Root(), "host", lim)
	add("lim", id, err)
	id, err = s.Rolling(part, []rolling.Window{
		{Span: time.Second, Aggs: lcyAggs("avg", "v", reduce.Avg, "n", "w", reduce.Count, "hi", "v", reduce.Max)},
		{Span: 100 * time.Millisecond, Aggs: lcyAggs("sd", "v", reduce.Stdev, "xs", "v", reduce.Samples)},
	}, rolling.Options{Trigger: trigger.Every(50 * time.Millisecond), History: rolling.History{MaxEvents: 7}})
	add("roll", id, err)
	if opts.Ordering != live.Reorder || opts.Grace > 0 {
		id, err = s.Rolling(part, []rolling.Window{{Span: 200 * time.Millisecond, Aggs: lcyAggs("sum", "v", reduce.Sum, "med", "w", reduce.Median)}},
			rolling.Options{Trigger: trigger.Every(50 * time.Millisecond), Aligned: true})
		add("aligned", id, err)
	}
	id, err = s.Rolling(s.Root(), []rolling.Window{{Count: 4, Aggs: lcyAggs("avg", "v", reduce.Avg, "first", "host", reduce.First)}}, rolling.Options{})
	add("evroll", id, err)
	id, err = s.Reduce(s.Root(), lcyAggs("n", "v", reduce.Count, "sum", "v", reduce.Sum, "lo", "v", reduce.Min, "hi", "v", reduce.Max), trigger.Event())
	add("red", id, err)
	id, err = s.Reduce(s.Root(), lcyAggs("n", "v", reduce.Count), trigger.Count(3))
	add("red3", id, err)
	id, err = s.Aggregate(s.Root(), sequence.Every(100*time.Millisecond), lcyAggs("n", "v", reduce.Count, "sum", "v", reduce.Sum, "u", "host", reduce.Unique), 0)
	add("agg", id, err)
	id, err = s.Window(part, 150*time.Millisecond)
	add("win", id, err)
	id, err = s.Reduce(p.ids["win"], lcyAggs("n", "v", reduce.Count, "p50", "v", reduce.Median), trigger.Event())
	add("winred", id, err)
	id, err = s.WindowCount(s.Root(), 5)
	add("wcount", id, err)
	id, err = s.Filter(s.Root(), func(r schema.Row) bool { x, _ := r[1].Num(); return x > 0 })
	add("filt", id, err)
	id, err = s.Sample(part, 2)
	add("samp", id, err)
	id, err = s.Cumulative(s.Root(), live.Running{Column: "v", Using: reduce.Sum}, live.Running{Column: "w", Using: reduce.Max})
	add("cum", id, err)
	id, err = s.Diff(part, "v")
	add("diff", id, err)
	id, err = s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold})
	add("fill", id, err)
	id, err = s.Gather(p.ids["diff"])
	add("gather", id, err)
	id, err = s.Select(p.ids["lim"], "v", "up")
	add("sel", id, err)
	id, err = s.Rolling(p.ids["lim"], []rolling.Window{{Span: 300 * time.Millisecond, Aggs: lcyAggs("n", "v", reduce.Count)}}, rolling.Options{Trigger: trigger.Every(100 * time.Millisecond)})
	add("limroll", id, err)
	sch, err := schema.New(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "twice", Kind: schema.Number})
	require.NoError(t, err)
	id, err = s.Map(s.Root(), sch, func(in, out schema.Row) bool {
		x, _ := in[1].Num()
		out[1] = schema.NumberValue(2 * x)
		return x != 1
	})
	add("map", id, err)
	id, err = s.PerPartition(part, func(s *live.Series, part live.NodeID) (live.NodeID, error) {
		f, err := s.Fill(part, live.FillOptions{Strategy: live.FillZero, Columns: []string{"w"}})
		if err != nil {
			return 0, err
		}
		return s.Rate(f, "w")
	})
	add("perpart", id, err)
	for _, name := range p.names {
		for _, k := range []live.OutputKind{live.Event, live.Batch, live.Evict} {
			_ = s.Watch(p.ids[name], k)
		}
	}
	return p
}

// lcyDumpTable renders every row of a table.
func lcyDumpTable(sb *strings.Builder, tab *schema.Table) {
	if tab == nil {
		sb.WriteString("<nil>\n")
		return
	}
	fmt.Fprintf(sb, "%v (%d rows)\n", tab.Schema(), tab.Len())
	for i := range tab.Len() {
		for j, v := range tab.Row(i) {
			if j > 0 {
				sb.WriteByte(' ')
			}
			if x, ok := v.Num(); ok && x == 0 && math.Signbit(x) {
				sb.WriteString("-0")
				continue
			}
			sb.WriteString(v.String())
		}
		sb.WriteByte('\n')
	}
}

func lcyDumpOuts(outs []live.Output) string {
	var sb strings.Builder
	for _, o := range outs {
		fmt.Fprintf(&sb, "node %d %v: ", o.Node, o.Kind)
		lcyDumpTable(&sb, o.Events)
	}
	return sb.String()
}

// lcyState renders everything the API reads of s and of p's nodes, but
// NodeBytes (which a refused push may grow once, as its doc says) and
// HeldBytes.
func lcyState(s *live.Series, p *lcyPipe) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "stats %+v len %d\n", s.Stats(), s.Len())
	lt, ok := s.LatestNanos()
	lt2, ok2 := s.Latest()
	fmt.Fprintf(&sb, "latest %d %v %v %v\n", lt, ok, lt2.UnixNano(), ok2)
	for i, r := range s.All() {
		fmt.Fprintf(&sb, "all %d %v\n", i, r)
	}
	for _, name := range p.names {
		id := p.ids[name]
		fmt.Fprintf(&sb, "== %s (%d)\n", name, id)
		if tab, err := s.Snapshot(id); err == nil {
			sb.WriteString("snapshot ")
			lcyDumpTable(&sb, tab)
		} else {
			fmt.Fprintf(&sb, "snapshot error %v\n", errors.Is(err, live.ErrNode))
		}
		if tab, err := s.Value(id); err == nil {
			sb.WriteString("value ")
			lcyDumpTable(&sb, tab)
		} else {
			fmt.Fprintf(&sb, "value error %v\n", errors.Is(err, live.ErrNode))
		}
		if ps, err := s.Partitions(id); err == nil {
			for _, q := range ps {
				fmt.Fprintf(&sb, "partition %v %d %d %d %d\n", q.Key, q.Ingested, q.Evicted, q.Length, q.Last.UnixNano())
			}
		}
		if st, err := s.AggregateStats(id); err == nil {
			fmt.Fprintf(&sb, "aggstats %+v\n", st)
		}
		d, err := s.Describe(id)
		fmt.Fprintf(&sb, "describe %q %v\n", d, err)
	}
	return sb.String()
}

// lcyModel is the root's rows and counters as the package doc describes
// them: ordering, then retention after each push; and the partitioning
// "part" (MaxEvents 3, the series' MaxAge).
type lcyModel struct {
	opts     live.Options
	rows     []schema.Row // in time order, equal times in arrival order
	latest   int64
	any      bool
	ingested uint64
	rejected uint64
	evicted  uint64
	lastIn   int64 // time of the last row accepted, in arrival order
	parts    map[string]*lcyModelPart
	order    []string
}

type lcyModelPart struct {
	times    []int64
	ingested uint64
	evicted  uint64
	last     int64
}

func lcyValid(r schema.Row) bool {
	if len(r) != 5 {
		return false
	}
	ns, ok := r[0].Nanos()
	if !ok || ns > schema.MaxTime || ns < schema.MinTime {
		return false
	}
	if x, ok := r[1].Num(); !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	if x, ok := r[2].Num(); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return false
	} else if !ok && !r[2].IsMissing() {
		return false
	}
	if _, ok := r[3].Str(); !ok {
		return false
	}
	if _, ok := r[4].Bool(); !ok && !r[4].IsMissing() {
		return false
	}
	return true
}

// push applies rows and says whether the push is accepted, and which
// sentinel refuses it otherwise (nil for a refusal the model leaves to the
// partition limit, which it does not model).
func (m *lcyModel) push(rows []schema.Row) (bool, error) {
	for _, r := range rows {
		if !lcyValid(r) {
			return false, schema.ErrValidation
		}
	}
	latest, any := m.latest, m.any
	prev := int64(math.MinInt64)
	var accepted []schema.Row
	dropped := 0
	for _, r := range rows {
		ns, _ := r[0].Nanos()
		if m.opts.Ordering == live.Strict && ns < prev {
			return false, live.ErrOutOfOrder
		}
		prev = ns
		if any && ns < latest {
			switch m.opts.Ordering {
			case live.Strict:
				return false, live.ErrOutOfOrder
			case live.Drop:
				dropped++
				continue
			case live.Reorder:
				if m.opts.Grace > 0 && latest-ns > int64(m.opts.Grace) {
					return false, live.ErrLate
				}
			}
		}
		accepted = append(accepted, r)
		if !any || ns > latest {
			latest, any = ns, true
		}
	}
	m.latest, m.any = latest, any
	m.rejected += uint64(dropped)
	for _, r := range accepted {
		ns, _ := r[0].Nanos()
		at := len(m.rows)
		for at > 0 {
			t, _ := m.rows[at-1][0].Nanos()
			if t <= ns {
				break
			}
			at--
		}
		m.rows = slices.Insert(m.rows, at, r)
		m.ingested++
		m.lastIn = ns
		h, _ := r[3].Str()
		q := m.parts[h]
		if q == nil {
			q = &lcyModelPart{}
			m.parts[h] = q
			m.order = append(m.order, h)
		}
		at = len(q.times)
		for at > 0 && q.times[at-1] > ns {
			at--
		}
		q.times = slices.Insert(q.times, at, ns)
		q.ingested++
		q.last = max(q.last, ns)
		if q.ingested == 1 {
			q.last = ns
		}
	}
	// Retention, once after the push.
	cut := 0
	if m.opts.MaxAge > 0 {
		for cut < len(m.rows) {
			t, _ := m.rows[cut][0].Nanos()
			if t >= m.latest-int64(m.opts.MaxAge) {
				break
			}
			cut++
		}
	}
	if m.opts.MaxEvents > 0 && len(m.rows)-m.opts.MaxEvents > cut {
		cut = len(m.rows) - m.opts.MaxEvents
	}
	m.rows = m.rows[cut:]
	m.evicted += uint64(cut)
	for _, q := range m.parts {
		cut := 0
		if m.opts.MaxAge > 0 {
			for cut < len(q.times) && q.times[cut] < q.last-int64(m.opts.MaxAge) {
				cut++
			}
		}
		if len(q.times)-3 > cut {
			cut = len(q.times) - 3
		}
		q.times = q.times[cut:]
		q.evicted += uint64(cut)
	}
	return true, nil
}

// check compares s and p's nodes with the model: the rows, the counters,
// the reduce over the root, and the partitions of "part".
func (m *lcyModel) check(t testing.TB, s *live.Series, p *lcyPipe, where string) {
	t.Helper()
	require.Equal(t, live.Stats{Ingested: m.ingested, Rejected: m.rejected, Evicted: m.evicted, Length: len(m.rows)}, s.Stats(), where)
	require.Equal(t, len(m.rows), s.Len(), where)
	got := []string{}
	for i, r := range s.All() {
		require.Equal(t, len(got), i, where)
		got = append(got, fmt.Sprint(r))
	}
	want := make([]string, len(m.rows))
	for i, r := range m.rows {
		want[i] = fmt.Sprint(r)
	}
	require.Equal(t, want, got, "%s: All", where)
	snap, err := s.Snapshot(s.Root())
	require.NoError(t, err)
	got = got[:0]
	for _, r := range snap.All() {
		got = append(got, fmt.Sprint(r))
	}
	require.Equal(t, want, got, "%s: the root's snapshot", where)
	lt, ok := s.LatestNanos()
	if len(m.rows) == 0 {
		require.False(t, ok, where)
	} else {
		last, _ := m.rows[len(m.rows)-1][0].Nanos()
		require.True(t, ok, where)
		require.Equal(t, last, lt, where)
	}
	// The reduce of what the root holds, keyed at the last row that
	// reached it.
	val, err := s.Value(p.ids["red"])
	require.NoError(t, err)
	if m.ingested == 0 {
		require.Zero(t, val.Len(), where)
	} else {
		require.Equal(t, 1, val.Len(), where)
		n, sum, lo, hi := 0.0, 0.0, math.Inf(1), math.Inf(-1)
		for _, r := range m.rows {
			x, _ := r[1].Num()
			n++
			sum += x
			lo, hi = min(lo, x), max(hi, x)
		}
		row := val.Row(0)
		require.Equal(t, m.lastIn, val.TimeNanos(0), "%s: the reduce's time", where)
		require.Equal(t, fmt.Sprint(n), row[1].String(), "%s: count", where)
		if len(m.rows) > 0 {
			require.Equal(t, fmt.Sprint(sum), row[2].String(), "%s: sum", where)
			require.Equal(t, fmt.Sprint(lo), row[3].String(), "%s: min", where)
			require.Equal(t, fmt.Sprint(hi), row[4].String(), "%s: max", where)
		}
	}
	ps, err := s.Partitions(p.ids["part"])
	require.NoError(t, err)
	require.Len(t, ps, len(m.order), where)
	for i, h := range m.order {
		q := m.parts[h]
		key, _ := ps[i].Key.Str()
		require.Equal(t, h, key, where)
		require.Equal(t, q.ingested, ps[i].Ingested, "%s: partition %q", where, h)
		require.Equal(t, q.evicted, ps[i].Evicted, "%s: partition %q", where, h)
		require.Equal(t, len(q.times), ps[i].Length, "%s: partition %q", where, h)
		require.Equal(t, q.last, ps[i].Last.UnixNano(), "%s: partition %q", where, h)
	}
}

// lcyGen makes pushes: mostly in time order, some late rows, and on
// demand one bad row among good ones.
type lcyGen struct {
	rng   *rand.Rand
	clock int64
}

func (g *lcyGen) row() schema.Row {
	g.clock += int64(g.rng.IntN(9)) * int64(time.Millisecond)
	ns := g.clock
	if g.rng.IntN(7) == 0 {
		ns -= int64(g.rng.IntN(60)) * int64(time.Millisecond)
	}
	var w *float64
	if g.rng.IntN(3) > 0 {
		x := float64(g.rng.IntN(21)-10) / 4
		if g.rng.IntN(15) == 0 {
			x = math.Copysign(0, -1)
		}
		w = &x
	}
	var up *bool
	if g.rng.IntN(2) == 0 {
		b := g.rng.IntN(2) == 0
		up = &b
	}
	host := lcyHosts[g.rng.IntN(3)]
	if g.rng.IntN(4) == 0 {
		host = lcyHosts[g.rng.IntN(len(lcyHosts))]
	}
	return lcyMkRow(ns, float64(g.rng.IntN(17)-4)/2, w, host, up)
}

// bad returns a row that no push accepts, and whether only PushRows can
// carry it (a row of the wrong length).
func (g *lcyGen) bad(good schema.Row) (schema.Row, bool) {
	r := slices.Clone(good)
	switch g.rng.IntN(8) {
	case 0:
		r[1] = schema.NumberValue(math.NaN())
	case 1:
		r[1] = schema.NumberValue(math.Inf(-1))
	case 2:
		r[1] = schema.Missing()
	case 3:
		r[2] = schema.NumberValue(math.Inf(1))
	case 4:
		r[0] = schema.NanosValue(schema.MaxTime + 1)
	case 5:
		r[0] = schema.NanosValue(math.MinInt64)
	case 6:
		r[3] = schema.NumberValue(1) // a number in the string column
		return r, true
	default:
		return r[:4], true
	}
	return r, false
}

// TestLcyRefusedPushesChangeNothing: random pushes of which some carry one
// bad row anywhere (a bad cell, a time out of range, a row too short) or
// break the ordering or the partition limit, through PushRows, PushMany or
// a Typed pusher, on series with and without workers. A refused push
// changes nothing the API reads and leaves dst as it was; the series and a
// twin that only ever saw the accepted pushes give the same outputs and
// the same state, and both match the model of the root's rows.
func TestLcyRefusedPushesChangeNothing(t *testing.T) {
	cases := []live.Options{
		{},
		{MaxAge: 120 * time.Millisecond},
		{Ordering: live.Drop, MaxEvents: 25},
		{Ordering: live.Drop, MaxAge: 90 * time.Millisecond, MaxEvents: 40},
		{Ordering: live.Reorder, Grace: 30 * time.Millisecond, MaxAge: 200 * time.Millisecond},
		{Ordering: live.Reorder, MaxEvents: 30},
	}
	refused, compared := 0, 0
	for n, opts := range cases {
		for _, workers := range []int{0, 2}[:1+n%2] {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(workers)+41))
			g := &lcyGen{rng: rng, clock: int64(time.Hour)}
			o := opts
			o.Workers = workers
			s, err := live.New("lcy", lcySchema, o)
			require.NoError(t, err)
			twin, err := live.New("lcy", lcySchema, opts)
			require.NoError(t, err)
			p := lcyBuild(t, s, opts, true)
			_ = lcyBuild(t, twin, opts, true)
			typed, err := live.NewTyped[lcyRow](s)
			require.NoError(t, err)
			m := &lcyModel{opts: opts, parts: map[string]*lcyModelPart{}}
			var out, tout []live.Output
			for push := range 28 {
				where := fmt.Sprintf("case %d workers %d push %d", n, workers, push)
				rows := make([]schema.Row, rng.IntN(9))
				for i := range rows {
					rows[i] = g.row()
				}
				rowsOnly := false
				if len(rows) > 0 && rng.IntN(4) == 0 {
					i := rng.IntN(len(rows))
					rows[i], rowsOnly = g.bad(rows[i])
				}
				mc := *m
				mc.rows = slices.Clone(m.rows)
				mc.parts = map[string]*lcyModelPart{}
				for k, q := range m.parts {
					c := *q
					c.times = slices.Clone(q.times)
					mc.parts[k] = &c
				}
				mc.order = slices.Clone(m.order)
				ok, wantErr := mc.push(rows)

				// The state before, when the push may be refused: the
				// model refuses it, or it has a key the limited
				// partitioning does not hold now.
				before := ""
				lims, err := s.Partitions(p.ids["lim"])
				require.NoError(t, err)
				mayFail := !ok || slices.ContainsFunc(rows, func(r schema.Row) bool {
					return !slices.ContainsFunc(lims, func(q live.Partition) bool { return q.Key.Equal(r[3]) })
				})
				if mayFail {
					before = lcyState(s, p)
				}
				dst := append(out[:0], live.Output{Node: -7})
				how := rng.IntN(3)
				if rowsOnly {
					how = 0
				}
				typedRows, typable := lcyTyped(rows)
				if how == 2 && !typable {
					how = 1
				}
				switch how {
				case 0:
					out, err = s.PushRows(dst, rows...)
				case 1:
					out, err = s.PushMany(dst, lcyBatch(rows))
				default:
					out, err = typed.Push(dst, typedRows)
				}
				if err != nil {
					refused++
					if ok {
						// The model takes it: only the partition limit may refuse it.
						require.ErrorIs(t, err, partition.ErrLimit, where)
						var ke *partition.KeyError
						require.ErrorAs(t, err, &ke, where)
					} else {
						require.ErrorIs(t, err, wantErr, "%s: %v", where, err)
					}
					require.True(t, mayFail, "%s: %v: %v", where, err, rows)
					require.Len(t, out, 1, where)
					require.Equal(t, live.NodeID(-7), out[0].Node, "%s: dst as it was", where)
					require.Equal(t, before, lcyState(s, p), "%s: the refused push (%v) changed the state", where, err)
					continue
				}
				require.True(t, ok, "%s: the series took a push the model refuses (%v): %v", where, wantErr, rows)
				*m = mc
				tout, err = twin.PushRows(tout[:0], rows...)
				require.NoError(t, err, "%s: the twin refused what the series took", where)
				require.Equal(t, live.NodeID(-7), out[0].Node, where)
				require.Equal(t, lcyDumpOuts(tout), lcyDumpOuts(out[1:]), "%s: outputs", where)
				if push%2 == 0 {
					m.check(t, s, p, where)
				}
				if push%5 == 0 {
					require.Equal(t, lcyState(twin, p), lcyState(s, p), "%s: state", where)
					compared++
				}
			}
			require.NoError(t, s.Close())
			require.NoError(t, twin.Close())
		}
	}
	t.Logf("%d refused pushes, %d states compared", refused, compared)
	require.GreaterOrEqual(t, refused, 60)
}

// lcyGoroutines counts the goroutines of series' worker pools (by the
// pool's loop in their stacks: other goroutines come and go on their
// own), waiting a moment while there are more than want: Close waits for
// its workers, but the runtime may list an exited goroutine a moment
// longer.
func lcyGoroutines(want int) int {
	count := func() int {
		buf := make([]byte, 1<<16)
		for {
			n := runtime.Stack(buf, true)
			if n < len(buf) {
				return strings.Count(string(buf[:n]), "internal/workers.(*Pool).loop")
			}
			buf = make([]byte, 2*len(buf))
		}
	}
	n := count()
	for i := 0; n > want && i < 2000; i++ {
		time.Sleep(time.Millisecond)
		n = count()
	}
	return n
}

// lcyHostStream pushes rows of nHosts hosts, perMs rows a millisecond,
// in pushes of batch rows, up to ms milliseconds, from the time from.
func lcyHostStream(t testing.TB, s *live.Series, out []live.Output, from, ms int64, nHosts, perMs, batch int) ([]live.Output, int64) {
	var rows []schema.Row
	var err error
	k := 0
	for at := from; at < from+ms; at++ {
		for i := range perMs {
			k++
			w := float64(k % 7)
			rows = append(rows, lcyMkRow(at*int64(time.Millisecond), float64(k%13), &w, fmt.Sprintf("host-%d", (k+i)%nHosts), nil))
			if len(rows) == batch {
				out, err = s.PushRows(out[:0], rows...)
				require.NoError(t, err)
				rows = rows[:0]
			}
		}
	}
	if len(rows) > 0 {
		out, err = s.PushRows(out[:0], rows...)
		require.NoError(t, err)
	}
	return out, from + ms
}

// lcyClosedCalls returns every call of the API that can fail, on s and
// p's nodes; the callers' functions they are given count in built.
func lcyClosedCalls(s *live.Series, p *lcyPipe, typed *live.Typed[lcyRow], built *int) map[string]func() error {
	part, roll, agg := p.ids["part"], p.ids["roll"], p.ids["agg"]
	x := 1.0
	one := []schema.Row{lcyMkRow(int64(10*time.Hour), 1, &x, "a", nil)}
	aggs := lcyAggs("n", "v", reduce.Count)
	calls := map[string]func() error{
		"PushRows":      func() error { _, err := s.PushRows(nil, one...); return err },
		"PushMany":      func() error { _, err := s.PushMany(nil, lcyBatch(one)); return err },
		"PushRows none": func() error { _, err := s.PushRows(nil); return err },
		"Typed.Push": func() error {
			_, err := typed.Push(nil, []lcyRow{{At: time.Unix(0, int64(10*time.Hour)), V: 1, Host: "a"}})
			return err
		},
		"NewTyped":    func() error { _, err := live.NewTyped[lcyRow](s); return err },
		"PartitionBy": func() error { _, err := s.PartitionBy(s.Root(), "host", partition.Options{}); return err },
		"Rolling": func() error {
			_, err := s.Rolling(part, []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{})
			return err
		},
		"Reduce":    func() error { _, err := s.Reduce(s.Root(), aggs, trigger.Event()); return err },
		"Aggregate": func() error { _, err := s.Aggregate(s.Root(), sequence.Every(time.Second), aggs, 0); return err },
		"Filter": func() error {
			_, err := s.Filter(s.Root(), func(schema.Row) bool { *built++; return true })
			return err
		},
		"Map": func() error {
			_, err := s.Map(s.Root(), lcySchema, func(in, out schema.Row) bool { *built++; return true })
			return err
		},
		"Select":      func() error { _, err := s.Select(s.Root(), "v"); return err },
		"Window":      func() error { _, err := s.Window(s.Root(), time.Second); return err },
		"WindowCount": func() error { _, err := s.WindowCount(s.Root(), 2); return err },
		"Diff":        func() error { _, err := s.Diff(s.Root(), "v"); return err },
		"Rate":        func() error { _, err := s.Rate(s.Root(), "v"); return err },
		"PctChange":   func() error { _, err := s.PctChange(s.Root(), "v"); return err },
		"Fill": func() error {
			_, err := s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold})
			return err
		},
		"Cumulative": func() error {
			_, err := s.Cumulative(s.Root(), live.Running{Column: "v", Using: reduce.Sum})
			return err
		},
		"Sample": func() error { _, err := s.Sample(part, 2); return err },
		"PerPartition": func() error {
			_, err := s.PerPartition(part, func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				*built++
				return part, nil
			})
			return err
		},
		"Gather":         func() error { _, err := s.Gather(part); return err },
		"Watch":          func() error { return s.Watch(roll) },
		"Unwatch":        func() error { return s.Unwatch(roll) },
		"Snapshot":       func() error { _, err := s.Snapshot(s.Root()); return err },
		"Snapshot hist":  func() error { _, err := s.Snapshot(roll); return err },
		"Value":          func() error { _, err := s.Value(roll); return err },
		"NodeSchema":     func() error { _, err := s.NodeSchema(roll); return err },
		"NodeBytes":      func() error { _, err := s.NodeBytes(roll); return err },
		"Describe":       func() error { _, err := s.Describe(roll); return err },
		"Partitions":     func() error { _, err := s.Partitions(part); return err },
		"AggregateStats": func() error { _, err := s.AggregateStats(agg); return err },
	}
	return calls
}

// lcyReads renders what a series reads without an error.
func lcyReads(s *live.Series) string {
	var sb strings.Builder
	lt, ok := s.Latest()
	ln, ok2 := s.LatestNanos()
	fmt.Fprintf(&sb, "%+v %d %d %d %v %d %v %v %d\n", s.Stats(), s.Len(), s.HeldBytes(), lt.UnixNano(), ok, ln, ok2, s.Schema(), s.Root())
	for i, r := range s.All() {
		fmt.Fprintf(&sb, "%d %v\n", i, r)
	}
	return sb.String()
}

// lcySmallPipe builds a partitioning, a clock rolling on it with a
// history and an aggregate, all watched.
func lcySmallPipe(t testing.TB, s *live.Series, aligned bool) *lcyPipe {
	p := &lcyPipe{ids: map[string]live.NodeID{"root": s.Root()}, names: []string{"root"}}
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 3})
	require.NoError(t, err)
	roll, err := s.Rolling(part, []rolling.Window{{Span: time.Second, Aggs: lcyAggs("n", "v", reduce.Count, "s", "w", reduce.Sum)}},
		rolling.Options{Trigger: trigger.Every(time.Second), Aligned: aligned, History: rolling.History{MaxEvents: 50}})
	require.NoError(t, err)
	agg, err := s.Aggregate(s.Root(), sequence.Every(100*time.Millisecond), lcyAggs("n", "v", reduce.Count), 0)
	require.NoError(t, err)
	for name, id := range map[string]live.NodeID{"part": part, "roll": roll, "agg": agg} {
		p.ids[name] = id
		p.names = append(p.names, name)
		require.NoError(t, s.Watch(id))
	}
	return p
}

// TestLcyCloseProbe: with 0, 1, 2 and 4 workers, default and aligned
// windows, Close after a stream long enough for the workers to take rows
// between ticks (closed at once after such a push, or after a tick):
// every call that can fail then returns ErrClosed (and runs no caller's
// function), dst comes back as it was, what reads without an error reads
// what the series held, the last push's tables are as they were, Close
// again returns nil, and no goroutine of the series outlives Close.
func TestLcyCloseProbe(t *testing.T) {
	base := lcyGoroutines(0)
	type config struct {
		workers int
		aligned bool
		stop    int64 // ms of the stream; past 2 s the workers take rows between ticks
	}
	var configs []config
	for _, workers := range []int{0, 1, 2, 4} {
		for _, aligned := range []bool{false, true} {
			configs = append(configs, config{workers, aligned, 2100})
		}
	}
	configs = append(configs, config{2, false, 1990}, config{2, false, 2050}, config{4, false, 2040})
	for _, c := range configs {
		where := fmt.Sprintf("%+v", c)
		opts := live.Options{Workers: c.workers, MaxAge: 100 * time.Millisecond}
		s, err := live.New("lcy", lcySchema, opts)
		require.NoError(t, err)
		p := lcySmallPipe(t, s, c.aligned)
		typed, err := live.NewTyped[lcyRow](s)
		require.NoError(t, err)
		require.Equal(t, base, lcyGoroutines(base), "%s: no goroutine before the first push", where)
		// 9,000 rows a second of 40 hosts, or 1,000 of 200 (a few rows a
		// partition, so that aligned closings are split too): ticks 9,000
		// rows apart let the workers take rows between them once two
		// have passed. The second tick or closing is split.
		var out []live.Output
		if c.stop != 2100 {
			out, _ = lcyHostStream(t, s, nil, 0, c.stop, 40, 9, 450)
		} else {
			out, _ = lcyHostStream(t, s, nil, 0, c.stop, 200, 1, 50)
		}
		if c.workers > 1 {
			require.Equal(t, base+c.workers-1, lcyGoroutines(base+c.workers-1), "%s: the workers run", where)
		}
		lastOut := lcyDumpOuts(out)
		reads := lcyReads(s)
		require.NoError(t, s.Close(), where)
		require.Equal(t, base, lcyGoroutines(base), "%s: goroutines after Close", where)
		built := 0
		for name, call := range lcyClosedCalls(s, p, typed, &built) {
			require.ErrorIs(t, call(), live.ErrClosed, "%s: %s", where, name)
		}
		require.Zero(t, built, "%s: a builder ran the caller's function after Close", where)
		dst := []live.Output{{Node: 3}}
		got, err := s.PushRows(dst, lcyMkRow(int64(time.Hour), 1, nil, "a", nil))
		require.ErrorIs(t, err, live.ErrClosed)
		require.Equal(t, dst, got, "%s: dst as it was", where)
		require.Equal(t, reads, lcyReads(s), "%s: the reads after Close", where)
		require.Equal(t, lastOut, lcyDumpOuts(out), "%s: the last push's tables after Close", where)
		// All stops where the loop breaks, also after Close.
		k := 0
		for i := range s.All() {
			require.Equal(t, k, i)
			if k++; k == 3 {
				break
			}
		}
		require.Equal(t, min(3, s.Len()), k, where)
		// The codec still decodes the last push's root rows.
		if tab, ok := live.Find(out, s.Root(), live.Event); ok {
			rows, err := typed.Codec().Decode(nil, tab)
			require.NoError(t, err)
			require.Len(t, rows, tab.Len())
		}
		for range 3 {
			require.NoError(t, s.Close(), where)
		}
		require.Equal(t, base, lcyGoroutines(base), "%s: goroutines after Close again", where)
	}
}

// TestLcyCloseBeforeAnyPush: a series with workers closed before its
// first push never starts a goroutine, refuses pushes, and reads empty.
func TestLcyCloseBeforeAnyPush(t *testing.T) {
	base := lcyGoroutines(0)
	for _, workers := range []int{0, 2, live.MaxWorkers} {
		s, err := live.New("lcy", lcySchema, live.Options{Workers: workers})
		require.NoError(t, err)
		p := lcyBuild(t, s, live.Options{}, true)
		typed, err := live.NewTyped[lcyRow](s)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		built := 0
		for name, call := range lcyClosedCalls(s, p, typed, &built) {
			require.ErrorIs(t, call(), live.ErrClosed, "workers %d: %s", workers, name)
		}
		require.Zero(t, built)
		require.Equal(t, live.Stats{}, s.Stats())
		require.Zero(t, s.Len())
		_, ok := s.Latest()
		require.False(t, ok)
		for range s.All() {
			t.Fatal("a row in an empty series")
		}
		require.NoError(t, s.Close())
		require.Equal(t, base, lcyGoroutines(base), "workers %d", workers)
	}
}

// TestLcyMaxWorkersStopInClose: a series with MaxWorkers workers and more
// partitions than workers starts them all at its first ticks and Close
// stops every one; the rows are one worker's.
func TestLcyMaxWorkersStopInClose(t *testing.T) {
	base := lcyGoroutines(0)
	var outs [2]string
	for i, workers := range []int{live.MaxWorkers, 0} {
		s, err := live.New("lcy", lcySchema, live.Options{Workers: workers})
		require.NoError(t, err)
		part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		require.NoError(t, err)
		r, err := s.Rolling(part, []rolling.Window{{Span: 300 * time.Millisecond, Aggs: lcyAggs("n", "v", reduce.Count, "hi", "v", reduce.Max)}},
			rolling.Options{Trigger: trigger.Every(100 * time.Millisecond)})
		require.NoError(t, err)
		require.NoError(t, s.Watch(r))
		var sb strings.Builder
		var out []live.Output
		for at := int64(0); at < 500; at += 50 {
			out, _ = lcyHostStream(t, s, out, at, 50, 600, 1, 10_000)
			sb.WriteString(lcyDumpOuts(out))
		}
		outs[i] = sb.String()
		if workers > 1 {
			require.Equal(t, base+workers-1, lcyGoroutines(base+workers-1), "the workers run")
		}
		require.NoError(t, s.Close())
		require.Equal(t, base, lcyGoroutines(base), "workers %d: goroutines after Close", workers)
	}
	require.Equal(t, outs[1], outs[0], "MaxWorkers workers give one worker's rows")
}

// lcyWide is a row type with a field of every kind a codec takes.
type lcyWide struct {
	lcyWideBase
	I8    int8          `pond:"i8"`
	U16   uint16        `pond:"u16"`
	F32   float32       `pond:"f32,optional"`
	P64   *int64        `pond:"p64"`
	Named lcyWideNum    `pond:"named"`
	Dur   time.Duration `pond:"dur"`
	S     lcyWideStr    `pond:"s,optional"`
	B     *bool         `pond:"b"`
	Xs    []float64     `pond:"xs"`
	Ss    []string      `pond:"ss"`
	Note  string        // untagged: no column
	Skip  float64       `pond:"-"`
	inner int           // unexported and untagged: ignored
}

type lcyWideBase struct {
	Nanos int64  `pond:"ts,time"`
	Host  string `pond:"host"`
}

type lcyWideNum float64

type lcyWideStr string

// lcyWideRow is what PushRows takes for w.
func lcyWideRow(w lcyWide) schema.Row {
	r := schema.Row{schema.NanosValue(w.Nanos), schema.StringValue(w.Host), schema.NumberValue(float64(w.I8)), schema.NumberValue(float64(w.U16)),
		schema.Missing(), schema.Missing(), schema.NumberValue(float64(w.Named)), schema.NumberValue(float64(w.Dur)), schema.Missing(), schema.Missing(), schema.Missing(), schema.Missing()}
	if !math.IsNaN(float64(w.F32)) {
		r[4] = schema.NumberValue(float64(w.F32))
	}
	if w.P64 != nil {
		r[5] = schema.NumberValue(float64(*w.P64))
	}
	if w.S != "" {
		r[8] = schema.StringValue(string(w.S))
	}
	if w.B != nil {
		r[9] = schema.BoolValue(*w.B)
	}
	if w.Xs != nil {
		var el []schema.Value
		for _, x := range w.Xs {
			el = append(el, schema.NumberValue(x))
		}
		r[10] = schema.ArrayValue(el...)
	}
	if w.Ss != nil {
		var el []schema.Value
		for _, x := range w.Ss {
			el = append(el, schema.StringValue(x))
		}
		r[11] = schema.ArrayValue(el...)
	}
	return r
}

// TestLcyTypedMatchesPushMany: a Typed pusher, PushMany of the same rows
// laid out by hand and PushRows of them give the same outputs, the same
// refusals (a NaN or infinite value, a time out of the range, a zero
// time) and the same state; the root's events decode back to the rows
// pushed; an empty push changes nothing.
func TestLcyTypedMatchesPushMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 77))
	var series [3]*live.Series
	var pipes [3]*lcyPipe
	opts := live.Options{MaxAge: 150 * time.Millisecond}
	for i := range series {
		s, err := live.New("lcy", lcySchema, opts)
		require.NoError(t, err)
		series[i], pipes[i] = s, lcyBuild(t, s, opts, true)
	}
	typed, err := live.NewTyped[lcyRow](series[0])
	require.NoError(t, err)
	specials := []float64{math.Copysign(0, -1), 5e-324, -5e-324, 1.7e308, -1.7e308, math.MaxFloat64, 1e-300, 0.1, 1 << 53, 1<<53 + 1}
	clock := int64(2 * time.Hour)
	var outs [3][]live.Output
	refused := 0
	for push := range 150 {
		where := fmt.Sprintf("push %d", push)
		rows := make([]lcyRow, rng.IntN(6))
		for i := range rows {
			clock += int64(rng.IntN(20)) * int64(time.Millisecond)
			r := lcyRow{At: time.Unix(0, clock).UTC(), V: float64(rng.IntN(9)), Host: lcyHosts[rng.IntN(3)]}
			if rng.IntN(3) == 0 {
				r.V = specials[rng.IntN(len(specials))]
			}
			if rng.IntN(2) == 0 {
				w := specials[rng.IntN(len(specials))]
				r.W = &w
			}
			if rng.IntN(2) == 0 {
				b := rng.IntN(2) == 0
				r.Up = &b
			}
			rows[i] = r
		}
		if len(rows) > 0 && rng.IntN(5) == 0 {
			bad := &rows[rng.IntN(len(rows))]
			switch rng.IntN(5) {
			case 0:
				bad.V = math.NaN()
			case 1:
				bad.V = math.Inf(1)
			case 2:
				nan := math.NaN()
				bad.W = &nan
			case 3:
				bad.At = time.Time{}
			default:
				bad.At = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) // UnixNano wraps into the range
			}
		}
		plain := make([]schema.Row, len(rows))
		for i, r := range rows {
			plain[i] = lcyMkRow(r.At.UnixNano(), r.V, r.W, r.Host, r.Up)
			if r.At.Year() < 1823 || r.At.Year() > 2116 {
				plain[i][0] = schema.NanosValue(math.MaxInt64)
			}
		}
		var errs [3]error
		outs[0], errs[0] = typed.Push(outs[0][:0], rows)
		outs[1], errs[1] = series[1].PushMany(outs[1][:0], lcyBatch(plain))
		outs[2], errs[2] = series[2].PushRows(outs[2][:0], plain...)
		if errs[0] != nil {
			refused++
			require.ErrorIs(t, errs[0], schema.ErrValidation, where)
			var re *schema.RowError
			require.ErrorAs(t, errs[0], &re, where)
			for i := 1; i < 3; i++ {
				require.ErrorIs(t, errs[i], schema.ErrValidation, "%s: series %d: %v", where, i, errs[i])
				var re2 *schema.RowError
				require.ErrorAs(t, errs[i], &re2, where)
				require.Equal(t, re.Row, re2.Row, "%s: series %d: %v vs %v", where, i, errs[0], errs[i])
				require.Equal(t, re.Column, re2.Column, "%s: series %d: %v vs %v", where, i, errs[0], errs[i])
			}
			require.Empty(t, outs[0], where)
			continue
		}
		for i := 1; i < 3; i++ {
			require.NoError(t, errs[i], "%s: series %d", where, i)
			require.Equal(t, lcyDumpOuts(outs[0]), lcyDumpOuts(outs[i]), "%s: series %d", where, i)
		}
		if tab, ok := live.Find(outs[0], series[0].Root(), live.Event); ok {
			got, err := typed.Codec().Decode(nil, tab)
			require.NoError(t, err)
			require.Equal(t, rows, got, where)
		} else {
			require.Empty(t, rows, where)
		}
		if push%10 == 0 {
			st := lcyState(series[0], pipes[0])
			for i := 1; i < 3; i++ {
				require.Equal(t, st, lcyState(series[i], pipes[i]), "%s: series %d", where, i)
			}
		}
	}
	require.GreaterOrEqual(t, refused, 15)

	// An empty push, typed or not, changes nothing and returns nothing.
	before := lcyState(series[0], pipes[0])
	for _, rows := range [][]lcyRow{nil, {}} {
		out, err := typed.Push(nil, rows)
		require.NoError(t, err)
		require.Empty(t, out)
	}
	out, err := series[0].PushRows(nil)
	require.NoError(t, err)
	require.Empty(t, out)
	out, err = series[0].PushMany(nil, schema.NewBatch(lcySchema, 0))
	require.NoError(t, err)
	require.Empty(t, out)
	require.Equal(t, before, lcyState(series[0], pipes[0]))
}

// TestLcyTypedWideStruct: a struct with a field of every kind the codec
// takes (integers, float32, pointers, named types, a duration, arrays,
// an embedded struct holding the time, untagged and skipped fields)
// pushes what PushRows of the same values pushes, and its schema is
// schema.For's.
func TestLcyTypedWideStruct(t *testing.T) {
	sch, err := schema.For[lcyWide]()
	require.NoError(t, err)
	require.Equal(t, "ts:time, host:string, i8:number, u16:number, f32:number?, p64:number?, named:number, dur:number, s:string?, b:boolean?, xs:array?, ss:array?", sch.String())
	var series [2]*live.Series
	var roll [2]live.NodeID
	for i := range series {
		s, err := live.New("lcy", sch, live.Options{MaxEvents: 50})
		require.NoError(t, err)
		part, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		roll[i], err = s.Rolling(part, []rolling.Window{{Count: 3, Aggs: lcyAggs("f", "f32", reduce.Avg, "p", "p64", reduce.Max, "u", "s", reduce.Unique)}}, rolling.Options{})
		require.NoError(t, err)
		require.NoError(t, s.Watch(s.Root()))
		require.NoError(t, s.Watch(roll[i]))
		series[i] = s
	}
	typed, err := live.NewTyped[lcyWide](series[0])
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 33))
	at := int64(time.Hour)
	var out [2][]live.Output
	for push := range 60 {
		rows := make([]lcyWide, 1+rng.IntN(4))
		for i := range rows {
			at += int64(rng.IntN(3)) * int64(time.Millisecond)
			w := lcyWide{lcyWideBase: lcyWideBase{Nanos: at, Host: lcyHosts[rng.IntN(len(lcyHosts))]},
				I8: int8(rng.IntN(256) - 128), U16: uint16(rng.IntN(65536)), F32: float32(rng.NormFloat64()),
				Named: lcyWideNum(rng.Float64()), Dur: time.Duration(rng.Int64N(1 << 60)), Note: "x", Skip: math.NaN(), inner: 1}
			if rng.IntN(3) == 0 {
				w.F32 = float32(math.NaN())
			}
			if rng.IntN(2) == 0 {
				p := rng.Int64N(1<<62) - 1<<61
				w.P64 = &p
			}
			if rng.IntN(2) == 0 {
				w.S = lcyWideStr(lcyHosts[rng.IntN(len(lcyHosts))])
			}
			if rng.IntN(2) == 0 {
				b := rng.IntN(2) == 0
				w.B = &b
			}
			if rng.IntN(2) == 0 {
				w.Xs = []float64{rng.Float64(), -1}[:rng.IntN(3)]
			}
			if rng.IntN(2) == 0 {
				w.Ss = []string{"é", ""}[:rng.IntN(3)]
			}
			rows[i] = w
		}
		plain := make([]schema.Row, len(rows))
		for i, w := range rows {
			plain[i] = lcyWideRow(w)
		}
		var err0, err1 error
		out[0], err0 = typed.Push(out[0][:0], rows)
		out[1], err1 = series[1].PushRows(out[1][:0], plain...)
		require.NoError(t, err0, "push %d", push)
		require.NoError(t, err1, "push %d", push)
		require.Equal(t, lcyDumpOuts(out[1]), lcyDumpOuts(out[0]), "push %d", push)
	}
	a, err := series[0].Snapshot(series[0].Root())
	require.NoError(t, err)
	b, err := series[1].Snapshot(series[1].Root())
	require.NoError(t, err)
	require.Equal(t, b.String(), a.String())
	got, err := typed.Codec().Decode(nil, a)
	require.NoError(t, err)
	require.Len(t, got, 50)
	for i := range got {
		require.Empty(t, got[i].Note)
		require.Zero(t, got[i].Skip)
	}
}

// TestLcyNewTypedRefusesBadTypes: a row type the series' schema cannot
// take is a *ConfigError wrapping ErrConfig and schema.ErrSchema, never a
// panic, and a refused NewTyped leaves the series as it was.
func TestLcyNewTypedRefusesBadTypes(t *testing.T) {
	s, err := live.New("lcy", lcySchema, live.Options{})
	require.NoError(t, err)
	p := lcyBuild(t, s, live.Options{}, true)
	_, err = s.PushRows(nil, lcyMkRow(1, 1, nil, "a", nil))
	require.NoError(t, err)
	before := lcyState(s, p)
	type (
		unexported struct {
			At time.Time `pond:"time"`
			//lint:ignore U1000 an unexported tagged field is the point of the case
			v    float64  `pond:"v"`
			W    *float64 `pond:"w"`
			Host string   `pond:"host"`
			Up   *bool    `pond:"up"`
		}
		nested struct {
			At time.Time `pond:"time"`
			In lcyRow    `pond:"in"`
		}
		embeddedPtr struct {
			*lcyRow
		}
		missingColumn struct {
			At   time.Time `pond:"time"`
			V    float64   `pond:"v"`
			Host string    `pond:"host"`
		}
		extraField struct {
			lcyRow
			X float64 `pond:"x"`
		}
		wrongKind struct {
			At   time.Time `pond:"time"`
			V    string    `pond:"v"`
			W    *float64  `pond:"w"`
			Host string    `pond:"host"`
			Up   *bool     `pond:"up"`
		}
		boolForString struct {
			At   time.Time `pond:"time"`
			V    float64   `pond:"v"`
			W    *float64  `pond:"w"`
			Host bool      `pond:"host"`
			Up   *bool     `pond:"up"`
		}
		sliceForNumber struct {
			At   time.Time `pond:"time"`
			V    []float64 `pond:"v"`
			W    *float64  `pond:"w"`
			Host string    `pond:"host"`
			Up   *bool     `pond:"up"`
		}
		duplicate struct {
			lcyRow
			V2 float64 `pond:"v"`
		}
		complexField struct {
			At   time.Time  `pond:"time"`
			V    complex128 `pond:"v"`
			W    *float64   `pond:"w"`
			Host string     `pond:"host"`
			Up   *bool      `pond:"up"`
		}
		mapField struct {
			At   time.Time      `pond:"time"`
			V    map[string]int `pond:"v"`
			W    *float64       `pond:"w"`
			Host string         `pond:"host"`
			Up   *bool          `pond:"up"`
		}
		ptrPtr struct {
			At   time.Time `pond:"time"`
			V    float64   `pond:"v"`
			W    **float64 `pond:"w"`
			Host string    `pond:"host"`
			Up   *bool     `pond:"up"`
		}
		unknownOption struct {
			At   time.Time `pond:"time"`
			V    float64   `pond:"v,required"`
			W    *float64  `pond:"w"`
			Host string    `pond:"host"`
			Up   *bool     `pond:"up"`
		}
		ptrTime struct {
			At   *time.Time `pond:"time,time"`
			V    float64    `pond:"v"`
			W    *float64   `pond:"w"`
			Host string     `pond:"host"`
			Up   *bool      `pond:"up"`
		}
		noTime struct {
			V    float64  `pond:"v"`
			W    *float64 `pond:"w"`
			Host string   `pond:"host"`
			Up   *bool    `pond:"up"`
		}
	)
	cases := map[string]func() error{
		"int":            func() error { _, err := live.NewTyped[int](s); return err },
		"pointer":        func() error { _, err := live.NewTyped[*lcyRow](s); return err },
		"any":            func() error { _, err := live.NewTyped[any](s); return err },
		"slice":          func() error { _, err := live.NewTyped[[]lcyRow](s); return err },
		"empty struct":   func() error { _, err := live.NewTyped[struct{}](s); return err },
		"unexported":     func() error { _, err := live.NewTyped[unexported](s); return err },
		"nested":         func() error { _, err := live.NewTyped[nested](s); return err },
		"embedded ptr":   func() error { _, err := live.NewTyped[embeddedPtr](s); return err },
		"missing column": func() error { _, err := live.NewTyped[missingColumn](s); return err },
		"extra field":    func() error { _, err := live.NewTyped[extraField](s); return err },
		"wrong kind":     func() error { _, err := live.NewTyped[wrongKind](s); return err },
		"bool string":    func() error { _, err := live.NewTyped[boolForString](s); return err },
		"slice number":   func() error { _, err := live.NewTyped[sliceForNumber](s); return err },
		"duplicate":      func() error { _, err := live.NewTyped[duplicate](s); return err },
		"complex":        func() error { _, err := live.NewTyped[complexField](s); return err },
		"map":            func() error { _, err := live.NewTyped[mapField](s); return err },
		"ptr ptr":        func() error { _, err := live.NewTyped[ptrPtr](s); return err },
		"unknown option": func() error { _, err := live.NewTyped[unknownOption](s); return err },
		"ptr time":       func() error { _, err := live.NewTyped[ptrTime](s); return err },
		"no time":        func() error { _, err := live.NewTyped[noTime](s); return err },
	}
	for name, call := range cases {
		var err error
		require.NotPanics(t, func() { err = call() }, name)
		require.ErrorIs(t, err, live.ErrConfig, name)
		require.ErrorIs(t, err, schema.ErrSchema, name)
		var ce *live.ConfigError
		require.ErrorAs(t, err, &ce, name)
		require.Equal(t, "typed", ce.Op, name)
	}
	require.Equal(t, before, lcyState(s, p))
	// The series still takes typed rows.
	typed, err := live.NewTyped[lcyRow](s)
	require.NoError(t, err)
	_, err = typed.Push(nil, []lcyRow{{At: time.Unix(0, 2), V: 2, Host: "b"}})
	require.NoError(t, err)
	require.Equal(t, 2, s.Len())
}

// TestLcyUnusualOrdersWorkersMatchOne: the same random sequence of calls
// in unusual orders (nodes built after pushes, on nodes built after
// pushes; Watch and Unwatch between pushes; reads, NodeBytes and refused
// pushes in between; a typed pusher made late) on a series with workers
// and on one without gives the same outputs and the same state, push by
// push.
func TestLcyUnusualOrdersWorkersMatchOne(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 1234))
		opts := live.Options{MaxAge: 400 * time.Millisecond}
		if seed%3 == 1 {
			opts = live.Options{Ordering: live.Reorder, Grace: 40 * time.Millisecond, MaxEvents: 200}
		}
		var pair [2]*live.Series
		var pipes [2]*lcyPipe
		for i := range pair {
			o := opts
			o.Workers = 3 * (1 - i)
			s, err := live.New("lcy", lcySchema, o)
			require.NoError(t, err)
			pair[i] = s
			pipes[i] = &lcyPipe{ids: map[string]live.NodeID{"root": s.Root()}, names: []string{"root"}}
		}
		var typed [2]*live.Typed[lcyRow]
		clock := int64(time.Hour)
		nodes := []live.NodeID{0}
		var parts []live.NodeID
		var outs [2][]live.Output
		for step := range 70 {
			where := fmt.Sprintf("seed %d step %d", seed, step)
			op := rng.IntN(10)
			var ids [2]live.NodeID
			var errs [2]error
			switch {
			case op < 4: // a push of many hosts
				var rows []schema.Row
				for range 1 + rng.IntN(60) {
					clock += int64(rng.IntN(3)) * int64(time.Millisecond)
					ns := clock
					if rng.IntN(10) == 0 {
						ns -= int64(rng.IntN(60)) * int64(time.Millisecond)
					}
					w := float64(rng.IntN(5))
					rows = append(rows, lcyMkRow(ns, float64(rng.IntN(11)), &w, fmt.Sprintf("h%d", rng.IntN(30)), nil))
				}
				if rng.IntN(6) == 0 {
					rows[rng.IntN(len(rows))][1] = schema.NumberValue(math.NaN())
				}
				useTyped := typed[0] != nil && rng.IntN(2) == 0
				trs, _ := lcyTyped(rows)
				for i, s := range pair {
					if useTyped {
						outs[i], errs[i] = typed[i].Push(outs[i][:0], trs)
					} else {
						outs[i], errs[i] = s.PushRows(outs[i][:0], rows...)
					}
				}
				require.Equal(t, errs[0] == nil, errs[1] == nil, "%s: %v vs %v", where, errs[0], errs[1])
				if errs[0] == nil {
					require.Equal(t, lcyDumpOuts(outs[1]), lcyDumpOuts(outs[0]), where)
				}
				continue
			case op == 4 && typed[0] == nil:
				for i, s := range pair {
					var err error
					typed[i], err = live.NewTyped[lcyRow](s)
					require.NoError(t, err)
				}
				continue
			case op == 5: // a partitioning, or a rolling on one
				src := nodes[rng.IntN(len(nodes))]
				kind := rng.IntN(4)
				span := time.Duration(1+rng.IntN(300)) * time.Millisecond
				var pick live.NodeID
				if len(parts) > 0 {
					pick = parts[rng.IntN(len(parts))]
				}
				for i, s := range pair {
					switch {
					case kind == 0 || len(parts) == 0:
						ids[i], errs[i] = s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1 + int(seed%3)})
					case kind == 1:
						ids[i], errs[i] = s.Rolling(pick, []rolling.Window{{Span: 200 * time.Millisecond, Aggs: lcyAggs("n", "v", reduce.Count, "a", "w", reduce.Avg)}},
							rolling.Options{Trigger: trigger.Every(50 * time.Millisecond), History: rolling.History{MaxEvents: 40}})
					case kind == 2:
						ids[i], errs[i] = s.Rolling(pick, []rolling.Window{{Span: 100 * time.Millisecond, Aggs: lcyAggs("s", "v", reduce.Sum, "xs", "w", reduce.Samples)}},
							rolling.Options{Trigger: trigger.Every(50 * time.Millisecond), Aligned: true})
					default:
						ids[i], errs[i] = s.Window(src, span)
					}
				}
			case op == 6: // a view or a reduce on any node
				src := nodes[rng.IntN(len(nodes))]
				kind := rng.IntN(3)
				for i, s := range pair {
					switch kind {
					case 0:
						ids[i], errs[i] = s.Reduce(src, lcyAggs("n", "v", reduce.Count, "m", "v", reduce.Median), trigger.Event())
					case 1:
						ids[i], errs[i] = s.Filter(src, func(r schema.Row) bool { x, _ := r[1].Num(); return x > 3 })
					default:
						ids[i], errs[i] = s.Diff(src, "v")
					}
				}
			case op == 7: // watch or unwatch
				id := nodes[rng.IntN(len(nodes))]
				k := live.OutputKind(1 + rng.IntN(3))
				unwatch := rng.IntN(3) == 0
				for i, s := range pair {
					if unwatch {
						errs[i] = s.Unwatch(id)
					} else {
						errs[i] = s.Watch(id, k)
					}
				}
				require.Equal(t, errs[0] == nil, errs[1] == nil, where)
				continue
			default: // reads, NodeBytes included (it waits for the workers' rows)
				for _, id := range nodes {
					_, err := pair[0].NodeBytes(id)
					require.NoError(t, err)
				}
				require.Equal(t, lcyState(pair[1], pipes[1]), lcyState(pair[0], pipes[0]), where)
				continue
			}
			require.Equal(t, errs[0] == nil, errs[1] == nil, "%s: %v vs %v", where, errs[0], errs[1])
			if errs[0] != nil {
				require.Equal(t, errs[1].Error(), errs[0].Error(), where)
				continue
			}
			require.Equal(t, ids[0], ids[1], where)
			nodes = append(nodes, ids[0])
			if _, err := pair[0].Partitions(ids[0]); err == nil {
				parts = append(parts, ids[0])
			}
			for i := range pair {
				pipes[i].names = append(pipes[i].names, fmt.Sprint(ids[0]))
				pipes[i].ids[fmt.Sprint(ids[0])] = ids[0]
				require.NoError(t, pair[i].Watch(ids[0]))
			}
		}
		require.Equal(t, lcyState(pair[1], pipes[1]), lcyState(pair[0], pipes[0]), "seed %d: the end", seed)
		for _, s := range pair {
			require.NoError(t, s.Close())
		}
	}
}
