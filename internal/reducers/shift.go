package reducers

import "math"

// smallRun is the longest run [Moments.FillSlots] and [Moments.ShiftSlots]
// take in their one-pass path. Up to it, [Moments.AddSlots] and
// [Moments.RemoveSlots] go value by value, and the one-pass path does the
// same additions in the same order, so its results are bit for bit those
// of the calls it replaces.
const smallRun = 4

// The three loops below (fill, remove, add) are alike on purpose: one
// helper carrying the sums in a struct made the seed's 1000×10 pipeline
// 40 % slower, the sums no longer staying in registers.

// FillSlots makes m hold exactly the values of n slots at off, off+stride,
// … (missing ones skipped), with the result of [Moments.Reset] followed by
// [Moments.AddSlots]. For a short run whose values are all present and
// within one band — a window of a few rows rebuilt at each emission — it
// is one pass in registers and a single store of the state.
func (m *Moments) FillSlots(slots []uint64, off, stride, n int) {
	if n > 0 && n <= smallRun {
		_ = slots[off+(n-1)*stride]
		b0 := slots[off]
		if e0 := int(b0 >> 52 & 0x7ff); e0 != 0 && e0 != 0x7ff {
			// The first value, present and not zero, anchors the band;
			// every value must fall in it (Add's rule), be finite and
			// have its square summed.
			var s, c, q, qc float64
			ok := true
			sq := !m.noSquares
			lo, span := bandRange(e0, m.squareLimit())
			for i := off; i < off+n*stride; i += stride {
				bits := slots[i]
				x := math.Float64frombits(bits)
				if uint(int(bits>>52&0x7ff)-lo) > span && bits<<1 != 0 {
					ok = false
				}
				s, c = addDD(s, c, x)
				if sq {
					q, qc = addSquare(q, qc, x)
				}
			}
			if ok && s-s == 0 && q-q == 0 && qc-qc == 0 {
				// Field by field: a whole-struct store would go through
				// the write barrier for the outer pointer, which stays.
				if o := m.outer; o != nil {
					clear(o.b)
				}
				m.n, m.anchor, m.anchored, m.big = n, int16(e0), true, 0
				m.main = band{n: n, s: s, c: c, q: q, qc: qc}
				return
			}
		}
	}
	m.empty()
	m.AddSlots(slots, off, stride, n)
}

// ShiftSlots removes the values of rn slots at roff, roff+stride, … of rem
// and then adds those of an slots at aoff, … of add: a window sliding by a
// few rows. Its result is that of [Moments.RemoveSlots] followed by
// [Moments.AddSlots]; when both runs are short, their values present and
// in the main band, and the band keeps a value throughout, it is one pass
// in registers.
func (m *Moments) ShiftSlots(rem []uint64, roff, rn int, add []uint64, aoff, an, stride int) {
	if rn > 0 && an > 0 && rn <= smallRun && an <= smallRun && m.anchored && m.main.n > rn {
		_ = rem[roff+(rn-1)*stride]
		_ = add[aoff+(an-1)*stride]
		b := &m.main
		s, c, q, qc := b.s, b.c, b.q, b.qc
		ok := true
		sq := !m.noSquares
		lo, span := bandRange(int(m.anchor), m.squareLimit())
		for i := roff; i < roff+rn*stride; i += stride {
			bits := rem[i]
			x := math.Float64frombits(bits)
			if uint(int(bits>>52&0x7ff)-lo) > span && bits<<1 != 0 {
				ok = false
			}
			s, c = subDD(s, c, x)
			if sq {
				q, qc = subSquare(q, qc, x)
			}
		}
		for i := aoff; i < aoff+an*stride; i += stride {
			bits := add[i]
			x := math.Float64frombits(bits)
			if uint(int(bits>>52&0x7ff)-lo) > span && bits<<1 != 0 {
				ok = false
			}
			s, c = addDD(s, c, x)
			if sq {
				q, qc = addSquare(q, qc, x)
			}
		}
		// A missing or infinite value shows as a NaN or an infinity in
		// the sums (an in-band exponent check alone misses the top of the
		// range).
		if ok && s-s == 0 && c-c == 0 && q-q == 0 && qc-qc == 0 {
			m.n += an - rn
			b.n += an - rn
			b.s, b.c, b.q, b.qc = s, c, q, qc
			return
		}
	}
	m.RemoveSlots(rem, roff, stride, rn)
	m.AddSlots(add, aoff, stride, an)
}

// bandRange returns the biased exponents of the main band centred on
// anchor, as its lowest and its width less one, with the band cut below
// limit (see Moments.squareLimit): a value belongs when uint(e − lo) ≤
// span, or is a zero (of any sign).
func bandRange(anchor, limit int) (lo int, span uint) {
	lo, hi := anchor-bandSpan, min(anchor+bandSpan, limit-1)
	if hi < lo {
		return 0x1000, 0 // no biased exponent fits
	}
	return lo, uint(hi - lo)
}

// addDD adds x to the double-double s + c as [Moments.Add] does.
func addDD(s, c, x float64) (float64, float64) {
	t := s + x
	d := t - s
	c += (s - (t - d)) + (x - d)
	return t, c
}

// subDD takes x from the double-double s + c as [Moments.Remove] does.
func subDD(s, c, x float64) (float64, float64) {
	t := s - x
	d := t - s
	c += (s - (t - d)) - (x + d)
	return t, c
}

// addSquare adds x² to the double-double q + qc as [Moments.Add] does.
func addSquare(q, qc, x float64) (float64, float64) {
	p := x * x
	e := math.FMA(x, x, -p)
	u := q + p
	d := u - q
	qc += (q - (u - d)) + (p - d) + e
	return u, qc
}

// subSquare takes x² from the double-double q + qc as [Moments.Remove]
// does.
func subSquare(q, qc, x float64) (float64, float64) {
	p := x * x
	e := math.FMA(x, x, -p)
	u := q - p
	d := u - q
	qc += (q - (u - d)) - (p + d) - e
	return u, qc
}
