package reducers

import (
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/fsum"
)

// Moments keeps compensated running sums of the numbers it holds: their
// count, Σx and Σx². It is the state of the sum, avg and stdev reducers,
// and a building block the rolling engine calls directly: [Moments.Add] and
// [Moments.Remove] take values in any order and never allocate. The zero
// Moments is empty and ready to use; it may be copied.
//
// # Compensated sums
//
// Σx and Σx² are double-double accumulators: a float64 sum plus a
// compensation that collects the exact rounding error of every addition
// (TwoSum) and, for Σx², of every square (FMA). Their precision is about
// 106 bits, so adding and removing values does not drift: add 1e16, add 1,
// remove 1e16 leaves exactly 1, and sums of values exact in binary
// (integers, halves, …) stay exact: the stdev of 5, 5, 5 left in a window
// after other such values left is exactly 0. The compensation is off the
// critical path: an Add costs about what a plain floating-point add costs
// in a loop.
//
// # Magnitude bands
//
// A double-double rounds at 2^-106 of the largest sum it has held, and a
// residue of that size would outlive the value that caused it: after 1e16
// leaves a window of values near 50, Σx² would still be off by about 1,
// enough to make the stdev of equal values 0.6. So values are kept in
// bands by binary magnitude, each 53 binary orders of magnitude wide: the
// main band within 2^±26 of the value that opened it, and the bands above
// and below it, opened as values fall in them (a value 2^40 above the main
// band and one 2^90 above it are in different bands). Each band has its
// own count, and an emptied band is reset to exactly zero: an outlier's
// residue leaves with it. The band is picked from the exponent bits, one
// predictable branch; typical data never leaves the main band. Zeros,
// which change no sum, belong to the main band whatever its magnitude;
// they are counted apart as well, and a main band left holding zeros
// alone is reset as an emptied one is: a zero held keeps no residue of
// the large values that have left. Values from 2^960 up have bands of
// their own, of 32 binary orders each, whose sums are kept scaled down by
// 2^-128, so that no sum of finite values overflows on the way to a
// result (see hugeExp): [Moments.Sum] is not finite only while the values
// held sum beyond the float64 range, and [Moments.Mean] is always finite.
//
// What remains: while values of very different magnitudes are in a window
// together, results are as precise as a double-double allows at the
// largest of them (about 1e-32 relative to it); a value that has left can
// leave a residue of about 2^-106 of its square in Σx² (the residues of
// many add up) while values of its band (within 2^53 of it) other than
// zeros remain, or while more than
// 65,535 zeros are held (the count of zeros stops there, and the band no
// longer knows when it holds zeros alone); the squares of values beyond
// 2^500 (about 3.3e150) are not summed and the stdev is reported as
// missing while one is held (it comes back when they have left); and the
// squares of values below about 1e-154 lose precision to underflow.
//
// # Reading
//
// [Moments.Sum] rounds the double-double sum; [Moments.Mean] divides it by
// n. [Moments.Stdev] is the population standard deviation
// √(Σx²/n − mean²): in float64 when the variance is at least 1e-3 of the
// squared mean (the subtraction then loses a few ulps of mean², under
// 1e-12 of the variance), in float64 with its roundings taken back down
// to 1e-6, otherwise with the difference taken in double-double, which
// stays accurate unless the mean is more than about 1e7 times the spread. A spread below 2^-50 of the mean, a few ulps of the values and
// the size of a double-double's rounding residue, is reported as 0, so
// equal values give 0.
//
// Non-finite values (NaN, ±Inf) are ignored by both Add and Remove, so they
// count as missing, as in pond-ts.
//
// # Layout
//
// A Moments is 56 bytes, and what [ShiftRun] and the readers of
// the common case read (the flags and the main band) is its first 48: a
// rolling engine keeps one per sum of each window of every partition, and
// a partition-tick at 100,000 hosts reads the seed's minute window's two
// on lines of its record. So there is no count of all values beside the
// main band's: values beyond it, and values whose squares are not summed,
// are counted in the outer bands' state, and rare says that it holds any.
type Moments struct {
	anchor    int16 // biased exponent the main band is centred on
	anchored  bool  // anchor is set; it stays until m is empty again
	noSquares bool  // Σx² is not kept (see SkipSquares)
	// rare: values outside the main band or with squares not summed are
	// held (outer.n or outer.big is not 0). Without it, the main band
	// holds every value and its count is m's.
	rare bool
	// zeros is a lower bound of the zeros the main band holds (see
	// band): exact but beyond maxZeros. A main band holding zeros alone
	// (main.n == zeros) has its sums reset to exactly zero.
	zeros uint16
	main  band        // the main band
	outer *outerBands // the other bands; nil until a value falls outside the main one or is big
}

// maxZeros is where the count of zeros held stops: a Moments holding
// more zeros counts them all in the main band, but it may no longer know
// when the band holds nothing else, and then keeps a residue as a band of
// non-zero values does.
const maxZeros = math.MaxUint16

// addZeros returns the count of zeros after removing gone and adding come:
// a lower bound still (a zero removed beyond the count was not counted).
func addZeros(z uint16, gone, come int) uint16 {
	return uint16(min(max(int(z)-gone, 0)+come, maxZeros))
}

// allZeros resets the main band's sums, which a removal has left holding
// zeros alone (main.n == zeros, the callers' test): what a zero adds to
// them is exactly zero, and what remains is the rounding residue of
// values that have left.
func (m *Moments) allZeros() {
	b := &m.main
	b.s, b.c, b.q, b.qc = 0, 0, 0, 0
}

// bigExp is the biased exponent from which a value's square is not added
// to Σx² (|x| ≥ 2^500, about 3.3e150): such values are counted instead,
// and the deviation is missing while one is held. Every square summed is
// then below 2^1000, so up to 2^23 of them in one band cannot overflow
// Σx²; a square that overflowed used to turn the band's Σx² into an
// infinity and then NaN, for as long as the band held any value.
const bigExp = 1023 + 500

// squareLimit is the biased exponent from which values take the careful
// path: bigExp when squares are kept, anchorMax+1 otherwise, so that a
// band anchored on the fast paths, at most at the limit less one, never
// reaches the huge values.
func (m *Moments) squareLimit() int {
	if m.noSquares {
		return anchorMax + 1
	}
	return bigExp
}

// hugeExp is the biased exponent from which a value is huge (|x| ≥
// 2^960): a Σx of a few of them could leave the float64 range, and a
// running sum that had would stay infinite, whatever left after. So huge
// values are summed in bands of their own, of hugeWidth binary orders
// each, scaled down by 2^-hugeShift (exactly: a power of two), where no
// count of them overflows; the readers scale the sum back, and Sum
// reads NaN (missing) only while the values held sum beyond the range. Their squares are never summed (they are beyond
// bigExp).
const (
	hugeExp   = 1023 + 960
	hugeWidth = 32
	hugeShift = 128
	hugeDown  = 0x1p-128 // 2^-hugeShift
	hugeUp    = 0x1p128  // 2^hugeShift
	// hugeKey is the key of the first huge band among the outer bands'
	// (an ordinary band's key is within ±40).
	hugeKey = 1 << 20
	// anchorMax is the highest anchor of the main band: the band then
	// ends below hugeExp, so the one-comparison test of band never puts
	// a huge value in it.
	anchorMax = hugeExp - 1 - bandSpan
)

// outerBands are the bands other than the main one, by index: band k
// holds the values whose biased exponent is within bandSpan of
// anchor + k·bandWidth (k ≠ 0). They are kept, emptied, for reuse.
type outerBands struct {
	k   []int32
	b   []band
	n   int // values held in the bands of b
	big int // values held whose squares are not summed (see bigExp)
}

// rareState returns m's outer state, made on first use.
func (m *Moments) rareState() *outerBands {
	if m.outer == nil {
		m.outer = &outerBands{}
	}
	return m.outer
}

// setRare sets m.rare from the outer state's counts.
func (m *Moments) setRare() {
	o := m.outer
	m.rare = o.n != 0 || o.big != 0
}

// bandWidth is the number of binary orders of magnitude a band covers.
const bandWidth = 2*bandSpan + 1

// band is the double-double sums of the values of one magnitude band.
type band struct {
	n     int
	s, c  float64 // Σx = s + c
	q, qc float64 // Σx² = q + qc
}

// closeVar returns Σx²/n − mean² of the band's n ≥ 2 values with the
// roundings of both terms taken back (each quotient's exact remainder,
// the square's, and the compensations): for a variance down to 1e-6 of
// mean², where the plain float64 difference loses up to 1e-10 of it,
// exact to far below 1e-12. Σx²/n and mean² then agree to within a factor
// of two, so their difference is exact.
func (b *band) closeVar(n float64) float64 {
	qn := b.q / n
	qr := (math.FMA(-qn, n, b.q) + b.qc) / n
	sn := b.s / n
	sr := (math.FMA(-sn, n, b.s) + b.c) / n
	p := sn * sn
	pe := math.FMA(sn, sn, -p) + 2*sn*sr
	return (qn - p) + (qr - pe)
}

// bandSpan is the half-width, in binary orders of magnitude, of the main
// band.
const bandSpan = 26

// band returns the band x belongs in, opening it if needed. The first
// non-zero value added to an empty Moments anchors the main band; the
// anchor holds until every value has left, so a value is always removed
// from the band it was added to. Zeros go to the main band: they change
// no sum. They are counted there too (zeros), so that a band emptied of
// every other value is known to be, and its residue leaves (allZeros):
// a zero held must not keep the residue of large values that have left
// in the deviation of small ones, far below them. The common case — anchored, and x within the main band — is one
// exponent comparison.
//
// A huge value (see hugeExp) has no band here: band returns nil, and the
// caller takes addHuge. It neither anchors the main band nor falls in it:
// an anchor is at most anchorMax.
func (m *Moments) band(x float64) *band {
	e := int32(math.Float64bits(x) >> 52 & 0x7ff)
	if d := e - int32(m.anchor); m.anchored && d <= bandSpan && d >= -bandSpan || x == 0 {
		return &m.main
	}
	if e >= hugeExp {
		return nil
	}
	if !m.anchored {
		m.anchor, m.anchored = int16(min(e, anchorMax)), true
		return &m.main
	}
	return m.addOuter(x)
}

// hugeBand returns the band of x, huge, opening it if needed (see
// hugeExp).
func (m *Moments) hugeBand(x float64) *band {
	return m.outerBand(hugeKey + (int32(math.Float64bits(x)>>52&0x7ff)-hugeExp)/hugeWidth)
}

// addHuge is Add of a huge value: summed, scaled, in its band, counted
// as an outer value and, when squares are kept, as one whose square is
// not summed.
func (m *Moments) addHuge(x float64) {
	b := m.hugeBand(x)
	o := m.outer
	o.n++
	if !m.noSquares {
		o.big++
	}
	m.rare = true
	b.n++
	b.s, b.c = addDD(b.s, b.c, x*hugeDown)
}

// removeHuge is Remove of a huge value, which m holds with others.
func (m *Moments) removeHuge(x float64) {
	b := m.hugeBand(x)
	o := m.outer
	o.n--
	if !m.noSquares {
		o.big--
	}
	m.setRare()
	b.n--
	if b.n <= 0 {
		*b = band{}
		return
	}
	b.s, b.c = subDD(b.s, b.c, x*hugeDown)
}

// addOuter is band for a value that is not in the main band: it counts
// the value in the outer state.
func (m *Moments) addOuter(x float64) *band {
	b := m.bandOf(x)
	if b != &m.main {
		m.outer.n++
		m.rare = true
	}
	return b
}

// bandOf returns the band holding x, opening an outer band if needed.
func (m *Moments) bandOf(x float64) *band {
	if x == 0 {
		return &m.main
	}
	d := int32(math.Float64bits(x)>>52&0x7ff) - int32(m.anchor) + bandSpan
	k := d / bandWidth
	if d < 0 {
		k = (d - bandWidth + 1) / bandWidth // floor
	}
	if k == 0 {
		return &m.main
	}
	return m.outerBand(k)
}

// outerBand returns the outer band of key k, opening it if needed.
func (m *Moments) outerBand(k int32) *band {
	o := m.rareState()
	for i, ki := range o.k {
		if ki == k {
			return &o.b[i]
		}
	}
	o.k = append(o.k, k)
	o.b = append(o.b, band{})
	return &o.b[len(o.b)-1]
}

// single reports whether only the main band holds values.
func (m *Moments) single() bool { return !m.rare || m.outer.n == 0 }

// big returns the number of values held whose squares are not summed.
func (m *Moments) big() int {
	if !m.rare {
		return 0
	}
	return m.outer.big
}

// empty resets m to hold nothing, keeping its settings and the memory of
// its outer bands.
func (m *Moments) empty() {
	o := m.outer
	*m = Moments{noSquares: m.noSquares, outer: o}
	if o != nil {
		clear(o.b)
		o.n, o.big = 0, 0
	}
}

// SkipSquares stops m from keeping Σx², which only the standard
// deviation needs: Add and Remove then cost a single compensated sum, and
// Stdev reports missing. It lasts until m is used for something else; call
// it on an empty Moments.
func (m *Moments) SkipSquares() { m.noSquares = true }

// Add adds x. A non-finite x is ignored.
func (m *Moments) Add(x float64) {
	if x-x != 0 {
		return
	}
	b := m.band(x)
	if b == nil {
		m.addHuge(x)
		return
	}
	b.n++
	if x == 0 && m.zeros < maxZeros {
		m.zeros++
	}
	t := b.s + x
	d := t - b.s
	b.c += (b.s - (t - d)) + (x - d)
	b.s = t
	if m.noSquares {
		return
	}
	if int(math.Float64bits(x)>>52&0x7ff) >= bigExp {
		m.rareState().big++
		m.rare = true
		return
	}
	p := x * x
	e := math.FMA(x, x, -p)
	u := b.q + p
	d = u - b.q
	b.qc += (b.q - (u - d)) + (p - d) + e
	b.q = u
}

// Remove removes x, which must have been added. A non-finite x is ignored.
// A band that loses its last value is reset to exactly zero.
func (m *Moments) Remove(x float64) {
	if x-x != 0 {
		return
	}
	if n := m.N(); n <= 1 {
		if n == 1 {
			m.empty()
		}
		return
	}
	ex := int32(math.Float64bits(x) >> 52 & 0x7ff)
	if ex >= hugeExp {
		m.removeHuge(x)
		return
	}
	big := !m.noSquares && int(ex) >= bigExp
	if big {
		m.rareState().big--
	}
	b := &m.main
	if d := ex - int32(m.anchor); (d > bandSpan || d < -bandSpan) && x != 0 {
		if b = m.bandOf(x); b != &m.main {
			m.outer.n--
		}
	}
	if m.rare {
		m.setRare()
	}
	b.n--
	if b.n <= 0 {
		*b = band{}
		if b == &m.main {
			m.zeros = 0
		}
		return
	}
	if x == 0 {
		m.zeros = addZeros(m.zeros, 1, 0)
	} else if b == &m.main && b.n == int(m.zeros) {
		m.allZeros()
		return
	}
	t := b.s - x
	d := t - b.s
	b.c += (b.s - (t - d)) - (x + d)
	b.s = t
	if m.noSquares || big {
		return
	}
	p := x * x
	e := math.FMA(x, x, -p)
	u := b.q - p
	d = u - b.q
	b.qc += (b.q - (u - d)) - (p + d) - e
	b.q = u
}

// Reset empties m (it keeps SkipSquares).
func (m *Moments) Reset() { m.empty() }

// N returns the number of values held.
func (m *Moments) N() int {
	if !m.rare {
		return m.main.n
	}
	return m.main.n + m.outer.n
}

// totals returns Σx and Σx² over the bands, as normalised double-doubles.
//
// A band's compensation is not bounded by half an ulp of its sum: after
// values leave, the sum can be a small remainder (even zero, as -c) and
// the compensation the rounding error of larger values' arithmetic. The
// double-double operations assume normalised operands — adding the
// compensations together would swamp a small band's sum — so each band is
// renormalised first. The huge bands are left out: Stdev, the one
// caller, reads no sums while a huge value is held (its square is not
// summed), and without squares reads none at all.
func (m *Moments) totals() (s, q dd) {
	s, q = normDD(m.main.s, m.main.c), normDD(m.main.q, m.main.qc)
	if o := m.outer; o != nil {
		for i := range o.b {
			b := &o.b[i]
			if b.n == 0 || o.k[i] >= hugeKey {
				continue
			}
			s = s.add(normDD(b.s, b.c))
			q = q.add(normDD(b.q, b.qc))
		}
	}
	return s, q
}

// sumParts returns Σx over the bands, normalised as totals does: that of
// the ordinary bands, and that of the huge bands in units of 2^hugeShift
// (see hugeExp), with whether any huge band holds a value.
func (m *Moments) sumParts() (s, h dd, huge bool) {
	s = normDD(m.main.s, m.main.c)
	if o := m.outer; o != nil {
		for i := range o.b {
			b := &o.b[i]
			if b.n == 0 {
				continue
			}
			if o.k[i] >= hugeKey {
				h, huge = h.add(normDD(b.s, b.c)), true
				continue
			}
			s = s.add(normDD(b.s, b.c))
		}
	}
	return s, h, huge
}

// scaledSum returns Σx in units of 2^hugeShift from sumParts' two parts:
// the ordinary one scaled down exactly, but for bits far below those of
// any huge value, which a sum of them cannot show.
func scaledSum(s, h dd) dd {
	return h.add(dd{s.hi * hugeDown, s.lo * hugeDown})
}

// hugeSum returns Σx from sumParts' two parts in float64 units, and
// whether it is below 2^960 (so that dividing it cannot overflow either).
// Scaled down, the ordinary part would lose the bits of a small sum (to
// zero below 2^-894), which the huge values no longer hide once they
// cancel: 2^1000 and −2^1000 beside 3e-300 sum to 3e-300. A larger sum
// takes scaledSum, where the bits lost are far below its precision.
func hugeSum(s, h dd) (dd, bool) {
	t := s.add(dd{h.hi * hugeUp, h.lo * hugeUp})
	return t, math.Abs(t.hi) < 0x1p960
}

// normDD returns the double-double a + b with |lo| at most half an ulp of
// hi.
func normDD(a, b float64) dd {
	hi, lo := fastTwoSum2(a, b)
	return dd{hi, lo}
}

// fastTwoSum2 renormalises a sum and its compensation, whichever is the
// larger.
func fastTwoSum2(a, b float64) (float64, float64) {
	if math.Abs(a) < math.Abs(b) {
		a, b = b, a
	}
	return fastTwoSum(a, b)
}

// Sum returns the sum of the values; 0 when empty, NaN (a missing cell to
// the callers that write it) while they sum beyond the float64 range.
func (m *Moments) Sum() float64 {
	if m.N() == 0 {
		return 0
	}
	if m.single() {
		return m.main.s + m.main.c
	}
	s, h, huge := m.sumParts()
	if huge {
		if t, ok := hugeSum(s, h); ok {
			return t.hi
		}
		t := scaledSum(s, h)
		if x := (t.hi + t.lo) * hugeUp; x-x == 0 {
			return x
		}
		// The values held sum beyond the float64 range.
		return math.NaN()
	}
	return s.hi + s.lo
}

// Mean returns the mean of the values, or false when there are none.
func (m *Moments) Mean() (float64, bool) {
	n := m.N()
	if n == 0 {
		return 0, false
	}
	if m.single() {
		// One band: the rounded sum divided, within an ulp of the mean.
		b := &m.main
		return (b.s + b.c) / float64(n), true
	}
	s, h, huge := m.sumParts()
	if huge {
		if t, ok := hugeSum(s, h); ok {
			return t.divF(float64(n)).hi, true
		}
		// Divided in the huge bands' units: the mean of values within
		// the float64 range is within it, though their sum may not be.
		return scaledSum(s, h).divF(float64(n)).hi * hugeUp, true
	}
	return s.divF(float64(n)).hi, true
}

// ReadEach reads a run of states at once: for every i it writes the
// count, sum, mean and deviation of the state k places after ms[i] in
// its array (ms[i] itself for k = 0; ms[i] must be the first of at least
// k+1 states side by side, as a window's states in an engine's arena
// are) — [Moments.N], [Moments.Sum],
// [Moments.Mean] and [Moments.Stdev], with their results — to n[i],
// sum[i], mean[i] and sd[i] (each slice as long as ms, or nil when that
// reading is not wanted), a missing mean or deviation as NaN. An
// emission reads one output of many partitions this way: the common case
// of each state shares the readers' arithmetic, without a call. The two
// common sets of readings (the mean and the deviation; the sum and the
// mean) have loops of their own, without a check per reading.
func ReadEach(ms []*Moments, k int, n, sum, mean, sd []float64) {
	switch {
	case n == nil && sum == nil && mean != nil && sd != nil:
		readMeanSd(ms, k, mean, sd)
		return
	case n == nil && sum != nil && mean != nil && sd == nil:
		readSumMean(ms, k, sum, mean)
		return
	}
	withSd := sd != nil
	for i, m := range ms {
		m = nth(m, k)
		s, mu, dev := m.readOne(withSd)
		if n != nil {
			n[i] = float64(m.N())
		}
		if sum != nil {
			sum[i] = s
		}
		if mean != nil {
			mean[i] = mu
		}
		if withSd {
			sd[i] = dev
		}
	}
}

// readMeanSd is ReadEach of the means and deviations alone.
func readMeanSd(ms []*Moments, k int, mean, sd []float64) {
	mean, sd = mean[:len(ms)], sd[:len(ms)] // one check for the loop's indices
	for i, m := range ms {
		m = nth(m, k)
		// Without rare, the main band holds every value, none big.
		if b := &m.main; !m.rare && b.n >= 2 {
			k := float64(b.n)
			mu := (b.s + b.c) / k
			if v := (b.q+b.qc)/k - mu*mu; !m.noSquares && v > 1e-6*mu*mu && v-v == 0 {
				if v <= 1e-3*mu*mu {
					v = b.closeVar(k)
				}
				mean[i], sd[i] = mu, math.Sqrt(v)
				continue
			}
		} else if !m.rare && b.n == 0 {
			mean[i], sd[i] = math.NaN(), math.NaN() // an empty window
			continue
		}
		_, mean[i], sd[i] = m.readOne(true)
	}
}

// readSumMean is ReadEach of the sums and means alone.
func readSumMean(ms []*Moments, k int, sum, mean []float64) {
	sum, mean = sum[:len(ms)], mean[:len(ms)] // one check for the loop's indices
	for i, m := range ms {
		m = nth(m, k)
		if b := &m.main; !m.rare && b.n >= 2 {
			s := b.s + b.c
			sum[i], mean[i] = s, s/float64(b.n)
			continue
		} else if !m.rare && b.n == 0 {
			sum[i], mean[i] = 0, math.NaN() // an empty window
			continue
		}
		sum[i], mean[i], _ = m.readOne(false)
	}
}

// nth returns the state k places after m in its array.
func nth(m *Moments, k int) *Moments {
	return (*Moments)(unsafe.Add(unsafe.Pointer(m), uintptr(k)*unsafe.Sizeof(Moments{})))
}

// readOne is ReadEach's reading of one state: its sum, its mean and,
// when sd is set, its deviation (0 otherwise), a missing mean or
// deviation as NaN.
func (m *Moments) readOne(sd bool) (s, mu, dev float64) {
	okMu, okDev := true, sd
	if b := &m.main; !m.rare && b.n >= 2 {
		k := float64(b.n)
		s = b.s + b.c
		mu = s / k
		if sd {
			if v := (b.q+b.qc)/k - mu*mu; !m.noSquares && v > 1e-6*mu*mu && v-v == 0 {
				if v <= 1e-3*mu*mu {
					v = b.closeVar(k)
				}
				dev = math.Sqrt(v)
			} else {
				dev, okDev = m.Stdev()
			}
		}
	} else if !m.rare && b.n == 0 {
		okMu, okDev = false, false // an empty window: sum 0, the rest missing
	} else {
		s, mu, okMu, dev, okDev = m.readApart(sd)
	}
	if !okMu {
		mu = math.NaN()
	}
	if !okDev {
		dev = math.NaN()
	}
	return s, mu, dev
}

// readApart is a reading through the three readers.
func (m *Moments) readApart(sd bool) (sum, mean float64, okMean bool, dev float64, okDev bool) {
	sum = m.Sum()
	mean, okMean = m.Mean()
	if sd {
		dev, okDev = m.Stdev()
	}
	return sum, mean, okMean, dev, okDev
}

// Stdev returns the population standard deviation of the values (dividing
// by n): false when there are none or when it is not finite, 0 for one
// value.
func (m *Moments) Stdev() (float64, bool) {
	if m.noSquares || m.big() > 0 {
		return 0, false
	}
	switch m.N() {
	case 0:
		return 0, false
	case 1:
		return 0, true
	}
	n := float64(m.N())
	var s, q dd
	if m.single() {
		b := &m.main
		// The common case in float64: when the variance is not small
		// against the squared mean (Σx²/n − mean² does not cancel to
		// less than 1e-3 of mean²), the few ulps of mean² the
		// subtraction loses are under 1e-12 of it; down to 1e-6 the
		// roundings are taken back (closeVar); below, finish in
		// double-double.
		mean := (b.s + b.c) / n
		v := (b.q+b.qc)/n - mean*mean
		if v > 1e-6*mean*mean && v-v == 0 {
			if v <= 1e-3*mean*mean {
				v = b.closeVar(n)
			}
			return math.Sqrt(v), true
		}
		s.hi, s.lo = fastTwoSum2(b.s, b.c)
		q.hi, q.lo = fastTwoSum2(b.q, b.qc)
	} else {
		s, q = m.totals()
	}
	s2 := s.sqr()
	d := q.mulF(n).sub(s2)
	// A spread below 2^-50 of the mean (a few ulps of the values) is what
	// the rounding residue of inexact values looks like: report it as 0.
	if !(d.hi > 0x1p-100*s2.hi) {
		if d.hi-d.hi != 0 {
			return 0, false
		}
		return 0, true
	}
	sd := d.sqrt().divF(n).hi
	if sd-sd != 0 {
		return 0, false
	}
	return sd, true
}

// AddSlots adds n values stored as float64 bits in slots, at off,
// off+stride, …: the column of a row-major block. Missing values (NaN)
// are skipped. It is Add in a loop, with the sums of the main band kept
// in registers across the run and split over two lanes, so that a run
// costs a fraction of the calls.
func (m *Moments) AddSlots(slots []uint64, off, stride, n int) {
	m.slots(slots, off, stride, n, false)
}

// RemoveSlots removes n values stored as in [Moments.AddSlots].
func (m *Moments) RemoveSlots(slots []uint64, off, stride, n int) {
	m.slots(slots, off, stride, n, true)
}

func (m *Moments) slots(slots []uint64, off, stride, n int, remove bool) {
	if n <= 0 {
		return
	}
	_ = slots[off+(n-1)*stride]
	if n <= 4 || remove && (m.N() <= n || !m.anchored) {
		// A short run, possibly emptying it, or leaving a state with no
		// band anchored (it holds zeros or huge values alone): go value
		// by value.
		m.slotsSlow(slots, off, stride, n, remove)
		return
	}
	for !m.anchored && n > 0 {
		// The first value anchors the main band (an addition: see
		// above).
		m.Add(math.Float64frombits(slots[off]))
		off += stride
		n--
	}
	if n == 0 {
		return
	}
	if m.runFast(slots, off, stride, n, remove) {
		return
	}
	b := &m.main
	sign := 1.0
	if remove {
		sign = -1
	}
	// Two lanes of double-double sums, merged into the band at the end;
	// a value outside the main band goes the one-by-one way.
	var l0, l1 lane
	lo, hi := int(m.anchor)-bandSpan, min(int(m.anchor)+bandSpan, m.squareLimit()-1)
	sq := !m.noSquares
	end := off + n*stride
	zeros := 0
	for i, r := off, 0; i < end; i, r = i+stride, r+1 {
		bits := slots[i]
		x := math.Float64frombits(bits)
		if x-x != 0 {
			continue // missing
		}
		if e := int(bits >> 52 & 0x7ff); (e < lo || e > hi) && x != 0 {
			if remove {
				m.Remove(x)
			} else {
				m.Add(x)
			}
			continue
		}
		if x == 0 {
			zeros++
		}
		x *= sign
		l := &l0
		if r&1 != 0 {
			l = &l1
		}
		l.k++
		t := l.s + x
		d := t - l.s
		l.c += (l.s - (t - d)) + (x - d)
		l.s = t
		if sq {
			p := x * x
			pe := math.FMA(x, x, -p)
			u := l.q + p
			d = u - l.q
			l.qc += (l.q - (u - d)) + (p - d) + pe
			l.q = u
		}
	}
	k := l0.k + l1.k
	if k == 0 {
		return
	}
	if remove {
		b.n -= k
		m.zeros = addZeros(m.zeros, zeros, 0)
		if b.n <= 0 {
			*b = band{}
			m.zeros = 0
			if m.N() <= 0 {
				m.empty()
			}
			return
		}
		if b.n == int(m.zeros) {
			m.allZeros()
			return
		}
	} else {
		b.n += k
		m.zeros = addZeros(m.zeros, 0, zeros)
	}
	t, e := twoSum(b.s, l0.s)
	b.c += e + l0.c
	t, e = twoSum(t, l1.s)
	b.s, b.c = t, b.c+e+l1.c
	if m.noSquares {
		return
	}
	if remove {
		// The squares were summed with a plus sign; take them away.
		l0.q, l0.qc, l1.q, l1.qc = -l0.q, -l0.qc, -l1.q, -l1.qc
	}
	t, e = twoSum(b.q, l0.q)
	b.qc += e + l0.qc
	t, e = twoSum(t, l1.q)
	b.q, b.qc = t, b.qc+e+l1.qc
}

// lane is one lane of a run's double-double sums.
type lane struct {
	k           int
	s, c, q, qc float64
}

// runFast is the common case of a run: every value present and inside the
// main band. It sums the run without a branch per value — two lanes of
// double-double sums, and the smallest and largest exponent seen — and
// checks afterwards: a missing value turns a lane into NaN, an exponent
// outside the band shows in the extremes. Then it reports false having
// changed nothing, and the caller takes the careful path.
//
// A zero, of exponent 0, falls outside: the band's lowest exponent is
// taken as at least 1, so that zeros are counted on the careful path.
func (m *Moments) runFast(slots []uint64, off, stride, n int, remove bool) bool {
	lo, hi := uint64(max(1, int(m.anchor)-bandSpan)), uint64(min(int(m.anchor)+bandSpan, m.squareLimit()-1))
	sq := !m.noSquares
	// Whole groups of four rows go to the vector kernel, when there is
	// one; the rest to the two scalar lanes below.
	var vec fsum.Sum
	done, outside := fsum.Run(slots, off, stride, n, sq, lo, hi, &vec)
	if outside {
		return false
	}
	var s0, c0, q0, qc0, s1, c1, q1, qc1 float64
	minE, maxE := uint64(0x7ff), uint64(0)
	end := off + n*stride
	i := off + done*stride
	for ; i+stride < end; i += 2 * stride {
		b0, b1 := slots[i], slots[i+stride]
		x0, x1 := math.Float64frombits(b0), math.Float64frombits(b1)
		e0, e1 := b0>>52&0x7ff, b1>>52&0x7ff
		minE = min(minE, e0, e1)
		maxE = max(maxE, e0, e1)
		t0 := s0 + x0
		d0 := t0 - s0
		c0 += (s0 - (t0 - d0)) + (x0 - d0)
		s0 = t0
		t1 := s1 + x1
		d1 := t1 - s1
		c1 += (s1 - (t1 - d1)) + (x1 - d1)
		s1 = t1
		if sq {
			p0, p1 := x0*x0, x1*x1
			pe0, pe1 := math.FMA(x0, x0, -p0), math.FMA(x1, x1, -p1)
			u0 := q0 + p0
			d0 = u0 - q0
			qc0 += (q0 - (u0 - d0)) + (p0 - d0) + pe0
			q0 = u0
			u1 := q1 + p1
			d1 = u1 - q1
			qc1 += (q1 - (u1 - d1)) + (p1 - d1) + pe1
			q1 = u1
		}
	}
	if i < end {
		b0 := slots[i]
		x0 := math.Float64frombits(b0)
		e0 := b0 >> 52 & 0x7ff
		minE = min(minE, e0)
		maxE = max(maxE, e0)
		t0 := s0 + x0
		d0 := t0 - s0
		c0 += (s0 - (t0 - d0)) + (x0 - d0)
		s0 = t0
		if sq {
			p0 := x0 * x0
			pe0 := math.FMA(x0, x0, -p0)
			u0 := q0 + p0
			d0 = u0 - q0
			qc0 += (q0 - (u0 - d0)) + (p0 - d0) + pe0
			q0 = u0
		}
	}
	// A zero has exponent 0, below lo: the careful path counts it.
	if minE < lo || maxE > hi || s0-s0 != 0 || s1-s1 != 0 || q0-q0 != 0 || q1-q1 != 0 {
		return false
	}
	if vec.S-vec.S != 0 || vec.Q-vec.Q != 0 {
		return false
	}
	b := &m.main
	if remove {
		if b.n-int(m.zeros) <= n { // the main band might keep zeros alone
			return false
		}
		s0, c0, s1, c1 = -s0, -c0, -s1, -c1
		q0, qc0, q1, qc1 = -q0, -qc0, -q1, -qc1
		vec.S, vec.C, vec.Q, vec.QC = -vec.S, -vec.C, -vec.Q, -vec.QC
		b.n -= n
	} else {
		b.n += n
	}
	t, e := twoSum(b.s, s0)
	b.c += e + c0
	t, e = twoSum(t, s1)
	b.s, b.c = t, b.c+e+c1
	if done > 0 {
		t, e = twoSum(b.s, vec.S)
		b.s, b.c = t, b.c+e+vec.C
	}
	if sq {
		t, e = twoSum(b.q, q0)
		b.qc += e + qc0
		t, e = twoSum(t, q1)
		b.q, b.qc = t, b.qc+e+qc1
		if done > 0 {
			t, e = twoSum(b.q, vec.Q)
			b.q, b.qc = t, b.qc+e+vec.QC
		}
	}
	return true
}

func (m *Moments) slotsSlow(slots []uint64, off, stride, n int, remove bool) {
	for r := 0; r < n; r++ {
		x := math.Float64frombits(slots[off+r*stride])
		if remove {
			m.Remove(x)
		} else {
			m.Add(x)
		}
	}
}
