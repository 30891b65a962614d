package live_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
)

// Under reorder ordering a window's rows leave from the front in arrival
// order and stop at the first that stays, so late rows behind a row that
// stays stay too, though they are older than the window. A fold that lets
// many rows go finds them by a search when its partition's rows are known
// to be in time order, which these are not: rows from 1000 ms, then one
// at 1350 ms, then late ones from 1100 ms, then more from 1360 ms, and a
// row at 1600 ms that ticks with the 300 ms window's rows before 1300 ms
// leaving. Only the first hundred leave; a search would also have let
// the late ones go. The same unpartitioned, for one host and for many
// (whose rows a tick takes from its buffer, or, over workers, lays out
// first), in random pushes, one push and (for a few hosts) one push a
// row: the model says what every emitted row must be, and two workers
// must emit what one does.
func TestRollingUnderReorderKeepsLateRowsBehindOneThatStays(t *testing.T) {
	for _, tc := range []struct {
		by    bool
		hosts int
	}{{false, 1}, {true, 1}, {true, 24}, {true, 100}} {
		hosts := tc.hosts
		rng := rand.New(rand.NewPCG(uint64(hosts), 43))
		c := rollCase{
			ordering: live.Reorder,
			grace:    1000,
			by:       tc.by,
			trig:     trigClock,
			step:     1000,
			anchor:   600,
			windows: []rolling.Window{
				{Name: "long", Span: 300 * time.Millisecond, Aggs: []reduce.Agg{
					{Out: "l_avg", From: "x", Using: reduce.Avg},
					{Out: "l_sd", From: "x", Using: reduce.Stdev},
					{Out: "l_n", From: "x", Using: reduce.Count},
					{Out: "l_sum", From: "x", Using: reduce.Sum},
				}},
				{Name: "short", Span: 40 * time.Millisecond, Aggs: []reduce.Agg{
					{Out: "s_min", From: "x", Using: reduce.Min},
					{Out: "s_max", From: "x", Using: reduce.Max},
					{Out: "s_avg", From: "x", Using: reduce.Avg},
				}},
			},
		}
		var times []int64
		for ms := int64(1000); ms < 1100; ms++ {
			times = append(times, ms)
		}
		times = append(times, 1350)
		for ms := int64(1100); ms < 1200; ms++ {
			times = append(times, ms)
		}
		for ms := int64(1360); ms < 1500; ms++ {
			times = append(times, ms)
		}
		times = append(times, 1600, 1700)
		for _, ms := range times {
			for h := range hosts {
				c.rows = append(c.rows, arow{t: ms, host: fmt.Sprintf("h%d", h), index: len(c.rows),
					x: float64(ms%97) + float64(h)/8, xOK: true, s: "a", sOK: true})
			}
		}
		n := len(c.rows)
		batchings := [][]int{randomCuts(rng, n, 40*hosts), {n}}
		if hosts <= 24 {
			ones := make([]int, n)
			for i := range ones {
				ones[i] = 1
			}
			batchings = append(batchings, ones)
		}
		checkRollCase(t, &c, fmt.Sprintf("by=%v hosts=%d", tc.by, hosts), batchings...)
	}
}
