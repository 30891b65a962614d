package engine

import (
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

// TestExtremesOfARecomputedWindowThatSlides runs a 300ms window of min
// and max under a 100ms clock through bursts (the window is recomputed
// from its rows, its extremes kept as values) and quiet spells (it slides,
// so their deques are built from the rows it holds), with values that are
// often zeros of either sign: every emitted min and max is the one of the
// window's rows, bit for bit, the oldest of equal values.
func TestExtremesOfARecomputedWindowThatSlides(t *testing.T) {
	windows := []rolling.Window{{Name: "300ms", Span: 300 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "min", From: "v", Using: reduce.Min},
		{Out: "max", From: "v", Using: reduce.Max},
		{Out: "wmax", From: "w", Using: reduce.Max},
	}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keyNames{schema.StringValue("k")})
	rng := rand.New(rand.NewPCG(7, 11))
	values := []float64{0, math.Copysign(0, -1), 1, -1, 2}
	type row struct {
		t    int64
		v, w float64
	}
	var rows []row
	var in Input
	tm := int64(0)
	emitted, done := 0, 0
	ck := clock.NewClockState(sequence.Every(100 * time.Millisecond))
	for push := range 800 {
		tab := schema.NewTable(testSchema)
		dense := push%20 < 10 // bursts of many rows a tick, then a row now and then
		n := 1
		if dense {
			n = 5 + rng.IntN(20)
		}
		part := make([]int32, n)
		for range n {
			if dense {
				tm += int64(rng.IntN(4)) * int64(time.Millisecond)
			} else {
				tm += int64(20+rng.IntN(80)) * int64(time.Millisecond)
			}
			r := row{t: tm, v: values[rng.IntN(len(values))], w: values[rng.IntN(len(values))]}
			if rng.IntN(6) == 0 {
				r.w = math.NaN()
			}
			table.Column(tab, 0).AppendTime(r.t)
			table.Column(tab, 1).AppendNum(r.v)
			if r.w == r.w {
				table.Column(tab, 2).AppendNum(r.w)
			} else {
				table.Column(tab, 2).AppendMissing()
			}
			rows = append(rows, r)
		}
		out := schema.NewTable(plan.Schema())
		plan.Bind(&in, tab, nil)
		g.Push(&in, part, out)
		// Each crossing row fires an emission over the rows up to it,
		// cut at its time.
		for k := len(rows) - n; k < len(rows); k++ {
			if _, fired := ck.Observe(rows[k].t); !fired {
				continue
			}
			cut := rows[k].t
			lo, hi, whi := math.Inf(1), math.Inf(-1), math.Inf(-1)
			hasW := false
			for _, r := range rows[:k+1] {
				if r.t < cut-int64(300*time.Millisecond) {
					continue
				}
				if r.v < lo {
					lo = r.v
				}
				if r.v > hi {
					hi = r.v
				}
				if r.w > whi {
					whi = r.w
				}
				hasW = hasW || r.w == r.w
			}
			require.Less(t, emitted, out.Len()+done, "push %d: too few rows", push)
			i := emitted - done
			gotLo, _ := table.Column(out, 2).Num(i)
			gotHi, _ := table.Column(out, 3).Num(i)
			require.Equal(t, math.Float64bits(lo), math.Float64bits(gotLo), "push %d row %d: min", push, i)
			require.Equal(t, math.Float64bits(hi), math.Float64bits(gotHi), "push %d row %d: max", push, i)
			gotW, ok := table.Column(out, 4).Num(i)
			require.Equal(t, hasW, ok, "push %d row %d: w max present", push, i)
			if hasW {
				require.Equal(t, math.Float64bits(whi), math.Float64bits(gotW), "push %d row %d: w max", push, i)
			}
			emitted++
		}
		require.Equal(t, emitted-done, out.Len(), "push %d: rows emitted", push)
		done = emitted
	}
	require.Greater(t, emitted, 300)
}
