package worker

import (
	"math"
	"slices"
)

// Samples is a bounded ring of recent values for quantiles.
type Samples struct {
	v    []float64
	next int
	cap  int
}

// NewSamples returns a ring of n values.
func NewSamples(n int) Samples { return Samples{cap: n} }

func (s *Samples) add(x float64) {
	if len(s.v) < s.cap {
		s.v = append(s.v, x)
		return
	}
	s.v[s.next] = x
	s.next = (s.next + 1) % s.cap
}

// Clone returns a copy.
func (s *Samples) Clone() Samples {
	return Samples{v: slices.Clone(s.v), next: s.next, cap: s.cap}
}

// Merge adds o's values to s (unbounded: for reports).
func (s *Samples) Merge(o *Samples) { s.v = append(s.v, o.v...) }

// Len returns the number of values held.
func (s *Samples) Len() int { return len(s.v) }

// Quantile returns the value at index min(n−1, ⌊n·q⌋) of the sorted
// values (the aggregator's rule), or NaN when empty.
func (s *Samples) Quantile(q float64) float64 {
	if len(s.v) == 0 {
		return math.NaN()
	}
	v := slices.Clone(s.v)
	slices.Sort(v)
	return v[min(len(v)-1, int(float64(len(v))*q))]
}
