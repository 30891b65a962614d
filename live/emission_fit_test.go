package live_test

import (
	"fmt"
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

// TestRollingKeepsItsLatestEmissionWithoutGrowthsRoom has a partitioned
// rolling under a clock emit a row for each of 3,000 hosts: the table it
// keeps for Value grew for them by append's steps, up to a quarter more
// than its rows, and keeps no more than a sixteenth beyond them once the
// next push has begun; Value reads the emission's rows, and later
// emissions of the same size reuse the table as it is.
func TestRollingKeepsItsLatestEmissionWithoutGrowthsRoom(t *testing.T) {
	const hosts = 3000
	s, roll, pushHosts := hostsRolling(t,
		reduce.Agg{Out: "avg", From: "value", Using: reduce.Avg},
		reduce.Agg{Out: "n", From: "value", Using: reduce.Count},
		reduce.Agg{Out: "samples", From: "value", Using: reduce.Samples})
	push := func(at int64) []live.Output { return pushHosts(at, hosts) }
	push(0)
	out := push(250) // crosses 200 ms: every host's row
	require.Len(t, out, 1)
	require.Equal(t, hosts, out[0].Events.Len())
	emitted := out[0].Events.String()
	push(260) // no tick: the emission is kept as the latest
	rows, room := live.EmissionRoom(s, roll)
	require.Equal(t, hosts, rows)
	assert.LessOrEqual(t, room, hosts/16, "room beyond the latest emission's rows")
	v, err := s.Value(roll)
	require.NoError(t, err)
	assert.Equal(t, emitted, v.String(), "Value reads the emission")

	// Emissions of the same size fit the table as it is: it is not
	// copied again.
	_, room0 := live.EmissionRoom(s, roll)
	kept, _ := v.Numbers("avg")
	for k := range 4 {
		push(450 + 200*int64(k))
		push(460 + 200*int64(k))
		rows, room = live.EmissionRoom(s, roll)
		assert.Equal(t, hosts, rows)
		assert.Equal(t, room0, room, "tick %d: the same table, not a copy", k)
	}
	v, err = s.Value(roll)
	require.NoError(t, err)
	later, _ := v.Numbers("avg")
	assert.NotEqual(t, kept, later, "a later emission's values")
}

// TestRollingGrowingARowATickCopiesItsEmissionRarely has a partitioned
// rolling under a clock emit one more host's row at every tick (a new
// host a tick, as when keys arrive over time): the table kept for Value
// lets go of its growth's room, but its copy keeps the room the
// allocator rounds its size up to, so a growth of a row does not take a
// new buffer (an allocation and a copy of the whole emission) at every
// tick, only every few dozen rows of growth.
func TestRollingGrowingARowATickCopiesItsEmissionRarely(t *testing.T) {
	const hosts, ticks = 3000, 64
	s, roll, push := hostsRolling(t, reduce.Agg{Out: "avg", From: "value", Using: reduce.Avg})
	push(0, hosts)
	buffers := map[uintptr]bool{}
	for k := range ticks {
		n := hosts + k
		// The first row crosses a boundary: one row for every host
		// seen before it, so the push's new host is in the next tick.
		out := push(250+200*int64(k), n)
		require.Len(t, out, 1)
		require.Equal(t, max(hosts, n-1), out[0].Events.Len())
		for _, b := range live.EmissionBuffers(s, roll) {
			buffers[b] = true
		}
	}
	// Two tables, and a new buffer for one of them now and then (3 in
	// all here); a fit to the rows alone would take one a tick.
	assert.LessOrEqual(t, len(buffers), 6, "buffers taken over %d ticks", ticks)
	v, err := s.Value(roll)
	require.NoError(t, err)
	assert.Equal(t, hosts+ticks-2, v.Len())
}

// hostsRolling builds a series with a rolling of aggs over a 1m window,
// partitioned by host under a 200 ms clock, and watches its events;
// push(at, n) pushes one row at time at for each of hosts 0 to n − 1.
func hostsRolling(t *testing.T, aggs ...reduce.Agg) (s *live.Series, roll live.NodeID, push func(at int64, n int) []live.Output) {
	t.Helper()
	s = newSeries(t, live.Options{})
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	roll, err = s.Rolling(by, []rolling.Window{{Name: "1m", Span: time.Minute, Aggs: aggs}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(200 * time.Millisecond))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll, live.Event))
	push = func(at int64, n int) []live.Output {
		rows := make([]schema.Row, n)
		for h := range rows {
			rows[h] = r(at, float64(h%97)+float64(at)/1000, fmt.Sprintf("host-%d", h))
		}
		out, err := s.PushRows(nil, rows...)
		require.NoError(t, err)
		return out
	}
	return s, roll, push
}
