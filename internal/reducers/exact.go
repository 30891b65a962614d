package reducers

import "math"

// This file holds the error-free arithmetic behind [Moments]: TwoSum,
// TwoProd and the double-double operations that read the sums.

// twoSum returns s = fl(a+b) and the exact rounding error e, so that
// s + e == a + b exactly (Knuth; no condition on the magnitudes).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// fastTwoSum is twoSum for |a| >= |b| (or a == 0) (Dekker).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// twoProd returns p = fl(a·b) and the exact error e = a·b - p, exact as long
// as a·b neither overflows nor underflows.
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

// dd is a double-double: the unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// mulF returns a·b.
func (a dd) mulF(b float64) dd {
	p, e := twoProd(a.hi, b)
	e += a.lo * b
	p, e = fastTwoSum(p, e)
	return dd{p, e}
}

// sqr returns a².
func (a dd) sqr() dd {
	p, e := twoProd(a.hi, a.hi)
	e += 2 * a.hi * a.lo
	p, e = fastTwoSum(p, e)
	return dd{p, e}
}

// add returns a + b.
func (a dd) add(b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	e += a.lo + b.lo
	s, e = fastTwoSum(s, e)
	return dd{s, e}
}

// sub returns a - b.
func (a dd) sub(b dd) dd {
	s, e := twoSum(a.hi, -b.hi)
	e += a.lo - b.lo
	s, e = fastTwoSum(s, e)
	return dd{s, e}
}

// divF returns a / b (b finite, non-zero).
func (a dd) divF(b float64) dd {
	q1 := a.hi / b
	p, e := twoProd(q1, b)
	r := ((a.hi - p) - e) + a.lo
	q2 := r / b
	q1, q2 = fastTwoSum(q1, q2)
	return dd{q1, q2}
}

// sqrt returns √a for a > 0 (one Newton step on the double square root).
func (a dd) sqrt() dd {
	r := math.Sqrt(a.hi)
	c := (math.FMA(-r, r, a.hi) + a.lo) / (2 * r)
	r, c = fastTwoSum(r, c)
	return dd{r, c}
}
