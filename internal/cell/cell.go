// Package cell is the one encoding of a cell in 64 bits, as the stores and
// engines keep rows (row-major slots, columnar flags):
//
//   - a number is its float64's bits, NaN meaning missing (non-finite
//     numbers never enter a series, so NaN is free);
//   - a string is its intern id, [Missing] (0) meaning missing;
//   - a boolean is [False] or [True], [Missing] meaning missing;
//   - an array is [Present] or [Missing]; its elements are kept beside.
//
// The constants are untyped, so that byte-wide presence flags and 64-bit
// slots share them.
package cell

import (
	"math"
	"unsafe"
)

// The cell values of strings, booleans and arrays.
const (
	Missing = 0 // no value, for every kind but numbers
	False   = 1 // a boolean false
	True    = 2 // a boolean true
	Present = 1 // an array (or a string flag) with a value
)

// Bool returns the cell of a boolean.
func Bool(b bool) uint64 {
	if b {
		return True
	}
	return False
}

// Num returns the cell of a number.
func Num(x float64) uint64 { return math.Float64bits(x) }

// Nums returns number cells as the numbers they hold (NaN for a missing
// one), sharing their memory: a run of cells copied out as float64s at
// once.
func Nums(cells []uint64) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(cells))), len(cells))
}

// NumOf returns the number in a number cell and whether it is present.
func NumOf(c uint64) (float64, bool) {
	x := math.Float64frombits(c)
	return x, x == x
}
