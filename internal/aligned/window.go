package aligned

import (
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// winState is one window of one partition: the ring of its panes
// [base, base+n), and its running aggregate over the closed panes
// [base, hi) — what the window at the next boundary holds but for the
// panes still open.
type winState struct {
	// What a closing reads and writes, first, so that it touches few
	// cache lines.
	ring      []uint64 // cap panes of stride words: the sums, extremes, firsts and lasts
	cring     []uint32 // cap panes of nCounts counts
	cap, head int      // panes; ring slot of pane base
	n         int      // panes held
	base, hi  int64    // pane indices
	rows      int64    // when the plan keeps the row count
	lastRow   int64    // the latest closed pane with a row (noPane: none)
	ns        []int64
	sums      [][4]float64 // s, c, q, qc per Moments (without squares: s, c, peak, low word used; see fadeRatio)
	// qpeak is, per Moments keeping Σx², the largest Σx² its running
	// sums have held since they were last summed from the panes (see
	// spreadFaded); nil without such a Moments.
	qpeak      []float64
	curS, curE int64 // time range of the cached pane
	curK       int64 // its index
	curSlot    int   // its ring slot
	rebuild    bool
	// Sums in units of 2^128 (see hugeValue): whether some Moments' sums
	// are, and how many panes' Σx are (their marks in marks). Beside
	// rebuild, in its word's padding.
	sumsScaled bool
	nScaled    int32
	raw        rawRows
	cnts       []int64
	exts       []reducers.Extreme
	fp, lp     []int64 // pane of the first and last present value of each first/last slot; none when < base or ≥ hi
	gen        []reducers.Window
	marks      *hugeMarks // nil until a huge value comes
}

// held reports whether the window holds a row: one of its panes
// [base, hi) has one.
func (ws *winState) held(wp *winPlan) bool {
	if wp.hasRows {
		return ws.rows > 0
	}
	return ws.lastRow >= ws.base
}

// noPane marks a first/last pointer without a pane.
const noPane = math.MinInt64

// seqOf maps a pane index to an increasing arrival number for
// reducers.Extreme.
func seqOf(k int64) uint64 { return uint64(k) ^ 1<<63 }

// paneOf returns the index of the pane of width w (a divisor of the step)
// that holds time t: floor((t − anchor) / w). A pane's bounds are
// reckoned from it by whole panes (a span and a step are multiples of w),
// never by subtracting a span from a time: with the anchor in [0, step)
// and t a time of the range, a boundary within a step of it or the end
// of time, t − anchor cannot overflow, where t − span − anchor can.
func (p *Plan) paneOf(t, w int64) int64 { return floorDiv(t-p.anchor, w) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (p *Plan) newWin(wp *winPlan) winState {
	ws := winState{
		ns:   make([]int64, len(wp.moments)),
		cnts: make([]int64, len(wp.counts)),
		sums: make([][4]float64, len(wp.moments)),
		exts: make([]reducers.Extreme, len(wp.exts)),
		fp:   make([]int64, len(wp.fls)),
		lp:   make([]int64, len(wp.fls)),
	}
	for i, e := range wp.exts {
		if e.max {
			ws.exts[i].SetMax()
		}
	}
	for _, m := range wp.moments {
		if m.squares && !wp.single {
			ws.qpeak = make([]float64, len(wp.moments))
			break
		}
	}
	for i := range ws.fp {
		ws.fp[i], ws.lp[i] = noPane, noPane
	}
	ws.raw.stride = len(wp.rawSlots)
	ws.raw.times = wp.rawTimes
	for _, r := range wp.raws {
		// The rolling plan checked every reducer against its column.
		ws.gen = append(ws.gen, reducers.NewWindow(r.red))
	}
	return ws
}

// reset empties the window and places its ring at pane base.
func (ws *winState) reset(wp *winPlan, base, hi int64) {
	ws.head, ws.n, ws.base, ws.hi = 0, 0, base, hi
	ws.clearAcc()
	for i := range ws.exts {
		ws.exts[i].Reset()
	}
	for i := range ws.fp {
		ws.fp[i], ws.lp[i] = noPane, noPane
	}
	ws.raw.clear()
	ws.curS, ws.curE = 0, 0
	if ws.marks != nil {
		clear(ws.marks.scaled)
		ws.nScaled = 0
	}
}

func (ws *winState) clearAcc() {
	ws.rows, ws.lastRow = 0, noPane
	clear(ws.ns)
	clear(ws.cnts)
	clear(ws.sums)
	clear(ws.qpeak)
	ws.rebuild = false
	if ws.marks != nil {
		clear(ws.marks.sumScaled)
	}
	ws.sumsScaled = false
}

// pane returns the ring slot of pane k, extending the ring to it; -1
// when k is before the ring (a row no window will hold).
func (ws *winState) pane(wp *winPlan, k int64) int {
	if k < ws.base {
		return -1
	}
	d := k - ws.base
	if d < 0 || d > wp.maxRing {
		// Beyond any window a valid stream can reach (times at the ends
		// of the range): no window will hold the row.
		return -1
	}
	if d >= int64(ws.n) {
		need := int(d) + 1
		if need > ws.cap {
			ws.grow(wp, need)
		}
		for j := ws.n; j < need; j++ {
			r, c := ws.rec(wp, ws.slot(j))
			initPane(wp, r, c)
		}
		ws.n = need
	}
	return ws.slot(int(d))
}

// paneFresh returns the ring slot of pane k as pane does and, when the
// pane is made just now right after the ring's last (fresh), leaves its
// record for the caller to write whole.
func (ws *winState) paneFresh(wp *winPlan, k int64) (int, bool) {
	if d := k - ws.base; d >= 0 && d == int64(ws.n) && ws.n < ws.cap && d <= wp.maxRing {
		ws.n++
		return ws.slot(int(d)), true
	}
	return ws.pane(wp, k), false
}

// rec returns the pane record in ring slot s: its words and its counts.
func (ws *winState) rec(wp *winPlan, s int) ([]uint64, []uint32) {
	return ws.ring[s*wp.stride : (s+1)*wp.stride : (s+1)*wp.stride], ws.cring[s*wp.nCounts : (s+1)*wp.nCounts : (s+1)*wp.nCounts]
}

// recOf returns the record of pane k, which the ring holds.
func (ws *winState) recOf(wp *winPlan, k int64) ([]uint64, []uint32) {
	return ws.rec(wp, ws.slot(int(k-ws.base)))
}

func (ws *winState) slot(d int) int {
	i := ws.head + d
	if i >= ws.cap {
		i -= ws.cap
	}
	return i
}

// grow makes room for need panes, keeping their order.
func (ws *winState) grow(wp *winPlan, need int) {
	c := max(need, ws.cap+ws.cap/8, int(wp.span/wp.width))
	ring, cring := make([]uint64, c*wp.stride), make([]uint32, c*wp.nCounts)
	var scaled []bool
	if ws.marks != nil {
		scaled = make([]bool, c*len(wp.moments))
	}
	for j := range ws.n {
		r, cs := ws.rec(wp, ws.slot(j))
		copy(ring[j*wp.stride:], r)
		copy(cring[j*wp.nCounts:], cs)
		if scaled != nil {
			nm := len(wp.moments)
			copy(scaled[j*nm:(j+1)*nm], ws.marks.scaled[ws.slot(j)*nm:])
		}
	}
	ws.ring, ws.cring, ws.cap, ws.head = ring, cring, c, 0
	if ws.marks != nil {
		ws.marks.scaled = scaled
	}
	ws.curS, ws.curE = 0, 0
}

// initPane makes a pane record empty.
func initPane(wp *winPlan, r []uint64, c []uint32) {
	clear(c)
	clear(r[:wp.offExt])
	nan := math.Float64bits(math.NaN())
	for i := range wp.exts {
		r[wp.offExt+i] = nan
	}
	for i := range wp.fls {
		f := r[wp.offFL+4*i:][:4]
		f[0], f[1], f[2], f[3] = uint64(math.MaxInt64), 0, 1<<63, 0
	}
}

// countMax is where a pane's counts saturate (2^31 − 1 rows in one pane
// of one partition); the top bit of the first count is the pane's
// non-empty flag.
const countMax = 1<<31 - 1

func count(c []uint32, i int) int64 { return int64(c[i] & countMax) }

// incCount adds one to count i, saturating.
func incCount(c []uint32, i int) {
	if c[i]&countMax != countMax {
		c[i]++
	}
}

// markRow sets the pane's non-empty flag.
func markRow(c []uint32) { c[0] |= 1 << 31 }

// hasRow reports the pane's non-empty flag.
func hasRow(c []uint32) bool { return c[0]>>31 != 0 }

// addRow adds row row of enc, at time t, to the pane in ring slot s.
func (p *Plan) addRow(wp *winPlan, ws *winState, s int, t int64, enc [][]uint64, row int) {
	r, cs := ws.rec(wp, s)
	markRow(cs)
	if wp.hasRows {
		incCount(cs, 0)
	}
	for i := range wp.moments {
		m := &wp.moments[i]
		x := math.Float64frombits(enc[m.slot-1][row])
		if math.IsInf(x, 0) || x != x {
			continue
		}
		if !m.isRows {
			incCount(cs, m.nIdx)
		}
		f := r[m.off:]
		if isHuge(x) || ws.nScaled > 0 && ws.paneScaled(wp, s, i) {
			ws.addScaledRow(wp, s, i, x)
			continue
		}
		s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
		if m.squares {
			q, qc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
			if math.Abs(x) >= bigSquare || math.IsInf(q, 1) {
				ddAdd(&s, &c, x, 0)
				q, qc = math.Inf(1), 0
			} else {
				addSquare(&s, &c, &q, &qc, x)
			}
			f[2], f[3] = math.Float64bits(q), math.Float64bits(qc)
		} else {
			ddAdd(&s, &c, x, 0)
		}
		f[0], f[1] = math.Float64bits(s), math.Float64bits(c)
	}
	for i, cp := range wp.counts {
		if p.present(cp.slot, enc[cp.slot-1][row]) {
			incCount(cs, wp.cnt0+i)
		}
	}
	for i, e := range wp.exts {
		x := math.Float64frombits(enc[e.slot-1][row])
		if x != x {
			continue
		}
		cur := math.Float64frombits(r[wp.offExt+i])
		if cur != cur || e.max && x > cur || !e.max && x < cur {
			r[wp.offExt+i] = math.Float64bits(x)
		}
	}
	for i, s := range wp.fls {
		bits := enc[s-1][row]
		if !p.present(s, bits) {
			continue
		}
		f := r[wp.offFL+4*i:][:4]
		if t < int64(f[0]) {
			f[0], f[1] = uint64(t), bits
		}
		if t >= int64(f[2]) {
			f[2], f[3] = uint64(t), bits
		}
	}
}

// present reports whether an encoded slot holds a value (for a number:
// not NaN).
func (p *Plan) present(slot int, bits uint64) bool {
	if p.kinds[slot-1] == schema.Number {
		x := math.Float64frombits(bits)
		return x == x
	}
	return bits != 0
}

// enter adds closed pane k (in the ring) to the window's aggregate.
func (ws *winState) enter(wp *winPlan, k int64) {
	r, cs := ws.recOf(wp, k)
	ws.enterRec(wp, k, r, cs)
}

// enterRec is enter of pane k, whose record is r, cs.
func (ws *winState) enterRec(wp *winPlan, k int64, r []uint64, cs []uint32) {
	if wp.hasRows {
		ws.rows += count(cs, 0)
	}
	if hasRow(cs) {
		ws.lastRow = k
	}
	// Each Moments' count, and its sums (not for a window of one pane,
	// which reads its pane's), in one loop.
	ns, sums := ws.ns[:len(wp.moments)], ws.sums[:len(wp.moments)]
	for i := range wp.moments {
		m := &wp.moments[i]
		ns[i] += count(cs, m.nIdx)
		if wp.single {
			continue
		}
		a := &sums[i]
		if m.squares {
			f := r[m.off : m.off+4]
			ddAdd(&a[0], &a[1], math.Float64frombits(f[0]), math.Float64frombits(f[1]))
			ddAdd(&a[2], &a[3], math.Float64frombits(f[2]), math.Float64frombits(f[3]))
			ws.qpeak[i] = max(ws.qpeak[i], a[2])
		} else {
			f := r[m.off : m.off+2]
			ddAdd(&a[0], &a[1], math.Float64frombits(f[0]), math.Float64frombits(f[1]))
			if notePeak(a) {
				ws.rebuild = true
			}
		}
	}
	for i := range wp.counts {
		ws.cnts[i] += count(cs, wp.cnt0+i)
	}
	if !wp.single {
		for i := range wp.exts {
			ws.exts[i].Add(seqOf(k), math.Float64frombits(r[wp.offExt+i]))
		}
	}
	for i := range wp.fls {
		if int64(r[wp.offFL+4*i]) != math.MaxInt64 {
			if ws.fp[i] == noPane {
				ws.fp[i] = k
			}
			ws.lp[i] = k
		}
	}
}

// ddWords returns the double-double in words off and off+1 of r as
// float64s, which load straight into floating-point registers.
func ddWords(r []uint64, off int) *[2]float64 {
	return (*[2]float64)(unsafe.Pointer((*[2]uint64)(r[off : off+2])))
}

// addSums adds (sign 1) or subtracts (sign −1) a pane's sums.
func (ws *winState) addSums(wp *winPlan, r []uint64, sign float64) {
	for i := range wp.moments {
		m := &wp.moments[i]
		f := r[m.off:]
		a := &ws.sums[i]
		ddAdd(&a[0], &a[1], sign*math.Float64frombits(f[0]), sign*math.Float64frombits(f[1]))
		if m.squares {
			ddAdd(&a[2], &a[3], sign*math.Float64frombits(f[2]), sign*math.Float64frombits(f[3]))
		} else {
			notePeak(a)
		}
	}
}

// leave removes the oldest pane, base, from the ring and the aggregate
// (when it is in it).
func (ws *winState) leave(wp *winPlan) {
	k := ws.base
	if ws.n > 0 && k < ws.hi {
		r, cs := ws.rec(wp, ws.head)
		if wp.hasRows {
			ws.rows -= count(cs, 0)
		}
		for i := range wp.counts {
			ws.cnts[i] -= count(cs, wp.cnt0+i)
		}
		ns, sums := ws.ns[:len(wp.moments)], ws.sums[:len(wp.moments)]
		for i := range wp.moments {
			m := &wp.moments[i]
			pn := count(cs, m.nIdx)
			if pn == 0 {
				continue
			}
			ns[i] -= pn
			if wp.single {
				continue // no running sums
			}
			a := &sums[i]
			f := ddWords(r, m.off)
			ps := f[0]
			switch {
			case ns[i] == 0:
				a[0], a[1], a[2], a[3] = 0, 0, 0, 0
				if m.squares {
					ws.qpeak[i] = 0
				}
				continue
			case ps-ps != 0 || a[0]-a[0] != 0: // x−x is 0 for a finite x, NaN for NaN and ±Inf
				ws.rebuild = true
			case m.squares:
				// An outlier: the pane's Σx² dwarfs what stays. Σx² is
				// the two words (never renormalised, its high word
				// alone can be off by far more than what stays).
				pq := ddWords(r, m.off+2)[0]
				if pq-pq != 0 || a[2]-a[2] != 0 || pq > 0x1p20*((a[2]-pq)+a[3]) {
					ws.rebuild = true
				}
			}
			ddAdd(&a[0], &a[1], -ps, -f[1])
			if m.squares {
				g := ddWords(r, m.off+2)
				ddAdd(&a[2], &a[3], -g[0], -g[1])
				if pk := ws.qpeak[i]; !ws.rebuild && pk > 2*(a[2]+a[3]) && spreadFaded(a, ns[i], pk) {
					ws.rebuild = true
				}
			} else if notePeak(a) {
				// The sums of the panes that stay were rounded away
				// beside a larger one (see fadeRatio).
				ws.rebuild = true
			}
		}
	}
	if ws.n > 0 {
		ws.head = ws.slot(1)
		ws.n--
	}
	ws.base++
	ws.curS, ws.curE = 0, 0
}

// resum sums the window's closed panes again, after an outlier or an
// overflow left it.
func (ws *winState) resum(wp *winPlan) {
	clear(ws.sums)
	if ws.nScaled > 0 || ws.sumsScaled {
		ws.resumScaled(wp)
		return
	}
	for k := ws.base; k < ws.hi && k < ws.base+int64(ws.n); k++ {
		r, _ := ws.recOf(wp, k)
		ws.addSums(wp, r, 1)
	}
	ws.notePeaks()
	ws.rebuild = false
}

// notePeaks starts the peaks of Σx² afresh from the running sums, after
// they were summed from the panes.
func (ws *winState) notePeaks() {
	for i := range ws.qpeak {
		ws.qpeak[i] = ws.sums[i][2]
	}
}

// onePane returns the record of the one pane of a window of one pane
// (wp.single) at the boundary the window has closed to, pane hi − 1; nil
// when the ring does not hold it (the window is empty).
func (ws *winState) onePane(wp *winPlan) []uint64 {
	k := ws.hi - 1
	if k < ws.base || k >= ws.base+int64(ws.n) {
		return nil
	}
	r, _ := ws.recOf(wp, k)
	return r
}

// sumsOf returns Moments i's sums over the window (Σx as s + c, Σx² as
// q + qc): the running ones, or for a window of one pane, the pane's own
// (pane from onePane; zeros when nil).
func (ws *winState) sumsOf(wp *winPlan, i int, pane []uint64) (s, c, q, qc float64) {
	if !wp.single {
		a := &ws.sums[i]
		return a[0], a[1], a[2], a[3]
	}
	if pane == nil {
		return 0, 0, 0, 0
	}
	m := &wp.moments[i]
	f := pane[m.off:]
	s, c = math.Float64frombits(f[0]), math.Float64frombits(f[1])
	if m.squares {
		q, qc = math.Float64frombits(f[2]), math.Float64frombits(f[3])
	}
	return s, c, q, qc
}

// extremeOf returns extreme i over the window: the deque's front, or
// for a window of one pane, the pane's own (pane from onePane).
func (ws *winState) extremeOf(wp *winPlan, i int, pane []uint64) (float64, bool) {
	if !wp.single {
		return ws.exts[i].Value()
	}
	if pane == nil {
		return 0, false
	}
	x := math.Float64frombits(pane[wp.offExt+i])
	return x, x == x
}
