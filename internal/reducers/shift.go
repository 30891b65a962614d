package reducers

import "math"

// smallRun is the longest run [Moments.FillSlots] and [Moments.ShiftSlots]
// take in their one-pass path. Up to it, [Moments.AddSlots] and
// [Moments.RemoveSlots] go value by value, and the one-pass path does the
// same additions in the same order, so its results are bit for bit those
// of the calls it replaces.
const smallRun = 4

// ShortRun is the longest run [Moments.ShiftShort] and
// [Moments.FillRunMinMax] take: runs whose one pass gives the bits of
// the value-by-value calls it replaces.
const ShortRun = smallRun

// The three loops below (fill, remove, add) are alike on purpose: one
// helper carrying the sums in a struct made the seed's 1000×10 pipeline
// 40 % slower, the sums no longer staying in registers.

// FillSlots makes m hold exactly the values of n slots at off, off+stride,
// … (missing ones skipped), with the result of [Moments.Reset] followed by
// [Moments.AddSlots]. For a short run whose values are all present and
// within one band — a window of a few rows rebuilt at each emission — it
// is one pass in registers and a single store of the state.
func (m *Moments) FillSlots(slots []uint64, off, stride, n int) {
	if uint(n-1) < smallRun {
		run := slots[off : off+(n-1)*stride+1]
		// The first value, present and not zero, anchors the band;
		// every value must fall in it (Add's rule), be finite and have
		// its square summed. A band reaching down to the exponent of
		// zeros takes the careful path, as the shifts do.
		if e0 := int(run[0] >> 52 & 0x7ff); e0 > bandSpan && e0 != 0x7ff {
			if z, ok := m.fillRun(run, stride, e0); ok {
				m.anchor, m.anchored, m.rare = int16(e0), true, false
				m.main.n, m.zeros = n, z
				return
			}
		}
	}
	m.empty()
	m.AddSlots(slots, off, stride, n)
}

// FillMinMax is [Moments.FillSlots] and [MinMaxSlots] of the same
// values, with their results, in one pass for a short run: the sums and
// extremes of a window of a few rows rebuilt at each emission that read
// one column.
func (m *Moments) FillMinMax(slots []uint64, off, stride, n int) (lo, hi float64, ok bool) {
	if uint(n-1) < smallRun {
		if lo, hi, ok := m.FillRunMinMax(slots[off:off+(n-1)*stride+1], stride, n); ok {
			return lo, hi, true
		}
	}
	m.FillSlots(slots, off, stride, n)
	return MinMaxSlots(slots, off, stride, n)
}

// FillRunMinMax is [Moments.FillMinMax]'s one pass alone, for the n
// values at run[0], run[stride], … (n at most [ShortRun], run ending at
// the last of them): it finds the smallest and largest value, as
// [MinMaxSlots] does (strict comparisons: the oldest of equal values),
// and sets the whole state, anchored at the first value, and reports
// true when every value is present, finite and in that band and the
// first is at least 2^-996 (its band lies above a zero's exponent);
// otherwise it reports false having changed nothing,
// and the caller takes FillMinMax. A rolling engine calls it from its
// own loop for a window of a few rows rebuilt at each emission. On amd64
// with AVX2 and FMA the pass is in assembly, as [Moments.Shift]'s is.
func (m *Moments) FillRunMinMax(run []uint64, stride, n int) (lo, hi float64, ok bool) {
	return fillRunMinMax(m, run, stride, n)
}

// fillRunMinMaxGo is FillRunMinMax in Go: the assembly pass's fallback,
// and its reference in the tests.
func fillRunMinMaxGo(m *Moments, run []uint64, stride, n int) (lo, hi float64, ok bool) {
	e0 := int(run[0] >> 52 & 0x7ff)
	if e0 <= bandSpan || e0 == 0x7ff {
		return 0, 0, false
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	bl, span := bandRange(e0, m.squareLimit())
	var s, c, q, qc float64
	var far uint
	var z uint16
	sq := !m.noSquares
	for i := 0; i < len(run); i += stride {
		bits := run[i]
		far = max(far, bandDistance(bits, bl))
		if bits<<1 == 0 {
			z++
		}
		x := math.Float64frombits(bits)
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
		s, c = addDD(s, c, x)
		if sq {
			q, qc = addSquare(q, qc, x)
		}
	}
	if far > span || notFinite(s, q, qc, 0) {
		return 0, 0, false
	}
	if o := m.outer; o != nil {
		clear(o.b)
		o.n, o.big = 0, 0
	}
	m.anchor, m.anchored, m.rare, m.zeros = int16(e0), true, false, z
	b := &m.main
	b.n, b.s, b.c, b.q, b.qc = n, s, c, q, qc
	return lo, hi, true
}

// fillRun is FillSlots' one pass over run[0], run[stride], …, in a band
// anchored at biased exponent e0: it sets the main band's sums and
// empties the outer bands, and returns the number of zeros and true,
// when every value is present and in the band; otherwise it reports false
// having changed nothing.
func (m *Moments) fillRun(run []uint64, stride, e0 int) (uint16, bool) {
	lo, span := bandRange(e0, m.squareLimit())
	var s, c, q, qc float64
	var far uint
	var z uint16
	if m.noSquares {
		for i := 0; i < len(run); i += stride {
			bits := run[i]
			far = max(far, bandDistance(bits, lo))
			if bits<<1 == 0 {
				z++
			}
			s, c = addDD(s, c, math.Float64frombits(bits))
		}
	} else {
		for i := 0; i < len(run); i += stride {
			bits := run[i]
			far = max(far, bandDistance(bits, lo))
			if bits<<1 == 0 {
				z++
			}
			x := math.Float64frombits(bits)
			s, c = addDD(s, c, x)
			q, qc = addSquare(q, qc, x)
		}
	}
	if far > span || notFinite(s, q, qc, 0) {
		return 0, false
	}
	// Field by field: a whole-struct store would go through the write
	// barrier for the outer pointer, which stays.
	if o := m.outer; o != nil {
		clear(o.b)
		o.n, o.big = 0, 0
	}
	b := &m.main
	b.s, b.c, b.q, b.qc = s, c, q, qc
	return z, true
}

// ShiftSlots removes the values of rn slots at roff, roff+stride, … of rem
// and then adds those of an slots at aoff, … of add: a window sliding by a
// few rows. Its result is that of [Moments.RemoveSlots] followed by
// [Moments.AddSlots]; when both runs are short, their values present and
// in the main band, and the band keeps a value throughout, it is one pass
// in registers.
func (m *Moments) ShiftSlots(rem []uint64, roff, rn int, add []uint64, aoff, an, stride int) {
	if uint(rn-1) < smallRun && uint(an-1) < smallRun {
		sl := Slide{rem[roff : roff+(rn-1)*stride+1], add[aoff : aoff+(an-1)*stride+1], stride, rn, an}
		if m.ShiftShort(&sl, 0) {
			return
		}
	}
	m.RemoveSlots(rem, roff, stride, rn)
	m.AddSlots(add, aoff, stride, an)
}

// ShiftEach is [Moments.ShiftSlots] for each state of ms, ms[i] reading
// slot slots[i] of the rows that leave the window and of those that
// enter it, as sl holds them: the sums of a window sliding by a few rows,
// in one call. Every slot is below the rows' stride; ShiftEach panics
// otherwise.
func ShiftEach(ms []Moments, slots []int, sl *Slide) {
	ms = ms[:len(slots)]
	short := uint(sl.RN-1) < smallRun && uint(sl.AN-1) < smallRun
	for i, s := range slots {
		if uint(s) >= uint(sl.Stride) {
			panic("reducers: ShiftEach slot outside the row")
		}
		m := &ms[i]
		if short {
			// The loop keeps only the slide's address across its calls.
			var ok bool
			if m.noSquares {
				ok = m.ShiftSums(sl, s)
			} else {
				ok = m.ShiftSquares(sl, s)
			}
			if ok {
				continue
			}
		}
		m.RemoveSlots(sl.Rem, s, sl.Stride, sl.RN)
		m.AddSlots(sl.Add, s, sl.Stride, sl.AN)
	}
}

// Slide is the rows a window's shift reads: RN whole rows of Stride
// slots leave it (Rem) and AN enter it (Add), each run in one block.
type Slide struct {
	Rem, Add       []uint64
	Stride, RN, AN int
}

// ShiftShort is the one pass of [Moments.ShiftSlots] over the values at
// s, s+stride, … of the slide's runs (s below stride, so one value a row;
// each run at most [ShortRun] rows): it reports false, having changed
// nothing, when the pass does not apply (the main band would empty, or a
// value is missing or outside it), and the caller removes and adds the
// values as ShiftSlots does. [ShiftEach] is it for a window's states;
// a rolling engine calls [ShiftRun], the same passes for a window's
// states side by side (in assembly on amd64 with AVX2 and FMA), from its own loop.
func (m *Moments) ShiftShort(sl *Slide, s int) bool {
	if m.noSquares {
		return m.ShiftSums(sl, s)
	}
	return m.ShiftSquares(sl, s)
}

// ShiftRun shifts the Moments at m, m+1, … (len(slots) of them, side by
// side, as a rolling window's states lie), m+i reading slot slots[i] of
// the slide's rows, each as [Moments.ShiftSquares] or [Moments.ShiftSums]
// would, as [Moments.Squares] says, up to the first whose pass does not
// apply, which it leaves unchanged: it returns how many it shifted, the
// caller removing and adding the values of that one and calling again
// for the rest. A rolling engine calls it for a window of sums sliding
// by a few rows, from its own loop. On amd64 with AVX2 and FMA the passes are in
// assembly, bit for bit those of the Go code, their sums in registers
// throughout (the Go passes spill them around math.FMA's fallback call).
func ShiftRun(m *Moments, slots []int, sl *Slide) int { return shiftRun(m, slots, sl) }

// shiftRunGo is ShiftRun in Go: the assembly's fallback, and its
// reference in the tests.
func shiftRunGo(m *Moments, slots []int, sl *Slide) int {
	for i, s := range slots {
		if !shiftGo(nth(m, i), sl, s) {
			return i
		}
	}
	return len(slots)
}

// shiftGo is the pass of ShiftSquares or ShiftSums, as m.Squares() says.
func shiftGo(m *Moments, sl *Slide, off int) bool {
	if m.noSquares {
		return m.ShiftSums(sl, off)
	}
	return m.ShiftSquares(sl, off)
}

// Squares reports whether m keeps Σx² (see [Moments.SkipSquares]):
// whether [Moments.ShiftSquares] or [Moments.ShiftSums] shifts it.
func (m *Moments) Squares() bool { return !m.noSquares }

// ShiftSums is [Moments.ShiftShort] for a Moments without squares: it takes the
// values at off, off+stride, … of the slide's leaving rows (off below
// stride, so one value a row) from the main band's sums and adds those
// of its entering rows, moving the counts, and reports true, when the
// band keeps a value throughout and every value is present and in the
// band; otherwise it reports false having changed nothing.
// The exponents are checked without a branch per value: the largest
// distance from the band's lowest exponent is compared once (a zero, of
// any exponent, counts as in the band, and is counted; see
// Moments.zeros).
func (m *Moments) ShiftSums(sl *Slide, off int) bool {
	b := &m.main
	if !m.applies(sl) {
		return false
	}
	lo, span := bandRange(int(m.anchor), m.squareLimit())
	rem, add, stride := sl.Rem, sl.Add, sl.Stride
	s, c := b.s, b.c
	var far uint
	var gone, come int // zeros
	// Values held in the main band alone, none of them with a square
	// left out and none a zero, are all in the band and all counted:
	// those leaving need no check.
	checkRem := m.rare || m.zeros != 0
	for i := off; i < len(rem); i += stride {
		bits := rem[i]
		if checkRem {
			far = max(far, bandDistance(bits, lo))
			if bits<<1 == 0 {
				gone++
			}
		}
		s, c = subDD(s, c, math.Float64frombits(bits))
	}
	for i := off; i < len(add); i += stride {
		bits := add[i]
		far = max(far, bandDistance(bits, lo))
		if bits<<1 == 0 {
			come++
		}
		s, c = addDD(s, c, math.Float64frombits(bits))
	}
	// A missing or infinite value shows as a NaN or an infinity in the
	// sums (an in-band exponent check alone misses the top of the range).
	if far > span || notFinite(s, c, 0, 0) {
		return false
	}
	d := sl.AN - sl.RN
	b.n, b.s, b.c = b.n+d, s, c
	if gone|come != 0 {
		m.zeros = addZeros(m.zeros, gone, come)
	}
	return true
}

// applies reports whether a one-pass shift may apply to m: its main band
// is anchored, above the lowest exponents (where a zero's exponent, 0,
// would be in the band and go uncounted by the assembly pass), and keeps
// a value other than a zero throughout, however many of those the slide
// removes (a band left with zeros alone is reset: allZeros).
func (m *Moments) applies(sl *Slide) bool {
	return m.anchored && m.anchor > bandSpan && m.main.n-int(m.zeros) > sl.RN
}

// ShiftSquares is [Moments.ShiftSums] for a Moments keeping Σx² too.
func (m *Moments) ShiftSquares(sl *Slide, off int) bool {
	b := &m.main
	if !m.applies(sl) {
		return false
	}
	lo, span := bandRange(int(m.anchor), m.squareLimit())
	rem, add, stride := sl.Rem, sl.Add, sl.Stride
	s, c, q, qc := b.s, b.c, b.q, b.qc
	var far uint
	var gone, come int
	checkRem := m.rare || m.zeros != 0 // see ShiftSums
	for i := off; i < len(rem); i += stride {
		bits := rem[i]
		if checkRem {
			far = max(far, bandDistance(bits, lo))
			if bits<<1 == 0 {
				gone++
			}
		}
		x := math.Float64frombits(bits)
		s, c = subDD(s, c, x)
		q, qc = subSquare(q, qc, x)
	}
	for i := off; i < len(add); i += stride {
		bits := add[i]
		far = max(far, bandDistance(bits, lo))
		if bits<<1 == 0 {
			come++
		}
		x := math.Float64frombits(bits)
		s, c = addDD(s, c, x)
		q, qc = addSquare(q, qc, x)
	}
	if far > span || notFinite(s, c, q, qc) {
		return false
	}
	d := sl.AN - sl.RN
	b.n, b.s, b.c, b.q, b.qc = b.n+d, s, c, q, qc
	if gone|come != 0 {
		m.zeros = addZeros(m.zeros, gone, come)
	}
	return true
}

// notFinite reports whether any of a, b, c and d is an infinity or a
// NaN, with one comparison: x − x is +0 for a finite x and NaN otherwise,
// and a NaN makes the sum NaN.
func notFinite(a, b, c, d float64) bool {
	return (a-a)+(b-b)+(c-c)+(d-d) != 0
}

// bandDistance returns how far the biased exponent of the float64 bits
// lies above lo, as an unsigned number (one below lo is far above any
// band's width); 0 for a zero of either sign, which belongs to any band.
func bandDistance(bits uint64, lo int) uint {
	d := uint(int(bits>>52&0x7ff) - lo)
	if bits<<1 == 0 {
		d = 0
	}
	return d
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
