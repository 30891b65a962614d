package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// TestPlanKnowsTheLayoutsOfTheSeedsWindows: a time window of sums alone
// and one of a column's sums with its minimum and maximum (and outputs
// read from the deque) are folded in the engine's own loop; a window
// with anything else is not.
func TestPlanKnowsTheLayoutsOfTheSeedsWindows(t *testing.T) {
	plan, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	require.Len(t, plan.wins, 2)
	assert.Equal(t, layoutSums, plan.wins[0].layout, "1m")
	assert.Equal(t, layoutFill, plan.wins[1].layout, "200ms")

	agg := func(out, from string, r reduce.Reducer) reduce.Agg { return reduce.Agg{Out: out, From: from, Using: r} }
	for _, c := range []struct {
		name string
		w    rolling.Window
		want winLayout
	}{
		{"a sum alone", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("s", "v", reduce.Sum)}}, layoutSums},
		{"a count of rows beside the sums", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("s", "v", reduce.Avg), agg("n", "v", reduce.Count)}}, layoutSums},
		{"a count of an optional column", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("s", "v", reduce.Avg), agg("n", "w", reduce.Count)}}, layoutGeneral},
		{"a count window", rolling.Window{Count: 5, Aggs: []reduce.Agg{agg("s", "v", reduce.Sum)}}, layoutGeneral},
		{"a min alone", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("lo", "v", reduce.Min)}}, layoutGeneral},
		{"sums, min and max of one column", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("a", "v", reduce.Avg), agg("lo", "v", reduce.Min), agg("hi", "v", reduce.Max), agg("xs", "w", reduce.Samples)}}, layoutFill},
		{"the min of another column", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("a", "v", reduce.Avg), agg("lo", "w", reduce.Min), agg("hi", "w", reduce.Max)}}, layoutGeneral},
		{"a median beside the sums", rolling.Window{Span: time.Second, Aggs: []reduce.Agg{agg("a", "v", reduce.Avg), agg("m", "v", reduce.Median)}}, layoutGeneral},
	} {
		p, err := NewPlan(testSchema, []rolling.Window{c.w}, rolling.Options{}, nil, nil)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, p.wins[0].layout, c.name)
	}
}

// TestLayoutFoldsMatchTheGeneralPath: the folds of the windows the engine
// knows give, bit for bit, the rows of the general path, on rows that
// take the one-pass folds off their common case now and then (missing
// values, zeros, a value 2^100 out of the sums' band, a window emptied,
// slides longer than a few rows, runs across blocks).
func TestLayoutFoldsMatchTheGeneralPath(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg},
			{Out: "sd", From: "v", Using: reduce.Stdev},
			{Out: "n", From: "v", Using: reduce.Count},
			{Out: "wavg", From: "w", Using: reduce.Avg},
			{Out: "wsum", From: "w", Using: reduce.Sum},
		}},
		{Name: "30ms", Span: 30 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "samples", From: "v", Using: reduce.Samples},
			{Out: "min", From: "v", Using: reduce.Min},
			{Out: "max", From: "v", Using: reduce.Max},
			{Out: "cur", From: "v", Using: reduce.Avg},
			{Out: "cur_sd", From: "v", Using: reduce.Stdev},
		}},
	}
	plan, general := laidTwins(t, windows)
	e, g := plan.NewEngine(), general.NewEngine()
	rng := rand.New(rand.NewPCG(71, 72))
	var in Input
	tm := int64(0)
	for fold := range 8000 {
		tab := schema.NewTable(testSchema)
		n := rng.IntN(4)
		if rng.IntN(50) == 0 {
			n = 10 + rng.IntN(20) // a slide of many rows
		}
		for range n {
			tm += int64(rng.IntN(4)) * int64(time.Millisecond)
			v := float64(rng.IntN(1000)) / 8
			switch rng.IntN(300) {
			case 0:
				v = 0x1p100
			case 1:
				v = 0
			}
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(v)
			if rng.IntN(20) == 0 {
				table.Column(tab, 2).AppendMissing()
			} else {
				table.Column(tab, 2).AppendNum(float64(rng.IntN(100)) / 4)
			}
		}
		plan.Bind(&in, tab, nil)
		for i := range in.Len() {
			e.Append(&in, i)
			g.Append(&in, i)
		}
		tm += int64(rng.IntN(4)) * int64(time.Millisecond)
		if rng.IntN(200) == 0 {
			tm += int64(2 * time.Second) // every window empties
		}
		foldBoth(t, fold, e, g, tm)
	}
}

// TestOneRowSlidesMatchTheGeneralPath: a fold of one row in, the 100,000
// host tick's common case (foldLaid's one-row path: the head of a window
// of sums leaves as the row enters, a short window's row enters and
// leaves), gives bit for bit the rows of the general path, with the
// windows now and then empty, signed zeros, values whose sums carry
// into the compensation terms, a value out of the sums' band, missing
// values, two rows leaving at once and rows across blocks.
func TestOneRowSlidesMatchTheGeneralPath(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg},
			{Out: "sd", From: "v", Using: reduce.Stdev},
			{Out: "wsum", From: "w", Using: reduce.Sum},
		}},
		{Name: "50ms", Span: 50 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "min", From: "v", Using: reduce.Min},
			{Out: "max", From: "v", Using: reduce.Max},
			{Out: "cur", From: "v", Using: reduce.Avg},
			{Out: "cur_sd", From: "v", Using: reduce.Stdev},
		}},
	}
	plan, general := laidTwins(t, windows)
	e, g := plan.NewEngine(), general.NewEngine()
	rng := rand.New(rand.NewPCG(15, 2))
	value := func() float64 {
		switch rng.IntN(100) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return 0x1p100 // out of the band: the pass does not apply
		case 3, 4, 5:
			return 0x1p52 + float64(rng.IntN(7)) // sums that round, carried in c and qc
		}
		return float64(rng.IntN(1<<20))/1024 + 0x1p40*float64(rng.IntN(2))
	}
	var in Input
	tm := int64(0)
	slides := 0
	for fold := range 20000 {
		tab := schema.NewTable(testSchema)
		n := 1
		switch rng.IntN(100) {
		case 0:
			n = 0
		case 1:
			n = 2
		}
		for range n {
			// About ten rows a second: one leaves the 1 s window as
			// one enters, now and then none or two.
			tm += int64(100+rng.IntN(3)-1) * int64(time.Millisecond)
			if rng.IntN(1000) == 0 {
				tm += int64(2 * time.Second) // every window empties
			}
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(value())
			if rng.IntN(40) == 0 {
				table.Column(tab, 2).AppendMissing()
			} else {
				table.Column(tab, 2).AppendNum(value())
			}
		}
		plan.Bind(&in, tab, nil)
		for i := range in.Len() {
			e.Append(&in, i)
			g.Append(&in, i)
		}
		// Folded at the row's time or up to 80 ms later: the 50 ms
		// window keeps its row or sees it enter and leave.
		cut := tm + int64(rng.IntN(80))*int64(time.Millisecond)
		if n == 1 && e.wins()[0].head < e.wins()[0].added {
			slides++
		}
		foldBoth(t, fold, e, g, cut)
	}
	require.Greater(t, slides, 15000, "one-row slides")
}

// TestTickAppendsKeysThatAreNotStringsAmongStrings: a tick appends a
// run's string keys at once; a key that is not a string (a partition of
// missing key) anywhere in a run, first or last, is appended in its
// place, and the keys after it too.
func TestTickAppendsKeysThatAreNotStringsAmongStrings(t *testing.T) {
	const parts = 2*emitRun + 3
	keys := make(keyNames, parts)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	for _, p := range []int{0, 5, emitRun - 1, emitRun, 2*emitRun + 2} {
		keys[p] = schema.Value{}
	}
	plan, err := NewPlan(testSchema, windows1s(), rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keys)
	var in Input
	out := schema.NewTable(plan.Schema())
	for tick := range 3 {
		tab := schema.NewTable(testSchema)
		var part []int32
		for p := range parts {
			table.Column(tab, 0).AppendTime(int64(tick) * int64(100*time.Millisecond))
			table.Column(tab, 1).AppendNum(float64(p))
			table.Column(tab, 2).AppendNum(1)
			part = append(part, int32(p))
		}
		plan.Bind(&in, tab, nil)
		g.Push(&in, part, out)
	}
	require.Equal(t, 2*parts, out.Len())
	for i := range out.Len() {
		assert.True(t, keys[i%parts].Equal(out.Value(i, 1)), "row %d: %v, want %v", i, out.Value(i, 1), keys[i%parts])
	}
}

// windows1s is one window of one second with the average of v.
func windows1s() []rolling.Window {
	return []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}}}
}

// laidTwins builds two plans of windows whose first window is laid out
// as sums and the second as a fill: one as built, one forced onto the
// general path, the reference the laid folds are compared against.
func laidTwins(t *testing.T, windows []rolling.Window) (plan, general *Plan) {
	t.Helper()
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	require.Equal(t, layoutSums, plan.wins[0].layout)
	require.Equal(t, layoutFill, plan.wins[1].layout)
	require.True(t, plan.laid)
	general, err = NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	for w := range general.wins {
		general.wins[w].layout = layoutGeneral
	}
	general.laid = false
	return plan, general
}

// foldBoth folds e and g at cut, emits their rows and requires them
// equal, bit for bit for numbers.
func foldBoth(t *testing.T, fold int, e, g *Engine, cut int64) {
	t.Helper()
	e.Fold(cut)
	g.Fold(cut)
	got, want := schema.NewTable(e.p.Schema()), schema.NewTable(g.p.Schema())
	table.Column(got, 0).AppendTime(cut)
	table.Column(want, 0).AppendTime(cut)
	e.Emit(got)
	g.Emit(want)
	for j := 1; j < want.Schema().Len(); j++ {
		x, y := want.Value(0, j), got.Value(0, j)
		if fx, ok := x.Num(); ok {
			fy, _ := y.Num()
			require.Equal(t, math.Float64bits(fx), math.Float64bits(fy), "fold %d %s: %v, general %v", fold, want.Schema().Column(j).Name, fy, fx)
			continue
		}
		require.True(t, x.Equal(y), "fold %d %s: %v, general %v", fold, want.Schema().Column(j).Name, y, x)
	}
}
