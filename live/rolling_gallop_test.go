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

// gallopWindows are the windows of the tests below: a long window of
// sums alone and a short one of a column's sums and extremes, layouts
// the engine folds in its own loop (laid); or the long one with a
// maximum too, a layout it does not know, which takes the general fold
// (general).
func gallopWindows(general bool) []rolling.Window {
	long := []reduce.Agg{
		{Out: "l_avg", From: "x", Using: reduce.Avg},
		{Out: "l_sd", From: "x", Using: reduce.Stdev},
		{Out: "l_n", From: "x", Using: reduce.Count},
		{Out: "l_sum", From: "x", Using: reduce.Sum},
	}
	if general {
		long = append(long, reduce.Agg{Out: "l_max", From: "x", Using: reduce.Max})
	}
	return []rolling.Window{
		{Name: "long", Span: 300 * time.Millisecond, Aggs: long},
		{Name: "short", Span: 40 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "s_min", From: "x", Using: reduce.Min},
			{Out: "s_max", From: "x", Using: reduce.Max},
			{Out: "s_avg", From: "x", Using: reduce.Avg},
		}},
	}
}

// checkGallopCase checks rows at times (ms), each for every host, under
// reorder ordering and a clock of step and anchor (ms), against the
// model, in random pushes, one push and (for a few hosts) one push a
// row; partitioned, two workers must emit what one does.
func checkGallopCase(t *testing.T, label string, by bool, hosts int, windows []rolling.Window, step, anchor int64, times []int64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(hosts), 43))
	c := rollCase{ordering: live.Reorder, grace: 1000, by: by, trig: trigClock, step: step, anchor: anchor, windows: windows}
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
	checkRollCase(t, &c, label, batchings...)
}

// msFrom returns the times from s to e ms, e excluded.
func msFrom(s, e int64) []int64 {
	var ts []int64
	for ms := s; ms < e; ms++ {
		ts = append(ts, ms)
	}
	return ts
}

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
// first), for windows the engine folds in its own loop and for a window
// that takes the general fold.
func TestRollingUnderReorderKeepsLateRowsBehindOneThatStays(t *testing.T) {
	times := msFrom(1000, 1100)
	times = append(times, 1350)
	times = append(times, msFrom(1100, 1200)...)
	times = append(times, msFrom(1360, 1500)...)
	times = append(times, 1600, 1700)
	for _, general := range []bool{false, true} {
		for _, tc := range []struct {
			by    bool
			hosts int
		}{{false, 1}, {true, 1}, {true, 24}, {true, 100}} {
			label := fmt.Sprintf("general=%v by=%v hosts=%d", general, tc.by, tc.hosts)
			checkGallopCase(t, label, tc.by, tc.hosts, gallopWindows(general), 1000, 600, times)
		}
	}
}

// TestEvictingFirstUnderReorderKeepsLateRowsBehindOneThatStays: a tick
// whose rows do not fit in a partition's ring beside its windows' makes
// them evict first, and they too let rows go in arrival order only, up
// to the first that stays. Under a 100 ms clock, rows from 1000 ms and
// one at 1250 ms tick at 1250 ms with none leaving; late rows from
// 1038 ms follow it, then rows in order from 1251 ms, which tick at
// 1300 ms (none leaving) and at 1400 ms, with the 100 rows since, more
// than the ring has room for: the 38 rows before 1038 ms leave the 300
// ms window, and the late ones stay behind the row at 1250 ms, where a
// search would have let them go. Over 128 hosts or two workers, the
// tick's rows are buffered, and evict first.
func TestEvictingFirstUnderReorderKeepsLateRowsBehindOneThatStays(t *testing.T) {
	times := msFrom(1000, 1038)
	times = append(times, 1250)
	times = append(times, msFrom(1038, 1048)...)
	times = append(times, msFrom(1251, 1420)...)
	for _, general := range []bool{false, true} {
		for _, hosts := range []int{1, 200} {
			label := fmt.Sprintf("general=%v hosts=%d", general, hosts)
			checkGallopCase(t, label, true, hosts, gallopWindows(general), 100, 0, times)
		}
	}
}

// TestRollingUnderReorderNotesLateRowsTakenFromTheBuffer: a tick writes
// a partition's buffered rows of three slots in place when they fit in
// its ring, found by the partitions' sorted indices (many rows a
// partition) or by their links (a few on average); late rows written
// that way leave the deque not known to be in time order, so that a
// later fold does not search past them. Over 200 hosts under a 100 ms
// clock, the hot hosts have 41 rows from 1000 ms, then one at 1150 ms
// and late ones from 1041 ms, which the tick at 1200 ms takes from the
// buffer, then two rows every 50 ms: at the tick at 1400 ms the first
// 41 leave the 300 ms window (a search past its first 32 would find the
// first row from 1200 ms), and the late ones stay behind the row at
// 1150 ms. With every host hot the tick sorts the indices; with four
// hot among 196 cold ones (a row every 50 ms), it links the rows, and
// over two workers it sorts them.
func TestRollingUnderReorderNotesLateRowsTakenFromTheBuffer(t *testing.T) {
	for _, general := range []bool{false, true} {
		for _, hot := range []int{200, 4} {
			windows := gallopWindows(general)
			// A second column read: the rows are of three slots, which
			// a tick writes in place.
			windows[0].Aggs = append(windows[0].Aggs, reduce.Agg{Out: "l_sn", From: "s", Using: reduce.Count})
			c := rollCase{ordering: live.Reorder, grace: 1000, by: true, trig: trigClock, step: 100, windows: windows}
			add := func(ms int64, h int) {
				c.rows = append(c.rows, arow{t: ms, host: fmt.Sprintf("h%d", h), index: len(c.rows),
					x: float64(ms%97) + float64(h)/8, xOK: true, s: "a", sOK: true})
			}
			// Each push is of the hot hosts' rows at times, or of the
			// cold hosts' at one time: in order but for the late ones.
			var cuts []int
			push := func(times []int64, hosts ...int) {
				n := len(c.rows)
				for _, ms := range times {
					for _, h := range hosts {
						add(ms, h)
					}
				}
				if len(c.rows) > n {
					cuts = append(cuts, len(c.rows)-n)
				}
			}
			hots, colds := make([]int, hot), make([]int, 200-hot)
			for h := range hots {
				hots[h] = h
			}
			for h := range colds {
				colds[h] = hot + h
			}
			push([]int64{1000}, colds...)
			push(msFrom(1000, 1041), hots...)
			push([]int64{1100}, colds...)
			push([]int64{1150}, hots...)
			push([]int64{1150}, colds...)
			push(msFrom(1041, 1050), hots...) // late
			for ms := int64(1200); ms < 1600; ms += 50 {
				push([]int64{ms}, colds...)
				push([]int64{ms, ms + 25}, hots...)
			}
			label := fmt.Sprintf("general=%v hot=%d", general, hot)
			checkRollCase(t, &c, label, cuts)
		}
	}
}
