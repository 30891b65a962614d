package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestQuietPartitionKeepsItsRowUpToItsSpanAndEvictsItJustAfter: a
// partition without new rows is not folded while its oldest row stays
// in every window, and is at the first tick whose crossing row is later
// than that row's time plus the span, by a nanosecond: a row at 0 in a
// 1 s window is in it at a cut of 1 s and out of it at 1 s + 1 ns.
func TestQuietPartitionKeepsItsRowUpToItsSpanAndEvictsItJustAfter(t *testing.T) {
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "n", From: "v", Using: reduce.Count},
		{Out: "avg", From: "v", Using: reduce.Avg},
	}}}
	ms := int64(time.Millisecond)
	// quietCount runs a group to a tick whose crossing row is at cross
	// and returns the quiet partition's row count at that tick.
	quietCount := func(cross int64) float64 {
		plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
			&Key{Name: "key", Kind: schema.String}, nil)
		require.NoError(t, err)
		g := plan.NewGroup(keyNames{schema.StringValue("quiet"), schema.StringValue("busy")})
		var in Input
		var n float64
		for _, r := range []struct {
			ns int64
			p  int32
		}{{0, 0}, {50 * ms, 1}, {150 * ms, 1}, {550 * ms, 1}, {cross, 1}} {
			tab := schema.NewTable(testSchema)
			table.Column(tab, 0).AppendTime(r.ns)
			table.Column(tab, 1).AppendNum(1)
			table.Column(tab, 2).AppendNum(2)
			plan.Bind(&in, tab, nil)
			out := schema.NewTable(plan.Schema())
			g.Push(&in, []int32{r.p}, out)
			if out.Len() > 0 {
				j, ok := out.Schema().Index("n")
				require.True(t, ok)
				n, _ = out.Value(0, j).Num()
			}
		}
		return n
	}
	// The ticks at 150 and 550 ms fold the quiet partition; the one at
	// 550 ms and the last find it without new rows.
	assert.Equal(t, 1.0, quietCount(int64(time.Second)), "at a cut of exactly 1 s the row at 0 is in the 1 s window")
	assert.Equal(t, 0.0, quietCount(int64(time.Second)+1), "at 1 s + 1 ns it has left")
}
