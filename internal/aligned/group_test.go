package aligned

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

const ms = int64(time.Millisecond)

// numberGroup builds a group over one number slot with the given outputs
// on a 1s window and a 500ms clock.
func numberGroup(t *testing.T, reds ...reduce.Reducer) (*Group, *schema.Table) {
	t.Helper()
	var aggs []Agg
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for i, r := range reds {
		aggs = append(aggs, Agg{Slot: 1, Using: r})
		cols = append(cols, schema.Column{Name: string(rune('a' + i)), Kind: r.OutputKind(schema.Number), Optional: true})
	}
	p, err := NewPlan(Spec{Step: 500 * ms, Kinds: []schema.Kind{schema.Number}, Windows: []Window{{Span: 1000 * ms, Aggs: aggs}}})
	require.NoError(t, err)
	return p.NewGroup(nil, 1, 0), schema.NewTable(schema.MustNew(cols...))
}

func push(g *Group, out *schema.Table, ts []int64, xs []float64) {
	enc := make([]uint64, len(xs))
	for i, x := range xs {
		enc[i] = math.Float64bits(x)
	}
	g.Push(&Rows{Times: ts, Enc: [][]uint64{enc}}, nil, out)
}

func TestAnOutlierLeavesNoResidue(t *testing.T) {
	g, out := numberGroup(t, reduce.Sum, reduce.Stdev, reduce.Count)
	push(g, out, []int64{0, 100 * ms}, []float64{1e16, 5})
	for i := int64(6); i < 30; i++ {
		push(g, out, []int64{i * 100 * ms}, []float64{5})
	}
	// The window at 2000 ([1000, 2000)) holds only fives: the outlier's
	// pane left at 1500.
	require.Greater(t, out.Len(), 3)
	sum, _ := out.Numbers("a")
	sd, _ := out.Numbers("b")
	n, _ := out.Numbers("c")
	last := out.Len() - 1
	assert.Equal(t, 10*5.0, sum[last])
	assert.Equal(t, 0.0, sd[last], "the stdev of equal values once the outlier has left")
	assert.Equal(t, 10.0, n[last])
	assert.Equal(t, 1e16+5, sum[0], "the window at 500 holds both")
}

func TestAHugeValueMakesTheStdevMissingWhileHeld(t *testing.T) {
	g, out := numberGroup(t, reduce.Stdev, reduce.Avg)
	push(g, out, []int64{0, 100 * ms, 600 * ms}, []float64{0x1p600, 1, 3})
	push(g, out, []int64{1100 * ms, 1600 * ms, 2100 * ms}, []float64{5, 7, 9})
	sd := table.Column(out, 1)
	require.Equal(t, 4, out.Len()) // boundaries 500, 1000, 1500, 2000
	assert.True(t, sd.IsMissing(0))
	assert.True(t, sd.IsMissing(1))
	x, ok := sd.Num(2) // [500, 1500): 3, 5
	assert.True(t, ok)
	assert.Equal(t, 1.0, x)
}

func TestArraysTakeTheRowByRowPath(t *testing.T) {
	p, err := NewPlan(Spec{Step: 500 * ms, Kinds: []schema.Kind{schema.Array}, Windows: []Window{{Span: 500 * ms, Aggs: []Agg{
		{Slot: 1, Using: reduce.Samples}, {Slot: 1, Using: reduce.Count},
	}}}})
	require.NoError(t, err)
	g := p.NewGroup(nil, 1, 0)
	out := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "s", Kind: schema.Array, Optional: true}, schema.Column{Name: "n", Kind: schema.Number, Optional: true}))
	in := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "a", Kind: schema.Array, Optional: true}))
	table.Column(in, 0).AppendTimes([]int64{0, 100 * ms, 600 * ms})
	table.Column(in, 1).AppendArray([]schema.Value{schema.NumberValue(1), schema.StringValue("x")})
	table.Column(in, 1).AppendMissing()
	table.Column(in, 1).AppendArray([]schema.Value{schema.NumberValue(2)})
	g.Push(&Rows{Times: in.Times(), Enc: [][]uint64{{1, 0, 1}}, Arrs: []*table.Col{table.Column(in, 1)}}, nil, out)
	require.Equal(t, 1, out.Len())
	assert.Equal(t, `[1, "x"]`, out.Row(0)[1].String())
	assert.Equal(t, 1.0, out.Row(0)[2].Any())
}

func TestBuildErrors(t *testing.T) {
	_, err := NewPlan(Spec{Step: 0})
	assert.Error(t, err)
	_, err = NewPlan(Spec{Step: 1, Windows: []Window{{Span: 0}}})
	assert.Error(t, err)
}

func TestRawRowsKeepTimesOnlyForAFirstOrLastOfArrays(t *testing.T) {
	g, out := numberGroup(t, reduce.Samples, reduce.Median)
	// The row at 600 closes 500: the four before it reach the window.
	push(g, out, []int64{0, 100 * ms, 200 * ms, 300 * ms, 600 * ms}, []float64{1, 2, 3, 4, 5})
	ws := &g.parts[0].wins[0]
	assert.Empty(t, ws.raw.ts, "samples and median read values only")
	assert.Equal(t, 4, ws.raw.rows()-ws.raw.row0)
	assert.Len(t, ws.raw.runs[ws.raw.head:], 1, "rows in order in one pane are one run")

	p, err := NewPlan(Spec{Step: 500 * ms, Kinds: []schema.Kind{schema.Array}, Windows: []Window{{Span: 500 * ms, Aggs: []Agg{
		{Slot: 1, Using: reduce.First},
	}}}})
	require.NoError(t, err)
	ga := p.NewGroup(nil, 1, 0)
	outA := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "f", Kind: schema.Array, Optional: true}))
	in := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "a", Kind: schema.Array, Optional: true}))
	table.Column(in, 0).AppendTimes([]int64{0, 100 * ms})
	table.Column(in, 1).AppendArray([]schema.Value{schema.NumberValue(1)})
	table.Column(in, 1).AppendArray([]schema.Value{schema.NumberValue(2)})
	ga.Push(&Rows{Times: in.Times(), Enc: [][]uint64{{1, 1}}, Arrs: []*table.Col{table.Column(in, 1)}}, nil, outA)
	// Arrays take the row-by-row path: the rows are in the window now.
	assert.Equal(t, []int64{0, 100 * ms}, ga.parts[0].wins[0].raw.ts, "first orders arrays by time")
}

func TestSameWidthWindowsSumARunOnceAndAgree(t *testing.T) {
	// Two windows of one pane width (200ms) over the same column: the
	// second takes the first's sums of each run, and both still hold
	// exactly their own panes.
	p, err := NewPlan(Spec{Step: 200 * ms, Kinds: []schema.Kind{schema.Number}, Windows: []Window{
		{Span: 600 * ms, Aggs: []Agg{{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Stdev}}},
		{Span: 200 * ms, Aggs: []Agg{{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Avg}}},
	}})
	require.NoError(t, err)
	g := p.NewGroup(nil, 1, 0)
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for _, n := range []string{"s6", "sd6", "s2", "a2"} {
		cols = append(cols, schema.Column{Name: n, Kind: schema.Number, Optional: true})
	}
	out := schema.NewTable(schema.MustNew(cols...))
	push(g, out, []int64{0, 50 * ms, 250 * ms, 450 * ms, 650 * ms}, []float64{1, 2, 4, 8, 16})
	s6, _ := out.Numbers("s6")
	s2, _ := out.Numbers("s2")
	a2, _ := out.Numbers("a2")
	// Boundaries 200, 400, 600: [−400, 200) {1, 2}, [−200, 400) {1, 2, 4},
	// [0, 600) {1, 2, 4, 8}; the 200ms window: {1, 2}, {4}, {8}.
	assert.Equal(t, []float64{3, 7, 15}, s6)
	assert.Equal(t, []float64{3, 4, 8}, s2)
	assert.Equal(t, []float64{1.5, 4, 8}, a2)
}

func TestAOnePaneWindowReadsItsPane(t *testing.T) {
	// A window of one pane (span = step) reads its outputs from that
	// pane; under lateness the ring also holds the next panes' rows,
	// which must not leak into the boundary's row.
	p, err := NewPlan(Spec{Step: 500 * ms, Kinds: []schema.Kind{schema.Number}, Windows: []Window{{Span: 500 * ms, Aggs: []Agg{
		{Slot: 1, Using: reduce.Min}, {Slot: 1, Using: reduce.Max}, {Slot: 1, Using: reduce.Difference},
		{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Avg}, {Slot: 1, Using: reduce.Stdev},
	}}}})
	require.NoError(t, err)
	require.NoError(t, p.SetLateness(400*ms))
	assert.True(t, p.wins[0].single)
	g := p.NewGroup(nil, 1, 400*ms)
	cols := []schema.Column{{Name: "time", Kind: schema.Time}}
	for _, n := range []string{"min", "max", "diff", "sum", "avg", "sd"} {
		cols = append(cols, schema.Column{Name: n, Kind: schema.Number, Optional: true})
	}
	out := schema.NewTable(schema.MustNew(cols...))
	// [0, 500): 4, 1, 7; [500, 1000): 2, 6, 6; [1000, 1500): nothing;
	// [1500, 2000): 3. The boundary at 500 closes at watermark 500 (the
	// row at 900), with the row at 600 already in the next pane.
	push(g, out, []int64{100 * ms, 600 * ms, 0, 300 * ms, 900 * ms, 700 * ms}, []float64{4, 2, 1, 7, 6, 6})
	push(g, out, []int64{1600 * ms, 2500 * ms}, []float64{3, 0})
	want := [][]float64{
		{1, 7, 6, 12, 4, math.Sqrt(6)},
		{2, 6, 4, 14, 14.0 / 3, math.Sqrt(32.0 / 9)},
		{3, 3, 0, 3, 3, 0},
	}
	require.Equal(t, len(want), out.Len(), "boundaries 500, 1000 and 2000 (1500's window is empty)")
	for i, w := range want {
		for j, name := range []string{"min", "max", "diff", "sum", "avg", "sd"} {
			got, _ := out.Numbers(name)
			assert.InDelta(t, w[j], got[i], 1e-12, "row %d %s", i, name)
		}
	}
}
