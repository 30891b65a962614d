package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTickOnOneGoroutineKeepsItsRowsOnceBetweenTicks(t *testing.T) {
	// 1000 partitions at 100 rows a second under a 200 ms clock: 20
	// batches of 1000 rows a tick. On one goroutine the rows between two
	// ticks are in one buffer (28 bytes a row, with append's slack), and
	// the tick takes them from there through their indices sorted by
	// partition (4 bytes a row): no second buffer and no copy of the rows
	// laid out by partition.
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
