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
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func TestFindReturnsOneNodesOutputOfOneKind(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 1})
	require.NoError(t, s.Watch(s.Root(), live.Event, live.Evict))
	out, err := s.PushRows(nil, r(0, 1, "a"), r(1000, 2, "a"))
	require.NoError(t, err)
	ev, ok := live.Find(out, s.Root(), live.Event)
	require.True(t, ok)
	assert.Equal(t, []float64{1, 2}, values(ev))
	gone, ok := live.Find(out, s.Root(), live.Evict)
	require.True(t, ok)
	assert.Equal(t, []float64{1}, values(gone))
	_, ok = live.Find(out, s.Root(), live.Batch)
	assert.False(t, ok, "not watched")
	_, ok = live.Find(out, 7, live.Event)
	assert.False(t, ok, "no such node")
}

func TestValueOfARollingIsItsLatestRow(t *testing.T) {
	s := newSeries(t, live.Options{})
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Minute, Aggs: sumAgg}}, rolling.Options{})
	require.NoError(t, err)
	v, err := s.Value(roll)
	require.NoError(t, err)
	assert.Zero(t, v.Len(), "nothing emitted yet")

	_, err = s.PushRows(nil, r(0, 1, ""), r(1000, 2, ""))
	require.NoError(t, err)
	v, err = s.Value(roll)
	require.NoError(t, err)
	assert.Equal(t, "time=1970-01-01T00:00:01Z sum=3", v.String())
}

func TestValueOfAPartitionedClockRollingIsEveryPartitionsLastTick(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: sumAgg}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, "a"), r(0, 2, "b"), r(1000, 3, "a"), r(2000, 4, "b"))
	require.NoError(t, err)
	// A push that reaches no boundary emits nothing; the value stays.
	_, err = s.PushRows(nil, r(2500, 5, "a"))
	require.NoError(t, err)
	v, err := s.Value(roll)
	require.NoError(t, err)
	assert.Equal(t, "time=1970-01-01T00:00:02Z host=\"a\" sum=4\ntime=1970-01-01T00:00:02Z host=\"b\" sum=6", v.String())
}

func TestRollingKeepsItsLatestEmissionInTheTableItEmitsInto(t *testing.T) {
	// A clock rolling emits every other push. Each emission goes into the
	// same table, the latest emission's, which the value reads between
	// them: one table with room for an emission, not two.
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: sumAgg}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll, live.Event))
	tables := map[*schema.Table]bool{}
	var out []live.Output
	for k := range int64(10) {
		out, err = s.PushRows(out[:0], r(1000*k, float64(k), "a"), r(1000*k, 1, "b"))
		require.NoError(t, err)
		if tab, ok := live.Find(out, roll, live.Event); ok {
			tables[tab] = true
		}
		out, err = s.PushRows(out[:0], r(1000*k+500, 0, "a"))
		require.NoError(t, err)
		_, emitted := live.Find(out, roll, live.Event)
		require.False(t, emitted, "push %d: no boundary reached", k)
		v, err := s.Value(roll)
		require.NoError(t, err)
		if k > 0 {
			assert.Equal(t, 2, v.Len(), "push %d: the value is the latest tick's rows", k)
		}
	}
	assert.Len(t, tables, 1, "tables emitted into")
}

func TestValueOfAReduceIsItsCurrentResult(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 2})
	red, err := s.Reduce(s.Root(), sumAgg, trigger.Count(10))
	require.NoError(t, err)
	v, err := s.Value(red)
	require.NoError(t, err)
	assert.Zero(t, v.Len())
	_, err = s.PushRows(nil, r(0, 1, ""), r(1000, 2, ""), r(2000, 4, ""))
	require.NoError(t, err)
	v, err = s.Value(red)
	require.NoError(t, err)
	assert.Equal(t, "time=1970-01-01T00:00:02Z sum=6", v.String(), "what the root holds now, though the trigger has not fired")
}

func TestValueOfAnAggregateIsItsOpenBuckets(t *testing.T) {
	s := newSeries(t, live.Options{})
	agg, err := s.Aggregate(s.Root(), sequence.Every(time.Second), sumAgg, time.Second)
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, ""), r(1500, 2, ""), r(1600, 3, ""), r(2100, 4, ""))
	require.NoError(t, err)
	v, err := s.Value(agg)
	require.NoError(t, err)
	assert.Equal(t, "time=1970-01-01T00:00:01Z sum=5\ntime=1970-01-01T00:00:02Z sum=4", v.String())
}

func TestValueOfANodeThatHoldsRowsIsAnError(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.Value(s.Root())
	assert.ErrorIs(t, err, live.ErrNode)
	_, err = s.Value(42)
	assert.ErrorIs(t, err, live.ErrNode)
}

func TestPartitionsListsKeysAndCounters(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 2})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: sumAgg}}, rolling.Options{})
	require.NoError(t, err)
	_, err = s.Partitions(s.Root())
	assert.ErrorIs(t, err, live.ErrNode, "the root is not partitioned")

	_, err = s.PushRows(nil, r(0, 1, "a"), r(1000, 2, "b"), r(2000, 3, "a"), r(3000, 4, "a"), r(4000, 5, "z"))
	require.NoError(t, err)
	want := []live.Partition{
		{Key: schema.StringValue("a"), Ingested: 3, Evicted: 1, Length: 2, Last: time.UnixMilli(3000).UTC()},
		{Key: schema.StringValue("b"), Ingested: 1, Length: 1, Last: time.UnixMilli(1000).UTC()},
		{Key: schema.StringValue("z"), Ingested: 1, Length: 1, Last: time.UnixMilli(4000).UTC()},
	}
	for _, id := range []live.NodeID{byHost, roll} {
		got, err := s.Partitions(id)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

func TestPartitionsOfAnUnknownNodeIsAnError(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.Partitions(3)
	assert.ErrorIs(t, err, live.ErrNode)
}

// Sampled is a row of a rolling with samples columns.
type Sampled struct {
	At    time.Time `pond:"time"`
	Xs    []float64 `pond:"xs"`
	Hosts []string  `pond:"hosts"`
}

func TestCodecDecodesSamplesIntoSlices(t *testing.T) {
	s := newSeries(t, live.Options{})
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Count: 2, Aggs: []reduce.Agg{
		{Out: "xs", From: "value", Using: reduce.Samples},
		{Out: "hosts", From: "host", Using: reduce.Samples},
	}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	out, err := s.PushRows(nil, r(0, 1, "a"), r(1000, 2, ""), r(2000, 3, "c"))
	require.NoError(t, err)
	c, err := schema.NewCodec[Sampled](nil)
	require.NoError(t, err)
	tab, ok := live.Find(out, roll, live.Event)
	require.True(t, ok)
	rows, err := c.Decode(nil, tab)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, []float64{1}, rows[0].Xs)
	assert.Equal(t, []float64{1, 2}, rows[1].Xs)
	assert.Equal(t, []float64{2, 3}, rows[2].Xs)
	assert.Equal(t, []string{"a"}, rows[1].Hosts, "samples skip missing cells")
	assert.Equal(t, []string{"c"}, rows[2].Hosts)

	sch, err := schema.For[Sampled]()
	require.NoError(t, err)
	assert.Equal(t, schema.Array, sch.Column(1).Kind)
	assert.True(t, sch.Column(1).Optional)
}

func TestCodecEncodesSlicesAsArrays(t *testing.T) {
	sch, err := schema.For[Sampled]()
	require.NoError(t, err)
	s, err := live.New("sampled", sch, live.Options{})
	require.NoError(t, err)
	typed, err := live.NewTyped[Sampled](s)
	require.NoError(t, err)
	_, err = typed.Push(nil, []Sampled{{At: time.UnixMilli(0), Xs: []float64{1, 2}}, {At: time.UnixMilli(1)}})
	require.NoError(t, err)
	snap, err := s.Snapshot(s.Root())
	require.NoError(t, err)
	back, err := typed.Codec().Decode(nil, snap)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, back[0].Xs)
	assert.Nil(t, back[0].Hosts)
	assert.Nil(t, back[1].Xs)
}
