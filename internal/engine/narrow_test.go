package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// narrowTicks are the rows of the ticks of the tests below: a tick at
// the bound of 16-bit indices, one a row beyond it, a small one, then
// beyond and at the bound again, so that each tick follows one of the
// other width.
var narrowTicks = []int{1 << 16, 1<<16 + 1, 300, 1<<16 + 1, 1 << 16}

// runNarrowTicks pushes the ticks of narrowTicks, their rows spread over
// eight partitions in an irregular order, each row's value its own, into
// a group (with the pool's workers unless pool is nil), and returns what
// the ticks emitted and whether each tick's indices were narrow, with the
// room the group held for 16-bit indices.
func runNarrowTicks(t *testing.T, cols int, pool *workers.Pool) (*schema.Table, []bool, int) {
	t.Helper()
	defer SetDirectParts(SetDirectParts(0))
	aggs := []reduce.Agg{
		{Out: "sum", From: "v", Using: reduce.Sum},
		{Out: "n", From: "v", Using: reduce.Count},
		{Out: "lo", From: "v", Using: reduce.Min},
		{Out: "last", From: "v", Using: reduce.Last},
	}
	if cols == 2 {
		aggs = append(aggs, reduce.Agg{Out: "wsum", From: "w", Using: reduce.Sum})
	}
	windows := []rolling.Window{{Name: "250ms", Span: 250 * time.Millisecond, Aggs: aggs}}
	keys := make(keyNames, 8)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	g := plan.NewGroup(keys)
	if pool != nil {
		g.SetWorkers(pool)
	}
	all := schema.NewTable(plan.Schema())
	var narrow []bool
	row := 0
	tm := int64(0)
	push := func(tab *schema.Table, part []int32, out *schema.Table) {
		var in Input
		plan.Bind(&in, tab, nil)
		g.Push(&in, part, out)
	}
	for _, n := range narrowTicks {
		// n-1 rows over the tick's first 90 ms, then the row that
		// crosses its end: the tick takes all n.
		head, cross := schema.NewTable(testSchema), schema.NewTable(testSchema)
		var part []int32
		for i := range n {
			tab, at := head, tm+int64(i)*int64(90*time.Millisecond)/int64(n)
			if i == n-1 {
				tab, at = cross, tm+int64(100*time.Millisecond)
			}
			table.Column(tab, 0).AppendTime(at)
			table.Column(tab, 1).AppendNum(float64(row))
			table.Column(tab, 2).AppendNum(float64(row % 7))
			part = append(part, int32((row*5+row/7)%len(keys)))
			row++
		}
		tm += int64(100 * time.Millisecond)
		out := schema.NewTable(plan.Schema())
		push(head, part[:n-1], out)
		require.Equal(t, n-1, len(g.in.t)+len(g.work.t), "rows buffered for the tick")
		push(cross, part[n-1:], out)
		require.Equal(t, len(keys), out.Len(), "a row a partition")
		narrow = append(narrow, g.narrow)
		table.AppendAll(all, out)
	}
	return all, narrow, cap(g.idx16)
}

// TestTickIndicesAreNarrowUpToTheirBound: a tick on one goroutine sorts
// its rows' indices into 16 bits up to 65,536 rows (indices 0 to 65,535)
// and into 32 bits beyond, deciding afresh at every tick: a tick at the
// bound after one beyond it is narrow again, and one beyond it after a
// narrow one is not, whose last row (index 65,536) would not fit. Each
// tick emits what it does with 32-bit indices alone; over two workers,
// whose ticks keep their indices in the one slice the workers' reserve
// grows, the indices are never narrow and the group holds no room for
// 16-bit ones.
func TestTickIndicesAreNarrowUpToTheirBound(t *testing.T) {
	for _, cols := range []int{1, 2} {
		t.Run(fmt.Sprintf("columns=%d", cols), func(t *testing.T) {
			got, narrow, _ := runNarrowTicks(t, cols, nil)
			want := make([]bool, len(narrowTicks))
			for i, n := range narrowTicks {
				want[i] = n <= 1<<16
			}
			assert.Equal(t, want, narrow, "narrow indices by tick (rows %v)", narrowTicks)

			old := narrowRows
			narrowRows = 0 // every tick's indices in 32 bits
			wide, narrow, _ := runNarrowTicks(t, cols, nil)
			narrowRows = old
			assert.Equal(t, make([]bool, len(narrowTicks)), narrow, "no tick narrow with narrowRows 0")
			requireSameTable(t, wide, got, "16-bit indices against 32-bit ones")

			pool := workers.New(2)
			defer pool.Close()
			par, narrow, room := runNarrowTicks(t, cols, pool)
			assert.Equal(t, make([]bool, len(narrowTicks)), narrow, "no tick narrow over workers")
			assert.Zero(t, room, "room for 16-bit indices over workers")
			requireSameTable(t, wide, par, "two workers against one")
		})
	}
}
