package aligned

import (
	"math"

	"github.com/pond-go/pond/internal/fsum"
)

// The bulk path: a partition's pending rows, row-major (the time, then
// each slot), are added to each window's panes a run at a time (the rows
// of a run fall in one pane), each sum accumulated in registers over the
// run and stored once.

// inRows is a partition's pending rows: n rows of w words, word 0 the
// time and word s slot s.
type inRows struct {
	buf []uint64
	w   int
}

func (in inRows) len() int                   { return len(in.buf) / in.w }
func (in inRows) time(r int) int64           { return int64(in.buf[r*in.w]) }
func (in inRows) at(r, s int) uint64         { return in.buf[r*in.w+s] }
func (in inRows) rows(from, to int) []uint64 { return in.buf[from*in.w : to*in.w] }

// addCount adds n to count i, saturating.
func addCount(c []uint32, i int, n int64) {
	cur := int64(c[i] & countMax)
	if cur+n > countMax {
		n = countMax - cur
	}
	c[i] += uint32(n)
}

// runSums is the sums of one slot over one run of rows, kept while the
// partition's rows are added so that windows of the same pane width (the
// same runs) sum a column once.
type runSums struct {
	from, to, slot int
	squares        bool
	s, c, q, qc    float64
	h              [2]float64 // the lane: Σx of the huge values, in units of 2^128 (see hugeValue)
	n              int64
}

// sumsCache holds the runs' sums computed by one addRows call.
type sumsCache struct {
	e [4]runSums
	n int
}

// get returns the sums of slot over rows [from, to), computing them if
// no entry has them (squares: with Σx²).
func (sc *sumsCache) get(rows []uint64, w, slot, from, to int, squares bool) *runSums {
	for i := range sc.n {
		if e := &sc.e[i]; e.from == from && e.to == to && e.slot == slot && (e.squares || !squares) {
			return e
		}
	}
	e := &sc.e[sc.n%len(sc.e)]
	sc.n = min(sc.n+1, len(sc.e))
	*e = runSums{from: from, to: to, slot: slot, squares: squares}
	var f [4]uint64
	n, done := runVector(&f, rows, w, slot, squares)
	if squares {
		n += addSquares(f[:], &e.h, rows[done*w:], w, slot)
	} else {
		n += addSums(f[:2], &e.h, rows[done*w:], w, slot)
	}
	e.n = n
	e.s, e.c = math.Float64frombits(f[0]), math.Float64frombits(f[1])
	e.q, e.qc = math.Float64frombits(f[2]), math.Float64frombits(f[3])
	return e
}

// Biased exponents of the values the vector kernel may sum: those below
// hugeValue (2^960, exponent 1983), and with squares those below
// bigSquare (2^500, exponent 1523).
const (
	vecMaxExp   = 1982
	vecMaxSqExp = 1522
)

// runVector sums slot s of the whole groups of four rows at the front of
// rows (w words a row) with the vector kernel into f (Σx in f[0] + f[1],
// with squares Σx² in f[2] + f[3]), when the kernel is available and
// every one of their values is finite (and, with squares, below
// bigSquare). It returns the number of values summed and of rows taken
// (equal: all of them present); 0 and 0, f untouched, otherwise, and the
// caller sums the rows one by one.
func runVector(f *[4]uint64, rows []uint64, w, s int, squares bool) (n int64, done int) {
	hi := uint64(vecMaxExp)
	if squares {
		hi = vecMaxSqExp
	}
	var l fsum.Sum
	done, outside := fsum.Run(rows, s, w, len(rows)/w, squares, 0, hi, &l)
	if outside || done == 0 {
		return 0, 0
	}
	f[0], f[1] = math.Float64bits(l.S), math.Float64bits(l.C)
	if squares {
		f[2], f[3] = math.Float64bits(l.Q), math.Float64bits(l.QC)
	}
	return int64(done), done
}

// addRun adds rows [from, to) of in, all in the pane in ring slot s.
func (p *Plan) addRun(wp *winPlan, ws *winState, s int, in inRows, from, to int, sc *sumsCache) {
	r, cs := ws.rec(wp, s)
	markRow(cs)
	if wp.hasRows {
		addCount(cs, 0, int64(to-from))
	}
	rows, w := in.rows(from, to), in.w
	for i := range wp.moments {
		m := &wp.moments[i]
		f := r[m.off:]
		e := sc.get(rows, w, m.slot, from, to, m.squares)
		if e.h != [2]float64{} || ws.nScaled > 0 && ws.paneScaled(wp, s, i) {
			ws.mergeRunScaled(wp, s, i, e.h[0], e.h[1], e.s, e.c)
		} else {
			ps, pc := math.Float64frombits(f[0]), math.Float64frombits(f[1])
			ddAdd(&ps, &pc, e.s, e.c)
			f[0], f[1] = math.Float64bits(ps), math.Float64bits(pc)
		}
		if m.squares {
			pq, pqc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
			if math.IsInf(e.q, 1) || math.IsInf(pq, 1) {
				pq, pqc = math.Inf(1), 0 // a value whose square is not summed (bigSquare)
			} else {
				ddAdd(&pq, &pqc, e.q, e.qc)
			}
			f[2], f[3] = math.Float64bits(pq), math.Float64bits(pqc)
		}
		if !m.isRows {
			addCount(cs, m.nIdx, e.n)
		}
	}
	for i, cp := range wp.counts {
		n := int64(0)
		for j := cp.slot; j < len(rows); j += w {
			if b := rows[j]; cp.number && math.Float64frombits(b) == math.Float64frombits(b) || !cp.number && b != 0 {
				n++
			}
		}
		addCount(cs, wp.cnt0+i, n)
	}
	for i := 0; i < len(wp.exts); i++ {
		e := wp.exts[i]
		cur := math.Float64frombits(r[wp.offExt+i])
		if i+1 < len(wp.exts) && wp.exts[i+1].slot == e.slot && wp.exts[i+1].max != e.max {
			// A min and a max of one slot, side by side: one pass.
			other := math.Float64frombits(r[wp.offExt+i+1])
			lo, hi := cur, other
			if e.max {
				lo, hi = other, cur
			}
			for j := e.slot; j < len(rows); j += w {
				x := math.Float64frombits(rows[j])
				if x < lo || lo != lo {
					lo = x
				}
				if x > hi || hi != hi {
					hi = x
				}
			}
			if e.max {
				lo, hi = hi, lo
			}
			r[wp.offExt+i], r[wp.offExt+i+1] = math.Float64bits(lo), math.Float64bits(hi)
			i++
			continue
		}
		if e.max {
			for j := e.slot; j < len(rows); j += w {
				if x := math.Float64frombits(rows[j]); x > cur || cur != cur {
					cur = x
				}
			}
		} else {
			for j := e.slot; j < len(rows); j += w {
				if x := math.Float64frombits(rows[j]); x < cur || cur != cur {
					cur = x
				}
			}
		}
		r[wp.offExt+i] = math.Float64bits(cur)
	}
	for i, sl := range wp.fls {
		fl := r[wp.offFL+4*i:][:4]
		for j := 0; j < len(rows); j += w {
			bits := rows[j+sl]
			if !p.present(sl, bits) {
				continue
			}
			t := int64(rows[j])
			if t < int64(fl[0]) {
				fl[0], fl[1] = uint64(t), bits
			}
			if t >= int64(fl[2]) {
				fl[2], fl[3] = uint64(t), bits
			}
		}
	}
}

// addSums adds the finite values of slot s of rows (w words a row) to
// the double-double f[0] + f[1], the huge ones to the lane h in units of
// 2^128 (see hugeValue), and returns how many there were.
func addSums(f []uint64, h *[2]float64, rows []uint64, w, s int) int64 {
	sum, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
	n := int64(0)
	for j := s; j < len(rows); j += w {
		x := math.Float64frombits(rows[j])
		if !(math.Abs(x) < hugeValue) {
			if x-x == 0 {
				n++
				addScaled(&h[0], &h[1], x)
			}
			continue // NaN or ±Inf: missing
		}
		hi := sum + x
		bb := hi - sum
		c += (sum - (hi - bb)) + (x - bb)
		sum = hi
		n++
	}
	f[0], f[1] = math.Float64bits(sum), math.Float64bits(c)
	return n
}

// addSquares adds the finite values of slot s of rows (w words a row) to
// Σx (f[0] + f[1]), the huge ones to the lane h as addSums does, and
// their squares to Σx² (f[2] + f[3]), marking Σx² infinite for a value
// whose square is not summed (see bigSquare); it returns how many there
// were.
func addSquares(f []uint64, h *[2]float64, rows []uint64, w, s int) int64 {
	sum, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
	q, qc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
	big := math.IsInf(q, 1)
	n := int64(0)
	for j := s; j < len(rows); j += w {
		x := math.Float64frombits(rows[j])
		if x-x != 0 {
			continue
		}
		n++
		if isHuge(x) {
			big = true
			addScaled(&h[0], &h[1], x)
			continue
		}
		hi := sum + x
		bb := hi - sum
		c += (sum - (hi - bb)) + (x - bb)
		sum = hi
		if math.Abs(x) >= bigSquare {
			big = true
			continue
		}
		q, qc = addSq(q, qc, x)
	}
	if big {
		q, qc = math.Inf(1), 0
	}
	f[0], f[1] = math.Float64bits(sum), math.Float64bits(c)
	f[2], f[3] = math.Float64bits(q), math.Float64bits(qc)
	return n
}

// addRows adds a partition's pending rows to its windows, run by run.
// Without lateness (lag 0) the rows come in time order, as Push requires:
// the latest is the last, and a run whose last row is in the pane of its
// first is all of it.
func (g *Group) addRows(pt *part, in inRows) {
	p := g.p
	n := in.len()
	if n == 0 {
		return
	}
	sorted := g.lag == 0
	g.wake(pt, in.time(0))
	if sorted {
		pt.maxT = max(pt.maxT, in.time(n-1))
	} else {
		for r := range n {
			pt.maxT = max(pt.maxT, in.time(r))
		}
	}
	var sc sumsCache
	for w := range pt.wins {
		wp := &p.wins[w]
		ws := &pt.wins[w]
		for i := 0; i < n; {
			t := in.time(i)
			s := ws.curSlot
			if t < ws.curS || t >= ws.curE {
				k := floorDiv(t-p.anchor, wp.width)
				s = -1
				if k >= ws.hi {
					s = ws.pane(wp, k)
				}
				if s < 0 {
					i++
					continue // before the window at the next boundary
				}
				ws.curK = k
				ws.curS = p.anchor + k*wp.width
				ws.curE = ws.curS + wp.width
				ws.curSlot = s
			}
			j := i + 1
			if sorted && in.time(n-1) < ws.curE {
				j = n
			}
			for j < n && in.time(j) >= ws.curS && in.time(j) < ws.curE {
				j++
			}
			p.addRun(wp, ws, s, in, i, j, &sc)
			pt.huge = pt.huge || ws.nScaled > 0
			if len(wp.raws) > 0 {
				ws.raw.pushRun(wp, in, i, j, ws.curK)
			}
			i = j
		}
	}
}
