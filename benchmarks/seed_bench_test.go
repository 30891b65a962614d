package benchmarks

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
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
func BenchmarkSeed(b *testing.B) {
	for _, c := range seedConfigs {
		name := fmt.Sprintf("P=%d/N=%d", c.P, c.N)
		b.Run(name+"/phase=whole", func(b *testing.B) { benchSeed(b, stream(c.P, c.N, c.Secs), 0) })
		if c.Secs > 60 {
			b.Run(name+"/phase=steady", func(b *testing.B) { benchSeed(b, stream(c.P, c.N, c.Secs), 63) })
		}
	}
}

// BenchmarkSeedAligned is BenchmarkSeed's steady phase with both rollings
// aligned (NewSeedAlignedPipeline), beside the default mode's, plus the
// state the partitioned rolling holds per partition at the end of the
// run (state-B/partition: its panes, raw rows and structures, the root's
// retention excluded).
func BenchmarkSeedAligned(b *testing.B) {
	for _, c := range []struct{ P, N, Secs int }{{100, 100, 70}, {100, 1000, 70}, {1000, 100, 70}, {1000, 10, 70}} {
		name := fmt.Sprintf("P=%d/N=%d", c.P, c.N)
		b.Run(name+"/mode=aligned", func(b *testing.B) {
			benchSeedWith(b, stream(c.P, c.N, c.Secs), 63, NewSeedAlignedPipeline)
		})
		b.Run(name+"/mode=default", func(b *testing.B) {
			benchSeedWith(b, stream(c.P, c.N, c.Secs), 63, NewSeedPipeline)
		})
	}
}

var timedCtx = pprof.WithLabels(context.Background(), pprof.Labels("phase", "timed"))

func benchSeed(b *testing.B, st *SeedStream, warmSecs int) {
	benchSeedWith(b, st, warmSecs, NewSeedPipeline)
}

func benchSeedWith(b *testing.B, st *SeedStream, warmSecs int, build func() (*SeedPipeline, error)) {
	warm := warmSecs * st.N
	timed := st.Batches[warm:]
	rows := 0
	for _, x := range timed {
		rows += x.Len()
	}
	var out []live.Output
	var total, cpu time.Duration
	var allocs, bytes uint64
	var ms runtime.MemStats
	var last *SeedPipeline
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if last != nil {
			last.Series.Close()
		}
		p, err := build()
		if err != nil {
			b.Fatal(err)
		}
		last = p
		for _, x := range st.Batches[:warm] {
			out, _ = p.Series.PushMany(out[:0], x)
		}
		// Collect the previous runs' pipelines now, not inside the timed
		// loop: a long-running process has no such garbage.
		runtime.GC()
		runtime.ReadMemStats(&ms)
		a0, m0 := ms.Mallocs, ms.TotalAlloc
		runtime.LockOSThread()
		start, c0 := time.Now(), threadCPU()
		b.StartTimer()
		// The label lets a CPU profile keep the timed pushes only:
		// go tool pprof -tagfocus phase=timed.
		pprof.SetGoroutineLabels(timedCtx)
		for _, x := range timed {
			if out, err = p.Series.PushMany(out[:0], x); err != nil {
				b.Fatal(err)
			}
		}
		pprof.SetGoroutineLabels(context.Background())
		b.StopTimer()
		total += time.Since(start)
		cpu += threadCPU() - c0
		runtime.UnlockOSThread()
		runtime.ReadMemStats(&ms)
		allocs += ms.Mallocs - a0
		bytes += ms.TotalAlloc - m0
		b.StartTimer()
	}
	runs := float64(b.N)
	b.ReportMetric(float64(rows)*runs/total.Seconds(), "rows/s")
	// The pushing thread's CPU time per row: on a shared machine, wall
	// time counts the time other processes hold the core. It counts the
	// calling thread only, so with more than one worker it leaves out the
	// others' share: read rows/s there.
	b.ReportMetric(float64(cpu.Nanoseconds())/(float64(rows)*runs), "cpu-ns/row")
	b.ReportMetric(float64(bytes)/(float64(rows)*runs), "B/row")
	b.ReportMetric(float64(allocs)/(float64(rows)*runs), "allocs/row")
	if held, err := last.Series.NodeBytes(last.Hosts); err == nil {
		b.ReportMetric(float64(held)/float64(st.P), "state-B/partition")
	}
	last.Series.Close()
}

// BenchmarkSeedWorkers is BenchmarkSeed's steady phase on a series with
// one, two and four workers (live.Options.Workers), in default and aligned
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
					benchSeedWith(b, stream(c.P, c.N, c.Secs), 63, func() (*SeedPipeline, error) {
						return NewSeedPipelineWith(aligned, w)
					})
				})
			}
		}
	}
}
