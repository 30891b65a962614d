package engine

import (
	"testing"

	"github.com/pond-go/pond/internal/allocs"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTickOnOneGoroutineKeepsItsRowsOnceBetweenTicks(t *testing.T) {
	// 1000 partitions at 100 rows a second under a 200 ms clock: 20
	// batches of 1000 rows a tick. On one goroutine the rows between two
	// ticks are in one buffer (28 bytes a row, with append's slack), and
	// the tick takes them from there through their indices sorted by
	// partition (4 bytes a row): no second buffer and no copy of the rows
	// laid out by partition. (Rows this dense go straight to their
	// deques by default: see TestDenseRowsNeedNoBufferBetweenTicks.)
	defer SetDenseParts(SetDenseParts(0))
	r := newGroupRig(1000, 100)
	for range 20 * 100 {
		r.tick()
	}
	g := r.g
	const perTick = 20 * 1000
	held := g.in.bytes() + g.work.bytes() + 8*cap(g.sorted) + 8*cap(g.at) + 4*cap(g.idx)
	assert.LessOrEqual(t, held, (28+4)*perTick*5/4, "bytes buffering the rows of a tick")
	assert.Positive(t, g.in.bytes(), "the buffer is kept for the next tick")

	// Every row pushed is in its partition's deque or still buffered,
	// once (the 1m windows are not full yet).
	rows := len(g.in.part)
	for _, p := range g.order {
		rows += g.engines[p].Len()
	}
	require.Equal(t, 20*100*1000, rows, "rows held")
}

func TestDenseRowsNeedNoBufferBetweenTicks(t *testing.T) {
	// The same stream with rows dense enough (20 a partition a tick):
	// after the first ticks the rows go straight to their deques, the
	// buffer and the sort's scratch are let go, and every row pushed is
	// in its partition's deque.
	r := newGroupRig(1000, 100)
	for range 20 * 100 {
		r.tick()
	}
	g := r.g
	require.True(t, g.dense)
	held := g.in.bytes() + g.work.bytes() + 8*cap(g.sorted) + 8*cap(g.at) + 4*cap(g.idx) + 8*cap(g.chains) + 4*cap(g.cnt)
	assert.Zero(t, held, "bytes buffering the rows of a tick")
	rows := 0
	for _, p := range g.order {
		rows += g.engines[p].Len()
	}
	require.Equal(t, 20*100*1000, rows, "rows held")
}

func TestDenseRowsInSteadyStateDoNotAllocate(t *testing.T) {
	// 200 partitions at 100 rows a second, past the minute of the long
	// window: pushes appended directly keep their room list from tick to
	// tick and allocate nothing.
	r := newGroupRig(200, 100)
	for range 62 * 100 {
		r.tick()
	}
	require.True(t, r.g.dense)
	assert.Zero(t, allocs.Count(1000, r.tick), "allocations over 1000 pushes")
}

func TestSparseRowsAreBufferedAndDenseOnesGoBack(t *testing.T) {
	// 1000 partitions at 10 rows a second: 2 rows a partition a tick,
	// buffered. A group whose rows thin out below half the threshold goes
	// back to buffering; one that stays just below the threshold after
	// turning dense does not flap.
	r := newGroupRig(1000, 10)
	for range 10 * 10 {
		r.tick()
	}
	assert.False(t, r.g.dense)
	assert.Positive(t, r.g.in.bytes(), "sparse rows are buffered for the tick")

	g := &Group{order: make([]int32, 100)}
	assert.False(t, g.denseAfter(799))
	assert.True(t, g.denseAfter(800))
	g.dense = true
	assert.True(t, g.denseAfter(400), "dense until a tick takes fewer than half as many")
	assert.False(t, g.denseAfter(399))
	defer SetDenseParts(SetDenseParts(100))
	g.dense = false
	assert.False(t, g.denseAfter(10000), "not at denseParts partitions")
}
