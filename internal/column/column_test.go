package column

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/cell"
)

// fill appends cells of every shape to a column of kind k: present ones
// and a missing one.
func fill(c *Col[int], k uint8, seed int) {
	for i := range 3 {
		x := seed*10 + i
		switch k {
		case Time:
			c.AppendTime(int64(x))
		case Number:
			c.AppendNum(float64(x))
		case String:
			c.AppendStr(string(rune('a' + x%26)))
		case Bool:
			c.AppendBool(x%2 == 0)
		case Array:
			c.AppendArray([]int{x, x + 1}[:i%3])
		}
		if i == 1 && k != Time {
			c.AppendMissing()
		}
	}
}

func TestAppendAllAndRangeAreAppendFromEveryCell(t *testing.T) {
	for _, k := range []uint8{Time, Number, String, Bool, Array} {
		a, b := Make[int](k), Make[int](k)
		fill(&a, k, 1)
		fill(&b, k, 2)
		bulk, one := Make[int](k), Make[int](k)
		fill(&bulk, k, 3)
		fill(&one, k, 3)
		bulk.AppendAll(&a)
		bulk.AppendRange(&b, 0, 2)
		bulk.AppendRange(&b, 2, 2)
		bulk.AppendRange(&b, 2, b.Len())
		for _, src := range []*Col[int]{&a, &b} {
			for i := range src.Len() {
				one.AppendFrom(src, i)
			}
		}
		if !assert.Equal(t, one.Len(), bulk.Len(), "kind %d", k) {
			continue
		}
		for i := range one.Len() {
			assert.Equal(t, one.IsMissing(i), bulk.IsMissing(i), "kind %d cell %d missing", k, i)
			switch k {
			case Time:
				assert.Equal(t, one.Time(i), bulk.Time(i))
			case Number:
				x, _ := one.Num(i)
				y, _ := bulk.Num(i)
				assert.Equal(t, math.Float64bits(x), math.Float64bits(y))
			case String:
				x, _ := one.Str(i)
				y, _ := bulk.Str(i)
				assert.Equal(t, x, y)
			case Bool:
				x, _ := one.Bool(i)
				y, _ := bulk.Bool(i)
				assert.Equal(t, x, y)
			case Array:
				x, _ := one.Array(i)
				y, _ := bulk.Array(i)
				assert.Equal(t, x, y, "kind %d cell %d", k, i)
			}
		}
	}
}

func TestAliasedColumnGivesItsOwnBuffersBackOnReset(t *testing.T) {
	ts, xs, ss := []int64{7, 8}, []float64{0.5, 1.5}, []string{"x", "y"}
	for _, k := range []uint8{Time, Number, String} {
		c := Make[int](k)
		fill(&c, k, 1) // own buffers with room
		c.Reset()
		require.True(t, c.Empty())
		switch k {
		case Time:
			c.AliasTimes(ts)
		case Number:
			c.AliasNums(xs)
		case String:
			c.AliasStrs(ss)
		}
		assert.Equal(t, 2, c.Len(), "kind %d", k)
		assert.False(t, c.Empty(), "kind %d: an aliased column is reset", k)
		c.Reset()
		assert.True(t, c.Empty(), "kind %d", k)
		fill(&c, k, 4)
		want := Make[int](k)
		fill(&want, k, 4)
		assert.Equal(t, cells(&want), cells(&c), "kind %d: appends after the reset go to its own buffers", k)
	}
	assert.Equal(t, []int64{7, 8}, ts, "the borrowed memory is not written")
	assert.Equal(t, []float64{0.5, 1.5}, xs)
	assert.Equal(t, []string{"x", "y"}, ss)
}

// cells returns c's cells as comparable values (a number as its bits, a
// missing cell as nil).
func cells(c *Col[int]) []any {
	var out []any
	for i := range c.Len() {
		if c.IsMissing(i) {
			out = append(out, nil)
			continue
		}
		switch c.Kind() {
		case Time:
			out = append(out, c.Time(i))
		case Number:
			x, _ := c.Num(i)
			out = append(out, math.Float64bits(x))
		case String:
			x, _ := c.Str(i)
			out = append(out, x)
		}
	}
	return out
}

func TestDropNumsRemovesCellsGrownAndNotUsed(t *testing.T) {
	c := Make[int](Number)
	c.AppendNum(1)
	xs := c.GrowNums(3)
	xs[0] = 2
	c.DropNums(2)
	c.AppendNum(3)
	assert.Equal(t, []float64{1, 2, 3}, c.Numbers())
}

func TestGrowNumsAppendsCellsSetInPlace(t *testing.T) {
	c := Make[int](Number)
	c.AppendNum(1)
	xs := c.GrowNums(3)
	assert.Len(t, xs, 3)
	xs[0], xs[1], xs[2] = 2, math.NaN(), 4
	c.AppendNum(5)
	assert.Equal(t, 5, c.Len())
	for i, want := range []float64{1, 2, 0, 4, 5} {
		x, ok := c.Num(i)
		assert.Equal(t, i != 2, ok, "cell %d present", i)
		if ok {
			assert.Equal(t, want, x, "cell %d", i)
		}
	}
}

// TestGrowArraysAppendsCellsSetInPlace: a run of array cells whose
// elements are grown at once, their flags and ends then set in place (a
// missing one among them, elements not used dropped again), reads as the
// same cells appended one by one.
func TestGrowArraysAppendsCellsSetInPlace(t *testing.T) {
	c := Make[elem](Array)
	c.appendNumArray([]float64{1})
	base := c.ElemsLen()
	require.Equal(t, 1, base)
	xs := c.GrowNumElems(5)
	flags, ends := c.GrowArrays(3)
	require.Len(t, flags, 3)
	require.Len(t, ends, 3)
	xs[0], xs[1], xs[2] = 2, 3, 4
	flags[0], ends[0] = cell.Present, int32(base+2) // [2 3]
	flags[1], ends[1] = cell.Missing, int32(base+2)
	flags[2], ends[2] = cell.Present, int32(base+3) // [4]
	c.DropNumElems(2)
	assert.Equal(t, 4, c.ElemsLen())
	c.appendNumArray([]float64{5, 6})

	want := Make[elem](Array)
	want.appendNumArray([]float64{1})
	want.appendNumArray([]float64{2, 3})
	want.AppendMissing()
	want.appendNumArray([]float64{4})
	want.appendNumArray([]float64{5, 6})
	assert.False(t, c.Wide())
	assert.Equal(t, arrays(&want), arrays(&c))
}

func TestEmptyTimesAgreesWithEmptyForATimeColumn(t *testing.T) {
	c := Make[int](Time)
	assert.True(t, c.EmptyTimes())
	c.AppendTime(5)
	assert.False(t, c.EmptyTimes(), "holds a cell")
	c.Reset()
	assert.True(t, c.EmptyTimes())
	c.AliasTimes(nil)
	assert.False(t, c.EmptyTimes(), "borrows, even nothing: Reset must run")
	assert.Equal(t, c.Empty(), c.EmptyTimes())
	c.Reset()
	assert.Equal(t, c.Empty(), c.EmptyTimes())
}

// TestResetStringsWritesCellsOnce: a reset keeps the strings its cells
// held for the cells appended next to overwrite (a column of a push's
// keys is written once a push, not cleared and written again), and the
// next reset clears those they left, so that they can be collected.
func TestResetStringsWritesCellsOnce(t *testing.T) {
	c := Make[int](String)
	c.AppendStrs([]string{"a", "b", "c", "d"})
	c.Reset()
	assert.Equal(t, 0, c.Len())
	assert.Equal(t, []string{"a", "b", "c", "d"}, c.str[:4], "kept for the next cells to overwrite")

	c.AppendStrs([]string{"x", "y"})
	assert.Equal(t, []string{"x", "y"}, c.Strings())
	c.Reset()
	assert.Equal(t, []string{"x", "y", "", ""}, c.str[:4], "the cells not overwritten are cleared")

	c.Reset() // empty: nothing to do
	c.AppendStr("z")
	c.Reset()
	assert.Equal(t, []string{"z", "", "", ""}, c.str[:4])
}

// TestResetStringsAfterFitAndAlias: the cells a reset may still have to
// clear follow the column's own buffer through a fit (which leaves less
// room) and a borrow (which keeps the own buffer aside).
func TestResetStringsAfterFitAndAlias(t *testing.T) {
	c := Make[int](String)
	many := make([]string, 200)
	for i := range many {
		many[i] = string(rune('a' + i%26))
	}
	c.AppendStrs(many)
	c.Reset()
	c.AppendStr("q")
	c.Fit() // a copy of one cell
	c.Reset()
	assert.Equal(t, "q", c.str[:1][0])
	c.AliasStrs([]string{"borrowed"})
	assert.Equal(t, []string{"borrowed"}, c.Strings())
	c.Reset()
	c.AppendStrs([]string{"r", "s"})
	assert.Equal(t, []string{"r", "s"}, c.Strings())
	c.Reset()
	for _, s := range c.str[2:cap(c.str)] {
		assert.Empty(t, s)
	}
}

// TestGrowMissingSkipsCellsMissingFromThePushBefore: missing cells added
// at the rows where the push before added them are not written again,
// and the cells other writes hand out are written.
func TestGrowMissingSkipsCellsMissingFromThePushBefore(t *testing.T) {
	c := Make[int](Number)
	push := func() {
		c.Reset()
		col := c.GrowNums(2)
		col[0], col[1] = 1, 2
		c.GrowMissing(3)
		c.GrowMissing(3)
	}
	push()
	buf := c.num[:cap(c.num)]
	require.Equal(t, 8, len(c.num))
	push()
	buf[5] = 7 // not a missing cell: the next push must not write it
	c.Reset()
	col := c.GrowNums(2)
	col[0], col[1] = 1, 2
	c.GrowMissing(6)
	assert.Equal(t, 7.0, c.num[5], "cells 2 to 7 were known missing and not written")
	buf[5] = math.NaN()

	// A write over the known cells takes them out of the range.
	c.Reset()
	c.AppendNum(1)
	c.AppendNum(2)
	c.AppendNum(3) // cell 2, in the range: it is no longer known missing
	c.GrowMissing(5)
	for i := 3; i < 8; i++ {
		assert.True(t, c.IsMissing(i), "cell %d", i)
	}
	c.Reset()
	c.GrowNums(3)[2] = 4 // cell 2 again, through GrowNums
	c.GrowMissing(5)
	x, _ := c.Num(2)
	assert.Equal(t, 4.0, x)
	for i := 3; i < 8; i++ {
		assert.True(t, c.IsMissing(i), "cell %d", i)
	}
}

// TestGrowMissingAgainstAModel: any sequence of writes, resets and fits
// gives the cells a plain slice model gives (missing cells skipped by
// GrowMissing must hold NaN).
func TestGrowMissingAgainstAModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		c := Make[int](Number)
		var model []float64
		for step := range 300 {
			n := rng.IntN(6)
			switch op := rng.IntN(10); op {
			case 0:
				c.Reset()
				model = model[:0]
			case 1:
				c.Fit()
			case 2, 3, 4:
				c.GrowMissing(n)
				for range n {
					model = append(model, math.NaN())
				}
			case 5:
				col := c.GrowNums(n)
				for i := range col {
					col[i] = float64(step*10 + i)
					model = append(model, col[i])
				}
			case 6:
				x := float64(step)
				c.AppendNum(x)
				model = append(model, x)
			case 7:
				xs := []float64{float64(step), float64(-step)}[:n%3]
				c.AppendNums(xs)
				model = append(model, xs...)
			case 8:
				c.AppendMissing()
				model = append(model, math.NaN())
			case 9:
				if k := min(n, len(model)); k > 0 {
					c.DropNums(k)
					model = model[:len(model)-k]
				}
			}
			require.Equal(t, len(model), c.Len(), "round %d step %d", round, step)
			for i, want := range model {
				got := c.num[i]
				require.Equal(t, math.Float64bits(want), math.Float64bits(got), "round %d step %d cell %d", round, step, i)
			}
		}
	}
}
