package benchmarks

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/live"
)

const microRows = 1_000_000

// TestMicroAnswer checks the micro workload against the answer pond-ts
// gives (docs/workload.md): 1,000,000 rows, sum of emitted averages
// 499559.4900971639.
func TestMicroAnswer(t *testing.T) {
	batches := NewMicroStream(microRows, 1000)
	s, node, err := NewMicroPipeline()
	require.NoError(t, err)
	var out []live.Output
	rows, sum := 0, 0.0
	for _, b := range batches {
		out, err = s.PushMany(out[:0], b)
		require.NoError(t, err)
		for _, o := range out {
			if o.Node == node {
				avg, _ := o.Events.Numbers("avg")
				for _, x := range avg {
					sum += x
				}
				rows += o.Events.Len()
			}
		}
	}
	assert.Equal(t, microRows, rows)
	assert.InDelta(t, 499559.4900971639, sum, 499559.4900971639*1e-9)
}

// BenchmarkRollingMicro is the micro workload: a 1m rolling avg of one
// number column on the event trigger, 1M rows in batches of 1000, output
// watched. One op is one push of 1000 rows.
func BenchmarkRollingMicro(b *testing.B) {
	batches := NewMicroStream(microRows, 1000)
	s, _, err := NewMicroPipeline()
	require.NoError(b, err)
	var out []live.Output
	b.ReportAllocs()
	i := 0
	rows := 0
	for b.Loop() {
		if i == len(batches) {
			b.StopTimer()
			s, _, _ = NewMicroPipeline()
			i = 0
			b.StartTimer()
		}
		out, err = s.PushMany(out[:0], batches[i])
		if err != nil {
			b.Fatal(err)
		}
		rows += batches[i].Len()
		i++
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(math.Round(float64(b.Elapsed().Nanoseconds())/float64(rows)*100)/100, "ns/row")
}

// TestMicroSteadyDoesNotAllocate guards the micro workload's zero
// allocations per row: with the root bounded (the benchmark's root keeps
// every row and so allocates a storage chunk per 2048 rows, which is the
// root growing, not the rolling), a push of 1000 rows through the 1m
// average allocates nothing once the window is full; the output table is
// reused.
func TestMicroSteadyDoesNotAllocate(t *testing.T) {
	batches := NewMicroStream(200_000, 1000)
	// The micro pipeline with the root keeping only the last push (the
	// rolling keeps its own window).
	s, err := live.New("micro", MicroSchema, live.Options{MaxEvents: 1000})
	require.NoError(t, err)
	id, err := s.Rolling(s.Root(), microWindows(), microOptions())
	require.NoError(t, err)
	require.NoError(t, s.Watch(id))
	var out []live.Output
	for _, b := range batches[:100] {
		out, err = s.PushMany(out[:0], b)
		require.NoError(t, err)
	}
	next := 100
	n := allocs.Count(len(batches)-next-1, func() {
		out, _ = s.PushMany(out[:0], batches[next])
		next++
	})
	assert.Zero(t, n)
	assert.Equal(t, 1000, out[0].Events.Len())
}
