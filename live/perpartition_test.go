package live_test

import (
	"errors"
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

func TestPerPartitionBuildsAChainARollingConsumes(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	chain, err := s.PerPartition(byHost, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
		f, err := s.Fill(p, live.FillOptions{Strategy: live.FillHold})
		if err != nil {
			return 0, err
		}
		return s.Rate(f, "value")
	})
	require.NoError(t, err)
	roll, err := s.Rolling(chain, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "max", From: "value", Using: reduce.Max}}}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(0, 10, "b"), r(500, 3, "a"), r(500, 20, "b"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(1000, 4, "a"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	hosts, _ := out[0].Events.Strings("host")
	assert.Equal(t, []string{"a", "b"}, hosts)
	assert.Equal(t, []any{4.0, 20.0}, cells(t, out[0].Events, "max"), "per host rates: a 4/s then 2/s, b 20/s")
}

func TestPerPartitionIsAtomic(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	before, err := s.Sample(s.Root(), 1)
	require.NoError(t, err)
	boom := errors.New("boom")
	cases := []struct {
		name  string
		build func(s *live.Series, p live.NodeID) (live.NodeID, error)
		want  error
		says  string // in the message
	}{
		{"the build fails", func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			if _, err := s.Diff(p, "value"); err != nil {
				return 0, err
			}
			return 0, boom
		}, boom, "boom"},
		{"the chain merges partitions", func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			return s.Reduce(p, sumAgg, trigger.Event())
		}, live.ErrConfig, "is not per partition (a reduce, an aggregate or a gather merges partitions)"},
		{"the chain is not built on the partitions", func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			return s.Diff(s.Root(), "value")
		}, live.ErrConfig, "is not built on the partitioned node"},
		{"the result is an older node", func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			return before, nil
		}, live.ErrConfig, "is not a node the build function built"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.PerPartition(byHost, c.build)
			require.ErrorIs(t, err, c.want)
			require.ErrorContains(t, err, c.says)
			_, err = s.NodeSchema(before + 1)
			assert.ErrorIs(t, err, live.ErrNode, "the nodes the build added are gone")
		})
	}
	next, err := s.Sample(s.Root(), 1)
	require.NoError(t, err)
	assert.Equal(t, before+1, next)
}

func TestGather(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 3})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 2})
	require.NoError(t, err)
	d, err := s.Diff(byHost, "value")
	require.NoError(t, err)
	all, err := s.Gather(d)
	require.NoError(t, err)
	noHost, err := s.Select(d, "value")
	require.NoError(t, err)
	keyed, err := s.Gather(noHost)
	require.NoError(t, err)
	sch, err := s.NodeSchema(keyed)
	require.NoError(t, err)
	assert.Equal(t, []string{"time", "host", "value"}, sch.Names(), "the partition column comes back after the time")
	red, err := s.Reduce(all, []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(all))
	require.NoError(t, s.Watch(keyed))
	require.NoError(t, s.Watch(red))
	out, err := s.PushRows(nil, r(0, 1, "a"), r(1, 10, "b"), r(2, 3, "a"), r(3, 30, "b"), r(4, 4, "a"))
	require.NoError(t, err)
	require.Len(t, out, 3)
	assert.Equal(t, []int64{0, 1, 2, 3, 4}, times(out[0].Events), "arrival order")
	assert.Equal(t, []any{nil, nil, 2.0, 20.0, 1.0}, cells(t, out[0].Events, "value"))
	hosts, _ := out[1].Events.Strings("host")
	assert.Equal(t, []string{"a", "b", "a", "b", "a"}, hosts)
	// The partitions hold a: 2, 4 and b: 1, 3; the diffs of those rows.
	assert.Equal(t, []any{3.0}, cells(t, out[2].Events, "n"))
	assert.Equal(t, []int64{1, 2, 3, 4}, times(snapshot(t, s, keyed)))
}

func TestGatherOfAPartitionedRolling(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Count: 2, Aggs: sumAgg}}, rolling.Options{})
	require.NoError(t, err)
	d, err := s.Diff(roll, "sum")
	require.NoError(t, err)
	g, err := s.Gather(d)
	require.NoError(t, err)
	tab := emitted(t, s, g, r(0, 1, "a"), r(1, 10, "b"), r(2, 2, "a"), r(3, 20, "b"))
	assert.Equal(t, []any{nil, nil, 2.0, 20.0}, cells(t, tab, "sum"), "the diff of a partitioned rolling is per partition")
	hosts, _ := tab.Strings("host")
	assert.Equal(t, []string{"a", "b", "a", "b"}, hosts)
	_ = schema.Time
}

// TestNodesBuiltAfterAFailedPerPartitionTakeTheirOwnSource: the nodes a
// failed PerPartition built are forgotten, so a node built next, in their
// place, takes its own source's rows.
func TestNodesBuiltAfterAFailedPerPartitionTakeTheirOwnSource(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	big, err := s.Filter(s.Root(), func(row schema.Row) bool { x, _ := row[1].Num(); return x > 100 })
	require.NoError(t, err)
	_, err = s.PerPartition(byHost, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
		if _, err := s.Diff(p, "value"); err != nil {
			return 0, err
		}
		return 0, errors.New("boom")
	})
	require.Error(t, err)
	after, err := s.Filter(big, func(schema.Row) bool { return true })
	require.NoError(t, err)
	require.NoError(t, s.Watch(after))
	out, err := s.PushRows(nil, r(0, 1, "a"), r(1, 200, "b"), r(2, 3, "a"), r(3, 300, "b"))
	require.NoError(t, err)
	tab, ok := live.Find(out, after, live.Event)
	require.True(t, ok)
	assert.Equal(t, []float64{200, 300}, values(tab), "the rows of its source, the first filter")
}
