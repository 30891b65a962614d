package reducers

import (
	"math/big"
)

// This file holds exact big-number reference sums, written independently
// of the compensated ones (the same as package reduce's tests).

const refPrec = 1 << 13 // enough bits to add doubles from 2^-1074 to 2^1024 exactly

// exactMoments returns the exact Σx and n·Σx² − (Σx)² of xs.
func exactMoments(xs []float64) (s1, spread *big.Float) {
	s1 = new(big.Float).SetPrec(refPrec)
	s2 := new(big.Float).SetPrec(2 * refPrec)
	for _, x := range xs {
		bx := new(big.Float).SetFloat64(x)
		s1.Add(s1, bx)
		s2.Add(s2, new(big.Float).SetPrec(2*refPrec).Mul(bx, bx))
	}
	n := new(big.Float).SetInt64(int64(len(xs)))
	spread = new(big.Float).SetPrec(4*refPrec).Mul(s2, n)
	sq := new(big.Float).SetPrec(4*refPrec).Mul(s1, s1)
	spread.Sub(spread, sq)
	return s1, spread
}

// refSum, refMean and refStdev are the exact results rounded to float64.
func refSum(xs []float64) float64 {
	s1, _ := exactMoments(xs)
	f, _ := s1.Float64()
	return f
}

func refMean(xs []float64) float64 {
	s1, _ := exactMoments(xs)
	q := new(big.Float).SetPrec(200).Quo(s1, new(big.Float).SetInt64(int64(len(xs))))
	f, _ := q.Float64()
	return f
}

func refStdev(xs []float64) float64 {
	_, spread := exactMoments(xs)
	if spread.Sign() <= 0 {
		return 0
	}
	n := float64(len(xs))
	v := new(big.Float).SetPrec(200).Quo(spread, new(big.Float).SetFloat64(n*n))
	f, _ := v.Sqrt(v).Float64()
	return f
}
