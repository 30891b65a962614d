package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// countWindows are time windows whose outputs all count: rows (of the
// required column v) or present values (of the optional column w).
func countWindows() []rolling.Window {
	return []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "n1", From: "v", Using: reduce.Count}}},
		{Name: "300ms", Span: 300 * time.Millisecond, MinSamples: rolling.Samples(3), Aggs: []reduce.Agg{
			{Out: "n300", From: "v", Using: reduce.Count}, {Out: "w300", From: "w", Using: reduce.Count},
			{Out: "again", From: "v", Using: reduce.Count},
		}},
		{Name: "5s", Span: 5 * time.Second, Aggs: []reduce.Agg{{Out: "w5", From: "w", Using: reduce.Count}, {Out: "n5", From: "v", Using: reduce.Count}}},
	}
}

// TestCountsByTimeMatchRows feeds the same random pushes to a stream that
// keeps runs of equal times and to one forced to keep its rows, under a
// clock and under a count trigger: pushes of many rows at one time, gaps
// longer than every window, late rows (unsorted pushes), missing values
// in the column whose present values are counted, and windows that empty. Every emitted row
// must be the same, and the runs held no more than the distinct times of
// the rows the longest window holds (plus the ring's slack).
//
// It runs with windows that count rows only, too: a stream that counts no
// column takes a sorted push at one time in one step (Stream.addAt).
func TestCountsByTimeMatchRows(t *testing.T) {
	triggers := map[string]trigger.Trigger{
		"clock": trigger.Every(200 * time.Millisecond),
		"count": trigger.Count(7),
	}
	rowsOnly := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "n1", From: "v", Using: reduce.Count}}},
		{Name: "300ms", Span: 300 * time.Millisecond, MinSamples: rolling.Samples(3), Aggs: []reduce.Agg{{Out: "n300", From: "v", Using: reduce.Count}}},
	}
	for name, trig := range triggers {
		for wname, windows := range map[string][]rolling.Window{"values": countWindows(), "rows": rowsOnly} {
			t.Run(name+"/"+wname, func(t *testing.T) { testCountsByTimeMatchRows(t, name, trig, windows) })
		}
	}
}

func testCountsByTimeMatchRows(t *testing.T, name string, trig trigger.Trigger, windows []rolling.Window) {
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trig}, nil, nil)
	require.NoError(t, err)
	require.True(t, plan.CountsByTime())
	if len(windows) == 2 {
		require.Empty(t, plan.cols) // the rows-only windows count no column
	}
	runs, rows := plan.NewStream(), plan.NewStream()
	require.NotNil(t, runs.runs)
	rows.runs = nil
	rng := rand.New(rand.NewPCG(7, uint64(len(name))))
	tm := int64(1e12)
	var in Input
	emitted, at := 0, 0
	for push := range 3000 {
		tab := schema.NewTable(testSchema)
		sorted := true
		oneTime := rng.IntN(4) == 0 // every row of the push at one time
		for range rng.IntN(40) {
			if !oneTime {
				tm = nextTime(rng, tm, &sorted)
			}
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(float64(rng.IntN(100)))
			if rng.IntN(3) == 0 {
				table.Column(tab, 2).AppendMissing()
			} else {
				table.Column(tab, 2).AppendNum(rng.NormFloat64())
			}
		}
		sorted = sorted && slices.IsSorted(tab.Times())
		a, b := schema.NewTable(plan.Schema()), schema.NewTable(plan.Schema())
		// A push at one time takes PushAt's way when it can (a stream
		// that counts rows only, under a clock, crossing nothing); the
		// stream that keeps its rows takes PushTo's.
		ts := tab.Times()
		if n := len(ts); !sorted || n == 0 || ts[0] != ts[n-1] || !runs.PushAt(ts[0], n) {
			plan.Bind(&in, tab, nil)
			in.SetSorted(sorted)
			runs.Push(&in, a)
		} else {
			at++
		}
		plan.Bind(&in, tab, nil)
		in.SetSorted(sorted)
		rows.Push(&in, b)
		require.Equal(t, b.Len(), a.Len(), "push %d", push)
		for i := range a.Len() {
			for j := range a.Schema().Len() {
				x, y := a.Value(i, j), b.Value(i, j)
				require.True(t, x.Equal(y), "push %d row %d col %s: %v vs %v", push, i, a.Schema().Column(j).Name, x, y)
			}
		}
		emitted += a.Len()
		for w := range plan.wins {
			require.Equal(t, rows.e.WindowLen(w), runs.e.WindowLen(w), "push %d window %d", push, w)
		}
		// The runs held are at most the distinct times from the
		// first row any window holds (the rows' own deque's),
		// and the ring at most four times the runs held, or its smallest.
		r := runs.runs
		held := int(r.tail - r.front)
		require.LessOrEqual(t, held, distinctRuns(rows.e))
		require.LessOrEqual(t, r.runs(), max(minRuns, 4*held))
		require.Equal(t, rows.e.Len(), runs.e.Len(), "push %d", push)
	}
	if name == "clock" && len(plan.cols) == 0 {
		require.Greater(t, at, 100, "pushes PushAt took")
	} else {
		require.Zero(t, at, "PushAt takes only a clock's rows-only pushes")
	}
	require.Greater(t, emitted, 1000)
}

// distinctRuns returns the runs of equal consecutive times among the rows
// the engine's deque holds.
func distinctRuns(e *Engine) int {
	n := 0
	for a := e.dq.front; a < e.dq.tail; a++ {
		if a == e.dq.front || e.dq.time(a) != e.dq.time(a-1) {
			n++
		}
	}
	return n
}

// TestCountsByTimeHoldsRunsNotRows: a second of pushes of 1,000 rows at one
// time each (the seed's unpartitioned count at 1,000 hosts) holds a run
// per push, 16 bytes each and the ring's slack, not 8 bytes a row.
func TestCountsByTimeHoldsRunsNotRows(t *testing.T) {
	plan, err := NewPlan(testSchema, countWindows()[:1], rolling.Options{Trigger: trigger.Every(200 * time.Millisecond)}, nil, nil)
	require.NoError(t, err)
	s := plan.NewStream()
	var in Input
	for k := range 1000 {
		tab := schema.NewTable(testSchema)
		for range 1000 {
			table.Column(tab, 0).AppendTime(int64(k) * int64(10*time.Millisecond))
			table.Column(tab, 1).AppendNum(1)
			table.Column(tab, 2).AppendNum(1)
		}
		plan.Bind(&in, tab, nil)
		in.SetSorted(true)
		s.Push(&in, schema.NewTable(plan.Schema()))
	}
	// 10 s of pushes, 100 a second: the 1s window holds 101 to 121 runs.
	require.LessOrEqual(t, s.HeldBytes(), 16*256)
	require.GreaterOrEqual(t, s.e.WindowLen(0), 100_000)
}

// TestCountsByTimeOnlyForCounts: runs are kept only by an unpartitioned,
// unaligned rolling under a clock or count trigger whose windows are
// time windows that count rows or present values.
func TestCountsByTimeOnlyForCounts(t *testing.T) {
	every := rolling.Options{Trigger: trigger.Every(time.Second)}
	n := func(col string) []rolling.Window {
		return []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: col, Using: reduce.Count}}}}
	}
	for name, c := range map[string]struct {
		windows []rolling.Window
		opts    rolling.Options
		key     *Key
		want    bool
	}{
		"count of a required column":  {n("v"), every, nil, true},
		"under a count trigger":       {n("v"), rolling.Options{Trigger: trigger.Count(3)}, nil, true},
		"count of an optional column": {n("w"), every, nil, true},
		"under the event trigger":     {n("v"), rolling.Options{}, nil, false},
		"aligned":                     {n("v"), rolling.Options{Trigger: trigger.Every(time.Second), Aligned: true}, nil, false},
		"partitioned":                 {n("v"), every, &Key{Name: "host", Kind: schema.String}, false},
		"a count window":              {[]rolling.Window{{Count: 5, Aggs: []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}}}, every, nil, false},
		"besides a sum of the column": {[]rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}, {Out: "s", From: "v", Using: reduce.Sum}}}}, every, nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			plan, err := NewPlan(testSchema, c.windows, c.opts, c.key, nil)
			require.NoError(t, err)
			require.Equal(t, c.want, plan.CountsByTime())
		})
	}
}

// nextTime returns the time of a test push's next row after tm: late
// (and then the push is not sorted), after a gap, the same, or a little
// later.
func nextTime(rng *rand.Rand, tm int64, sorted *bool) int64 {
	switch rng.IntN(12) {
	case 0:
		*sorted = false
		return tm - int64(rng.IntN(2000))*int64(time.Millisecond) // late
	case 1:
		return tm + int64(rng.IntN(9000))*int64(time.Millisecond) // gap
	case 2, 3, 4, 5, 6:
		return tm // the same time again
	}
	return tm + int64(rng.IntN(150))*int64(time.Millisecond)
}
