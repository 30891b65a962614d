package aligned

import (
	"unsafe"

	"github.com/pond-go/pond/internal/fsum"
)

// pairKernel reports whether foldSquaresWith's rows go through foldPair:
// the CPU has AVX2 and FMA (what fsum's kernel asks for), so the row's
// arithmetic is three-operand VEX instructions with the square's error
// from one FMA, no register copies and no test of the CPU at every row.
var pairKernel = fsum.Available

// foldPair is foldSquaresWith's loop, for ext not negative: rows of
// partitions parts, each record size bytes from base, nrec records. It
// returns how many rows it folded: all of them, or up to the first whose
// partition is not below nrec (for the caller to panic at) or with a
// value from about 2^500 up (pairBig, for the Go code to fold).
//
//go:noescape
func foldPair(base unsafe.Pointer, size uintptr, nrec uint, parts []int32, xs, ys []float64, off, ext, off2 int) int

// foldPairCount is foldPair counting each row into n and writing its x
// as the partition's next raw value, as countLiveRaw does, in the same
// pass: it stops at a row with a value from about 2^500 up (pairBig),
// whose partition is not below nrec (nor len(n), nor len(raw)), whose
// count is above limit, or whose raw values have no room for one more,
// and returns how many rows it counted and folded.
//
//go:noescape
func foldPairCount(base unsafe.Pointer, size uintptr, nrec uint, parts []int32, xs, ys []float64, off, ext, off2 int, n []uint32, limit uint32, raw [][]uint64) int

// foldPairCountOnly is foldPairCount for a group that keeps no raw
// values (held mode, see Held): it counts and folds.
//
//go:noescape
func foldPairCountOnly(base unsafe.Pointer, size uintptr, nrec uint, parts []int32, xs, ys []float64, off, ext, off2 int, n []uint32, limit uint32) int
