package aligned

import "math"

// Values near the top of the float64 range. A sum of a few values from
// hugeValue (2^960) up can pass beyond the range, and a double-double
// that did is lost: its words become ±Inf and NaN. So such a value's Σx
// is kept apart, in units of 2^128 (hugeDown, a power of two: exact),
// where no count of them overflows:
//
//   - an open-step record never sums a huge value: a fold stops at one
//     and its sum goes to the partition's lane (part.lane), one
//     double-double per step Moments, in units of 2^128;
//   - a pane keeps one double-double per Moments, in units of 1 or, once
//     a huge value or a lane reaches it, of 2^128 (winState.scaled
//     marks it); its other values are scaled down with it, exactly
//     unless they are below 2^-946, whose bits are below those of any
//     huge value;
//   - a window's running Σx of a Moments is in units of 2^128 while one
//     of its panes is (winState.sumScaled), and is summed again from its
//     panes at every closing while its ring holds such a pane.
//
// Ordinary values alone never leave the range: a window holds fewer than
// 2^53 of them (MaxPanes panes of 2^31 rows), each below 2^960. A
// window's sum is read back in units of 1 (hugeUp), and is missing
// exactly while its values sum beyond the range; its mean is divided in
// units of 2^128, so it is always finite. A stdev is missing anyway
// while a huge value is held (see bigSquare). A partition that holds any
// of this (part.huge) takes the closing's generic path.
const (
	hugeValue = 0x1p960
	hugeDown  = 0x1p-128
	hugeUp    = 0x1p128
)

// isHuge reports whether the finite x is kept apart (|x| ≥ hugeValue).
func isHuge(x float64) bool { return math.Abs(x) >= hugeValue }

// addScaled adds x, in units of 2^128, to the double-double (*s, *c).
func addScaled(s, c *float64, x float64) { ddAdd(s, c, x*hugeDown, 0) }

// mergeScaled adds a record's sums to a pane's double-double (*s, *c),
// in units of 2^128: its lane (lh, lc), in those units, then its
// ordinary sums (rs, rc), scaled down.
func mergeScaled(s, c *float64, lh, lc, rs, rc float64) {
	ddAdd(s, c, lh, lc)
	ddAdd(s, c, rs*hugeDown, rc*hugeDown)
}

// sumOf returns the Σx whose double-double is (s, c), in units of 2^128
// when scaled: NaN (missing) when it is beyond the float64 range.
func sumOf(s, c float64, scaled bool) float64 {
	if scaled {
		return opt((s+c)*hugeUp, true)
	}
	return opt(s+c, true)
}

// meanOf returns the mean of n values whose Σx is (s, c), in units of
// 2^128 when scaled: divided in those units, it is within the float64
// range however far beyond it Σx is. The words are made a normalized
// double-double first: huge values that cancel (−2^960, −MaxFloat64,
// MaxFloat64) leave their sums' rounding error in the low word beside a
// high word near 0, and an ordinary sum added to it then gives a high
// word about as large as the low one, which ddDivF, dividing the high
// word and adding the low one's share, rounds away (a mean of −2^907/4
// for −2^907/5).
func meanOf(s, c float64, n int64, scaled bool) (float64, bool) {
	s, c = twoSum(s, c)
	mh, ml := ddDivF(s, c, float64(n))
	if scaled {
		return meanFrom(mh*hugeUp, ml*hugeUp)
	}
	return meanFrom(mh, ml)
}

// laneOf returns partition pt's lane of step Moments j: Σx of its huge
// values in the open step, in units of 2^128 (0, 0: none).
func (pt *part) laneOf(j int) (float64, float64) {
	if !pt.huge || 2*j >= len(pt.lane) {
		return 0, 0
	}
	return pt.lane[2*j], pt.lane[2*j+1]
}

// addLane adds the huge value x of step Moments j to partition q's lane.
func (g *Group) addLane(q int32, j int, x float64) {
	pt := g.parts[q]
	if len(pt.lane) == 0 {
		pt.lane = make([]float64, 2*len(g.p.st.moms))
	}
	pt.huge = true
	addScaled(&pt.lane[2*j], &pt.lane[2*j+1], x)
}

// clearLane empties partition pt's lane with its record, and notes
// whether its windows still hold a pane kept in units of 2^128.
func (pt *part) clearLane() {
	if !pt.huge {
		return
	}
	clear(pt.lane)
	pt.huge = false
	for w := range pt.wins {
		pt.huge = pt.huge || pt.wins[w].nScaled > 0
	}
}

// laneRow adds the huge values of row i of enc in the columns whose sums
// the records keep to partition q's lane: the values take left out of
// the record's sums (its counts and marks it made).
func (g *Group) laneRow(q int32, enc [][]uint64, i int) {
	for j := range g.p.st.moms {
		if x := math.Float64frombits(enc[g.p.st.moms[j].slot-1][i]); x-x == 0 && isHuge(x) {
			g.addLane(q, j, x)
		}
	}
}

// hugeSum folds value x of step Moments j, huge, into partition q's
// record r as foldSums and foldSquares do but for its sum, which goes to
// the lane: its count, and the mark of Σx² (a huge value is beyond
// bigSquare).
func (g *Group) hugeSum(q int32, r []uint64, j int, x float64) {
	m := &g.p.st.moms[j]
	if m.nOff >= 0 {
		r[m.nOff]++
	}
	if m.squares {
		r[m.off+2], r[m.off+3] = math.Float64bits(math.Inf(1)), 0
	}
	g.addLane(q, j, x)
}

// hugeMarks are a window's marks of the sums kept in units of 2^128: per
// ring slot and Moments (slot·nm + i), whether the pane's Σx is (a slot
// without a pane has none); per Moments, whether the window's sums' Σx
// is. A window has them from the first huge value it holds on.
type hugeMarks struct {
	scaled    []bool
	sumScaled []bool
}

// hugeMarks returns the window's marks, made for nm Moments if it has none.
func (ws *winState) hugeMarks(nm int) *hugeMarks {
	if ws.marks == nil {
		ws.marks = &hugeMarks{scaled: make([]bool, ws.cap*nm), sumScaled: make([]bool, nm)}
	}
	return ws.marks
}

// paneScaled reports whether the pane in ring slot s keeps Moments i's
// Σx in units of 2^128.
func (ws *winState) paneScaled(wp *winPlan, s, i int) bool {
	return ws.marks != nil && ws.marks.scaled[s*len(wp.moments)+i]
}

// scalePane makes the pane in ring slot s keep Moments i's Σx in units
// of 2^128, scaling it down if it did not.
func (ws *winState) scalePane(wp *winPlan, s, i int) {
	nm := len(wp.moments)
	mk := ws.hugeMarks(nm)
	if mk.scaled[s*nm+i] {
		return
	}
	mk.scaled[s*nm+i] = true
	ws.nScaled++
	f := ddWords(ws.ring[s*wp.stride:], wp.moments[i].off)
	f[0], f[1] = f[0]*hugeDown, f[1]*hugeDown
}

// unscaleSlot forgets the scaled sums of the pane leaving ring slot s.
func (ws *winState) unscaleSlot(wp *winPlan, s int) {
	nm := len(wp.moments)
	if ws.marks == nil {
		return
	}
	for i, b := range ws.marks.scaled[s*nm : (s+1)*nm] {
		if b {
			ws.marks.scaled[s*nm+i] = false
			ws.nScaled--
		}
	}
}

// addScaledRow adds the value x of Moments i to the pane in ring slot s
// in units of 2^128: x is huge, or the pane keeps those units already.
// Such a pane has held a huge value: its Σx², when kept, is marked.
func (ws *winState) addScaledRow(wp *winPlan, s, i int, x float64) {
	ws.scalePane(wp, s, i)
	m := &wp.moments[i]
	f := ddWords(ws.ring[s*wp.stride:], m.off)
	addScaled(&f[0], &f[1], x)
	if m.squares {
		g := ddWords(ws.ring[s*wp.stride:], m.off+2)
		g[0], g[1] = math.Inf(1), 0
	}
}

// mergeRunScaled adds a run's or a record's sums (lane lh, lc; ordinary
// sums rs, rc) to Moments i of the pane in ring slot s, in units of
// 2^128.
func (ws *winState) mergeRunScaled(wp *winPlan, s, i int, lh, lc, rs, rc float64) {
	ws.scalePane(wp, s, i)
	f := ddWords(ws.ring[s*wp.stride:], wp.moments[i].off)
	mergeScaled(&f[0], &f[1], lh, lc, rs, rc)
}

// leaveScaled is leave for a window whose ring holds a pane in units of
// 2^128: the oldest pane's marks go with it, and the window is summed
// again from its panes.
func (ws *winState) leaveScaled(wp *winPlan) {
	if ws.n > 0 {
		ws.unscaleSlot(wp, ws.head)
	}
	ws.leave(wp)
	ws.rebuild = true
}

// resumScaled is resum for a window whose ring holds a pane in units of
// 2^128, or whose sums were: each Moments' Σx is summed in those units
// when one of its panes in the window is, every pane scaled to them.
func (ws *winState) resumScaled(wp *winPlan) {
	nm := len(wp.moments)
	sumScaled := ws.hugeMarks(nm).sumScaled
	clear(sumScaled)
	ws.sumsScaled = false
	end := min(ws.hi, ws.base+int64(ws.n))
	for k := ws.base; k < end; k++ {
		s := ws.slot(int(k - ws.base))
		for i := range nm {
			if ws.paneScaled(wp, s, i) {
				sumScaled[i], ws.sumsScaled = true, true
			}
		}
	}
	for k := ws.base; k < end; k++ {
		s := ws.slot(int(k - ws.base))
		r, _ := ws.rec(wp, s)
		for i := range wp.moments {
			m := &wp.moments[i]
			a := &ws.sums[i]
			f := ddWords(r, m.off)
			ps, pc := f[0], f[1]
			if sumScaled[i] && !ws.paneScaled(wp, s, i) {
				ps, pc = ps*hugeDown, pc*hugeDown
			}
			ddAdd(&a[0], &a[1], ps, pc)
			if m.squares {
				g := ddWords(r, m.off+2)
				ddAdd(&a[2], &a[3], g[0], g[1])
			} else {
				notePeak(a)
			}
		}
	}
	ws.notePeaks()
	ws.rebuild = false
}

// scaledSums reports whether Moments i's sums over the window, as sumsOf
// returns them, are in units of 2^128 (for a window of one pane, its
// pane's, at slot; −1: none).
func (ws *winState) scaledSums(wp *winPlan, i, slot int) bool {
	if wp.single {
		return slot >= 0 && ws.paneScaled(wp, slot, i)
	}
	return ws.sumsScaled && ws.marks.sumScaled[i]
}

// mergeMomentScaled is mergeMoment into the pane in ring slot s, Moments
// i, for a record whose lane holds (lh, lc) or a pane in units of 2^128.
func (ws *winState) mergeMomentScaled(wp *winPlan, s, i int, sm *stepMom, r []uint64, cs []uint32, n int64, lh, lc float64) {
	if lh == 0 && lc == 0 && !ws.paneScaled(wp, s, i) {
		pr, _ := ws.rec(wp, s)
		mergeMoment(&wp.moments[i], sm, r, pr, cs, n)
		return
	}
	m := &wp.moments[i]
	cnt := n
	if sm.nOff >= 0 {
		cnt = int64(r[sm.nOff])
	}
	if !m.isRows {
		addCount(cs, m.nIdx, cnt)
	}
	ws.mergeRunScaled(wp, s, i, lh, lc, math.Float64frombits(r[sm.off]), math.Float64frombits(r[sm.off+1]))
	if m.squares {
		g := ddWords(ws.ring[s*wp.stride:], m.off+2)
		g[0], g[1] = math.Inf(1), 0
	}
}

// scaleFresh makes the pane in ring slot s, written just now from
// partition pt's record (writePane), keep in units of 2^128 the Σx of
// each Moments whose lane holds a sum: what merging the record into an
// empty pane gives.
func (ws *winState) scaleFresh(wp *winPlan, sw *stepWin, pt *part, s int) {
	for i := range wp.moments {
		lh, lc := pt.laneOf(sw.moms[i])
		if lh == 0 && lc == 0 {
			continue
		}
		f := ddWords(ws.ring[s*wp.stride:], wp.moments[i].off)
		rs, rc := f[0], f[1]
		f[0], f[1] = 0, 0
		ws.mergeRunScaled(wp, s, i, lh, lc, rs, rc)
	}
}
