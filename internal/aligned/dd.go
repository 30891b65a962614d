package aligned

import "math"

// The sums of a pane and of a window are double-doubles: a float64 and
// the exact rounding error of every addition made to it (TwoSum), the
// squares split exactly with an FMA. A window adds a pane's sums when the
// pane enters and subtracts the same pair when it leaves; a pane whose
// squares dwarf what stays (an outlier leaving), or whose sums are not
// finite, is not subtracted: the window is summed again from its panes,
// so no residue of a value outlives it.

// twoSum returns a + b as a sum and its exact rounding error.
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// ddAdd adds the double-double (y, yc) to (*s, *c).
func ddAdd(s, c *float64, y, yc float64) {
	hi, e := twoSum(*s, y)
	*s, *c = hi, *c+yc+e
}

// A window's Σx without Σx² beside it (sum or avg, no stdev) keeps, in
// the words Σx² would take, the largest |Σx| its running sum has held
// since it was last summed from its panes, and whether its low word has
// been other than 0 since. A double-double whose low word stayed 0 holds
// what was added exactly (each addition's rounding error is 0, or it
// would be in the low word); once the low word is used, it holds the
// sum only to about 2^-106 of the largest sum it held: beside 1e300, or
// between −MaxFloat64 and MaxFloat64 cancelling, the sums of panes of
// values near 1e16 and 1 are rounded away. So a window whose low word
// has been used and whose sum is below 2^-40 of that peak is summed
// again from its panes, which the values that left no longer reach:
// after a pane enters, before the window's row is emitted, as after
// panes leave.
const fadeRatio = 0x1p40

// notePeak records the running sum a after an addition and reports
// whether the window must be summed again.
func notePeak(a *[4]float64) bool {
	if a[1] != 0 {
		a[3] = 1
	}
	a[2] = max(a[2], math.Abs(a[0]))
	return a[3] != 0 && math.Abs(a[0]+a[1])*fadeRatio < a[2]
}

// A window's Σx² is summed again from its panes, too, when what left may
// weigh on the deviation of what stays, though no outlier left at once
// (values near 1.4e9 leaving values near 1e6 that differ by 1e-3, or a
// chain of outliers each a fraction of the last): every addition and
// subtraction since the sums were last summed from the panes rounds at
// about 2^-106 of the largest Σx² held since, its peak, and once Σx² has
// fallen to half of it and the spread of the values that stay, n·Σx² −
// (Σx)² over n, is below 2^-58 of it, that rounding could reach 2^-44 of
// the variance. Neither test is true while what left was not the bulk
// of Σx² or the values differ by more than a few parts in 2^29 of their
// size, so steady data is never summed again.
const spreadRatio = 0x1p58

// spreadFaded reports whether a window's running sums a (s, c, q, qc)
// of n ≥ 1 values must be summed again from the panes, peak being the
// largest Σx² they held since they last were, more than twice the Σx²
// they hold (the caller's test, which rules out the common case without
// a call). One value has no spread: the values that come beside it would
// find the residue.
func spreadFaded(a *[4]float64, n int64, peak float64) bool {
	// The variance in double-double, as stdevFrom takes it.
	fn := float64(n)
	mh, ml := ddDivF(a[0], a[1], fn)
	qh, ql := ddDivF(a[2], a[3], fn)
	p := mh * mh
	pe := math.FMA(mh, mh, -p) + 2*mh*ml
	vh, ve := twoSum(qh, -p)
	v := vh + (ve + ql - pe)
	return !(peak <= spreadRatio*fn*v)
}

// addSquare adds x to the sum (s, c) and x² to (q, qc).
func addSquare(s, c, q, qc *float64, x float64) {
	hi, e := twoSum(*s, x)
	*s, *c = hi, *c+e
	sq := x * x
	sqe := math.FMA(x, x, -sq)
	hi, e = twoSum(*q, sq)
	*q, *qc = hi, *qc+e+sqe
}

// addSq adds x² to the double-double (q, qc): the square split exactly
// with an FMA, added with TwoSum, and both errors added to qc at once.
func addSq(q, qc, x float64) (float64, float64) {
	sq := x * x
	sqe := math.FMA(x, x, -sq)
	hq, e := twoSum(q, sq)
	return hq, qc + (e + sqe)
}

// bigSquare is the magnitude from which a value's square is not summed
// (2^500): the square of such a value could overflow Σx², so the pane
// marks its Σx² infinite instead and the deviation is missing while the
// pane is in a window.
const bigSquare = 0x1p500

// ddDivF returns (s + c) / n as a double-double.
func ddDivF(s, c, n float64) (float64, float64) {
	hi := s / n
	r := math.FMA(-hi, n, s) // s − hi·n, exactly
	return hi, (r + c) / n
}

// meanFrom returns the mean whose double-double is (hi, lo).
func meanFrom(hi, lo float64) (float64, bool) {
	m := hi + lo
	return m, m-m == 0 // x−x is 0 for a finite x, NaN for NaN and ±Inf
}

// stdevFrom returns the population standard deviation of n values with
// sums (s, ·) of x and (q, qc) of x², given their mean's double-double
// (mh, ml), computed in double-double: Σx²/n − mean². A spread below
// 2^-50 of the mean is reported as 0, as reducers.Moments does, so equal
// values give 0.
func stdevFrom(s, q, qc float64, n int64, mh, ml float64) (float64, bool) {
	if n == 0 || q-q != 0 || s-s != 0 {
		return 0, false
	}
	if n == 1 {
		return 0, true
	}
	fn := float64(n)
	qh, ql := ddDivF(q, qc, fn)
	// mean² in double-double.
	p := mh * mh
	pe := math.FMA(mh, mh, -p) + 2*mh*ml
	vh, ve := twoSum(qh, -p)
	v := vh + (ve + ql - pe)
	m := mh + ml
	if v <= 0 || v <= m*m*0x1p-100 {
		return 0, true
	}
	sd := math.Sqrt(v)
	return sd, sd-sd == 0
}
