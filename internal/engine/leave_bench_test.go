package engine

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
)

// leaveCases are the configurations of BenchmarkLeavingRows: a tick lets
// a few hundred rows of each window go, through a path other than
// foldLaid's.
var leaveCases = []struct {
	path          string
	parts, perSec int
	windows       []rolling.Window
}{
	// A minute of the mean and maximum of cpu, a layout foldLaid does
	// not know: the general fold finds the rows that leave.
	{"fold", 10, 1000, []rolling.Window{{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
		{Out: "cpu_max", From: "cpu", Using: reduce.Max},
		{Out: "requests_sum", From: "requests", Using: reduce.Sum},
	}}}},
	// Ten seconds of sums over enough partitions that a push's rows are
	// buffered for the tick: each ring is cut to its window's rows, which
	// a tick's do not fit beside, so its window evicts first
	// (evictFirst).
	{"evictFirst", 200, 1000, []rolling.Window{{Name: "10s", Span: 10 * time.Second, Aggs: []reduce.Agg{
		{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
		{Out: "cpu_sd", From: "cpu", Using: reduce.Stdev},
		{Out: "requests_sum", From: "requests", Using: reduce.Sum},
	}}}},
}

// BenchmarkLeavingRows measures a partitioned rolling whose ticks let
// about 200 rows of each window go (1,000 rows a second a partition, a
// 200 ms clock, rows in order) through the paths other than foldLaid's:
// the general fold (path=fold) and the eviction before a tick's rows
// enter (path=evictFirst). One op is one batch of one row per partition,
// a tick every 200 batches. Count its instructions with valgrind
// --tool=callgrind --toggle-collect='*groupTicks*'.
func BenchmarkLeavingRows(b *testing.B) {
	for _, c := range leaveCases {
		b.Run(fmt.Sprintf("path=%s/P=%d/N=%d", c.path, c.parts, c.perSec), func(b *testing.B) {
			r := newGroupRigOf(c.windows, c.parts, c.perSec, false)
			r.sorted = true
			span := c.windows[0].Span
			for range int(span/time.Second+1) * c.perSec { // fill the window
				r.tick()
			}
			b.ReportAllocs()
			allocs.LockThread()
			defer runtime.UnlockOSThread()
			for b.Loop() {
				groupTicks(r, 1)
			}
			rows := float64(b.N * c.parts)
			b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
