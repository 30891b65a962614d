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
	"github.com/pond-go/pond/trigger"
)

// TestOnlyRootRollingsNothingReadsRunAside: with workers, a rolling of
// the root that no node reads and that reads no string runs beside the
// partition's routing; one read by another node, one reading a string, a
// rolling of a partition, and any rolling of a series without workers do
// not.
func TestOnlyRootRollingsNothingReadsRunAside(t *testing.T) {
	count := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}
	hosts := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "last_host", From: "host", Using: reduce.Last}}}}
	clock := rolling.Options{Trigger: trigger.Every(100 * time.Millisecond)}
	build := func(workers int) (*live.Series, []live.NodeID) {
		s := newSeries(t, live.Options{Workers: workers})
		byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		_, err = s.Rolling(byHost, count, clock)
		require.NoError(t, err)
		aside, err := s.Rolling(s.Root(), count, clock)
		require.NoError(t, err)
		read, err := s.Rolling(s.Root(), count, clock)
		require.NoError(t, err)
		_, err = s.Filter(read, func(schema.Row) bool { return true })
		require.NoError(t, err)
		_, err = s.Rolling(s.Root(), hosts, clock)
		require.NoError(t, err)
		return s, []live.NodeID{aside}
	}
	s, want := build(2)
	defer s.Close()
	assert.Equal(t, want, live.AsideNodes(s))
	one, _ := build(1)
	assert.Empty(t, live.AsideNodes(one))
}
