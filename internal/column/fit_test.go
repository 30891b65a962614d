package column

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFitLetsGoOfTheRoomGrowthLeft grows columns of every kind cell by
// cell (append's steps leave up to a quarter of room): Fit keeps their
// cells and leaves them no more than a sixteenth of room, and passes over
// a buffer of little room, of few bytes, or borrowed.
func TestFitLetsGoOfTheRoomGrowthLeft(t *testing.T) {
	const n = 3000
	room := func(c *Col[elem]) []int {
		return []int{cap(c.ts) - len(c.ts), cap(c.num) - len(c.num), cap(c.str) - len(c.str), cap(c.flag) - len(c.flag), cap(c.end) - len(c.end), cap(c.nums) - len(c.nums)}
	}
	for _, k := range []uint8{Time, Number, String, Array} {
		c := Make[elem](k)
		for i := range n {
			switch k {
			case Time:
				c.AppendTime(int64(i))
			case Number:
				c.AppendNum(float64(i))
			case String:
				c.AppendStr(string(rune('a' + i%26)))
			case Array:
				c.AppendNumElem(float64(i))
				c.AppendNumElem(float64(-i))
				c.EndArray()
			}
		}
		want := Make[elem](k)
		want.AppendAll(&c)
		grown := 0
		for _, r := range room(&c) {
			grown = max(grown, r)
		}
		require.Greater(t, grown, n/16, "kind %d: growth left room", k)
		c.Fit()
		assert.Equal(t, want.Len(), c.Len())
		for i := range n {
			assert.True(t, cellsEqual(&want, &c, i), "kind %d: cell %d", k, i)
		}
		for j, r := range room(&c) {
			assert.LessOrEqual(t, r, max(n/16, fitMin), "kind %d: buffer %d", k, j)
		}
		// Fitted: a second Fit copies nothing.
		before := room(&c)
		c.Fit()
		assert.Equal(t, before, room(&c), "kind %d", k)
	}

	// Little room, or few bytes of it: left as they are.
	c := Make[elem](Number)
	c.num = make([]float64, 1000, 1050)
	p := unsafe.SliceData(c.num)
	c.Fit()
	assert.Same(t, p, unsafe.SliceData(c.num), "a sixteenth of room or less")
	c.num = make([]float64, 10, 100)
	p = unsafe.SliceData(c.num)
	c.Fit()
	assert.Same(t, p, unsafe.SliceData(c.num), "less than fitMin bytes of room")

	// A borrowed buffer has no room: it stays.
	c = Make[elem](Number)
	xs := make([]float64, 100, 4000)
	c.AliasNums(xs)
	c.Fit()
	assert.Same(t, unsafe.SliceData(xs), unsafe.SliceData(c.Numbers()))
}

// cellsEqual reports whether cell i of a and b is the same.
func cellsEqual(a, b *Col[elem], i int) bool {
	switch a.kind {
	case Time:
		return a.Time(i) == b.Time(i)
	case Number:
		x, okx := a.Num(i)
		y, oky := b.Num(i)
		return x == y && okx == oky
	case String:
		x, okx := a.Str(i)
		y, oky := b.Str(i)
		return x == y && okx == oky
	}
	x, okx := a.Array(i)
	y, oky := b.Array(i)
	if okx != oky || len(x) != len(y) {
		return false
	}
	for k := range x {
		if x[k] != y[k] {
			return false
		}
	}
	return true
}
