package live_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

var metricsSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "value", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String, Optional: true},
)

func ms(t int64) int64 { return t * int64(time.Millisecond) }

func r(t int64, v float64, host string) schema.Row {
	h := schema.StringValue(host)
	if host == "" {
		h = schema.Missing()
	}
	return schema.Row{schema.MillisValue(t), schema.NumberValue(v), h}
}

func newSeries(t *testing.T, opts live.Options) *live.Series {
	t.Helper()
	s, err := live.New("metrics", metricsSchema, opts)
	require.NoError(t, err)
	return s
}

func values(tab *schema.Table) []float64 {
	v, _ := tab.Numbers("value")
	return append([]float64(nil), v...)
}

func TestNewValidatesOptions(t *testing.T) {
	cases := []struct {
		name string
		opts live.Options
	}{
		{"negative max age", live.Options{MaxAge: -time.Second}},
		{"negative max events", live.Options{MaxEvents: -1}},
		{"grace without reorder", live.Options{Grace: time.Second}},
		{"grace under drop", live.Options{Ordering: live.Drop, Grace: time.Second}},
		{"grace longer than max age", live.Options{Ordering: live.Reorder, Grace: 10 * time.Second, MaxAge: 5 * time.Second}},
		{"unknown ordering", live.Options{Ordering: 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := live.New("m", metricsSchema, c.opts)
			require.ErrorIs(t, err, live.ErrConfig)
			var ce *live.ConfigError
			require.True(t, errors.As(err, &ce))
			assert.NotEmpty(t, ce.Field)
		})
	}
	_, err := live.New("m", nil, live.Options{})
	assert.ErrorIs(t, err, live.ErrConfig)
	assert.ErrorIs(t, err, schema.ErrSchema)
	// A zero Schema (not built with schema.New) is refused the same way,
	// with the schema's own reason, not a panic.
	_, err = live.New("m", &schema.Schema{}, live.Options{})
	assert.ErrorIs(t, err, live.ErrConfig)
	assert.ErrorIs(t, err, schema.ErrSchema)
	_, err = live.ParseOrdering("sideways")
	assert.ErrorIs(t, err, live.ErrConfig)
}

func TestWatchRejectsUnknownNodesAndKinds(t *testing.T) {
	s := newSeries(t, live.Options{})
	assert.ErrorIs(t, s.Watch(7, live.Event), live.ErrNode)
	assert.ErrorIs(t, s.Watch(-1), live.ErrNode)
	assert.ErrorIs(t, s.Watch(s.Root(), live.OutputKind(9)), live.ErrNode)
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}, rolling.Options{})
	require.NoError(t, err)
	assert.ErrorIs(t, s.Watch(roll, live.Evict), live.ErrNode, "a rolling never evicts")
	assert.NoError(t, s.Watch(roll))
	_, err = s.NodeSchema(42)
	assert.ErrorIs(t, err, live.ErrNode)
}

func TestUnwatchRejectsAnInvalidKindAndUnwatchesNothing(t *testing.T) {
	s := newSeries(t, live.Options{})
	require.NoError(t, s.Watch(s.Root(), live.Event))
	err := s.Unwatch(s.Root(), live.Event, live.OutputKind(9))
	require.ErrorIs(t, err, live.ErrNode)
	assert.Contains(t, err.Error(), "kind(9)")
	out, err := s.PushRows(nil, r(1000, 1, "a"))
	require.NoError(t, err)
	assert.Len(t, out, 1, "the root's events are still watched")

	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}, rolling.Options{})
	require.NoError(t, err)
	assert.NoError(t, s.Unwatch(roll, live.Evict), "a kind the node does not produce is not watched: nothing to do")
	assert.NoError(t, s.Unwatch(s.Root()))
	out, err = s.PushRows(nil, r(2000, 1, "a"))
	require.NoError(t, err)
	assert.Empty(t, out)
}

func TestAllEndsWhenAPushInsideTheLoopChangesTheRows(t *testing.T) {
	for name, opts := range map[string]live.Options{
		"evicting by age":   {MaxAge: time.Second},
		"evicting by count": {MaxEvents: 3},
		"keeping all":       {},
		"reordering":        {Ordering: live.Reorder},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSeries(t, opts)
			_, err := s.PushRows(nil, r(1000, 1, "a"), r(1100, 2, "a"), r(1200, 3, "a"))
			require.NoError(t, err)
			var seen []schema.Row
			for _, row := range s.All() {
				seen = append(seen, row)
				_, err := s.PushRows(nil, r(100000, 9, "b"))
				require.NoError(t, err)
			}
			assert.Equal(t, []schema.Row{r(1000, 1, "a")}, seen, "no row the series does not hold")
			n := 0
			for range s.All() {
				n++
			}
			assert.Equal(t, s.Len(), n, "a later iteration reads every row")
		})
	}
}

func TestNodeBytesCountsTheRowsAViewOrAHistoryKeeps(t *testing.T) {
	s := newSeries(t, live.Options{})
	win, err := s.WindowCount(s.Root(), 1000)
	require.NoError(t, err)
	fill, err := s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold})
	require.NoError(t, err)
	sample, err := s.Sample(s.Root(), 2)
	require.NoError(t, err)
	windows := []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}
	plain, err := s.Rolling(s.Root(), windows, rolling.Options{})
	require.NoError(t, err)
	kept, err := s.Rolling(s.Root(), windows, rolling.Options{History: rolling.History{MaxEvents: 1000}})
	require.NoError(t, err)
	overRolling, err := s.Filter(plain, func(schema.Row) bool { return true })
	require.NoError(t, err)
	bytes := func(id live.NodeID) int {
		n, err := s.NodeBytes(id)
		require.NoError(t, err)
		return n
	}
	before := map[live.NodeID]int{win: bytes(win), fill: bytes(fill), sample: bytes(sample)}
	for i := range 200 {
		_, err := s.PushRows(nil, r(int64(i), float64(i), "a"))
		require.NoError(t, err)
	}
	for id, b := range before {
		assert.Greater(t, bytes(id), b, "node %d keeps rows or keys", id)
	}
	assert.GreaterOrEqual(t, bytes(win), 200*16, "a window's 200 rows: their keys at least")
	assert.Greater(t, bytes(kept), bytes(plain), "a rolling's history counts with it")
	assert.Zero(t, bytes(overRolling), "a filter over a rolling keeps nothing")
}

func TestStrictPushIsAtomicAndNamesTheRow(t *testing.T) {
	s := newSeries(t, live.Options{})
	require.NoError(t, s.Watch(s.Root(), live.Event))
	out, err := s.PushRows(nil, r(1000, 1, "a"))
	require.NoError(t, err)
	require.Len(t, out, 1)

	// pond-ts's reference case 1: 500 after 1000 is out of order; nothing stored.
	out, err = s.PushRows(out[:0], r(1000, 2, "a"), r(500, 1, "a"))
	require.ErrorIs(t, err, live.ErrOutOfOrder)
	var oe *live.OrderError
	require.True(t, errors.As(err, &oe))
	assert.Equal(t, 1, oe.Row)
	assert.Equal(t, ms(500), oe.Time)
	assert.Equal(t, ms(1000), oe.Latest)
	assert.Contains(t, err.Error(), "row 1 at 500ms is out of order")
	assert.Empty(t, out)
	assert.Equal(t, live.Stats{Ingested: 1, Length: 1}, s.Stats())

	// pond-ts's reference case 6: a bad cell rejects the whole push.
	_, err = s.PushRows(nil, r(2000, 1, "a"), schema.Row{schema.MillisValue(3000), schema.StringValue("bad"), schema.Missing()}, r(4000, 3, "a"))
	require.ErrorIs(t, err, schema.ErrValidation)
	var re *schema.RowError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, 1, re.Row)
	assert.Equal(t, 1, re.Column)
	assert.Equal(t, 1, s.Len())
}

func TestPushManyRefusesANilBatch(t *testing.T) {
	for _, opts := range []live.Options{{}, {Ordering: live.Reorder, Grace: time.Second}} {
		s := newSeries(t, opts)
		require.NoError(t, s.Watch(s.Root(), live.Event))
		dst := make([]live.Output, 1, 4)
		out, err := s.PushMany(dst, nil)
		var re *schema.RowError
		require.ErrorAs(t, err, &re)
		assert.ErrorIs(t, err, schema.ErrValidation)
		assert.Equal(t, schema.RowLength, re.Reason)
		assert.Equal(t, -1, re.Row)
		assert.Contains(t, err.Error(), "nil")
		assert.Len(t, out, 1, "dst is returned unchanged")
		assert.Equal(t, live.Stats{}, s.Stats())
		_, err = s.PushRows(nil, r(1000, 1, "a"))
		assert.NoError(t, err, "the series still takes pushes")
	}
}

func TestStrictPushOfAnUnsortedBatchReportsABadCellOrTimeFirst(t *testing.T) {
	batch := func(times []int64, values []float64) *schema.Batch {
		b := schema.NewBatch(metricsSchema, len(times))
		b.Time = times
		b.Cols[0].Num = values
		b.Cols[1].Str = make([]string, len(times))
		return b
	}
	nan := math.NaN()
	cases := []struct {
		name   string
		b      *schema.Batch
		reason schema.Reason // 0: the order is the problem
		row    int
	}{
		{"out of order only", batch([]int64{ms(3), ms(1), ms(2)}, []float64{1, 2, 3}), 0, 1},
		{"out of order, then a NaN", batch([]int64{ms(3), ms(1), ms(2)}, []float64{1, 2, nan}), schema.NonFinite, 2},
		{"out of order, then a time out of range", batch([]int64{ms(3), ms(1), schema.MaxTime + 1}, []float64{1, 2, 3}), schema.TimeRange, 2},
		{"in order, the last time out of range", batch([]int64{ms(1), ms(2), schema.MaxTime + 1}, []float64{1, 2, 3}), schema.TimeRange, 2},
		{"in order, the first time out of range", batch([]int64{schema.MinTime - 1, ms(1), ms(2)}, []float64{1, 2, 3}), schema.TimeRange, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			out, err := s.PushMany(nil, c.b)
			assert.Empty(t, out)
			assert.Equal(t, 0, s.Len(), "nothing stored")
			if c.reason == 0 {
				var oe *live.OrderError
				require.True(t, errors.As(err, &oe), "%v", err)
				assert.Equal(t, c.row, oe.Row)
				return
			}
			var re *schema.RowError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, c.reason, re.Reason)
			assert.Equal(t, c.row, re.Row)
		})
	}
}

func TestDropModeCountsRejected(t *testing.T) {
	// pond-ts's reference case 2.
	s := newSeries(t, live.Options{Ordering: live.Drop})
	_, err := s.PushRows(nil, r(1000, 1, ""), r(500, 1, ""), r(1000, 2, ""))
	require.NoError(t, err)
	assert.Equal(t, live.Stats{Ingested: 2, Rejected: 1, Length: 2}, s.Stats())
}

func TestReorderInsertsInTimeOrderWithinGrace(t *testing.T) {
	s := newSeries(t, live.Options{Ordering: live.Reorder, Grace: 5 * time.Second})
	_, err := s.PushRows(nil, r(10000, 1, ""))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(5000, 2, ""))
	require.NoError(t, err, "exactly grace late is accepted")
	_, err = s.PushRows(nil, r(4999, 3, ""))
	require.ErrorIs(t, err, live.ErrLate)
	var oe *live.OrderError
	require.True(t, errors.As(err, &oe))
	assert.Equal(t, 5*time.Second, oe.Grace)

	s2 := newSeries(t, live.Options{Ordering: live.Reorder})
	_, err = s2.PushRows(nil, r(1000, 10, ""), r(1000, 20, ""), r(500, 5, ""))
	require.NoError(t, err)
	var got []float64
	for _, row := range s2.All() {
		f, _ := row[1].Num()
		got = append(got, f)
	}
	assert.Equal(t, []float64{5, 10, 20}, got)
}

// TestEvictionsWatchedDuringAPushStartWithTheNextPush: the root's
// evictions watched, then not, then watched again from inside a push (by
// a filter's function, before retention) are returned from the next push
// on, and then are that push's evictions only, not also those of the last
// push that was watched. (A push resets the root's eviction frame only
// while someone reads it, so the frame must be emptied when no one does
// any more.) The filter is built on a rolling, which does not follow the
// root's evictions.
func TestEvictionsWatchedDuringAPushStartWithTheNextPush(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 2})
	avg, err := s.Rolling(s.Root(), []rolling.Window{
		{Span: time.Minute, Aggs: []reduce.Agg{{Out: "avg", From: "value", Using: reduce.Avg}}},
	}, rolling.Options{})
	require.NoError(t, err)
	watchNow := false
	_, err = s.Filter(avg, func(schema.Row) bool {
		if watchNow {
			require.NoError(t, s.Watch(s.Root(), live.Evict))
		}
		return true
	})
	require.NoError(t, err)
	require.NoError(t, s.Watch(s.Root(), live.Evict))
	out, err := s.PushRows(nil, r(0, 1, ""), r(1, 2, ""), r(2, 3, ""))
	require.NoError(t, err)
	require.Len(t, out, 1)
	require.Equal(t, []float64{1}, values(out[0].Events))

	require.NoError(t, s.Unwatch(s.Root(), live.Evict))
	watchNow = true
	out, err = s.PushRows(nil, r(3, 4, ""))
	require.NoError(t, err)
	assert.Empty(t, out, "the push in which Watch ran returns what was watched when it began")

	watchNow = false
	out, err = s.PushRows(nil, r(4, 5, ""))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, []float64{3}, values(out[0].Events))
}

// TestWatchDuringAPushTakesEffectAfterIt: a reader who watches a node
// from inside a push (a filter's function) gets none of that push's
// outputs of the newly watched kinds, and from the next push on every
// one of them: what it holds after the push (the node's Snapshot), plus
// the later events, minus the later evictions, is what the node holds.
// Unwatching from inside a push likewise leaves that push's outputs as
// they were watched when it began.
func TestWatchDuringAPushTakesEffectAfterIt(t *testing.T) {
	cases := []struct {
		name   string
		before []live.OutputKind // watched on the window before the push
		during func(s *live.Series, win live.NodeID) error
		first  map[live.OutputKind][]float64 // the window's outputs of the push
		second map[live.OutputKind][]float64 // and of the next push
	}{
		{
			name:   "events and evictions watched during the push",
			during: func(s *live.Series, win live.NodeID) error { return s.Watch(win, live.Event, live.Evict) },
			first:  map[live.OutputKind][]float64{},
			second: map[live.OutputKind][]float64{live.Event: {3}, live.Evict: {2}},
		},
		{
			name:   "evictions watched during the push, events before it",
			before: []live.OutputKind{live.Event},
			during: func(s *live.Series, win live.NodeID) error { return s.Watch(win, live.Evict) },
			first:  map[live.OutputKind][]float64{live.Event: {1, 2}},
			second: map[live.OutputKind][]float64{live.Event: {3}, live.Evict: {2}},
		},
		{
			name:   "everything unwatched during the push",
			before: []live.OutputKind{live.Event, live.Evict},
			during: func(s *live.Series, win live.NodeID) error { return s.Unwatch(win) },
			first:  map[live.OutputKind][]float64{live.Event: {1, 2}, live.Evict: {1}},
			second: map[live.OutputKind][]float64{},
		},
	}
	byKind := func(out []live.Output, win live.NodeID) map[live.OutputKind][]float64 {
		got := map[live.OutputKind][]float64{}
		for _, o := range out {
			if o.Node == win {
				got[o.Kind] = values(o.Events)
			}
		}
		return got
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			win, err := s.WindowCount(s.Root(), 1)
			require.NoError(t, err)
			if c.before != nil {
				require.NoError(t, s.Watch(win, c.before...))
			}
			once := true
			_, err = s.Filter(s.Root(), func(schema.Row) bool {
				if once {
					once = false
					require.NoError(t, c.during(s, win))
				}
				return true
			})
			require.NoError(t, err)

			out, err := s.PushRows(nil, r(0, 1, ""), r(1, 2, ""))
			require.NoError(t, err)
			assert.Equal(t, c.first, byKind(out, win))
			snap, err := s.Snapshot(win)
			require.NoError(t, err)
			assert.Equal(t, []float64{2}, values(snap))

			out, err = s.PushRows(nil, r(2, 3, ""))
			require.NoError(t, err)
			assert.Equal(t, c.second, byKind(out, win))
		})
	}
}

// TestUnwatchKeepsTheLastPushsTables: the tables a push returned stay as
// they were until the next push, even when their node is unwatched in
// between.
func TestUnwatchKeepsTheLastPushsTables(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 1})
	require.NoError(t, s.Watch(s.Root(), live.Event, live.Evict))
	_, err := s.PushRows(nil, r(0, 1, ""))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(1, 2, ""))
	require.NoError(t, err)
	require.Len(t, out, 2)
	require.NoError(t, s.Unwatch(s.Root()))
	assert.Equal(t, []float64{2}, values(out[0].Events))
	assert.Equal(t, []float64{1}, values(out[1].Events))

	out, err = s.PushRows(nil, r(2, 3, ""))
	require.NoError(t, err)
	assert.Empty(t, out, "unwatched from this push on")
}

// TestBuildingANodeKeepsTheLastPushsTables: a node built (or a
// PerPartition that fails) after an Unwatch leaves the change for the next
// push, so the tables the last push returned keep their rows.
func TestBuildingANodeKeepsTheLastPushsTables(t *testing.T) {
	keep := func(schema.Row) bool { return true }
	cases := []struct {
		name  string
		build func(s *live.Series, byHost live.NodeID) error
	}{
		{"a node is built", func(s *live.Series, byHost live.NodeID) error {
			_, err := s.Filter(byHost, keep) // not reading the root's evictions
			return err
		}},
		{"a PerPartition fails", func(s *live.Series, byHost live.NodeID) error {
			_, err := s.PerPartition(byHost, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
				if _, err := s.Filter(p, keep); err != nil {
					return 0, err
				}
				return 0, errors.New("boom")
			})
			if err == nil {
				return errors.New("PerPartition did not fail")
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{MaxEvents: 1})
			byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
			require.NoError(t, err)
			require.NoError(t, s.Watch(s.Root(), live.Evict))
			_, err = s.PushRows(nil, r(0, 1, "a"))
			require.NoError(t, err)
			out, err := s.PushRows(nil, r(1, 2, "a"))
			require.NoError(t, err)
			require.Len(t, out, 1)
			require.NoError(t, s.Unwatch(s.Root()))
			require.NoError(t, c.build(s, byHost))
			assert.Equal(t, []float64{1}, values(out[0].Events))

			out, err = s.PushRows(nil, r(2, 3, "a"))
			require.NoError(t, err)
			assert.Empty(t, out, "unwatched from this push on")
		})
	}
}

func TestRetentionEvictsAfterThePush(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 2})
	require.NoError(t, s.Watch(s.Root(), live.Event, live.Batch, live.Evict))
	out, err := s.PushRows(nil, r(0, 10, ""), r(1000, 20, ""), r(2000, 30, ""))
	require.NoError(t, err)
	require.Len(t, out, 3)
	// Order: Event, Batch, Evict.
	assert.Equal(t, []live.OutputKind{live.Event, live.Batch, live.Evict}, []live.OutputKind{out[0].Kind, out[1].Kind, out[2].Kind})
	assert.Equal(t, []float64{10, 20, 30}, values(out[0].Events), "every row is emitted, even the evicted one")
	assert.Equal(t, []float64{10}, values(out[2].Events))
	assert.Equal(t, 2, s.Len())

	a := newSeries(t, live.Options{MaxAge: 5 * time.Second})
	_, err = a.PushRows(nil, r(0, 1, ""), r(5000, 2, ""))
	require.NoError(t, err)
	assert.Equal(t, 2, a.Len(), "a row exactly MaxAge old stays")
	_, err = a.PushRows(nil, r(7000, 3, ""))
	require.NoError(t, err)
	assert.Equal(t, 2, a.Len())
	latest, ok := a.LatestNanos()
	assert.True(t, ok)
	assert.Equal(t, ms(7000), latest)
	at, _ := a.Latest()
	assert.Equal(t, time.UnixMilli(7000).UTC(), at)
}

// With both MaxAge and MaxEvents set, the limit that evicts more rows
// wins, whichever it is (Options.MaxEvents).
func TestWithBothLimitsTheLargerEvictionWins(t *testing.T) {
	cases := []struct {
		name string
		opts live.Options
		want []float64
	}{
		{"age evicts more", live.Options{MaxAge: time.Second, MaxEvents: 3}, []float64{4}},
		{"count evicts more", live.Options{MaxAge: time.Minute, MaxEvents: 2}, []float64{3, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, c.opts)
			_, err := s.PushRows(nil, r(0, 1, ""), r(100, 2, ""), r(200, 3, ""), r(5000, 4, ""))
			require.NoError(t, err)
			snap, err := s.Snapshot(s.Root())
			require.NoError(t, err)
			assert.Equal(t, c.want, values(snap))
		})
	}
}

func TestOutputsAreOrderedByKindThenNode(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 1})
	aggs := []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}
	a, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{})
	require.NoError(t, err)
	b, err := s.Rolling(s.Root(), []rolling.Window{{Count: 2, Aggs: aggs}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(b))
	require.NoError(t, s.Watch(s.Root(), live.Evict, live.Event))
	require.NoError(t, s.Watch(a))
	out, err := s.PushRows(nil, r(0, 1, ""), r(1, 1, ""))
	require.NoError(t, err)
	type tag struct {
		node live.NodeID
		kind live.OutputKind
	}
	var got []tag
	for _, o := range out {
		got = append(got, tag{o.Node, o.Kind})
	}
	assert.Equal(t, []tag{{s.Root(), live.Event}, {a, live.Event}, {b, live.Event}, {s.Root(), live.Evict}}, got)

	require.NoError(t, s.Unwatch(a))
	out, err = s.PushRows(out[:0], r(2, 1, ""))
	require.NoError(t, err)
	for _, o := range out {
		assert.NotEqual(t, a, o.Node)
	}
}

func TestSteadyPushDoesNotAllocate(t *testing.T) {
	s := newSeries(t, live.Options{MaxAge: time.Second})
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: 500 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "avg", From: "value", Using: reduce.Avg},
		{Out: "max", From: "value", Using: reduce.Max},
	}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	require.NoError(t, s.Watch(s.Root(), live.Evict))
	assert.Zero(t, steadyPushAllocs(t, s, "h"))
}

// steadyPushAllocs pushes 50 batches of 100 rows (10 ms apart, values
// 0..99, hosts taken in turn from hosts) to reach a steady state, then
// returns the allocations of one more such push.
func steadyPushAllocs(t *testing.T, s *live.Series, hosts ...string) uint64 {
	t.Helper()
	b := schema.NewBatch(metricsSchema, 100)
	next := int64(0)
	fill := func() {
		b.Reset()
		for i := range 100 {
			b.Time = append(b.Time, ms(next))
			b.Cols[0].Num = append(b.Cols[0].Num, float64(i))
			b.Cols[1].Str = append(b.Cols[1].Str, hosts[i%len(hosts)])
			next += 10
		}
	}
	var out []live.Output
	for range 50 {
		fill()
		var err error
		out, err = s.PushMany(out[:0], b)
		require.NoError(t, err)
	}
	return allocs.Count(20, func() {
		fill()
		out, _ = s.PushMany(out[:0], b)
	})
}

func TestPartitionGroupsAndLimitsRejectThePush(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.PartitionBy(s.Root(), "host", partition.Options{Groups: partition.Strings("a", "b")})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 1, "c"))
	require.ErrorIs(t, err, partition.ErrUnknownGroup)
	var ke *partition.KeyError
	require.True(t, errors.As(err, &ke))
	assert.Equal(t, 1, ke.Row)
	assert.Equal(t, zeroStats, s.Stats(), "nothing was stored")

	l := newSeries(t, live.Options{})
	_, err = l.PartitionBy(l.Root(), "host", partition.Options{MaxPartitions: 2})
	require.NoError(t, err)
	_, err = l.PushRows(nil, r(0, 1, "a"), r(1, 1, "b"), r(2, 1, "a"))
	require.NoError(t, err)
	_, err = l.PushRows(nil, r(3, 1, "a"), r(4, 1, "c"))
	require.ErrorIs(t, err, partition.ErrLimit)
	assert.Equal(t, 3, l.Len())
}

var zeroStats live.Stats

func TestPartitionIdleTTLFreesPartitions(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxPartitions: 2, IdleTTL: 10 * time.Second})
	require.NoError(t, err)
	roll, err := s.Rolling(p, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(5 * time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1000, 1, "b"))
	require.NoError(t, err)
	// b keeps reporting, a goes quiet for longer than the TTL.
	_, err = s.PushRows(nil, r(11000, 1, "b"))
	require.NoError(t, err)
	// a has been removed: c fits under the limit, and the tick has b and c.
	out, err := s.PushRows(nil, r(12000, 1, "c"), r(15000, 1, "b"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	hosts, _ := out[0].Events.Strings("host")
	assert.Equal(t, []string{"b", "c"}, hosts)
	n, _ := out[0].Events.Numbers("n")
	assert.Equal(t, []float64{3, 1}, n)
}

// Declared groups outlive IdleTTL: a quiet one keeps its partition and
// its rows.
func TestPartitionIdleTTLKeepsDeclaredGroups(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{Groups: partition.Strings("a", "b"), IdleTTL: time.Second})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, "a"), r(0, 2, "b"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(10000, 3, "a")) // b quiet for 10 s
	require.NoError(t, err)
	parts, err := s.Partitions(p)
	require.NoError(t, err)
	require.Len(t, parts, 2)
	assert.True(t, schema.StringValue("b").Equal(parts[1].Key), "b is still listed")
	assert.Equal(t, 1, parts[1].Length, "with its row")
	assert.Equal(t, []float64{1, 2, 3}, values(snapshot(t, s, p)))
}

// TestPartitionExpiredBeforeItsFirstTick: a partition that expires while
// its rows still wait for the clock's next tick takes them with it; a new
// key given the same slot starts empty.
func TestPartitionExpiredBeforeItsFirstTick(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: time.Second})
	require.NoError(t, err)
	roll, err := s.Rolling(p, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(10 * time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(500, 1, "b"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(2000, 1, "b")) // a expires, before any tick
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3000, 1, "c"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(10000, 1, "b"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	hosts, _ := out[0].Events.Strings("host")
	assert.Equal(t, []string{"b", "c"}, hosts)
	n, _ := out[0].Events.Numbers("n")
	assert.Equal(t, []float64{3, 1}, n, "a's row left with a")
}

func TestNumericPartitionKeepsItsKind(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "value", Kind: schema.Number},
		schema.Column{Name: "shard", Kind: schema.Number, Optional: true},
	)
	s, err := live.New("m", sch, live.Options{})
	require.NoError(t, err)
	p, err := s.PartitionBy(s.Root(), "shard", partition.Options{})
	require.NoError(t, err)
	roll, err := s.Rolling(p, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	out, err := s.PushRows(nil,
		schema.Row{schema.MillisValue(0), schema.NumberValue(1), schema.NumberValue(7)},
		schema.Row{schema.MillisValue(1), schema.NumberValue(2), schema.Missing()},
		schema.Row{schema.MillisValue(2), schema.NumberValue(3), schema.NumberValue(7)},
		schema.Row{schema.MillisValue(3), schema.NumberValue(4), schema.NumberValue(math.Copysign(0, -1))},
		schema.Row{schema.MillisValue(4), schema.NumberValue(5), schema.NumberValue(0)},
	)
	require.NoError(t, err)
	tab := out[0].Events
	assert.Equal(t, schema.Number, tab.Schema().Column(1).Kind)
	shards, _ := tab.Numbers("shard")
	sums, _ := tab.Numbers("sum")
	assert.Equal(t, 7.0, shards[0])
	assert.True(t, math.IsNaN(shards[1]), "a missing key is its own partition with a missing key")
	assert.Equal(t, []float64{1, 2, 4, 4, 9}, sums, "-0 and 0 are one partition")
}

func TestSampleCountsPerPartition(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	sampled, err := s.Sample(p, 2)
	require.NoError(t, err)
	roll, err := s.Rolling(sampled, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(sampled))
	require.NoError(t, s.Watch(roll))
	out, err := s.PushRows(nil, r(0, 1, "a"), r(1, 10, "b"), r(2, 2, "a"), r(3, 20, "b"), r(4, 3, "a"), r(5, 4, "a"))
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, []float64{2, 20, 4}, values(out[0].Events), "every second row of each host")
	sums, _ := out[1].Events.Numbers("sum")
	hosts, _ := out[1].Events.Strings("host")
	assert.Equal(t, []string{"a", "b", "a"}, hosts)
	assert.Equal(t, []float64{2, 20, 6}, sums)
	_, err = s.Sample(p, 0)
	assert.ErrorIs(t, err, live.ErrConfig)
}
