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

// TestRunsOfAClockRollingAreOneFramePerBoundary: the Event output of a
// clock-triggered rolling over a partitioned node, found with Find, comes
// in runs of one time each, a boundary's frame with every partition's row.
func TestRunsOfAClockRollingAreOneFramePerBoundary(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: sumAgg}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	require.NoError(t, s.Watch(s.Root()))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(0, 2, "b"), r(0, 3, "c"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(1000, 1, "a"), r(2000, 1, "b"), r(2500, 1, "c"))
	require.NoError(t, err)

	type group struct {
		at    int64
		hosts []string
		sums  []float64
	}
	sch, err := s.NodeSchema(roll)
	require.NoError(t, err)
	host, err := sch.Ref("host", schema.String)
	require.NoError(t, err)
	sum, err := sch.Ref("sum", schema.Number)
	require.NoError(t, err)
	tab, ok := live.Find(out, roll, live.Event)
	require.True(t, ok)
	var got []group
	for g := range tab.Runs() {
		gr := group{at: g.Time / int64(time.Millisecond)}
		for i := g.From; i < g.To; i++ {
			h, _ := tab.Str(host, i)
			x, _ := tab.Num(sum, i)
			gr.hosts, gr.sums = append(gr.hosts, h), append(gr.sums, x)
		}
		got = append(got, gr)
		assert.Equal(t, g.Len(), len(gr.hosts))
	}
	assert.Equal(t, []group{
		{1000, []string{"a", "b", "c"}, []float64{2, 2, 3}},
		{2000, []string{"a", "b", "c"}, []float64{2, 3, 3}},
	}, got)

	rows, ok := live.Find(out, s.Root(), live.Event)
	require.True(t, ok)
	var rootTimes []int64
	for g := range rows.Runs() {
		rootTimes = append(rootTimes, g.Time/int64(time.Millisecond))
		assert.Equal(t, g.Time, rows.TimeNanos(g.To-1))
	}
	assert.Equal(t, []int64{1000, 2000, 2500}, rootTimes)

	for range tab.Runs() {
		break // stopping early is fine
	}
	_, err = sch.Ref("summ", schema.Number)
	assert.ErrorIs(t, err, schema.ErrSchema, "a misspelt column fails when the reader is built")
}
