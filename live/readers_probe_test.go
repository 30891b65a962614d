package live_test

// The readers probes: seeded random streams through a pipeline of every
// node kind (the root, a partitioning with IdleTTL and limits, rollings
// under clock and event triggers with histories, an aligned rolling,
// reduces, a filter, a window, an aggregate, and nodes built late), and
// every way a user reads it back: each output table through every reader
// of package schema (Value, Row, All, Ref readers, Numbers and Strings,
// Times, Runs, Clone, the three JSON encoders read back by encoding/json),
// Find, Snapshot, Value, History, Describe, Partitions, Stats and
// AggregateStats, compared with a model of the pushed rows written from
// the docs; refused pushes must change none of it. Every identifier here
// starts with rdr.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
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

var rdrSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number, Optional: true},
	schema.Column{Name: "w", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String, Optional: true},
	schema.Column{Name: "up", Kind: schema.Bool, Optional: true},
	schema.Column{Name: "tags", Kind: schema.Array, Optional: true},
)

// rdrRow is one pushed row of the model: its cells and its arrival.
type rdrRow struct {
	t    int64
	seq  int
	w    float64
	host schema.Value
	cell schema.Row
}

// ---- reading a table through every reader --------------------------------

// rdrJSONWant checks a token decoded (UseNumber) from the JSON encoders
// against a cell, as schema.Table.AppendJSON documents it.
func rdrJSONWant(tok any, v schema.Value) error {
	switch v.Kind() {
	case 0:
		if tok != nil {
			return fmt.Errorf("missing written as %#v", tok)
		}
	case schema.Time:
		ns, _ := v.Nanos()
		n, ok := tok.(json.Number)
		if !ok {
			return fmt.Errorf("time %d written as %#v", ns, tok)
		}
		if ns%1_000_000 == 0 {
			if string(n) != strconv.FormatInt(ns/1_000_000, 10) {
				return fmt.Errorf("time %d written as %s", ns, n)
			}
			return nil
		}
		if f, err := strconv.ParseFloat(string(n), 64); err != nil || f != float64(ns)/1e6 {
			return fmt.Errorf("time %d written as %s", ns, n)
		}
	case schema.Number:
		x, _ := v.Num()
		n, ok := tok.(json.Number)
		if !ok {
			return fmt.Errorf("number %v written as %#v", x, tok)
		}
		if f, err := strconv.ParseFloat(string(n), 64); err != nil || f != x || x == 0 && string(n) != "0" {
			return fmt.Errorf("number %v written as %s", x, n)
		}
	case schema.String:
		s, _ := v.Str()
		if want := strings.ToValidUTF8(s, "\ufffd"); tok != want && tok != rdrRunes(s) {
			return fmt.Errorf("string %q written as %#v", s, tok)
		}
	case schema.Bool:
		b, _ := v.Bool()
		if tok != b {
			return fmt.Errorf("bool %v written as %#v", b, tok)
		}
	case schema.Array:
		elems, _ := v.Array()
		arr, ok := tok.([]any)
		if !ok || len(arr) != len(elems) {
			return fmt.Errorf("array %v written as %#v", v, tok)
		}
		for k := range elems {
			if err := rdrJSONWant(arr[k], elems[k]); err != nil {
				return fmt.Errorf("element %d: %w", k, err)
			}
		}
	}
	return nil
}

// rdrRunes is s with each invalid byte as U+FFFD, as encoding/json reads it.
func rdrRunes(s string) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteRune(c)
	}
	return b.String()
}

func rdrDecode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON %q: %w", b, err)
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after %q", b)
	}
	return v, nil
}

// rdrSameValue is Value.Equal, and for numbers the same bits (0 and −0 told
// apart: a reader must not change a cell).
func rdrSameValue(a, b schema.Value) bool {
	if !a.Equal(b) {
		return false
	}
	if x, ok := a.Num(); ok {
		y, _ := b.Num()
		return math.Float64bits(x) == math.Float64bits(y)
	}
	return true
}

// rdrCheckTable reads tab through every reader and checks that they
// agree with Table.Value and with the docs. It returns the table's rows.
func rdrCheckTable(tab *schema.Table) ([]schema.Row, error) {
	sch := tab.Schema()
	n := tab.Len()
	cols := sch.Columns()
	times := tab.Times()
	if len(times) != n {
		return nil, fmt.Errorf("Times has %d, Len %d", len(times), n)
	}
	rows := make([]schema.Row, n)
	for i := range n {
		rows[i] = tab.Row(i)
		if len(rows[i]) != len(cols) {
			return nil, fmt.Errorf("row %d has %d cells", i, len(rows[i]))
		}
		ns, ok := rows[i][0].Nanos()
		if !ok || ns != times[i] || tab.TimeNanos(i) != ns || !tab.Time(i).Equal(time.Unix(0, ns)) {
			return nil, fmt.Errorf("row %d: time %v, Times %d, TimeNanos %d, Time %v", i, rows[i][0], times[i], tab.TimeNanos(i), tab.Time(i))
		}
		for j := range cols {
			if v := tab.Value(i, j); !rdrSameValue(v, rows[i][j]) {
				return nil, fmt.Errorf("row %d col %d: Value %v, Row %v", i, j, v, rows[i][j])
			}
			if k := rows[i][j].Kind(); k != 0 && k != cols[j].Kind {
				return nil, fmt.Errorf("row %d col %d: a %v cell in a %v column", i, j, k, cols[j].Kind)
			}
			if rows[i][j].IsMissing() && j > 0 && !cols[j].Optional {
				return nil, fmt.Errorf("row %d col %d: missing cell in the required column %q", i, j, cols[j].Name)
			}
			if x, ok := rows[i][j].Num(); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
				return nil, fmt.Errorf("row %d col %d: non-finite %v", i, j, x)
			}
		}
	}
	k := 0
	for i, row := range tab.All() {
		if i != k || !slices.EqualFunc(row, rows[i], rdrSameValue) {
			return nil, fmt.Errorf("All gave row %d (%v) at %d", i, row, k)
		}
		k++
	}
	if k != n {
		return nil, fmt.Errorf("All gave %d rows of %d", k, n)
	}
	for j, c := range cols[1:] {
		j++
		ref, err := sch.Ref(c.Name, c.Kind)
		if err != nil {
			return nil, err
		}
		nums, okN := tab.Numbers(c.Name)
		strs, okS := tab.Strings(c.Name)
		if okN != (c.Kind == schema.Number) || okS != (c.Kind == schema.String) || okN && len(nums) != n || okS && len(strs) != n {
			return nil, fmt.Errorf("column %q (%v): Numbers %v (%d), Strings %v (%d)", c.Name, c.Kind, okN, len(nums), okS, len(strs))
		}
		for i := range n {
			v := rows[i][j]
			var present bool
			switch c.Kind {
			case schema.Number:
				x, ok := tab.Num(ref, i)
				wx, _ := v.Num()
				if ok && math.Float64bits(x) != math.Float64bits(wx) || ok != !math.IsNaN(nums[i]) || ok && math.Float64bits(nums[i]) != math.Float64bits(x) {
					return nil, fmt.Errorf("row %d %q: Num %v %v, Numbers %v, Value %v", i, c.Name, x, ok, nums[i], v)
				}
				present = ok
			case schema.String:
				s, ok := tab.Str(ref, i)
				ws, _ := v.Str()
				if s != ws || strs[i] != ws {
					return nil, fmt.Errorf("row %d %q: Str %q %v, Strings %q, Value %v", i, c.Name, s, ok, strs[i], v)
				}
				present = ok
			case schema.Bool:
				b, ok := tab.Bool(ref, i)
				wb, _ := v.Bool()
				if b != wb {
					return nil, fmt.Errorf("row %d %q: Bool %v %v, Value %v", i, c.Name, b, ok, v)
				}
				present = ok
			case schema.Array:
				xs, okX := tab.AppendNums([]float64{-7}, ref, i)
				ss, okS := tab.AppendStrs([]string{"p"}, ref, i)
				elems, _ := v.Array()
				wantX, wantS := []float64{-7}, []string{"p"}
				for _, e := range elems {
					if x, ok := e.Num(); ok {
						wantX = append(wantX, x)
					}
					if s, ok := e.Str(); ok {
						wantS = append(wantS, s)
					}
				}
				if okX != okS || !slices.Equal(xs, wantX) || !slices.Equal(ss, wantS) {
					return nil, fmt.Errorf("row %d %q: AppendNums %v %v, AppendStrs %q %v, Value %v", i, c.Name, xs, okX, ss, okS, v)
				}
				present = okX
			}
			if present == v.IsMissing() {
				return nil, fmt.Errorf("row %d %q: present %v, Value %v", i, c.Name, present, v)
			}
		}
	}
	// Runs: maximal runs of equal times covering [0, n).
	next := 0
	for run := range tab.Runs() {
		if run.From != next || run.To <= run.From || run.Len() != run.To-run.From || run.To < n && times[run.To] == run.Time {
			return nil, fmt.Errorf("run %+v after %d", run, next)
		}
		for i := run.From; i < run.To; i++ {
			if times[i] != run.Time {
				return nil, fmt.Errorf("run %+v holds row %d at %d", run, i, times[i])
			}
		}
		next = run.To
	}
	if next != n {
		return nil, fmt.Errorf("runs end at %d of %d", next, n)
	}
	// Clone.
	clone := tab.Clone()
	if !clone.Schema().Equal(sch) || clone.Len() != n {
		return nil, fmt.Errorf("clone of %d rows has %d", n, clone.Len())
	}
	for i := range n {
		if !slices.EqualFunc(clone.Row(i), rows[i], rdrSameValue) {
			return nil, fmt.Errorf("clone row %d: %v, want %v", i, clone.Row(i), rows[i])
		}
	}
	// JSON: rows, columns, one row at a time, appended after a prefix.
	byRows, err := rdrDecode(tab.AppendJSON(nil))
	if err != nil {
		return nil, err
	}
	rs, ok := byRows.([]any)
	if !ok || len(rs) != n {
		return nil, fmt.Errorf("AppendJSON gave %#v", byRows)
	}
	byCols, err := rdrDecode(tab.AppendJSONColumns(nil))
	if err != nil {
		return nil, err
	}
	cs, ok := byCols.(map[string]any)
	if !ok || len(cs) != len(cols) {
		return nil, fmt.Errorf("AppendJSONColumns gave %#v", byCols)
	}
	for j, c := range cols {
		arr, ok := cs[c.Name].([]any)
		if !ok || len(arr) != n {
			return nil, fmt.Errorf("AppendJSONColumns: column %q is %#v", c.Name, cs[c.Name])
		}
		for i := range n {
			if err := rdrJSONWant(arr[i], rows[i][j]); err != nil {
				return nil, fmt.Errorf("AppendJSONColumns row %d %q: %w", i, c.Name, err)
			}
		}
	}
	for i := range n {
		objs := []any{rs[i]}
		if i < 3 || i == n-1 {
			one, err := rdrDecode(tab.AppendJSONRow([]byte("xx"), i)[2:])
			if err != nil {
				return nil, err
			}
			objs = append(objs, one)
		}
		for _, obj := range objs {
			m, ok := obj.(map[string]any)
			if !ok || len(m) != len(cols) {
				return nil, fmt.Errorf("JSON row %d: %#v", i, obj)
			}
			for j, c := range cols {
				if err := rdrJSONWant(m[c.Name], rows[i][j]); err != nil {
					return nil, fmt.Errorf("JSON row %d %q: %w", i, c.Name, err)
				}
			}
		}
	}
	if s := tab.String(); n > 0 && strings.Count(s, "\n") != n-1 {
		return nil, fmt.Errorf("String has %d lines for %d rows", strings.Count(s, "\n")+1, n)
	}
	return rows, nil
}

// rdrPrint renders a table for comparisons: its JSON by rows.
func rdrPrint(tab *schema.Table) string { return string(tab.AppendJSON(nil)) }

// ---- the model ----------------------------------------------------------

type rdrPart struct {
	key      schema.Value
	rows     []rdrRow // in key order
	ingested uint64
	evicted  uint64
	last     int64
}

type rdrBucket struct {
	start int64
	n     int
	ws    []float64
}

type rdrModel struct {
	opts     live.Options
	popts    partition.Options
	held     []rdrRow // the root's rows, in key order
	latest   int64
	any      bool
	seq      int
	stats    live.Stats
	parts    []*rdrPart
	arrived  []rdrRow // every accepted row, in arrival order
	aggGrace int64
	aggWM    int64
	aggAny   bool
	open     []rdrBucket
	aggStats live.AggregateStats
	redT     int64 // the time of the latest row that reached the reduce
	redSeen  bool
	redFT    int64
	redFSeen bool
}

func rdrKeyOf(v schema.Value) string { return v.String() }

func (m *rdrModel) part(key schema.Value) *rdrPart {
	for _, p := range m.parts {
		if rdrKeyOf(p.key) == rdrKeyOf(key) {
			return p
		}
	}
	return nil
}

// insert puts r into rows, in key order after rows of its time.
func rdrInsert(rows []rdrRow, r rdrRow) []rdrRow {
	i := sort.Search(len(rows), func(i int) bool { return rows[i].t > r.t })
	return slices.Insert(rows, i, r)
}

// retain applies MaxAge (from latest) and MaxEvents to rows in key order,
// returning the rows kept and how many left.
func rdrRetain(rows []rdrRow, maxAge time.Duration, maxEvents int, latest int64) ([]rdrRow, int) {
	cut := 0
	if maxAge > 0 {
		for cut < len(rows) && rows[cut].t < latest-int64(maxAge) {
			cut++
		}
	}
	if maxEvents > 0 && len(rows)-cut > maxEvents {
		cut = len(rows) - maxEvents
	}
	return rows[cut:], cut
}

// push applies a push to the model, or returns the error it expects.
func (m *rdrModel) push(rows []rdrRow, filterKeep func(rdrRow) bool) (kind string, accepted []rdrRow) {
	// Ordering.
	latest, have := m.latest, m.any
	for i, r := range rows {
		if have && r.t < latest {
			switch m.opts.Ordering {
			case live.Strict:
				return "order", nil
			case live.Drop:
				rows[i].seq = -1
				continue
			case live.Reorder:
				if m.opts.Grace > 0 && r.t < latest-int64(m.opts.Grace) {
					return "late", nil
				}
			}
		}
		if !have || r.t > latest {
			latest, have = r.t, true
		}
	}
	for _, r := range rows {
		if r.seq != -1 {
			accepted = append(accepted, r)
		}
	}
	// Partition limit, checked at the push's own time.
	if m.popts.MaxPartitions > 0 {
		newKeys := map[string]bool{}
		routed := map[string]bool{}
		for _, r := range accepted {
			routed[rdrKeyOf(r.host)] = true
			if m.part(r.host) == nil {
				newKeys[rdrKeyOf(r.host)] = true
			}
		}
		live := len(m.parts)
		if m.popts.IdleTTL > 0 && len(newKeys) > 0 {
			for _, p := range m.parts {
				if !routed[rdrKeyOf(p.key)] && p.last < latest-int64(m.popts.IdleTTL) {
					live--
				}
			}
		}
		if len(newKeys) > 0 && live+len(newKeys) > m.popts.MaxPartitions {
			return "limit", nil
		}
		if m.popts.IdleTTL > 0 && len(newKeys) > 0 {
			m.parts = slices.DeleteFunc(m.parts, func(p *rdrPart) bool {
				return !routed[rdrKeyOf(p.key)] && p.last < latest-int64(m.popts.IdleTTL)
			})
		}
	}
	// Commit.
	for i := range rows {
		if rows[i].seq == -1 {
			m.stats.Rejected++
		}
	}
	for k := range accepted {
		accepted[k].seq = m.seq
		m.seq++
		r := accepted[k]
		m.held = rdrInsert(m.held, r)
		m.arrived = append(m.arrived, r)
		m.stats.Ingested++
		if !m.any || r.t > m.latest {
			m.latest, m.any = r.t, true
		}
		p := m.part(r.host)
		if p == nil {
			p = &rdrPart{key: r.host}
			m.parts = append(m.parts, p)
		}
		p.rows = rdrInsert(p.rows, r)
		p.ingested++
		p.last = max(p.last, r.t)
		if p.ingested == 1 {
			p.last = r.t
		}
		m.aggRow(r)
		m.redT, m.redSeen = r.t, true
		if filterKeep(r) {
			m.redFT, m.redFSeen = r.t, true
		}
	}
	var gone int
	m.held, gone = rdrRetain(m.held, m.opts.MaxAge, m.opts.MaxEvents, m.latest)
	m.stats.Evicted += uint64(gone)
	m.stats.Length = len(m.held)
	maxAge, maxEvents := m.popts.MaxAge, m.popts.MaxEvents
	if maxAge == 0 {
		maxAge = m.opts.MaxAge
	}
	if maxEvents == 0 {
		maxEvents = m.opts.MaxEvents
	}
	for _, p := range m.parts {
		p.rows, gone = rdrRetain(p.rows, maxAge, maxEvents, p.last)
		p.evicted += uint64(gone)
	}
	if m.popts.IdleTTL > 0 {
		m.parts = slices.DeleteFunc(m.parts, func(p *rdrPart) bool { return p.last < m.latest-int64(m.popts.IdleTTL) })
	}
	return "", accepted
}

const rdrStep = int64(time.Second)

// aggRow adds a row to the aggregate's model, in arrival order.
func (m *rdrModel) aggRow(r rdrRow) {
	start := r.t - ((r.t%rdrStep)+rdrStep)%rdrStep
	if m.aggAny && start+rdrStep+m.aggGrace <= m.aggWM {
		m.aggStats.Dropped++
		return
	}
	m.aggStats.Observed++
	i := slices.IndexFunc(m.open, func(b rdrBucket) bool { return b.start == start })
	if i < 0 {
		m.open = append(m.open, rdrBucket{start: start})
		slices.SortFunc(m.open, func(a, b rdrBucket) int { return int(min(max(a.start-b.start, -1), 1)) })
		i = slices.IndexFunc(m.open, func(b rdrBucket) bool { return b.start == start })
	}
	m.open[i].n++
	m.open[i].ws = append(m.open[i].ws, r.w)
	if !m.aggAny || r.t > m.aggWM {
		m.aggWM, m.aggAny = r.t, true
	}
}

// aggClose closes the buckets the watermark passed, in start order.
func (m *rdrModel) aggClose() []rdrBucket {
	var closed []rdrBucket
	for len(m.open) > 0 && m.open[0].start+rdrStep+m.aggGrace <= m.aggWM {
		closed = append(closed, m.open[0])
		m.open = m.open[1:]
		m.aggStats.Closed++
	}
	m.aggStats.Open = len(m.open)
	return closed
}

// ---- the probe ----------------------------------------------------------

type rdrNodes struct {
	p, roll, rollE, al, cnt, red, filt, redF, win, agg live.NodeID
	late                                               []live.NodeID
}

// rdrBuild builds the pipeline; al is -1 when the ordering cannot have an
// aligned rolling.
func rdrBuild(t *testing.T, s *live.Series, m *rdrModel, r *rand.Rand) rdrNodes {
	var n rdrNodes
	var err error
	n.p, err = s.PartitionBy(s.Root(), "host", m.popts)
	require.NoError(t, err)
	n.roll, err = s.Rolling(n.p, []rolling.Window{{Span: 2 * time.Second, Aggs: []reduce.Agg{
		{Out: "n", From: "v", Using: reduce.Count},
		{Out: "sv", From: "v", Using: reduce.Samples},
		{Out: "tg", From: "tags", Using: reduce.Unique},
		{Out: "fu", From: "up", Using: reduce.First},
		{Out: "lw", From: "w", Using: reduce.Last},
		{Out: "sh", From: "host", Using: reduce.Samples},
	}}}, rolling.Options{Trigger: trigger.Every(time.Second), History: rolling.History{MaxAge: 2 * time.Second}})
	require.NoError(t, err)
	n.rollE, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: []reduce.Agg{
		{Out: "sw", From: "w", Using: reduce.Sum},
		{Out: "sd", From: "w", Using: reduce.Stdev},
		{Out: "k", From: "host", Using: reduce.Keep},
		{Out: "st", From: "tags", Using: reduce.Samples},
	}}}, rolling.Options{History: rolling.History{MaxEvents: 4}})
	require.NoError(t, err)
	n.al = -1
	if m.opts.Ordering != live.Reorder || m.opts.Grace > 0 {
		n.al, err = s.Rolling(n.p, []rolling.Window{
			{Span: 2 * time.Second, Aggs: []reduce.Agg{{Out: "a_sum", From: "w", Using: reduce.Sum}, {Out: "a_med", From: "w", Using: reduce.Median}}},
			{Span: 3 * time.Second, Aggs: []reduce.Agg{{Out: "a_avg", From: "w", Using: reduce.Avg}}},
			{Name: "half", Span: 1500 * time.Millisecond, Aggs: []reduce.Agg{{Out: "a_u", From: "tags", Using: reduce.Unique}}},
		}, rolling.Options{Trigger: trigger.Every(time.Second), Aligned: true})
		require.NoError(t, err)
	}
	n.cnt, err = s.Rolling(s.Root(), []rolling.Window{{Span: 2 * time.Second, Aggs: []reduce.Agg{{Out: "c", From: "w", Using: reduce.Count}}}},
		rolling.Options{Trigger: trigger.Every(time.Second)})
	require.NoError(t, err)
	aggs := []reduce.Agg{
		{Out: "n", From: "w", Using: reduce.Count}, {Out: "s", From: "w", Using: reduce.Sum},
		{Out: "lo", From: "w", Using: reduce.Min}, {Out: "hi", From: "w", Using: reduce.Max},
	}
	n.red, err = s.Reduce(s.Root(), aggs, trigger.Event())
	require.NoError(t, err)
	n.filt, err = s.Filter(s.Root(), func(row schema.Row) bool { w, _ := row[2].Num(); return w > 0 })
	require.NoError(t, err)
	n.redF, err = s.Reduce(n.filt, aggs, trigger.Event())
	require.NoError(t, err)
	n.win, err = s.Window(s.Root(), 3*time.Second)
	require.NoError(t, err)
	grace := time.Duration(0)
	if r.IntN(2) == 0 {
		grace = 1500 * time.Millisecond
	}
	m.aggGrace = int64(grace)
	if grace == 0 {
		m.aggGrace = int64(m.opts.Grace)
	}
	n.agg, err = s.Aggregate(s.Root(), sequence.Every(time.Second), aggs[:2], grace)
	require.NoError(t, err)
	for _, id := range []live.NodeID{s.Root(), n.p} {
		require.NoError(t, s.Watch(id, live.Event, live.Batch, live.Evict))
	}
	for _, id := range []live.NodeID{n.roll, n.rollE, n.cnt, n.red, n.redF, n.agg} {
		require.NoError(t, s.Watch(id))
	}
	require.NoError(t, s.Watch(n.filt, live.Event, live.Evict))
	require.NoError(t, s.Watch(n.win, live.Event, live.Evict))
	if n.al >= 0 {
		require.NoError(t, s.Watch(n.al))
	}
	return n
}

var rdrHosts = []schema.Value{
	schema.StringValue("a"), schema.StringValue("b"), schema.StringValue("é\u2028\"q\""), schema.StringValue(""),
	schema.Missing(), schema.StringValue("\xff\x00bad"), schema.StringValue("😀"),
}

// rdrBatch makes a batch of the rows, with garbage in the slices under
// missing cells (a missing flag wins whatever the slice holds).
func rdrBatch(rows []rdrRow) *schema.Batch {
	b := schema.NewBatch(rdrSchema, len(rows))
	for j := range b.Cols {
		b.Cols[j].Missing = make([]bool, len(rows))
	}
	for i, r := range rows {
		b.Time = append(b.Time, r.t)
		x, ok := r.cell[1].Num()
		if !ok {
			x = 12345
		}
		b.Cols[0].Num = append(b.Cols[0].Num, x)
		b.Cols[0].Missing[i] = !ok
		b.Cols[1].Num = append(b.Cols[1].Num, r.w)
		h, ok := r.host.Str()
		if !ok {
			h = "garbage"
		}
		b.Cols[2].Str = append(b.Cols[2].Str, h)
		b.Cols[2].Missing[i] = !ok
		u, ok := r.cell[4].Bool()
		b.Cols[3].Bool = append(b.Cols[3].Bool, u || !ok)
		b.Cols[3].Missing[i] = !ok
		a, ok := r.cell[5].Array()
		if !ok {
			a = []schema.Value{schema.NumberValue(666)}
		}
		b.Cols[4].Arr = append(b.Cols[4].Arr, a)
		b.Cols[4].Missing[i] = !ok
	}
	return b
}

func rdrTags(r *rand.Rand) schema.Value {
	if r.IntN(3) == 0 {
		return schema.Missing()
	}
	var elems []schema.Value
	for range r.IntN(4) {
		switch r.IntN(4) {
		case 0:
			elems = append(elems, schema.NumberValue(float64(r.IntN(5))-1.5))
		case 1:
			elems = append(elems, schema.StringValue(rdrPickStr(r, "x", "y", "\"\\", "\u2029")))
		case 2:
			elems = append(elems, schema.BoolValue(r.IntN(2) == 0))
		default:
			elems = append(elems, schema.NumberValue(rdrPickF(r, 1e308, -1e-310, math.Copysign(0, -1), 5e-324)))
		}
	}
	return schema.ArrayValue(elems...)
}

func rdrPickStr(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }
func rdrPickF(r *rand.Rand, xs ...float64) float64 { return xs[r.IntN(len(xs))] }
func rdrJSONOf(tab *schema.Table, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return rdrPrint(tab)
}

// rdrState renders everything a reader can read of the series.
func rdrState(s *live.Series, n rdrNodes) string {
	var b strings.Builder
	for _, id := range append([]live.NodeID{s.Root(), n.p, n.filt, n.win, n.roll, n.rollE}, n.late...) {
		fmt.Fprintf(&b, "snap %d: %s\n", id, rdrJSONOf(s.Snapshot(id)))
	}
	for _, id := range append([]live.NodeID{n.roll, n.rollE, n.al, n.cnt, n.red, n.redF, n.agg}, n.late...) {
		if id >= 0 {
			fmt.Fprintf(&b, "value %d: %s\n", id, rdrJSONOf(s.Value(id)))
		}
	}
	ps, err := s.Partitions(n.p)
	fmt.Fprintf(&b, "parts %v %v\n", ps, err)
	as, err := s.AggregateStats(n.agg)
	fmt.Fprintf(&b, "agg %+v %v\nstats %+v\n", as, err, s.Stats())
	lt, ok := s.LatestNanos()
	fmt.Fprintf(&b, "latest %d %v len %d\n", lt, ok, s.Len())
	return b.String()
}

// rdrWantRows compares a table's rows with the model's rows of the root's
// schema.
func rdrWantRows(tab *schema.Table, want []rdrRow, full bool) error {
	var rows []schema.Row
	if full {
		var err error
		if rows, err = rdrCheckTable(tab); err != nil {
			return err
		}
	} else {
		for i := range tab.Len() {
			rows = append(rows, tab.Row(i))
		}
	}
	if len(rows) != len(want) {
		return fmt.Errorf("%d rows, want %d:\n%s", len(rows), len(want), rdrPrint(tab))
	}
	for i := range rows {
		if !slices.EqualFunc(rows[i], want[i].cell, rdrSameValue) {
			return fmt.Errorf("row %d: %v, want %v", i, rows[i], want[i].cell)
		}
	}
	return nil
}

func rdrRun(t *testing.T, seed uint64, opts live.Options, popts partition.Options, pushes int) {
	r := rand.New(rand.NewPCG(seed, 41))
	s, err := live.New("rdr", rdrSchema, opts)
	require.NoError(t, err)
	defer s.Close()
	m := &rdrModel{opts: opts, popts: popts}
	n := rdrBuild(t, s, m, r)
	keep := func(x rdrRow) bool { return x.w > 0 }

	// Describe: the documented forms of a rolling's description.
	d, err := s.Describe(n.roll)
	require.NoError(t, err)
	require.Equal(t, "rolling: 2s", d)
	d, err = s.Describe(n.rollE)
	require.NoError(t, err)
	require.Equal(t, "rolling: 3", d)
	d, err = s.Describe(n.cnt)
	require.NoError(t, err)
	require.Equal(t, "rolling: 2s (counts by time)", d)
	if n.al >= 0 {
		d, err = s.Describe(n.al)
		require.NoError(t, err)
		require.Equal(t, "rolling aligned: 2s: panes of 1s + raw rows; 3s: panes of 1s; half: panes of 500ms + raw rows", d)
	}
	for _, id := range []live.NodeID{s.Root(), n.p, n.red, n.filt, n.redF, n.win, n.agg} {
		d, err := s.Describe(id)
		require.NoError(t, err)
		require.NotEmpty(t, d)
		require.NotContains(t, d, "\n")
	}
	_, err = s.Describe(n.roll + 1) // the history's hidden id
	require.ErrorIs(t, err, live.ErrNode)

	var (
		outs       []live.Output
		clones     []*schema.Table
		cloneJSON  []string
		hist       []schema.Row // every row roll emitted
		histE      []schema.Row // every row rollE emitted
		lastRoll   *schema.Table
		lastRollE  *schema.Table
		ts         = int64(1_700_000_000_000_000_000)
		extra      = 0
		refused    = 0
		lateAt     = pushes / 3
		lateWin    live.NodeID
		lateRed    live.NodeID
		lateRollE  live.NodeID
		builtLate  bool
		emittedAll = 0
	)
	for push := range pushes {
		if push == lateAt {
			// Nodes built late start from what their source holds.
			lateWin, err = s.Window(s.Root(), 3*time.Second)
			require.NoError(t, err)
			lateRed, err = s.Reduce(s.Root(), []reduce.Agg{{Out: "n", From: "w", Using: reduce.Count}, {Out: "s", From: "w", Using: reduce.Sum}}, trigger.Event())
			require.NoError(t, err)
			lateRollE, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: []reduce.Agg{
				{Out: "sw", From: "w", Using: reduce.Sum}, {Out: "sd", From: "w", Using: reduce.Stdev},
				{Out: "k", From: "host", Using: reduce.Keep}, {Out: "st", From: "tags", Using: reduce.Samples},
			}}}, rolling.Options{})
			require.NoError(t, err)
			n.late = []live.NodeID{lateWin, lateRed, lateRollE}
			builtLate = true
			// The late rolling's value is what one built at the start
			// would have emitted last, when the root still holds the rows
			// of its count window.
			if k := len(m.arrived); k >= 3 && rdrHeldAll(m, m.arrived[k-3:]) {
				want, err := s.Value(n.rollE)
				require.NoError(t, err)
				got, err := s.Value(lateRollE)
				require.NoError(t, err)
				require.Equal(t, rdrPrint(want), rdrPrint(got), "push %d: late rolling's Value", push)
			}
		}
		// The rows of the push.
		var rows []rdrRow
		k := r.IntN(6)
		if r.IntN(10) == 0 {
			k = 0
		}
		for range k {
			switch r.IntN(10) {
			case 0: // equal time
			case 1: // late
				ts -= r.Int64N(2500) * int64(time.Millisecond)
			case 2: // a gap
				ts += r.Int64N(6000) * int64(time.Millisecond)
			default:
				ts += r.Int64N(700) * int64(time.Millisecond)
			}
			host := rdrHosts[r.IntN(len(rdrHosts))]
			if popts.IdleTTL > 0 && r.IntN(8) == 0 {
				extra++
				host = schema.StringValue("k" + strconv.Itoa(extra))
			}
			w := float64(r.IntN(7)) - 2
			if r.IntN(5) == 0 {
				w = rdrPickF(r, 1e300, -1e-300, math.Copysign(0, -1), 5e-324, 0.1)
			}
			v := schema.NumberValue(float64(r.IntN(100)) / 4)
			if r.IntN(4) == 0 {
				v = schema.Missing()
			}
			up := schema.BoolValue(r.IntN(2) == 0)
			if r.IntN(3) == 0 {
				up = schema.Missing()
			}
			cell := schema.Row{schema.NanosValue(ts), v, schema.NumberValue(w), host, up, rdrTags(r)}
			rows = append(rows, rdrRow{t: ts, w: w, host: host, cell: cell})
		}
		b := rdrBatch(rows)
		bad := ""
		if len(rows) > 0 && r.IntN(12) == 0 {
			// A bad cell anywhere refuses the whole push.
			i := r.IntN(len(rows))
			switch r.IntN(3) {
			case 0:
				b.Cols[1].Num[i] = math.NaN()
			case 1:
				b.Cols[1].Missing[i] = true
			default:
				b.Cols[4].Arr[i] = []schema.Value{schema.NumberValue(math.Inf(1))}
				b.Cols[4].Missing[i] = false
			}
			bad = "validation"
		}
		var wantKind string
		var accepted []rdrRow
		if bad == "" {
			model := *m
			model.held = slices.Clone(m.held)
			model.arrived = slices.Clone(m.arrived)
			model.open = slices.Clone(m.open)
			model.parts = nil
			for _, p := range m.parts {
				cp := *p
				cp.rows = slices.Clone(p.rows)
				model.parts = append(model.parts, &cp)
			}
			wantKind, accepted = model.push(slices.Clone(rows), keep)
			if wantKind == "" {
				*m = model
			}
		}
		before := ""
		if bad != "" || wantKind != "" {
			before = rdrState(s, n) // what a refused push must leave as it is
		}
		outs = append(outs[:0], live.Output{Node: 99})
		outs, err = s.PushMany(outs, b)
		if bad != "" || wantKind != "" {
			refused++
			switch {
			case bad != "":
				require.ErrorIs(t, err, schema.ErrValidation, "push %d", push)
			case wantKind == "order":
				require.ErrorIs(t, err, live.ErrOutOfOrder, "push %d", push)
			case wantKind == "late":
				require.ErrorIs(t, err, live.ErrLate, "push %d", push)
			case wantKind == "limit":
				require.ErrorIs(t, err, partition.ErrLimit, "push %d", push)
			}
			require.Len(t, outs, 1, "push %d: dst changed", push)
			require.Equal(t, before, rdrState(s, n), "push %d: a refused push (%v) changed what the readers read", push, err)
			if len(rows) > 0 {
				ts = rows[0].t - int64(time.Millisecond)*r.Int64N(2) // take the stream back
				if m.any {
					ts = max(ts, m.latest)
				}
			}
			continue
		}
		require.NoError(t, err, "push %d", push)
		require.Equal(t, live.NodeID(99), outs[0].Node)
		outs = outs[1:]
		// Clones of earlier outputs read as they did.
		for i, c := range clones {
			require.Equal(t, cloneJSON[i], rdrPrint(c), "push %d: a clone changed", push)
		}
		clones, cloneJSON = clones[:0], cloneJSON[:0]
		// Every output: readers agree, Find finds it, order by kind then node.
		seen := map[[2]int]bool{}
		for i, o := range outs {
			if i > 0 {
				p := outs[i-1]
				require.True(t, p.Kind < o.Kind || p.Kind == o.Kind && p.Node < o.Node, "push %d: output order %v %v after %v %v", push, o.Node, o.Kind, p.Node, p.Kind)
			}
			require.False(t, seen[[2]int{int(o.Node), int(o.Kind)}])
			seen[[2]int{int(o.Node), int(o.Kind)}] = true
			require.NotZero(t, o.Events.Len(), "push %d: an output without rows", push)
			tab, ok := live.Find(outs, o.Node, o.Kind)
			require.True(t, ok)
			require.Same(t, o.Events, tab)
			_, err := rdrCheckTable(o.Events)
			require.NoError(t, err, "push %d: node %d %v", push, o.Node, o.Kind)
			sch, err := s.NodeSchema(o.Node)
			require.NoError(t, err)
			require.True(t, sch.Equal(o.Events.Schema()), "push %d: node %d's output schema", push, o.Node)
			clones = append(clones, o.Events.Clone())
			cloneJSON = append(cloneJSON, rdrPrint(o.Events))
		}
		for _, id := range []live.NodeID{s.Root(), n.p, n.roll, n.red, n.agg, n.roll + 1, 1000} {
			for _, kd := range []live.OutputKind{live.Event, live.Batch, live.Evict} {
				if !seen[[2]int{int(id), int(kd)}] {
					_, ok := live.Find(outs, id, kd)
					require.False(t, ok)
				}
			}
		}
		// The root's outputs: what was accepted, in arrival order.
		if tab, ok := live.Find(outs, s.Root(), live.Event); ok || len(accepted) > 0 {
			require.True(t, ok, "push %d: no root event output for %d rows", push, len(accepted))
			require.NoError(t, rdrWantRows(tab, accepted, true), "push %d: root event", push)
			bt, ok := live.Find(outs, s.Root(), live.Batch)
			require.True(t, ok)
			require.Equal(t, rdrPrint(tab), rdrPrint(bt))
		}
		// Snapshots of the nodes that hold rows, read through every
		// reader one push in four.
		full := push%8 == 0
		snap, err := s.Snapshot(s.Root())
		require.NoError(t, err)
		require.NoError(t, rdrWantRows(snap, m.held, full), "push %d: root snapshot", push)
		var all []rdrRow
		for _, p := range m.parts {
			all = append(all, p.rows...)
		}
		slices.SortStableFunc(all, func(a, b rdrRow) int {
			if a.t != b.t {
				return int(min(max(a.t-b.t, -1), 1))
			}
			return a.seq - b.seq
		})
		snap, err = s.Snapshot(n.p)
		require.NoError(t, err)
		require.NoError(t, rdrWantRows(snap, all, full), "push %d: partition snapshot", push)
		var inWin, inFilt []rdrRow
		for _, x := range m.held {
			if x.t >= m.latest-int64(3*time.Second) {
				inWin = append(inWin, x)
			}
			if keep(x) {
				inFilt = append(inFilt, x)
			}
		}
		for _, id := range []live.NodeID{n.win, lateWin} {
			if id == n.win || builtLate {
				snap, err = s.Snapshot(id)
				require.NoError(t, err)
				require.NoError(t, rdrWantRows(snap, inWin, full), "push %d: window %d snapshot", push, id)
			}
		}
		snap, err = s.Snapshot(n.filt)
		require.NoError(t, err)
		require.NoError(t, rdrWantRows(snap, inFilt, full), "push %d: filter snapshot", push)
		// Stats, Partitions.
		st := s.Stats()
		require.Equal(t, m.stats, st, "push %d: Stats", push)
		require.Equal(t, len(m.held), s.Len())
		ps, err := s.Partitions(n.p)
		require.NoError(t, err)
		for _, id := range []live.NodeID{n.roll, n.al} {
			if id >= 0 {
				ps2, err := s.Partitions(id)
				require.NoError(t, err)
				require.Equal(t, ps, ps2)
			}
		}
		var wantPs []live.Partition
		for _, p := range m.parts {
			wantPs = append(wantPs, live.Partition{Key: p.key, Ingested: p.ingested, Evicted: p.evicted, Length: len(p.rows), Last: time.Unix(0, p.last).UTC()})
		}
		require.Equal(t, len(wantPs), len(ps), "push %d: partitions %v, want %v", push, ps, wantPs)
		for i := range ps {
			w := wantPs[i]
			g := ps[i]
			require.True(t, g.Key.Equal(w.Key) && g.Ingested == w.Ingested && g.Evicted == w.Evicted && g.Length == w.Length && g.Last.Equal(w.Last),
				"push %d: partition %d: %+v, want %+v", push, i, g, w)
		}
		// Reduces: the reduction of what the source holds now, at the
		// time of the latest row that reached it.
		for _, c := range []struct {
			id   live.NodeID
			rows []rdrRow
			t    int64
			seen bool
		}{{n.red, m.held, m.redT, m.redSeen}, {n.redF, inFilt, m.redFT, m.redFSeen}, {lateRed, m.held, m.redT, m.redSeen && builtLate}} {
			if c.id == lateRed && !builtLate {
				continue
			}
			v, err := s.Value(c.id)
			require.NoError(t, err)
			rows, err := rdrCheckTable(v)
			require.NoError(t, err)
			if !c.seen {
				require.Zero(t, v.Len(), "push %d: reduce %d before any row", push, c.id)
				continue
			}
			require.Len(t, rows, 1, "push %d: reduce %d", push, c.id)
			require.Equal(t, c.t, v.TimeNanos(0), "push %d: reduce %d keyed at %d, want %d", push, c.id, v.TimeNanos(0), c.t)
			var cnt, lo, hi float64
			var ws []float64
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, x := range c.rows {
				cnt++
				ws = append(ws, x.w)
				lo, hi = min(lo, x.w), max(hi, x.w)
			}
			nn, _ := rows[0][1].Num()
			require.Equal(t, cnt, nn, "push %d: reduce %d count: %s", push, c.id, rdrPrint(v))
			sum, ok := rows[0][2].Num()
			require.True(t, ok)
			require.InDelta(t, rdrSum(ws), sum, 1e-9*math.Max(1, math.Abs(rdrSum(ws))), "push %d: reduce %d sum of %v", push, c.id, ws)
			if c.id != lateRed {
				l, okL := rows[0][3].Num()
				h, okH := rows[0][4].Num()
				require.Equal(t, cnt > 0, okL && okH)
				if cnt > 0 {
					require.Equal(t, lo, l)
					require.Equal(t, hi, h)
				}
			}
			if c.id != lateRed {
				if tab, ok := live.Find(outs, c.id, live.Event); ok {
					require.Equal(t, rdrPrint(v), rdrPrint(tab), "push %d: reduce %d's event is its value", push, c.id)
				}
			}
		}
		// The aggregate: buckets closed now are its event rows; its value
		// the open ones; its counters.
		closed := m.aggClose()
		tab, ok := live.Find(outs, n.agg, live.Event)
		require.Equal(t, len(closed) > 0, ok, "push %d: aggregate closed %v", push, closed)
		if ok {
			require.Equal(t, rdrBuckets(closed), rdrPrint(tab), "push %d: aggregate closings", push)
		}
		v, err := s.Value(n.agg)
		require.NoError(t, err)
		_, err = rdrCheckTable(v)
		require.NoError(t, err)
		require.Equal(t, rdrBuckets(m.open), rdrPrint(v), "push %d: aggregate value", push)
		as, err := s.AggregateStats(n.agg)
		require.NoError(t, err)
		require.Equal(t, m.aggStats, as, "push %d: AggregateStats", push)
		// Rollings: Value is the latest emission's last row per
		// partition; the history its rows within bounds.
		if tab, ok := live.Find(outs, n.roll, live.Event); ok {
			rows, err := rdrCheckTable(tab.Clone()) // rows kept past the push: of a clone
			require.NoError(t, err)
			hist = append(hist, rows...)
			lastRoll = tab.Clone()
			emittedAll += len(rows)
		}
		if tab, ok := live.Find(outs, n.rollE, live.Event); ok {
			rows, err := rdrCheckTable(tab.Clone())
			require.NoError(t, err)
			histE = append(histE, rows...)
			lastRollE = tab.Clone()
		}
		v, err = s.Value(n.roll)
		require.NoError(t, err)
		require.Equal(t, rdrLastPerKey(lastRoll), rdrPrint(v), "push %d: partitioned rolling's value", push)
		v, err = s.Value(n.rollE)
		require.NoError(t, err)
		if lastRollE != nil {
			last := schema.NewTable(lastRollE.Schema())
			last.AppendRowValues(lastRollE.Row(lastRollE.Len() - 1))
			require.Equal(t, rdrPrint(last), rdrPrint(v), "push %d: rolling's value", push)
		}
		h, err := s.Snapshot(n.rollE)
		require.NoError(t, err)
		hrows, err := rdrCheckTable(h)
		require.NoError(t, err)
		histE = rdrLast(rdrByTime(histE), 4)
		require.Equal(t, rdrRowsJSON(h.Schema(), histE), rdrRowsJSON(h.Schema(), hrows), "push %d: rolling history (MaxEvents 4)", push)
		h, err = s.Snapshot(n.roll)
		require.NoError(t, err)
		hrows, err = rdrCheckTable(h)
		require.NoError(t, err)
		var wantH []schema.Row
		if len(hist) > 0 {
			newest := int64(math.MinInt64)
			for _, x := range hist {
				newest = max(newest, rdrNs(x[0]))
			}
			for _, x := range hist {
				if rdrNs(x[0]) >= newest-int64(2*time.Second) {
					wantH = append(wantH, x)
				}
			}
			hist = wantH // the rows older never come back
		}
		require.Equal(t, rdrRowsJSON(h.Schema(), rdrByTime(wantH)), rdrRowsJSON(h.Schema(), hrows), "push %d: partitioned rolling history (MaxAge 2s)", push)
		if builtLate {
			// The late rolling emits what rollE emits, once the root held
			// its window when it was built.
			v, err = s.Value(lateRollE)
			require.NoError(t, err)
			_, err = rdrCheckTable(v)
			require.NoError(t, err)
		}
		for _, id := range []live.NodeID{n.al, n.cnt} {
			if id < 0 {
				continue
			}
			v, err := s.Value(id)
			require.NoError(t, err)
			_, err = rdrCheckTable(v)
			require.NoError(t, err)
		}
	}
	require.GreaterOrEqual(t, refused, 2, "too few refused pushes")
	require.Greater(t, emittedAll, pushes/4, "too few rolling rows")
}

// rdrHeldAll reports whether the root holds every one of rows.
func rdrHeldAll(m *rdrModel, rows []rdrRow) bool {
	for _, x := range rows {
		if !slices.ContainsFunc(m.held, func(h rdrRow) bool { return h.seq == x.seq }) {
			return false
		}
	}
	return true
}

// rdrByTime sorts rows by time, stably: a snapshot's key order.
func rdrByTime(rows []schema.Row) []schema.Row {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b schema.Row) int { return cmp.Compare(rdrNs(a[0]), rdrNs(b[0])) })
	return rows
}

func rdrLast(rows []schema.Row, n int) []schema.Row { return rows[max(0, len(rows)-n):] }

func rdrNs(v schema.Value) int64 { ns, _ := v.Nanos(); return ns }

// rdrSum is the sum of xs rounded once (the compensated sums of the
// reducers give it for the probe's few values).
func rdrSum(xs []float64) float64 {
	acc := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetPrec(4096).SetFloat64(x))
	}
	f, _ := acc.Float64()
	return f + 0 // no -0
}

func rdrBuckets(bs []rdrBucket) string {
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "n", Kind: schema.Number, Optional: true}, schema.Column{Name: "s", Kind: schema.Number, Optional: true})
	tab := schema.NewTable(sch)
	for _, b := range bs {
		tab.AppendRowValues(schema.Row{schema.NanosValue(b.start), schema.NumberValue(float64(b.n)), schema.NumberValue(rdrSum(b.ws))})
	}
	return rdrPrint(tab)
}

func rdrRowsJSON(sch *schema.Schema, rows []schema.Row) string {
	tab := schema.NewTable(sch)
	for _, r := range rows {
		tab.AppendRowValues(r)
	}
	return rdrPrint(tab)
}

// rdrLastPerKey is each partition's last row of tab (column 1 is the
// key), in the order of the keys' first rows.
func rdrLastPerKey(tab *schema.Table) string {
	if tab == nil {
		return "[]"
	}
	var order []string
	last := map[string]schema.Row{}
	for i := range tab.Len() {
		k := tab.Value(i, 1).String()
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = tab.Row(i)
	}
	var rows []schema.Row
	for _, k := range order {
		rows = append(rows, last[k])
	}
	return rdrRowsJSON(tab.Schema(), rows)
}

func TestRdrReadersStrict(t *testing.T) {
	rdrRun(t, 1, live.Options{}, partition.Options{IdleTTL: 4 * time.Second}, 60)
}

func TestRdrReadersDropRetention(t *testing.T) {
	rdrRun(t, 2, live.Options{Ordering: live.Drop, MaxAge: 5 * time.Second}, partition.Options{MaxEvents: 3, IdleTTL: 3 * time.Second}, 60)
}

func TestRdrReadersReorderLimits(t *testing.T) {
	rdrRun(t, 3, live.Options{Ordering: live.Reorder, Grace: 2 * time.Second, MaxAge: 6 * time.Second, MaxEvents: 12},
		partition.Options{MaxPartitions: 5, IdleTTL: 3 * time.Second}, 60)
}

func TestRdrReadersOneRowPartitions(t *testing.T) {
	rdrRun(t, 4, live.Options{MaxEvents: 8}, partition.Options{MaxEvents: 1, MaxPartitions: 6, IdleTTL: 2 * time.Second}, 60)
}

func TestRdrReadersReorderNoRetention(t *testing.T) {
	rdrRun(t, 5, live.Options{Ordering: live.Reorder, Grace: 3 * time.Second}, partition.Options{MaxAge: 2 * time.Second}, 60)
}
