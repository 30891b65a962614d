package benchmarks

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
)

// pairedSides are BenchmarkSeedPaired's comparisons, each side a
// pipeline builder.
var pairedSides = []struct {
	name string
	a, b func() (*SeedPipeline, error)
}{
	{"aligned-vs-default", NewSeedAlignedPipeline, NewSeedPipeline},
	{"workers2-vs-workers1", func() (*SeedPipeline, error) { return NewSeedPipelineWith(false, 2) }, NewSeedPipeline},
	{"aligned-workers2-vs-workers1", func() (*SeedPipeline, error) { return NewSeedPipelineWith(true, 2) }, NewSeedAlignedPipeline},
}

// BenchmarkSeedPaired times two pipelines' steady phases (as
// BenchmarkSeed's: the pushes from 63 s on) one after the other in the
// same process, their order swapped at every op, and reports each side's
// rows/s (a-rows/s, b-rows/s) and a/b, the ratio of their rows/s over all
// ops. Two benchmarks in two processes, as benchstat compares them, mix
// the speeds the processes happened to run at into the ratio; paired,
// both sides share a process, and the drift within it falls on both
// alike. Processes still differ (on this machine the ratio of one
// process's six ops spread by about ±10 % from process to process):
// read the median of several. The comparisons are the ratios BENCH.md's
// targets are set in: aligned ÷ default mode, and two workers ÷ one in
// either mode. Use -benchtime 4x or more: every op builds and warms both
// pipelines.
func BenchmarkSeedPaired(b *testing.B) {
	for _, c := range []struct{ P, N int }{{1000, 100}, {1000, 10}, {100, 1000}} {
		st := stream(c.P, c.N, steadySecs(c.P, c.N, 70))
		for _, side := range pairedSides {
			b.Run(fmt.Sprintf("P=%d/N=%d/%s", c.P, c.N, side.name), func(b *testing.B) {
				benchPaired(b, st, side.a, side.b)
			})
		}
	}
}

func benchPaired(b *testing.B, st *SeedStream, a, bb func() (*SeedPipeline, error)) {
	warm := 63 * st.N
	rows := 0
	for _, x := range st.Batches[warm:] {
		rows += x.Len()
	}
	var took [2]time.Duration
	var out []live.Output
	op := 0
	for b.Loop() {
		b.StopTimer()
		order := [2]int{0, 1}
		if op%2 == 1 {
			order = [2]int{1, 0}
		}
		op++
		for _, side := range order {
			build := a
			if side == 1 {
				build = bb
			}
			var p *SeedPipeline
			p, out = warmed(b, build, st.Batches[:warm], out)
			runtime.GC()
			start := time.Now()
			b.StartTimer()
			var err error
			out, _, err = pushTimed(p, st.Feed(warm), out)
			b.StopTimer()
			took[side] += time.Since(start)
			p.Series.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
	n := float64(rows) * float64(b.N)
	ra, rb := n/took[0].Seconds(), n/took[1].Seconds()
	b.ReportMetric(ra, "a-rows/s")
	b.ReportMetric(rb, "b-rows/s")
	b.ReportMetric(ra/rb, "a/b")
}

// TestBenchPairedReportsBothSidesAndTheirRatio runs benchPaired on a small
// stream: both sides' rows/s are reported and a/b is their ratio.
func TestBenchPairedReportsBothSidesAndTheirRatio(t *testing.T) {
	st := NewSeedStream(4, 10, 70)
	r := bt42Bench(t, "2x", func(b *testing.B) {
		benchPaired(b, st, NewSeedAlignedPipeline, NewSeedPipeline)
	})
	require.Positive(t, r.N)
	a, bb := r.Extra["a-rows/s"], r.Extra["b-rows/s"]
	require.Positive(t, a)
	require.Positive(t, bb)
	require.InDelta(t, a/bb, r.Extra["a/b"], 1e-9*a/bb)
}
