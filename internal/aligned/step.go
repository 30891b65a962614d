package aligned

import (
	"math"
	"slices"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// The open step. When every window's panes are one step wide and no row
// can be late (strict or drop ordering), all the rows that arrive between
// two closings are in one pane of every window: the step that the next
// boundary closes. Each row is then folded, as it comes, into its
// partition's record of that step — its sums, extremes, counts, first and
// last — kept for all partitions in one block indexed by partition; a
// closing merges each record into its windows' new panes, once. A row is
// written once, into a few words that stay in cache, instead of into an
// inbox to be read again at the close.

// stepPlan is the layout of an open-step record: the union of what the
// windows' panes keep, each item once (the seed's 1m and 200ms windows
// both sum cpu and its squares: one sum here).
type stepPlan struct {
	ok     bool // every window's panes are one step wide: records may be used
	words  int  // words a record
	moms   []stepMom
	exts   []stepExt
	counts []stepCount
	fls    []stepFL
	raw    []int // slots a raw row keeps: the union of the windows' raw slots
	folds  []stepFold
	empty  []uint64 // an empty record
	wins   []stepWin
}

// stepFold is what a batch's rows fold into per column, in one pass:
// the column's sums (mom, an index in moms; −1: none) and its extremes
// (ext, the min's word; −1: none).
type stepFold struct {
	slot, mom, ext int
}

// stepMom is a column's sums in the record: s and c at off, q and qc
// after them when squared, and the count of its values at nOff (−1: the
// column is required, its count is the step's row count).
type stepMom struct {
	slot    int
	squares bool
	off     int
	nOff    int
}

// stepExt is a column's extremes: its min at off, its max at off+1.
type stepExt struct {
	slot int
	off  int
}

// stepCount is a column's count of present values, at off.
type stepCount struct {
	slot   int
	number bool
	off    int
}

// stepFL is a column's first and last present value: first time, first
// value, last time and last value from off.
type stepFL struct {
	slot   int
	number bool
	off    int
}

// stepWin says where a window's pane items are in the record.
type stepWin struct {
	moms   []int // stepPlan.moms index of each of the window's moments
	exts   []int // record word of each extreme
	counts []int // record word of each count
	fls    []int // record word of each first/last
	raws   []int // position in the step's raw row of each raw slot
	view   bool  // the window is one pane, the step's: a closing reads its row from the record
}

// newStepPlan lays out the open-step record of p's windows.
func newStepPlan(p *Plan) stepPlan {
	st := stepPlan{ok: true}
	for i := range p.wins {
		wp := &p.wins[i]
		// A raw first or last orders raw rows by time; only arrays need
		// one, and a plan reading arrays takes rows one by one anyway.
		st.ok = st.ok && wp.width == p.step && !wp.rawTimes && !wp.rawArr
	}
	if !st.ok {
		return st
	}
	words := 0
	mom := func(m momPlan) int {
		for j := range st.moms {
			if st.moms[j].slot == m.slot {
				return j
			}
		}
		st.moms = append(st.moms, stepMom{slot: m.slot, nOff: -1})
		return len(st.moms) - 1
	}
	for i := range p.wins {
		for _, m := range p.wins[i].moments {
			j := mom(m)
			st.moms[j].squares = st.moms[j].squares || m.squares
			if !m.isRows {
				st.moms[j].nOff = 0 // placed below
			}
		}
	}
	for j := range st.moms {
		m := &st.moms[j]
		m.off = words
		words += 2
		if m.squares {
			words += 2
		}
		if m.nOff == 0 {
			m.nOff = words
			words++
		}
	}
	for i := range p.wins {
		wp := &p.wins[i]
		sw := stepWin{view: wp.single}
		for _, m := range wp.moments {
			sw.moms = append(sw.moms, mom(m))
		}
		for _, e := range wp.exts {
			j := slices.IndexFunc(st.exts, func(x stepExt) bool { return x.slot == e.slot })
			if j < 0 {
				j = len(st.exts)
				st.exts = append(st.exts, stepExt{slot: e.slot, off: words})
				words += 2
			}
			off := st.exts[j].off
			if e.max {
				off++
			}
			sw.exts = append(sw.exts, off)
		}
		for _, c := range wp.counts {
			j := slices.IndexFunc(st.counts, func(x stepCount) bool { return x.slot == c.slot })
			if j < 0 {
				j = len(st.counts)
				st.counts = append(st.counts, stepCount{slot: c.slot, number: c.number, off: words})
				words++
			}
			sw.counts = append(sw.counts, st.counts[j].off)
		}
		for _, s := range wp.fls {
			j := slices.IndexFunc(st.fls, func(x stepFL) bool { return x.slot == s })
			if j < 0 {
				j = len(st.fls)
				st.fls = append(st.fls, stepFL{slot: s, number: p.kinds[s-1] == schema.Number, off: words})
				words += 4
			}
			sw.fls = append(sw.fls, st.fls[j].off)
		}
		for _, s := range wp.rawSlots {
			j := slices.Index(st.raw, s)
			if j < 0 {
				j = len(st.raw)
				st.raw = append(st.raw, s)
			}
			sw.raws = append(sw.raws, j)
		}
		st.wins = append(st.wins, sw)
	}
	st.words = words
	for j, m := range st.moms {
		st.folds = append(st.folds, stepFold{slot: m.slot, mom: j, ext: -1})
	}
	for _, e := range st.exts {
		j := slices.IndexFunc(st.folds, func(f stepFold) bool { return f.slot == e.slot })
		if j < 0 {
			j = len(st.folds)
			st.folds = append(st.folds, stepFold{slot: e.slot, mom: -1})
		}
		st.folds[j].ext = e.off
	}
	st.empty = make([]uint64, words)
	nan := math.Float64bits(math.NaN())
	for _, e := range st.exts {
		st.empty[e.off], st.empty[e.off+1] = nan, nan
	}
	for _, f := range st.fls {
		st.empty[f.off], st.empty[f.off+2] = uint64(math.MaxInt64), 1<<63
	}
	return st
}

// steps holds every partition's open-step record: its row count (stepShut
// for a partition unknown or not live, whose next row takes the slow
// way), its words, partition q's at q·words, and its raw rows.
type steps struct {
	n    []uint32
	recs []uint64
	raw  [][]uint64
}

// stepShut marks the record of a partition that is unknown or not live.
const stepShut = math.MaxUint32

// stepFlushAt is the row count at which a record is merged into its panes
// before the close, so that its counts never saturate.
const stepFlushAt = 1 << 30

// size makes room for partitions [0, parts), the new ones shut.
func (st *steps) size(sp *stepPlan, parts int) {
	for len(st.n) < parts {
		st.n = append(st.n, stepShut)
		st.raw = append(st.raw, nil)
		st.recs = append(st.recs, sp.empty...)
	}
}

// rec returns partition q's record.
func (st *steps) rec(sp *stepPlan, q int32) []uint64 {
	at := int(q) * sp.words
	return st.recs[at : at+sp.words : at+sp.words]
}

// open makes partition q's record take rows, empty.
func (st *steps) open(q int32) { st.n[q] = 0 }

// close drops partition q's step and shuts its record.
func (st *steps) close(sp *stepPlan, q int32) {
	if int(q) < len(st.n) {
		st.n[q] = stepShut
		copy(st.rec(sp, q), sp.empty)
		st.raw[q] = st.raw[q][:0]
	}
}

// bytes returns the memory the records hold.
func (st *steps) bytes() int {
	n := 4*cap(st.n) + 8*cap(st.recs) + 24*cap(st.raw)
	for _, r := range st.raw {
		n += 8 * cap(r)
	}
	return n
}

// take folds row i of enc into record r.
func (sp *stepPlan) take(r []uint64, enc [][]uint64, i int, t int64) {
	for j := range sp.moms {
		m := &sp.moms[j]
		x := math.Float64frombits(enc[m.slot-1][i])
		if x-x != 0 { // NaN or ±Inf: missing
			continue
		}
		if m.nOff >= 0 {
			r[m.nOff]++
		}
		f := r[m.off:]
		s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
		hi := s + x
		bb := hi - s
		c += (s - (hi - bb)) + (x - bb)
		f[0], f[1] = math.Float64bits(hi), math.Float64bits(c)
		if !m.squares {
			continue
		}
		q, qc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
		if math.Abs(x) >= bigSquare || math.IsInf(q, 1) {
			q, qc = math.Inf(1), 0 // a value whose square is not summed (bigSquare)
		} else {
			sq := x * x
			sqe := math.FMA(x, x, -sq)
			hq := q + sq
			qb := hq - q
			qc += (q - (hq - qb)) + (sq - qb) + sqe
			q = hq
		}
		f[2], f[3] = math.Float64bits(q), math.Float64bits(qc)
	}
	for _, e := range sp.exts {
		x := math.Float64frombits(enc[e.slot-1][i])
		if x != x {
			continue
		}
		f := r[e.off:]
		if lo := math.Float64frombits(f[0]); x < lo || lo != lo {
			f[0] = math.Float64bits(x)
		}
		if hi := math.Float64frombits(f[1]); x > hi || hi != hi {
			f[1] = math.Float64bits(x)
		}
	}
	sp.takeCounts(r, enc, i, t)
}

// takeCounts folds row i of enc, at t, into record r's counts, firsts
// and lasts.
func (sp *stepPlan) takeCounts(r []uint64, enc [][]uint64, i int, t int64) {
	for _, c := range sp.counts {
		b := enc[c.slot-1][i]
		if c.number && math.Float64frombits(b) == math.Float64frombits(b) || !c.number && b != 0 {
			r[c.off]++
		}
	}
	for _, fl := range sp.fls {
		bits := enc[fl.slot-1][i]
		if fl.number && math.Float64frombits(bits) != math.Float64frombits(bits) || !fl.number && bits == 0 {
			continue
		}
		f := r[fl.off:][:4]
		if t < int64(f[0]) {
			f[0], f[1] = uint64(t), bits
		}
		if t >= int64(f[2]) {
			f[2], f[3] = uint64(t), bits
		}
	}
}

// bufferStep folds rows [from, to) of in into their partitions' open-step
// records: column by column when it can (see stepColumns), else row by
// row. Either way each record takes its rows in their order, so its sums
// are the same.
func (g *Group) bufferStep(in *Rows, parts []int32, from, to int) {
	if parts == nil {
		// One partition: partition 0 for every row.
		if len(g.zeros) < to {
			g.zeros = make([]int32, to)
		}
		parts = g.zeros[:to]
	}
	if g.stepColumns(in, parts[from:to], from, to) {
		return
	}
	sp, st := &g.p.st, &g.st
	lo := g.stepStart()
	for i := from; i < to; i++ {
		var q int32
		if parts != nil {
			q = parts[i]
		}
		t := in.Times[i]
		if int(q) >= len(st.n) || st.n[q] >= stepFlushAt || t < lo {
			if !g.stepSlow(q, in, i, t, lo) {
				continue
			}
		}
		st.n[q]++
		sp.take(st.rec(sp, q), in.Enc, i, t)
		for _, s := range sp.raw {
			st.raw[q] = append(st.raw[q], in.Enc[s-1][i])
		}
	}
}

// stepStart returns the start of the open step: the rows before the next
// boundary and from it are in its pane of every window.
func (g *Group) stepStart() int64 {
	if g.next == math.MaxInt64 {
		return math.MaxInt64 // the end of time: no record takes a row
	}
	return g.next - g.p.step
}

// stepSlow readies partition q's record for row i of in, at t, and
// reports whether the record takes it: a partition not live wakes with an
// empty record; a record about to saturate is merged into its panes
// first; a row before the open step (which ordered rows never are) goes
// straight into its panes instead.
func (g *Group) stepSlow(q int32, in *Rows, i int, t, lo int64) bool {
	switch {
	case t < lo:
		g.add(g.part(q), in, i, t)
		return false
	case int(q) >= len(g.st.n) || g.st.n[q] == stepShut:
		g.wake(g.part(q), t)
		g.st.open(q)
	default:
		g.flushStep(q, g.parts[q], floorDiv(lo-g.p.anchor, g.p.step))
	}
	return true
}

// flushStep merges partition q's open-step record into its windows'
// panes k, the step's, and empties it.
func (g *Group) flushStep(q int32, pt *part, k int64) {
	g.mergeStep(q, pt, k, false)
	g.st.empty(&g.p.st, q)
}

// viewed reports whether window w of partition pt reads its row at a
// closing from the open-step record: a window of one pane, the step's,
// whose ring holds nothing (rows merged into the ring before, which only
// a change of lateness or a saturating record does, make it read the
// ring instead).
func (g *Group) viewed(pt *part, w int) bool {
	return g.p.st.wins[w].view && pt.wins[w].n == 0
}

// stepRows returns the number of rows in partition q's record.
func (st *steps) rows(q int32) int64 {
	if int(q) >= len(st.n) || st.n[q] == stepShut {
		return 0
	}
	return int64(st.n[q])
}

// empty empties partition q's record (one that takes rows stays open).
func (st *steps) empty(sp *stepPlan, q int32) {
	if st.rows(q) == 0 {
		return
	}
	copy(st.rec(sp, q), sp.empty)
	st.raw[q] = st.raw[q][:0]
	st.n[q] = 0
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
			if len(wp.raws) > 0 {
				ws.raw.pushStep(st.raw[q], len(sp.raw), sw.raws, k)
			}
			continue
		}
		markRow(cs)
		if wp.hasRows {
			addCount(cs, 0, n)
		}
		for i := range wp.moments {
			mergeMoment(&wp.moments[i], &sp.moms[sw.moms[i]], r, pr, cs, n)
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
			ws.raw.pushStep(st.raw[q], len(sp.raw), sw.raws, k)
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
	k := floorDiv(g.stepStart()-g.p.anchor, g.p.step)
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

// stepColumns folds rows [from, to) of in, of partitions parts, into
// their records one item at a time (each pass a short loop over the
// rows, the records in cache), when the rows (in time order) are in the
// open step and no record is near saturation; it reports false, folding
// nothing (but opening the records of partitions not live), otherwise.
func (g *Group) stepColumns(in *Rows, parts []int32, from, to int) bool {
	sp, st := &g.p.st, &g.st
	lo := g.stepStart()
	times := in.Times[from:to]
	times = times[:len(parts)]
	if len(parts) >= stepFlushAt {
		return false
	}
	if len(parts) > 0 && times[0] < lo {
		return false // rows come in time order: the first is the earliest
	}
	// Count each row in, opening the records of partitions not live; a
	// record near saturation undoes the counts and leaves the rows to the
	// row-by-row path.
	limit := uint32(stepFlushAt - len(parts))
	n := st.n
	for i, q := range parts {
		if int(q) < len(n) && n[q] <= limit {
			n[q]++
			continue
		}
		if int(q) < len(n) && n[q] != stepShut {
			for _, q := range parts[:i] {
				n[q]--
			}
			return false
		}
		g.wake(g.part(q), times[i])
		st.open(q)
		n = st.n
		n[q]++
	}
	w := sp.words
	for _, f := range sp.folds {
		xs := in.Enc[f.slot-1][from:to]
		switch {
		case f.mom < 0:
			foldExtremes(st.recs, w, f.ext, parts, xs)
		case !sp.moms[f.mom].squares:
			m := &sp.moms[f.mom]
			foldSums(st.recs, w, m.off, m.nOff, parts, xs)
			if f.ext >= 0 {
				foldExtremes(st.recs, w, f.ext, parts, xs)
			}
		default:
			m := &sp.moms[f.mom]
			foldSquares(st.recs, w, m.off, m.nOff, f.ext, parts, xs)
		}
	}
	if len(sp.counts)+len(sp.fls) > 0 {
		for i := from; i < to; i++ {
			sp.takeCounts(st.rec(sp, parts[i-from]), in.Enc, i, in.Times[i])
		}
	}
	if len(sp.raw) == 1 {
		xs := in.Enc[sp.raw[0]-1][from:to]
		xs = xs[:len(parts)]
		for i, q := range parts {
			st.raw[q] = append(st.raw[q], xs[i])
		}
	} else if len(sp.raw) > 1 {
		for i := from; i < to; i++ {
			q := parts[i-from]
			for _, s := range sp.raw {
				st.raw[q] = append(st.raw[q], in.Enc[s-1][i])
			}
		}
	}
	return true
}

// foldSums adds the finite values xs, row i's to the record of partition
// parts[i] (w words a record), to the sum at word off and counts them at
// word nOff (none when negative).
func foldSums(recs []uint64, w, off, nOff int, parts []int32, xs []uint64) {
	xs = xs[:len(parts)]
	for i, q := range parts {
		x := math.Float64frombits(xs[i])
		if x-x != 0 { // NaN or ±Inf: missing
			continue
		}
		at := int(q)*w + off
		if nOff >= 0 {
			recs[int(q)*w+nOff]++
		}
		f := recs[at : at+2 : at+2]
		s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
		hi := s + x
		bb := hi - s
		c += (s - (hi - bb)) + (x - bb)
		f[0], f[1] = math.Float64bits(hi), math.Float64bits(c)
	}
}

// foldSquares is foldSums adding the squares too, to the words after the
// sum (see bigSquare for values whose square is not summed), and, when
// ext is not negative, foldExtremes at word ext: one pass over a column
// that has a stdev, a min and a max.
func foldSquares(recs []uint64, w, off, nOff, ext int, parts []int32, xs []uint64) {
	xs = xs[:len(parts)]
	for i, q := range parts {
		x := math.Float64frombits(xs[i])
		if ext >= 0 && x == x {
			foldExtreme(recs[int(q)*w+ext:][:2], x)
		}
		if x-x != 0 {
			continue
		}
		at := int(q)*w + off
		if nOff >= 0 {
			recs[int(q)*w+nOff]++
		}
		f := recs[at : at+4 : at+4]
		s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
		hi := s + x
		bb := hi - s
		c += (s - (hi - bb)) + (x - bb)
		f[0], f[1] = math.Float64bits(hi), math.Float64bits(c)
		q, qc := math.Float64frombits(f[2]), math.Float64frombits(f[3])
		if math.Abs(x) >= bigSquare || math.IsInf(q, 1) {
			f[2], f[3] = math.Float64bits(math.Inf(1)), 0
			continue
		}
		sq := x * x
		sqe := math.FMA(x, x, -sq)
		hq := q + sq
		qb := hq - q
		qc += (q - (hq - qb)) + (sq - qb) + sqe
		f[2], f[3] = math.Float64bits(hq), math.Float64bits(qc)
	}
}

// foldExtremes lowers the min at word off and raises the max after it
// with the present values xs.
func foldExtremes(recs []uint64, w, off int, parts []int32, xs []uint64) {
	xs = xs[:len(parts)]
	for i, q := range parts {
		x := math.Float64frombits(xs[i])
		if x != x {
			continue
		}
		foldExtreme(recs[int(q)*w+off:][:2], x)
	}
}

// foldExtreme lowers the min e[0] and raises the max e[1] (NaN: none
// yet) with x, which is not NaN.
func foldExtreme(e []uint64, x float64) {
	if !(x >= math.Float64frombits(e[0])) {
		e[0] = math.Float64bits(x)
	}
	if !(x <= math.Float64frombits(e[1])) {
		e[1] = math.Float64bits(x)
	}
}

// writePane writes the record r (n rows) as window wp's pane, in pane
// record pr and counts cs, made just now: what merging it into an empty
// pane gives, without clearing the pane first.
func (sp *stepPlan) writePane(wp *winPlan, sw *stepWin, r []uint64, n int64, pr []uint64, cs []uint32) {
	clear(cs)
	if wp.hasRows {
		cs[0] = uint32(min(n, countMax))
	}
	for i := range wp.moments {
		m, sm := &wp.moments[i], &sp.moms[sw.moms[i]]
		if !m.isRows {
			cs[m.nIdx] = uint32(min(int64(r[sm.nOff]), countMax))
		}
		f, src := pr[m.off:], r[sm.off:]
		f[0], f[1] = src[0], src[1]
		if m.squares {
			f[2], f[3] = src[2], src[3]
		}
	}
	for i, off := range sw.counts {
		cs[wp.cnt0+i] = uint32(min(int64(r[off]), countMax))
	}
	for i, off := range sw.exts {
		pr[wp.offExt+i] = r[off]
	}
	for i, off := range sw.fls {
		copy(pr[wp.offFL+4*i:][:4], r[off:][:4])
	}
	markRow(cs)
}

// emitStep appends window wp's outputs at a closing from partition q's
// open-step record: the window is one pane, the step's (see viewed).
func (g *Group) emitStep(w int, ws *winState, q int32, dsts []*table.Col) {
	p, sp, st := g.p, &g.p.st, &g.st
	wp, sw := &p.wins[w], &sp.wins[w]
	n := min(st.rows(q), countMax)
	if wp.minSamples > 0 && n < int64(wp.minSamples) {
		for _, o := range wp.outs {
			dsts[o.out].AppendMissing()
		}
		return
	}
	r := st.rec(sp, q)
	meanIdx, mh, ml := -1, 0.0, 0.0 // the mean of Moments meanIdx
	for _, o := range wp.outs {
		dst := dsts[o.out]
		switch o.kind {
		case oRows:
			dst.AppendNum(float64(n))
		case oN:
			dst.AppendNum(float64(sp.momCount(sw.moms[o.idx], r, n)))
		case oCount:
			dst.AppendNum(float64(min(r[sw.counts[o.idx]], countMax)))
		case oSum:
			f := r[sp.moms[sw.moms[o.idx]].off:]
			appendOpt(dst, math.Float64frombits(f[0])+math.Float64frombits(f[1]), true)
		case oAvg, oStdev:
			j := sw.moms[o.idx]
			cnt := sp.momCount(j, r, n)
			if cnt == 0 {
				dst.AppendMissing()
				continue
			}
			f := r[sp.moms[j].off:]
			s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
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
			appendOpt(dst, x, ok)
		case oMin, oMax:
			x := math.Float64frombits(r[sw.exts[o.idx]])
			appendOpt(dst, x, x == x)
		case oDiff:
			lo := math.Float64frombits(r[sw.exts[o.idx]])
			hi := math.Float64frombits(r[sw.exts[wp.maxOf(o.idx)]])
			appendOpt(dst, hi-lo, lo == lo)
		case oFirst, oLast:
			f := r[sw.fls[o.idx]:][:4]
			if int64(f[0]) == math.MaxInt64 {
				dst.AppendMissing()
				continue
			}
			bits := f[1]
			if o.kind == oLast {
				bits = f[3]
			}
			p.appendSlot(dst, wp.fls[o.idx], bits)
		case oRaw:
			g.emitStepRaw(w, ws, o.idx, st.raw[q], dst)
		}
	}
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
		dst.BeginArray()
		for j := c; j < len(raw); j += stride {
			bits := raw[j]
			switch rp.kind {
			case schema.Number:
				if x := math.Float64frombits(bits); x == x {
					dst.AppendElem(schema.NumberValue(x))
				}
			default:
				if bits != 0 {
					dst.AppendElem(p.value(rp.kind, bits, nil, 0))
				}
			}
		}
		dst.EndArray()
		return
	}
	st := ws.gen[i]
	st.Reset()
	for r, j := 0, c; j < len(raw); r, j = r+1, j+stride {
		st.Add(uint64(r), p.value(rp.kind, raw[j], nil, 0))
	}
	st.Append(dst)
}
