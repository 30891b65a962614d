package aligned

import (
	"math"
)

// The bulk path: a partition's pending rows are gathered together and
// added to each window's panes a run at a time (the rows of a run fall
// in one pane), each sum accumulated in registers over the run and
// stored once.

// addCount adds n to packed count i, saturating.
func addCount(r []uint64, i int, n int64) {
	sh := 32 * (i & 1)
	cur := int64(uint32(r[i>>1]>>sh) & countMax)
	if cur+n > countMax {
		n = countMax - cur
	}
	r[i>>1] += uint64(n) << sh
}

// addRun adds rows [from, to) of enc, with times ts, all in the pane at
// word offset off.
func (p *Plan) addRun(wp *winPlan, ws *winState, off int, ts []int64, enc [][]uint64, from, to int) {
	r := ws.ring[off : off+wp.stride : off+wp.stride]
	markRow(r)
	if wp.hasRows {
		addCount(r, 0, int64(to-from))
	}
	for i := range wp.moments {
		m := &wp.moments[i]
		col := enc[m.slot-1][from:to]
		f := r[m.off:]
		var n int64
		if m.squares {
			n = addSquares(f[:4:4], col)
		} else {
			n = addSums(f[:2:2], col)
		}
		if !m.isRows {
			addCount(r, m.nIdx, n)
		}
	}
	for i, cp := range wp.counts {
		col := enc[cp.slot-1][from:to]
		n := int64(0)
		if cp.number {
			for _, b := range col {
				if x := math.Float64frombits(b); x == x {
					n++
				}
			}
		} else {
			for _, b := range col {
				if b != 0 {
					n++
				}
			}
		}
		addCount(r, wp.cnt0+i, n)
	}
	for i, e := range wp.exts {
		col := enc[e.slot-1][from:to]
		cur := math.Float64frombits(r[wp.offExt+i])
		if e.max {
			for _, b := range col {
				if x := math.Float64frombits(b); x > cur || cur != cur {
					cur = x
				}
			}
		} else {
			for _, b := range col {
				if x := math.Float64frombits(b); x < cur || cur != cur {
					cur = x
				}
			}
		}
		r[wp.offExt+i] = math.Float64bits(cur)
	}
	for i, s := range wp.fls {
		col := enc[s-1][from:to]
		fl := r[wp.offFL+4*i:][:4]
		for j, bits := range col {
			if !p.present(s, bits) {
				continue
			}
			t := ts[from+j]
			if t < int64(fl[0]) {
				fl[0], fl[1] = uint64(t), bits
			}
			if t >= int64(fl[2]) {
				fl[2], fl[3] = uint64(t), bits
			}
		}
	}
}

// addSums adds the finite values of col to the double-double f[0] +
// f[1] and returns how many there were.
func addSums(f []uint64, col []uint64) int64 {
	s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
	n := int64(0)
	for _, b := range col {
		x := math.Float64frombits(b)
		if x-x != 0 { // NaN or ±Inf: missing
			continue
		}
		hi := s + x
		bb := hi - s
		c += (s - (hi - bb)) + (x - bb)
		s = hi
		n++
	}
	f[0], f[1] = math.Float64bits(s), math.Float64bits(c)
	return n
}

// addSquares adds the finite values of col to Σx (f[0] + f[1]) and their
// squares to Σx² (f[2] + f[3]), marking Σx² infinite for a value whose
// square is not summed (see bigSquare); it returns how many there were.
func addSquares(f []uint64, col []uint64) int64 {
	s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
	q, qc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
	big := math.IsInf(q, 1)
	n := int64(0)
	for _, b := range col {
		x := math.Float64frombits(b)
		if x-x != 0 {
			continue
		}
		n++
		hi := s + x
		bb := hi - s
		c += (s - (hi - bb)) + (x - bb)
		s = hi
		if math.Abs(x) >= bigSquare {
			big = true
			continue
		}
		sq := x * x
		sqe := math.FMA(x, x, -sq)
		hq := q + sq
		qb := hq - q
		qc += (q - (hq - qb)) + (sq - qb) + sqe
		q = hq
	}
	if big {
		q, qc = math.Inf(1), 0
	}
	f[0], f[1] = math.Float64bits(s), math.Float64bits(c)
	f[2], f[3] = math.Float64bits(q), math.Float64bits(qc)
	return n
}

// addRows adds n gathered rows of one partition (times ts, slots enc) to
// its windows, run by run.
func (g *Group) addRows(pt *part, ts []int64, enc [][]uint64) {
	p := g.p
	if len(ts) == 0 {
		return
	}
	g.wake(pt, ts[0])
	for _, t := range ts {
		pt.maxT = max(pt.maxT, t)
	}
	for w := range pt.wins {
		wp := &p.wins[w]
		ws := &pt.wins[w]
		for i := 0; i < len(ts); {
			t := ts[i]
			off := ws.curOff
			if t < ws.curS || t >= ws.curE {
				k := floorDiv(t-p.anchor, wp.width)
				off = -1
				if k >= ws.hi {
					off = ws.pane(wp, k)
				}
				if off < 0 {
					i++
					continue // before the window at the next boundary
				}
				ws.curS = p.anchor + k*wp.width
				ws.curE = ws.curS + wp.width
				ws.curOff = off
			}
			j := i + 1
			for j < len(ts) && ts[j] >= ws.curS && ts[j] < ws.curE {
				j++
			}
			p.addRun(wp, ws, off, ts, enc, i, j)
			if len(wp.raws) > 0 {
				ws.raw.pushRun(wp, ts, enc, i, j)
			}
			i = j
		}
	}
}

// pushRun appends rows [from, to) to the raw rows (a plan without array
// columns).
func (rr *rawRows) pushRun(wp *winPlan, ts []int64, enc [][]uint64, from, to int) {
	for i := from; i < to; i++ {
		rr.buf = append(rr.buf, uint64(ts[i]))
		for _, s := range wp.rawSlots {
			rr.buf = append(rr.buf, enc[s-1][i])
		}
	}
}
