package column

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/cell"
)

// TestKeepStrsFindsTheCellsOfThePushBefore: strings appended under a tag
// are found at the same cells after a reset, and the column takes them
// without writing them again; another tag, another first cell or any
// other write to the cells finds nothing.
func TestKeepStrsFindsTheCellsOfThePushBefore(t *testing.T) {
	c := Make[int](String)
	c.AppendStrsAs([]string{"a", "b"}, 7, 0)
	c.AppendStrsAs([]string{"c"}, 7, 0)
	c.Reset()
	c.str[:3][1] = "written over" // what the column holds beyond its length is its own
	require.True(t, c.KeepStrs(7, 0, 2))
	assert.Equal(t, []string{"a", "written over"}, c.Strings(), "kept, not written again")
	assert.Equal(t, []uint8{cell.Present, cell.Present}, c.flag)
	require.True(t, c.KeepStrs(7, 0, 1))
	assert.False(t, c.KeepStrs(7, 0, 1), "beyond the cells written")

	c.Reset()
	assert.False(t, c.KeepStrs(8, 0, 1), "another tag")
	assert.False(t, c.KeepStrs(7, 1, 1), "counted from another cell")
	assert.False(t, c.KeepStrs(0, 0, 1), "tag 0 keeps nothing")
	c.AppendStr("x")
	assert.False(t, c.KeepStrs(7, 0, 1), "a cell written since")
	assert.Equal(t, []string{"x"}, c.Strings())

	c.Reset()
	c.AppendStrsAs([]string{"a", "b"}, 8, 0)
	c.Reset()
	c.AliasStrs([]string{"borrowed"})
	assert.False(t, c.KeepStrs(8, 0, 1), "borrowing: other buffers")
	c.Reset()
	assert.True(t, c.KeepStrs(8, 0, 2), "the own buffers back, untouched")
	assert.Equal(t, []string{"a", "b"}, c.Strings())

	c.Reset()
	c.AppendStrsAs([]string{"a", "b", "c"}, 9, 0)
	c.Reset()
	c.AppendStrsAs([]string{"a"}, 9, 0) // a shorter push: the reset after it clears the rest
	c.Reset()
	assert.True(t, c.KeepStrs(9, 0, 1))
	assert.False(t, c.KeepStrs(9, 0, 1), "cleared by the reset")
}

// TestEveryOtherWriteEndsTheKeptCells: a cell written by anything but
// the tagged writer is not kept again, whichever write it was.
func TestEveryOtherWriteEndsTheKeptCells(t *testing.T) {
	src := Make[int](String)
	src.AppendStrs([]string{"s0", "s1"})
	for name, write := range map[string]func(c *Col[int]){
		"AppendStr":     func(c *Col[int]) { c.AppendStr("x") },
		"AppendStrs":    func(c *Col[int]) { c.AppendStrs([]string{"x"}) },
		"AppendMissing": func(c *Col[int]) { c.AppendMissing() },
		"AppendFrom":    func(c *Col[int]) { c.AppendFrom(&src, 0) },
		"AppendRange":   func(c *Col[int]) { c.AppendRange(&src, 0, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			c := Make[int](String)
			c.AppendStrsAs([]string{"a", "b", "c"}, 7, 0)
			c.Reset()
			require.True(t, c.KeepStrs(7, 0, 1))
			write(&c) // cell 1
			assert.False(t, c.KeepStrs(7, 0, 1), "the run is forgotten whole")
			c.Reset()
			assert.False(t, c.KeepStrs(7, 0, 2))
		})
	}
}

// TestKeepStrsAgainstAModel: 500 random sequences of kept and written
// strings, other writes, resets, fits and borrows, against a plain slice:
// every cell and flag as the model says, whatever KeepStrs answered.
func TestKeepStrsAgainstAModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// the string a tagged writer writes at cell at+i
	str := func(tag uint64, i int) string { return fmt.Sprintf("%d:%d", tag, i) }
	for round := range 500 {
		c := Make[int](String)
		src := Make[int](String)
		src.AppendStrs([]string{"s0", "s1", "s2"})
		src.AppendMissing()
		var model []string
		var flags []uint8
		for step := range 200 {
			n := rng.IntN(5)
			switch op := rng.IntN(12); op {
			case 0, 1:
				c.Reset()
				model, flags = model[:0], flags[:0]
			case 2:
				c.Fit()
			case 3, 4, 5, 6:
				// a tagged writer: tags 1 and 2, counting from cell 0 or
				// from one cell before the column's length
				tag, at := uint64(1), 0 // mostly one tag, for cells to be kept
				if rng.IntN(5) == 0 {
					tag = 2
				}
				if rng.IntN(4) == 0 {
					at = max(0, c.Len()-1)
				}
				k := c.Len()
				if !c.KeepStrs(tag, at, n) {
					ss := make([]string, n)
					for i := range ss {
						ss[i] = str(tag, k+i-at)
					}
					c.AppendStrsAs(ss, tag, at)
				}
				for i := range n {
					model = append(model, str(tag, k+i-at))
					flags = append(flags, cell.Present)
				}
			case 7:
				s := fmt.Sprint("one", step)
				c.AppendStr(s)
				model, flags = append(model, s), append(flags, cell.Present)
			case 8:
				ss := []string{fmt.Sprint("p", step), "q"}[:n%3]
				c.AppendStrs(ss)
				for _, s := range ss {
					model, flags = append(model, s), append(flags, cell.Present)
				}
			case 9:
				c.AppendMissing()
				model, flags = append(model, ""), append(flags, cell.Missing)
			case 10:
				i := n % 4
				c.AppendFrom(&src, i)
				model, flags = append(model, src.str[i]), append(flags, src.flag[i])
			case 11:
				if c.Len() == 0 {
					ss := []string{"b0", "b1", "b2"}[:n%4]
					c.AliasStrs(ss)
					for _, s := range ss {
						model, flags = append(model, s), append(flags, cell.Present)
					}
				} else {
					c.AppendRange(&src, 0, n%5)
					model, flags = append(model, src.str[:n%5]...), append(flags, src.flag[:n%5]...)
				}
			}
			require.Equal(t, len(model), c.Len(), "round %d step %d", round, step)
			for i := range model {
				require.Equal(t, model[i], c.str[i], "round %d step %d cell %d", round, step, i)
				require.Equal(t, flags[i], c.flag[i], "round %d step %d cell %d", round, step, i)
			}
		}
	}
}
