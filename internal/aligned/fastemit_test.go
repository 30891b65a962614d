package aligned

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// fastCaseGroup builds a group whose windows' outputs are all of the
// kinds the grouped emission writes (see fastOuts), over a required
// number slot and an optional one (missing values as NaN) on a 200ms
// clock: with extremes, a 1s window and a 200ms window (one pane);
// without (steady), a 1s window with a warm-up that a steady closing
// takes (see closeSteady) and a 200ms window.
func fastCaseGroup(t testing.TB, steady bool) (*Group, *schema.Table) {
	t.Helper()
	aggs := []Agg{
		{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Stdev}, {Slot: 1, Using: reduce.Min}, {Slot: 1, Using: reduce.Max},
		{Slot: 2, Using: reduce.Avg}, {Slot: 2, Using: reduce.Count}, {Slot: 2, Using: reduce.Stdev}, {Slot: 1, Using: reduce.Avg},
		{Slot: 0, Using: reduce.Count}, {Slot: 2, Using: reduce.Max}, {Slot: 0, Using: reduce.Count},
	}
	raw := append(append([]Agg(nil), aggs...), Agg{Slot: 1, Using: reduce.Samples}, Agg{Slot: 2, Using: reduce.Samples}, Agg{Slot: 2, Using: reduce.Median})
	wins := []Window{{Span: 1000 * ms, MinSamples: 3, Aggs: aggs}, {Span: 200 * ms, Aggs: raw}}
	if steady {
		long := []Agg{
			{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Stdev}, {Slot: 2, Using: reduce.Avg}, {Slot: 2, Using: reduce.Count},
			{Slot: 2, Using: reduce.Stdev}, {Slot: 1, Using: reduce.Avg}, {Slot: 0, Using: reduce.Count}, {Slot: 2, Using: reduce.Sum},
		}
		short := append(append([]Agg(nil), aggs...), Agg{Slot: 1, Using: reduce.Samples}, Agg{Slot: 2, Using: reduce.Samples})
		wins = []Window{{Span: 1000 * ms, MinSamples: 3, Aggs: long}, {Span: 200 * ms, Aggs: short}}
	}
	p, err := NewPlan(Spec{
		Step: 200 * ms, Kinds: []schema.Kind{schema.Number, schema.Number}, Required: []bool{true, false},
		Windows: wins,
	})
	require.NoError(t, err)
	require.Equal(t, steady, p.steady.ok)
	return p.NewGroup(nil, 1, 0), outTable(wins)
}

func TestGroupedEmissionWritesTheSwitchsRows(t *testing.T) {
	// The same rows into a group whose windows emit through the grouped
	// outputs (and, steady, close through closeSteady) and into one
	// emitting through the switch over outputs and closing through the
	// generic path: the same rows out, bit for bit, from open-step
	// records and from panes. Wide: the grouped outputs write the samples
	// to array columns that keep values (see table.Widen), one by one.
	for _, c := range []struct{ steady, stepped, wide bool }{{false, true, false}, {false, false, false}, {true, true, false}, {false, true, true}, {true, true, true}} {
		stepped := c.stepped
		rng := rand.New(rand.NewPCG(3, 4))
		fast, out := fastCaseGroup(t, c.steady)
		slow, want := fastCaseGroup(t, c.steady)
		off := 0
		if c.wide {
			require.True(t, table.Widen(out))
			off = 1
		}
		for w := range fast.p.wins {
			require.True(t, fast.p.wins[w].fast.ok, "window %d", w)
			slow.p.wins[w].fast = fastOuts{}
		}
		slow.p.steady = steadyPlan{}
		fast.stepped, slow.stepped = stepped, stepped
		ts, ps, xs, ys := randomRows(rng, 5, true)
		for i := 0; i < len(ts); {
			j := min(len(ts), i+1+rng.IntN(40))
			fast.Push(&Rows{Times: ts[i:j], Enc: [][]uint64{xs[i:j], ys[i:j]}}, ps[i:j], out)
			slow.Push(&Rows{Times: ts[i:j], Enc: [][]uint64{xs[i:j], ys[i:j]}}, ps[i:j], want)
			i = j
		}
		require.Equal(t, want.Len()+off, out.Len())
		require.Greater(t, out.Len(), 100)
		for j := range table.Columns(want) {
			col := table.Column(out, j)
			if table.Kind(col) == schema.Array {
				require.Equal(t, c.wide, col.Wide(), "column %d keeps numbers unless widened", j)
			}
		}
		sameBits(t, want, out, off, fmt.Sprintf("stepped %v", stepped))
	}
}

func TestASteadyClosingWithOutliersWritesTheGenericRows(t *testing.T) {
	// The steady closing (closeSteady) against the generic path, on rows
	// whose outliers make a leaving pane's sums dwarf what stays (a
	// rebuild), whose squares are too big to sum, whose sums overflow to
	// an infinity, whose partitions fall quiet and wake, and one of whose
	// partitions has its optional column's Moments empty out: the same
	// rows out, bit for bit, and the same running sums after every push.
	rng := rand.New(rand.NewPCG(7, 8))
	fast, out := fastCaseGroup(t, true)
	slow, want := fastCaseGroup(t, true)
	slow.p.steady = steadyPlan{}
	ts, ps, xs, ys := randomRows(rng, 4, true)
	for i := range xs {
		switch rng.IntN(60) {
		case 0:
			xs[i] = math.Float64bits(1e12 * (1 + rng.Float64()))
		case 1:
			ys[i] = math.Float64bits(-1e200)
		case 2:
			xs[i] = math.Float64bits(1e-9)
		case 3:
			xs[i] = math.Float64bits(1.5e308) // two in a window overflow its sum
		}
		if ps[i] == 3 && rng.IntN(10) > 0 {
			ys[i] = math.Float64bits(math.NaN()) // its windows' Moments of y empty out
		}
	}
	for i := 0; i < len(ts); {
		j := min(len(ts), i+1+rng.IntN(40))
		fast.Push(&Rows{Times: ts[i:j], Enc: [][]uint64{xs[i:j], ys[i:j]}}, ps[i:j], out)
		slow.Push(&Rows{Times: ts[i:j], Enc: [][]uint64{xs[i:j], ys[i:j]}}, ps[i:j], want)
		for q, pt := range fast.parts {
			a, b := &pt.wins[0], &slow.parts[q].wins[0]
			require.Equal(t, fmt.Sprint(b.sums), fmt.Sprint(a.sums), "partition %d after row %d", q, j)
			require.Equal(t, b.ns, a.ns)
			require.Equal(t, b.rows, a.rows)
		}
		i = j
	}
	require.Equal(t, want.Len(), out.Len())
	require.Greater(t, out.Len(), 100)
	sameBits(t, want, out, 0, "")
}

// sameBits requires out's rows from row off on to be want's, numbers
// bit for bit; what names the case in a failure.
func sameBits(t *testing.T, want, out *schema.Table, off int, what string) {
	t.Helper()
	for c := range table.Columns(want) {
		for r := range want.Len() {
			got, exp := table.Value(table.Column(out, c), r+off), table.Value(table.Column(want, c), r)
			if x, ok := exp.Num(); ok {
				y, _ := got.Num()
				require.Equal(t, math.Float64bits(x), math.Float64bits(y), "%s column %d row %d", what, c, r)
				continue
			}
			if a, ok := exp.Array(); ok {
				b, _ := got.Array()
				require.Equal(t, a, b, "%s column %d row %d", what, c, r)
				continue
			}
			require.Equal(t, exp, got, "%s column %d row %d", what, c, r)
		}
	}
}
