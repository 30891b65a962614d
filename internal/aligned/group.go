package aligned

import (
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/prefetch"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Keys gives the partition column's value of a partition index.
type Keys interface {
	KeyValue(p int32) schema.Value
}

// Rows is a block of source rows: their times and, per slot the plan
// reads, the encoded cells (a number's bits, an intern id, 0/1/2 for a
// boolean, 0/1 for an array's presence); Arrs holds the array columns
// (nil for the others).
type Rows struct {
	Times []int64
	Enc   [][]uint64
	Arrs  []*table.Col
	// First is the identity of the first row in the series (the rows'
	// are consecutive), read in held mode only (see Held).
	First uint64
}

// Group is the aligned state of a node: one set of windows per
// partition, and the clock's next boundary, which closes when the
// watermark — the latest time accepted minus the lateness the series
// accepts — reaches it.
type Group struct {
	p    *Plan
	keys Keys    // nil: rows carry no partition column
	sk   strKeys // keys as a strKeys when it is one (see putKeys)
	// keysTag names the emission order to the key column (see putKeys);
	// 0 after the order changed: the next closing takes a new tag.
	keysTag uint64
	parts   []*part
	order   []int32
	live    int   // partitions whose windows hold or will hold a row
	next    int64 // the first boundary not closed
	started bool
	latest  int64
	lag     int64
	since   int          // rows taken since the last closing (see splitClose)
	sc      closeScratch // the closing's scratch on the caller's goroutine
	first   int          // output column of the first aggregation
	free    []*part

	par   parClose // closings split over workers (see parallel.go)
	in    inboxes  // the rows not yet in the panes (see inbox.go)
	st    steps    // the open step's records, when stepped (see step.go)
	zeros []int32  // the partition of every row when rows carry none
	// rawCols is a push's columns of the step's raw slots (scratch).
	rawCols [][]uint64

	hold *heldState // held mode: the samples are read from the series' rows (see Held)

	direct  bool // the plan reads an array column: rows are added as they come
	stepped bool // rows are folded into open-step records (else they wait in inboxes)
}

// part is one partition's windows.
type part struct {
	wins []winState
	live bool
	// huge: the partition holds a huge value's sum (see hugeValue), in
	// its lane or in a pane of a window; its closings take the generic
	// path.
	huge bool
	maxT int64
	lane []float64 // the open step's lane: per step Moments j, Σx of its huge values at 2j, 2j+1
}

// NewGroup returns an empty group. keys, when not nil, gives the key of
// each partition for the column after the time; first is the output
// column of the first aggregation; lag is how late an accepted row may
// be (the series' grace under reorder, 0 under strict or drop ordering).
func (p *Plan) NewGroup(keys Keys, first int, lag int64) *Group {
	g := &Group{p: p, keys: keys, first: first, lag: lag, in: inboxes{w: 1 + len(p.kinds)}}
	g.sk, _ = keys.(strKeys)
	for _, k := range p.kinds {
		g.direct = g.direct || k == schema.Array
	}
	g.stepped = !g.direct && p.st.ok && lag == 0
	return g
}

// drain adds the rows of partition q's inbox to its panes, pt. A
// partition with waiting rows is live, so it changes nothing but the
// partition and its inbox.
func (g *Group) drain(q int32, pt *part) {
	rows := g.in.waiting(q)
	if rows.len() == 0 {
		return
	}
	g.addRows(pt, rows)
	g.in.n[q] = 0
}

// SetLag sets how late an accepted row may be, in nanoseconds; the plan
// must have been sized for it ([Plan.SetLateness]).
func (g *Group) SetLag(lag int64) {
	if lag = max(lag, 0); lag != g.lag {
		g.lag = lag
		g.settle()
	}
}

// Len returns the number of partitions the group knows.
func (g *Group) Len() int { return len(g.order) }

// Declare makes partition q known (last in the emission order) before any
// of its rows arrive.
func (g *Group) Declare(q int32) { g.part(q) }

func (g *Group) part(q int32) *part {
	for int(q) >= len(g.parts) {
		g.parts = append(g.parts, nil)
	}
	switch {
	case g.stepped:
		g.st.size(&g.p.st, len(g.parts))
	case !g.direct:
		g.in.size(len(g.parts))
	}
	pt := g.parts[q]
	if pt == nil {
		if n := len(g.free); n > 0 {
			pt = g.free[n-1]
			g.free = g.free[:n-1]
		} else {
			pt = &part{wins: make([]winState, len(g.p.wins))}
			for w := range g.p.wins {
				pt.wins[w] = g.p.newWin(&g.p.wins[w])
			}
		}
		g.parts[q] = pt
		g.order = append(g.order, q)
		if g.hold != nil {
			g.heldMade(q)
		}
		g.keysTag = 0
	}
	return pt
}

// Remove forgets partition q; a later row for the index starts afresh.
func (g *Group) Remove(q int32) {
	if int(q) >= len(g.parts) || g.parts[q] == nil {
		return
	}
	pt := g.parts[q]
	if pt.live {
		g.live--
		pt.live = false
	}
	g.in.close(q) // its waiting rows leave with it
	g.st.close(&g.p.st, q)
	clear(pt.lane)
	pt.huge = false
	// Its windows are emptied now, not only when it wakes: they may hold
	// strings (samples, first, last, keep, unique, top) of a key gone.
	for w := range pt.wins {
		pt.wins[w].reset(&g.p.wins[w], 0, 0)
	}
	g.parts[q] = nil
	g.free = append(g.free, pt)
	g.keysTag = 0
	keep := g.order[:0]
	for _, x := range g.order {
		if x != q {
			keep = append(keep, x)
		}
	}
	g.order = keep
}

// Push takes the rows in order, row i in partition part[i] (partition 0
// for all when part is nil), and appends to out one row per partition
// whose windows hold a row at each boundary the rows close: boundaries in
// time order, partitions in first-seen order within a boundary.
func (g *Group) Push(in *Rows, part []int32, out *schema.Table) {
	if h := g.hold; h != nil {
		if !g.started {
			h.stepFrom = in.First
		}
		h.at = in.First
		defer func() {
			if g.hold != nil {
				g.hold.at = in.First + uint64(len(in.Times))
			}
		}()
	}
	if n := len(in.Times); g.started && g.lag == 0 && n > 0 {
		// Without lateness the rows come in time order: when the last is
		// before the next boundary, none closes one.
		if last := in.Times[n-1]; last < g.next && last >= g.latest {
			g.latest = last
			g.buffer(in, part, 0, n)
			return
		}
	}
	from := 0
	for i, t := range in.Times {
		if !g.started || t > g.latest {
			g.latest = t
		}
		wm := g.latest - g.lag
		if !g.started {
			g.started = true
			g.next = g.after(wm)
		} else if wm >= g.next {
			// Row i closes boundaries: the rows before it go first.
			g.buffer(in, part, from, i)
			from = i
			if g.hold != nil {
				g.hold.closeID = in.First + uint64(i)
			}
			g.closeTo(wm, out)
		}
	}
	g.buffer(in, part, from, len(in.Times))
}

// Due reports whether a row accepted at t by the series would close a
// boundary of g (see [Group.Advance]).
func (g *Group) Due(t int64) bool {
	return g.started && g.hold == nil && max(g.latest, t)-g.lag >= g.next
}

// Advance closes the boundaries that the series accepting a row at t
// closes, for a group that is given only some of the series' rows (behind
// a view that drops rows): its latest time becomes t when t is later, and
// the partitions whose windows hold a row emit at each boundary closed, as
// in [Group.Push]. The group's rows of the push have all been given: a
// boundary closes only once no row before it can still come, so those of
// its rows at or after the boundary are in later panes, where Push under
// a lateness puts them too.
func (g *Group) Advance(t int64, out *schema.Table) {
	if !g.Due(t) {
		return
	}
	g.latest = max(g.latest, t)
	g.closeTo(g.latest-g.lag, out)
}

// buffer takes rows [from, to) of in: into the pending rows, or straight
// into their panes when the plan reads arrays.
func (g *Group) buffer(in *Rows, parts []int32, from, to int) {
	if from >= to {
		return
	}
	g.since += to - from
	if g.stepped {
		g.bufferStep(in, parts, from, to)
		return
	}
	if g.direct {
		for i := from; i < to; i++ {
			var q int32
			if parts != nil {
				q = parts[i]
			}
			g.add(g.part(q), in, i, in.Times[i])
		}
		return
	}
	ib := &g.in
	w := ib.w
	for i := from; i < to; i++ {
		var q int32
		if parts != nil {
			q = parts[i]
		}
		var n int
		if int(q) < len(ib.n) && ib.n[q] != inboxShut {
			n = int(ib.n[q])
		} else {
			g.admit(q, in.Times[i])
		}
		at := (int(q)*inboxRows + n) * w
		row := ib.rows[at : at+w]
		row[0] = uint64(in.Times[i])
		for k, c := range in.Enc {
			row[1+k] = c[i]
		}
		ib.n[q] = uint8(n + 1)
		if n+1 == inboxRows {
			g.drain(q, g.parts[q])
		}
	}
}

// admit makes partition q known and live, from a row at t, its inbox
// open and empty.
func (g *Group) admit(q int32, t int64) {
	g.wake(g.part(q), t)
	g.in.open(q)
}

// after returns the first boundary later than t, or the first at or
// after [schema.MinTime] for a t before it (a watermark the lateness takes
// below the range): no window closed at such a boundary holds a row, and
// t − anchor then stays within an int64.
func (g *Group) after(t int64) int64 {
	p := g.p
	t = max(t, schema.MinTime-1)
	b := p.anchor + floorDiv(t-p.anchor, p.step)*p.step
	if b > math.MaxInt64-p.step {
		return math.MaxInt64
	}
	return b + p.step
}

// closeTo closes every boundary up to wm, emitting at each.
func (g *Group) closeTo(wm int64, out *schema.Table) {
	for g.next <= wm {
		if g.live == 0 {
			g.next = g.after(wm)
			if g.hold != nil {
				g.hold.stepFrom = g.hold.closeID
			}
			return
		}
		g.close(g.next, out)
		if g.next > math.MaxInt64-g.p.step {
			g.next = math.MaxInt64
			return
		}
		g.next += g.p.step
	}
}

// add puts row i of in, at time t, in partition pt's panes.
func (g *Group) add(pt *part, in *Rows, i int, t int64) {
	p := g.p
	g.wake(pt, t)
	pt.maxT = max(pt.maxT, t)
	for w := range pt.wins {
		wp := &p.wins[w]
		ws := &pt.wins[w]
		s := ws.curSlot
		if t < ws.curS || t >= ws.curE {
			k := floorDiv(t-p.anchor, wp.width)
			if k < ws.hi {
				continue // before the window at the next boundary
			}
			s = ws.pane(wp, k)
			if s < 0 {
				continue
			}
			ws.curK = k
			ws.curS = p.anchor + k*wp.width
			ws.curE = ws.curS + wp.width
			ws.curSlot = s
		}
		p.addRow(wp, ws, s, t, in.Enc, i)
		pt.huge = pt.huge || ws.nScaled > 0
		if len(wp.raws) > 0 {
			ws.raw.push(wp, in, i, t, ws.curK)
		}
	}
}

// wake makes a dormant partition live, its windows empty and placed at
// the next boundary, for a row at t.
func (g *Group) wake(pt *part, t int64) {
	if pt.live {
		return
	}
	p := g.p
	pt.live = true
	g.live++
	pt.maxT = t
	for w := range pt.wins {
		wp := &p.wins[w]
		k := p.paneOf(g.next, wp.width)
		pt.wins[w].reset(wp, k-wp.spanPanes, k-wp.stepPanes)
	}
}

// closeRange is the closing of boundary b for the partitions at
// [lo, hi) of the emission order: each live one whose windows hold a row
// appends its row to out, then its windows slide to the next boundary. It
// touches nothing but those partitions, out and sc, and returns how many
// of them went dormant.
func (g *Group) closeRange(lo, hi int, b int64, out *schema.Table, sc *closeScratch) (dormant int) {
	p := g.p
	if cap(sc.dsts) < p.nOut {
		sc.dsts = make([]*table.Col, p.nOut)
	}
	dsts := sc.dsts[:p.nOut]
	for j := range dsts {
		dsts[j] = table.Column(out, g.first+j)
	}
	// Each window's bounds at b and at the next boundary: two divisions a
	// window once a closing, not once a partition.
	his, los := sc.his[:0], sc.los[:0]
	for w := range p.wins {
		wp := &p.wins[w]
		k := p.paneOf(b, wp.width)
		his = append(his, k)
		los = append(los, k+wp.stepPanes-wp.spanPanes)
	}
	sc.his, sc.los = his, los
	order := g.order[lo:hi]
	sc.ready(p, out, g.first, len(order))
	e := 0                       // rows emitted
	k := p.paneOf(b, p.step) - 1 // the closing step's pane, when stepped
	if g.stepped && p.steady.ok {
		g.steadyBounds(k, sc)
	}
	for i, q := range order {
		// The pane that leaves, filled a window's span ago, is out of
		// every cache: it is loaded a few partitions ahead.
		if i+prefetchAhead < len(order) {
			g.parts[order[i+prefetchAhead]].prefetchOldest(p)
		}
		pt := g.parts[q]
		if g.stepped && p.steady.ok {
			if done, held := g.closeSteady(q, pt, k, b, out, dsts, sc, e); done {
				if !held && pt.maxT < b {
					pt.live = false
					g.st.n[q] = stepShut
					dormant++
				}
				e++
				continue
			}
		}
		if g.stepped {
			g.mergeStep(q, pt, k, true)
		} else {
			g.drain(q, pt)
		}
		if !pt.live {
			continue
		}
		held := false
		for w := range pt.wins {
			wp := &p.wins[w]
			ws := &pt.wins[w]
			hi := his[w]
			ws.curS, ws.curE = 0, 0
			if ws.hi < ws.base {
				ws.hi = ws.base
			}
			for end := min(hi, ws.base+int64(ws.n)); ws.hi < end; ws.hi++ {
				ws.enter(wp, ws.hi)
			}
			ws.hi = max(ws.hi, hi) // panes past the ring are empty
			if (ws.nScaled > 0 || ws.sumsScaled) && !wp.single {
				ws.rebuild = true // see resumScaled
			}
			if ws.rebuild {
				ws.resum(wp) // a sum faded beside a larger one (see fadeRatio)
			}
			held = held || ws.held(wp) || g.stepped && g.viewed(pt, w) && g.st.rows(q) > 0
		}
		if held {
			sc.times[e] = b
			if g.keys != nil {
				sc.parts[e] = q
			}
			for w := range pt.wins {
				wp := &p.wins[w]
				switch view := g.stepped && g.viewed(pt, w); {
				case view && wp.fast.ok && !pt.huge:
					g.emitStepFast(w, &pt.wins[w], q, dsts, sc.cols, e)
				case view:
					g.emitStep(w, &pt.wins[w], q, dsts, sc.cols, e)
				case wp.fast.ok && !wp.single && !pt.wins[w].sumsScaled:
					p.emitFast(wp, &pt.wins[w], b, dsts, sc.cols, e)
				default:
					p.emit(wp, &pt.wins[w], b, dsts, sc.cols, e)
				}
			}
			e++
		}
		// Slide to the next boundary: the panes before its window leave.
		empty := true
		for w := range pt.wins {
			wp := &p.wins[w]
			ws := &pt.wins[w]
			lo := los[w]
			for ws.base < lo && ws.n > 0 {
				if ws.nScaled > 0 {
					ws.leaveScaled(wp)
				} else {
					ws.leave(wp)
				}
			}
			if ws.base < lo {
				ws.base = lo
			}
			if (ws.nScaled > 0 || ws.sumsScaled) && !wp.single {
				ws.rebuild = true
			}
			if ws.rebuild {
				ws.resum(wp)
			}
			p.retireFL(wp, ws)
			if !wp.single {
				for i := range ws.exts {
					ws.exts[i].RemoveBefore(seqOf(lo))
				}
			}
			if len(wp.raws) > 0 {
				ws.raw.dropBefore(lo)
			}
			empty = empty && !ws.held(wp)
		}
		if g.stepped {
			g.st.empty(&g.p.st, q)
			pt.clearLane()
		}
		if empty && pt.maxT < b {
			pt.live = false
			if g.stepped {
				g.st.n[q] = stepShut // emptied above
			} else {
				g.in.close(q)
			}
			dormant++
		}
	}
	if g.keys != nil {
		g.putKeys(table.Column(out, 1), sc, e, lo, hi)
	}
	sc.flush(p, out, g.first, e)
	return dormant
}

// prefetchAhead is how many partitions ahead a close loads the pane
// that leaves.
const prefetchAhead = 4

// prefetchOldest starts loading the oldest pane of each window of more
// than one pane (its words and its counts), the one a close takes out of
// the window. The rest of what a close touches (the partition's inbox,
// window states, newest pane, raw rows) was touched at the last close or
// since and is left to the caches: loading it ahead cost more than it
// saved.
func (pt *part) prefetchOldest(p *Plan) {
	for _, w := range p.panes {
		ws, wp := &pt.wins[w], &p.wins[w]
		if ws.cap == 0 {
			continue
		}
		c := unsafe.Pointer(&ws.cring[ws.head*wp.nCounts])
		if wp.stride > 0 {
			prefetch.Two(unsafe.Pointer(&ws.ring[ws.head*wp.stride]), c)
		} else {
			prefetch.Line(c)
		}
	}
}

// retireFL moves the first/last pointers off the panes that left.
func (p *Plan) retireFL(wp *winPlan, ws *winState) {
	for i := range wp.fls {
		if ws.lp[i] != noPane && ws.lp[i] < ws.base {
			ws.fp[i], ws.lp[i] = noPane, noPane
			continue
		}
		if ws.fp[i] == noPane || ws.fp[i] >= ws.base {
			continue
		}
		ws.fp[i] = noPane
		for k := ws.base; k < ws.hi && k-ws.base < int64(ws.n); k++ {
			if r, _ := ws.recOf(wp, k); int64(r[wp.offFL+4*i]) != math.MaxInt64 {
				ws.fp[i] = k
				break
			}
		}
	}
}

// emit appends window ws's outputs at boundary b: a number output's
// value to its cell (cols[o.cell][e]), another's to its column.
func (p *Plan) emit(wp *winPlan, ws *winState, b int64, dsts []*table.Col, cols [][]float64, e int) {
	if wp.minSamples > 0 && ws.rows < int64(wp.minSamples) {
		emitMissing(wp, dsts, cols, e)
		return
	}
	meanIdx, mh, ml := -1, 0.0, 0.0 // the mean of Moments meanIdx
	var pane []uint64
	slot := -1 // the ring slot of pane, for its units (see hugeValue)
	if wp.single {
		pane = ws.onePane(wp)
		if pane != nil {
			slot = ws.slot(int(ws.hi - 1 - ws.base))
		}
	}
	for _, o := range wp.outs {
		switch o.kind {
		case oRows:
			cols[o.cell][e] = float64(ws.rows)
		case oN:
			cols[o.cell][e] = float64(ws.ns[o.idx])
		case oCount:
			cols[o.cell][e] = float64(ws.cnts[o.idx])
		case oSum:
			s, c, _, _ := ws.sumsOf(wp, o.idx, pane)
			cols[o.cell][e] = sumOf(s, c, ws.scaledSums(wp, o.idx, slot))
		case oAvg, oStdev:
			// An avg and a stdev of one column divide its sum once.
			s, c, q, qc := ws.sumsOf(wp, o.idx, pane)
			n := ws.ns[o.idx]
			if n == 0 {
				cols[o.cell][e] = math.NaN()
				continue
			}
			if ws.scaledSums(wp, o.idx, slot) {
				// A huge value is held: the mean in units of 2^128, no
				// stdev (its square is not summed).
				x, ok := meanOf(s, c, n, true)
				cols[o.cell][e] = opt(x, ok && o.kind == oAvg)
				continue
			}
			if o.idx != meanIdx {
				meanIdx = o.idx
				mh, ml = ddDivF(s, c, float64(n))
			}
			var x float64
			var ok bool
			if o.kind == oAvg {
				x, ok = meanFrom(mh, ml)
			} else {
				x, ok = stdevFrom(s, q, qc, n, mh, ml)
			}
			cols[o.cell][e] = opt(x, ok)
		case oMin, oMax:
			x, ok := ws.extremeOf(wp, o.idx, pane)
			cols[o.cell][e] = opt(x, ok)
		case oDiff:
			lo, ok := ws.extremeOf(wp, o.idx, pane)
			hi, _ := ws.extremeOf(wp, wp.maxOf(o.idx), pane)
			cols[o.cell][e] = opt(hi-lo, ok)
		case oFirst, oLast:
			k, at := ws.fp[o.idx], 1
			if o.kind == oLast {
				k, at = ws.lp[o.idx], 3
			}
			if k == noPane {
				p.putMissing(o, dsts, cols, e)
				continue
			}
			r, _ := ws.recOf(wp, k)
			r = r[wp.offFL+4*o.idx:][:4]
			p.putSlot(o, wp.fls[o.idx], r[at], dsts, cols, e)
		case oRaw:
			p.emitRaw(wp, ws, o.idx, b, dsts[o.out])
		}
	}
}

// emitMissing appends every output of window wp missing.
func emitMissing(wp *winPlan, dsts []*table.Col, cols [][]float64, e int) {
	for _, o := range wp.outs {
		if o.cell >= 0 {
			cols[o.cell][e] = math.NaN()
		} else {
			dsts[o.out].AppendMissing()
		}
	}
}

// putMissing appends output o missing.
func (p *Plan) putMissing(o outPlan, dsts []*table.Col, cols [][]float64, e int) {
	if o.cell >= 0 {
		cols[o.cell][e] = math.NaN()
	} else {
		dsts[o.out].AppendMissing()
	}
}

// putSlot appends output o, the encoded value bits of slot: a number to
// its cell, another to its column.
func (p *Plan) putSlot(o outPlan, slot int, bits uint64, dsts []*table.Col, cols [][]float64, e int) {
	if o.cell >= 0 {
		cols[o.cell][e] = math.Float64frombits(bits)
		return
	}
	p.appendSlot(dsts[o.out], slot, bits)
}

func (p *Plan) appendSlot(dst *table.Col, slot int, bits uint64) {
	switch p.kinds[slot-1] {
	case schema.Number:
		dst.AppendNum(math.Float64frombits(bits))
	case schema.String:
		dst.AppendStr(p.syms.Str(uint32(bits)))
	case schema.Bool:
		dst.AppendBool(bits == 2)
	default:
		dst.AppendMissing()
	}
}

// opt returns x when ok and x is finite, else a missing cell (NaN, as a
// number column keeps one).
func opt(x float64, ok bool) float64 {
	if !ok || x-x != 0 {
		return math.NaN()
	}
	return x
}

// Bytes returns the memory the group's partitions hold: pane rings, raw
// rows, extreme deques, aggregates and the structures around them.
func (g *Group) Bytes() int {
	n := int(unsafe.Sizeof(*g)) + g.sc.bytes() + 8*cap(g.parts) + 4*cap(g.order) + g.in.bytes() + g.st.bytes()
	if h := g.hold; h != nil {
		n += int(unsafe.Sizeof(*h)) + 8*cap(h.from) + 8*cap(h.cur) + int(unsafe.Sizeof(heldFill{}))*cap(h.filled) + 8*cap(h.curKey) + 4*cap(h.keys)
	}
	for _, pt := range g.parts {
		if pt == nil {
			continue
		}
		n += int(unsafe.Sizeof(*pt)) + int(unsafe.Sizeof(winState{}))*cap(pt.wins) + 8*cap(pt.lane)
		for w := range pt.wins {
			ws := &pt.wins[w]
			n += 8*(cap(ws.ring)+cap(ws.ns)+cap(ws.cnts)+4*cap(ws.sums)+cap(ws.qpeak)+cap(ws.fp)+cap(ws.lp)) + 4*cap(ws.cring) + ws.raw.bytes()
			if mk := ws.marks; mk != nil { // the huge values' marks (see huge.go)
				n += int(unsafe.Sizeof(*mk)) + cap(mk.scaled) + cap(mk.sumScaled)
			}
			for i := range ws.exts {
				n += int(unsafe.Sizeof(reducers.Extreme{})) + 16*ws.exts[i].Cap()
			}
			n += 16 * len(ws.gen) // interface headers
			for _, st := range ws.gen {
				n += st.Bytes()
			}
		}
	}
	return n
}
