package aligned

import (
	"math"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// A closing's emission without a switch per output. The generic
// emission (emit, emitStep) loops over a window's outputs through a jump
// table; around each case the loop's values went to the stack and came
// back, some twenty instructions an output before any work. When every
// output of a window is a count, a sum, an avg, a stdev, a min, a max or
// a holistic output, the plan groups them by what they read, and the
// emission writes each group in a short loop of its own.

// fastOuts is a window's outputs grouped by what they read; ok when the
// grouping holds every output.
type fastOuts struct {
	ok     bool
	rows   []int     // cells of the row count
	moms   []fastMom // the Moments an output reads
	counts []pairIdx // count index and its cell
	exts   []pairIdx // extreme index and its cell
	raws   []int     // holistic outputs (index in winPlan.raws)
	// From an open-step record (emitStepFast): the samples of number
	// slots, written straight from the step's raw values, and the other
	// holistic outputs.
	samples   []stepSamples
	stepOther []int
	// From an open-step record too: each Moments' sums and count as
	// record words, and the counts' and extremes' record words (in
	// pairIdx.idx), looked up once here rather than at each closing.
	stepMoms   []stepFastMom
	stepCounts []pairIdx
	stepExts   []pairIdx
}

// stepFastMom is a Moments of an open-step record: its outputs, its
// sums' first record word (off) and its count's (nOff; −1: the step's
// row count), and whether the record keeps its squares.
type stepFastMom struct {
	fastMom
	off, nOff int
	squares   bool
}

// stepSamples is a samples output of a number slot read from the step's
// raw values: its column, the slot's position in a raw row, and whether
// the slot is required (every value present).
type stepSamples struct {
	out, at  int
	required bool
}

// setStep lists window wp's outputs as emitStepFast reads them from the
// open step's record, laid out by sp (sw: the window's part of it).
func (f *fastOuts) setStep(wp *winPlan, sp *stepPlan, sw *stepWin) {
	f.samples, f.stepOther = nil, nil
	f.stepMoms, f.stepCounts, f.stepExts = nil, nil, nil
	for _, m := range f.moms {
		sm := &sp.moms[sw.moms[m.idx]]
		f.stepMoms = append(f.stepMoms, stepFastMom{fastMom: m, off: sm.off, nOff: sm.nOff, squares: sm.squares})
	}
	for _, c := range f.counts {
		f.stepCounts = append(f.stepCounts, pairIdx{sw.counts[c.idx], c.cell})
	}
	for _, c := range f.exts {
		f.stepExts = append(f.stepExts, pairIdx{sw.exts[c.idx], c.cell})
	}
	for _, i := range f.raws {
		rp := &wp.raws[i]
		if rp.red.Op == reducers.OpSamples && rp.kind == schema.Number {
			f.samples = append(f.samples, stepSamples{out: rp.out, at: sw.raws[rp.col], required: rp.required})
			continue
		}
		f.stepOther = append(f.stepOther, i)
	}
}

// fastMom is one Moments' outputs: the cells of its count, sum, avg and
// stdev (−1: none).
type fastMom struct {
	idx                int
	n, sum, avg, stdev int
}

// pairIdx is an item's index and the cell of its output.
type pairIdx struct{ idx, cell int }

// newFastOuts groups window wp's outputs, whose cells are set.
func newFastOuts(wp *winPlan) fastOuts {
	f := fastOuts{ok: true}
	mom := func(idx int) *fastMom {
		for i := range f.moms {
			if f.moms[i].idx == idx {
				return &f.moms[i]
			}
		}
		f.moms = append(f.moms, fastMom{idx: idx, n: -1, sum: -1, avg: -1, stdev: -1})
		return &f.moms[len(f.moms)-1]
	}
	// set gives an output of a Moments its cell; false when the Moments
	// has one of that kind already (two avgs of one column).
	set := func(at *int, cell int) bool {
		if *at >= 0 {
			return false
		}
		*at = cell
		return true
	}
	for _, o := range wp.outs {
		ok := true
		switch o.kind {
		case oRows:
			f.rows = append(f.rows, o.cell)
		case oN:
			ok = set(&mom(o.idx).n, o.cell)
		case oSum:
			ok = set(&mom(o.idx).sum, o.cell)
		case oAvg:
			ok = set(&mom(o.idx).avg, o.cell)
		case oStdev:
			ok = set(&mom(o.idx).stdev, o.cell)
		case oCount:
			f.counts = append(f.counts, pairIdx{o.idx, o.cell})
		case oMin, oMax:
			f.exts = append(f.exts, pairIdx{o.idx, o.cell})
		case oRaw:
			f.raws = append(f.raws, o.idx)
		default:
			ok = false
		}
		if !ok {
			return fastOuts{}
		}
	}
	return f
}

// putMoments writes Moments m's outputs from its sums (Σx as s + c, Σx²
// as q + qc) and count n, as emit does.
func putMoments(m *fastMom, s, c, q, qc float64, n int64, cols [][]float64, e int) {
	if m.n >= 0 {
		cols[m.n][e] = float64(n)
	}
	if m.sum >= 0 {
		cols[m.sum][e] = opt(s+c, true)
	}
	if m.avg < 0 && m.stdev < 0 {
		return
	}
	if n == 0 {
		if m.avg >= 0 {
			cols[m.avg][e] = math.NaN()
		}
		if m.stdev >= 0 {
			cols[m.stdev][e] = math.NaN()
		}
		return
	}
	mh, ml := ddDivF(s, c, float64(n))
	if m.avg >= 0 {
		cols[m.avg][e] = opt(mh+ml, true) // meanFrom's value; opt tests it finite
	}
	if m.stdev >= 0 {
		x, ok := stdevFrom(s, q, qc, n, mh, ml)
		cols[m.stdev][e] = opt(x, ok)
	}
}

// emitFast is emit for a window of more than one pane whose outputs
// fastOuts groups.
func (p *Plan) emitFast(wp *winPlan, ws *winState, b int64, dsts []*table.Col, cols [][]float64, e int) {
	fo := &wp.fast
	if wp.minSamples > 0 && ws.rows < int64(wp.minSamples) {
		emitMissing(wp, dsts, cols, e)
		return
	}
	rows := float64(ws.rows)
	for _, c := range fo.rows {
		cols[c][e] = rows
	}
	for i := range fo.moms {
		m := &fo.moms[i]
		a := &ws.sums[m.idx]
		putMoments(m, a[0], a[1], a[2], a[3], ws.ns[m.idx], cols, e)
	}
	for _, c := range fo.counts {
		cols[c.cell][e] = float64(ws.cnts[c.idx])
	}
	for _, c := range fo.exts {
		x, ok := ws.exts[c.idx].Value()
		cols[c.cell][e] = opt(x, ok)
	}
	for _, i := range fo.raws {
		p.emitRaw(wp, ws, i, b, dsts[wp.raws[i].out])
	}
}

// emitStepFast is emitStep for a window whose outputs fastOuts groups.
func (g *Group) emitStepFast(w int, ws *winState, q int32, dsts []*table.Col, cols [][]float64, e int) {
	p, sp, st := g.p, &g.p.st, &g.st
	wp := &p.wins[w]
	fo := &wp.fast
	n := min(st.rows(q), countMax)
	if wp.minSamples > 0 && n < int64(wp.minSamples) {
		emitMissing(wp, dsts, cols, e)
		return
	}
	r := st.rec(sp, q)
	for _, c := range fo.rows {
		cols[c][e] = float64(n)
	}
	for i := range fo.stepMoms {
		m := &fo.stepMoms[i]
		f := r[m.off:]
		var sq, sqc float64
		if m.squares {
			sq, sqc = math.Float64frombits(f[2]), math.Float64frombits(f[3])
		}
		mn := n
		if m.nOff >= 0 {
			mn = min(int64(r[m.nOff]), countMax)
		}
		putMoments(&m.fastMom, math.Float64frombits(f[0]), math.Float64frombits(f[1]), sq, sqc, mn, cols, e)
	}
	for _, c := range fo.stepCounts {
		cols[c.cell][e] = float64(min(r[c.idx], countMax))
	}
	for _, c := range fo.stepExts {
		x := math.Float64frombits(r[c.idx])
		cols[c.cell][e] = opt(x, x == x)
	}
	if g.hold != nil {
		// The one raw output: its cell is filled after the closing.
		for _, x := range fo.samples {
			heldCell(dsts[x.out], q, g.hold.heldN(r, n))
		}
		return
	}
	raw := st.raws(q, len(sp.raw))
	for _, x := range fo.samples {
		emitStepSamples(dsts[x.out], raw, len(sp.raw), x.at, x.required)
	}
	for _, i := range fo.stepOther {
		g.emitStepRaw(w, ws, i, raw, dsts[wp.raws[i].out])
	}
}

// emitStepSamples appends the samples of a number slot from a step's raw
// rows (stride words a row, the slot at c): the present values, in
// arrival order; all of them for a required slot. The column keeps them
// as numbers (a wide one, which never holds a number slot's samples but
// for a test, takes them one by one).
func emitStepSamples(dst *table.Col, raw []uint64, stride, c int, required bool) {
	dst.BeginArray()
	if dst.Wide() {
		for j := c; j < len(raw); j += stride {
			if x := math.Float64frombits(raw[j]); x == x {
				dst.AppendNumElem(x)
			}
		}
		dst.EndArray()
		return
	}
	if required && stride == 1 {
		copy(dst.GrowNumElems(len(raw)), cell.Nums(raw))
		dst.EndArray()
		return
	}
	run, k := dst.GrowNumElems((len(raw)-c+stride-1)/stride), 0
	for j := c; j < len(raw); j += stride {
		if x := math.Float64frombits(raw[j]); x == x {
			run[k] = x
			k++
		}
	}
	dst.DropNumElems(len(run) - k)
	dst.EndArray()
}
