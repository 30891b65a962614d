package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestFewRowSlidesMatchRecomputation feeds one engine a few rows between
// folds for long enough that its windows' heads and tails cross many
// block boundaries and the ring wraps: a window that slides by a few rows
// finds its new head in the head's block or past it, and a short window's
// samples are read from one block or from two. Every fold's row must be
// the windows recomputed from the rows: the counts and samples exactly,
// the sums to 1e-12 (a value of 2^100 now and then takes the sums off
// their one-pass path; missing values and zeros are among the rest).
func TestFewRowSlidesMatchRecomputation(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg},
			{Out: "n", From: "v", Using: reduce.Count},
			{Out: "sum", From: "w", Using: reduce.Sum},
			{Out: "nw", From: "w", Using: reduce.Count},
		}},
		{Name: "30ms", Span: 30 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "samples", From: "w", Using: reduce.Samples},
			{Out: "min", From: "v", Using: reduce.Min},
			{Out: "max", From: "v", Using: reduce.Max},
			{Out: "cur", From: "v", Using: reduce.Avg},
		}},
	}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	e := plan.NewEngine()
	rng := rand.New(rand.NewPCG(61, 62))
	type row struct {
		t    int64
		v, w float64
	}
	var rows []row
	var in Input
	tm := int64(0)
	for fold := range 6000 {
		tab := schema.NewTable(testSchema)
		for range rng.IntN(5) {
			tm += int64(rng.IntN(4)) * int64(time.Millisecond)
			v := float64(rng.IntN(1000)) / 8
			if rng.IntN(400) == 0 {
				v = 0x1p100
			}
			w := float64(rng.IntN(100)) / 4
			if rng.IntN(5) == 0 {
				w = math.NaN()
			}
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(v)
			table.Column(tab, 2).AppendNum(w)
			rows = append(rows, row{tm, v, w})
		}
		plan.Bind(&in, tab, nil)
		for i := range in.Len() {
			e.Append(&in, i)
		}
		tm += int64(rng.IntN(3)) * int64(time.Millisecond)
		e.Fold(tm)
		out := schema.NewTable(plan.Schema())
		table.Column(out, 0).AppendTime(tm)
		e.Emit(out)
		get := func(name string) schema.Value {
			j, ok := out.Schema().Index(name)
			require.True(t, ok, name)
			return out.Value(0, j)
		}
		num := func(name string) float64 {
			x, ok := get(name).Num()
			require.True(t, ok, "fold %d %s", fold, name)
			return x
		}
		var n, nw int
		var sv, sw float64
		var cur []float64
		var samples []schema.Value
		for _, r := range rows {
			if r.t >= tm-int64(time.Second) {
				n++
				sv += r.v
				if r.w == r.w {
					nw++
					sw += r.w
				}
			}
			if r.t >= tm-int64(30*time.Millisecond) {
				cur = append(cur, r.v)
				if r.w == r.w {
					samples = append(samples, schema.NumberValue(r.w))
				}
			}
		}
		require.Equal(t, float64(n), num("n"), "fold %d", fold)
		require.Equal(t, float64(nw), num("nw"), "fold %d", fold)
		require.InDelta(t, sw, num("sum"), 1e-12*math.Max(1, math.Abs(sw)), "fold %d", fold)
		if n > 0 {
			require.InDelta(t, sv/float64(n), num("avg"), 1e-12*math.Max(1, math.Abs(sv/float64(n))), "fold %d", fold)
		}
		s, ok := get("samples").Array()
		require.True(t, ok, "fold %d", fold)
		require.Equal(t, len(samples), len(s), "fold %d", fold)
		for i := range s {
			require.True(t, samples[i].Equal(s[i]), "fold %d sample %d", fold, i)
		}
		if len(cur) > 0 {
			lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
			for _, x := range cur {
				lo, hi, sum = min(lo, x), max(hi, x), sum+x
			}
			require.Equal(t, lo, num("min"), "fold %d", fold)
			require.Equal(t, hi, num("max"), "fold %d", fold)
			require.InDelta(t, sum/float64(len(cur)), num("cur"), 1e-12*math.Max(1, math.Abs(sum)), "fold %d", fold)
		}
		// Keep the model to what the longest window can still hold.
		for len(rows) > 0 && rows[0].t < tm-int64(2*time.Second) {
			rows = rows[1:]
		}
	}
	require.Greater(t, e.Len(), 256, "the deque spans more than one block")
}

// TestDeclaredPartitionEmitsEmptySamplesBeforeItsFirstRow: a declared
// partition emits at a tick before it has held a row, its deque without a
// block: its samples are an empty array, read without looking for the
// rows' block.
func TestDeclaredPartitionEmitsEmptySamplesBeforeItsFirstRow(t *testing.T) {
	windows := []rolling.Window{{Name: "200ms", Span: 200 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "samples", From: "w", Using: reduce.Samples},
		{Out: "avg", From: "v", Using: reduce.Avg},
	}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keyNames{schema.StringValue("quiet"), schema.StringValue("busy")})
	g.Declare(0)
	tab := schema.NewTable(testSchema)
	for _, ms := range []int64{10, 50, 120} {
		table.Column(tab, 0).AppendTime(ms * int64(time.Millisecond))
		table.Column(tab, 1).AppendNum(1)
		table.Column(tab, 2).AppendNum(2)
	}
	var in Input
	plan.Bind(&in, tab, nil)
	out := schema.NewTable(plan.Schema())
	g.Push(&in, []int32{1, 1, 1}, out)
	require.Equal(t, 2, out.Len(), "one row for each partition at the tick")
	j, ok := out.Schema().Index("samples")
	require.True(t, ok)
	quiet, ok := out.Value(0, j).Array()
	require.True(t, ok)
	require.Empty(t, quiet)
	busy, ok := out.Value(1, j).Array()
	require.True(t, ok)
	require.Len(t, busy, 3)
}
