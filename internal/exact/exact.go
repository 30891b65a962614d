// Package exact holds the tests' reference sums: Σx, the mean and the
// population standard deviation of float64 values in exact big-number
// arithmetic, written without the compensated sums the reducers keep, so
// that a test can measure those against the true results.
package exact

import "math/big"

// Prec is the precision of an exact sum: enough bits to add float64
// values from 2^-1074 to 2^1024 without rounding.
const Prec = 1 << 13

// Moments returns the exact Σx and n·Σx² − (Σx)² of xs.
func Moments(xs []float64) (sum, spread *big.Float) {
	sum = new(big.Float).SetPrec(Prec)
	sq := new(big.Float).SetPrec(2 * Prec)
	for _, x := range xs {
		bx := new(big.Float).SetFloat64(x)
		sum.Add(sum, bx)
		sq.Add(sq, new(big.Float).SetPrec(2*Prec).Mul(bx, bx))
	}
	n := new(big.Float).SetInt64(int64(len(xs)))
	spread = new(big.Float).SetPrec(4*Prec).Mul(sq, n)
	spread.Sub(spread, new(big.Float).SetPrec(4*Prec).Mul(sum, sum))
	return sum, spread
}

// Sum returns the exact Σx of xs.
func Sum(xs []float64) *big.Float {
	s, _ := Moments(xs)
	return s
}

// SumFloat returns Σx of xs rounded once to float64 (±Inf beyond its
// range).
func SumFloat(xs []float64) float64 {
	f, _ := Sum(xs).Float64()
	return f
}

// Mean returns the mean of xs rounded once to float64; xs must not be
// empty.
func Mean(xs []float64) float64 {
	q := new(big.Float).SetPrec(300).Quo(Sum(xs), new(big.Float).SetInt64(int64(len(xs))))
	f, _ := q.Float64()
	return f
}

// Stdev returns the population standard deviation of xs (dividing by n)
// to within an ulp: 0 for fewer than two values or no spread.
func Stdev(xs []float64) float64 {
	_, spread := Moments(xs)
	if len(xs) < 2 || spread.Sign() <= 0 {
		return 0
	}
	n := new(big.Float).SetInt64(int64(len(xs)))
	v := new(big.Float).SetPrec(300).Quo(spread, new(big.Float).SetPrec(300).Mul(n, n))
	f, _ := v.Sqrt(v).Float64()
	return f
}
