package engine

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// walkLeaving counts the rows from slot i of blk (n rows of st slots)
// before lim, one at a time up to the first that is not.
func walkLeaving(blk []uint64, i, st, n int, lim int64) int {
	k := 0
	for k < n && int64(blk[i+k*st]) < lim {
		k++
	}
	return k
}

// TestLeaveSortedIsTheWalk: over random sorted blocks (with runs of
// equal times), a galloping search finds the rows a walk does, for
// limits below, at, between and above the rows' times, every start and
// every count of rows (none included).
func TestLeaveSortedIsTheWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 120 {
		st := 1 + round%3
		rows := 1 + rng.IntN(50)
		blk := make([]uint64, rows*st)
		tm := int64(rng.IntN(10))
		for r := range rows {
			if rng.IntN(3) > 0 {
				tm += int64(rng.IntN(4))
			}
			blk[r*st] = uint64(tm)
			for s := 1; s < st; s++ {
				blk[r*st+s] = rng.Uint64() // values, not times
			}
		}
		for from := range rows {
			for n := 0; n <= rows-from; n++ {
				for lim := int64(-1); lim <= tm+2; lim++ {
					want := walkLeaving(blk, from*st, st, n, lim)
					require.Equal(t, want, leaveSorted(blk, from*st, st, n, lim), "round %d from %d n %d lim %d", round, from, n, lim)
				}
			}
		}
	}
}

// sumPlan returns a plan of one window of span of a count and a sum,
// whose folds are foldLaid's.
func sumPlan(t *testing.T, span time.Duration) *Plan {
	t.Helper()
	windows := []rolling.Window{{Name: "w", Span: span, Aggs: []reduce.Agg{
		{Out: "n", From: "v", Using: reduce.Count},
		{Out: "s", From: "v", Using: reduce.Sum},
	}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	require.True(t, plan.laid, "the plan's folds are foldLaid's")
	return plan
}

// appendTimes appends rows at times ts (in seconds) to e, one by one
// through Append, their values their times.
func appendTimes(e *Engine, ts ...int64) {
	tab := schema.NewTable(testSchema)
	for _, s := range ts {
		table.Column(tab, 0).AppendTime(s * int64(time.Second))
		table.Column(tab, 1).AppendNum(float64(s))
		table.Column(tab, 2).AppendNum(1)
	}
	var in Input
	e.p.Bind(&in, tab, nil)
	for i := range in.Len() {
		e.Append(&in, i)
	}
}

// TestLeaveFromIsScanToAcrossBlocks: in a sorted deque of several blocks
// (a wrapped ring after folds), the first row that stays is scanTo's
// for every start and limit, runs that cross block ends included.
func TestLeaveFromIsScanToAcrossBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := sumPlan(t, time.Hour).NewEngine()
	tm := int64(0)
	for round := range 6 {
		ts := make([]int64, 700+rng.IntN(900))
		for i := range ts {
			tm += int64(rng.IntN(3)) // runs of equal times
			ts[i] = tm
		}
		appendTimes(e, ts...)
		require.True(t, e.dq.sorted(), "rows in order")
		d := &e.dq
		for range 300 {
			a := d.front + uint64(rng.IntN(int(d.tail-d.front)))
			// Times are in seconds, as ns: a limit at a row's time,
			// or up to 2,000 s after it, or just before it.
			lim := int64(e.dq.time(a)) + int64(rng.IntN(2000)-5)*int64(time.Second)
			if rng.IntN(4) == 0 {
				lim = int64(e.dq.time(a)) - 1
			}
			require.Equal(t, e.scanTo(a, d.tail, lim), e.leaveFrom(a, d.tail, lim), "round %d a %d lim %d", round, a, lim)
		}
		require.Equal(t, d.tail, e.leaveFrom(d.front, d.tail, (tm+1)*int64(time.Second)), "every row before the limit")
		require.Equal(t, d.front, e.leaveFrom(d.front, d.tail, -1), "no row before it")
		// A fold that drops most rows, so that the ring wraps.
		e.Fold((tm-400)*int64(time.Second) + int64(time.Hour))
	}
}

// TestAnOutOfOrderDequeStopsAtTheFirstRowThatStays: a late row (reorder
// ordering) leaves the deque not known to be in order, and a window's
// rows leave up to the first row that stays, in arrival order, however
// many late rows before the limit follow it; once the deque empties, rows
// in order are known to be in order again, and leave by the search.
func TestAnOutOfOrderDequeStopsAtTheFirstRowThatStays(t *testing.T) {
	e := sumPlan(t, 50*time.Second).NewEngine()
	ts := []int64{1, 2, 3, 4, 5, 6, 7, 100}
	for s := int64(8); s <= 40; s++ {
		ts = append(ts, s) // late rows, before the limit below
	}
	appendTimes(e, ts...)
	assert.False(t, e.dq.sorted(), "late rows: not known in order")
	// At 105 s the limit is 55 s: rows 1 … 7 leave, and 100 stays, with
	// every late row after it.
	e.Fold(105 * int64(time.Second))
	assert.Equal(t, len(ts)-7, e.WindowLen(0), "eviction stops at the row at 100 s")
	assert.False(t, e.dq.sorted(), "the late rows are still held")

	// Every row leaves: the deque is empty, and in order again.
	e.Fold(1000 * int64(time.Second))
	assert.Equal(t, 0, e.Len())
	assert.True(t, e.dq.sorted(), "an empty deque's next rows are in order")
	ts = ts[:0]
	for s := int64(1000); s < 1100; s++ {
		ts = append(ts, s)
	}
	appendTimes(e, ts...)
	assert.True(t, e.dq.sorted())
	e.Fold(1120 * int64(time.Second)) // limit 1070 s: 70 rows leave
	assert.Equal(t, 30, e.WindowLen(0))
	// A late row again, then rows in order: not known in order until
	// the deque empties.
	appendTimes(e, 1060, 1130, 1131)
	assert.False(t, e.dq.sorted(), "a row before the latest")
	e.Fold(1150 * int64(time.Second)) // limit 1100: 1070 … 1099 leave, 1060 after them too
	assert.Equal(t, 2, e.WindowLen(0))
	assert.False(t, e.dq.sorted(), "not empty yet")
}

// minPlan returns a plan of one window of span of a sum and a minimum,
// a layout foldLaid does not know: its folds are the general fold's.
func minPlan(t *testing.T, span time.Duration) *Plan {
	t.Helper()
	windows := []rolling.Window{{Name: "w", Span: span, Aggs: []reduce.Agg{
		{Out: "s", From: "v", Using: reduce.Sum},
		{Out: "lo", From: "v", Using: reduce.Min},
	}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	require.False(t, plan.laid, "the plan's folds are the general fold's")
	return plan
}

// secs returns the times from s to e seconds, both included.
func secs(s, e int64) []int64 {
	var ts []int64
	for x := s; x <= e; x++ {
		ts = append(ts, x)
	}
	return ts
}

// windowSum returns the sum of the values of window w's rows (their
// times, in seconds; see appendTimes).
func windowSum(e *Engine, w int) float64 {
	s := 0.0
	for a := e.wins()[w].head; a < e.dq.tail; a++ {
		s += float64(e.dq.time(a) / int64(time.Second))
	}
	return s
}

// TestTheGeneralFoldStopsAtTheFirstRowThatStays: the general fold (a
// window foldLaid does not know) lets more rows go than it walks one at
// a time; when a late row has come, they leave in arrival order up to
// the first that stays, the late rows behind it staying, where a search
// would have skipped it; in order, the search finds the rows the walk
// does, and the window's states are its rows'.
func TestTheGeneralFoldStopsAtTheFirstRowThatStays(t *testing.T) {
	e := minPlan(t, 50*time.Second).NewEngine()
	// 37 rows (more than walkRows) before the limit below, one after
	// it, then 40 late rows before it.
	appendTimes(e, append(append(secs(1, 37), 100), secs(38, 77)...)...)
	require.False(t, e.dq.sorted(), "late rows: not known in order")
	e.Fold(140 * int64(time.Second)) // limit 90 s
	assert.Equal(t, 41, e.WindowLen(0), "rows 1 … 37 leave; the row at 100 s stays, with every late row after it")

	// Every row leaves, then rows in order: 100 of them leave a fold.
	e.Fold(1000 * int64(time.Second))
	require.Equal(t, 0, e.Len())
	appendTimes(e, secs(1000, 1199)...)
	e.Fold(1050 * int64(time.Second)) // limit 1000 s: every row stays
	require.True(t, e.dq.sorted(), "rows in order")
	e.Fold(1199 * int64(time.Second)) // limit 1149 s
	assert.Equal(t, 51, e.WindowLen(0), "rows 1000 … 1148 leave")
	assert.Equal(t, windowSum(e, 0), e.wins()[0].moments(&e.p.wins[0])[0].Sum())
}

// TestEvictingFirstStopsAtTheFirstRowThatStays: a tick's rows that do
// not fit in the ring make a window evict first (evictFirst); its rows
// leave in arrival order up to the first that stays, more than it walks
// one at a time, and late rows behind that one stay, where a search
// would have let them go; in order, the search finds the walk's rows.
func TestEvictingFirstStopsAtTheFirstRowThatStays(t *testing.T) {
	e := sumPlan(t, 50*time.Second).NewEngine()
	// 37 rows before the limit below, one after, 10 late ones before it
	// and 200 after: the window is left more rows than leave, and
	// evicts them first.
	ts := append(append(secs(1, 37), 100), secs(38, 47)...)
	appendTimes(e, append(ts, secs(101, 300)...)...)
	e.Fold(50 * int64(time.Second)) // limit 0: every row stays
	require.Equal(t, 248, e.WindowLen(0))
	require.False(t, e.dq.sorted(), "late rows: not known in order")
	// A tick of as many rows as the ring holds, folding at 140 s.
	e.evictFirst(140*int64(time.Second), e.dq.cap, &e.p.pool)
	assert.Equal(t, 211, e.WindowLen(0), "rows 1 … 37 leave; the row at 100 s stays, with the late rows after it")
	assert.Equal(t, 211, e.Len(), "the deque drops what the window let go")

	// In order, 100 rows leave first.
	e.Fold(1000 * int64(time.Second))
	require.Equal(t, 0, e.Len())
	appendTimes(e, secs(1000, 1299)...)
	e.Fold(1050 * int64(time.Second)) // limit 1000 s: every row stays
	require.True(t, e.dq.sorted(), "rows in order")
	e.evictFirst(1150*int64(time.Second), e.dq.cap, &e.p.pool) // limit 1100 s
	assert.Equal(t, 200, e.WindowLen(0), "rows 1000 … 1099 leave")
	assert.Equal(t, windowSum(e, 0), e.wins()[0].moments(&e.p.wins[0])[0].Sum())
}
