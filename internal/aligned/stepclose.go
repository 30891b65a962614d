package aligned

import (
	"math"
	"slices"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// A closing's use of the open-step records (see step.go): merging them
// into the windows' panes, and emitting the windows read from them.

// flushStep merges partition q's open-step record into its windows'
// panes k, the step's, and empties it.
func (g *Group) flushStep(q int32, pt *part, k int64) {
	g.mergeStep(q, pt, k, false)
	g.st.empty(&g.p.st, q)
	pt.clearLane()
}

// viewed reports whether window w of partition pt reads its row at a
// closing from the open-step record: a window of one pane, the step's,
// whose ring holds nothing (rows merged into the ring before, which only
// a change of lateness or a saturating record does, make it read the
// ring instead).
func (g *Group) viewed(pt *part, w int) bool {
	return g.p.st.wins[w].view && pt.wins[w].n == 0
}

// mergeStep merges partition q's open-step record into its windows'
// panes k, the step's; with view, it leaves out the windows a closing
// reads from the record (see viewed).
func (g *Group) mergeStep(q int32, pt *part, k int64, view bool) {
	st, sp, p := &g.st, &g.p.st, g.p
	if st.rows(q) == 0 {
		return
	}
	n := int64(st.n[q])
	r := st.rec(sp, q)
	for w := range pt.wins {
		wp, ws, sw := &p.wins[w], &pt.wins[w], &sp.wins[w]
		if view && g.viewed(pt, w) {
			continue
		}
		if k < ws.hi {
			continue // before the window at the next boundary
		}
		s, fresh := ws.paneFresh(wp, k)
		if s < 0 {
			continue
		}
		pr, cs := ws.rec(wp, s)
		if fresh {
			sp.writePane(wp, sw, r, n, pr, cs)
			if pt.huge {
				ws.scaleFresh(wp, sw, pt, s)
			}
			if len(wp.raws) > 0 {
				ws.raw.pushStep(st.raws(q, len(sp.raw)), len(sp.raw), sw.raws, k)
			}
			continue
		}
		markRow(cs)
		if wp.hasRows {
			addCount(cs, 0, n)
		}
		if pt.huge || ws.nScaled > 0 {
			for i := range wp.moments {
				lh, lc := pt.laneOf(sw.moms[i])
				ws.mergeMomentScaled(wp, s, i, &sp.moms[sw.moms[i]], r, cs, n, lh, lc)
			}
			pt.huge = pt.huge || ws.nScaled > 0
		} else {
			for i := range wp.moments {
				mergeMoment(&wp.moments[i], &sp.moms[sw.moms[i]], r, pr, cs, n)
			}
		}
		for i, off := range sw.counts {
			addCount(cs, wp.cnt0+i, int64(r[off]))
		}
		for i, off := range sw.exts {
			x := math.Float64frombits(r[off])
			if x != x {
				continue
			}
			cur := math.Float64frombits(pr[wp.offExt+i])
			if cur != cur || wp.exts[i].max && x > cur || !wp.exts[i].max && x < cur {
				pr[wp.offExt+i] = r[off]
			}
		}
		for i, off := range sw.fls {
			src, f := r[off:][:4], pr[wp.offFL+4*i:][:4]
			if int64(src[0]) == math.MaxInt64 {
				continue // no present value
			}
			if int64(src[0]) < int64(f[0]) {
				f[0], f[1] = src[0], src[1]
			}
			if int64(src[2]) >= int64(f[2]) {
				f[2], f[3] = src[2], src[3]
			}
		}
		if len(wp.raws) > 0 {
			ws.raw.pushStep(st.raws(q, len(sp.raw)), len(sp.raw), sw.raws, k)
		}
	}
}

// mergeMoment adds the record r's sums of step moment sm (n rows in the
// step) to moment m of pane record pr, counts cs.
func mergeMoment(m *momPlan, sm *stepMom, r, pr []uint64, cs []uint32, n int64) {
	cnt := n
	if sm.nOff >= 0 {
		cnt = int64(r[sm.nOff])
	}
	if !m.isRows {
		addCount(cs, m.nIdx, cnt)
	}
	if cnt == 0 {
		return
	}
	src, f := r[sm.off:], pr[m.off:]
	ps, pc := math.Float64frombits(f[0]), math.Float64frombits(f[1])
	ddAdd(&ps, &pc, math.Float64frombits(src[0]), math.Float64frombits(src[1]))
	f[0], f[1] = math.Float64bits(ps), math.Float64bits(pc)
	if !m.squares {
		return
	}
	sq, sqc := math.Float64frombits(src[2]), math.Float64frombits(src[3])
	pq, pqc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
	if math.IsInf(sq, 1) || math.IsInf(pq, 1) {
		pq, pqc = math.Inf(1), 0 // a value whose square is not summed (bigSquare)
	} else {
		ddAdd(&pq, &pqc, sq, sqc)
	}
	f[2], f[3] = math.Float64bits(pq), math.Float64bits(pqc)
}

// pushStep appends a step's raw rows (w words a row, the window's slots
// at positions cols), all in pane k.
func (rr *rawRows) pushStep(vals []uint64, w int, cols []int, k int64) {
	n := len(vals) / w
	if n == 0 {
		return
	}
	if len(cols) == w && (w == 1 || slices.IsSorted(cols)) {
		// The window keeps every slot of the step's rows, in order.
		rr.vals = append(rr.vals, vals...)
	} else {
		for j := 0; j < len(vals); j += w {
			for _, c := range cols {
				rr.vals = append(rr.vals, vals[j+c])
			}
		}
	}
	rr.addRun(k, n)
}

// settle puts every waiting row, in inboxes or open-step records, into
// its panes, and makes the group take rows as its lateness now asks: into
// records when no row can be late and every window's panes are a step
// wide, into inboxes otherwise (arrays: row by row).
func (g *Group) settle() {
	if g.hold != nil {
		g.leaveHeld(g.hold.at)
	}
	k := g.stepIndex()
	for _, q := range g.order {
		pt := g.parts[q]
		if g.stepped {
			g.flushStep(q, pt, k)
			g.st.close(&g.p.st, q)
		} else if !g.direct {
			g.drain(q, pt)
			g.in.close(q)
		}
	}
	g.stepped = !g.direct && g.p.st.ok && g.lag == 0
	if g.stepped {
		g.st.size(&g.p.st, len(g.parts))
	} else if !g.direct {
		g.in.size(len(g.parts))
	}
}

// writePane writes the record r (n rows) as window wp's pane, in pane
// record pr and counts cs, made just now: what merging it into an empty
// pane gives, without clearing the pane first. Each word and count is
// copied from where the plan says it is (see stepWin); words that are
// the record's own, in its order, in a loop that reads no plan.
func (sp *stepPlan) writePane(wp *winPlan, sw *stepWin, r []uint64, n int64, pr []uint64, cs []uint32) {
	pr = pr[:len(sw.paneWords)]
	if at := sw.paneRun; at >= 0 {
		rr := r[at : at+len(pr)]
		for i := range pr {
			pr[i] = rr[i]
		}
	} else {
		for i, src := range sw.paneWords {
			pr[i] = r[src]
		}
	}
	cs = cs[:len(sw.paneCounts)]
	for i, src := range sw.paneCounts {
		v := n
		if src >= 0 {
			v = int64(r[src])
		}
		cs[i] = uint32(min(v, countMax))
	}
	markRow(cs)
}

// emitStep appends window wp's outputs at a closing from partition q's
// open-step record, as emit does: the window is one pane, the step's (see
// viewed).
func (g *Group) emitStep(w int, ws *winState, q int32, dsts []*table.Col, cols [][]float64, e int) {
	p, sp, st := g.p, &g.p.st, &g.st
	wp, sw := &p.wins[w], &sp.wins[w]
	n := min(st.rows(q), countMax)
	if wp.minSamples > 0 && n < int64(wp.minSamples) {
		emitMissing(wp, dsts, cols, e)
		return
	}
	r := st.rec(sp, q)
	pt := g.parts[q]
	meanIdx, mh, ml := -1, 0.0, 0.0 // the mean of Moments meanIdx
	for _, o := range wp.outs {
		switch o.kind {
		case oRows:
			cols[o.cell][e] = float64(n)
		case oN:
			cols[o.cell][e] = float64(sp.momCount(sw.moms[o.idx], r, n))
		case oCount:
			cols[o.cell][e] = float64(min(r[sw.counts[o.idx]], countMax))
		case oSum:
			s, c, scaled := stepSums(sp, sw.moms[o.idx], r, pt)
			cols[o.cell][e] = sumOf(s, c, scaled)
		case oAvg, oStdev:
			j := sw.moms[o.idx]
			cnt := sp.momCount(j, r, n)
			if cnt == 0 {
				cols[o.cell][e] = math.NaN()
				continue
			}
			f := r[sp.moms[j].off:]
			s, c, scaled := stepSums(sp, j, r, pt)
			if scaled {
				// A huge value is in the step: the mean in units of
				// 2^128, no stdev (its square is not summed).
				x, ok := meanOf(s, c, cnt, true)
				cols[o.cell][e] = opt(x, ok && o.kind == oAvg)
				continue
			}
			if o.idx != meanIdx {
				meanIdx = o.idx
				mh, ml = ddDivF(s, c, float64(cnt))
			}
			var x float64
			var ok bool
			if o.kind == oAvg {
				x, ok = meanFrom(mh, ml)
			} else {
				x, ok = stdevFrom(s, math.Float64frombits(f[2]), math.Float64frombits(f[3]), cnt, mh, ml)
			}
			cols[o.cell][e] = opt(x, ok)
		case oMin, oMax:
			x := math.Float64frombits(r[sw.exts[o.idx]])
			cols[o.cell][e] = opt(x, x == x)
		case oDiff:
			lo := math.Float64frombits(r[sw.exts[o.idx]])
			hi := math.Float64frombits(r[sw.exts[wp.maxOf(o.idx)]])
			cols[o.cell][e] = opt(hi-lo, lo == lo)
		case oFirst, oLast:
			f := r[sw.fls[o.idx]:][:4]
			if int64(f[0]) == math.MaxInt64 {
				p.putMissing(o, dsts, cols, e)
				continue
			}
			bits := f[1]
			if o.kind == oLast {
				bits = f[3]
			}
			p.putSlot(o, wp.fls[o.idx], bits, dsts, cols, e)
		case oRaw:
			if g.hold != nil {
				heldCell(dsts[o.out], q, g.hold.heldN(r, n))
				continue
			}
			g.emitStepRaw(w, ws, o.idx, st.raws(q, len(sp.raw)), dsts[o.out])
		}
	}
}

// stepSums returns step Moments j's Σx in record r of partition pt, and
// whether it is in units of 2^128: with its lane when that holds a sum
// (see hugeValue), as a pane it is merged into keeps it.
func stepSums(sp *stepPlan, j int, r []uint64, pt *part) (s, c float64, scaled bool) {
	f := r[sp.moms[j].off:]
	s, c = math.Float64frombits(f[0]), math.Float64frombits(f[1])
	lh, lc := pt.laneOf(j)
	if lh == 0 && lc == 0 {
		return s, c, false
	}
	var hs, hc float64
	mergeScaled(&hs, &hc, lh, lc, s, c)
	return hs, hc, true
}

// momCount returns the number of values step moment j's sums hold in
// record r of n rows.
func (sp *stepPlan) momCount(j int, r []uint64, n int64) int64 {
	if off := sp.moms[j].nOff; off >= 0 {
		return min(int64(r[off]), countMax)
	}
	return n
}

// emitStepRaw appends holistic output i of window w from a step's raw
// rows (see emitStep), in arrival order.
func (g *Group) emitStepRaw(w int, ws *winState, i int, raw []uint64, dst *table.Col) {
	p := g.p
	rp := &p.wins[w].raws[i]
	stride, c := len(p.st.raw), p.st.wins[w].raws[rp.col]
	if rp.red.Op == reducers.OpSamples {
		if rp.kind == schema.Number {
			emitStepSamples(dst, raw, stride, c, rp.required)
			return
		}
		dst.BeginArray()
		{
			for j := c; j < len(raw); j += stride {
				if bits := raw[j]; bits != 0 {
					dst.AppendElem(p.value(rp.kind, bits, nil, 0))
				}
			}
		}
		dst.EndArray()
		return
	}
	st := ws.gen[i] // empty: each emission resets it after appending
	for r, j := 0, c; j < len(raw); r, j = r+1, j+stride {
		st.Add(uint64(r), p.value(rp.kind, raw[j], nil, 0))
	}
	st.Append(dst)
	st.Reset() // keeps nothing (no string) of the window's rows meanwhile
}
