package column

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/internal/allocs"
)

// TestReserveMakesRoomForTheCells: after Reserve of a range of another
// column, an empty column of every kind takes the same cells with no
// allocation, and an array column grown for them an eighth more
// elements in them; a range of no cells reserves nothing.
func TestReserveMakesRoomForTheCells(t *testing.T) {
	const n, from, to = 200, 40, 160
	for _, k := range []uint8{Time, Number, String, Bool, Array} {
		src := Make[elem](k)
		for i := range n {
			switch k {
			case Time:
				src.AppendTime(int64(i))
			case Number:
				src.AppendNum(float64(i))
			case String:
				src.AppendStr(string(rune('a' + i%26)))
			case Bool:
				src.AppendBool(i%2 == 0)
			case Array:
				for j := range i % 5 {
					src.AppendNumElem(float64(j))
				}
				src.EndArray()
			}
		}
		empty := Make[elem](k)
		empty.Reserve(&src, from, from)
		assert.Zero(t, cap(empty.ts)+cap(empty.num)+cap(empty.str)+cap(empty.flag)+cap(empty.end)+cap(empty.nums), "kind %d: no cells, no room", k)
		// A column reserved for each run (allocs.Count runs f once more
		// before it counts): the appends alone are counted.
		const runs = 3
		dsts := make([]Col[elem], runs+1)
		for i := range dsts {
			dsts[i] = Make[elem](k)
			dsts[i].Reserve(&src, from, to)
		}
		next := 0
		got := allocs.Count(runs, func() {
			dst := &dsts[next]
			next++
			if k != Array {
				dst.AppendRange(&src, from, to)
				return
			}
			// The same cells with an eighth more elements: one more in
			// every fourth.
			for i := from; i < to; i++ {
				for j := range i%5 + int(max(0, 1-i%4)) {
					dst.AppendNumElem(float64(j))
				}
				dst.EndArray()
			}
		})
		assert.Zero(t, got, "kind %d: allocations after Reserve", k)
		assert.Equal(t, to-from, dsts[runs].Len(), "kind %d", k)
	}
}

// TestReserveKeepsABufferWithRoom: a column whose buffers already have
// room for the cells (grown by appends before a reset) keeps them, so a
// reservation made again at every push grows nothing once the column
// has held the most it takes.
func TestReserveKeepsABufferWithRoom(t *testing.T) {
	src := Make[elem](Number)
	for i := range 100 {
		src.AppendNum(float64(i))
	}
	c := Make[elem](Number)
	c.AppendRange(&src, 0, 100)
	c.Reset()
	before := unsafe.SliceData(c.num)
	c.Reserve(&src, 0, 100)
	assert.Equal(t, before, unsafe.SliceData(c.num), "a buffer with room is kept")
	grown := Make[elem](Number)
	grown.Reserve(&src, 0, 100)
	assert.GreaterOrEqual(t, cap(grown.num), 125, "a buffer grown takes a quarter more")
}
