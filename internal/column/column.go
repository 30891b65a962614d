// Package column is the storage of a table's columns: a growable, typed
// slice of cells per column. Numbers are stored as float64 with NaN marking
// a missing cell (non-finite numbers never enter a series, so NaN is free
// to mean "missing"); strings, booleans and arrays keep a presence byte per
// cell (the encoding of internal/cell); arrays keep their elements in one
// flat slice, so appending an array does not allocate once the column has
// grown.
//
// An array column keeps its elements as float64s while they are written
// as numbers ([Col.AppendNumElem], [Col.GrowNumElems]), as the samples
// of a number column are: 8 bytes an element, nothing for the collector to
// follow, and nothing to clear at a reset. The first element written as a
// value (a user's array, the samples of a string column) turns the
// column's elements into values until the next reset ([Col.Wide]).
//
// The column is generic in its array element only to stay below package
// schema, which holds its columns in a [Col] of schema.Value and tells the
// column how a value holds a number ([SetNumElem]); engines reach a
// table's columns through package internal/table, which names that
// instance and converts values.
package column

import (
	"math"
	"slices"
	"unsafe"

	"github.com/pond-go/pond/internal/cell"
)

// The column kinds, the values of schema.Kind.
const (
	Time   = 1
	Number = 2
	String = 3
	Bool   = 4
	Array  = 5
)

// ColsOffset is set by package schema when it is initialised: the offset
// of a schema.Table's columns (a []Col of schema.Value) inside the table,
// which package internal/table reads through it. It is a variable so that
// schema need not export its columns; an offset, not a function, as the
// engines reach a table's columns many times a push.
var ColsOffset uintptr

// numElem is the function set by [SetNumElem], for one element type.
var numElem any

// SetNumElem sets of, the array element of type V that holds a number,
// so that the columns of such elements can keep arrays of numbers as
// float64s. Package schema sets it for schema.Value when it is
// initialised; the columns of any other element type keep their elements
// as they are.
func SetNumElem[V any](of func(float64) V) { numElem = of }

// numElemOf returns the function set by [SetNumElem] for V, and whether
// it was set.
func numElemOf[V any]() (func(float64) V, bool) {
	of, ok := numElem.(func(float64) V)
	return of, ok
}

// Col is one column. The zero Col is not usable; make one with [Make].
type Col[V any] struct {
	kind  uint8
	ts    []int64   // Time
	num   []float64 // Number
	str   []string  // String
	flag  []uint8   // String, Array, Bool: presence and truth as in internal/cell
	end   []int32   // Array: end offset of each cell in nums, or in elems when wide
	nums  []float64 // Array elements while all were written as numbers
	elems []V       // Array elements once one was written as a value (wide)
	// wide: the array elements are in elems, as values. A reset makes
	// the column narrow again (nums), if V has [SetNumElem].
	wide bool
	// aliased: ts, num, str and flag share memory the column does not own
	// (see [Col.AliasNums]); own keeps the column's buffers meanwhile.
	aliased bool
	own     struct {
		ts   []int64
		num  []float64
		str  []string
		flag []uint8
	}
	ones []uint8 // all ones, the presence flags of aliased strings
	// missAt, missLo, missHi: the cells [missLo, missHi) of the buffer
	// at missAt hold missing cells (NaN) that [Col.GrowMissing] wrote
	// and nothing wrote over since: beyond num's length after a reset,
	// they need not be written again while num is that buffer. Every
	// write to num but GrowMissing's and GrowNums' sets missHi to 0;
	// GrowNums raises missLo above the cells it hands out.
	missAt         *float64
	missLo, missHi int
	// strHeld: str's cells up to here (beyond its length after a reset)
	// may still hold the strings of the cells before the reset. A reset
	// clears only those the cells since have not overwritten (see reset).
	strHeld int
	// kept: the cells of str and flag that hold, from a push before, the
	// strings a caller wrote under a tag (see keep.go).
	kept keptStrs
}

// Make returns an empty column of kind k.
func Make[V any](k uint8) Col[V] { return Col[V]{kind: k, wide: !keepsNums[V]()} }

// keepsNums reports whether the array elements of type V can be kept as
// numbers: whether [SetNumElem] was called for V.
func keepsNums[V any]() bool {
	_, ok := numElemOf[V]()
	return ok
}

// Kind returns the column's kind.
func (c *Col[V]) Kind() uint8 { return c.kind }

// Len returns the number of cells.
func (c *Col[V]) Len() int {
	switch c.kind {
	case Time:
		return len(c.ts)
	case Number:
		return len(c.num)
	}
	return len(c.flag)
}

// Reset empties the column and keeps its capacity.
func (c *Col[V]) Reset() {
	if !c.empty() {
		c.reset()
	}
}

// ResetAll resets every column of cs: the columns of a table. Most
// columns of a push are empty already (a node that emitted nothing), and
// are passed over without a call.
func ResetAll[V any](cs []Col[V]) {
	if len(cs) > 0 && cs[0].empty() {
		// A table's columns hold as many cells as its time column
		// (column 0): this one holds none and borrows nothing.
		return
	}
	for j := range cs {
		if c := &cs[j]; !c.empty() {
			c.reset()
		}
	}
}

// Empty reports whether the column holds no cell and no borrowed memory:
// [Col.Reset] would leave it as it is.
func (c *Col[V]) Empty() bool { return c.empty() }

// EmptyTimes is [Col.Empty] for a time column, which holds its cells in
// its times only: two fields read instead of seven.
func (c *Col[V]) EmptyTimes() bool { return !c.aliased && len(c.ts) == 0 }

// empty reports whether the column holds no cell and no borrowed memory.
func (c *Col[V]) empty() bool {
	return !c.aliased && len(c.ts)|len(c.num)|len(c.str)|len(c.flag)|len(c.end)|len(c.nums)|len(c.elems) == 0
}

//go:noinline
func (c *Col[V]) reset() {
	if c.aliased {
		// An aliased column was empty when it borrowed, and borrows the
		// slices of its kind only: giving those back empties it.
		c.aliased = false
		switch c.kind {
		case Time:
			c.ts = c.own.ts
		case Number:
			c.num = c.own.num
		case String:
			c.str, c.flag = c.own.str, c.own.flag
		}
		return
	}
	c.ts = c.ts[:0]
	c.num = c.num[:0]
	c.resetStrs()
	c.flag = c.flag[:0]
	c.end = c.end[:0]
	// Elements kept as numbers point to nothing: only values are cleared
	// (so that what they point to can be collected).
	c.nums = c.nums[:0]
	if c.wide {
		clear(c.elems)
		c.elems = c.elems[:0]
		c.wide = !keepsNums[V]()
	}
}

// resetStrs empties str and drops the references to strings it no longer
// holds, so that they can be collected, without writing its cells twice:
// the cells it holds are kept until the next reset, and the cells appended
// meanwhile overwrite them, so a reset clears only those beyond the cells
// appended since the one before (a table of a push's keys, as many every
// push, is written once a push instead of cleared and written again). A
// string stays referenced at most until the second reset after the one
// that emptied its cell.
func (c *Col[V]) resetStrs() {
	n := len(c.str)
	if held := min(c.strHeld, cap(c.str)); held > n {
		clear(c.str[n:held])
		c.kept.cut(n)
	}
	c.strHeld = n
	c.str = c.str[:0]
}

// Fit lets go of the room the column's buffers have beyond its cells: a
// buffer with room for more than a sixteenth beyond its cells, and at
// least fitMin bytes of it, is replaced by a copy, which has the room the
// allocator rounds its size up to (a few percent). A table that holds the
// latest of emissions of about one size calls it after its buffers grew
// for one: growth leaves a buffer up to a quarter larger than its cells
// (append's steps), and the table keeps it for as long as the emissions
// fit. A borrowed buffer has no room (see [Col.AliasNums]): it stays.
func (c *Col[V]) Fit() {
	c.ts = fit(c.ts)
	c.num = fit(c.num)
	c.missAt, c.missLo, c.missHi = nil, 0, 0
	c.str = fit(c.str)
	c.flag = fit(c.flag)
	c.kept.end()
	c.end = fit(c.end)
	c.nums = fit(c.nums)
	c.elems = fit(c.elems)
}

// fitMin is the fewest bytes of room beyond its cells [Col.Fit] lets go
// of in a buffer.
const fitMin = 1024

// fit returns s, or a copy of its cells with less room (see FitRoom).
func fit[T any](s []T) []T { return FitRoom(s, fitMin) }

// FitRoom returns s, or a copy of its entries with less room when s has
// room for more than a sixteenth beyond them and at least least bytes
// (the copy has the room of its size class).
func FitRoom[T any](s []T, least int) []T {
	room := cap(s) - len(s)
	if room <= len(s)/16 || room*int(unsafe.Sizeof(*new(T))) < least {
		return s
	}
	if t := append([]T(nil), s...); cap(t) < cap(s) {
		return t
	}
	return s
}

// IsMissing reports whether cell i is missing.
func (c *Col[V]) IsMissing(i int) bool {
	switch c.kind {
	case Time:
		return false
	case Number:
		return c.num[i] != c.num[i]
	}
	return c.flag[i] == cell.Missing
}

// Time returns cell i of a time column in nanoseconds since the epoch.
func (c *Col[V]) Time(i int) int64 { return c.ts[i] }

// Num returns cell i of a number column and whether it is present.
func (c *Col[V]) Num(i int) (float64, bool) {
	if c.kind != Number {
		return 0, false
	}
	f := c.num[i]
	return f, f == f
}

// Str returns cell i of a string column and whether it is present.
func (c *Col[V]) Str(i int) (string, bool) {
	if c.kind != String || c.flag[i] == cell.Missing {
		return "", false
	}
	return c.str[i], true
}

// Bool returns cell i of a boolean column and whether it is present.
func (c *Col[V]) Bool(i int) (bool, bool) {
	if c.kind != Bool || c.flag[i] == cell.Missing {
		return false, false
	}
	return c.flag[i] == cell.True, true
}

// Array returns the elements of cell i of an array column and whether it is
// present. On a wide column (see [Col.Wide]) the slice aliases the column:
// do not modify or keep it past the table's lifetime. On a column that
// keeps its elements as numbers the slice is made for the call (it
// allocates): read those with [Col.Nums].
func (c *Col[V]) Array(i int) ([]V, bool) {
	if c.kind != Array || c.flag[i] == cell.Missing {
		return nil, false
	}
	lo, hi := c.bounds(i)
	if c.wide {
		return c.elems[lo:hi:hi], true
	}
	of, _ := numElemOf[V]()
	out := make([]V, hi-lo)
	for k, x := range c.nums[lo:hi] {
		out[k] = of(x)
	}
	return out, true
}

// CopyArray returns a copy of the elements of cell i of an array column,
// which the caller owns, and whether the cell is present: the elements of
// a wide column copied, or made from its numbers.
func (c *Col[V]) CopyArray(i int) ([]V, bool) {
	if c.wide {
		a, ok := c.Array(i)
		if ok {
			a = append(make([]V, 0, len(a)), a...)
		}
		return a, ok
	}
	return c.Array(i) // made for the call
}

// ArrayInto appends the elements of cell i of an array column to buf as
// values and returns the cell's elements, buf grown, and whether the cell
// is present. On a wide column the cell aliases the column and buf is
// returned as it was; on a column that keeps its elements as numbers the
// cell is the part of buf its values were made in, so that a reader that
// reuses buf from row to row reads number arrays without allocating once
// buf has grown.
func (c *Col[V]) ArrayInto(buf []V, i int) (elems, grown []V, ok bool) {
	if c.kind != Array || c.flag[i] == cell.Missing {
		return nil, buf, false
	}
	lo, hi := c.bounds(i)
	if c.wide {
		return c.elems[lo:hi:hi], buf, true
	}
	of, _ := numElemOf[V]()
	k := len(buf)
	for _, x := range c.nums[lo:hi] {
		buf = append(buf, of(x))
	}
	return buf[k:len(buf):len(buf)], buf, true
}

// Nums returns the elements of cell i of an array column that keeps its
// elements as numbers (one that is not [Col.Wide]) and whether the cell is
// present. The slice aliases the column: do not modify or keep it past the
// table's lifetime. It panics on a wide column.
func (c *Col[V]) Nums(i int) ([]float64, bool) {
	if c.kind != Array || c.flag[i] == cell.Missing {
		return nil, false
	}
	if c.wide {
		panic("column: Nums of an array column that keeps its elements as values")
	}
	lo, hi := c.bounds(i)
	return c.nums[lo:hi:hi], true
}

// Wide reports whether an array column keeps its elements as values: once
// an element was appended as a value since the column was last reset, or
// always for an element type without [SetNumElem]. A column that is not
// wide keeps them as float64s, read with [Col.Nums].
func (c *Col[V]) Wide() bool { return c.wide }

// bounds returns the offsets of cell i's elements.
func (c *Col[V]) bounds(i int) (lo, hi int32) {
	if i > 0 {
		lo = c.end[i-1]
	}
	return lo, c.end[i]
}

// Times returns the cells of a time column (nil for other kinds). The slice
// aliases the column.
func (c *Col[V]) Times() []int64 { return c.ts }

// Numbers returns the cells of a number column, NaN marking missing ones
// (nil for other kinds). The slice aliases the column.
func (c *Col[V]) Numbers() []float64 { return c.num }

// Strings returns the cells of a string column, "" for missing ones (nil for
// other kinds); [Col.IsMissing] tells a missing cell from an empty string.
// The slice aliases the column.
func (c *Col[V]) Strings() []string { return c.str }

// AppendTime appends a time in nanoseconds to a time column.
func (c *Col[V]) AppendTime(ns int64) { c.ts = append(c.ts, ns) }

// AppendNum appends a number to a number column; NaN appends a missing cell.
func (c *Col[V]) AppendNum(f float64) {
	c.num = append(c.num, f)
	c.missHi = 0
}

// GrowNums adds n cells to a number column and returns them for the
// caller to set, each of them (NaN for a missing one): a run of cells
// written in place, as an emission writes one output of many rows.
func (c *Col[V]) GrowNums(n int) []float64 {
	k := len(c.num)
	if k < c.missHi {
		// The cells handed out, and those below, are no longer known
		// to be missing (cells are written in order).
		c.missLo = max(c.missLo, k+n)
	}
	c.num = slices.Grow(c.num, n)[:k+n]
	return c.num[k : k+n : k+n]
}

// GrowMissing adds n missing cells to a number column. Cells that hold
// missing cells already, beyond the column's length after a reset, are
// not written again: a column that gets missing cells at the same rows
// every push (the outputs of a window that holds no rows, at most
// partitions of a tick) writes them once, not once a push. The column
// keeps the one range of its buffer that it knows holds missing cells
// only: the cells written here, joined to the range when they touch it.
func (c *Col[V]) GrowMissing(n int) {
	k := len(c.num)
	if c.missLo <= k && k+n <= c.missHi && unsafe.SliceData(c.num) == c.missAt && k+n <= cap(c.num) {
		c.num = c.num[:k+n]
		return
	}
	prev := unsafe.SliceData(c.num)
	col := c.GrowNums(n)
	for i := range col {
		col[i] = math.NaN()
	}
	at := unsafe.SliceData(c.num)
	if at != prev && prev == c.missAt {
		// The cells moved to a larger buffer: those below k came along.
		c.missAt, c.missHi = at, min(c.missHi, k)
	}
	if at == c.missAt && c.missLo <= k+n && k <= c.missHi && c.missLo < c.missHi {
		c.missLo, c.missHi = min(c.missLo, k), max(c.missHi, k+n)
		return
	}
	c.missAt, c.missLo, c.missHi = at, k, k+n
}

// DropNums removes the last n cells of a number column: cells grown by
// [Col.GrowNums] and not used.
func (c *Col[V]) DropNums(n int) { c.num = c.num[:len(c.num)-n] }

// AppendStr appends a string to a string column.
func (c *Col[V]) AppendStr(s string) {
	c.str = append(c.str, s)
	c.flag = append(c.flag, cell.Present)
	c.kept.end()
}

// AppendBool appends a boolean to a boolean column.
func (c *Col[V]) AppendBool(b bool) {
	f := uint8(cell.False)
	if b {
		f = cell.True
	}
	c.flag = append(c.flag, f)
}

// AppendMissing appends a missing cell (nothing, for a time column, which
// cannot hold one).
func (c *Col[V]) AppendMissing() {
	switch c.kind {
	case Number:
		c.num = append(c.num, math.NaN())
	case String:
		c.str = append(c.str, "")
		c.flag = append(c.flag, cell.Missing)
		c.kept.end()
	case Bool:
		c.flag = append(c.flag, cell.Missing)
	case Array:
		c.flag = append(c.flag, cell.Missing)
		c.end = append(c.end, int32(c.ElemsLen()))
	}
}

// BeginArray starts an array cell; add its elements with [Col.AppendElem]
// or [Col.AppendNumElem] and finish it with [Col.EndArray].
func (c *Col[V]) BeginArray() {}

// AppendElem appends one element to the array cell being built, as a
// value: the column keeps its elements as values from then on, until it
// is reset. Append a number with [Col.AppendNumElem].
func (c *Col[V]) AppendElem(v V) {
	if !c.wide {
		c.widen()
	}
	c.elems = append(c.elems, v)
}

// AppendNumElem appends a number to the array cell being built. The
// element type must have [SetNumElem].
func (c *Col[V]) AppendNumElem(x float64) {
	if c.wide {
		of, _ := numElemOf[V]()
		c.elems = append(c.elems, of(x))
		return
	}
	c.nums = append(c.nums, x)
}

// widen moves the elements of a column that keeps them as numbers into its
// values, for an element appended as a value.
func (c *Col[V]) widen() {
	of, _ := numElemOf[V]()
	for _, x := range c.nums {
		c.elems = append(c.elems, of(x))
	}
	c.nums = c.nums[:0]
	c.wide = true
}

// GrowNumElems adds n elements to the array cell being built and returns
// them for the caller to set: a run of numbers appended at once. Elements
// not set are dropped again with [Col.DropNumElems]. The column must keep
// its elements as numbers (not be [Col.Wide]); it panics otherwise. A
// writer that may find a wide column appends with [Col.AppendNumElem].
func (c *Col[V]) GrowNumElems(n int) []float64 {
	if c.wide {
		panic("column: GrowNumElems on an array column that keeps its elements as values")
	}
	k := len(c.nums)
	c.nums = slices.Grow(c.nums, n)[:k+n]
	return c.nums[k : k+n : k+n]
}

// DropNumElems removes the last n elements of the array cell being built,
// elements grown by [Col.GrowNumElems] and not set.
func (c *Col[V]) DropNumElems(n int) { c.nums = c.nums[:len(c.nums)-n] }

// ArrayNums returns, for an array column that keeps its elements as
// numbers (not [Col.Wide]), the end of each cell in its elements and the
// elements, for the caller to read and set in place. A wide column
// returns nil elements.
func (c *Col[V]) ArrayNums() (ends []int32, nums []float64) {
	if c.wide {
		return c.end, nil
	}
	return c.end, c.nums
}

// ElemsLen returns the number of array elements the column holds, the end
// of its last array cell or of the one being built.
func (c *Col[V]) ElemsLen() int {
	if c.wide {
		return len(c.elems)
	}
	return len(c.nums)
}

// GrowArrays adds n array cells to an array column and returns their
// presence flags (as in internal/cell) and ends (offsets in the column's
// elements, not decreasing) for the caller to set, each of them: a run of
// cells written in place, their elements added first with
// [Col.GrowNumElems].
func (c *Col[V]) GrowArrays(n int) (flags []uint8, ends []int32) {
	k, j := len(c.flag), len(c.end)
	c.flag = slices.Grow(c.flag, n)[:k+n]
	c.end = slices.Grow(c.end, n)[:j+n]
	return c.flag[k : k+n : k+n], c.end[j : j+n : j+n]
}

// EndArray finishes the array cell begun with [Col.BeginArray].
func (c *Col[V]) EndArray() {
	c.flag = append(c.flag, cell.Present)
	c.end = append(c.end, int32(c.ElemsLen()))
}

// AppendArray appends an array cell holding a copy of elems, as values
// (see [Col.AppendElem]).
func (c *Col[V]) AppendArray(elems []V) {
	c.appendElems(elems)
	c.EndArray()
}

// appendElems appends elems to the array cell being built, as values.
func (c *Col[V]) appendElems(elems []V) {
	if len(elems) == 0 {
		return
	}
	if !c.wide {
		c.widen()
	}
	c.elems = append(c.elems, elems...)
}

// appendNums appends the numbers xs to the array cell being built.
func (c *Col[V]) appendNums(xs []float64) {
	if !c.wide {
		c.nums = append(c.nums, xs...)
		return
	}
	of, _ := numElemOf[V]()
	for _, x := range xs {
		c.elems = append(c.elems, of(x))
	}
}

// AppendCell appends a cell given by its parts, as package schema and
// package internal/table take a value apart: its kind (0 for missing), its
// number, time, string, boolean or elements. A missing cell, or a cell
// whose kind does not match the column's, appends a missing cell and
// reports false (true for a missing one); a non-finite number appends a
// missing cell and reports false.
func (c *Col[V]) AppendCell(kind uint8, f float64, ns int64, s string, b bool, elems []V) bool {
	if kind != c.kind {
		c.AppendMissing()
		return kind == 0
	}
	switch kind {
	case Time:
		c.AppendTime(ns)
	case Number:
		if f-f != 0 { // NaN or ±Inf
			c.AppendNum(math.NaN())
			return false
		}
		c.AppendNum(f)
	case String:
		c.AppendStr(s)
	case Bool:
		c.AppendBool(b)
	case Array:
		c.AppendArray(elems)
	}
	return true
}

// AppendFrom appends cell i of src, which must have the same kind.
func (c *Col[V]) AppendFrom(src *Col[V], i int) {
	switch c.kind {
	case Time:
		c.ts = append(c.ts, src.ts[i])
	case Number:
		c.num = append(c.num, src.num[i])
		c.missHi = 0
	case String:
		c.str = append(c.str, src.str[i])
		c.flag = append(c.flag, src.flag[i])
		c.kept.end()
	case Bool:
		c.flag = append(c.flag, src.flag[i])
	case Array:
		if src.flag[i] == cell.Missing {
			c.AppendMissing()
			return
		}
		lo, hi := src.bounds(i)
		if src.wide {
			c.appendElems(src.elems[lo:hi])
		} else {
			c.appendNums(src.nums[lo:hi])
		}
		c.EndArray()
	}
}

// AppendAll appends every cell of src, which must have the same kind.
func (c *Col[V]) AppendAll(src *Col[V]) { c.AppendRange(src, 0, src.Len()) }

// AppendRange appends cells [from, to) of src, which must have the same
// kind.
func (c *Col[V]) AppendRange(src *Col[V], from, to int) {
	switch c.kind {
	case Time:
		c.ts = append(c.ts, src.ts[from:to]...)
	case Number:
		c.num = append(c.num, src.num[from:to]...)
		c.missHi = 0
	case String:
		c.str = append(c.str, src.str[from:to]...)
		c.flag = append(c.flag, src.flag[from:to]...)
		c.kept.end()
	case Bool:
		c.flag = append(c.flag, src.flag[from:to]...)
	case Array:
		if from == to {
			return
		}
		if src.wide != c.wide {
			// The elements change form: cell by cell.
			for i := from; i < to; i++ {
				c.AppendFrom(src, i)
			}
			return
		}
		start := int32(0)
		if from > 0 {
			start = src.end[from-1]
		}
		shift := int32(c.ElemsLen()) - start
		if c.wide {
			c.elems = append(c.elems, src.elems[start:src.end[to-1]]...)
		} else {
			c.nums = append(c.nums, src.nums[start:src.end[to-1]]...)
		}
		c.flag = append(c.flag, src.flag[from:to]...)
		for _, e := range src.end[from:to] {
			c.end = append(c.end, e+shift)
		}
	}
}

// Reserve makes room in the column, empty and not aliased, for cells
// [from, to) of src, which must have the same kind, so that appending as
// many cells later does not grow its buffers (an array column: as many
// elements as those cells hold). A buffer with the room already is left
// as it is; one without is grown to a quarter beyond, as the same rows
// written another time may hold a few more (a window's samples).
func (c *Col[V]) Reserve(src *Col[V], from, to int) {
	n := to - from
	if n <= 0 || c.aliased {
		return
	}
	switch c.kind {
	case Time:
		c.ts = roomFor(c.ts, n)
	case Number:
		c.num = roomFor(c.num, n)
	case String:
		c.str = roomFor(c.str, n)
		c.flag = roomFor(c.flag, n)
	case Bool:
		c.flag = roomFor(c.flag, n)
	case Array:
		c.flag = roomFor(c.flag, n)
		c.end = roomFor(c.end, n)
		start := int32(0)
		if from > 0 {
			start = src.end[from-1]
		}
		if m := int(src.end[to-1] - start); src.wide {
			c.elems = roomFor(c.elems, m)
		} else {
			c.nums = roomFor(c.nums, m)
		}
	}
}

// roomFor returns s with room for n more cells: s itself when it has it,
// else s grown to room for a quarter more than n.
func roomFor[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, n+n/4)
}

// AppendTimes appends times in nanoseconds to a time column.
func (c *Col[V]) AppendTimes(ts []int64) { c.ts = append(c.ts, ts...) }

// AppendNums appends numbers to a number column (NaN for missing cells).
func (c *Col[V]) AppendNums(fs []float64) {
	c.num = append(c.num, fs...)
	c.missHi = 0
}

// AppendStrs appends present strings to a string column.
func (c *Col[V]) AppendStrs(ss []string) {
	c.appendStrs(ss)
	c.kept.end()
}

// appendStrs is AppendStrs without ending the kept cells.
func (c *Col[V]) appendStrs(ss []string) {
	c.str = append(c.str, ss...)
	for range ss {
		c.flag = append(c.flag, cell.Present)
	}
}

// alias, on an empty column, puts the column's buffers of its kind aside
// for borrowed ones, to be given back by Reset. The column keeps its own
// buffers of its kind in own meanwhile (own is stale otherwise).
func (c *Col[V]) alias() {
	if !c.aliased {
		switch c.kind {
		case Time:
			c.own.ts = c.ts[:0]
		case Number:
			c.own.num = c.num[:0]
		case String:
			c.own.str, c.own.flag = c.str[:0], c.flag[:0]
		}
		c.aliased = true
	}
}

// AliasTimes makes an empty time column hold ts without copying it. The
// column then shares ts's memory until [Col.Reset]; appending to it is not
// allowed meanwhile.
func (c *Col[V]) AliasTimes(ts []int64) {
	c.alias()
	c.ts = ts[:len(ts):len(ts)]
}

// AliasNums makes an empty number column hold xs without copying it (NaN
// cells are missing), as [Col.AliasTimes] does.
func (c *Col[V]) AliasNums(xs []float64) {
	c.alias()
	c.num = xs[:len(xs):len(xs)]
}

// AliasStrs makes an empty string column hold ss, every cell present,
// without copying it, as [Col.AliasTimes] does.
func (c *Col[V]) AliasStrs(ss []string) {
	if len(c.ones) < len(ss) {
		c.ones = make([]uint8, max(len(ss), 2*len(c.ones)))
		for i := range c.ones {
			c.ones[i] = 1
		}
	}
	c.alias()
	c.str = ss[:len(ss):len(ss)]
	c.flag = c.ones[:len(ss):len(ss)]
}
