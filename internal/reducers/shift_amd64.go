package reducers

import "github.com/pond-go/pond/internal/fsum"

// shiftAsm tells shift to take its assembly pass: the processor has FMA
// (and AVX, whose encodings the pass uses). A test turns it off to
// compare the pass with the Go code.
var shiftAsm = fsum.Available

// shiftRun is [ShiftRun]: the passes in assembly (shift_amd64.s), the Go
// code (shiftRunGo) without FMA.
//
//go:noescape
func shiftRun(m *Moments, slots []int, sl *Slide) int

// fillRunMinMax is [Moments.FillRunMinMax]: the pass in assembly
// (shift_amd64.s), the Go code (fillRunMinMaxGo) without FMA or with
// outer bands to empty.
//
//go:noescape
func fillRunMinMax(m *Moments, run []uint64, stride, n int) (lo, hi float64, ok bool)
