// Package fsum sums runs of float64 values stored in strided 64-bit slots
// (a column of a row-major block) as double-double lanes, four at a time
// with AVX2 and FMA where the processor has them.
//
// It is the vector kernel behind reduce.Moments' run updates: each lane
// keeps a compensated sum (TwoSum) of its values and, when asked, of their
// squares (the product's rounding error taken with a fused multiply-add),
// exactly as the scalar code in reduce does per lane, so the lanes hold
// exact sums up to double-double precision. At the end of the run the
// lanes are folded into one (lanes 0 and 2 with 1 and 3, then the two
// left), each fold a TwoSum, so the caller has one double-double to merge.
package fsum

// Sum is the result of a run: Σx as S + C and Σx² as Q + QC.
type Sum struct {
	S, C, Q, QC float64
}

// Available reports whether Run uses the vector kernel on this machine.
// When it is false Run does nothing and returns 0.
var Available = available()

// Run sums the values at slots[off], slots[off+stride], … for as many
// whole groups of four rows of the first n as the kernel takes, into l
// (which it overwrites; lane k sums rows k, k+4, k+8, … before the fold),
// with squares when sq is set. It returns the number of rows summed (a multiple of 4,
// 0 when the kernel is not available or n < 4) and whether any of their
// values has a biased exponent outside [lo, hi]. Missing values (NaN) and
// infinities are summed like the others and show as non-finite lanes.
func Run(slots []uint64, off, stride, n int, sq bool, lo, hi uint64, l *Sum) (rows int, outside bool) {
	groups := n / 4
	if !Available || groups == 0 || stride <= 0 {
		return 0, false
	}
	_ = slots[off+(groups*4-1)*stride] // the kernel reads no further
	return groups * 4, run(&slots[off], groups, stride*8, sq, lo, hi, l)
}
