package live_test

// The held-bytes probe: what Series.HeldBytes and Series.NodeBytes say a
// series holds, against the live heap it holds, node kind by node kind,
// and whether both stay flat under churn when the configuration bounds
// the state. Each node is built on a series of several megabytes, pushed
// a seeded stream, and measured as the heap in use once collected with
// the node against the same series and pushes without it (the node's
// output tables, which NodeBytes leaves out, are kept small: pushes of a
// few hundred rows). A figure more than twice off either way is wrong.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// hb42Schema: v a number, missing in one row in eight; s a string from a
// small pool, missing in one row in eight; host the partition key.
var hb42Schema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
)

const (
	hb42T0    = int64(1_700_000_000_000_000_000)
	hb42Batch = 400 // rows a push
)

// hb42Pool is the strings the stream draws from, made once so that their
// bytes are the same in every run.
var hb42Pool = func() []string {
	p := make([]string, 64)
	for i := range p {
		p[i] = "str-" + strconv.Itoa(i)
	}
	return p
}()

// hb42Hosts returns the keys of n hosts, made before a measure starts.
func hb42Hosts(n int) []string {
	h := make([]string, n)
	for i := range h {
		h[i] = "host-" + strconv.Itoa(i)
	}
	return h
}

// hb42Heap returns the heap in use once collected.
func hb42Heap() int {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int(ms.HeapAlloc)
}

// hb42Stream draws rows times gap ns apart, round robin over hosts with a
// random host one row in four, into a batch reused from push to push.
type hb42Stream struct {
	rng   *rand.Rand
	hosts []string
	t     int64
	gap   int64
	n     int
	b     *schema.Batch
}

func newHb42Stream(seed uint64, hosts []string, gap int64) *hb42Stream {
	return &hb42Stream{rng: rand.New(rand.NewPCG(seed, 42)), hosts: hosts, t: hb42T0, gap: gap, b: schema.NewBatch(hb42Schema, hb42Batch)}
}

// next fills the batch with rows rows.
func (g *hb42Stream) next(rows int) *schema.Batch {
	b := g.b
	b.Reset()
	for j := range b.Cols {
		b.Cols[j].Missing = b.Cols[j].Missing[:0]
	}
	for range rows {
		g.t += g.gap
		b.Time = append(b.Time, g.t)
		b.Cols[0].Num = append(b.Cols[0].Num, float64(g.rng.IntN(1_000_000))/8)
		b.Cols[0].Missing = append(b.Cols[0].Missing, g.rng.IntN(8) == 0)
		b.Cols[1].Str = append(b.Cols[1].Str, hb42Pool[g.rng.IntN(len(hb42Pool))])
		b.Cols[1].Missing = append(b.Cols[1].Missing, g.rng.IntN(8) == 0)
		h := g.n % len(g.hosts)
		if g.rng.IntN(4) == 0 {
			h = g.rng.IntN(len(g.hosts))
		}
		b.Cols[2].Str = append(b.Cols[2].Str, g.hosts[h])
		g.n++
	}
	return b
}

// hb42Push pushes rows rows of g to s in pushes of hb42Batch.
func hb42Push(t *testing.T, s *live.Series, g *hb42Stream, rows int) {
	t.Helper()
	var out []live.Output
	var err error
	for done := 0; done < rows; done += hb42Batch {
		out, err = s.PushMany(out[:0], g.next(min(hb42Batch, rows-done)))
		require.NoError(t, err)
	}
}

// hb42Case is one node on one series: it stands on the root, or on a
// partitioning by host.
type hb42Case struct {
	name  string
	opts  live.Options
	rows  int
	hosts int
	gap   int64 // ns between rows
	parts int   // > 0: the node stands on a partitioning by host keeping parts rows each
	node  func(s *live.Series, src live.NodeID) (live.NodeID, error)
}

// hb42Run returns the heap in use once collected that the series of c
// holds, with its node or without, and the node's NodeBytes (with) or
// the series' HeldBytes (without).
func hb42Run(t *testing.T, c hb42Case, with bool, seed uint64) (heap, reported int) {
	t.Helper()
	hosts := hb42Hosts(max(c.hosts, 1))
	g := newHb42Stream(seed, hosts, c.gap)
	base := hb42Heap()
	s, err := live.New("hb42", hb42Schema, c.opts)
	require.NoError(t, err)
	src := s.Root()
	if c.parts > 0 {
		src, err = s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: c.parts})
		require.NoError(t, err, c.name)
	}
	id := src
	if with {
		id, err = c.node(s, src)
		require.NoError(t, err, c.name)
	}
	hb42Push(t, s, g, c.rows)
	heap = hb42Heap() - base
	if with {
		// The node and the nodes it stands on that it built (a chain of
		// PerPartition); a rolling's history takes an id of no node.
		for k := src + 1; k <= id; k++ {
			b, err := s.NodeBytes(k)
			if errors.Is(err, live.ErrNode) {
				continue
			}
			require.NoError(t, err)
			require.GreaterOrEqual(t, b, 0, "%s: node %d", c.name, k)
			reported += b
		}
	} else {
		reported = s.HeldBytes()
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(g)
	require.NoError(t, s.Close())
	return heap, reported
}

// hb42NodeHeap returns the heap a node of c holds (the series with it
// against the series without it, measured once for the cases that share
// it in bases) and its NodeBytes.
func hb42NodeHeap(t *testing.T, c hb42Case, seed uint64, bases map[string]int) (heap, reported int) {
	t.Helper()
	key := fmt.Sprint(c.opts, c.rows, c.hosts, c.gap, c.parts)
	without, ok := bases[key]
	if !ok {
		without, _ = hb42Run(t, c, false, seed)
		bases[key] = without
	}
	with, reported := hb42Run(t, c, true, seed)
	return with - without, reported
}

// hb42Within reports whether reported is within a factor of two of heap,
// with 64 KiB of slack for the heap's noise and the node's output
// tables.
func hb42Within(heap, reported int) bool {
	return reported >= heap/2-64<<10 && reported <= 2*heap+64<<10
}

func hb42Aggs(aggs ...string) []reduce.Agg {
	var out []reduce.Agg
	for i, a := range aggs {
		using, from, _ := strings.Cut(a, ":")
		red, err := reduce.Parse(using)
		if err != nil {
			panic(err)
		}
		out = append(out, reduce.Agg{Out: using + "_" + from + strconv.Itoa(i), From: from, Using: red})
	}
	return out
}

func hb42Rolling(span time.Duration, trig trigger.Trigger, aligned bool, aggs ...string) func(s *live.Series, src live.NodeID) (live.NodeID, error) {
	return func(s *live.Series, src live.NodeID) (live.NodeID, error) {
		return s.Rolling(src, []rolling.Window{{Span: span, Aggs: hb42Aggs(aggs...)}}, rolling.Options{Trigger: trig, Aligned: aligned})
	}
}

// The cases whose node holds megabytes and whose NodeBytes the probe
// finds right, to within a factor of two.
var hb42Held = []hb42Case{
	// A root that keeps 150,000 rows: the partition keeps each host's
	// last 150.
	{name: "partition", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 1000, gap: 1e6,
		node: func(s *live.Series, _ live.NodeID) (live.NodeID, error) {
			return s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 150})
		}},
	{name: "rolling event", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: hb42Rolling(time.Hour, trigger.Event(), false, "sum:v", "avg:v")},
	{name: "rolling event median", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: hb42Rolling(time.Hour, trigger.Event(), false, "median:v", "count:s")},
	{name: "rolling clock", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: hb42Rolling(time.Hour, trigger.Every(time.Second), false, "sum:v", "max:v")},
	{name: "rolling count trigger", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: hb42Rolling(time.Hour, trigger.Count(100), false, "sum:v", "min:v")},
	{name: "rolling count window", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Rolling(src, []rolling.Window{{Count: 100_000, Aggs: hb42Aggs("sum:v", "p90:v")}}, rolling.Options{})
		}},
	{name: "rolling aligned raw", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: hb42Rolling(time.Hour, trigger.Every(time.Second), true, "median:v", "sum:v")},
	{name: "rolling partitioned", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 200, gap: 1e6, parts: 1,
		node: hb42Rolling(time.Hour, trigger.Event(), false, "sum:v", "avg:v")},
	{name: "rolling partitioned clock", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 200, gap: 1e6, parts: 1,
		node: hb42Rolling(time.Hour, trigger.Every(time.Second), false, "sum:v", "last:s")},
	{name: "rolling partitioned aligned", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 200, gap: 1e6, parts: 1,
		node: hb42Rolling(time.Minute, trigger.Every(time.Second), true, "median:v", "sum:v")},
	{name: "rolling history", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Rolling(src, []rolling.Window{{Span: time.Millisecond, Aggs: hb42Aggs("sum:v", "last:s")}},
				rolling.Options{History: rolling.History{MaxEvents: 12_000}})
		}},
	{name: "reduce median", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Reduce(src, hb42Aggs("median:v", "count:v"), trigger.Event())
		}},
	{name: "aggregate median", opts: live.Options{MaxEvents: 1000}, rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Aggregate(src, sequence.Every(24*time.Hour), hb42Aggs("median:v", "samples:v", "count:v"), 0)
		}},
	// Views over a root that keeps every row.
	{name: "window", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Window(src, time.Hour) }},
	{name: "windowCount", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.WindowCount(src, 12_000) }},
	{name: "map", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			out := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "w", Kind: schema.Number, Optional: true})
			return s.Map(src, out, func(in, out schema.Row) bool { out[1] = in[1]; return true })
		}},
	{name: "diff", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Diff(src, "v") }},
	{name: "rate", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Rate(src, "v") }},
	{name: "pctChange", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.PctChange(src, "v") }},
	{name: "fill", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Fill(src, live.FillOptions{Strategy: live.FillHold})
		}},
	{name: "cumulative", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Cumulative(src, live.Running{Column: "v", Using: reduce.Sum})
		}},
	{name: "filter", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Filter(src, func(schema.Row) bool { return true })
		}},
	{name: "sample", rows: 12_000, gap: 1e6,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Sample(src, 1) }},
	// Views over partitions: per-partition state.
	{name: "partitioned diff", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 1200, gap: 1e6, parts: 20,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) { return s.Diff(src, "v") }},
	{name: "partitioned fill", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 1200, gap: 1e6, parts: 20,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Fill(src, live.FillOptions{Strategy: live.FillHold})
		}},
	{name: "partitioned filter", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 1200, gap: 1e6, parts: 20,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.Filter(src, func(schema.Row) bool { return true })
		}},
	{name: "perPartition", opts: live.Options{MaxEvents: 1000}, rows: 12_000, hosts: 1200, gap: 1e6, parts: 20,
		node: func(s *live.Series, src live.NodeID) (live.NodeID, error) {
			return s.PerPartition(src, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
				d, err := s.Diff(p, "v")
				if err != nil {
					return 0, err
				}
				return s.WindowCount(d, 10)
			})
		}},
}

// TestHb42NodeBytesTracksTheHeap: for every kind of node holding
// megabytes, NodeBytes is within a factor of two of the heap the node
// holds.
func TestHb42NodeBytesTracksTheHeap(t *testing.T) {
	bases := map[string]int{}
	for _, c := range hb42Held {
		heap, reported := hb42NodeHeap(t, c, 100, bases)
		t.Logf("%-28s heap %9d  NodeBytes %9d  (%.2f)", c.name, heap, reported, float64(reported)/float64(heap))
		assert.GreaterOrEqual(t, heap, 150<<10, "%s: the node holds a state big enough to measure", c.name)
		assert.True(t, hb42Within(heap, reported), "%s: NodeBytes %d, the heap holds %d with the node", c.name, reported, heap)
	}
}

// hb42Hot is a stream of keys that come and go: half the rows of each
// push go to a key of its own, hot for that push alone, the others to
// background keys, one of which is replaced by a new one every fifty
// rows. Keys are made anew for each row, so that the stream keeps none.
type hb42Hot struct {
	rng  *rand.Rand
	t    int64
	gap  int64
	bg   []int
	next int
	b    *schema.Batch
	strs bool // a new string in s in every row
	n    int
}

func newHb42Hot(seed uint64, background int, gap int64, strs bool) *hb42Hot {
	g := &hb42Hot{rng: rand.New(rand.NewPCG(seed, 43)), t: hb42T0, gap: gap, b: schema.NewBatch(hb42Schema, hb42Batch), strs: strs}
	for range background {
		g.bg = append(g.bg, g.next)
		g.next++
	}
	return g
}

func (g *hb42Hot) next1(rows int) *schema.Batch {
	b := g.b
	b.Reset()
	hot := g.next
	g.next++
	for j := range rows {
		g.t += g.gap
		g.n++
		k := g.bg[g.rng.IntN(len(g.bg))]
		if j%2 == 0 {
			k = hot
		}
		if g.rng.IntN(50) == 0 {
			g.bg[g.rng.IntN(len(g.bg))] = g.next
			g.next++
		}
		b.Time = append(b.Time, g.t)
		b.Cols[0].Num = append(b.Cols[0].Num, float64(g.rng.IntN(1000)))
		str := hb42Pool[g.rng.IntN(len(hb42Pool))]
		if g.strs {
			str = "s-" + strconv.Itoa(g.n)
		}
		b.Cols[1].Str = append(b.Cols[1].Str, str)
		b.Cols[2].Str = append(b.Cols[2].Str, "key-"+strconv.Itoa(k))
	}
	return b
}

// hb42Jump pushes one row of a key of its own an hour after the latest,
// three times: every partition but its own goes idle, and the rows of
// every window and retention leave.
func hb42Jump(t *testing.T, s *live.Series, g *hb42Hot) {
	t.Helper()
	for range 3 {
		g.t += int64(time.Hour)
		_, err := s.PushRows(nil, schema.Row{schema.TimeValue(time.Unix(0, g.t)), schema.NumberValue(1), schema.StringValue("x"), schema.StringValue("alone")})
		require.NoError(t, err)
	}
}

// hb42ChurnNodes builds on part one node of every kind that keeps state
// of its own but the views that keep rows (heldbytes_bugs_test.go).
func hb42ChurnNodes(t *testing.T, s *live.Series, part live.NodeID) map[string]live.NodeID {
	nodes := map[string]live.NodeID{"partition": part}
	add := func(name string) func(live.NodeID, error) {
		return func(id live.NodeID, err error) {
			require.NoError(t, err, name)
			nodes[name] = id
		}
	}
	w := func(span time.Duration) []rolling.Window {
		return []rolling.Window{{Span: span, Aggs: hb42Aggs("sum:v", "median:v", "unique:s", "last:s")}}
	}
	add("rolling event")(s.Rolling(part, w(20*time.Millisecond), rolling.Options{}))
	add("rolling clock")(s.Rolling(part, w(20*time.Millisecond), rolling.Options{Trigger: trigger.Every(time.Millisecond)}))
	add("rolling count")(s.Rolling(part, []rolling.Window{{Count: 50, Aggs: hb42Aggs("sum:v", "top2:s")}}, rolling.Options{Trigger: trigger.Count(10)}))
	add("rolling aligned")(s.Rolling(part, w(20*time.Millisecond), rolling.Options{Trigger: trigger.Every(time.Millisecond), Aligned: true}))
	add("rolling history")(s.Rolling(part, []rolling.Window{{Span: time.Millisecond, Aggs: hb42Aggs("sum:v", "last:s")}},
		rolling.Options{Trigger: trigger.Every(time.Millisecond), History: rolling.History{MaxEvents: 5000}}))
	add("reduce")(s.Reduce(part, hb42Aggs("median:v", "unique:s", "last:s"), trigger.Every(2*time.Millisecond)))
	add("aggregate")(s.Aggregate(part, sequence.Every(5*time.Millisecond), hb42Aggs("median:v", "unique:s", "samples:s"), time.Millisecond))
	add("select")(s.Select(part, "v"))
	add("gather")(s.Gather(part))
	return nodes
}

// TestHb42ChurnHoldsFlat: keys that come and go under IdleTTL (and a
// MaxPartitions they stay under), a new string in every row: what the
// series reports (HeldBytes and every node's NodeBytes) and the heap it
// holds are, after 4N pushes, within a fifth of what they were after N,
// and no figure is ever negative. Then an hour's jump empties every
// window: the nodes with windows report what they hold now.
func TestHb42ChurnHoldsFlat(t *testing.T) {
	const n = 200
	base := hb42Heap()
	s, err := live.New("hb42", hb42Schema, live.Options{MaxAge: 50 * time.Millisecond})
	require.NoError(t, err)
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 10 * time.Millisecond, MaxEvents: 64, MaxPartitions: 400})
	require.NoError(t, err)
	nodes := hb42ChurnNodes(t, s, part)
	g := newHb42Hot(7, 50, 80_000, true)
	var out []live.Output
	measure := func() (heap int, each map[string]int) {
		out = out[:0]
		each = map[string]int{"held": s.HeldBytes()}
		for name, id := range nodes {
			b, err := s.NodeBytes(id)
			require.NoError(t, err)
			each[name] = b
		}
		return hb42Heap() - base, each
	}
	var heaps [2]int
	var each [2]map[string]int
	for p := range 4 * n {
		out, err = s.PushMany(out[:0], g.next1(50))
		require.NoError(t, err)
		if p%10 == 0 {
			for name, id := range nodes {
				b, err := s.NodeBytes(id)
				require.NoError(t, err)
				require.GreaterOrEqual(t, b, 0, "%s push %d", name, p)
			}
		}
		if p == n-1 || p == 4*n-1 {
			i := p / (2 * n)
			heaps[i], each[i] = measure()
		}
	}
	ps, err := s.Partitions(part)
	require.NoError(t, err)
	t.Logf("%d keys, %d partitions; heap %d then %d; %v then %v", g.next, len(ps), heaps[0], heaps[1], each[0], each[1])
	for name, was := range each[0] {
		assert.LessOrEqual(t, each[1][name], was+was/5+16<<10, "%s: reported %d after %d pushes, %d after %d", name, was, n, each[1][name], 4*n)
	}
	assert.LessOrEqual(t, heaps[1], heaps[0]+heaps[0]/5+256<<10, "the heap: %d after %d pushes, %d after %d", heaps[0], n, heaps[1], 4*n)

	hb42Jump(t, s, g)
	_, after := measure()
	t.Logf("after the jump: %v", after)
	for _, name := range []string{"rolling event", "rolling clock", "rolling count", "rolling aligned"} {
		assert.LessOrEqual(t, after[name], each[1][name]/4+16<<10, "%s: %d before the jump, %d after", name, each[1][name], after[name])
	}
	runtime.KeepAlive(s)
}

// TestHb42HeldBytesTracksTheRootsHeap: HeldBytes is within a factor of
// two of the heap the root holds, with no retention, MaxEvents and MaxAge
// (strings from a small pool, whose bytes are the stream's).
func TestHb42HeldBytesTracksTheRootsHeap(t *testing.T) {
	for _, opts := range []live.Options{{}, {MaxEvents: 20_000}, {MaxAge: 20 * time.Second}} {
		heap, held := hb42Run(t, hb42Case{name: "root", opts: opts, rows: 40_000, hosts: 100, gap: 1e6}, false, 9)
		t.Logf("%+v: HeldBytes %d, heap %d (%.2f)", opts, held, heap, float64(held)/float64(heap))
		assert.GreaterOrEqual(t, heap, 256<<10)
		assert.True(t, hb42Within(heap, held), "%+v: HeldBytes %d, the heap holds %d", opts, held, heap)
	}
}

// TestHb42CloseReleases: a closed series with workers still reads
// HeldBytes, refuses NodeBytes with ErrClosed, and once dropped holds
// nothing; one dropped unclosed holds nothing either once collected
// ("one that is dropped unclosed stops its workers when it is garbage
// collected").
func TestHb42CloseReleases(t *testing.T) {
	for _, closeIt := range []bool{true, false} {
		base := hb42Heap()
		func() {
			s, err := live.New("hb42", hb42Schema, live.Options{Workers: 4})
			require.NoError(t, err)
			part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			id, err := s.Rolling(part, []rolling.Window{{Span: time.Hour, Aggs: hb42Aggs("sum:v", "median:v")}}, rolling.Options{Trigger: trigger.Every(time.Second)})
			require.NoError(t, err)
			hb42Push(t, s, newHb42Stream(11, hb42Hosts(100), 1e6), 20_000)
			held := s.HeldBytes()
			nb, err := s.NodeBytes(id)
			require.NoError(t, err)
			heap := hb42Heap() - base
			require.Greater(t, heap, 1<<20)
			assert.True(t, hb42Within(heap, held+nb), "held %d + node %d against a heap of %d", held, nb, heap)
			if closeIt {
				require.NoError(t, s.Close())
				assert.Equal(t, held, s.HeldBytes(), "a closed series reads what it held")
				_, err := s.NodeBytes(id)
				require.ErrorIs(t, err, live.ErrClosed)
			}
			runtime.KeepAlive(s)
		}()
		left := 0
		for range 4 { // the workers' clean-up may take a collection of its own
			left = hb42Heap() - base
		}
		assert.Less(t, left, 128<<10, "closed %v: %d bytes left once dropped", closeIt, left)
	}
}
