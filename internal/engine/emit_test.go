package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestTickEmitsEachPartitionAsItsEngineAlone: a tick emits its partitions
// a run at a time, output by output; every row must be, bit for bit, what
// the partition's engine emits on its own — with more partitions than a
// run holds, partitions warming up beside warm ones in the same run, and
// outputs of every kind. Every other push, the group's samples go to a
// column that keeps its elements as values (see table.Widen), and the
// engines' alone to one that keeps numbers, or the other way round.
func TestTickEmitsEachPartitionAsItsEngineAlone(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg},
			{Out: "sd", From: "v", Using: reduce.Stdev},
			{Out: "n", From: "v", Using: reduce.Count},
			{Out: "sum", From: "w", Using: reduce.Sum},
			{Out: "nw", From: "w", Using: reduce.Count},
			{Out: "avg_again", From: "v", Using: reduce.Avg},
			{Out: "first", From: "w", Using: reduce.First},
			{Out: "median", From: "v", Using: reduce.Median},
			{Out: "v_samples", From: "v", Using: reduce.Samples},
		}},
		{Name: "300ms", Span: 300 * time.Millisecond, MinSamples: rolling.Samples(3), Aggs: []reduce.Agg{
			{Out: "min", From: "v", Using: reduce.Min},
			{Out: "max", From: "w", Using: reduce.Max},
			{Out: "samples", From: "w", Using: reduce.Samples},
			{Out: "v_samples_now", From: "v", Using: reduce.Samples},
			{Out: "last", From: "v", Using: reduce.Last},
			{Out: "cur", From: "v", Using: reduce.Avg},
			{Out: "cur_sd", From: "v", Using: reduce.Stdev},
		}},
	}
	const parts = 3*emitRun + 5
	keys := make(keyNames, parts)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keys)
	// The engines alone test every value for presence, where the group
	// copies a required column's samples without a test.
	checked, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	required := 0
	for k := range checked.emits {
		for i := range checked.emits[k].samples {
			if checked.emits[k].samples[i].required {
				required++
			}
			checked.emits[k].samples[i].required = false
		}
	}
	require.Equal(t, 2, required)
	alone := make([]*Engine, parts)
	for p := range alone {
		alone[p] = checked.NewEngine()
	}
	clk := clock.NewClockState(sequence.Every(100 * time.Millisecond))
	var order []int32
	seen := make([]bool, parts)
	rng := rand.New(rand.NewPCG(41, 42))
	var in Input
	tm := int64(0)
	rows := 0
	for push := range 300 {
		tab := schema.NewTable(testSchema)
		var part []int32
		for range rng.IntN(3 * parts) {
			tm += int64(rng.IntN(3)) * int64(time.Millisecond)
			// Partitions fed at rates from none to many rows a tick.
			p := int32(math.Sqrt(float64(rng.IntN(parts * parts))))
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(float64(rng.IntN(100)) / 4)
			if rng.IntN(4) == 0 {
				table.Column(tab, 2).AppendMissing()
			} else {
				table.Column(tab, 2).AppendNum(rng.NormFloat64())
			}
			part = append(part, p)
		}
		out := schema.NewTable(plan.Schema())
		off := 0
		if push%2 == 1 {
			require.True(t, table.Widen(out))
			off = 1
		}
		plan.Bind(&in, tab, nil)
		g.Push(&in, part, out)
		// The engines alone take the same rows up to each crossing, then
		// fold and emit in the group's order.
		row := 0
		for i, ti := range in.times {
			p := part[i]
			alone[p].Append(&in, i)
			if !seen[p] {
				seen[p] = true
				order = append(order, p)
			}
			if _, fired := clk.Observe(ti); !fired {
				continue
			}
			for _, p := range order {
				e := alone[p]
				e.Fold(ti)
				want := schema.NewTable(plan.Schema())
				at := 0
				if push%2 == 0 {
					require.True(t, table.Widen(want))
					at = 1
				}
				table.Column(want, 0).AppendTime(table.Column(out, 0).Time(row + off))
				table.Column(want, 1).AppendStr(fmt.Sprintf("k%d", p))
				e.Emit(want)
				require.Less(t, row+off, out.Len(), "push %d", push)
				for j := range want.Schema().Len() {
					x, y := want.Value(at, j), out.Value(row+off, j)
					if fx, ok := x.Num(); ok {
						fy, _ := y.Num()
						require.Equal(t, math.Float64bits(fx), math.Float64bits(fy), "push %d row %d %s", push, row, want.Schema().Column(j).Name)
						continue
					}
					require.True(t, x.Equal(y), "push %d row %d %s: %v, alone %v", push, row, want.Schema().Column(j).Name, y, x)
				}
				row++
			}
		}
		require.Equal(t, row+off, out.Len(), "push %d", push)
		if j, ok := plan.Schema().Index("samples"); ok && push%2 == 0 {
			require.False(t, table.Column(out, j).Wide(), "push %d: the samples of a number column are kept as numbers", push)
		}
		rows += row
	}
	require.Greater(t, rows, 50*parts)
}

// TestEmptyWindowsEmitWithoutTheirStates: a window that holds no rows in
// any engine of a run (a 200 ms window between a host's rows a second
// apart) is emitted without reading its states: a count and a sum of 0,
// the mean, deviation, minimum and maximum missing, or every one of them
// missing while the window warms up. The test takes the states away (nil
// pointers) after the fold: an emission that read them would panic.
func TestEmptyWindowsEmitWithoutTheirStates(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg},
			{Out: "sd", From: "v", Using: reduce.Stdev},
			{Out: "n", From: "w", Using: reduce.Count},
			{Out: "sum", From: "w", Using: reduce.Sum},
			{Out: "rows", From: "v", Using: reduce.Count},
			{Out: "min", From: "v", Using: reduce.Min},
			{Out: "max", From: "v", Using: reduce.Max},
			{Out: "samples", From: "v", Using: reduce.Samples},
		}},
		{Name: "100ms", Span: 100 * time.Millisecond, MinSamples: rolling.Samples(2), Aggs: []reduce.Agg{
			{Out: "cur_n", From: "w", Using: reduce.Count},
			{Out: "cur_sum", From: "w", Using: reduce.Sum},
			{Out: "cur_min", From: "v", Using: reduce.Min},
			{Out: "cur_samples", From: "v", Using: reduce.Samples},
		}},
	}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	tab := schema.NewTable(testSchema)
	for i := range 3 {
		table.Column(tab, 0).AppendTime(int64(i) * int64(time.Millisecond))
		table.Column(tab, 1).AppendNum(float64(i) + 0.5)
		table.Column(tab, 2).AppendNum(-float64(i))
	}
	var in Input
	plan.Bind(&in, tab, nil)
	e := plan.NewEngine()
	for i := range in.Len() {
		e.Append(&in, i)
	}
	e.Fold(int64(2 * time.Millisecond))
	require.Equal(t, 3, e.WindowLen(0))
	e.Fold(int64(5 * time.Second)) // every row leaves both windows
	for w := range e.wins() {
		require.Equal(t, 0, e.WindowLen(w))
		// An emission of an empty window reads none of its states:
		// moments and extremes that would read 42.
		ws, wp := &e.wins()[w], &plan.wins[w]
		for i := range ws.mins(wp) {
			ws.mins(wp)[i].SetValue(42, true)
		}
		for i := range ws.maxs(wp) {
			ws.maxs(wp)[i].SetValue(42, true)
		}
		for i := range ws.moments(wp) {
			ws.moments(wp)[i].Add(42)
		}
	}
	out := schema.NewTable(plan.Schema())
	table.Column(out, 0).AppendTime(int64(5 * time.Second))
	e.Emit(out)
	nan := math.Float64bits(math.NaN())
	want := map[string]uint64{
		"avg": nan, "sd": nan, "n": 0, "sum": 0, "rows": 0, "min": nan, "max": nan,
		"cur_n": nan, "cur_sum": nan, "cur_min": nan,
	}
	for name, bits := range want {
		j, ok := out.Schema().Index(name)
		require.True(t, ok, name)
		x, ok := out.Value(0, j).Num()
		if bits == nan {
			require.False(t, ok, name)
			continue
		}
		require.True(t, ok, name)
		require.Equal(t, bits, math.Float64bits(x), name)
	}
	j, _ := out.Schema().Index("samples")
	s, ok := out.Value(0, j).Array()
	require.True(t, ok)
	require.Empty(t, s)
	j, _ = out.Schema().Index("cur_samples")
	require.True(t, out.Value(0, j).IsMissing())
}

// TestEmptyWindowsWriteTheirMissingCellsOnce: the missing outputs of a
// window that holds no rows (here the minimum, and a sum while the window
// warms up) are not written again at the rows where the push before left
// them missing; a count or a sum of 0 is written every time. The test
// overwrites the column's buffer between the pushes: a cell written
// again would be missing again.
func TestEmptyWindowsWriteTheirMissingCellsOnce(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "sum", From: "w", Using: reduce.Sum},
			{Out: "min", From: "v", Using: reduce.Min},
		}},
		{Name: "100ms", Span: 100 * time.Millisecond, MinSamples: rolling.Samples(2), Aggs: []reduce.Agg{
			{Out: "cur_sum", From: "w", Using: reduce.Sum},
		}},
	}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	e := plan.NewEngine()
	out := schema.NewTable(plan.Schema())
	push := func() {
		table.Reset(out)
		for range 3 {
			table.Column(out, 0).AppendTime(0)
			e.Emit(out)
		}
	}
	push()
	for _, name := range []string{"sum", "min", "cur_sum"} {
		xs, _ := out.Numbers(name)
		require.Len(t, xs, 3)
		xs[1] = 7 // the next push's cell 1 of the same buffer
	}
	push()
	cell := func(name string, i int) (float64, bool) {
		j, ok := out.Schema().Index(name)
		require.True(t, ok)
		return out.Value(i, j).Num()
	}
	for _, name := range []string{"min", "cur_sum"} {
		x, ok := cell(name, 1)
		require.True(t, ok, "%s: cell 1 was known missing and not written", name)
		require.Equal(t, 7.0, x, name)
		_, ok = cell(name, 2)
		require.False(t, ok, name)
	}
	x, ok := cell("sum", 1)
	require.True(t, ok)
	require.Zero(t, x, "a sum of 0 is written")
}
