package benchmarks

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

// seedConfigs are the five configurations of docs/workload.md.
var seedConfigs = []struct{ P, N, Secs int }{
	{10, 1000, 70}, {1000, 10, 70}, {100, 1000, 70}, {1000, 100, 70}, {1000, 1000, 8},
}

var streams = map[[3]int]*SeedStream{}

func stream(p, n, secs int) *SeedStream {
	k := [3]int{p, n, secs}
	if s, ok := streams[k]; ok {
		return s
	}
	s := NewSeedStream(p, n, secs)
	streams[k] = s
	return s
}

// BenchmarkSeed runs the seed pipeline over the whole stream of each
// configuration (one op is one full run) and, separately, over its steady
// phase: the pushes from 63 s on, when the 1m windows have filled, evict
// on every tick and have given back their first blocks, so that blocks
// are recycled rather than allocated (one op is the steady part of a run;
// the warm-up is not timed).
//
// The steady phase of the two configurations of 10,000 rows a second
// streams 130 s, not 70: seven seconds of their stream are 70,000 rows,
// about 3 ms of pushes, less than one step of the thread clock that
// cpu-ns/row reads on some machines (4 ms), so each op read 0 or 4 ms.
// From 63 to 130 s they time 670,000 rows, as many as the larger
// configurations' 63–70 s.
func BenchmarkSeed(b *testing.B) {
	for _, c := range seedConfigs {
		name := fmt.Sprintf("P=%d/N=%d", c.P, c.N)
		b.Run(name+"/phase=whole", func(b *testing.B) { benchSeed(b, stream(c.P, c.N, c.Secs), 0) })
		if c.Secs > 60 {
			b.Run(name+"/phase=steady", func(b *testing.B) { benchSeed(b, stream(c.P, c.N, steadySecs(c.P, c.N, c.Secs)), 63) })
		}
	}
}

// steadySecs is how many seconds of stream BenchmarkSeed's steady phase
// pushes: secs, or 130 when the stream has at most 10,000 rows a second.
func steadySecs(p, n, secs int) int {
	if p*n <= 10_000 {
		return max(secs, 130)
	}
	return secs
}

// BenchmarkSeedAligned is BenchmarkSeed's steady phase (130 s of stream
// at 10,000 rows a second, see steadySecs) with both rollings
// aligned (NewSeedAlignedPipeline), beside the default mode's, plus the
// state the partitioned rolling holds per partition at the end of the
// run (state-B/partition: its panes, raw rows and structures, the root's
// retention excluded).
func BenchmarkSeedAligned(b *testing.B) {
	for _, c := range []struct{ P, N, Secs int }{{100, 100, 70}, {100, 1000, 70}, {1000, 100, 70}, {1000, 10, 70}} {
		name := fmt.Sprintf("P=%d/N=%d", c.P, c.N)
		st := func() *SeedStream { return stream(c.P, c.N, steadySecs(c.P, c.N, c.Secs)) }
		b.Run(name+"/mode=aligned", func(b *testing.B) {
			benchSeedWith(b, st(), 63, NewSeedAlignedPipeline)
		})
		b.Run(name+"/mode=default", func(b *testing.B) {
			benchSeedWith(b, st(), 63, NewSeedPipeline)
		})
	}
}

var timedCtx = pprof.WithLabels(context.Background(), pprof.Labels("phase", "timed"))

func benchSeed(b *testing.B, st *SeedStream, warmSecs int) {
	benchSeedWith(b, st, warmSecs, NewSeedPipeline)
}

func benchSeedWith(b *testing.B, st *SeedStream, warmSecs int, build func() (*SeedPipeline, error)) {
	r := runSeed(b, st, warmSecs, build)
	runs := float64(b.N)
	b.ReportMetric(float64(r.rows)*runs/r.total.Seconds(), "rows/s")
	// The pushing thread's CPU time per row: on a shared machine, wall
	// time counts the time other processes hold the core. It counts the
	// calling thread only, so with more than one worker it leaves out the
	// others' share: read rows/s there.
	b.ReportMetric(float64(r.cpu.Nanoseconds())/(float64(r.rows)*runs), "cpu-ns/row")
	b.ReportMetric(float64(r.bytes)/(float64(r.rows)*runs), "B/row")
	b.ReportMetric(float64(r.allocs)/(float64(r.rows)*runs), "allocs/row")
	if held, err := r.last.Series.NodeBytes(r.last.Hosts); err == nil {
		b.ReportMetric(float64(held)/float64(st.P), "state-B/partition")
	}
	r.last.Series.Close()
}

// seedRun is what runSeed measured over all of a benchmark's runs.
type seedRun struct {
	rows    int // input rows of one run's timed part
	outRows int // rows emitted during the timed parts, all runs
	total   time.Duration
	cpu     time.Duration // the pushing thread's CPU time
	allocs  uint64
	bytes   uint64
	last    *SeedPipeline // the last run's pipeline, after its last push
}

// runSeed runs the benchmark's loop: per run, a pipeline is built and
// fed the first warmSecs seconds of the stream untimed, then the rest
// timed, under the pprof label phase=timed. The pipelines of earlier runs
// are closed; the last one is the caller's to close.
func runSeed(b *testing.B, st *SeedStream, warmSecs int, build func() (*SeedPipeline, error)) seedRun {
	warm := warmSecs * st.N
	timed := st.Batches[warm:]
	var r seedRun
	for _, x := range timed {
		r.rows += x.Len()
	}
	var out []live.Output
	var ms runtime.MemStats
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if r.last != nil {
			r.last.Series.Close()
			r.last = nil
		}
		var p *SeedPipeline
		p, out = warmed(b, build, st.Batches[:warm], out)
		feed := st.Feed(warm)
		// The thread is locked before the count starts (see
		// allocs.LockThread).
		allocs.LockThread()
		// Collect the previous runs' pipelines now, not inside the timed
		// loop: a long-running process has no such garbage.
		runtime.GC()
		runtime.ReadMemStats(&ms)
		a0, m0 := ms.Mallocs, ms.TotalAlloc
		var emitted int
		var err error
		start, c0 := time.Now(), threadCPU()
		b.StartTimer()
		// The label lets a CPU profile keep the timed pushes only:
		// go tool pprof -tagfocus phase=timed.
		pprof.SetGoroutineLabels(timedCtx)
		out, emitted, err = pushTimed(p, feed, out)
		if err != nil {
			b.Fatal(err)
		}
		pprof.SetGoroutineLabels(context.Background())
		b.StopTimer()
		r.total += time.Since(start)
		r.cpu += threadCPU() - c0
		runtime.UnlockOSThread()
		runtime.ReadMemStats(&ms)
		r.allocs += ms.Mallocs - a0
		r.bytes += ms.TotalAlloc - m0
		r.outRows += emitted
		r.last = p
		b.StartTimer()
	}
	return r
}

// warmed builds a pipeline and pushes batches into it through out,
// failing tb if either fails. It returns the pipeline and out, grown to
// hold a push's outputs, so that the pushes after do not grow it.
func warmed(tb testing.TB, build func() (*SeedPipeline, error), batches []*schema.Batch, out []live.Output) (*SeedPipeline, []live.Output) {
	tb.Helper()
	p, err := build()
	if err != nil {
		tb.Fatal(err)
	}
	for _, x := range batches {
		if out, err = p.Series.PushMany(out[:0], x); err != nil {
			p.Series.Close()
			tb.Fatal(err)
		}
	}
	return p, out
}

// pushTimed pushes the timed batches and counts the rows emitted. It is a
// function of its own so that a tool counting instructions can count its
// calls alone (valgrind --tool=callgrind --toggle-collect='*pushTimed*').
//
//go:noinline
func pushTimed(p *SeedPipeline, timed *Feed, out []live.Output) ([]live.Output, int, error) {
	emitted := 0
	for x, ok := timed.Next(); ok; x, ok = timed.Next() {
		var err error
		if out, err = p.Series.PushMany(out[:0], x); err != nil {
			return out, emitted, err
		}
		for _, o := range out {
			emitted += o.Events.Len()
		}
	}
	return out, emitted, nil
}

// BenchmarkSeedWorkers is BenchmarkSeed's steady phase (the same
// streams, see steadySecs) on a series with one, two and four workers (live.Options.Workers), in default and aligned
// mode. The rows are the same at every worker count; compare rows/s
// within one run.
func BenchmarkSeedWorkers(b *testing.B) {
	for _, c := range []struct{ P, N, Secs int }{{1000, 100, 70}, {100, 1000, 70}, {1000, 10, 70}} {
		for _, aligned := range []bool{false, true} {
			mode := "default"
			if aligned {
				mode = "aligned"
			}
			for _, w := range []int{1, 2, 4} {
				name := fmt.Sprintf("P=%d/N=%d/mode=%s/workers=%d", c.P, c.N, mode, w)
				b.Run(name, func(b *testing.B) {
					benchSeedWith(b, stream(c.P, c.N, steadySecs(c.P, c.N, c.Secs)), 63, func() (*SeedPipeline, error) {
						return NewSeedPipelineWith(aligned, w)
					})
				})
			}
		}
	}
}
