package benchmarks

import (
	"runtime"
	"testing"

	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/live"
)

// seedMemory runs the seed pipeline over a whole stream and returns the
// live heap it holds at the end (after a collection, the stream itself
// excluded) and the bytes the root holds per row it retains.
func seedMemory(st *SeedStream) (heap uint64, rootPerRow float64, err error) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	p, err := NewSeedPipeline()
	if err != nil {
		return 0, 0, err
	}
	var out []live.Output
	for _, b := range st.Batches {
		if out, err = p.Series.PushMany(out[:0], b); err != nil {
			return 0, 0, err
		}
	}
	out = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap = ms.HeapAlloc - before
	// The root's storage alone: HeldBytes also counts the table of the
	// hosts' names (intern.BytesPerString a name).
	rootPerRow = float64(p.Series.HeldBytes()-intern.BytesPerString*st.P) / float64(p.Series.Len())
	runtime.KeepAlive(p)
	return heap, rootPerRow, nil
}

// BenchmarkSeedMemory reports the live heap of the seed pipeline after the
// whole 70 s at 1000 hosts × 100 events/s, and the root's bytes per
// retained row. Run it with -benchtime 1x.
func BenchmarkSeedMemory(b *testing.B) {
	st := stream(1000, 100, 70)
	for b.Loop() {
		heap, perRow, err := seedMemory(st)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heap)/1e6, "heap-MB")
		b.ReportMetric(perRow, "root-B/row")
	}
}

// TestSeedMemoryBound checks the memory targets of the seed workload at
// 1000 × 100 over 70 s: at most 260 MB of live heap, at most 40 bytes per
// row retained by the root. It builds a 7M-row stream, so it runs with
// -all-answers only.
func TestSeedMemoryBound(t *testing.T) {
	if !*allAnswers {
		t.Skip("large configuration: run with -all-answers")
	}
	heap, perRow, err := seedMemory(stream(1000, 100, 70))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("live heap %.1f MB, root %.1f B/row", float64(heap)/1e6, perRow)
	if heap > 260e6 {
		t.Errorf("live heap %.1f MB, over 260 MB", float64(heap)/1e6)
	}
	if perRow > 40 {
		t.Errorf("root holds %.1f bytes per row, over 40", perRow)
	}
}
