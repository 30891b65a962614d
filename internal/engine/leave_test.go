package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// TestStillReadsTheOldestRowOnceUntilTheHeadMoves: still keeps when a
// window's oldest row leaves, so a partition between its rows is told
// still at later ticks without the deque's line of that row (its time
// is overwritten here, and still does not see it), until the head moves,
// when it reads the new oldest row's time again.
func TestStillReadsTheOldestRowOnceUntilTheHeadMoves(t *testing.T) {
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	ms := int64(time.Millisecond)
	tab := schema.NewTable(testSchema)
	for i := range 3 {
		table.Column(tab, 0).AppendTime(int64(i) * ms)
		table.Column(tab, 1).AppendNum(1)
		table.Column(tab, 2).AppendNum(1)
	}
	var in Input
	plan.Bind(&in, tab, nil)
	e := plan.NewEngine()
	for i := range in.Len() {
		e.Append(&in, i)
	}
	e.Fold(2 * ms)
	ws := &e.wins()[0]
	assert.Equal(t, int64(unknownLeave), ws.leave, "folded: not read yet")
	require.True(t, e.still(500*ms))
	assert.Equal(t, int64(time.Second), ws.leave, "the oldest row, at 0, leaves after 1 s")
	// Rows 0 and 1 said to be 10 s old: a still that read them would
	// see them leave.
	setTime := func(a uint64, ns int64) {
		e.dq.row(a)[0] = uint64(ns)
	}
	setTime(ws.head, -10_000*ms)
	setTime(ws.head+1, -10_000*ms)
	assert.True(t, e.still(600*ms), "known: the deque is not read")
	assert.False(t, e.still(time.Second.Nanoseconds()+1), "a cut past the known time is not still")
	ws.moveHead(ws.head+1, ws.added)
	assert.Equal(t, int64(unknownLeave), ws.leave, "a moved head forgets")
	assert.False(t, e.still(600*ms), "the new oldest row is read again")
	ws.moveHead(ws.head, ws.added)
	assert.Equal(t, -9_000*ms, ws.leave, "a head that stays keeps what it read")
}
