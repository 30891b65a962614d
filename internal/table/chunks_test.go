package table

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/schema"
)

var chunkSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number},
)

// writeChunk appends chunk i's two rows to t: times 10i and 10i+1.
func writeChunk(t *schema.Table, i int) {
	for k := range 2 {
		Column(t, 0).AppendTime(int64(10*i + k))
		Column(t, 1).AppendNum(float64(i))
	}
}

// TestChunksJoinInChunkOrder: however the chunks fall to the workers and
// in whatever order they are written, the output holds the rows it held
// before, then every chunk's rows in chunk order; the chunks worker 0
// takes in order from the first are written into the output itself.
func TestChunksJoinInChunkOrder(t *testing.T) {
	cases := []struct {
		name   string
		takes  [][2]int // (worker, chunk) in the order written
		direct int      // chunks written straight into the output
	}{
		{"worker 0 alone, in order", [][2]int{{0, 0}, {0, 1}, {0, 2}, {0, 3}}, 4},
		{"two homes", [][2]int{{0, 0}, {1, 2}, {0, 1}, {1, 3}}, 2},
		{"worker 0 steals from the back", [][2]int{{0, 0}, {0, 1}, {0, 3}, {0, 2}}, 3},
		{"worker 0 late", [][2]int{{1, 0}, {1, 1}, {0, 2}, {0, 3}}, 0},
		{"the stolen chunk is the next", [][2]int{{0, 0}, {1, 2}, {1, 3}, {0, 1}}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := schema.NewTable(chunkSchema)
			Column(out, 0).AppendTimes([]int64{-1})
			AppendValue(Column(out, 1), schema.NumberValue(-1))
			var c Chunks
			c.Reset(out, 4)
			direct := 0
			for _, wc := range tc.takes {
				dst := c.For(wc[0], wc[1])
				if dst == out {
					direct++
				}
				writeChunk(dst, wc[1])
			}
			c.Join()
			assert.Equal(t, tc.direct, direct, "chunks written into the output")
			require.Equal(t, 9, out.Len())
			assert.Equal(t, []int64{-1, 0, 1, 10, 11, 20, 21, 30, 31}, out.Times())
			xs, ok := out.Numbers("x")
			require.True(t, ok)
			assert.Equal(t, []float64{-1, 0, 0, 1, 1, 2, 2, 3, 3}, xs)
		})
	}
}

// TestChunksResetEmptiesTheChunks: a second use of the same chunks
// starts from empty tables, whichever were written the time before.
func TestChunksResetEmptiesTheChunks(t *testing.T) {
	var c Chunks
	first := schema.NewTable(chunkSchema)
	c.Reset(first, 3)
	writeChunk(c.For(1, 1), 1)
	writeChunk(c.For(1, 2), 2)
	writeChunk(c.For(0, 0), 0)
	c.Join()
	require.Equal(t, 6, first.Len())

	second := schema.NewTable(chunkSchema)
	c.Reset(second, 3)
	writeChunk(c.For(0, 0), 0)
	writeChunk(c.For(0, 1), 1)
	writeChunk(c.For(1, 2), 2)
	c.Join()
	assert.Equal(t, []int64{0, 1, 10, 11, 20, 21}, second.Times())
	assert.Equal(t, 6, first.Len(), "the first output is left as it was")
}

// TestChunksRoomForWhatWorker0Wrote: a chunk worker 0 wrote into the
// output has room in its own table for the same rows, so that another
// worker taking it the next time allocates nothing.
func TestChunksRoomForWhatWorker0Wrote(t *testing.T) {
	// Chunks for each run (allocs.Count runs f once more before it
	// counts), each written by worker 0 alone the time before; outputs
	// with room, which are not the point.
	var cs [2]Chunks
	var outs [2]*schema.Table
	for i := range cs {
		cs[i].Reset(schema.NewTable(chunkSchema), 2)
		writeChunk(cs[i].For(0, 0), 0)
		writeChunk(cs[i].For(0, 1), 1)
		cs[i].Join()
		outs[i] = schema.NewTable(chunkSchema)
		writeChunk(outs[i], 0)
		writeChunk(outs[i], 1)
		Reset(outs[i])
	}
	next := 0
	got := allocs.Count(1, func() {
		c := &cs[next]
		c.Reset(outs[next], 2)
		next++
		writeChunk(c.For(1, 0), 0)
		writeChunk(c.For(1, 1), 1)
		c.Join()
	})
	assert.Zero(t, got)
	assert.Equal(t, []int64{0, 1, 10, 11}, outs[1].Times())
}
