package engine

import (
	"fmt"
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

// TestRowsWaitForTheTickWithWorkers: with workers, the rows a push buffers
// between ticks stay buffered until the tick, whose fold the workers
// share; nothing takes them into the deques before, and the partitions
// first seen among them get their engines at the tick. The pushes are
// the kind a worker once took between ticks (1000 rows, ticks 10 000
// rows apart), and the rows emitted are one worker's.
func TestRowsWaitForTheTickWithWorkers(t *testing.T) {
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	keys := make(keyNames, 8)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	one, two := plan.NewGroup(keys), plan.NewGroup(keys)
	pool := workers.New(2)
	defer pool.Close()
	two.SetWorkers(pool)

	// Ten pushes of 1000 rows a second, over three seconds and the first
	// row of the fourth; four keys in the first second, eight after.
	const rows, pushes = 1000, 10
	var in Input
	buffered, known := 0, 0
	for k := range 3*pushes + 1 {
		sec := k / pushes
		nk := 4
		if sec > 0 {
			nk = 8
		}
		tab := schema.NewTable(testSchema)
		part := make([]int32, rows)
		for i := range part {
			tm := int64(k)*int64(time.Second)/pushes + int64(i)*int64(time.Second)/(pushes*rows)
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(float64(k*rows + i))
			table.Column(tab, 2).AppendNum(1)
			part[i] = int32(i % nk)
		}
		want, got := schema.NewTable(plan.Schema()), schema.NewTable(plan.Schema())
		plan.Bind(&in, tab, nil)
		one.Push(&in, part, want)
		plan.Bind(&in, tab, nil)
		two.Push(&in, part, got)
		requireSameTable(t, want, got, fmt.Sprintf("push %d", k))
		if k%pushes == 0 && k > 0 {
			// This push's first row crossed a second: the rows up to it
			// were taken at the tick, which met their partitions and
			// emitted a row for each.
			buffered, known = rows-1, 4
			if sec > 1 {
				known = 8
			}
			require.Equal(t, known, got.Len(), "push %d: rows emitted", k)
		} else {
			buffered += rows
		}
		require.Len(t, two.in.part, buffered, "push %d: rows buffered for the tick", k)
		require.Equal(t, known, two.Len(), "push %d: partitions met before the tick", k)
	}
}

// requireSameTable requires got to hold want's rows, bit for bit.
func requireSameTable(t *testing.T, want, got *schema.Table, what string) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len(), what)
	for r := range want.Len() {
		for c := range want.Schema().Len() {
			require.True(t, want.Value(r, c).Equal(got.Value(r, c)), "%s: row %d col %d", what, r, c)
		}
	}
}
