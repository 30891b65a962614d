package live_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A rolling built after some pushes on a view of a partitioning (a
// filter that keeps every row, a fill, a window…) ticks its partitions
// in the order of the rows replayed, not in first-seen order. Rolling's
// doc: on a partitioned source "the partitions join the rolling in the
// order the partitioning first saw them, the order of Series.Partitions,
// as if the rolling had been there from the start"; and the synchronised
// tick emits "every partition known then, in first-seen order". With a
// partitioning of MaxEvents 1 that holds a's row at 90ms and b's at
// 10ms, the tick at 100ms comes out b, a, c, where Partitions (of the
// partitioning and of the view) lists a, b, c and the same rolling on
// the partitioning itself (TestSpRollingBuiltOnHeldRowsTicksInFirstSeenOrder)
// or built before the pushes gives a, b, c. (The fix for the rolling on
// the partitioning did not reach a rolling on a view of it.)
func TestPvwRollingBuiltLateOnAViewOfPartitionsTicksInFirstSeenOrder(t *testing.T) {
	views := []struct {
		name  string
		build func(s *live.Series, p live.NodeID) (live.NodeID, error)
	}{
		{"filter", func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			return s.Filter(p, func(schema.Row) bool { return true })
		}},
		{"fill", func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			return s.Fill(p, live.FillOptions{Strategy: live.FillHold})
		}},
		{"window", func(s *live.Series, p live.NodeID) (live.NodeID, error) { return s.Window(p, time.Hour) }},
		{"sample1", func(s *live.Series, p live.NodeID) (live.NodeID, error) { return s.Sample(p, 1) }},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			part, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			_, err = s.PushRows(nil, r(0, 1, "a"), r(10, 2, "b"), r(90, 3, "a"))
			require.NoError(t, err)
			view, err := v.build(s, part)
			require.NoError(t, err)
			roll, err := s.Rolling(view, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}},
				rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))})
			require.NoError(t, err)
			require.NoError(t, s.Watch(roll))
			out, err := s.PushRows(nil, r(100, 4, "c"))
			require.NoError(t, err)
			ps, err := s.Partitions(view)
			require.NoError(t, err)
			var listed []string
			for _, p := range ps {
				k, _ := p.Key.Str()
				listed = append(listed, k)
			}
			require.Equal(t, []string{"a", "b", "c"}, listed, "first-seen order")
			tab, ok := live.Find(out, roll, live.Event)
			require.True(t, ok)
			keys, _ := tab.Strings("host")
			require.Equal(t, listed, keys, "the tick at 100ms, in first-seen order")
		})
	}
}

// A partitioning built with a bad option is a *ConfigError whose Field is
// the partition column, not the option. ConfigError's doc: Field is "the
// option or column concerned"; partition.Options' doc: the error "names
// the option"; every other builder's Field names its bad option (New's
// "MaxEvents", Fill's "limit", Sample's "stride", Window's "span"), but
// PartitionBy(root, "host", {MaxEvents: -1}) gives Field "host" (the
// message does name MaxEvents), so a caller mapping Field back to a
// configuration key points at the column, which is not what is wrong.
// (live/partition.go:60 passes the column as the Field.)
func TestPvwPartitionByConfigErrorFieldNamesTheOption(t *testing.T) {
	for field, opts := range map[string]partition.Options{
		"MaxEvents":     {MaxEvents: -1},
		"MaxAge":        {MaxAge: -time.Second},
		"MaxPartitions": {MaxPartitions: -1},
		"IdleTTL":       {IdleTTL: -time.Second},
		"Groups":        {Groups: partition.Strings("a", "a")},
	} {
		s := newSeries(t, live.Options{})
		_, err := s.PartitionBy(s.Root(), "host", opts)
		require.ErrorIs(t, err, live.ErrConfig)
		var ce *live.ConfigError
		require.ErrorAs(t, err, &ce)
		require.Equal(t, field, ce.Field, "%v", err)
	}
}
