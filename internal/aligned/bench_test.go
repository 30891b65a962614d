package aligned

import (
	"fmt"
	"math"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// seedGroup builds the aligned group of the seed workload's partitioned
// rolling: a 1m window (avg, stdev and count of cpu; avg, sum and count
// of requests) and a 200ms window (samples, min, max, avg and stdev of
// cpu) on a 200ms clock, both columns required (slot 1 cpu, slot 2
// requests), and the table it emits into.
func seedGroup(tb testing.TB) (*Group, *schema.Table) {
	tb.Helper()
	p, err := NewPlan(Spec{
		Step: 200 * ms, Kinds: []schema.Kind{schema.Number, schema.Number}, Required: []bool{true, true},
		Windows: []Window{
			{Span: 60_000 * ms, Aggs: []Agg{
				{Slot: 1, Using: reduce.Avg}, {Slot: 1, Using: reduce.Stdev}, {Slot: 0, Using: reduce.Count},
				{Slot: 2, Using: reduce.Avg}, {Slot: 2, Using: reduce.Sum}, {Slot: 0, Using: reduce.Count},
			}},
			{Span: 200 * ms, Aggs: []Agg{
				{Slot: 1, Using: reduce.Samples}, {Slot: 1, Using: reduce.Min}, {Slot: 1, Using: reduce.Max},
				{Slot: 1, Using: reduce.Avg}, {Slot: 1, Using: reduce.Stdev},
			}},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for i, k := range []schema.Kind{schema.Number, schema.Number, schema.Number, schema.Number, schema.Number, schema.Number,
		schema.Array, schema.Number, schema.Number, schema.Number, schema.Number} {
		cols = append(cols, schema.Column{Name: fmt.Sprintf("o%d", i), Kind: k, Optional: true})
	}
	return p.NewGroup(nil, 1, 0), schema.NewTable(schema.MustNew(cols...))
}

// seedBatches returns one tick's rows of P partitions at n events per
// second, for secs seconds: every tick's rows share a time, partition h's
// row is row h.
type seedFeed struct {
	p, n  int
	parts []int32
	times []int64
	enc   [][]uint64
}

func newSeedFeed(p, n int) *seedFeed {
	f := &seedFeed{p: p, n: n, parts: make([]int32, p), times: make([]int64, p), enc: [][]uint64{make([]uint64, p), make([]uint64, p)}}
	for h := range f.parts {
		f.parts[h] = int32(h)
	}
	return f
}

// push pushes tick i.
func (f *seedFeed) push(g *Group, out *schema.Table, i int) {
	t := int64(i) * int64(time.Second) / int64(f.n)
	for h := range f.p {
		f.times[h] = t
		f.enc[0][h] = math.Float64bits(0.5 + 0.001*float64((i*7+h*13)%100))
		f.enc[1][h] = math.Float64bits(float64(70 + (i+h)%61))
	}
	table.Reset(out)
	g.Push(&Rows{Times: f.times, Enc: f.enc}, f.parts, out)
}

// pushTimed pushes ticks [from, to). It is a function of its own so that
// a tool counting instructions can count its calls alone (valgrind
// --tool=callgrind --toggle-collect='*pushTimed*').
//
//go:noinline
func (f *seedFeed) pushTimed(g *Group, out *schema.Table, from, to int) {
	for i := from; i < to; i++ {
		f.push(g, out, i)
	}
}

// BenchmarkGroupSeed pushes the seed workload's rows straight into the
// aligned group (no series around it): 61 s of warm-up, then 7 s timed.
func BenchmarkGroupSeed(b *testing.B) {
	for _, c := range []struct{ P, N int }{{1000, 100}, {100, 1000}} {
		b.Run(fmt.Sprintf("P=%d/N=%d", c.P, c.N), func(b *testing.B) {
			f := newSeedFeed(c.P, c.N)
			warm, timed := 61*c.N, 7*c.N
			var total, cpu time.Duration
			allocs.LockThread()
			defer runtime.UnlockOSThread()
			for b.Loop() {
				b.StopTimer()
				g, out := seedGroup(b)
				for i := range warm {
					f.push(g, out, i)
				}
				start, c0 := time.Now(), threadCPU()
				b.StartTimer()
				f.pushTimed(g, out, warm, warm+timed)
				b.StopTimer()
				total += time.Since(start)
				cpu += threadCPU() - c0
				b.StartTimer()
			}
			b.ReportMetric(float64(timed*c.P*b.N)/total.Seconds(), "rows/s")
			// The thread's CPU time per row: what a shared machine's
			// descheduling does not inflate.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(timed*c.P*b.N), "cpu-ns/row")
		})
	}
}

// threadCPU returns the calling thread's CPU time (user and system).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGroupSeedState streams 61 s of the seed workload into the
// aligned group at several rates and reports, per partition, what the
// group holds (state-B), and the parts of it: the raw rows the 200ms
// window's samples keep, in the window or in the open step's records
// (samples-B: by definition N/5 values), and the
// pane rings (panes-B, which do not depend on the rate). One op is one
// run; use -benchtime 1x.
func BenchmarkGroupSeedState(b *testing.B) {
	for _, c := range []struct{ P, N int }{{100, 100}, {100, 1000}, {100, 10000}} {
		b.Run(fmt.Sprintf("P=%d/N=%d", c.P, c.N), func(b *testing.B) {
			for b.Loop() {
				g, out := seedGroup(b)
				f := newSeedFeed(c.P, c.N)
				for i := range 61 * c.N {
					f.push(g, out, i)
				}
				raw, panes := 0, 0
				for _, r := range g.st.raw {
					raw += 8 * cap(r) // the open step's raw values
				}
				for _, pt := range g.parts {
					for w := range pt.wins {
						raw += pt.wins[w].raw.bytes()
						panes += 8*cap(pt.wins[w].ring) + 4*cap(pt.wins[w].cring)
					}
				}
				b.ReportMetric(float64(g.Bytes())/float64(c.P), "state-B/partition")
				b.ReportMetric(float64(raw)/float64(c.P), "samples-B/partition")
				b.ReportMetric(float64(panes)/float64(c.P), "panes-B/partition")
			}
		})
	}
}
