package engine

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

var benchSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "cpu", Kind: schema.Number},
	schema.Column{Name: "requests", Kind: schema.Number},
)

// seedWindows are the seed workload's two windows and eleven reducers.
var seedWindows = []rolling.Window{
	{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
		{Out: "cpu_sd", From: "cpu", Using: reduce.Stdev},
		{Out: "cpu_n", From: "cpu", Using: reduce.Count},
		{Out: "requests_avg", From: "requests", Using: reduce.Avg},
		{Out: "requests_sum", From: "requests", Using: reduce.Sum},
		{Out: "requests_n", From: "requests", Using: reduce.Count},
	}},
	{Name: "200ms", Span: 200 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "cpu_samples", From: "cpu", Using: reduce.Samples},
		{Out: "cpu_min", From: "cpu", Using: reduce.Min},
		{Out: "cpu_max", From: "cpu", Using: reduce.Max},
		{Out: "current_avg", From: "cpu", Using: reduce.Avg},
		{Out: "current_sd", From: "cpu", Using: reduce.Stdev},
	}},
}

type keyNames []schema.Value

func (k keyNames) KeyValue(p int32) schema.Value { return k[p] }

// groupRig is a partitioned rolling fed one batch per tick of every
// partition's row, as the seed stream does.
type groupRig struct {
	g     *Group
	in    Input
	tab   *schema.Table
	part  []int32
	out   *schema.Table
	plan  *Plan
	t     int64
	step  int64
	parts int
	// sorted: the batches are told in time order (Input.SetSorted), as
	// a series tells its accepted rows.
	sorted bool
}

func newGroupRig(parts, perSec int) *groupRig { return newGroupRigMode(parts, perSec, false) }

func newGroupRigMode(parts, perSec int, aligned bool) *groupRig {
	return newGroupRigOf(seedWindows, parts, perSec, aligned)
}

// newGroupRigOf is a rig of the given windows.
func newGroupRigOf(windows []rolling.Window, parts, perSec int, aligned bool) *groupRig {
	keys := make(keyNames, parts)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("host-%04d", i))
	}
	plan, err := NewPlan(benchSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(200 * time.Millisecond)), Aligned: aligned},
		&Key{Name: "host", Kind: schema.String}, nil)
	if err != nil {
		panic(err)
	}
	r := &groupRig{g: plan.NewGroup(keys), plan: plan, tab: schema.NewTable(benchSchema),
		out: schema.NewTable(plan.Schema()), step: int64(time.Second) / int64(perSec), parts: parts}
	for p := range parts {
		r.part = append(r.part, int32(p))
	}
	return r
}

// tick pushes one row per partition at the next time.
func (r *groupRig) tick() {
	table.Reset(r.tab)
	table.Reset(r.out)
	for p := range r.parts {
		table.Column(r.tab, 0).AppendTime(r.t)
		table.Column(r.tab, 1).AppendNum(0.5 + 0.1*math.Sin(float64(r.t/r.step+int64(p))))
		table.Column(r.tab, 2).AppendNum(float64(70 + p%61))
	}
	r.plan.Bind(&r.in, r.tab, nil)
	r.in.SetSorted(r.sorted)
	r.g.Push(&r.in, r.part, r.out)
	r.t += r.step
}

// groupTicks pushes n batches of the rig. It is a function of its own so
// that a tool counting instructions can count its calls alone (valgrind
// --tool=callgrind --toggle-collect='*groupTicks*').
//
//go:noinline
func groupTicks(r *groupRig, n int) {
	for range n {
		r.tick()
	}
}

// BenchmarkGroupTick measures the partitioned two-window rolling alone
// (no series around it) in steady state: one op is one batch of one row
// per partition. At one row a second (N=1) every batch crosses one
// boundary and every partition takes one row a tick, as the hosts of
// BenchmarkSeedHosts do: P=1000 against P=100000 is the cost of the
// partitions' state leaving the cache.
func BenchmarkGroupTick(b *testing.B) {
	for _, c := range []struct {
		parts, perSec int
		aligned       bool
	}{{10, 1000, false}, {1000, 10, false}, {1000, 100, false}, {10, 1000, true}, {1000, 10, true}, {1000, 100, true},
		{1000, 1, false}, {100000, 1, false}} {
		b.Run(fmt.Sprintf("P=%d/N=%d/aligned=%v", c.parts, c.perSec, c.aligned), func(b *testing.B) {
			r := newGroupRigMode(c.parts, c.perSec, c.aligned)
			for range 61 * c.perSec { // fill the 1m windows
				r.tick()
			}
			b.ReportAllocs()
			// On one thread, so that callgrind, which follows each
			// thread's calls, counts every groupTicks call whole.
			allocs.LockThread()
			defer runtime.UnlockOSThread()
			for b.Loop() {
				groupTicks(r, 1)
			}
			rows := float64(b.N * c.parts)
			b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
		})
	}
}

// TestGroupTickDoesNotAllocate guards the zero-allocation claim of the
// partitioned rolling: 1000 partitions, two windows, eleven reducers, a
// 200 ms clock, in steady state (windows full and evicting), ticks and
// emissions included, counted exactly over 70 s of stream: long enough
// for every deque to move its tail into a new block and free its head
// block more than once, all partitions at the same tick.
func TestGroupTickDoesNotAllocate(t *testing.T) {
	r := newGroupRig(1000, 10)
	for range 140 * 10 {
		r.tick()
	}
	if n := allocs.Count(70*10, r.tick); n != 0 {
		t.Fatalf("%d allocations over 700 batches of 1000 rows in steady state", n)
	}
}

// spreadRig is a partitioned rolling fed the way hosts that report once a
// second each report: partition p's row at p%100 × 10 ms into each
// second, one batch every 10 ms. Under the 200 ms clock a partition
// takes a row at one tick of five, its 200 ms window drops it at the
// next, and at the three others nothing enters or leaves its windows.
type spreadRig struct {
	*groupRig
	batch int // batches pushed
}

func newSpreadRig(parts int) *spreadRig {
	r := &spreadRig{groupRig: newGroupRig(parts, 100)}
	return r
}

// next pushes the next 10 ms batch: the partitions whose phase it is.
func (r *spreadRig) next() {
	table.Reset(r.tab)
	table.Reset(r.out)
	r.part = r.part[:0]
	for p := r.batch % 100; p < r.parts; p += 100 {
		table.Column(r.tab, 0).AppendTime(r.t)
		table.Column(r.tab, 1).AppendNum(0.5 + 0.1*math.Sin(float64(r.batch/100+p)))
		table.Column(r.tab, 2).AppendNum(float64(70 + p%61))
		r.part = append(r.part, int32(p))
	}
	r.plan.Bind(&r.in, r.tab, nil)
	r.g.Push(&r.in, r.part, r.out)
	r.t += r.step
	r.batch++
}

// spreadSeconds pushes n seconds of the spread stream. It is a function
// of its own so that a tool counting instructions can count its calls
// alone (valgrind --tool=callgrind --toggle-collect='*spreadSeconds*').
//
//go:noinline
func spreadSeconds(r *spreadRig, n int) {
	for range 100 * n {
		r.next()
	}
}

// BenchmarkGroupSpread measures the partitioned two-window rolling alone
// with each partition reporting once a second, spread over the second
// (see spreadRig), in steady state: one op is one second of stream, P
// rows and five ticks of every partition, three of them with nothing
// entering or leaving its windows.
func BenchmarkGroupSpread(b *testing.B) {
	for _, parts := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("P=%d", parts), func(b *testing.B) {
			r := newSpreadRig(parts)
			for range 100 * 61 { // fill the 1m windows
				r.next()
			}
			b.ReportAllocs()
			for b.Loop() {
				spreadSeconds(r, 1)
			}
			b.ReportMetric(float64(b.N*parts)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(5*b.N*parts), "ns/tick")
		})
	}
}

// KeyStrs gives a run's string keys at once, as the partition router
// does (StrKeys).
func (k keyNames) KeyStrs(keys []string, parts []int32) bool {
	for i, p := range parts {
		s, ok := k[p].Str()
		if !ok {
			return false
		}
		keys[i] = s
	}
	return true
}

// BenchmarkGroupTickSplit measures how well a tick split over two
// workers uses the second core, against two groups that share nothing,
// in steady state (one op is one batch of one row per partition; a tick
// every second batch at N=10, every twentieth at N=100):
//
//   - split=none: one group, no workers;
//   - split=tick: one group with two workers, every tick split over them
//     (no rows handed over between ticks), as a series with
//     live.Options.Workers = 2 does where its ticks are close;
//   - split=halves: two groups of half the partitions each, each fed its
//     own half of every batch on its own goroutine, the two meeting after
//     every batch: a split with nothing shared, the most two cores can
//     give this work.
//
// rows/s counts the rows of every group; compare the three within one
// run (BENCH.md, "Session 34: what a split tick shares").
func BenchmarkGroupTickSplit(b *testing.B) {
	for _, c := range []struct{ parts, perSec int }{{1000, 10}, {1000, 100}} {
		name := fmt.Sprintf("P=%d/N=%d", c.parts, c.perSec)
		b.Run(name+"/split=none", func(b *testing.B) { benchTickSplit(b, c.parts, c.perSec, 1) })
		b.Run(name+"/split=tick", func(b *testing.B) { benchTickSplit(b, c.parts, c.perSec, 2) })
		b.Run(name+"/split=halves", func(b *testing.B) { benchTickHalves(b, c.parts, c.perSec) })
	}
}

func benchTickSplit(b *testing.B, parts, perSec, w int) {
	defer SetHandOffRows(SetHandOffRows(1 << 30))
	defer workers.SetGateForce(workers.SetGateForce(1))
	r := newGroupRig(parts, perSec)
	if w > 1 {
		p := workers.New(w)
		defer p.Close()
		r.g.SetWorkers(p)
	}
	for range 61 * perSec { // fill the 1m windows
		r.tick()
	}
	b.ReportAllocs()
	for b.Loop() {
		groupTicks(r, 1)
	}
	b.ReportMetric(float64(b.N*parts)/b.Elapsed().Seconds(), "rows/s")
}

func benchTickHalves(b *testing.B, parts, perSec int) {
	rs := [2]*groupRig{newGroupRig(parts/2, perSec), newGroupRig(parts-parts/2, perSec)}
	for _, r := range rs {
		for range 61 * perSec {
			r.tick()
		}
	}
	b.ReportAllocs()
	var done atomic.Int64 // batches both halves have pushed, counted once each
	n := b.N
	half := func(r *groupRig) {
		for i := 1; i <= n; i++ {
			r.tick()
			done.Add(1)
			for spins := 0; done.Load() < int64(2*i); spins++ {
				if spins%1024 == 1023 {
					runtime.Gosched()
				}
			}
		}
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		half(rs[1])
	}()
	half(rs[0])
	wg.Wait()
	b.ReportMetric(float64(n*parts)/b.Elapsed().Seconds(), "rows/s")
}
