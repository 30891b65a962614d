package live_test

// The bounds probe: long runs (a fixed number of pushes) with churning
// partition keys (new keys forever, old ones going idle) and a new string
// in every row, under IdleTTL and MaxPartitions, in the default mode and
// with aligned windows, under strict and reorder ordering, with views of
// every kind over the partitions. Every push is checked against a model
// of the partitioning written from the docs (partition.Options: the keys
// listed and their order, their counters, the rows a partition's
// retention and IdleTTL let go, the limit), and what the series holds
// (Series.NodeBytes of every node, Series.HeldBytes, the partitions
// listed, and the heap in use after a collection) must stop growing
// once the run is warm: the peak of the last quarter of the run against
// the peak of its second quarter, the heap at the end against the heap
// half way.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// bndSchema: v a number that may be missing, s a new string in every row
// (it names the row), tag a new string when present, host the partition
// key as a string and hid the same key as a number.
var bndSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String},
	schema.Column{Name: "tag", Kind: schema.String, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "hid", Kind: schema.Number},
)

const bndMs = int64(time.Millisecond)

// bndCfg is one long run.
type bndCfg struct {
	name    string
	opts    live.Options
	part    partition.Options
	numKey  bool  // partition by hid rather than host
	pushes  int   // pushes in the run
	rows    int   // rows per push, 1 to rows
	gap     int64 // ns between rows, 0 to gap
	active  int   // keys sending at once
	churn   int   // one row in churn replaces a key by another
	revive  int   // one replacement in revive brings an old key back (0: never)
	late    int64 // under reorder, one row in eight is up to late ns late
	pad     int   // bytes added to every new string
	evicts  bool  // check the partition's Evict output against the model
	build   func(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID
	history int // a rolling named "hist" keeps at most this many rows
}

// bndRow is one generated row.
type bndRow struct {
	t   int64
	v   float64
	vOK bool
	s   string
	tag string // "" for missing
	key int
}

// bndGen draws the rows of a run.
type bndGen struct {
	rng    *rand.Rand
	c      *bndCfg
	t      int64 // latest time drawn
	active []int
	next   int // next new key
	strs   int // strings drawn
	rows   int // rows drawn
	pad    string
}

func newBndGen(c *bndCfg, seed uint64) *bndGen {
	g := &bndGen{rng: rand.New(rand.NewPCG(seed, 41)), c: c, t: 1_700_000_000_000 * bndMs, pad: strings.Repeat("x", c.pad)}
	for range c.active {
		g.active = append(g.active, g.newKey())
	}
	return g
}

func (g *bndGen) newKey() int {
	g.next++
	return g.next - 1
}

// key returns the string of key k (made anew each time: the generator
// keeps nothing per key, so that its own memory does not grow).
func (g *bndGen) key(k int) string {
	return "host-" + strconv.Itoa(k) + "-" + g.pad
}

// str returns a string no row had before.
func (g *bndGen) str(prefix string) string {
	g.strs++
	return prefix + strconv.Itoa(g.strs) + g.pad
}

func (g *bndGen) push() []bndRow {
	rows := make([]bndRow, 1+g.rng.IntN(g.c.rows))
	for i := range rows {
		g.t += g.rng.Int64N(g.c.gap + 1)
		at := g.t
		if g.c.late > 0 && g.rng.IntN(8) == 0 {
			at -= g.rng.Int64N(g.c.late + 1)
		}
		if g.rows++; g.rows%g.c.churn == 0 {
			k := g.rows / g.c.churn % len(g.active) // the key sending longest
			if g.c.revive > 0 && g.rng.IntN(g.c.revive) == 0 {
				g.active[k] = max(0, g.next-1-g.rng.IntN(200)) // one of the last keys
			} else {
				g.active[k] = g.newKey()
			}
		}
		r := bndRow{t: at, s: g.str("s-"), key: g.active[g.rng.IntN(len(g.active))]}
		if g.rng.IntN(6) > 0 {
			r.v, r.vOK = float64(g.rng.IntN(1000))-500, true
		}
		if g.rng.IntN(3) > 0 {
			r.tag = g.str("tag-")
		}
		rows[i] = r
	}
	return rows
}

// batch writes rows into b, reused from push to push.
func (g *bndGen) batch(b *schema.Batch, rows []bndRow) {
	b.Time = b.Time[:0]
	for j := range b.Cols {
		b.Cols[j].Num, b.Cols[j].Str, b.Cols[j].Missing = b.Cols[j].Num[:0], b.Cols[j].Str[:0], b.Cols[j].Missing[:0]
	}
	for _, r := range rows {
		b.Time = append(b.Time, r.t)
		b.Cols[0].Num = append(b.Cols[0].Num, r.v)
		b.Cols[0].Missing = append(b.Cols[0].Missing, !r.vOK)
		b.Cols[1].Str = append(b.Cols[1].Str, r.s)
		b.Cols[2].Str = append(b.Cols[2].Str, r.tag)
		b.Cols[2].Missing = append(b.Cols[2].Missing, r.tag == "")
		b.Cols[3].Str = append(b.Cols[3].Str, g.key(r.key))
		b.Cols[4].Num = append(b.Cols[4].Num, float64(r.key))
	}
}

// bndPart is the model of one partition.
type bndPart struct {
	key      int
	last     int64
	ingested uint64
	evicted  uint64
	rows     []bndRow // held, in key order (time, then arrival)
}

// bndModel is the partitioning as partition.Options describes it, and the
// root's retention.
type bndModel struct {
	c       *bndCfg
	parts   map[int]*bndPart
	order   []int // live keys, first-seen order
	latest  int64
	root    []int64 // times the root holds, in order
	gone    int     // partitions removed
	dropped int     // rows dropped under Drop ordering
}

func newBndModel(c *bndCfg) *bndModel {
	return &bndModel{c: c, parts: map[int]*bndPart{}}
}

func (m *bndModel) maxEvents() int {
	if m.c.part.MaxEvents > 0 {
		return m.c.part.MaxEvents
	}
	return m.c.opts.MaxEvents
}

func (m *bndModel) maxAge() int64 {
	if m.c.part.MaxAge > 0 {
		return int64(m.c.part.MaxAge)
	}
	return int64(m.c.opts.MaxAge)
}

// push applies rows, returning false (and changing nothing) for a push
// the limit refuses, and the names (s) of the rows the partitioning let go.
func (m *bndModel) push(rows []bndRow) (bool, []string) {
	dropped := 0
	if m.c.opts.Ordering == live.Drop {
		kept := rows[:0:0]
		at := m.latest
		for _, r := range rows {
			if r.t >= at {
				kept = append(kept, r)
				at = r.t
			}
		}
		dropped = len(rows) - len(kept)
		rows = kept
	}
	latest := m.latest
	routed := map[int]bool{}
	var fresh []int
	for _, r := range rows {
		latest = max(latest, r.t)
		if _, ok := m.parts[r.key]; !ok && !routed[r.key] {
			fresh = append(fresh, r.key)
		}
		routed[r.key] = true
	}
	var gone []string
	ttl := int64(m.c.part.IdleTTL)
	if mp := m.c.part.MaxPartitions; mp > 0 && len(m.order)+len(fresh) > mp {
		var free []int
		if ttl > 0 {
			for _, k := range m.order {
				if !routed[k] && latest-m.parts[k].last > ttl {
					free = append(free, k)
				}
			}
		}
		if len(m.order)-len(free)+len(fresh) > mp {
			return false, nil
		}
		for _, k := range free {
			gone = m.remove(k, gone)
		}
	}
	for _, r := range rows {
		p := m.parts[r.key]
		if p == nil {
			p = &bndPart{key: r.key}
			m.parts[r.key] = p
			m.order = append(m.order, r.key)
		}
		p.ingested++
		p.last = max(p.last, r.t)
		at := sort.Search(len(p.rows), func(i int) bool { return p.rows[i].t > r.t })
		p.rows = slices.Insert(p.rows, at, r)
		at = sort.Search(len(m.root), func(i int) bool { return m.root[i] > r.t })
		m.root = slices.Insert(m.root, at, r.t)
	}
	m.latest = latest
	m.dropped += dropped
	// Each partition's retention, then the root's.
	for _, k := range m.order {
		p := m.parts[k]
		cut := 0
		if n := m.maxEvents(); n > 0 && len(p.rows) > n {
			cut = len(p.rows) - n
		}
		if a := m.maxAge(); a > 0 {
			cut = max(cut, sort.Search(len(p.rows), func(i int) bool { return p.rows[i].t >= p.last-a }))
		}
		for _, r := range p.rows[:cut] {
			gone = append(gone, r.s)
		}
		p.evicted += uint64(cut)
		p.rows = slices.Delete(p.rows, 0, cut)
	}
	cut := 0
	if n := m.c.opts.MaxEvents; n > 0 && len(m.root) > n {
		cut = len(m.root) - n
	}
	if a := int64(m.c.opts.MaxAge); a > 0 {
		cut = max(cut, sort.Search(len(m.root), func(i int) bool { return m.root[i] >= latest-a }))
	}
	m.root = slices.Delete(m.root, 0, cut)
	if ttl > 0 {
		for _, k := range slices.Clone(m.order) {
			if latest-m.parts[k].last > ttl {
				gone = m.remove(k, gone)
			}
		}
	}
	return true, gone
}

func (m *bndModel) remove(k int, gone []string) []string {
	for _, r := range m.parts[k].rows {
		gone = append(gone, r.s)
	}
	delete(m.parts, k)
	m.gone++
	m.order = slices.DeleteFunc(m.order, func(x int) bool { return x == k })
	return gone
}

// check compares the partitions the series lists with the model's.
func (m *bndModel) check(s *live.Series, part live.NodeID) string {
	ps, err := s.Partitions(part)
	if err != nil {
		return err.Error()
	}
	if len(ps) != len(m.order) {
		return fmt.Sprintf("%d partitions listed, want %d", len(ps), len(m.order))
	}
	for i, p := range ps {
		want := m.parts[m.order[i]]
		var key int
		if m.c.numKey {
			f, _ := p.Key.Num()
			key = int(f)
		} else {
			str, _ := p.Key.Str()
			num, _, _ := strings.Cut(strings.TrimPrefix(str, "host-"), "-")
			var err error
			if key, err = strconv.Atoi(num); err != nil {
				return fmt.Sprintf("partition %d: key %q", i, str)
			}
		}
		got := fmt.Sprintf("key %d ingested %d evicted %d length %d last %d", key, p.Ingested, p.Evicted, p.Length, p.Last.UnixNano())
		exp := fmt.Sprintf("key %d ingested %d evicted %d length %d last %d", want.key, want.ingested, want.evicted, len(want.rows), want.last)
		if got != exp {
			return fmt.Sprintf("partition %d: %s, want %s", i, got, exp)
		}
		if mp := m.c.part.MaxPartitions; mp > 0 && len(ps) > mp {
			return fmt.Sprintf("%d partitions, limit %d", len(ps), mp)
		}
		if ttl := m.c.part.IdleTTL; ttl > 0 && m.latest-p.Last.UnixNano() > int64(ttl) {
			return fmt.Sprintf("partition %d idle for %v, IdleTTL %v", i, time.Duration(m.latest-p.Last.UnixNano()), ttl)
		}
	}
	if st := s.Stats(); st.Rejected != uint64(m.dropped) {
		return fmt.Sprintf("%d rows rejected, want %d", st.Rejected, m.dropped)
	}
	if s.Len() != len(m.root) {
		return fmt.Sprintf("root holds %d rows, want %d", s.Len(), len(m.root))
	}
	return ""
}

// bndNames returns the s column of the rows of out's node and kind.
func bndNames(out []live.Output, id live.NodeID, k live.OutputKind) []string {
	tab, ok := live.Find(out, id, k)
	if !ok {
		return nil
	}
	names, _ := tab.Strings("s")
	return slices.Sorted(slices.Values(names))
}

// bndHeap returns the heap in use once collected: the least of three
// collections, so that what the runtime or another goroutine had in
// hand at one of them (once, on a loaded machine, 0.4 % over a bound)
// does not read as the series'.
func bndHeap() uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		least = min(least, ms.HeapInuse)
	}
	return least
}

// bndMeasure returns what the series holds: every node's NodeBytes,
// HeldBytes and the partitions listed.
func bndMeasure(t *testing.T, s *live.Series, part live.NodeID, nodes map[string]live.NodeID) map[string]int {
	m := map[string]int{"held": s.HeldBytes()}
	for name, id := range nodes {
		b, err := s.NodeBytes(id)
		require.NoError(t, err, name)
		m[name] = b
	}
	ps, err := s.Partitions(part)
	require.NoError(t, err)
	m["partitions"] = len(ps)
	return m
}

// bndRun runs one configuration and returns how many pushes the limit
// refused and how many partitions IdleTTL removed.
func bndRun(t *testing.T, c *bndCfg, seed uint64) (refused, removed int) {
	t.Helper()
	base := int(bndHeap())
	s, err := live.New("bnd", bndSchema, c.opts)
	require.NoError(t, err)
	defer s.Close()
	col := "host"
	if c.numKey {
		col = "hid"
	}
	part, err := s.PartitionBy(s.Root(), col, c.part)
	require.NoError(t, err)
	pass, err := s.Filter(part, func(schema.Row) bool { return true })
	require.NoError(t, err)
	nodes := map[string]live.NodeID{"part": part, "pass": pass}
	if c.build != nil {
		for name, id := range c.build(t, s, part) {
			nodes[name] = id
			require.NoError(t, s.Watch(id))
		}
	}
	require.NoError(t, s.Watch(part, live.Evict))
	require.NoError(t, s.Watch(pass, live.Evict))
	g := newBndGen(c, seed)
	m := newBndModel(c)
	b := schema.NewBatch(bndSchema, c.rows)
	var out []live.Output
	peaks := [2]map[string]int{{}, {}}
	var heap, other [2]int // the heap in use; what of it no NodeBytes or HeldBytes counts
	for i := range c.pushes {
		rows := g.push()
		g.batch(b, rows)
		before := s.Stats()
		ok, gone := m.push(rows)
		out, err = s.PushMany(out[:0], b)
		if !ok {
			require.ErrorIs(t, err, partition.ErrLimit, "push %d", i)
			var ke *partition.KeyError
			require.True(t, errors.As(err, &ke), "push %d", i)
			require.Equal(t, c.part.MaxPartitions, ke.Limit)
			require.Equal(t, before, s.Stats(), "push %d: a refused push changes nothing", i)
			refused++
		} else {
			require.NoError(t, err, "push %d", i)
			if len(m.order) < len(m.parts) {
				t.Fatal("model")
			}
		}
		if msg := m.check(s, part); msg != "" {
			t.Fatalf("%s push %d: %s", c.name, i, msg)
		}
		if ok {
			got := bndNames(out, part, live.Evict)
			if c.evicts {
				slices.Sort(gone)
				require.Equal(t, gone, got, "%s push %d: the partition's evictions", c.name, i)
			}
			require.Equal(t, got, bndNames(out, pass, live.Evict), "%s push %d: a filter's rows leave with its source's", c.name, i)
		}
		if c.history > 0 && i%8 == 0 {
			snap, err := s.Snapshot(nodes["hist"])
			require.NoError(t, err)
			require.LessOrEqual(t, snap.Len(), c.history, "a rolling's history")
		}
		// The peaks of the second and the last quarter, the heap at their
		// ends.
		q := 4 * i / c.pushes
		if (q == 1 || q == 3) && i%4 == 0 {
			for k, v := range bndMeasure(t, s, part, nodes) {
				peaks[q/2][k] = max(peaks[q/2][k], v)
			}
		}
		if i == c.pushes/2-1 || i == c.pushes-1 {
			out = out[:0]
			counted := 0
			for k, v := range bndMeasure(t, s, part, nodes) {
				if k != "partitions" {
					counted += v
				}
			}
			heap[q/2] = int(bndHeap()) - base
			other[q/2] = heap[q/2] - counted
		}
	}
	removed = m.gone
	for k, v := range peaks[1] {
		was := peaks[0][k]
		if k == "held" {
			was *= 2 // the root's chunks: one more at a time
		}
		require.LessOrEqual(t, v, was+was/2+8192, "%s: %s grew from %d to %d bytes (peaks of the second and last quarters)", c.name, k, was, v)
	}
	t.Logf("%s: %d pushes, %d strings, %d keys, %d refused, %d removed; peaks %v then %v; heap %d then %d, not counted %d then %d",
		c.name, c.pushes, g.strs, g.next, refused, m.gone, peaks[0], peaks[1], heap[0], heap[1], other[0], other[1])
	require.LessOrEqual(t, heap[1], heap[0]+heap[0]/4+512<<10, "%s: the heap in use grew from %d to %d", c.name, heap[0], heap[1])
	require.LessOrEqual(t, other[1], other[0]+other[0]/8+256<<10, "%s: the heap that no NodeBytes counts grew from %d to %d", c.name, other[0], other[1])
	return refused, removed
}

func bndAggs(aggs ...string) []reduce.Agg {
	var out []reduce.Agg
	for _, a := range aggs {
		using, from, _ := strings.Cut(a, ":")
		red, err := reduce.Parse(using)
		if err != nil {
			panic(err)
		}
		out = append(out, reduce.Agg{Out: using + "_" + from, From: from, Using: red})
	}
	return out
}

// bndViews builds views of every kind on part, rollings in the default
// mode, a reduce and an aggregate.
func bndViews(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID {
	n := map[string]live.NodeID{}
	add := func(name string) func(live.NodeID, error) live.NodeID {
		return func(id live.NodeID, err error) live.NodeID {
			require.NoError(t, err, name)
			n[name] = id
			return id
		}
	}
	w10 := []rolling.Window{{Span: 10 * time.Millisecond, Aggs: bndAggs("count:v", "sum:v", "median:v", "unique:tag", "last:s", "samples:s")}}
	add("rollEvent")(s.Rolling(part, w10, rolling.Options{}))
	add("hist")(s.Rolling(part, []rolling.Window{{Span: 10 * time.Millisecond, Aggs: bndAggs("count:v", "p90:v", "top2:tag")}},
		rolling.Options{Trigger: trigger.Every(3 * time.Millisecond), History: rolling.History{MaxEvents: 50}}))
	add("rollCount")(s.Rolling(part, []rolling.Window{{Count: 4, Aggs: bndAggs("avg:v", "first:s", "keep:host")}}, rolling.Options{Trigger: trigger.Count(2)}))
	add("reduce")(s.Reduce(part, bndAggs("count:v", "sum:v", "last:s", "unique:tag", "median:v"), trigger.Every(5*time.Millisecond)))
	add("aggregate")(s.Aggregate(part, sequence.Every(4*time.Millisecond), bndAggs("count:v", "unique:tag", "samples:s", "top3:host"), time.Millisecond))
	win := add("window")(s.Window(part, 8*time.Millisecond))
	add("reduceWindow")(s.Reduce(win, bndAggs("count:v", "last:s"), trigger.Event()))
	add("windowCount")(s.WindowCount(part, 5))
	f := add("filter")(s.Filter(part, func(row schema.Row) bool { return !row[1].IsMissing() }))
	add("diff")(s.Diff(f, "v"))
	add("rate")(s.Rate(part, "v"))
	add("pctChange")(s.PctChange(part, "v"))
	add("fillHold")(s.Fill(part, live.FillOptions{Strategy: live.FillHold, Columns: []string{"v", "tag"}}))
	add("fillZero")(s.Fill(part, live.FillOptions{Strategy: live.FillZero, Limit: 2}))
	add("cumulative")(s.Cumulative(part, live.Running{Column: "v", Using: reduce.Sum}))
	add("select")(s.Select(part, "s", "tag"))
	mapped := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "s", Kind: schema.String}, schema.Column{Name: "m", Kind: schema.String})
	add("map")(s.Map(part, mapped, func(in, out schema.Row) bool {
		str, _ := in[2].Str()
		out[1] = in[2]
		out[2] = schema.StringValue("m-" + str)
		return true
	}))
	add("sample")(s.Sample(part, 3))
	chain := add("perPartition")(s.PerPartition(part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
		f, err := s.Fill(p, live.FillOptions{Strategy: live.FillHold, Columns: []string{"v"}})
		if err != nil {
			return 0, err
		}
		d, err := s.Diff(f, "v")
		if err != nil {
			return 0, err
		}
		return s.WindowCount(d, 4)
	}))
	add("rollChain")(s.Rolling(chain, []rolling.Window{{Span: 5 * time.Millisecond, Aggs: bndAggs("sum:v", "last:tag")}}, rolling.Options{}))
	g := add("gather")(s.Gather(chain))
	add("reduceGather")(s.Reduce(g, bndAggs("count:v", "last:host"), trigger.Count(5)))
	return n
}

// bndAlignedViews builds aligned rollings on part: a window one step long
// whose samples of a number column may be read from the series' rows,
// and a longer one with raw values (unique, median) and panes.
func bndAlignedViews(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID {
	n := map[string]live.NodeID{}
	aligned := rolling.Options{Trigger: trigger.Every(5 * time.Millisecond), Aligned: true}
	id, err := s.Rolling(part, []rolling.Window{{Span: 5 * time.Millisecond, Aggs: bndAggs("samples:v")}}, aligned)
	require.NoError(t, err)
	n["alignedSamples"] = id
	id, err = s.Rolling(part, []rolling.Window{
		{Span: 20 * time.Millisecond, Aggs: bndAggs("count:v", "sum:v", "stdev:v", "min:v", "max:v", "first:s", "last:tag")},
		{Span: 10 * time.Millisecond, Aggs: bndAggs("unique:tag", "median:v", "top2:s")},
	}, aligned)
	require.NoError(t, err)
	n["aligned"] = id
	aligned.History = rolling.History{MaxAge: 30 * time.Millisecond}
	id, err = s.Rolling(part, []rolling.Window{{Span: 15 * time.Millisecond, Aggs: bndAggs("avg:v", "keep:host")}}, aligned)
	require.NoError(t, err)
	n["alignedHist"] = id
	return n
}

func bndBoth(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID {
	n := bndViews(t, s, part)
	for k, v := range bndAlignedViews(t, s, part) {
		n[k] = v
	}
	return n
}

// Keys that come and go (about six sending at once, a new one every
// eight rows), a new string in every row: everything held stays flat.
func TestBndChurnDefaultMode(t *testing.T) {
	c := &bndCfg{name: "default", opts: live.Options{MaxAge: 50 * time.Millisecond},
		part:   partition.Options{IdleTTL: 20 * time.Millisecond, MaxEvents: 6},
		pushes: 400, rows: 10, gap: 300_000, active: 6, churn: 8, revive: 4, pad: 160, evicts: true,
		build: bndViews, history: 50}
	bndRun(t, c, 1)
}

func TestBndChurnAligned(t *testing.T) {
	c := &bndCfg{name: "aligned", opts: live.Options{MaxAge: 50 * time.Millisecond},
		part:   partition.Options{IdleTTL: 20 * time.Millisecond},
		pushes: 450, rows: 10, gap: 300_000, active: 6, churn: 8, revive: 4, pad: 160, evicts: true,
		build: bndAlignedViews}
	bndRun(t, c, 2)
}

// bndLight builds a few cheap nodes that hold state per partition.
func bndLight(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID {
	n := map[string]live.NodeID{}
	id, err := s.Rolling(part, []rolling.Window{{Span: 3 * time.Millisecond, Aggs: bndAggs("count:v", "last:s", "unique:tag")}}, rolling.Options{})
	require.NoError(t, err)
	n["rolling"] = id
	id, err = s.Rolling(part, []rolling.Window{{Span: 3 * time.Millisecond, Aggs: bndAggs("sum:v", "first:tag")}}, rolling.Options{Trigger: trigger.Every(time.Millisecond)})
	require.NoError(t, err)
	n["clock"] = id
	id, err = s.Fill(part, live.FillOptions{Strategy: live.FillHold, Columns: []string{"tag"}})
	require.NoError(t, err)
	n["fill"] = id
	id, err = s.Cumulative(part, live.Running{Column: "v", Using: reduce.Count})
	require.NoError(t, err)
	n["cumulative"] = id
	id, err = s.Sample(part, 2)
	require.NoError(t, err)
	n["sample"] = id
	id, err = s.Aggregate(part, sequence.Every(2*time.Millisecond), bndAggs("count:v", "last:s"), 0)
	require.NoError(t, err)
	n["aggregate"] = id
	return n
}

// Sessions: a new key in almost every row, each idle after a row or two.
func TestBndSessions(t *testing.T) {
	for _, numKey := range []bool{false, true} {
		c := &bndCfg{name: fmt.Sprintf("sessions, number keys %v", numKey), opts: live.Options{MaxAge: 10 * time.Millisecond},
			part:   partition.Options{IdleTTL: 2 * time.Millisecond},
			numKey: numKey, pushes: 180, rows: 16, gap: 200_000, active: 3, churn: 1, pad: 200, evicts: true,
			build: bndLight}
		_, removed := bndRun(t, c, 3)
		require.Greater(t, removed, 1000)
	}
}

// Keys that come and go under MaxPartitions: pushes over the limit are
// refused whole, and quiet partitions make room for new keys.
func TestBndLimit(t *testing.T) {
	c := &bndCfg{name: "limit", opts: live.Options{MaxAge: 20 * time.Millisecond},
		part:   partition.Options{IdleTTL: 3 * time.Millisecond, MaxPartitions: 8, MaxEvents: 3},
		pushes: 500, rows: 6, gap: 200_000, active: 5, churn: 4, revive: 3, pad: 100, evicts: true,
		build: bndLight}
	refused, removed := bndRun(t, c, 4)
	require.Greater(t, refused, 20)
	require.Greater(t, removed, 150)
}

// Reorder with a grace: late rows within it, the default mode's views and
// aligned windows, which close a boundary once the grace has passed it.
func TestBndReorder(t *testing.T) {
	c := &bndCfg{name: "reorder", opts: live.Options{MaxAge: 30 * time.Millisecond, Ordering: live.Reorder, Grace: 4 * time.Millisecond},
		part:   partition.Options{IdleTTL: 10 * time.Millisecond, MaxEvents: 5},
		pushes: 300, rows: 10, gap: 300_000, active: 5, churn: 3, revive: 3, late: 4 * bndMs, pad: 100, evicts: true,
		build: bndBoth, history: 50}
	bndRun(t, c, 5)
}

// Drop ordering: late rows are dropped and counted; the rest as above.
func TestBndDrop(t *testing.T) {
	c := &bndCfg{name: "drop", opts: live.Options{MaxEvents: 300, Ordering: live.Drop},
		part:   partition.Options{IdleTTL: 6 * time.Millisecond},
		pushes: 400, rows: 8, gap: 300_000, active: 5, churn: 6, revive: 3, late: 2 * bndMs, pad: 100, evicts: true,
		build: bndLight}
	bndRun(t, c, 6)
}

// Partitions that keep one row each (the rollings built before the first
// push keep their own windows).
func TestBndOneRowPartitions(t *testing.T) {
	c := &bndCfg{name: "one row", opts: live.Options{MaxAge: 20 * time.Millisecond},
		part:   partition.Options{IdleTTL: 4 * time.Millisecond, MaxEvents: 1},
		pushes: 400, rows: 8, gap: 200_000, active: 5, churn: 5, revive: 3, pad: 100, evicts: true,
		build: func(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID {
			n := bndLight(t, s, part)
			for k, v := range bndAlignedViews(t, s, part) {
				n[k] = v
			}
			return n
		}}
	bndRun(t, c, 7)
}

// bndBurst pushes a burst of 200 keys in one push, each with a tag and a
// row name of its own, then one key alone, in pushes of tail rows, for
// long enough that every key of the burst has gone idle past IdleTTL
// (5ms), the root (MaxAge 10ms) has let go of their rows, and the intern
// table has swept many times (a new row name in every row; the tag and
// the key stay the same). It returns how many of the burst's strings are
// still reachable once collected (nothing but the series held them), and
// how many there were.
func bndBurst(t *testing.T, tail int, build func(s *live.Series, part live.NodeID) (live.NodeID, error)) (alive, total int) {
	t.Helper()
	s, err := live.New("bnd", bndSchema, live.Options{MaxAge: 10 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 5 * time.Millisecond})
	require.NoError(t, err)
	_, err = build(s, part)
	require.NoError(t, err)
	const at, keys = int64(1e15), 200
	var refs []weak.Pointer[byte]
	ref := func(str string) string {
		refs = append(refs, weak.Make(unsafe.StringData(str)))
		return str
	}
	b := schema.NewBatch(bndSchema, keys)
	for k := range keys {
		b.Time = append(b.Time, at)
		b.Cols[0].Num = append(b.Cols[0].Num, float64(k))
		b.Cols[1].Str = append(b.Cols[1].Str, ref(strings.Repeat("s", 64)+strconv.Itoa(k)))
		b.Cols[2].Str = append(b.Cols[2].Str, ref(strings.Repeat("t", 64)+strconv.Itoa(k)))
		b.Cols[3].Str = append(b.Cols[3].Str, ref(strings.Repeat("h", 64)+strconv.Itoa(k)))
		b.Cols[4].Num = append(b.Cols[4].Num, float64(k))
	}
	out, err := s.PushMany(nil, b)
	require.NoError(t, err)
	b = schema.NewBatch(bndSchema, tail)
	for i := 0; i < 1600; i += tail {
		b.Reset()
		for k := range tail {
			b.Time = append(b.Time, at+6*bndMs+int64(i+k)*bndMs/20)
			b.Cols[0].Num = append(b.Cols[0].Num, 1)
			b.Cols[1].Str = append(b.Cols[1].Str, "s"+strconv.Itoa(i+k))
			b.Cols[2].Str = append(b.Cols[2].Str, "t")
			b.Cols[3].Str = append(b.Cols[3].Str, "k")
			b.Cols[4].Num = append(b.Cols[4].Num, -1)
		}
		out, err = s.PushMany(out[:0], b)
		require.NoError(t, err)
	}
	ps, err := s.Partitions(part)
	require.NoError(t, err)
	require.Len(t, ps, 1, "the burst's partitions have gone idle")
	require.LessOrEqual(t, s.Len(), 201, "the root holds only the last 10ms")
	out = nil
	runtime.GC()
	for _, w := range refs {
		if w.Value() != nil {
			alive++
		}
	}
	return alive, len(refs)
}

// A partition IdleTTL removed takes its strings with it from every node
// that held them (the nodes the bugs file does not name): once the root
// has let go of the rows too and the intern table has swept, nothing
// keeps the burst's strings.
func TestBndIdlePartitionsLetGoOfTheirStrings(t *testing.T) {
	roll := func(opts rolling.Options, aggs ...string) func(s *live.Series, part live.NodeID) (live.NodeID, error) {
		return func(s *live.Series, part live.NodeID) (live.NodeID, error) {
			return s.Rolling(part, []rolling.Window{{Span: 50 * time.Millisecond, Aggs: bndAggs(aggs...)}}, opts)
		}
	}
	aligned := rolling.Options{Trigger: trigger.Every(time.Millisecond), Aligned: true}
	type build = func(s *live.Series, part live.NodeID) (live.NodeID, error)
	all := func(bs ...build) build {
		return func(s *live.Series, part live.NodeID) (live.NodeID, error) {
			for _, b := range bs {
				if _, err := b(s, part); err != nil {
					return 0, err
				}
			}
			return part, nil
		}
	}
	builds := map[string]build{
		"partition": func(s *live.Series, part live.NodeID) (live.NodeID, error) { return part, nil },
		"rollings": all(
			roll(rolling.Options{History: rolling.History{MaxEvents: 4}}, "samples:tag", "first:s", "last:host", "count:v"),
			roll(aligned, "samples:tag", "first:s", "last:host", "sum:v")),
		"reduce, aggregate": all(
			func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				return s.Reduce(part, bndAggs("unique:tag", "top2:s", "keep:host", "last:tag", "samples:s"), trigger.Event())
			},
			func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				return s.Aggregate(part, sequence.Every(time.Millisecond), bndAggs("unique:tag", "top2:s", "keep:host", "samples:s"), 0)
			}),
		"views": all(
			func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				return s.Fill(part, live.FillOptions{Strategy: live.FillHold})
			},
			func(s *live.Series, part live.NodeID) (live.NodeID, error) { return s.Window(part, time.Hour) },
			func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				return s.Cumulative(part, live.Running{Column: "v", Using: reduce.Sum})
			},
			func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				return s.Map(part, bndSchema, func(in, out schema.Row) bool { copy(out, in); return true })
			},
			func(s *live.Series, part live.NodeID) (live.NodeID, error) { return s.Gather(part) },
			func(s *live.Series, part live.NodeID) (live.NodeID, error) {
				return s.PerPartition(part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
					f, err := s.Filter(p, func(schema.Row) bool { return true })
					if err != nil {
						return 0, err
					}
					sm, err := s.Sample(f, 1)
					if err != nil {
						return 0, err
					}
					d, err := s.Diff(sm, "v")
					if err != nil {
						return 0, err
					}
					return s.Select(d, "v", "tag")
				})
			}),
	}
	for name, build := range builds {
		alive, total := bndBurst(t, 200, build)
		require.Zero(t, alive, "%s: strings of the removed partitions still reachable, of %d", name, total)
	}
}

// Reorder with a grace longer than IdleTTL: a late row may come for a key
// IdleTTL has removed (a partition made anew, and removed again at the
// end of its push when the row is already idle), and the limit counts
// the partitions such rows make.
func TestBndReorderLateKeys(t *testing.T) {
	c := &bndCfg{name: "reorder late keys", opts: live.Options{MaxAge: 20 * time.Millisecond, Ordering: live.Reorder, Grace: 6 * time.Millisecond},
		part:   partition.Options{IdleTTL: 2 * time.Millisecond, MaxPartitions: 7, MaxEvents: 3},
		pushes: 500, rows: 6, gap: 300_000, active: 4, churn: 3, revive: 2, late: 6 * bndMs, pad: 50, evicts: true,
		build: bndLight}
	refused, removed := bndRun(t, c, 8)
	require.Greater(t, refused, 5)
	require.Greater(t, removed, 200)
}
