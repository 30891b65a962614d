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
	s := newSeries(t, live.Options{})
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	roll, err := s.Rolling(by, []rolling.Window{{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "avg", From: "value", Using: reduce.Avg},
		{Out: "n", From: "value", Using: reduce.Count},
		{Out: "samples", From: "value", Using: reduce.Samples},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(200 * time.Millisecond))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll, live.Event))
	push := func(at int64) []live.Output {
		rows := make([]schema.Row, hosts)
		for h := range rows {
			rows[h] = r(at, float64(h%97)+float64(at)/1000, fmt.Sprintf("host-%d", h))
		}
		out, err := s.PushRows(nil, rows...)
		require.NoError(t, err)
		return out
	}
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
