package live_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// This file pins the edges of rolling windows and their triggers through
// the public API: every trigger rule of pond-ts and the numbers of its reference
// cases 7 to 14. Times are in milliseconds, as in the spec; a row of
// optSchema is v(t, value).

// rollingCase is a rolling node over a series and the pushes it sees.
type rollingCase struct {
	name    string
	series  live.Options // the series' options (ordering)
	by      string       // partition column, when the rolling is per partition
	windows []rolling.Window
	opts    rolling.Options
	pushes  [][]schema.Row // one PushRows per entry
	want    []string       // every row the node emits, in order
}

// each makes one push per row; batch makes one push of all of them.
func each(rows ...schema.Row) [][]schema.Row {
	out := make([][]schema.Row, len(rows))
	for i, row := range rows {
		out[i] = []schema.Row{row}
	}
	return out
}

func batchOf(rows ...schema.Row) []schema.Row { return rows }

// every is a clock trigger on a step in milliseconds.
func every(stepMs int64) trigger.Trigger {
	return trigger.Clock(sequence.Every(time.Duration(stepMs) * time.Millisecond))
}

// win is a time window of span milliseconds.
func win(spanMs int64, aggs ...reduce.Agg) rolling.Window {
	return rolling.Window{Span: time.Duration(spanMs) * time.Millisecond, Aggs: aggs}
}

func sumOf() reduce.Agg   { return reduce.Agg{Out: "sum", From: "value", Using: reduce.Sum} }
func avgOf() reduce.Agg   { return reduce.Agg{Out: "avg", From: "value", Using: reduce.Avg} }
func maxOf() reduce.Agg   { return reduce.Agg{Out: "max", From: "value", Using: reduce.Max} }
func countOf() reduce.Agg { return reduce.Agg{Out: "n", From: "value", Using: reduce.Count} }

// rowStrings renders rows as "<t>ms col=value …", missing cells as null.
func rowStrings(tab *schema.Table) []string {
	var out []string
	for i := range tab.Len() {
		var b strings.Builder
		fmt.Fprintf(&b, "%dms", tab.TimeNanos(i)/int64(time.Millisecond))
		for j := 1; j < tab.Schema().Len(); j++ {
			fmt.Fprintf(&b, " %s=%s", tab.Schema().Column(j).Name, tab.Value(i, j))
		}
		out = append(out, b.String())
	}
	return out
}

// run builds the case's rolling, pushes its rows and returns what the
// rolling emitted.
func (c rollingCase) run(t *testing.T) []string {
	t.Helper()
	sch := optSchema
	if c.by != "" {
		sch = metricsSchema
	}
	s, err := live.New("edges", sch, c.series)
	require.NoError(t, err)
	src := s.Root()
	if c.by != "" {
		src, err = s.PartitionBy(src, c.by, partition.Options{})
		require.NoError(t, err)
	}
	id, err := s.Rolling(src, c.windows, c.opts)
	require.NoError(t, err)
	require.NoError(t, s.Watch(id))
	got := []string{}
	var out []live.Output
	for _, push := range c.pushes {
		out, err = s.PushRows(out[:0], push...)
		require.NoError(t, err)
		for _, o := range out {
			if o.Node == id && o.Kind == live.Event {
				got = append(got, rowStrings(o.Events)...)
			}
		}
	}
	return got
}

func runRollingCases(t *testing.T, cases []rollingCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.run(t))
		})
	}
}

// TestClockTrigger pins pond-ts's clock crossing rule and its reference case 10, on a
// 1m avg or sum emitted every 30 s. (Case 10's last bullet, pond-ts's
// value() before any crossing, has no counterpart: a pond-go rolling is
// read through its outputs and its history.)
func TestClockTrigger(t *testing.T) {
	avg1m := []rolling.Window{win(60_000, avgOf())}
	sum1m := []rolling.Window{win(60_000, sumOf())}
	clock30s := rolling.Options{Trigger: every(30_000)}
	runRollingCases(t, []rollingCase{
		{
			name:    "the first row only sets the bucket",
			windows: avg1m, opts: clock30s,
			pushes: each(v(0, 10)),
			want:   []string{},
		},
		{
			name:    "rows in the first bucket never fire (case 10)",
			windows: avg1m, opts: clock30s,
			pushes: each(v(0, 10), v(5000, 20), v(15000, 30)),
			want:   []string{},
		},
		{
			name:    "a later bucket fires once, keyed at its start, with the crossing row in (case 10)",
			windows: avg1m, opts: clock30s,
			pushes: each(v(0, 10), v(15000, 20), v(30001, 30)),
			want:   []string{"30000ms avg=20"},
		},
		{
			name:    "the snapshot is taken at the crossing row, not at the end of its push",
			windows: sum1m, opts: clock30s,
			pushes: [][]schema.Row{batchOf(v(0, 1)), batchOf(v(31000, 2), v(32000, 4), v(33000, 8))},
			want:   []string{"30000ms sum=3"},
		},
		{
			name:    "a crossing inside one push fires as it would across pushes",
			windows: sum1m, opts: clock30s,
			pushes: [][]schema.Row{batchOf(v(0, 1), v(31000, 2), v(32000, 4), v(61000, 8))},
			// At 61000 the row at 0 has left the window [1000, 61000].
			want: []string{"30000ms sum=3", "60000ms sum=14"},
		},
		{
			name:    "several skipped boundaries give one row, at the newest (case 10)",
			windows: avg1m, opts: clock30s,
			pushes: each(v(0, 10), v(90001, 20)),
			want:   []string{"90000ms avg=20"},
		},
		{
			name:    "same-bucket and late rows never fire, and late rows are taken in",
			series:  live.Options{Ordering: live.Reorder},
			windows: sum1m, opts: clock30s,
			pushes: each(v(0, 1), v(31000, 2), v(29000, 4), v(45000, 8), v(60000, 16)),
			want:   []string{"30000ms sum=3", "60000ms sum=31"},
		},
		{
			name:    "the windows are evicted against the crossing row's time, not the boundary",
			windows: []rolling.Window{win(10_000, sumOf())}, opts: rolling.Options{Trigger: every(10_000)},
			// At 30300 the window is [20300, 30300]: 20200 has left,
			// although it is inside [20000, 30000].
			pushes: each(v(0, 1), v(20200, 2), v(30300, 4)),
			want:   []string{"20000ms sum=2", "30000ms sum=4"},
		},
		{
			name:    "a row exactly on a boundary crosses it (case 10)",
			windows: sum1m, opts: clock30s,
			pushes: each(v(29999, 1), v(30000, 2)),
			want:   []string{"30000ms sum=3"},
		},
		{
			name:    "-1 then 0 fires at 0",
			windows: sum1m, opts: clock30s,
			pushes: each(v(-1, 1), v(0, 2)),
			want:   []string{"0ms sum=3"},
		},
		{
			name:    "an anchor shifts the boundaries (case 10)",
			windows: avg1m,
			opts:    rolling.Options{Trigger: trigger.Clock(sequence.Every(30 * time.Second).WithAnchorNanos(ms(5000)))},
			pushes:  each(v(5000, 10), v(34999, 20), v(35001, 30)),
			want:    []string{"35000ms avg=20"},
		},
		{
			name:    "quiet periods emit nothing",
			windows: sum1m, opts: rolling.Options{Trigger: every(1000)},
			pushes: each(v(0, 1), v(1500, 2), v(9000, 4)),
			want:   []string{"1000ms sum=3", "9000ms sum=7"},
		},
	})
}

// TestEventAndCountTriggers pins pond-ts's event and count rules and its
// reference case 11.
func TestEventAndCountTriggers(t *testing.T) {
	avg5m := []rolling.Window{win(300_000, avgOf())}
	six := each(v(0, 10), v(1000, 20), v(2000, 30), v(3000, 40), v(4000, 50), v(5000, 60))
	runRollingCases(t, []rollingCase{
		{
			name:    "event: one row per source row, keyed at its time",
			windows: avg5m,
			pushes:  [][]schema.Row{batchOf(v(0, 10), v(1000, 20)), batchOf(v(1000, 30))},
			want:    []string{"0ms avg=10", "1000ms avg=15", "1000ms avg=20"},
		},
		{
			name:    "count(3): the first row on the third row, then every third (case 11)",
			windows: avg5m, opts: rolling.Options{Trigger: trigger.Count(3)},
			pushes: six,
			want:   []string{"2000ms avg=20", "5000ms avg=35"},
		},
		{
			name:    "count(3) counts across pushes and within one",
			windows: avg5m, opts: rolling.Options{Trigger: trigger.Count(3)},
			pushes: [][]schema.Row{batchOf(v(0, 10), v(1000, 20)), batchOf(v(2000, 30), v(3000, 40), v(4000, 50), v(5000, 60))},
			want:   []string{"2000ms avg=20", "5000ms avg=35"},
		},
		{
			name:    "count(1) emits on every row (case 11)",
			windows: avg5m, opts: rolling.Options{Trigger: trigger.Count(1)},
			pushes: six[:3],
			want:   []string{"0ms avg=10", "1000ms avg=15", "2000ms avg=20"},
		},
		{
			name:    "per partition, each partition counts on its own rows",
			by:      "host",
			windows: []rolling.Window{win(60_000, avgOf())}, opts: rolling.Options{Trigger: trigger.Count(2)},
			pushes: each(r(0, 0.4, "a"), r(1000, 0.5, "b"), r(2000, 0.6, "a")),
			want:   []string{`2000ms host="a" avg=0.5`},
		},
	})
}

// TestCountOneIsEvent: count(1) gives exactly the rows of the event
// trigger (as in pond-ts).
func TestCountOneIsEvent(t *testing.T) {
	pushes := [][]schema.Row{
		batchOf(v(0, 1), v(500, gap), v(500, 3)),
		batchOf(v(2000, 4)),
		batchOf(v(2100, 5), v(9000, 6)),
	}
	windows := []rolling.Window{win(1000, sumOf(), avgOf(), maxOf(), countOf())}
	event := rollingCase{windows: windows, pushes: pushes}.run(t)
	count := rollingCase{windows: windows, pushes: pushes, opts: rolling.Options{Trigger: trigger.Count(1)}}.run(t)
	assert.Len(t, event, 6)
	assert.Equal(t, event, count)
}

// TestRollingTimeAndCountWindows pins pond-ts's reference cases 7 and 8 and the
// window shape of pond-ts: a time window is closed at both ends, a count
// window holds the last N rows.
func TestRollingTimeAndCountWindows(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			name:    "3s sum (case 7)",
			windows: []rolling.Window{win(3000, sumOf())},
			pushes:  each(v(0, 10), v(1000, 20), v(2000, 30), v(5000, 40)),
			want:    []string{"0ms sum=10", "1000ms sum=30", "2000ms sum=60", "5000ms sum=70"},
		},
		{
			name:    "a row exactly a span old stays (case 7)",
			windows: []rolling.Window{win(5000, sumOf())},
			pushes:  each(v(0, 10), v(5000, 20)),
			want:    []string{"0ms sum=10", "5000ms sum=30"},
		},
		{
			name:    "a row a nanosecond more than a span old leaves",
			windows: []rolling.Window{win(5000, sumOf())},
			pushes:  each(v(0, 10), schema.Row{schema.NanosValue(ms(5000) + 1), schema.NumberValue(20)}),
			want:    []string{"0ms sum=10", "5000ms sum=20"},
		},
		{
			name:    "5s avg over 0..4000 (case 7)",
			windows: []rolling.Window{win(5000, avgOf())},
			pushes:  [][]schema.Row{batchOf(v(0, 10), v(1000, 20), v(2000, 30), v(3000, 40), v(4000, 50))},
			want:    []string{"0ms avg=10", "1000ms avg=15", "2000ms avg=20", "3000ms avg=25", "4000ms avg=30"},
		},
		{
			name:    "count 2 keeps the last two rows (case 8)",
			windows: []rolling.Window{{Count: 2, Aggs: []reduce.Agg{sumOf(), countOf()}}},
			pushes:  each(v(0, 10), v(1000, 20), v(2000, 30)),
			want:    []string{"0ms sum=10 n=1", "1000ms sum=30 n=2", "2000ms sum=50 n=2"},
		},
		{
			name:    "count 3 avg over 10..50 (case 8)",
			windows: []rolling.Window{{Count: 3, Aggs: []reduce.Agg{avgOf()}}},
			pushes:  [][]schema.Row{batchOf(v(0, 10), v(1000, 20), v(2000, 30), v(3000, 40), v(4000, 50))},
			want:    []string{"0ms avg=10", "1000ms avg=15", "2000ms avg=20", "3000ms avg=30", "4000ms avg=40"},
		},
		{
			name:    "a count window ignores time: a row days old stays",
			windows: []rolling.Window{{Count: 2, Aggs: []reduce.Agg{sumOf()}}},
			pushes:  each(v(0, 1), v(3*86_400_000, 2)),
			want:    []string{"0ms sum=1", "259200000ms sum=3"},
		},
	})
}

// TestRollingWarmUp pins pond-ts's reference case 9: while a window holds fewer than
// MinSamples rows its outputs are missing, rows with a missing value
// included, as in pond-ts.
func TestRollingWarmUp(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			name:    "5s avg with MinSamples 2 (case 9)",
			windows: []rolling.Window{win(5000, avgOf())}, opts: rolling.Options{MinSamples: 2},
			pushes: each(v(0, 10), v(1000, 20), v(20000, 99)),
			want:   []string{"0ms avg=null", "1000ms avg=15", "20000ms avg=null"},
		},
		{
			name:    "rows with a missing value count toward MinSamples",
			windows: []rolling.Window{win(5000, avgOf())}, opts: rolling.Options{MinSamples: 2},
			pushes: each(v(0, gap), v(1000, 5)),
			want:   []string{"0ms avg=null", "1000ms avg=5"},
		},
		{
			name:    "the clock path with MinSamples 10 (case 9)",
			windows: []rolling.Window{win(60_000, avgOf())}, opts: rolling.Options{Trigger: every(30_000), MinSamples: 10},
			pushes: each(v(0, 100), v(10000, 200), v(30001, 300)),
			want:   []string{"30000ms avg=null"},
		},
	})
}

// TestRollingWarmUpIsKeptInHistory: the rows emitted during warm-up are
// kept in the history, missing cells and all (pond-ts's reference case 9).
func TestRollingWarmUpIsKeptInHistory(t *testing.T) {
	s := newSeries(t, live.Options{})
	id, err := s.Rolling(s.Root(), []rolling.Window{win(5000, reduce.Agg{Out: "avg", From: "value", Using: reduce.Avg})},
		rolling.Options{MinSamples: 2, History: rolling.History{MaxEvents: 10}})
	require.NoError(t, err)
	for _, row := range []schema.Row{r(0, 10, "a"), r(1000, 20, "a"), r(20000, 99, "a")} {
		_, err := s.PushRows(nil, row)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"0ms avg=null", "1000ms avg=15", "20000ms avg=null"}, rowStrings(snapshot(t, s, id)))
}

// TestRollingHistoryIdIsNoNode: the id after a rolling with a history
// belongs to the history's hidden node. Every method given it refuses it
// with an error wrapping ErrNode that names the rolling, through which
// the history is read.
func TestRollingHistoryIdIsNoNode(t *testing.T) {
	s := newSeries(t, live.Options{})
	id, err := s.Rolling(s.Root(), []rolling.Window{win(5000, sumOf())},
		rolling.Options{History: rolling.History{MaxEvents: 10}})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 10, "a"))
	require.NoError(t, err)
	hid := id + 1
	calls := []struct {
		name string
		call func() error
	}{
		{"Snapshot", func() error { _, err := s.Snapshot(hid); return err }},
		{"Value", func() error { _, err := s.Value(hid); return err }},
		{"NodeSchema", func() error { _, err := s.NodeSchema(hid); return err }},
		{"NodeBytes", func() error { _, err := s.NodeBytes(hid); return err }},
		{"Describe", func() error { _, err := s.Describe(hid); return err }},
		{"Watch", func() error { return s.Watch(hid) }},
		{"Unwatch", func() error { return s.Unwatch(hid) }},
		{"Partitions", func() error { _, err := s.Partitions(hid); return err }},
		{"AggregateStats", func() error { _, err := s.AggregateStats(hid); return err }},
		{"a builder", func() error {
			_, err := s.Filter(hid, func(schema.Row) bool { return true })
			return err
		}},
	}
	want := fmt.Sprintf("node %d is the history of rolling node %d", hid, id)
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			require.ErrorIs(t, err, live.ErrNode)
			assert.Contains(t, err.Error(), want)
		})
	}
	assert.Equal(t, []string{"0ms sum=10"}, rowStrings(snapshot(t, s, id)), "the rolling reads its history")
}

// TestRollingUnderReorder pins pond-ts's reference case 12: a late row is emitted at
// its own time, after later rows, and its window holds the rows that
// arrived before it.
func TestRollingUnderReorder(t *testing.T) {
	runRollingCases(t, []rollingCase{
		{
			name:    "5s sum, 2000 then 1000 (case 12)",
			series:  live.Options{Ordering: live.Reorder},
			windows: []rolling.Window{win(5000, sumOf())},
			pushes:  each(v(2000, 1), v(1000, 2)),
			want:    []string{"2000ms sum=1", "1000ms sum=3"},
		},
		{
			name:    "the same inside one push",
			series:  live.Options{Ordering: live.Reorder, Grace: 5 * time.Second},
			windows: []rolling.Window{win(5000, sumOf())},
			pushes:  [][]schema.Row{batchOf(v(2000, 1), v(1000, 2))},
			want:    []string{"2000ms sum=1", "1000ms sum=3"},
		},
	})
}

// TestFusedWindows pins pond-ts's reference case 13: several time windows in one
// node, their outputs in one row in declaration order.
func TestFusedWindows(t *testing.T) {
	fused := []rolling.Window{win(5000, avgOf()), win(1000, maxOf())}
	runRollingCases(t, []rollingCase{
		{
			name:    "5s avg and 1s max; the 1s window's cutoff is inclusive",
			windows: fused,
			pushes:  each(v(0, 10), v(500, 20), v(1500, 30)),
			want:    []string{"0ms avg=10 max=10", "500ms avg=15 max=20", "1500ms avg=20 max=30"},
		},
		{
			name:    "each window evicts on its own",
			windows: fused,
			pushes:  each(v(0, 10), v(2000, 100)),
			want:    []string{"0ms avg=10 max=10", "2000ms avg=55 max=100"},
		},
		{
			name:    "under a 1s clock",
			windows: fused, opts: rolling.Options{Trigger: every(1000)},
			pushes: each(v(0, 10), v(1500, 20)),
			want:   []string{"1000ms avg=15 max=20"},
		},
		{
			name: "a window's MinSamples overrides the node's",
			windows: []rolling.Window{
				win(5000, avgOf()),
				{Span: time.Second, MinSamples: rolling.Samples(5), Aggs: []reduce.Agg{maxOf()}},
			},
			opts:   rolling.Options{MinSamples: 2},
			pushes: each(v(0, 10), v(500, 20)),
			want:   []string{"0ms avg=null max=null", "500ms avg=15 max=null"},
		},
		{
			name: "a window's MinSamples of zero turns warm-up off for it",
			windows: []rolling.Window{
				win(5000, avgOf()),
				{Span: time.Second, MinSamples: rolling.Samples(0), Aggs: []reduce.Agg{maxOf()}},
			},
			opts:   rolling.Options{MinSamples: 2},
			pushes: each(v(0, 10)),
			want:   []string{"0ms avg=null max=10"},
		},
	})
}

// TestFusedAndSingleSumsAgree pins pond-ts's reference case 14. pond-ts adds then
// evicts in its single form and evicts then adds in its fused form, so
// their plain float sums differ in the last bit: output 3 is
// 0.9999999999999999 (single) against 1 (fused), output 4 1.2 against
// 1.2000000000000002. pond-go keeps compensated sums (docs/differences.md §1), so
// the order is not observable: both forms give the window's exact sum
// rounded once, which is 1 and 1.2.
func TestFusedAndSingleSumsAgree(t *testing.T) {
	values := []float64{0.1, 0.7, 0.3, 0.9, 0.2, 0.6, 0.4}
	var rows []schema.Row
	for i, x := range values {
		rows = append(rows, v(int64(i)*600, x))
	}
	sums := func(windows []rolling.Window) []float64 {
		s, err := live.New("m", optSchema, live.Options{})
		require.NoError(t, err)
		id, err := s.Rolling(s.Root(), windows, rolling.Options{})
		require.NoError(t, err)
		tab := emitted(t, s, id, rows...)
		got, ok := tab.Numbers("sum")
		require.True(t, ok)
		return got
	}
	single := sums([]rolling.Window{win(1000, sumOf())})
	fused := sums([]rolling.Window{win(1000, sumOf()), win(5000, countOf())})
	assert.Equal(t, single, fused)
	require.Len(t, single, len(values))
	assert.Equal(t, 1.0, single[2], "output 3")
	assert.Equal(t, 1.2, single[3], "output 4")
	// Every output is the exact sum of its window's values, rounded once.
	for i := range values {
		exact := new(big.Float).SetPrec(2000)
		for k := range i + 1 {
			if int64(i-k)*600 <= 1000 {
				exact.Add(exact, big.NewFloat(values[k]))
			}
		}
		want, _ := exact.Float64()
		assert.Equal(t, want, single[i], "output %d", i+1)
	}
}

// TestRollingBuildErrors: a rolling that cannot be built is an error
// wrapping live.ErrConfig, rolling.ErrSpec and, where there is one, the
// error underneath (a bad reducer or trigger); no node is added. It
// includes the errors of pond-ts's reference case 13 as they map to Go: a duplicate
// output, a bad span (pond-ts: the key '1min'; a Go span is a
// time.Duration, so a zero or negative one), a count window among several
// and no window at all (pond-ts: {}). pond-ts's reserved key 'buffer' has
// no counterpart.
func TestRollingBuildErrors(t *testing.T) {
	sum := []reduce.Agg{sumOf()}
	cases := []struct {
		name        string
		windows     []rolling.Window
		opts        rolling.Options
		partitioned bool
		is          []error
	}{
		{name: "no window", is: []error{rolling.ErrSpec}},
		{name: "a zero span", windows: []rolling.Window{{Aggs: sum}}, is: []error{rolling.ErrSpec}},
		{name: "a negative span", windows: []rolling.Window{{Span: -time.Second, Aggs: sum}}, is: []error{rolling.ErrSpec}},
		{name: "a negative count", windows: []rolling.Window{{Count: -1, Aggs: sum}}, is: []error{rolling.ErrSpec}},
		{name: "both a span and a count", windows: []rolling.Window{{Span: time.Second, Count: 2, Aggs: sum}}, is: []error{rolling.ErrSpec}},
		{
			name:    "a count window among several",
			windows: []rolling.Window{{Count: 2, Aggs: sum}, win(1000, countOf())},
			is:      []error{rolling.ErrSpec},
		},
		{name: "a window without aggregations", windows: []rolling.Window{{Span: time.Second}}, is: []error{rolling.ErrSpec}},
		{
			name:    "a duplicate output across windows",
			windows: []rolling.Window{win(5000, sumOf()), win(1000, sumOf())},
			is:      []error{rolling.ErrSpec},
		},
		{
			name:    "an output named like the time column",
			windows: []rolling.Window{win(1000, reduce.Agg{Out: "time", From: "value", Using: reduce.Sum})},
			is:      []error{rolling.ErrSpec},
		},
		{
			name:        "an output named like the partition column",
			windows:     []rolling.Window{win(1000, reduce.Agg{Out: "host", From: "value", Using: reduce.Count})},
			partitioned: true,
			is:          []error{rolling.ErrSpec},
		},
		{
			name:    "an unknown source column",
			windows: []rolling.Window{win(1000, reduce.Agg{Out: "x", From: "nope", Using: reduce.Sum})},
			is:      []error{rolling.ErrSpec},
		},
		{
			name:    "the time column as a source",
			windows: []rolling.Window{win(1000, reduce.Agg{Out: "x", From: "time", Using: reduce.Count})},
			is:      []error{rolling.ErrSpec},
		},
		{
			name:    "an invalid reducer",
			windows: []rolling.Window{win(1000, reduce.Agg{Out: "p", From: "value", Using: reduce.Percentile(101)})},
			is:      []error{rolling.ErrSpec, reduce.ErrReducer},
		},
		{
			name:    "the zero reducer",
			windows: []rolling.Window{win(1000, reduce.Agg{Out: "x", From: "value"})},
			is:      []error{rolling.ErrSpec, reduce.ErrReducer},
		},
		{
			name:    "a reducer that does not fit its column",
			windows: []rolling.Window{win(1000, reduce.Agg{Out: "x", From: "host", Using: reduce.Sum})},
			is:      []error{rolling.ErrSpec, reduce.ErrReducer},
		},
		{
			name:    "a count trigger of zero",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{Trigger: trigger.Count(0)},
			is: []error{rolling.ErrSpec, trigger.ErrTrigger},
		},
		{
			name:    "a clock on a zero step",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{Trigger: trigger.Clock(sequence.Every(0))},
			is: []error{rolling.ErrSpec, trigger.ErrTrigger, sequence.ErrSequence},
		},
		{
			name:    "a negative MinSamples",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{MinSamples: -1},
			is: []error{rolling.ErrSpec},
		},
		{
			name:    "a negative window MinSamples",
			windows: []rolling.Window{{Span: time.Second, MinSamples: rolling.Samples(-1), Aggs: sum}},
			is:      []error{rolling.ErrSpec},
		},
		{
			name:    "a negative history bound",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{History: rolling.History{MaxEvents: -1}},
			is: []error{rolling.ErrSpec},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			src := s.Root()
			if c.partitioned {
				var err error
				src, err = s.PartitionBy(src, "host", partition.Options{})
				require.NoError(t, err)
			}
			_, err := s.Rolling(src, c.windows, c.opts)
			require.Error(t, err)
			assert.ErrorIs(t, err, live.ErrConfig)
			for _, want := range c.is {
				assert.ErrorIs(t, err, want)
			}
			var ce *live.ConfigError
			require.True(t, errors.As(err, &ce), "%T", err)
			assert.Equal(t, "rolling", ce.Op)
			var se *rolling.SpecError
			assert.True(t, errors.As(err, &se), "%T", err)

			// No node was added: the next one takes the next id.
			next, err := s.Rolling(src, []rolling.Window{win(1000, sumOf())}, rolling.Options{})
			require.NoError(t, err)
			assert.Equal(t, src+1, next)
		})
	}
}

// A rolling refused for a bad option or window says which, and quotes
// the bad value.
func TestRollingBuildErrorsQuoteTheBadValue(t *testing.T) {
	cases := []struct {
		name    string
		windows []rolling.Window
		opts    rolling.Options
		window  string // the SpecError's Window
		reason  string // its Reason
	}{
		{
			name:    "a negative count",
			windows: []rolling.Window{{Count: -3, Aggs: []reduce.Agg{sumOf()}}},
			window:  "-3", reason: "count -3 must be positive",
		},
		{
			name:    "a negative span",
			windows: []rolling.Window{{Span: -time.Second, Aggs: []reduce.Agg{sumOf()}}},
			window:  "-1s", reason: "span -1s must be positive",
		},
		{
			name:    "a named window with a negative count",
			windows: []rolling.Window{{Name: "last", Count: -1, Aggs: []reduce.Agg{sumOf()}}},
			window:  "last", reason: "count -1 must be positive",
		},
		{
			name:    "a count window's MinSamples above its count",
			windows: []rolling.Window{{Count: 3, MinSamples: rolling.Samples(4), Aggs: []reduce.Agg{sumOf()}}},
			window:  "3", reason: "MinSamples 4 is more than the 3 rows the count window holds",
		},
		{
			name:    "a count window under an Options.MinSamples above its count",
			windows: []rolling.Window{{Count: 2, Aggs: []reduce.Agg{sumOf()}}}, opts: rolling.Options{MinSamples: 5},
			window: "2", reason: "MinSamples 5 is more than the 2 rows the count window holds",
		},
		{
			name:    "two unnamed windows of one span",
			windows: []rolling.Window{win(1000, sumOf()), win(1000, sumOf())},
			window:  "1s", reason: "duplicate window name",
		},
		{
			name:    "a window named as another's span is written",
			windows: []rolling.Window{win(1000, sumOf()), {Name: "1s", Span: 2 * time.Second, Aggs: []reduce.Agg{sumOf()}}},
			window:  "1s", reason: "duplicate window name",
		},
		{
			name:    "a negative history MaxEvents",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{History: rolling.History{MaxEvents: -1}},
			reason: "History.MaxEvents -1 must not be negative",
		},
		{
			name:    "a negative history MaxAge",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{History: rolling.History{MaxAge: -time.Second}},
			reason: "History.MaxAge -1s must not be negative",
		},
		{
			name:    "a history MaxAge longer than the longest duration",
			windows: []rolling.Window{win(1000, sumOf())}, opts: rolling.Options{History: rolling.History{MaxAge: sequence.MaxDuration + 1}},
			reason: "History.MaxAge 1281023h53m38.427387905s is longer than 1281023h53m38.427387904s",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			_, err := s.Rolling(s.Root(), c.windows, c.opts)
			var se *rolling.SpecError
			require.True(t, errors.As(err, &se), "%v", err)
			assert.Equal(t, c.window, se.Window)
			assert.Equal(t, c.reason, se.Reason)
		})
	}
}

// Two windows of one span are allowed when each has a Name, and each
// computes its own outputs over the same rows.
func TestNamedWindowsOfOneSpan(t *testing.T) {
	s := newSeries(t, live.Options{})
	a, b := win(1000, sumOf()), win(1000, maxOf())
	a.Name, b.Name = "sums", "peaks"
	roll, err := s.Rolling(s.Root(), []rolling.Window{a, b}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	outs, err := s.PushRows(nil, r(0, 1, "a"), r(500, 4, "a"), r(1500, 2, "a"))
	require.NoError(t, err)
	tab, ok := live.Find(outs, roll, live.Event)
	require.True(t, ok)
	assert.Equal(t, []string{"0ms sum=1 max=1", "500ms sum=5 max=4", "1500ms sum=6 max=4"}, rowStrings(tab))
}

// A rolling refused for one of its options names the option in its
// SpecError's Option and its ConfigError's Field.
func TestRollingOptionErrorsNameTheOption(t *testing.T) {
	cases := []struct {
		name    string
		opts    rolling.Options
		windows []rolling.Window
		option  string
		field   string // the ConfigError's Field, when not the option
	}{
		{name: "a bad trigger", opts: rolling.Options{Trigger: trigger.Count(0)}, option: "Trigger"},
		{name: "a negative MinSamples", opts: rolling.Options{MinSamples: -1}, option: "MinSamples"},
		{name: "aligned on an event trigger", opts: rolling.Options{Aligned: true}, option: "Aligned"},
		{name: "a negative history MaxEvents", opts: rolling.Options{History: rolling.History{MaxEvents: -1}}, option: "History.MaxEvents"},
		{name: "a negative history MaxAge", opts: rolling.Options{History: rolling.History{MaxAge: -1}}, option: "History.MaxAge"},
		{
			name: "aligned over too many panes", opts: rolling.Options{Aligned: true, Trigger: every(1)},
			windows: []rolling.Window{{Name: "long", Span: 100 * time.Hour, Aggs: []reduce.Agg{sumOf()}}},
			option:  "Aligned", field: "long",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			windows := c.windows
			if windows == nil {
				windows = []rolling.Window{win(1000, sumOf())}
			}
			_, err := s.Rolling(s.Root(), windows, c.opts)
			var se *rolling.SpecError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, c.option, se.Option)
			var ce *live.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, cmp.Or(c.field, c.option), ce.Field)
			assert.Contains(t, err.Error(), c.option)
		})
	}
}
