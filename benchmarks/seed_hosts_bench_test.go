package benchmarks

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/intern"
)

// hostsConfigs are BenchmarkSeedHosts' partition counts: 100,000 rows per
// second in total, N = 100000/P per host.
var hostsConfigs = []int{1000, 10000, 100000}

// BenchmarkSeedHosts runs the seed pipeline, unchanged, at a fixed
// 100,000 rows per second in total spread over P hosts (N = 100000/P
// events per second per host; at P = 100,000 one batch a second of
// 100,000 rows), over the steady phase of a 70 s stream: the pushes from
// 63 s on, as BenchmarkSeed's phase=steady. It reports, over the timed
// pushes:
//
//   - rows/s and ns/row: input rows;
//   - ns/out: per input row plus emitted row (the partitioned rolling
//     emits one row per host per 200 ms, so at many hosts and few events
//     per host the emitted rows outnumber the input), and cpu-ns/out, the
//     same from the pushing thread's CPU time;
//   - cpu-ns/row: the pushing thread's CPU time per input row, which
//     other processes on the machine do not inflate as they do ns/row;
//   - allocs/row: heap allocations per input row, counted for the whole
//     process: a run at 1,000 hosts now and then reads one allocation
//     (about 1.4e-6 a row) that is the runtime's, not the pipeline's —
//     its background scavenger, giving the memory freed before the
//     timed pushes back to the system, grows its timer heap (a memory
//     profile shows the stack). Giving the memory back before timing
//     (debug.FreeOSMemory) removed it but slowed the timed pushes by
//     about a sixth. TestSeedHostsSteadyDoesNotAllocate counts the
//     pushes' own allocations exactly;
//
// and, for the last run's pipeline after its last push:
//
//   - B/partition: the live heap the pipeline holds beyond its rows, per
//     partition. The pipeline's live heap is measured by collecting it
//     (heap after a collection with the pipeline held, minus heap after a
//     collection once it is dropped); from it are taken the root's
//     storage (Series.HeldBytes, reported per row as root-B/row) and the
//     rows the partitioned rolling holds, at 24 bytes a row (the time,
//     cpu and requests, 8 bytes each): every row of the stream not older
//     than the last tick's cut minus 1m, whether already in its host's
//     deque or still buffered for the next tick. What is left is the
//     per-partition cost: engines and window states, deque slack and
//     spare blocks, extreme deques, routing tables, partition rings,
//     interned host names, tick buffers and output tables.
//
// Run it with -benchtime 1x or 2x: one run at 100,000 hosts builds and
// warms a pipeline over 6.3 million rows.
func BenchmarkSeedHosts(b *testing.B) {
	for _, p := range hostsConfigs {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			benchSeedHosts(b, stream(p, 100000/p, 70))
		})
	}
}

// BenchmarkSeedHostsRate is BenchmarkSeedHosts at 1,000 hosts and other
// rates, N events a second a host: its B/partition splits into what a
// partition costs whatever its rate and what grows with the rows it gets
// between two ticks (N/5 under the 200 ms clock): the tick's sorted
// indices, 2 bytes a
// row (4-byte links at up to 4 rows a host, N ≤ 20), the samples of the
// 200 ms window in the output kept for the next tick, 8 bytes a row, and
// the room beside them. Only B/partition is meant to be read
// from it; it measures deterministically, so -benchtime 1x will do.
func BenchmarkSeedHostsRate(b *testing.B) {
	for _, n := range []int{5, 10, 20, 50, 100, 200} {
		b.Run(fmt.Sprintf("P=1000/N=%d", n), func(b *testing.B) {
			benchSeedHosts(b, stream(1000, n, 70))
		})
	}
}

func benchSeedHosts(b *testing.B, st *SeedStream) {
	r := runSeed(b, st, 63, NewSeedPipeline)
	runs := float64(b.N)
	in := float64(r.rows) * runs
	ns := float64(r.total.Nanoseconds())
	b.ReportMetric(in/r.total.Seconds(), "rows/s")
	b.ReportMetric(ns/in, "ns/row")
	b.ReportMetric(ns/(in+float64(r.outRows)), "ns/out")
	// The same from the pushing thread's CPU time, which other processes
	// on a shared machine do not inflate.
	b.ReportMetric(float64(r.cpu.Nanoseconds())/(in+float64(r.outRows)), "cpu-ns/out")
	b.ReportMetric(float64(r.cpu.Nanoseconds())/in, "cpu-ns/row")
	b.ReportMetric(float64(r.allocs)/in, "allocs/row")

	b.StopTimer()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	with := ms.HeapAlloc
	// HeldBytes counts the table of the distinct strings the series
	// holds, about 32 bytes a string (here the P host names); B/partition
	// has always counted them as the partitions' (interning), so the
	// root's storage alone is taken out here, and root-B/row is its.
	root, rootRows := r.last.Series.HeldBytes()-intern.BytesPerString*st.P, r.last.Series.Len()
	r.last = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	pipeline := int64(with) - int64(ms.HeapAlloc)
	beyond := pipeline - int64(root) - 24*int64(windowRows(st, time.Minute))
	b.ReportMetric(float64(beyond)/float64(st.P), "B/partition")
	b.ReportMetric(float64(root)/float64(rootRows), "root-B/row")
}

// windowRows returns the rows of st a span-long window holds after the
// whole stream under the seed pipeline's 200 ms clock: those not older
// than the last tick's cut (the time of the last row that crossed a
// boundary) minus span.
func windowRows(st *SeedStream, span time.Duration) int {
	const step = int64(200 * time.Millisecond)
	var cut int64
	prev := int64(-1)
	for _, x := range st.Batches {
		t := x.Time[0]
		if bk := t - t%step; prev >= 0 && bk != prev {
			cut = t
		}
		prev = t - t%step
	}
	n := 0
	for _, x := range st.Batches {
		if x.Time[0] >= cut-int64(span) {
			n += x.Len()
		}
	}
	return n
}
