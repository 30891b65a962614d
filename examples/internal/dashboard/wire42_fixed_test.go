package dashboard

import (
	"math"
	"testing"

	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
)

// TestWf42ThePageDrawsLargeCloseCPUValuesWithoutHanging: the README's
// frames carry any finite number ("NaN, ±Inf and missing values are
// null", every other number as written) and the page "redraw[s] at most
// every 500 ms"; the aggregator admits any finite cpu and the cluster's
// rows any finite number. One host whose current_avg goes from 1e16 to
// 1e16+2 (the next double) made the page's redraw loop for ever: the
// CPU chart's y axis spans 2, its grid step is 0.5, and `v += yStep`
// (app.js renderChart, the y-grid loop) no longer moved v at 1e16, so the
// tab froze (the loop counts its lines now). The harness counts canvas calls and stops the frame past a
// million of them (no clock).
func TestWf42ThePageDrawsLargeCloseCPUValuesWithoutHanging(t *testing.T) {
	zero := make([]int, len(wire.DefaultThresholds))
	tick := func(ts int64, cur float64) wire.HostTick {
		return wire.HostTick{TS: ts, Host: "h", CPUAvg: cur, CPUSd: 0, CPUN: 1, NCurrent: 1,
			AnomaliesAbove: zero, AnomaliesBelow: zero, RequestsAvg: 1, RequestsSum: 1, RequestsN: 1,
			WindowAgeSeconds: 1, CPUMin: math.NaN(), CPUMax: math.NaN(), CurrentAvg: cur, CurrentSd: 0}
	}
	a, b := tick(1714000000000, 1e16), tick(1714000000200, 1e16+2)
	g := wire.GlobalsTick{TS: 1714000000200, EventsIngestedTotal: 2, EventsPerSec: 2}
	var snap wire.AggregateSnapshot
	snap.Begin(nil, wire.DefaultThresholds)
	snap.Row(&a)
	snap.Row(&b)
	snap.Globals(&g)
	states := wf42RunPage(t, "", [][]byte{snap.End()})
	assert.Empty(t, states[0].Runaway, "the page takes and draws the snapshot")
}
