package reducers

import "math"

// SlideOut names where [Moments.Slide] writes its results, one per row;
// a nil slice is not wanted.
type SlideOut struct {
	Count, Sum, Mean, Stdev []float64
}

// Slide is the event trigger's kernel: for each row i of a run it adds
// adds[i], removes the next remCount[i] values of rems (the rows that left
// the window as row i arrived, oldest first), and writes the window's
// count, sum, mean and standard deviation as row i's results (NaN for a
// result that is missing). It gives what Add, Remove and the readers give
// called one by one, with the sums of the main band kept in registers
// across the run; values outside it, and reads while other bands hold
// values, go the one-by-one way.
//
// NaN values (missing) in adds and rems are skipped, as Add and Remove do.
func (m *Moments) Slide(adds, rems []float64, remCount []int32, out SlideOut) {
	r := 0
	for i := 0; i < len(adds); {
		if m.anchored && !m.rare {
			if ni, nr := m.slideFast(adds, rems, remCount, out, i, r); ni > i {
				i, r = ni, nr
				continue
			}
		}
		// Open the main band, read across bands, or a value outside the
		// main band: one row the slow way.
		m.Add(adds[i])
		for range remCount[i] {
			m.Remove(rems[r])
			r++
		}
		m.write(out, i)
		i++
	}
}

// slideFast runs rows from i while every value stays in the main band and
// the band does not empty; it returns where it stopped.
func (m *Moments) slideFast(adds, rems []float64, remCount []int32, out SlideOut, i, r int) (int, int) {
	b := &m.main
	s, c, q, qc := b.s, b.c, b.q, b.qc
	bn := b.n // the count, as the main band holds every value
	z := m.zeros
	lo, hi := int(m.anchor)-bandSpan, min(int(m.anchor)+bandSpan, m.squareLimit()-1)
	sq := !m.noSquares
	inBand := func(x float64) bool {
		e := int(math.Float64bits(x) >> 52 & 0x7ff)
		return x == 0 || e >= lo && e <= hi
	}
	for ; i < len(adds); i++ {
		x := adds[i]
		k := int(remCount[i])
		if x == x && !inBand(x) || bn+1-k <= 0 {
			break
		}
		ok := true
		for _, y := range rems[r : r+k] {
			if y == y && !inBand(y) {
				ok = false
			}
		}
		if !ok {
			break
		}
		if x == x {
			bn++
			if x == 0 {
				z = addZeros(z, 0, 1)
			}
			t := s + x
			d := t - s
			c += (s - (t - d)) + (x - d)
			s = t
			if sq {
				p := x * x
				pe := math.FMA(x, x, -p)
				u := q + p
				d = u - q
				qc += (q - (u - d)) + (p - d) + pe
				q = u
			}
		}
		for _, y := range rems[r : r+k] {
			if y != y {
				continue
			}
			bn--
			if y == 0 {
				z = addZeros(z, 1, 0)
			}
			t := s - y
			d := t - s
			c += (s - (t - d)) - (y + d)
			s = t
			if sq {
				p := y * y
				pe := math.FMA(y, y, -p)
				u := q - p
				d = u - q
				qc += (q - (u - d)) - (p + d) - pe
				q = u
			}
		}
		r += k
		if bn == int(z) {
			// The band emptied, or holds zeros alone: everything else
			// it held has left exactly (Moments.allZeros).
			s, c, q, qc = 0, 0, 0, 0
		}
		if out.Count != nil {
			out.Count[i] = float64(bn)
		}
		if out.Sum != nil {
			out.Sum[i] = s + c
			if bn == 0 {
				out.Sum[i] = 0
			}
		}
		if out.Mean != nil {
			if bn == 0 {
				out.Mean[i] = math.NaN()
			} else {
				out.Mean[i] = (s + c) / float64(bn)
			}
		}
		if out.Stdev != nil {
			b.s, b.c, b.q, b.qc, b.n = s, c, q, qc, bn
			out.Stdev[i] = m.stdevOrNaN()
		}
	}
	b.s, b.c, b.q, b.qc, b.n = s, c, q, qc, bn
	m.zeros = z
	if bn == 0 {
		m.empty()
	}
	return i, r
}

func (m *Moments) stdevOrNaN() float64 {
	if sd, ok := m.Stdev(); ok {
		return sd
	}
	return math.NaN()
}

// write records the results of row i from m's state.
func (m *Moments) write(out SlideOut, i int) {
	if out.Count != nil {
		out.Count[i] = float64(m.N())
	}
	if out.Sum != nil {
		out.Sum[i] = m.Sum()
	}
	if out.Mean != nil {
		out.Mean[i] = math.NaN()
		if x, ok := m.Mean(); ok {
			out.Mean[i] = x
		}
	}
	if out.Stdev != nil {
		out.Stdev[i] = m.stdevOrNaN()
	}
}
