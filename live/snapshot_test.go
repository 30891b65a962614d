package live_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func TestSnapshotOfEveryNodeThatHoldsRows(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 4, Ordering: live.Reorder})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	w, err := s.WindowCount(s.Root(), 2)
	require.NoError(t, err)
	sel, err := s.Select(w, "host")
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3000, 3, "b"), r(1000, 1, "a"), r(2000, 2, "b"), r(4000, 4, "a"), r(0, 0, "c"))
	require.NoError(t, err)

	cases := []struct {
		name string
		node live.NodeID
		want []int64
	}{
		{"root, in key order", s.Root(), []int64{1000, 2000, 3000, 4000}},
		// b keeps its newest row, 3000: 2000 came late, and left at once.
		{"partitions, merged in key order", byHost, []int64{0, 3000, 4000}},
		{"window", w, []int64{3000, 4000}},
		{"select over the window", sel, []int64{3000, 4000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, times(snapshot(t, s, c.node)))
		})
	}
	hosts, ok := snapshot(t, s, sel).Strings("host")
	require.True(t, ok)
	assert.Equal(t, []string{"b", "a"}, hosts)
}

func TestSnapshotIsACopy(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 2})
	_, err := s.PushRows(nil, r(0, 1, "a"), r(1, 2, "a"))
	require.NoError(t, err)
	snap := snapshot(t, s, s.Root())
	_, err = s.PushRows(nil, r(2, 3, "a"), r(3, 4, "a"))
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, values(snap), "later pushes do not change a snapshot")
	var rowsSeen []schema.Row
	for _, row := range snap.All() {
		rowsSeen = append(rowsSeen, row)
	}
	assert.Equal(t, []schema.Row{r(0, 1, "a"), r(1, 2, "a")}, rowsSeen)
}

func TestSnapshotOfNodesThatHoldNoRows(t *testing.T) {
	s := newSeries(t, live.Options{})
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: sumAgg}}, rolling.Options{})
	require.NoError(t, err)
	red, err := s.Reduce(s.Root(), sumAgg, trigger.Event())
	require.NoError(t, err)
	agg, err := s.Aggregate(s.Root(), sequence.Every(time.Second), sumAgg, 0)
	require.NoError(t, err)
	for _, n := range []live.NodeID{roll, red, agg} {
		_, err := s.Snapshot(n)
		assert.ErrorIs(t, err, live.ErrNode)
	}
	_, err = s.Snapshot(99)
	assert.ErrorIs(t, err, live.ErrNode)
}

func TestRollingHistory(t *testing.T) {
	cases := []struct {
		name string
		h    rolling.History
		want []int64
	}{
		{"max events", rolling.History{MaxEvents: 2}, []int64{2000, 3000}},
		{"max age, inclusive", rolling.History{MaxAge: 2 * time.Second}, []int64{1000, 2000, 3000}},
		{"both", rolling.History{MaxEvents: 2, MaxAge: 500 * time.Millisecond}, []int64{3000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Minute, Aggs: sumAgg}}, rolling.Options{History: c.h})
			require.NoError(t, err)
			for i := range 4 {
				_, err := s.PushRows(nil, r(int64(i*1000), float64(i), ""))
				require.NoError(t, err)
			}
			snap := snapshot(t, s, roll)
			assert.Equal(t, c.want, times(snap))
			sums, _ := snap.Numbers("sum")
			assert.Equal(t, 6.0, sums[len(sums)-1])
		})
	}
}

func TestPartitionedRollingHistory(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: sumAgg}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second)), History: rolling.History{MaxAge: time.Second}})
	require.NoError(t, err)
	for i := range 5 {
		_, err := s.PushRows(nil, r(int64(i*1000), 1, "a"), r(int64(i*1000+1), 2, "b"))
		require.NoError(t, err)
	}
	snap := snapshot(t, s, roll)
	assert.Equal(t, []int64{3000, 3000, 4000, 4000}, times(snap), "the ticks of the last second")
	hosts, _ := snap.Strings("host")
	assert.Equal(t, []string{"a", "b", "a", "b"}, hosts)
}
