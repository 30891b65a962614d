package live_test

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
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

// The structural probes: seeded random streams through a series (its own
// retention and ordering), a partitioning (its retention, declared
// groups, MaxPartitions, IdleTTL, a missing key) and a clock- or
// event-triggered rolling on it, with bad pushes mixed in (a cell of the
// wrong kind, NaN, a missing required value, a row out of order or too
// late, an unknown group, a key past the limit). Every push's Event and
// Evict outputs, every snapshot, Partitions and Stats between pushes are
// compared with a plain model of what the docs say; a failed push must
// change nothing, so the model never sees it. The same stream with
// Workers 2 and 4 must give byte-identical outputs.

// spRow is a row of a probe: its time (ms), its value (its arrival
// number, so that every row is told apart) and its host ("" missing).
type spRow struct {
	t    int64
	v    float64
	host string
	bad  int // spBad*: a row the schema refuses
}

// The bad rows a push may carry.
const (
	spGood = iota
	spBadKind
	spBadNaN
	spBadMissing
)

func (r spRow) row() schema.Row {
	h := schema.StringValue(r.host)
	if r.host == "" {
		h = schema.Missing()
	}
	v := schema.NumberValue(r.v)
	switch r.bad {
	case spBadKind:
		v = schema.StringValue("x")
	case spBadNaN:
		v = schema.NumberValue(math.NaN())
	case spBadMissing:
		v = schema.Missing()
	}
	return schema.Row{schema.MillisValue(r.t), v, h}
}

func (r spRow) String() string {
	h := r.host
	if h == "" {
		h = "∅"
	}
	return fmt.Sprintf("%d/%g/%s", r.t, r.v, h)
}

// spCfg is a probe's configuration.
type spCfg struct {
	ordering      live.Ordering
	grace         int64 // ms
	maxEvents     int
	maxAge        int64 // ms
	partMaxEvents int
	partMaxAge    int64 // ms
	maxParts      int
	idleTTL       int64 // ms
	groups        []string
	// the rolling: a clock of step ms (0: an event trigger) over a time
	// window of span ms, counting, summing and taking the last value.
	step, span                     int64
	noRolling                      bool
	prefill                        int  // pushes before the rolling is built
	big                            bool // pushes of up to 3000 rows
	churn                          bool // keys come and go fast
	watchRootEvict, watchPartEvict bool
	toggle                         bool // watch and unwatch the partitions' evictions now and then
}

func (c spCfg) String() string {
	return fmt.Sprintf("ordering %v grace %d maxEvents %d maxAge %d part{maxEvents %d maxAge %d maxParts %d idleTTL %d groups %q} step %d span %d rolling %v watch{root %v part %v}",
		c.ordering, c.grace, c.maxEvents, c.maxAge, c.partMaxEvents, c.partMaxAge, c.maxParts, c.idleTTL, c.groups, c.step, c.span, !c.noRolling, c.watchRootEvict, c.watchPartEvict)
}

func spMs(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// spSeries is the engine side of a probe.
type spSeries struct {
	s          *live.Series
	part, roll live.NodeID
	step       int64
}

func (c spCfg) build(t testing.TB, workers int) *spSeries {
	t.Helper()
	s, err := live.New("sp", metricsSchema, live.Options{Ordering: c.ordering, Grace: spMs(c.grace),
		MaxEvents: c.maxEvents, MaxAge: spMs(c.maxAge), Workers: workers})
	require.NoError(t, err, "%v", c)
	var groups []schema.Value
	for _, g := range c.groups {
		v := schema.StringValue(g)
		if g == "" {
			v = schema.Missing()
		}
		groups = append(groups, v)
	}
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{Groups: groups, MaxEvents: c.partMaxEvents,
		MaxAge: spMs(c.partMaxAge), MaxPartitions: c.maxParts, IdleTTL: spMs(c.idleTTL)})
	require.NoError(t, err, "%v", c)
	ss := &spSeries{s: s, part: part, roll: -1, step: c.step}
	require.NoError(t, s.Watch(s.Root(), live.Event))
	require.NoError(t, s.Watch(part, live.Event))
	if c.watchRootEvict {
		require.NoError(t, s.Watch(s.Root(), live.Evict))
	}
	if c.watchPartEvict {
		require.NoError(t, s.Watch(part, live.Evict))
	}
	if !c.noRolling && c.prefill == 0 {
		ss.addRolling(t, c)
	}
	return ss
}

// addRolling builds the probe's rolling on the partitioning.
func (ss *spSeries) addRolling(t testing.TB, c spCfg) {
	t.Helper()
	s, part := ss.s, ss.part
	var err error
	{
		opts := rolling.Options{}
		if c.step > 0 {
			opts.Trigger = trigger.Clock(sequence.Every(spMs(c.step)))
		}
		ss.roll, err = s.Rolling(part, []rolling.Window{{Span: spMs(c.span), Aggs: []reduce.Agg{
			{Out: "n", From: "value", Using: reduce.Count},
			{Out: "sum", From: "value", Using: reduce.Sum},
			{Out: "last", From: "value", Using: reduce.Last},
		}}}, opts)
		require.NoError(t, err, "%v", c)
		require.NoError(t, s.Watch(ss.roll))
	}
}

// spPart is the model of a partition.
type spPart struct {
	key      string
	rows     []spRow // held, in time order (ties by arrival)
	ingested int
	last     int64
	// the rolling's window: every row routed since created, in arrival
	// order, and how many have left its front
	win  []spRow
	gone int
	rank int // its place in the rolling's ticks
}

// spModel is the model of the series, its partitioning and its rolling.
type spModel struct {
	c         spCfg
	held      []spRow // the root's, in time order
	latest    int64
	hasLatest bool
	stats     live.Stats
	parts     []*spPart // in emission order
	started   bool
	lastIdx   int64
	rolling   bool // the rolling is built
	// the rolling's latest emitting push's rows, for Value
	value []string
	// what the pushes exercised
	cover map[string]int
	gone  map[string]bool // keys whose partitions were removed
	seq   int             // the next partition's rank
}

func newSpModel(c spCfg) *spModel {
	m := &spModel{c: c, rolling: !c.noRolling && c.prefill == 0, cover: map[string]int{}, gone: map[string]bool{}}
	for _, g := range c.groups {
		m.parts = append(m.parts, &spPart{key: g, last: math.MinInt64, rank: m.seq})
		m.seq++
	}
	return m
}

func (m *spModel) clone() *spModel {
	n := *m
	n.held = slices.Clone(m.held)
	n.cover = map[string]int{}
	n.gone = maps.Clone(m.gone)
	n.parts = nil
	for _, p := range m.parts {
		q := *p
		q.rows, q.win = slices.Clone(p.rows), slices.Clone(p.win)
		n.parts = append(n.parts, &q)
	}
	return &n
}

func (m *spModel) find(key string) *spPart {
	for _, p := range m.parts {
		if p.key == key {
			return p
		}
	}
	return nil
}

func (m *spModel) declared(key string) bool { return slices.Contains(m.c.groups, key) }

func (m *spModel) partMaxEvents() int {
	if m.c.partMaxEvents > 0 {
		return m.c.partMaxEvents
	}
	return m.c.maxEvents
}

func (m *spModel) partMaxAge() int64 {
	if m.c.partMaxAge > 0 {
		return m.c.partMaxAge
	}
	return m.c.maxAge
}

// spOut is what one push gave: its error, and its outputs as text.
type spOut struct {
	errs                 []error // the errors the push may give (nil: none)
	rootEvents, rootGone []spRow
	partEvents, partGone []spRow
	roll                 []string
}

// insert puts r into rows (in time order) after the rows not later.
func spInsert(rows []spRow, r spRow) []spRow {
	k := len(rows)
	for k > 0 && rows[k-1].t > r.t {
		k--
	}
	return slices.Insert(rows, k, r)
}

// push runs a push in the model: on error it changes nothing.
func (m *spModel) push(rows []spRow) spOut {
	var out spOut
	c := m.c
	// Validation.
	for _, r := range rows {
		if r.bad != spGood {
			out.errs = append(out.errs, schema.ErrValidation)
			break
		}
	}
	latest, has := m.latest, m.hasLatest
	var accepted []spRow
	rejected := 0
	for _, r := range rows {
		if has && r.t < latest {
			switch c.ordering {
			case live.Strict:
				out.errs = append(out.errs, live.ErrOutOfOrder)
			case live.Drop:
				rejected++
				continue
			case live.Reorder:
				if c.grace > 0 && r.t < latest-c.grace {
					out.errs = append(out.errs, live.ErrLate)
				}
			}
		}
		if !has || r.t > latest {
			latest, has = r.t, true
		}
		accepted = append(accepted, r)
	}
	// Partition checks: declared groups, MaxPartitions with the room
	// IdleTTL makes at the push's time.
	var newKeys []string
	routed := map[string]bool{}
	for _, r := range accepted {
		routed[r.host] = true
		if m.find(r.host) != nil || slices.Contains(newKeys, r.host) {
			continue
		}
		if len(c.groups) > 0 {
			out.errs = append(out.errs, partition.ErrUnknownGroup)
			continue
		}
		newKeys = append(newKeys, r.host)
	}
	makeRoom := false
	if c.maxParts > 0 && len(m.parts)+len(newKeys) > c.maxParts {
		idle := 0
		if c.idleTTL > 0 {
			for _, p := range m.parts {
				if !m.declared(p.key) && p.last < latest-c.idleTTL && !routed[p.key] {
					idle++
				}
			}
		}
		if len(m.parts)+len(newKeys)-idle > c.maxParts {
			out.errs = append(out.errs, partition.ErrLimit)
		} else {
			makeRoom = true
			m.cover["make room"]++
		}
	}
	if len(out.errs) > 0 {
		return out
	}
	for _, k := range newKeys {
		if m.gone[k] {
			m.cover["key back"]++
		}
	}
	// Commit.
	m.stats.Ingested += uint64(len(accepted))
	m.stats.Rejected += uint64(rejected)
	m.latest, m.hasLatest = latest, has
	if makeRoom {
		m.parts = slices.DeleteFunc(m.parts, func(p *spPart) bool {
			if !m.declared(p.key) && p.last < latest-c.idleTTL && !routed[p.key] {
				out.partGone = append(out.partGone, p.rows...)
				m.gone[p.key] = true
				return true
			}
			return false
		})
	}
	for _, r := range accepted {
		out.rootEvents = append(out.rootEvents, r)
		out.partEvents = append(out.partEvents, r)
		m.held = spInsert(m.held, r)
		p := m.find(r.host)
		if p == nil {
			p = &spPart{key: r.host, last: math.MinInt64, rank: m.seq}
			m.seq++
			m.parts = append(m.parts, p)
		}
		p.ingested++
		p.last = max(p.last, r.t)
		p.rows = spInsert(p.rows, r)
		if me := m.partMaxEvents(); me > 0 && len(p.rows) > me {
			out.partGone = append(out.partGone, p.rows[:len(p.rows)-me]...)
			p.rows = slices.Delete(p.rows, 0, len(p.rows)-me)
		}
		if ma := m.partMaxAge(); ma > 0 {
			cut := p.rows[len(p.rows)-1].t - ma
			k := 0
			for k < len(p.rows) && p.rows[k].t < cut {
				k++
			}
			out.partGone = append(out.partGone, p.rows[:k]...)
			p.rows = slices.Delete(p.rows, 0, k)
		}
		if m.rolling {
			m.roll(p, r, &out)
		}
	}
	m.setValue(out.roll)
	// The root's retention.
	k := 0
	if c.maxAge > 0 {
		for k < len(m.held) && m.held[k].t < m.latest-c.maxAge {
			k++
		}
	}
	if c.maxEvents > 0 {
		k = max(k, len(m.held)-c.maxEvents)
	}
	out.rootGone = append(out.rootGone, m.held[:k]...)
	m.held = slices.Delete(m.held, 0, k)
	m.stats.Evicted += uint64(k)
	m.stats.Length = len(m.held)
	// IdleTTL.
	if c.idleTTL > 0 && m.hasLatest {
		m.parts = slices.DeleteFunc(m.parts, func(p *spPart) bool {
			if !m.declared(p.key) && p.last < m.latest-c.idleTTL {
				out.partGone = append(out.partGone, p.rows...)
				m.gone[p.key] = true
				return true
			}
			return false
		})
	}
	return out
}

// setValue keeps what Value gives after a push that emitted roll.
func (m *spModel) setValue(roll []string) {
	if len(roll) > 0 {
		// the rows of the last tick
		at := strings.Fields(roll[len(roll)-1])[0]
		m.value = slices.DeleteFunc(slices.Clone(roll), func(r string) bool { return strings.Fields(r)[0] != at })
		if m.c.step == 0 { // the latest row of each partition
			seen := map[string]bool{}
			m.value = nil
			for i := len(roll) - 1; i >= 0; i-- {
				k := strings.Fields(roll[i])[1]
				if !seen[k] {
					seen[k] = true
					m.value = append(m.value, roll[i])
				}
			}
			slices.Sort(m.value) // in an order the docs do not say

		}
	}
}

// buildRolling builds the rolling on the rows the partitions hold,
// replayed in arrival order (their values), emitting nothing.
func (m *spModel) buildRolling() {
	m.rolling = true
	type ref struct {
		p *spPart
		r spRow
	}
	var refs []ref
	for _, p := range m.parts {
		for _, r := range p.rows {
			refs = append(refs, ref{p, r})
		}
	}
	slices.SortFunc(refs, func(a, b ref) int { return cmp.Compare(a.r.v, b.r.v) })
	var out spOut
	for _, x := range refs {
		m.roll(x.p, x.r, &out)
	}
	// What the replay emitted counts as emitted for Value (see
	// TestSpValueAfterReplayIsWhatItWouldHaveEmitted).
	m.setValue(out.roll)
}

// roll takes row r, routed to p, into the rolling (see the model of
// rolling_oracle_model_test.go).
func (m *spModel) roll(p *spPart, r spRow, out *spOut) {
	c := m.c
	p.win = append(p.win, r)
	evict := func(p *spPart, at int64) {
		for p.gone < len(p.win) && p.win[p.gone].t < at-c.span {
			p.gone++
		}
	}
	eval := func(at int64, p *spPart) string {
		n, sum, last := 0, 0.0, "∅"
		for _, x := range p.win[p.gone:] {
			n++
			sum += x.v
		}
		if n > 0 {
			last = fmt.Sprint(p.win[len(p.win)-1].v)
			// last is the value of the latest arrival in the window
		}
		return fmt.Sprintf("%d %s n=%d sum=%g last=%s", at, spKey(p.key), n, sum, last)
	}
	evict(p, r.t)
	if c.step == 0 {
		out.roll = append(out.roll, eval(r.t, p))
		return
	}
	idx := floorDiv(r.t, c.step)
	if !m.started {
		m.started, m.lastIdx = true, idx
		return
	}
	if idx <= m.lastIdx {
		return
	}
	m.lastIdx = idx
	order := slices.Clone(m.parts)
	slices.SortStableFunc(order, func(a, b *spPart) int { return cmp.Compare(a.rank, b.rank) })
	for _, q := range order {
		evict(q, r.t)
		out.roll = append(out.roll, eval(idx*c.step, q))
	}
}

func spKey(k string) string {
	if k == "" {
		return "∅"
	}
	return k
}

// spRows reads a table of the series' schema.
func spRows(tab *schema.Table) []spRow {
	if tab == nil {
		return nil
	}
	var rows []spRow
	for i := range tab.Len() {
		row := tab.Row(i)
		v, _ := row[1].Num()
		h, _ := row[2].Str()
		rows = append(rows, spRow{t: tab.TimeNanos(i) / 1e6, v: v, host: h})
	}
	return rows
}

// spRollRows renders a rolling's output rows as the model does.
func spRollRows(tab *schema.Table) []string {
	if tab == nil {
		return nil
	}
	var rows []string
	for i := range tab.Len() {
		row := tab.Row(i)
		h, _ := row[1].Str()
		n, _ := row[2].Num()
		sum, _ := row[3].Num()
		last := "∅"
		if x, ok := row[4].Num(); ok {
			last = fmt.Sprint(x)
		}
		if n == 0 {
			sum = 0
		}
		rows = append(rows, fmt.Sprintf("%d %s n=%g sum=%g last=%s", tab.TimeNanos(i)/1e6, spKey(h), n, sum, last))
	}
	return rows
}

// got reads the outputs of a push.
func (ss *spSeries) got(outs []live.Output) spOut {
	var g spOut
	tab, _ := live.Find(outs, ss.s.Root(), live.Event)
	g.rootEvents = spRows(tab)
	tab, _ = live.Find(outs, ss.s.Root(), live.Evict)
	g.rootGone = spRows(tab)
	tab, _ = live.Find(outs, ss.part, live.Event)
	g.partEvents = spRows(tab)
	tab, _ = live.Find(outs, ss.part, live.Evict)
	g.partGone = spRows(tab)
	if ss.roll >= 0 {
		tab, _ = live.Find(outs, ss.roll, live.Event)
		g.roll = spRollRows(tab)
	}
	return g
}

// spByValue sorts rows by their values (their arrival numbers).
func spByValue(rows []spRow) []spRow {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b spRow) int { return cmp.Compare(a.v, b.v) })
	return rows
}

// state renders what a series holds and has done, read through the
// public API: snapshots of the root and the partitioning, Partitions,
// Stats and Len.
func (ss *spSeries) state(t testing.TB) string {
	var b strings.Builder
	tab, err := ss.s.Snapshot(ss.s.Root())
	require.NoError(t, err)
	fmt.Fprintf(&b, "root %v\n", spRows(tab))
	tab, err = ss.s.Snapshot(ss.part)
	require.NoError(t, err)
	fmt.Fprintf(&b, "part %v\n", spRows(tab))
	ps, err := ss.s.Partitions(ss.part)
	require.NoError(t, err)
	for _, p := range ps {
		h, _ := p.Key.Str()
		last := int64(0)
		if p.Ingested > 0 {
			last = p.Last.UnixMilli()
		}
		fmt.Fprintf(&b, "  %s ingested %d length %d evicted %d last %d\n", spKey(h), p.Ingested, p.Length, p.Evicted, last)
	}
	fmt.Fprintf(&b, "stats %+v len %d\n", ss.s.Stats(), ss.s.Len())
	if ss.roll >= 0 {
		tab, err := ss.s.Value(ss.roll)
		require.NoError(t, err)
		value := spRollRows(tab)
		if ss.step == 0 {
			slices.Sort(value)
		}
		fmt.Fprintf(&b, "value %q\n", value)
	}
	return b.String()
}

// state renders the model's state as spSeries.state does.
func (m *spModel) state() string {
	var b strings.Builder
	fmt.Fprintf(&b, "root %v\n", m.held)
	var all []spRow
	for _, p := range m.parts {
		all = append(all, p.rows...)
	}
	slices.SortStableFunc(all, func(a, b spRow) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.v, b.v)
	})
	fmt.Fprintf(&b, "part %v\n", all)
	for _, p := range m.parts {
		last := int64(0)
		if p.ingested > 0 {
			last = p.last
		}
		fmt.Fprintf(&b, "  %s ingested %d length %d evicted %d last %d\n", spKey(p.key), p.ingested, len(p.rows), p.ingested-len(p.rows), last)
	}
	fmt.Fprintf(&b, "stats %+v len %d\n", m.stats, len(m.held))
	return b.String()
}

// spDraw draws a configuration.
func spDraw(rng *rand.Rand) spCfg {
	var c spCfg
	switch rng.IntN(4) {
	case 1:
		c.ordering = live.Drop
	case 2, 3:
		c.ordering = live.Reorder
		c.grace = []int64{0, 50, 300}[rng.IntN(3)]
	}
	switch rng.IntN(4) {
	case 0:
		c.maxEvents = 1 + rng.IntN(12)
	case 1:
		c.maxAge = max(c.grace, []int64{30, 200, 1000}[rng.IntN(3)])
	case 2:
		c.maxEvents = 1 + rng.IntN(12)
		c.maxAge = max(c.grace, []int64{30, 200, 1000}[rng.IntN(3)])
	}
	switch rng.IntN(4) {
	case 0:
		c.partMaxEvents = 1
	case 1:
		c.partMaxEvents = 1 + rng.IntN(5)
	}
	if rng.IntN(3) == 0 {
		c.partMaxAge = []int64{20, 100, 500}[rng.IntN(3)]
	}
	if rng.IntN(5) == 0 {
		c.groups = []string{"h0", "h1", "h2", "h3"}[:1+rng.IntN(4)]
		if rng.IntN(2) == 0 {
			c.groups = append(c.groups, "")
		}
		rng.Shuffle(len(c.groups), func(i, j int) { c.groups[i], c.groups[j] = c.groups[j], c.groups[i] })
	} else {
		if rng.IntN(2) == 0 {
			c.maxParts = 1 + rng.IntN(4)
		}
		if rng.IntN(2) == 0 {
			c.idleTTL = []int64{1, 40, 150, 600}[rng.IntN(4)]
		}
	}
	c.noRolling = rng.IntN(5) == 0
	if rng.IntN(4) != 0 {
		c.step = []int64{20, 50, 100}[rng.IntN(3)]
	}
	c.span = []int64{10, 60, 200}[rng.IntN(3)]
	if rng.IntN(6) == 0 {
		// Ticks far apart, many rows between: the rows a rolling
		// buffers go to a worker.
		c.step, c.span = []int64{2000, 10000}[rng.IntN(2)], []int64{500, 3000}[rng.IntN(2)]
		c.big = true
	}
	if rng.IntN(4) == 0 {
		c.prefill = 1 + rng.IntN(10)
	}
	c.watchRootEvict = rng.IntN(3) != 0
	c.watchPartEvict = rng.IntN(3) != 0
	c.toggle = rng.IntN(4) == 0
	return c
}

// spStream draws pushes of rows, some with a bad row.
func spStream(rng *rand.Rand, c spCfg) [][]spRow {
	nkeys := 2 + rng.IntN(6)
	keys := make([]string, nkeys)
	for k := range keys {
		keys[k] = fmt.Sprintf("h%d", k)
	}
	if rng.IntN(3) == 0 {
		keys[0] = "" // the missing key
	}
	t := rng.Int64N(200) - 100
	v := 0.0
	var pushes [][]spRow
	most := []int{1, 3, 10, 60}[rng.IntN(4)]
	npush := 20 + rng.IntN(60)
	if c.big {
		most, npush = 3000, 3+rng.IntN(6)
	}
	hot := keys[:1+rng.IntN(nkeys)] // keys come and go: a hot set that shifts
	for range npush {
		n := 1 + rng.IntN(most)
		if rng.IntN(30) == 0 {
			n = 0
		}
		var push []spRow
		for range n {
			switch rng.IntN(12) {
			case 0:
				if !c.big || rng.IntN(20) == 0 {
					t += rng.Int64N(400) // a gap
				}
			case 1, 2, 3:
				// a row at the same time
			default:
				if c.big {
					t += rng.Int64N(3)
				} else {
					t += rng.Int64N(15)
				}
			}
			if rng.IntN(25) == 0 || c.churn && rng.IntN(4) == 0 {
				lo := rng.IntN(nkeys)
				hot = keys[lo : lo+1+rng.IntN(nkeys-lo)]
			}
			rt := t
			if c.ordering != live.Strict && rng.IntN(5) == 0 {
				lag := c.grace + 60
				if c.big && c.grace > 0 {
					lag = c.grace + 1 // not one too late in thousands
				}
				rt = t - rng.Int64N(lag)
			}
			v++
			r := spRow{t: rt, v: v, host: hot[rng.IntN(len(hot))]}
			if rng.IntN(40) == 0 || c.churn && rng.IntN(8) == 0 {
				r.host = "new" + fmt.Sprint(rng.IntN(3))
			}
			push = append(push, r)
		}
		if len(push) > 0 && (rng.IntN(12) == 0 || c.big && rng.IntN(3) == 0) {
			i := rng.IntN(len(push))
			switch rng.IntN(4) {
			case 0:
				push[i].bad = spBadKind
			case 1:
				push[i].bad = spBadNaN
			case 2:
				push[i].bad = spBadMissing
			case 3:
				push[i].t -= 100 + rng.Int64N(1000) // out of order, or too late
			}
		}
		pushes = append(pushes, push)
	}
	return pushes
}

func spEqualRows(a, b []spRow) bool {
	return slices.EqualFunc(a, b, func(x, y spRow) bool { return x.t == y.t && x.v == y.v && x.host == y.host })
}

// spRun runs one probe case against the model, and with workers 2 and 4
// against the run of one worker, bit for bit. It returns the number of
// pushes and rows compared, and the first discrepancy.
func spRun(t *testing.T, c spCfg, pushes [][]spRow, reads func(i int) bool, cover map[string]int) (checked int, fail string) {
	t.Helper()
	m := newSpModel(c)
	defer func() {
		for k, n := range m.cover {
			cover[k] += n
		}
	}()
	runs := []*spSeries{c.build(t, 1), c.build(t, 2), c.build(t, 4)}
	defer func() {
		for _, ss := range runs {
			ss.s.Close()
		}
	}()
	for i, push := range pushes {
		if i == c.prefill && i > 0 && !c.noRolling {
			for _, ss := range runs {
				ss.addRolling(t, c)
			}
			m.buildRolling()
		}
		if c.toggle && i%3 == 2 {
			c.watchPartEvict = !c.watchPartEvict
			for _, ss := range runs {
				if c.watchPartEvict {
					require.NoError(t, ss.s.Watch(ss.part, live.Evict))
				} else {
					require.NoError(t, ss.s.Unwatch(ss.part, live.Evict))
				}
			}
		}
		rows := make([]schema.Row, len(push))
		for k, r := range push {
			rows[k] = r.row()
		}
		want := m.clone().push(push)
		var first spOut
		var firstErr error
		for w, ss := range runs {
			outs, err := ss.s.PushRows(nil, rows...)
			if w == 0 {
				firstErr = err
			}
			if (err == nil) != (firstErr == nil) || (err != nil && err.Error() != firstErr.Error()) {
				return checked, fmt.Sprintf("push %d: workers %d: error %v, one worker %v", i, w, err, firstErr)
			}
			g := ss.got(outs)
			if w == 0 {
				first = g
			} else if fmt.Sprint(g) != fmt.Sprint(first) {
				return checked, fmt.Sprintf("push %d: run %d differs from one worker:\n%v\n%v", i, w, g, first)
			}
		}
		if len(want.errs) > 0 {
			if firstErr == nil {
				return checked, fmt.Sprintf("push %d %v: no error, want one of %v", i, push, want.errs)
			}
			if !slices.ContainsFunc(want.errs, func(e error) bool { return errors.Is(firstErr, e) }) {
				return checked, fmt.Sprintf("push %d %v: error %v, want one of %v", i, push, firstErr, want.errs)
			}
			if len(first.rootEvents)+len(first.rootGone)+len(first.partEvents)+len(first.partGone)+len(first.roll) > 0 {
				return checked, fmt.Sprintf("push %d: a failed push gave outputs %v", i, first)
			}
		} else {
			if firstErr != nil {
				return checked, fmt.Sprintf("push %d %v: error %v, want none", i, push, firstErr)
			}
			want = m.push(push)
			switch {
			case !spEqualRows(first.rootEvents, want.rootEvents):
				return checked, fmt.Sprintf("push %d: root events\ngot  %v\nwant %v", i, first.rootEvents, want.rootEvents)
			case !spEqualRows(first.partEvents, want.partEvents):
				return checked, fmt.Sprintf("push %d: partition events\ngot  %v\nwant %v", i, first.partEvents, want.partEvents)
			case c.watchRootEvict && !spEqualRows(first.rootGone, want.rootGone):
				return checked, fmt.Sprintf("push %d %v: root evictions\ngot  %v\nwant %v", i, push, first.rootGone, want.rootGone)
			case c.watchPartEvict && !spEqualRows(spByValue(first.partGone), spByValue(want.partGone)):
				return checked, fmt.Sprintf("push %d %v: partition evictions\ngot  %v\nwant %v", i, push, first.partGone, want.partGone)
			case !slices.Equal(first.roll, want.roll):
				return checked, fmt.Sprintf("push %d %v: rolling\ngot  %q\nwant %q", i, push, first.roll, want.roll)
			}
			checked += len(want.rootEvents) + len(want.rootGone) + len(want.partGone) + len(want.roll)
		}
		checked++
		if len(want.errs) > 0 {
			m.cover["error"]++
			if slices.Contains(want.errs, partition.ErrLimit) {
				m.cover["limit"]++
			}
		}
		if reads(i) {
			st := m.state()
			if m.rolling {
				st += fmt.Sprintf("value %q\n", m.value)
			}
			for w, ss := range runs {
				if got := ss.state(t); got != st {
					what := "state"
					if g, _, _ := strings.Cut(got, "value "); strings.HasPrefix(st, g) {
						what = "rolling value"
					}
					return checked, fmt.Sprintf("after push %d: workers %d: %s\ngot\n%swant\n%s", i, w, what, got, st)
				}
				checked++
			}
		}
	}
	return checked, ""
}

// spSeed and spBudget let a longer hunt run by hand: SP_SEED=n
// SP_CASES=k runs at least k cases from seed n (the defaults are what
// the suite runs, under 2 s).
func spSeed() uint64 {
	n, _ := strconv.ParseUint(os.Getenv("SP_SEED"), 10, 64)
	return 7 + n
}

func spBudget(cases int) int {
	if n, err := strconv.Atoi(os.Getenv("SP_CASES")); err == nil && n > 0 {
		return n
	}
	return cases
}

func TestSpStructureProbe(t *testing.T) {
	cover := spProbe(t, 1, 16, func(rng *rand.Rand) spCfg { return spDraw(rng) }, 10000)
	require.Positive(t, cover["key back"], "a removed partition's key came back")
}

// The churn probe: keys that come and go under a small MaxPartitions and
// an IdleTTL, in small pushes: pushes rejected at the limit, partitions
// removed to make room for a push's new keys (before its tick), keys
// coming back to a fresh partition.
func TestSpPartitionChurnProbe(t *testing.T) {
	cover := spProbe(t, 2, 24, func(rng *rand.Rand) spCfg {
		c := spDraw(rng)
		c.groups, c.big = nil, false
		c.maxParts = 1 + rng.IntN(3)
		c.idleTTL = []int64{1, 20, 40, 150}[rng.IntN(4)]
		if c.step > 100 {
			c.step, c.span = 50, 60
		}
		c.churn = true
		return c
	}, 5000)
	require.GreaterOrEqual(t, cover["make room"], 20, "pushes that made room")
	require.GreaterOrEqual(t, cover["limit"], 20, "pushes over the limit")
	require.GreaterOrEqual(t, cover["key back"], 50, "keys back")
}

// The workers probe: ticks far apart with thousands of rows between
// them, in pushes of up to 3000 rows (the rows a partitioned rolling
// buffers go to a worker), with keys expiring and coming back, bad
// pushes and reads between pushes; the model and one worker's outputs,
// for two and four.
func TestSpWorkersBufferedProbe(t *testing.T) {
	spProbe(t, 3, 8, func(rng *rand.Rand) spCfg {
		c := spDraw(rng)
		c.noRolling, c.big = false, true
		if c.maxParts > 0 {
			c.maxParts = 10 // all the keys: a push of thousands of rows over the limit would be rejected
		}
		c.step, c.span = []int64{2000, 10000}[rng.IntN(2)], []int64{500, 3000}[rng.IntN(2)]
		c.groups = nil // not one unknown key in thousands
		if rng.IntN(2) == 0 {
			c.idleTTL = []int64{5, 40, 500}[rng.IntN(3)]
		}
		return c
	}, 10000)
}

// spProbe runs cases drawn by draw (stream seeded by seed), at least
// checks outputs and states compared, and returns what they covered.
func spProbe(t *testing.T, seed uint64, cases int, draw func(*rand.Rand) spCfg, least int) map[string]int {
	rng := rand.New(rand.NewPCG(40+seed, spSeed()))
	total, failed := 0, 0
	cases = spBudget(cases)
	cover := map[string]int{}
	kinds := map[string]int{} // the failures, by kind
	for n := range cases {
		c := draw(rng)
		pushes := spStream(rng, c)
		every := 1 + rng.IntN(4)
		checked, fail := spRun(t, c, pushes, func(i int) bool { return i%every == 0 }, cover)
		total += checked
		if fail != "" {
			failed++
			if failed <= 3 {
				t.Errorf("case %d: %v\n%s", n, c, fail)
			}
			kind := strings.SplitN(fail, "\n", 2)[0]
			kind = kind[strings.Index(kind, ":")+1:]
			if i := strings.Index(kind, "["); i >= 0 {
				kind = kind[:i]
			}
			kinds[kind]++
		}
	}
	t.Logf("%d cases, %d failed, %d outputs and states checked; %v", cases, failed, total, cover)
	if failed > 0 {
		t.Logf("failures: %v", kinds)
	}
	require.GreaterOrEqual(t, total, least, "outputs checked")
	return cover
}

// A partition keeps its rows "in time order (a late row of a reorder
// series takes its place) ... MaxEvents keeping the newest"
// (partition.Options): with MaxEvents 1 a late row is older than the
// row held, so it leaves at once and the partition keeps the newer one.
// It keeps the late row instead, whether or not its evictions are
// watched, and reports the newer one as evicted.
func TestSpReorderPartitionMaxEventsOneKeepsNewest(t *testing.T) {
	for _, watch := range []bool{false, true} {
		t.Run(fmt.Sprintf("evictions watched %v", watch), func(t *testing.T) {
			s := newSeries(t, live.Options{Ordering: live.Reorder})
			part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			if watch {
				require.NoError(t, s.Watch(part, live.Evict))
			}
			_, err = s.PushRows(nil, r(1000, 1, "a"))
			require.NoError(t, err)
			out, err := s.PushRows(nil, r(900, 2, "a")) // late: older than the row held
			require.NoError(t, err)
			tab, err := s.Snapshot(part)
			require.NoError(t, err)
			require.Equal(t, []float64{1}, values(tab), "the partition keeps its newest row, at 1000ms")
			ps, err := s.Partitions(part)
			require.NoError(t, err)
			require.Equal(t, time.UnixMilli(1000).UTC(), ps[0].Last)
			if watch {
				gone, ok := live.Find(out, part, live.Evict)
				require.True(t, ok)
				require.Equal(t, []float64{2}, values(gone), "the late row leaves at once")
			}
		})
	}
}

// "Partitions are numbered in the order they are first seen ... and that
// is the order in which a synchronised clock emits them" (package
// partition; live's doc: "every partition known then, in first-seen
// order"). A rolling built on a partitioning that already holds rows
// emits its ticks in the order of the replayed rows instead: with
// MaxEvents 1, a holds its row at 20ms, b its row at 10ms, and the tick
// at 100ms comes out b, a, c while Partitions lists a, b, c. (The same
// with a partition MaxAge that leaves a's first row behind.)
func TestSpRollingBuiltOnHeldRowsTicksInFirstSeenOrder(t *testing.T) {
	for _, popts := range []partition.Options{{MaxEvents: 1}, {MaxAge: 50 * time.Millisecond}} {
		t.Run(fmt.Sprintf("%+v", popts), func(t *testing.T) {
			s := newSeries(t, live.Options{})
			part, err := s.PartitionBy(s.Root(), "host", popts)
			require.NoError(t, err)
			_, err = s.PushRows(nil, r(0, 1, "a"), r(10, 2, "b"), r(90, 3, "a"))
			require.NoError(t, err)
			roll, err := s.Rolling(part, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}},
				rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))})
			require.NoError(t, err)
			require.NoError(t, s.Watch(roll))
			out, err := s.PushRows(nil, r(100, 4, "c"))
			require.NoError(t, err)
			ps, err := s.Partitions(part)
			require.NoError(t, err)
			var listed []string
			for _, p := range ps {
				k, _ := p.Key.Str()
				listed = append(listed, k)
			}
			require.Equal(t, []string{"a", "b", "c"}, listed, "first-seen order")
			tab, ok := live.Find(out, roll, live.Event)
			require.True(t, ok)
			keys, _ := tab.Strings("host")
			require.Equal(t, listed, keys, "the tick at 100ms, in first-seen order")
		})
	}
}

// A rolling built on held rows replays them; what the replay emits is
// not in the outputs, but it is the rolling's latest emission for Value:
// the rows a rolling built before those rows would have emitted last
// (Value once read "empty before its first emission", which a helper's
// probe took at its word).
func TestSpValueAfterReplayIsWhatItWouldHaveEmitted(t *testing.T) {
	for _, by := range []bool{false, true} {
		t.Run(fmt.Sprintf("partitioned %v", by), func(t *testing.T) {
			s := newSeries(t, live.Options{})
			src := s.Root()
			var err error
			if by {
				src, err = s.PartitionBy(s.Root(), "host", partition.Options{})
				require.NoError(t, err)
			}
			windows := []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}
			opts := rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))}
			early, err := s.Rolling(src, windows, opts)
			require.NoError(t, err)
			_, err = s.PushRows(nil, r(0, 1, "a"), r(10, 2, "b"), r(150, 3, "a"))
			require.NoError(t, err)
			late, err := s.Rolling(src, windows, opts)
			require.NoError(t, err)
			for _, push := range [][]schema.Row{nil, {r(160, 4, "a")}, {r(230, 5, "b")}} {
				if push != nil {
					_, err = s.PushRows(nil, push...)
					require.NoError(t, err)
				}
				want, err := s.Value(early)
				require.NoError(t, err)
				require.NotZero(t, want.Len())
				got, err := s.Value(late)
				require.NoError(t, err)
				require.Equal(t, want.String(), got.String())
			}
		})
	}
}

// A partitioning of MaxEvents 1 whose evictions start being watched
// after some pushes reports, at the next push, the row it has just
// taken in as evicted, instead of the row that row replaced (a read of
// the partitioning between the Watch and the push hides it). The Evict
// output holds "the rows its per-partition retention let go".
func TestSpPartitionMaxEventsOneEvictsTheReplacedRowOnceWatched(t *testing.T) {
	s := newSeries(t, live.Options{})
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(1000, 1, "a"), r(2000, 2, "a"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3000, 3, "a"))
	require.NoError(t, err)
	require.NoError(t, s.Watch(part, live.Evict))
	out, err := s.PushRows(nil, r(4000, 4, "a"))
	require.NoError(t, err)
	gone, ok := live.Find(out, part, live.Evict)
	require.True(t, ok)
	require.Equal(t, []float64{3}, values(gone), "the row at 3000ms left, replaced by the one at 4000ms")
	tab, err := s.Snapshot(part)
	require.NoError(t, err)
	require.Equal(t, []float64{4}, values(tab))
}
