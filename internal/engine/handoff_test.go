package engine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestAHandOverTakesAtMostHandOffMaxRows: between ticks, the rows a push
// buffered go to a worker only while they are no more than handOffMax
// (rows pile up beyond it only while the worker is behind); more stay
// buffered for the tick, whose rows are still those one worker emits.
func TestAHandOverTakesAtMostHandOffMaxRows(t *testing.T) {
	defer SetHandOffRows(SetHandOffRows(1))
	defer func(n int) { handOffMax = n }(handOffMax)
	handOffMax = 8
	plan, keys := handOffPlan(t)
	one, two := plan.NewGroup(keys), plan.NewGroup(keys)
	pool := workers.New(2)
	defer pool.Close()
	two.SetWorkers(pool)
	tm := int64(0)
	var in Input
	emitted, buffered := 0, 0
	// Ten milliseconds apart, the pushes but the last stay within the
	// first second: the last crosses it, and the tick emits.
	for _, rows := range []int{5, 8, 9, 30, 3, 1, 1} {
		if rows == 1 && tm > 500*int64(time.Millisecond) && tm < int64(time.Second) {
			tm = int64(1500 * time.Millisecond)
		}
		tab := schema.NewTable(testSchema)
		var part []int32
		for i := range rows {
			tm += int64(10 * time.Millisecond)
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(float64(i))
			table.Column(tab, 2).AppendNum(1)
			part = append(part, int32(i%len(keys)))
		}
		want, got := schema.NewTable(plan.Schema()), schema.NewTable(plan.Schema())
		plan.Bind(&in, tab, nil)
		one.Push(&in, part, want)
		plan.Bind(&in, tab, nil)
		two.Push(&in, part, got)
		requireSameTable(t, want, got, fmt.Sprintf("a push of %d rows", rows))
		emitted += got.Len()
		if tm >= int64(time.Second) {
			two.settle()
			continue // the ticking pushes: their rows compared above
		}
		// Rows not handed over wait for the tick with the next push's,
		// and count towards its hand-over.
		buffered += rows
		handed := buffered <= handOffMax
		require.Equal(t, handed, two.bg.busy, "a push of %d rows, %d buffered: handed over", rows, buffered)
		if handed {
			buffered = 0
		}
		require.Len(t, two.in.t, buffered, "a push of %d rows: buffered for the tick", rows)
		two.settle()
	}
	require.Positive(t, emitted, "the last push ticked")
}

// TestRowsAreHandedOverOnlyBetweenTicksFarApart: a group with workers
// hands a push's rows to a worker only once the last tick came at least
// handOffSpan rows after the one before, or after the first row (none
// before the first tick, none with ticks closer); the rows are one
// worker's either way.
func TestRowsAreHandedOverOnlyBetweenTicksFarApart(t *testing.T) {
	defer SetHandOffRows(SetHandOffRows(4))
	defer func(n int) { handOffSpan = n }(handOffSpan)
	handOffSpan = 40
	plan, keys := handOffPlan(t)
	// Pushes of 8 rows, every 100 ms (80 rows a tick: hand-overs once a
	// tick has shown it) or every 250 ms (32 rows a tick: none).
	for _, c := range []struct {
		every  time.Duration
		handed bool
	}{{100 * time.Millisecond, true}, {250 * time.Millisecond, false}} {
		one, two := plan.NewGroup(keys), plan.NewGroup(keys)
		pool := workers.New(2)
		two.SetWorkers(pool)
		var in Input
		ticks, handed := 0, 0
		for k := range 40 {
			tm := int64(k) * int64(c.every)
			tab := schema.NewTable(testSchema)
			part := make([]int32, 8)
			for i := range part {
				table.Column(tab, 0).AppendTime(tm + int64(i))
				table.Column(tab, 1).AppendNum(float64(k*8 + i))
				table.Column(tab, 2).AppendNum(1)
				part[i] = int32(i % len(keys))
			}
			want, got := schema.NewTable(plan.Schema()), schema.NewTable(plan.Schema())
			plan.Bind(&in, tab, nil)
			one.Push(&in, part, want)
			plan.Bind(&in, tab, nil)
			two.Push(&in, part, got)
			requireSameTable(t, want, got, fmt.Sprintf("every %v, push %d", c.every, k))
			if want.Len() > 0 {
				ticks++
			}
			if two.bg.busy {
				handed++
				require.True(t, c.handed, "every %v, push %d: rows handed over with ticks %d rows apart", c.every, k, two.spanRows)
				require.Positive(t, ticks, "every %v, push %d: rows handed over before the first tick", c.every, k)
			}
			two.settle()
		}
		pool.Close()
		require.Greater(t, ticks, 2, "every %v: ticks", c.every)
		if c.handed {
			require.Positive(t, handed, "every %v: rows handed over", c.every)
		}
	}
}

// handOffPlan is the hand-over tests' plan: a 1 s average of v, keyed
// by a string, ticking every second, over four keys.
func handOffPlan(t *testing.T) (*Plan, keyNames) {
	t.Helper()
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	keys := make(keyNames, 4)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	return plan, keys
}

// requireSameTable requires got to hold want's rows, bit for bit.
func requireSameTable(t *testing.T, want, got *schema.Table, what string) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len(), what)
	for r := range want.Len() {
		for c := range want.Schema().Len() {
			x, y := want.Value(r, c), got.Value(r, c)
			if fx, ok := x.Num(); ok {
				fy, _ := y.Num()
				require.Equal(t, math.Float64bits(fx), math.Float64bits(fy), "%s: row %d col %d", what, r, c)
				continue
			}
			require.True(t, x.Equal(y), "%s: row %d col %d: %v, want %v", what, r, c, y, x)
		}
	}
}
