package live_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// closed pushes batches into an aggregate and returns the buckets it
// emitted, as "start:sum" pairs in milliseconds, per push.
func closed(t *testing.T, s *live.Series, node live.NodeID, pushes ...[]schema.Row) [][2]float64 {
	t.Helper()
	var got [][2]float64
	for _, tab := range pushAll(t, s, node, pushes...) {
		if tab == nil {
			continue
		}
		sums, _ := tab.Numbers("sum")
		for i, ts := range times(tab) {
			got = append(got, [2]float64{float64(ts), sums[i]})
		}
	}
	return got
}

var sumAgg = []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}

// TestAggregate pins pond-ts's reference cases 15 to 17.
func TestAggregate(t *testing.T) {
	every5s := sequence.Every(5 * time.Second)
	cases := []struct {
		name   string
		opts   live.Options
		seq    sequence.Sequence
		grace  time.Duration
		pushes [][]schema.Row
		want   [][2]float64
	}{
		{"closes when a row reaches the end", live.Options{}, every5s, 0,
			[][]schema.Row{rows(r(0, 10, ""), r(2000, 20, ""), r(4000, 30, "")), rows(r(5000, 40, ""))},
			[][2]float64{{0, 60}}},
		{"grace keeps a bucket open", live.Options{}, every5s, 3 * time.Second,
			[][]schema.Row{rows(r(0, 10, ""), r(2000, 20, ""), r(5000, 30, "")), rows(r(8000, 40, ""))},
			[][2]float64{{0, 30}}},
		{"a late row within grace counts", live.Options{Ordering: live.Reorder}, every5s, 3 * time.Second,
			[][]schema.Row{rows(r(0, 10, ""), r(3000, 20, ""), r(5500, 30, "")), rows(r(4500, 15, "")), rows(r(8000, 50, ""))},
			[][2]float64{{0, 45}}},
		{"a later row is dropped", live.Options{Ordering: live.Reorder}, every5s, 2 * time.Second,
			[][]schema.Row{rows(r(0, 10, ""), r(5000, 20, ""), r(7000, 30, "")), rows(r(1000, 99, "")), rows(r(10000, 1, ""), r(12000, 1, ""))},
			[][2]float64{{0, 10}, {5000, 50}}},
		{"a negative time floors", live.Options{}, every5s, 0,
			[][]schema.Row{rows(r(-1, 1, "")), rows(r(0, 2, ""))},
			[][2]float64{{-5000, 1}}},
		{"empty buckets are skipped", live.Options{}, every5s, 0,
			[][]schema.Row{rows(r(0, 1, "")), rows(r(17000, 2, ""))},
			[][2]float64{{0, 1}}},
		{"an anchor shifts the buckets", live.Options{}, every5s.WithAnchorNanos(ms(1000)), 0,
			[][]schema.Row{rows(r(0, 1, "")), rows(r(1000, 2, ""))},
			[][2]float64{{-4000, 1}}},
		{"the series' grace is the default", live.Options{Ordering: live.Reorder, Grace: 4 * time.Second}, every5s, 0,
			[][]schema.Row{rows(r(1000, 1, "")), rows(r(6000, 2, "")), rows(r(4000, 4, "")), rows(r(9000, 8, ""))},
			[][2]float64{{0, 5}}},
		{"a reorder series without a grace lends none", live.Options{Ordering: live.Reorder}, every5s, 0,
			[][]schema.Row{rows(r(0, 1, "")), rows(r(5000, 2, "")), rows(r(1000, 4, "")), rows(r(10000, 8, ""))},
			[][2]float64{{0, 1}, {5000, 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, c.opts)
			n, err := s.Aggregate(s.Root(), c.seq, sumAgg, c.grace)
			require.NoError(t, err)
			assert.Equal(t, c.want, closed(t, s, n, c.pushes...))
		})
	}
}

func TestAggregateHonoursItsGrace(t *testing.T) {
	// pond-ts's live.aggregate(seq, map, {grace: '3s'}) closes [0, 5s) at
	// 5000 (pond-ts's reference case 17); pond-go waits for 8000.
	s := newSeries(t, live.Options{})
	n, err := s.Aggregate(s.Root(), sequence.Every(5*time.Second), sumAgg, 3*time.Second)
	require.NoError(t, err)
	got := pushAll(t, s, n, rows(r(0, 1, "")), rows(r(5000, 2, "")), rows(r(8000, 3, "")))
	assert.Nil(t, got[1])
	assert.Equal(t, []int64{0}, times(got[2]))
}

func TestAggregateKeepsOnlyOpenBuckets(t *testing.T) {
	s := newSeries(t, live.Options{Ordering: live.Reorder})
	n, err := s.Aggregate(s.Root(), sequence.Every(time.Second), sumAgg, 2*time.Second)
	require.NoError(t, err)
	for i := range 100 {
		_, err := s.PushRows(nil, r(int64(i*500), 1, ""))
		require.NoError(t, err)
	}
	_, err = s.PushRows(nil, r(1000, 1, ""), r(49000, 1, ""))
	require.NoError(t, err)
	st, err := s.AggregateStats(n)
	require.NoError(t, err)
	assert.Equal(t, live.AggregateStats{Observed: 101, Dropped: 1, Closed: 47, Open: 3}, st)
	_, err = s.AggregateStats(s.Root())
	assert.ErrorIs(t, err, live.ErrNode)
}

func TestAggregateConfigErrors(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.Aggregate(s.Root(), sequence.Every(0), sumAgg, 0)
	assert.ErrorIs(t, err, live.ErrConfig)
	_, err = s.Aggregate(s.Root(), sequence.Every(time.Second), sumAgg, -time.Second)
	assert.ErrorIs(t, err, live.ErrConfig)
	_, err = s.Aggregate(s.Root(), sequence.Every(time.Second), nil, 0)
	assert.ErrorIs(t, err, live.ErrConfig)
	_, err = s.Aggregate(s.Root(), sequence.Every(time.Second), []reduce.Agg{{Out: "x", From: "host", Using: reduce.Avg}}, 0)
	assert.ErrorIs(t, err, live.ErrConfig)
}

// An aggregate built on a series that holds rows closes the buckets its
// replay passes without emitting them: Closed counts the buckets it
// emitted, so those are not among them.
func TestAggregateStatsCountOnlyEmittedBucketsAsClosed(t *testing.T) {
	s := newSeries(t, live.Options{})
	for i := range 5 {
		_, err := s.PushRows(nil, r(int64(i*1000), 1, "a"))
		require.NoError(t, err)
	}
	n, err := s.Aggregate(s.Root(), sequence.Every(time.Second), sumAgg, 0)
	require.NoError(t, err)
	st, err := s.AggregateStats(n)
	require.NoError(t, err)
	assert.Equal(t, live.AggregateStats{Observed: 5, Closed: 0, Open: 1}, st)

	got := closed(t, s, n, rows(r(5000, 1, "a")))
	assert.Equal(t, [][2]float64{{4000, 1}}, got)
	st, err = s.AggregateStats(n)
	require.NoError(t, err)
	assert.Equal(t, uint64(len(got)), st.Closed)
}

// The bucket holding the earliest times a series accepts starts before
// schema.MinTime unless a boundary falls on it. It is keyed at MinTime, so
// that no time the aggregate gives leaves the range in which time
// arithmetic cannot overflow: a window built on the aggregate keeps the
// bucket's row, where its latest time minus its span wrapped round and
// evicted the row at once.
func TestAggregateKeysABucketStartingBeforeTheRangeAtMinTime(t *testing.T) {
	s := newSeries(t, live.Options{})
	n, err := s.Aggregate(s.Root(), sequence.Every(time.Hour), sumAgg, 0)
	require.NoError(t, err)
	w, err := s.Window(n, sequence.MaxDuration)
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	require.NoError(t, s.Watch(w, live.Evict))

	_, err = s.PushRows(nil, at(schema.MinTime, 1))
	require.NoError(t, err)
	open, err := s.Value(n)
	require.NoError(t, err)
	assert.Equal(t, []int64{schema.MinTime}, open.Times(), "the open bucket")

	out, err := s.PushRows(nil, at(schema.MinTime+int64(2*time.Hour), 2))
	require.NoError(t, err)
	got, ok := live.Find(out, n, live.Event)
	require.True(t, ok)
	assert.Equal(t, []int64{schema.MinTime}, got.Times(), "the closed bucket")
	_, evicted := live.Find(out, w, live.Evict)
	assert.False(t, evicted, "a row no older than the window's span stays")
	assert.Equal(t, []int64{schema.MinTime}, snapshot(t, s, w).Times())
}
