// Package check holds the checks of a pushed batch's columns that more
// than one place runs: numbers finite and times not decreasing, each on
// its own (the schema's validation) or while the column is copied to
// where it is stored (a series' root, which checks a common batch in the
// same pass that stores it).
//
// A number is finite when f−f is 0: it is NaN for NaN and ±Inf, and a
// NaN stays in a sum, so a column's check is one sum and one test.
package check

// Finite reports whether every number of fs is finite. Four sums keep
// the additions independent; eight values a turn, read by index, keep the
// loop's own work (re-slicing fs cost seven instructions a turn) small
// beside them.
func Finite(fs []float64) bool {
	var a, b, c, d float64
	i := 0
	for ; i <= len(fs)-8; i += 8 {
		x := (*[8]float64)(fs[i : i+8])
		a += x[0] - x[0]
		b += x[1] - x[1]
		c += x[2] - x[2]
		d += x[3] - x[3]
		a += x[4] - x[4]
		b += x[5] - x[5]
		c += x[6] - x[6]
		d += x[7] - x[7]
	}
	for _, x := range fs[i:] {
		a += x - x
	}
	return a+b+c+d == 0
}

// CopyFinite copies src to the start of dst, which must be at least as
// long (it panics otherwise), and reports whether every number of src is
// finite: [Finite] in the pass that copies. dst is written whatever it
// reports. A long column is copied by the runtime's copy, which moves
// several numbers an instruction, and then checked.
func CopyFinite(dst, src []float64) bool {
	if len(src) > copyOwn {
		copy(dst[:len(src)], src)
		return Finite(src)
	}
	dst = dst[:len(src)]
	var a, b float64
	i := 0
	for ; i <= len(src)-4; i += 4 {
		x := (*[4]float64)(src[i : i+4])
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		*(*[4]float64)(dst[i : i+4]) = [4]float64{x0, x1, x2, x3}
		a += (x0 - x0) + (x2 - x2)
		b += (x1 - x1) + (x3 - x3)
	}
	for ; i < len(src); i++ {
		x := src[i]
		dst[i] = x
		a += x - x
	}
	return a+b == 0
}

// copyOwn is the most values CopyFinite and CopySorted copy in their own
// loop; beyond, the runtime's copy and a check of the copied values cost
// fewer instructions.
const copyOwn = 16

// FirstUnsorted returns the first index of ts whose time is before the
// one before it, or 0 when the times do not decrease. Four times a turn,
// the last of a turn kept for the next, test each time with one load;
// the turn with a decrease is gone over again one time at a time.
func FirstUnsorted(ts []int64) int {
	if len(ts) < 2 {
		return 0
	}
	i, prev := 1, ts[0]
	for ; i <= len(ts)-4; i += 4 {
		x := (*[4]int64)(ts[i : i+4])
		if x[0] < prev || x[1] < x[0] || x[2] < x[1] || x[3] < x[2] {
			break
		}
		prev = x[3]
	}
	for ; i < len(ts); i++ {
		if ts[i] < ts[i-1] {
			return i
		}
	}
	return 0
}

// CopySorted copies src to the start of dst, which must be at least as
// long (it panics otherwise), and reports whether the times of src do not
// decrease: FirstUnsorted(src) == 0 in the pass that copies. dst is
// written whatever it reports. A long column is copied by the runtime's
// copy, then checked.
func CopySorted(dst, src []int64) bool {
	if len(src) > copyOwn {
		copy(dst[:len(src)], src)
		return FirstUnsorted(src) == 0
	}
	if len(src) == 0 {
		return true
	}
	dst = dst[:len(src)]
	prev, ok := src[0], true
	i := 0
	for ; i <= len(src)-4; i += 4 {
		x := (*[4]int64)(src[i : i+4])
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		*(*[4]int64)(dst[i : i+4]) = [4]int64{x0, x1, x2, x3}
		ok = ok && prev <= x0 && x0 <= x1 && x1 <= x2 && x2 <= x3
		prev = x3
	}
	for ; i < len(src); i++ {
		x := src[i]
		dst[i] = x
		ok = ok && prev <= x
		prev = x
	}
	return ok
}
