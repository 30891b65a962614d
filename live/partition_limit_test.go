package live_test

import (
	"fmt"
	"slices"
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

// churnSeries is a series partitioned by host under MaxPartitions 3 and a
// 10 s IdleTTL, with a per-host count over a minute emitted every 5 s.
type churnSeries struct {
	s            *live.Series
	byHost, roll live.NodeID
}

func newChurnSeries(t *testing.T) *churnSeries {
	t.Helper()
	c := &churnSeries{s: newSeries(t, live.Options{})}
	var err error
	c.byHost, err = c.s.PartitionBy(c.s.Root(), "host", partition.Options{MaxPartitions: 3, IdleTTL: 10 * time.Second})
	require.NoError(t, err)
	c.roll, err = c.s.Rolling(c.byHost, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(5 * time.Second)), History: rolling.History{MaxEvents: 100}})
	require.NoError(t, err)
	require.NoError(t, c.s.Watch(c.roll))
	return c
}

// state renders what the series and its nodes hold.
func (c *churnSeries) state(t *testing.T) string {
	t.Helper()
	st := fmt.Sprintln(c.s.Stats())
	for _, id := range []live.NodeID{c.s.Root(), c.byHost, c.roll} {
		tab, err := c.s.Snapshot(id)
		require.NoError(t, err)
		st += tab.String()
	}
	return st
}

// hostsAt pushes one row per host at time at (in ms).
func (c *churnSeries) hostsAt(at int64, hosts ...string) ([]live.Output, error) {
	rows := make([]schema.Row, len(hosts))
	for i, h := range hosts {
		rows[i] = r(at, 1, h)
	}
	return c.s.PushRows(nil, rows...)
}

// TestPartitionLimitMakesRoomFromIdlePartitions: at MaxPartitions, a push
// with new keys first counts the partitions IdleTTL removes at the push's
// own time as free; a push that still does not fit changes nothing.
func TestPartitionLimitMakesRoomFromIdlePartitions(t *testing.T) {
	t.Run("hosts renamed every minute keep being accepted", func(t *testing.T) {
		c := newChurnSeries(t)
		for gen := range 5 {
			hosts := []string{fmt.Sprintf("g%d-a", gen), fmt.Sprintf("g%d-b", gen), fmt.Sprintf("g%d-c", gen)}
			start := int64(gen) * 60_000
			// Each generation reports every second for 30 s, then goes quiet.
			for at := start; at < start+30_000; at += 1000 {
				out, err := c.hostsAt(at, hosts...)
				require.NoError(t, err, "generation %d at %d ms", gen, at)
				for _, o := range out {
					got, _ := o.Events.Strings("host")
					for _, h := range got {
						assert.Contains(t, hosts, h, "a tick of generation %d emits only its hosts", gen)
					}
				}
			}
		}
		snap, err := c.s.Snapshot(c.byHost)
		require.NoError(t, err)
		held, _ := snap.Strings("host")
		assert.ElementsMatch(t, []string{"g4-a", "g4-b", "g4-c"}, slices.Compact(slices.Sorted(slices.Values(held))), "the partitions hold the last generation")
	})

	t.Run("a push over the limit while the old keys are not idle is rejected and changes nothing", func(t *testing.T) {
		c := newChurnSeries(t)
		_, err := c.hostsAt(0, "a", "b", "c")
		require.NoError(t, err)
		before := c.state(t)
		// At 10 s the old partitions are exactly IdleTTL quiet: kept.
		_, err = c.hostsAt(10_000, "d")
		require.ErrorIs(t, err, partition.ErrLimit)
		assert.Equal(t, before, c.state(t))
		_, err = c.hostsAt(10_001, "d")
		require.NoError(t, err, "past IdleTTL, a, b and c make room")
	})

	t.Run("a partition the push routes to is kept, and a push needing more room than is idle changes nothing", func(t *testing.T) {
		c := newChurnSeries(t)
		_, err := c.hostsAt(0, "a", "b", "c")
		require.NoError(t, err)
		before := c.state(t)
		// a gets a row: only b and c can make room, not three.
		_, err = c.hostsAt(20_000, "a", "x", "y", "z")
		var ke *partition.KeyError
		require.ErrorAs(t, err, &ke)
		assert.ErrorIs(t, err, partition.ErrLimit)
		assert.Equal(t, 3, ke.Row, "the row of the key that does not fit")
		assert.Equal(t, before, c.state(t))

		out, err := c.hostsAt(20_000, "a", "x", "y")
		require.NoError(t, err)
		require.Len(t, out, 1)
		hosts, _ := out[0].Events.Strings("host")
		n, _ := out[0].Events.Numbers("n")
		assert.Equal(t, []string{"a"}, hosts, "the tick at 20 s: b and c are gone, x and y join at the next")
		assert.Equal(t, []float64{2}, n, "a kept its row at 0 s")
		out, err = c.hostsAt(25_000, "x")
		require.NoError(t, err)
		require.Len(t, out, 1)
		hosts, _ = out[0].Events.Strings("host")
		assert.Equal(t, []string{"a", "x", "y"}, hosts)
	})

	t.Run("a rejected push does not make room for the next", func(t *testing.T) {
		c := newChurnSeries(t)
		_, err := c.hostsAt(0, "a", "b", "c")
		require.NoError(t, err)
		_, err = c.hostsAt(20_000, "w", "x", "y", "z")
		require.ErrorIs(t, err, partition.ErrLimit)
		// A push of an old key at an old time: nothing is idle at 1 s.
		_, err = c.hostsAt(1000, "a", "d")
		require.ErrorIs(t, err, partition.ErrLimit)
	})
}
