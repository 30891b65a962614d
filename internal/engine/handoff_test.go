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

// TestAHandOverTakesAtMostHandOffMaxRows: between ticks, the rows a push
// buffered go to a worker only while they are no more than handOffMax
// (rows pile up beyond it only while the worker is behind); more stay
// buffered for the tick, whose rows are still those one worker emits.
func TestAHandOverTakesAtMostHandOffMaxRows(t *testing.T) {
	defer SetHandOffRows(SetHandOffRows(1))
	defer func(n int) { handOffMax = n }(handOffMax)
	handOffMax = 8
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	keys := make(keyNames, 4)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
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
		require.Equal(t, want.Len(), got.Len(), "a push of %d rows", rows)
		for r := range want.Len() {
			for c := range want.Schema().Len() {
				require.True(t, want.Value(r, c).Equal(got.Value(r, c)), "a push of %d rows: row %d col %d", rows, r, c)
			}
		}
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
		require.Len(t, two.in.part, buffered, "a push of %d rows: buffered for the tick", rows)
		two.settle()
	}
	require.Positive(t, emitted, "the last push ticked")
}
