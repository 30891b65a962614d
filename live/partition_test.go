package live_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A partitioning that keeps one row per partition replays exactly those
// rows, in arrival order, into a rolling built later.
func TestPartitionKeepingOneRowReplaysTheLastRows(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"), r(2, 3, "a"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3, 4, "b"), r(4, 5, "c"), r(5, 6, "b"))
	require.NoError(t, err)
	roll, err := s.Rolling(p, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "sum", From: "value", Using: reduce.Sum},
		{Out: "n", From: "value", Using: reduce.Count},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	out, err := s.PushRows(nil, r(1000, 10, "a"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	hosts, _ := out[0].Events.Strings("host")
	sums, _ := out[0].Events.Numbers("sum")
	n, _ := out[0].Events.Numbers("n")
	// Held rows in arrival order: a@2 (3), c@4 (5), b@5 (6); then a's new row.
	assert.Equal(t, []string{"a", "c", "b"}, hosts)
	assert.Equal(t, []float64{13, 5, 6}, sums)
	assert.Equal(t, []float64{2, 1, 1}, n)
}

// Watching a partitioning's evictions reports each row its retention lets
// go, also with one row per partition.
func TestPartitionEvictionsAreReported(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	require.NoError(t, s.Watch(p, live.Evict))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(2, 3, "a"), r(3, 4, "a"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, []float64{1, 3}, values(out[0].Events))
}
