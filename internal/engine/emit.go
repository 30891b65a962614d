package engine

import (
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// winEmit is the emission of one window's outputs, grouped by the state
// they read: an emission checks the window's warm-up once and runs one
// short loop per kind of state, without a switch per output. Each output
// is a column of its own, so the order in which an emission appends to
// the columns does not change the rows.
type winEmit struct {
	win        int
	minSamples int
	all        []int16   // every output of the window: all missing while it warms up
	moments    []momEmit // Moments states read once for their outputs
	rows       []int16   // outputs of the window's row count
	mins, maxs []stateOut
	samples    []slotOut // samples of a number column, copied from the deque
	other      []int16   // the outputs read one by one (emitOne)
}

// momEmit reads a Moments state once for up to one output of each of
// its readings: the count, sum, average and deviation (−1 for none).
type momEmit struct {
	idx             int
	n, sum, avg, sd int16
}

// stateOut is output out of the state at idx in its window's list.
type stateOut struct {
	idx int
	out int16
}

// slotOut is output out of the values of a deque slot; required: the
// slot's column is required, so that every row holds a value.
type slotOut struct {
	slot     int
	out      int16
	required bool
}

// emitPlan groups the plan's outputs by window and by the state they
// read. Outputs of the same Moments share one reading (a second output
// of the same reading, such as a repeated average, gets a reading of its
// own).
func (p *Plan) emitPlan() []winEmit {
	wes := make([]winEmit, len(p.wins))
	for w := range wes {
		wes[w].win, wes[w].minSamples = w, p.wins[w].minSamples
	}
	for j, o := range p.outs {
		we := &wes[o.win]
		out := int16(j)
		we.all = append(we.all, out)
		switch o.state {
		case stMoments:
			we.addMoment(o.idx, o.op, out)
		case stRows:
			we.rows = append(we.rows, out)
		case stMin:
			we.mins = append(we.mins, stateOut{o.idx, out})
		case stMax:
			we.maxs = append(we.maxs, stateOut{o.idx, out})
		case stSamples:
			if p.kinds[o.slot-1] == schema.Number {
				req := !p.src.Column(p.cols[o.slot-1]).Optional
				we.samples = append(we.samples, slotOut{o.slot, out, req})
				break
			}
			we.other = append(we.other, out)
		default:
			we.other = append(we.other, out)
		}
	}
	return wes
}

// addMoment places output out, reading op of the Moments at idx, in the
// first reading of that state with op's place free.
func (we *winEmit) addMoment(idx int, op reducers.Op, out int16) {
	role := func(me *momEmit) *int16 {
		switch op {
		case reducers.OpSum:
			return &me.sum
		case reducers.OpAvg:
			return &me.avg
		case reducers.OpStdev:
			return &me.sd
		}
		return &me.n
	}
	for k := range we.moments {
		if me := &we.moments[k]; me.idx == idx && *role(me) < 0 {
			*role(me) = out
			return
		}
	}
	me := momEmit{idx: idx, n: -1, sum: -1, avg: -1, sd: -1}
	*role(&me) = out
	we.moments = append(we.moments, me)
}

// Emit appends the current value of every output, in declaration order,
// to out's aggregation columns (from [Plan.FirstOutput] on). The caller
// appends the time and partition cells. Outputs of a window still warming
// up are missing.
func (e *Engine) Emit(out *schema.Table) {
	p := e.p
	if cap(p.dsts) < len(p.outs) {
		p.dsts = make([]*table.Col, len(p.outs))
	}
	dsts := p.dsts[:len(p.outs)]
	for j := range dsts {
		dsts[j] = table.Column(out, p.first+j)
	}
	es := [1]*Engine{e}
	p.emitRows(es[:], dsts)
}

// emitRows appends one row per engine of es (at most emitRun), in order,
// to the output columns dsts: Emit for several engines at once, output by
// output. A tick emits its partitions a few dozen at a time, just after
// folding them: each output's plan is read once per run of partitions,
// and each number column grows once and is written in place.
func (p *Plan) emitRows(es []*Engine, dsts []*table.Col) {
	dsts = dsts[:len(p.outs)]
	var r winRun
	for k := range p.emits {
		we := &p.emits[k]
		if r.set(es, we.win) {
			// The window holds no rows in any engine of the run (a
			// 200 ms window between a host's rows a second apart): its
			// states' readings are those of empty states, written
			// without reading the states.
			emitEmpty(we, len(es), dsts)
		} else {
			for _, me := range we.moments {
				emitMoments(es, &r, we.minSamples, &me, dsts)
			}
			wp := &p.wins[we.win]
			for _, o := range we.mins {
				col := dsts[o.out].GrowNums(len(es))
				off := wp.extAt(o.idx) // the same in every record
				for i, ws := range r.ws[:len(col)] {
					col[i] = optNum(ws.extremeAt(off).Value())
				}
				r.warmUp(col, we.minSamples)
			}
			for _, o := range we.maxs {
				col := dsts[o.out].GrowNums(len(es))
				off := wp.extAt(len(wp.mins) + o.idx)
				for i, ws := range r.ws[:len(col)] {
					col[i] = optNum(ws.extremeAt(off).Value())
				}
				r.warmUp(col, we.minSamples)
			}
		}
		// The readings of every engine, then the warm-up's missing
		// cells over them, if the window has a warm-up.
		for _, j := range we.rows {
			col := dsts[j].GrowNums(len(es))
			for i, h := range r.held[:len(col)] {
				col[i] = float64(h)
			}
			r.warmUp(col, we.minSamples)
		}
		for _, o := range we.samples {
			emitSamples(es, &r, we.minSamples, o, dsts[o.out])
		}
		for _, j := range we.other {
			o := &p.outs[j]
			for i, e := range es {
				if r.held[i] < we.minSamples {
					dsts[j].AppendMissing()
					continue
				}
				e.emitOne(r.ws[i], o, dsts[j], e.dq.tail)
			}
		}
	}
}

// winRun is one window of a run of engines being emitted: each engine's
// state of it and the rows it holds.
type winRun struct {
	ws   [emitRun]*winState
	held [emitRun]int
	mom  [emitRun]*reducers.Moments // each engine's first Moments of the window (see winPlan.momOff)
}

// set points r at window w of each engine of es, and reports whether
// the window holds no rows in any of them.
func (r *winRun) set(es []*Engine, w int) (empty bool) {
	var any uint64
	off := int(es[0].p.wins[w].momOff)
	for i, e := range es[:min(len(es), emitRun)] {
		ws := e.win(w)
		h := e.dq.tail - ws.head
		any |= h
		r.ws[i], r.held[i], r.mom[i] = ws, int(h), (*reducers.Moments)(unsafe.Add(unsafe.Pointer(ws), off))
	}
	return any == 0
}

// emitEmpty appends n rows to the outputs of we's Moments, minimums and
// maximums for windows that hold no rows: the readings of empty states
// (a count and a sum of 0; the mean, deviation, minimum and maximum
// missing), or all missing while the window warms up, as emitMoments and
// the extremes' loops read them, without reading the states: a window
// that holds no rows has no values in its states.
func emitEmpty(we *winEmit, n int, dsts []*table.Col) {
	zero := func(j int16) {
		if j >= 0 {
			clear(dsts[j].GrowNums(n))
		}
	}
	// Missing cells that the column's buffer holds already, from the
	// push before, are not written again (see table.Col.GrowMissing).
	missing := func(j int16) {
		if j >= 0 {
			dsts[j].GrowMissing(n)
		}
	}
	for _, me := range we.moments {
		if we.minSamples > 0 {
			missing(me.n)
			missing(me.sum)
		} else {
			zero(me.n)
			zero(me.sum)
		}
		missing(me.avg)
		missing(me.sd)
	}
	for _, o := range we.mins {
		missing(o.out)
	}
	for _, o := range we.maxs {
		missing(o.out)
	}
}

// warmUp sets col[i] to NaN (missing) where engine i's window holds
// fewer than minSamples rows.
func (r *winRun) warmUp(col []float64, minSamples int) {
	if minSamples == 0 {
		return
	}
	for i, h := range r.held[:len(col)] {
		if h < minSamples {
			col[i] = math.NaN()
		}
	}
}

// emitMoments appends, for each engine of es (at most emitRun), the
// readings me asks for of a Moments state of the window of r: missing
// while the window holds fewer than minSamples rows.
func emitMoments(es []*Engine, r *winRun, minSamples int, me *momEmit, dsts []*table.Col) {
	var ns, sums, avgs, sds []float64
	if me.n >= 0 {
		ns = dsts[me.n].GrowNums(len(es))
	}
	if me.sum >= 0 {
		sums = dsts[me.sum].GrowNums(len(es))
	}
	if me.avg >= 0 {
		avgs = dsts[me.avg].GrowNums(len(es))
	}
	if me.sd >= 0 {
		sds = dsts[me.sd].GrowNums(len(es))
	}
	ms := r.mom[:len(es)]
	reducers.ReadEach(ms, me.idx, ns, sums, avgs, sds)
	if minSamples == 0 {
		return
	}
	for i := range ms {
		if r.held[i] >= minSamples {
			continue
		}
		for _, col := range [...][]float64{ns, sums, avgs, sds} {
			if col != nil {
				col[i] = math.NaN()
			}
		}
	}
}

// emitSamples appends, for each engine of es (at most emitRun), the
// present numbers of slot in the rows of the window of r as one array
// cell: missing while the window holds fewer than minSamples rows. The
// run's elements and cells are each added at once and written in place,
// the elements as numbers (a wide column, which never holds a number
// slot's samples but for a test, takes them one by one).
func emitSamples(es []*Engine, r *winRun, minSamples int, o slotOut, dst *table.Col) {
	slot := o.slot
	held := r.held[:len(es)]
	if dst.Wide() {
		for i, e := range es {
			if held[i] < minSamples {
				dst.AppendMissing()
			} else {
				e.appendSamples(dst, r.ws[i].head, e.dq.tail, slot)
			}
		}
		return
	}
	total := 0
	for _, h := range held {
		if h >= minSamples {
			total += h
		}
	}
	base := dst.ElemsLen()
	elems := dst.GrowNumElems(total)
	flags, ends := dst.GrowArrays(len(es))
	flags, ends = flags[:len(es)], ends[:len(es)] // one check for the loop's indices
	k := 0
	for i, e := range es {
		h := held[i]
		if h < minSamples {
			flags[i] = cell.Missing
			ends[i] = int32(base + k)
			continue
		}
		flags[i] = cell.Present
		// The rows of a short window mostly lie in one block: then
		// their slots are read in one loop here. An empty window's
		// deque may have no block.
		if h > 0 {
			d := &e.dq
			st := int(d.stride)
			switch blk, j := d.slotOf(r.ws[i].head); {
			case j+h*st > len(blk):
				k += e.numbersTo(elems[k:], r.ws[i].head, d.tail, slot, o.required)
			case o.required && h <= shortSamples:
				// A value in every row: each row's, with no test; a few
				// rows slot by slot, without cutting runs first.
				for q := j + slot; q < j+h*st; q += st {
					elems[k] = math.Float64frombits(blk[q])
					k++
				}
			case o.required:
				run, src := elems[k:k+h], blk[j+slot:j+slot+(h-1)*st+1]
				for q := range run {
					run[q] = math.Float64frombits(src[q*st])
				}
				k += h
			default:
				for q := j + slot; q < j+h*st; q += st {
					if x := math.Float64frombits(blk[q]); x == x {
						elems[k] = x
						k++
					}
				}
			}
		}
		ends[i] = int32(base + k)
	}
	dst.DropNumElems(total - k)
}

// shortSamples is the most rows whose samples emitSamples copies slot by
// slot; more are copied as a run, with one check of the run's bounds.
const shortSamples = 4

// numbersIn sets dst's first elements to the present numbers among
// run[0], run[st], … and returns how many it set: at most len(dst). All
// of them are present when required is set.
func numbersIn(dst []float64, run []uint64, st int, required bool) int {
	if required {
		dst = dst[:(len(run)+st-1)/st]
		// The slot's index steps by st: no multiply, and a loop the
		// register allocator keeps tight whatever the stride's type.
		for q, r := 0, 0; q < len(dst); q, r = q+1, r+st {
			dst[q] = math.Float64frombits(run[r])
		}
		return len(dst)
	}
	k := 0
	for r := 0; r < len(run); r += st {
		if x := math.Float64frombits(run[r]); x == x {
			dst[k] = x
			k++
		}
	}
	return k
}

// numbersTo sets dst's first elements to the present numbers of slot in
// rows [from, to), at most len(dst), block by block, and returns how many
// it set; all of them are present when required is set.
func (e *Engine) numbersTo(dst []float64, from, to uint64, slot int, required bool) int {
	st := int(e.dq.stride)
	k := 0
	for from < to {
		blk, first, n := e.dq.seg(from)
		n = min(n, int(to-from))
		// The slots of the run's rows, from the first's on.
		k += numbersIn(dst[k:], blk[first*st+slot:(first+n-1)*st+slot+1], st, required)
		from += uint64(n)
	}
	return k
}

// optNum returns x, or NaN (a missing number cell) when ok is false.
func optNum(x float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return x
}

// emitOne appends output o of window state ws to dst: the outputs that
// read their own state or the deque, but for the samples of a number
// column.
func (e *Engine) emitOne(ws *winState, o *outPlan, dst *table.Col, tail uint64) {
	switch o.state {
	case stCount:
		dst.AppendNum(float64(ws.counts(&e.p.wins[o.win])[o.idx]))
	case stFirst:
		a := ws.head
		for a < tail && !e.present(o.slot, e.dq.row(a)[o.slot]) {
			a++
		}
		if a == tail {
			dst.AppendMissing()
		} else {
			e.appendSlot(dst, o.slot, a, e.dq.row(a)[o.slot])
		}
	case stLast:
		a := tail
		for a > ws.head && !e.present(o.slot, e.dq.row(a - 1)[o.slot]) {
			a--
		}
		if a == ws.head {
			dst.AppendMissing()
		} else {
			e.appendSlot(dst, o.slot, a-1, e.dq.row(a - 1)[o.slot])
		}
	case stSamples:
		dst.BeginArray()
		for a := ws.head; a < tail; a++ {
			if bits := e.dq.row(a)[o.slot]; e.present(o.slot, bits) {
				dst.AppendElem(e.value(o.slot, a, bits))
			}
		}
		dst.EndArray()
	case stGeneric:
		ws.generic(&e.p.wins[o.win])[o.idx].Append(dst)
	}
}

// appendSamples appends the present numbers of a number slot in rows
// [from, to) as one array cell, one by one.
func (e *Engine) appendSamples(dst *table.Col, from, to uint64, slot int) {
	dst.BeginArray()
	for a := from; a < to; a++ {
		if x := math.Float64frombits(e.dq.row(a)[slot]); x == x {
			dst.AppendNumElem(x)
		}
	}
	dst.EndArray()
}

// appendSlot appends the decoded slot of row a to dst.
func (e *Engine) appendSlot(dst *table.Col, slot int, a uint64, bits uint64) {
	switch e.p.kinds[slot-1] {
	case schema.Number:
		dst.AppendNum(math.Float64frombits(bits))
	case schema.String:
		if bits == cell.Missing {
			dst.AppendMissing()
		} else {
			dst.AppendStr(e.p.syms.Str(uint32(bits)))
		}
	case schema.Bool:
		if bits == cell.Missing {
			dst.AppendMissing()
		} else {
			dst.AppendBool(bits == cell.True)
		}
	default:
		table.AppendValue(dst, e.value(slot, a, bits))
	}
}
