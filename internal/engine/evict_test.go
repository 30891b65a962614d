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

// evictRig is two groups of one plan fed the same rows, one row a
// partition a push: one buffers them for the tick (whose rows evict
// first when they do not fit in a ring), the other appends them to the
// deques as they come (direct, before the tick's fold evicts).
type evictRig struct {
	plan            *Plan
	ticked, direct  *Group
	in              Input
	tab, out1, out2 *schema.Table
	part            []int32
	t, step         int64
	parts           int
	// jitter, when set, spaces the pushes at random, from half a step
	// to a step and a half.
	jitter *rand.Rand
}

func newEvictRig(t *testing.T, windows []rolling.Window, parts, perSec int) *evictRig {
	keys := make(keyNames, parts)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("host-%d", i))
	}
	plan, err := NewPlan(benchSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(200 * time.Millisecond))},
		&Key{Name: "host", Kind: schema.String}, nil)
	require.NoError(t, err)
	r := &evictRig{plan: plan, tab: schema.NewTable(benchSchema), out1: schema.NewTable(plan.Schema()),
		out2: schema.NewTable(plan.Schema()), step: int64(time.Second) / int64(perSec), parts: parts}
	r.ticked, r.direct = plan.NewGroup(keys), plan.NewGroup(keys)
	for p := range parts {
		r.part = append(r.part, int32(p))
	}
	return r
}

// push pushes one row per partition at the next time to both groups and
// requires the same rows out of both: numbers within sumULPs, the rest equal.
func (r *evictRig) push(t *testing.T) {
	table.Reset(r.tab)
	table.Reset(r.out1)
	table.Reset(r.out2)
	for p := range r.parts {
		table.Column(r.tab, 0).AppendTime(r.t)
		// Values of many magnitudes, so that the sums' order of
		// operations shows in their last bits.
		x := math.Sin(float64(r.t/r.step+int64(7*p))) * math.Exp2(float64((r.t/r.step)%40-20))
		table.Column(r.tab, 1).AppendNum(x)
		table.Column(r.tab, 2).AppendNum(float64(70+p%61) + 1e-9*x)
	}
	// Whether a push goes straight to the deques is decided as it
	// comes.
	defer SetDirectParts(SetDirectParts(0))
	r.plan.Bind(&r.in, r.tab, nil)
	r.ticked.Push(&r.in, r.part, r.out1)
	SetDirectParts(128)
	r.plan.Bind(&r.in, r.tab, nil)
	r.direct.Push(&r.in, r.part, r.out2)
	if r.jitter != nil {
		r.t += r.step/2 + r.jitter.Int64N(r.step)
	} else {
		r.t += r.step
	}
	require.Equal(t, r.out2.Len(), r.out1.Len(), "rows at %d", r.t)
	// Numbers within sumULPs of each other, the rest (the samples) value
	// by value.
	for c := range r.out1.Schema().Len() {
		for i := range r.out1.Len() {
			v, w := r.out1.Value(i, c), r.out2.Value(i, c)
			if x, ok := v.Num(); ok {
				y, _ := w.Num()
				d := ulps(x, y)
				require.LessOrEqual(t, d, uint64(sumULPs), "column %d row %d at %d: %v and %v", c, i, r.t, y, x)
			} else {
				require.True(t, w.Equal(v), "column %d row %d at %d: %v and %v", c, i, r.t, w, v)
			}
		}
	}
}

// sumULPs is how far apart, in units of the last place, a number of the
// two groups of an evictRig may be. Their rings differ in size (the
// direct one holds a tick's rows beside its windows'), so they break a
// window's rows into runs at different rows, and a run's sums are taken
// in lanes (reducers.Moments.AddSlots and RemoveSlots) whose last bits
// depend on where runs begin and end: on 256-row blocks the rows of 270,
// 300 and 350 a second differed so, at 1,024-row blocks
// those of 330.
// The sums are double-double: the two groups' numbers were at most one
// ulp apart at every rate here.
const sumULPs = 1

// ulps returns how many representable numbers lie from x to y (of one
// sign; the largest for opposite signs unless both are zero).
func ulps(x, y float64) uint64 {
	if x == y || math.IsNaN(x) && math.IsNaN(y) {
		return 0
	}
	if math.Signbit(x) != math.Signbit(y) {
		return math.MaxUint64
	}
	a, b := math.Float64bits(math.Abs(x)), math.Float64bits(math.Abs(y))
	return max(a, b) - min(a, b)
}

func TestATickOfManyRowsEvictsBeforeTheyEnter(t *testing.T) {
	// The seed's windows at 100 rows a second: a minute holds 6,001 rows
	// at a fold. A tick's 20 rows enter after the rows that leave are
	// dropped, so the ring holds the window's rows (even), not 6,021: no
	// room for a short tick, as a 256th of the minute brings 23 rows,
	// more than reducers.ShortRun; the rows emitted are those of a group
	// whose rows enter first.
	r := newEvictRig(t, seedWindows, 3, 100)
	for range 100 * 75 {
		r.push(t)
	}
	for p := range r.parts {
		d := &r.ticked.Engine(int32(p)).dq
		assert.LessOrEqual(t, d.cap, uint64(6002), "partition %d: the ticked ring", p)
		// (6,000 rows but in the partition whose row crosses: the
		// others' rows at the boundary come after it.)
		assert.GreaterOrEqual(t, d.cap, uint64(6000), "partition %d: the ticked ring", p)
		// The group whose rows enter first holds them beside the
		// window's.
		assert.GreaterOrEqual(t, r.direct.Engine(int32(p)).dq.cap, uint64(6021), "partition %d: the direct ring", p)
	}
}

func TestEvictingFirstKeepsEveryWindowsRows(t *testing.T) {
	// Windows of every kind a fold treats apart: sums alone (one pass
	// a sum), a few rows with their extremes (rebuilt at each fold),
	// counts, extremes and generic states (the general path); and a
	// count window (alone, as a plan has one), which evicts only in the
	// fold.
	windows := []rolling.Window{
		{Name: "20s", Span: 20 * time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "cpu", Using: reduce.Avg},
			{Out: "sd", From: "requests", Using: reduce.Stdev},
		}},
		{Name: "10s", Span: 10 * time.Second, Aggs: []reduce.Agg{
			{Out: "n", From: "cpu", Using: reduce.Count},
			{Out: "lo", From: "cpu", Using: reduce.Min},
			{Out: "hi", From: "requests", Using: reduce.Max},
			{Out: "med", From: "cpu", Using: reduce.Median},
			{Out: "sum", From: "requests", Using: reduce.Sum},
		}},
		{Name: "150ms", Span: 150 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "lo_s", From: "cpu", Using: reduce.Min},
			{Out: "hi_s", From: "cpu", Using: reduce.Max},
			{Out: "avg_s", From: "cpu", Using: reduce.Avg},
		}},
	}
	// A window whose fold rebuilds it or slides it by turns, as the
	// rows a tick brings vary: a slide after a rebuild builds its
	// extremes first.
	turns := []rolling.Window{
		{Name: "20s", Span: 20 * time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "cpu", Using: reduce.Avg}}},
		{Name: "400ms", Span: 400 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "lo", From: "cpu", Using: reduce.Min},
			{Out: "hi", From: "cpu", Using: reduce.Max},
			{Out: "n", From: "requests", Using: reduce.Count},
		}},
	}
	for _, perSec := range []int{100, 330} {
		t.Run(fmt.Sprintf("by turns/%d rows a second", perSec), func(t *testing.T) {
			r := newEvictRig(t, turns, 4, perSec)
			r.jitter = rand.New(rand.NewPCG(23, uint64(perSec)))
			for range perSec * 40 {
				r.push(t)
			}
		})
	}
	count := []rolling.Window{{Name: "last 300", Count: 300, Aggs: []reduce.Agg{{Out: "sum_c", From: "cpu", Using: reduce.Sum}}}}
	for _, perSec := range []int{5, 100, 270, 300, 330, 350} {
		for name, ws := range map[string][]rolling.Window{"time windows": windows, "a count window": count} {
			t.Run(fmt.Sprintf("%s/%d rows a second", name, perSec), func(t *testing.T) {
				r := newEvictRig(t, ws, 4, perSec)
				for range perSec * 40 {
					r.push(t)
				}
			})
		}
	}
}
