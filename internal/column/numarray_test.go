package column

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elem is the array element of these tests: a number, or a name (which
// is not one).
type elem struct {
	x    float64
	name string
}

func init() { SetNumElem(func(x float64) elem { return elem{x: x} }) }

// nums returns the elements holding xs.
func nums(xs ...float64) []elem {
	out := make([]elem, len(xs))
	for i, x := range xs {
		out[i] = elem{x: x}
	}
	return out
}

// arrays returns the array cells of c, nil for a missing one, read through
// Array.
func arrays(c *Col[elem]) [][]elem {
	out := make([][]elem, c.Len())
	for i := range out {
		if a, ok := c.Array(i); ok {
			out[i] = append([]elem{}, a...)
		}
	}
	return out
}

func TestArraysOfNumbersAreKeptAsNumbers(t *testing.T) {
	negZero := math.Copysign(0, -1)
	c := Make[elem](Array)
	c.appendNumArray([]float64{1, negZero, 2})
	c.AppendMissing()
	c.BeginArray()
	c.AppendNumElem(3)
	c.AppendNumElem(4)
	c.EndArray()
	c.AppendArray(nil) // no element: nothing to keep as a value
	c.appendNumArray([]float64{5})

	require.False(t, c.Wide())
	assert.Zero(t, cap(c.elems), "no element is held as a value")
	for i, want := range [][]float64{{1, 0, 2}, nil, {3, 4}, {}, {5}} {
		xs, ok := c.Nums(i)
		assert.Equal(t, want != nil, ok, "cell %d present", i)
		assert.Equal(t, len(want), len(xs), "cell %d", i)
		for k := range want {
			assert.Equal(t, want[k], xs[k], "cell %d element %d", i, k)
		}
	}
	assert.Equal(t, [][]elem{nums(1, 0, 2), nil, nums(3, 4), {}, nums(5)}, arrays(&c))
	xs, _ := c.Nums(0)
	assert.True(t, math.Signbit(xs[1]), "−0 is kept")
}

// TestAValueElementWidensTheColumn: the first element appended as a value
// (a number too) moves every element of the column to values, in place,
// the cells reading as before; a reset makes the column keep numbers
// again.
func TestAValueElementWidensTheColumn(t *testing.T) {
	for _, how := range []string{"AppendElem", "AppendArray"} {
		c := Make[elem](Array)
		c.appendNumArray([]float64{1, 2})
		c.AppendMissing()
		c.BeginArray()
		c.AppendNumElem(3)
		if how == "AppendElem" {
			c.AppendElem(elem{name: "a"})
			c.AppendElem(elem{x: 4})
		} else {
			c.appendElems([]elem{{name: "a"}, {x: 4}})
		}
		c.EndArray()
		require.True(t, c.Wide(), how)
		c.AppendNumElem(5)
		c.EndArray()
		assert.Equal(t, [][]elem{nums(1, 2), nil, {{x: 3}, {name: "a"}, {x: 4}}, nums(5)}, arrays(&c), how)
		assert.Zero(t, len(c.nums), how)

		c.Reset()
		assert.False(t, c.Wide(), "%s: a reset keeps numbers again", how)
		assert.True(t, c.Empty(), how)
		c.appendNumArray([]float64{6})
		assert.False(t, c.Wide(), how)
		assert.Equal(t, [][]elem{nums(6)}, arrays(&c), how)
	}
}

// TestResetKeepsNumbersWithoutClearingThem: a reset of a column that keeps
// its elements as numbers writes nothing to them (they point to nothing
// the collector must free), where a wide column's values are cleared.
func TestResetKeepsNumbersWithoutClearingThem(t *testing.T) {
	c := Make[elem](Array)
	c.appendNumArray([]float64{1, 2, 3})
	held := c.nums[:3]
	c.Reset()
	assert.Equal(t, []float64{1, 2, 3}, held, "the numbers are not cleared")
	assert.GreaterOrEqual(t, cap(c.nums), 3, "their room is kept")

	c.AppendArray([]elem{{name: "a"}, {x: 1}})
	require.True(t, c.Wide())
	vals := c.elems[:2]
	c.Reset()
	assert.Equal(t, []elem{{}, {}}, vals, "values are cleared")
}

// TestColumnsWithoutNumElemKeepValues: an element type without
// SetNumElem (int here) is always kept as it is.
func TestColumnsWithoutNumElemKeepValues(t *testing.T) {
	c := Make[int](Array)
	assert.True(t, c.Wide())
	c.AppendArray([]int{1, 2})
	a, _ := c.Array(0)
	assert.Equal(t, []int{1, 2}, a)
	held := c.elems[:2]
	c.Reset()
	assert.True(t, c.Wide())
	assert.Equal(t, []int{0, 0}, held, "values are cleared")
}

// TestCopiesBetweenFormsKeepEveryCell: AppendFrom, AppendRange and
// AppendAll between columns that keep numbers and wide ones, in the four
// pairings, give the cells of the source, whatever form each column is
// in (a number copied into a wide column is a value; a value copied into
// one that keeps numbers widens it).
func TestCopiesBetweenFormsKeepEveryCell(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := range 200 {
		srcWide, dstWide := round%2 == 1, round/2%2 == 1
		src, dst := Make[elem](Array), Make[elem](Array)
		fillRandom(r, &src, srcWide)
		fillRandom(r, &dst, dstWide)
		require.Equal(t, srcWide, src.Wide())
		want := append(arrays(&dst), arrays(&src)...)
		one, bulk, all := dst.clone(), dst.clone(), dst.clone()
		for i := range src.Len() {
			one.AppendFrom(&src, i)
		}
		cut := r.IntN(src.Len() + 1)
		bulk.AppendRange(&src, 0, cut)
		bulk.AppendRange(&src, cut, src.Len())
		all.AppendAll(&src)
		for name, c := range map[string]*Col[elem]{"AppendFrom": one, "AppendRange": bulk, "AppendAll": all} {
			assert.Equal(t, want, arrays(c), "round %d (src wide %v, dst wide %v): %s", round, srcWide, dstWide, name)
		}
	}
}

// fillRandom appends a few random array cells to c: numbers, missing and
// empty cells, and one holding a name when wide is set.
func fillRandom(r *rand.Rand, c *Col[elem], wide bool) {
	n := 1 + r.IntN(6)
	named := -1
	if wide {
		named = r.IntN(n)
	}
	for i := range n {
		if i != named && r.IntN(4) == 0 {
			c.AppendMissing()
			continue
		}
		var a []float64
		for range r.IntN(4) {
			a = append(a, float64(r.IntN(100))-50)
		}
		if i == named {
			c.AppendArray(append(nums(a...), elem{name: "n"}))
			continue
		}
		c.appendNumArray(a)
	}
}

// appendNumArray appends an array cell of the numbers xs, written as
// numbers.
func (c *Col[V]) appendNumArray(xs []float64) {
	c.appendNums(xs)
	c.EndArray()
}

// clone returns a copy of an array column, in the same form.
func (c *Col[V]) clone() *Col[V] {
	d := Make[V](c.kind)
	for i := range c.Len() {
		d.AppendFrom(c, i)
	}
	return &d
}

// TestNumberElementsHoldNoPointers: the memory of elements kept as
// numbers is float64s, 8 bytes an element.
func TestNumberElementsHoldNoPointers(t *testing.T) {
	c := Make[elem](Array)
	c.appendNumArray([]float64{1, 2})
	assert.Equal(t, uintptr(8), unsafe.Sizeof(c.nums[0]))
	assert.Zero(t, cap(c.elems))
}

// TestCopyArrayIsTheCallers: the copy of a cell, in either form, holds its
// elements and shares no memory with the column.
func TestCopyArrayIsTheCallers(t *testing.T) {
	for _, wide := range []bool{false, true} {
		c := Make[elem](Array)
		c.appendNumArray([]float64{1, 2})
		c.AppendMissing()
		if wide {
			c.AppendArray([]elem{{name: "a"}})
		}
		require.Equal(t, wide, c.Wide())
		a, ok := c.CopyArray(0)
		require.True(t, ok)
		assert.Equal(t, nums(1, 2), a)
		a[0] = elem{x: 9}
		again, _ := c.CopyArray(0)
		assert.Equal(t, nums(1, 2), again, "wide %v: the column is not written through a copy", wide)
		_, ok = c.CopyArray(1)
		assert.False(t, ok)
	}
}
