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

// TestRowsThatEnterAndLeaveInOneFoldLeaveTheWindowEmpty: a partition
// whose rows come further apart than a short window's span, each taken
// at a tick that already evicts it (a host reporting once a second
// through a 200 ms window), emits an empty window at those ticks — the
// states a fold leaves there are not recomputed — and the row that next
// stays in the window reads alone in it, whether the window was emptied
// at the previous tick or held none.
func TestRowsThatEnterAndLeaveInOneFoldLeaveTheWindowEmpty(t *testing.T) {
	windows := []rolling.Window{{Name: "200ms", Span: 200 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "n", From: "v", Using: reduce.Count},
		{Out: "min", From: "v", Using: reduce.Min},
		{Out: "max", From: "v", Using: reduce.Max},
		{Out: "avg", From: "v", Using: reduce.Avg},
		{Out: "sd", From: "v", Using: reduce.Stdev},
		{Out: "samples", From: "w", Using: reduce.Samples},
	}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(200 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keyNames{schema.StringValue("host"), schema.StringValue("clock")})
	ms := int64(time.Millisecond)
	var in Input
	// Partition 0 (the host) reports, partition 1 drives the clock. At
	// each tick, want is what the host's window holds: rows of v = w.
	for _, step := range []struct {
		ms   int64
		p    int32
		v    float64
		want []float64 // at a tick of partition 1's row; nil: no tick
	}{
		{0, 1, 0, nil},
		{50, 0, 1, nil},
		{400, 1, 0, []float64{}}, // 50 ms entered and left a window that never held a row
		{450, 0, 2, nil},
		{800, 1, 0, []float64{}}, // 450 ms entered and left
		{850, 0, 3, nil},
		{1000, 1, 0, []float64{3}}, // 850 ms stays
		{1050, 0, 4, nil},
		{1400, 1, 0, []float64{}}, // 850 ms leaves, 1,050 ms enters and leaves
		{1450, 0, 5, nil},
		{1800, 1, 0, []float64{}}, // 1,450 ms enters and leaves a window emptied at the last tick
		{1850, 0, 6, nil},
		{2000, 1, 0, []float64{6}},
	} {
		tab := schema.NewTable(testSchema)
		table.Column(tab, 0).AppendTime(step.ms * ms)
		table.Column(tab, 1).AppendNum(step.v)
		table.Column(tab, 2).AppendNum(step.v)
		plan.Bind(&in, tab, nil)
		out := schema.NewTable(plan.Schema())
		g.Push(&in, []int32{step.p}, out)
		if step.want == nil {
			require.Zero(t, out.Len(), "at %d ms", step.ms)
			continue
		}
		row := -1
		for i := range out.Len() {
			if k, _ := out.Value(i, 1).Str(); k == "host" {
				row = i
			}
		}
		require.GreaterOrEqual(t, row, 0, "the host's row at %d ms", step.ms)
		cell := func(name string) schema.Value {
			j, ok := out.Schema().Index(name)
			require.True(t, ok)
			return out.Value(row, j)
		}
		n, _ := cell("n").Num()
		assert.Equal(t, float64(len(step.want)), n, "rows at %d ms", step.ms)
		samples, ok := cell("samples").Array()
		require.True(t, ok)
		var got []float64
		for _, x := range samples {
			f, _ := x.Num()
			got = append(got, f)
		}
		assert.Equal(t, len(step.want), len(got), "samples at %d ms", step.ms)
		for _, name := range []string{"min", "max", "avg", "sd"} {
			x, ok := cell(name).Num()
			if len(step.want) == 0 {
				assert.False(t, ok, "%s of an empty window at %d ms", name, step.ms)
				continue
			}
			want := step.want[0]
			if name == "sd" {
				want = 0
			}
			assert.True(t, ok, "%s at %d ms", name, step.ms)
			assert.Equal(t, want, x, "%s at %d ms", name, step.ms)
		}
	}
}
