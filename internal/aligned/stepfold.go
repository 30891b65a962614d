package aligned

import (
	"math"
	"unsafe"
)

// Folding rows into the open-step records (see step.go).

// take folds row i of enc, at t, into record r, and reports whether it
// left a huge value's sum out of it, for the caller to add to the
// partition's lane (see hugeValue; the value's count and mark are in).
func (sp *stepPlan) take(r []uint64, enc [][]uint64, i int, t int64) (huge bool) {
	for j := range sp.moms {
		m := &sp.moms[j]
		x := math.Float64frombits(enc[m.slot-1][i])
		if x-x != 0 { // NaN or ±Inf: missing
			continue
		}
		if m.nOff >= 0 {
			r[m.nOff]++
		}
		if isHuge(x) {
			huge = true
			if m.squares {
				r[m.off+2], r[m.off+3] = math.Float64bits(math.Inf(1)), 0
			}
			continue
		}
		if m.squares {
			foldSquare((*[4]uint64)(r[m.off:m.off+4]), x)
		} else {
			foldSum((*[2]uint64)(r[m.off:m.off+2]), x)
		}
	}
	for _, e := range sp.exts {
		if x := math.Float64frombits(enc[e.slot-1][i]); x == x {
			foldExtreme((*[2]uint64)(r[e.off:e.off+2]), x)
		}
	}
	sp.takeCounts(r, enc, i, t)
	return huge
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
	one := parts == nil
	if one {
		// One partition: partition 0 for every row.
		if len(g.zeros) < to {
			g.zeros = make([]int32, to)
		}
		parts = g.zeros[:to]
	}
	done := g.stepColumns(in, parts[from:to], from, to, one)
	if from+done == to {
		return
	}
	sp, st := &g.p.st, &g.st
	lo := g.stepStart()
	for i := from + done; i < to; i++ {
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
		c := int(st.n[q])
		st.n[q]++
		if sp.take(st.rec(sp, q), in.Enc, i, t) {
			g.laneRow(q, in.Enc, i)
		}
		if w := len(sp.raw); w > 0 && g.hold == nil {
			st.roomRaw(q, c*w, (c+1)*w)
			for j, s := range sp.raw {
				st.raw[q][c*w+j] = in.Enc[s-1][i]
			}
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

// stepIndex returns the index of the open step's pane of a step's width:
// the pane holding stepStart.
func (g *Group) stepIndex() int64 {
	if g.next == math.MaxInt64 {
		return g.p.paneOf(math.MaxInt64, g.p.step)
	}
	return g.p.paneOf(g.next, g.p.step) - 1
}

// stepSlow readies partition q's record for row i of in, at t, and
// reports whether the record takes it: a partition not live wakes with an
// empty record; a record about to saturate is merged into its panes
// first; a row before the open step (which ordered rows never are) goes
// straight into its panes instead.
func (g *Group) stepSlow(q int32, in *Rows, i int, t, lo int64) bool {
	if g.hold != nil && (t < lo || int(q) < len(g.st.n) && g.st.n[q] != stepShut) {
		// Rows go into panes before their closing: the steps keep
		// their raw values from now on.
		g.leaveHeld(in.First + uint64(i))
	}
	switch {
	case t < lo:
		g.add(g.part(q), in, i, t)
		return false
	case int(q) >= len(g.st.n) || g.st.n[q] == stepShut:
		g.wake(g.part(q), t)
		g.st.open(q)
	default:
		g.flushStep(q, g.parts[q], g.stepIndex())
	}
	return true
}

// stepColumns folds rows [from, to) of in, of partitions parts, into
// their records one item at a time (each pass a short loop over the
// rows, the records in cache), when the rows (in time order) are in the
// open step and no record is near saturation, and returns how many rows
// it folded: all of them; or none, or those before a row that needs more
// (countFoldPair's), folding nothing more (but opening the records of
// partitions not live), for the row-by-row path to take the rest. With
// one, every row is partition 0's.
func (g *Group) stepColumns(in *Rows, parts []int32, from, to int, one bool) int {
	st := &g.st
	lo := g.stepStart()
	times := in.Times[from:to]
	times = times[:len(parts)]
	if len(parts) >= stepFlushAt {
		return 0
	}
	if len(parts) > 0 && times[0] < lo {
		return 0 // rows come in time order: the first is the earliest
	}
	// Count the rows in, and write their raw values (a record near
	// saturation leaves them to the row-by-row path); rows all in
	// partition 0 are counted at once, not by a chain of increments of
	// one word.
	limit := uint32(stepFlushAt - len(parts))
	done := 0
	if !one && g.p.st.pairRaw && pairKernel {
		// Rows counted and folded in one pass, up to one that needs more
		// (a partition waking, a raw buffer growing, a record near
		// saturation); the rest go the way of the others.
		done = g.countFoldPair(in, parts, from, limit)
		if done == len(parts) {
			return done
		}
		parts, times, from = parts[done:], times[done:], from+done
	}
	cols := g.rawCols[:0]
	if g.hold == nil {
		for _, s := range g.p.st.raw {
			cols = append(cols, in.Enc[s-1][from:to])
		}
	}
	g.rawCols = cols
	if one && len(parts) > 0 {
		if len(st.n) == 0 || st.n[0] == stepShut {
			g.wake(g.part(0), times[0])
			st.open(0)
		}
		if st.n[0] > limit {
			return 0
		}
		st.putRaws(0, int(st.n[0]), cols, 0, len(parts))
		st.n[0] += uint32(len(parts))
	} else if !g.countIn(parts, times, limit, cols) {
		return done
	}
	g.foldColumns(in, parts, from, to)
	return done + len(parts)
}

// countFoldPair counts rows [from, from+len(parts)) of in, of partitions
// parts, into their records, writes their raw values (none in held mode)
// and folds them, in
// one pass (foldPairCount), for a plan of the pairRaw shape: what
// countIn and foldColumns do, up to the first row that needs more than a
// count and a value written (a partition not live or without a record, a
// raw buffer to grow, a record past limit rows). It returns how many rows
// it took.
func (g *Group) countFoldPair(in *Rows, parts []int32, from int, limit uint32) int {
	sp, st := &g.p.st, &g.st
	f := sp.folds[0]
	m, o := &sp.moms[f.mom], &sp.moms[f.with]
	w := sp.words
	if m.off < 0 || m.off+4 > w || f.ext < 0 || f.ext+2 > w || o.off < 0 || o.off+2 > w {
		panic("aligned: record words out of the record")
	}
	xs, ys := in.Enc[f.slot-1][from:], in.Enc[o.slot-1][from:]
	xs, ys = xs[:len(parts)], ys[:len(parts)]
	nrec := min(uint(len(st.recs)/w), uint(len(st.n)))
	base := unsafe.Pointer(unsafe.SliceData(st.recs))
	raw := st.raw[:len(st.n)]
	for done := 0; ; done++ {
		if g.hold != nil {
			// The raw values are the series' rows (see Held).
			done += foldPairCountOnly(base, uintptr(w)*8, nrec,
				parts[done:], floats(xs[done:]), floats(ys[done:]), m.off, f.ext, o.off, st.n, limit)
		} else {
			done += foldPairCount(base, uintptr(w)*8, nrec,
				parts[done:], floats(xs[done:]), floats(ys[done:]), m.off, f.ext, o.off, st.n, limit, raw)
		}
		if done == len(parts) {
			return done
		}
		// The kernels stop before a row with a value from about 2^500 up
		// (see pairBig), which is counted and folded here, when nothing
		// else stops them there.
		x, y := math.Float64frombits(xs[done]), math.Float64frombits(ys[done])
		q := parts[done]
		if !pairBig(x, y) || uint(q) >= nrec || st.n[q] > limit {
			return done
		}
		c := st.n[q]
		if g.hold == nil {
			if uint(c) >= uint(len(raw[q])) {
				return done
			}
			raw[q][c] = xs[done]
		}
		st.n[q] = c + 1
		g.pairRow(f, q, x, y)
	}
}

// pairBig reports whether the paired kernels leave a row, whose values
// are x (squared) and y, to the Go code: when x² + y² is not below
// bigSquare², so that a value whose square is not summed or which is
// huge (see hugeValue) is one test. The kernel's test, operation for
// operation (the products rounded apart, not fused).
func pairBig(x, y float64) bool {
	return !(float64(x*x)+float64(y*y) < bigSquare*bigSquare)
}

// pairRow folds a row of a paired fold f (foldSquaresWith's), values x
// and y, into partition q's record, its huge values' sums into the lane.
func (g *Group) pairRow(f stepFold, q int32, x, y float64) {
	sp := &g.p.st
	r := g.st.rec(sp, q)
	m, o := &sp.moms[f.mom], &sp.moms[f.with]
	if isHuge(y) {
		g.addLane(q, f.with, y)
	} else {
		foldSum((*[2]uint64)(r[o.off:o.off+2]), y)
	}
	if f.ext >= 0 {
		foldExtreme((*[2]uint64)(r[f.ext:f.ext+2]), x)
	}
	if isHuge(x) {
		g.hugeSum(q, r, f.mom, x)
	} else {
		foldSquare((*[4]uint64)(r[m.off:m.off+4]), x)
	}
}

// countIn counts each row of partitions parts, at times, into its
// record and writes its values of the raw slots' columns cols as the
// record's raw row, opening the records of partitions not live, and
// reports true; when a record would pass limit rows it undoes the counts
// and reports false (raw values written past a record's rows are not
// its rows).
func (g *Group) countIn(parts []int32, times []int64, limit uint32, cols [][]uint64) bool {
	st := &g.st
	w := len(cols)
	for i := 0; i < len(parts); i++ {
		switch w {
		case 0:
			i += countLive(st.n, parts[i:], limit)
		case 1:
			i += countLiveRaw(st.n, parts[i:], limit, st.raw, cols[0][i:])
		}
		if i == len(parts) {
			break
		}
		// Row i needs more: its partition wakes, its raw buffer grows, or
		// (several raw slots) every row comes this way.
		q := parts[i]
		open := int(q) < len(st.n) && st.n[q] != stepShut
		if open && st.n[q] > limit {
			for _, q := range parts[:i] {
				st.n[q]--
			}
			return false
		}
		if !open {
			g.wake(g.part(q), times[i])
			st.open(q)
		}
		st.putRaws(q, int(st.n[q]), cols, i, i+1)
		st.n[q]++
	}
	return true
}

// countLive counts rows of partitions parts into the row counts n while
// their records are open and below limit rows, and returns how many it
// counted: the loop of countIn, without the waking of a partition (a
// call, around which the loop's values were kept on the stack). Not
// inlined: inside countIn the loop reloaded its values from the stack
// again.
//
//go:noinline
func countLive(n []uint32, parts []int32, limit uint32) int {
	for i, q := range parts {
		j := uint(int(q)) // a negative q is past the counts too
		if j >= uint(len(n)) {
			return i
		}
		c := n[j]
		if c > limit {
			return i
		}
		n[j] = c + 1
	}
	return len(parts)
}

// countLiveRaw is countLive writing each row's value xs[i] of the one raw
// slot as its partition's next raw row, in the same pass; it stops too at
// a row whose partition's raw buffer is full.
//
//go:noinline
func countLiveRaw(n []uint32, parts []int32, limit uint32, raw [][]uint64, xs []uint64) int {
	xs = xs[:len(parts)]
	raw = raw[:len(n)]
	for i, q := range parts {
		j := uint(int(q)) // a negative q is past the counts too
		if j >= uint(len(n)) {
			return i
		}
		c := n[j]
		r := raw[j]
		if c > limit || uint(c) >= uint(len(r)) {
			return i
		}
		r[c] = xs[i]
		n[j] = c + 1
	}
	return len(parts)
}

// foldColumns folds rows [from, to) of in, of partitions parts, counted
// in, into their records one item at a time (their raw values were
// written as they were counted).
func (g *Group) foldColumns(in *Rows, parts []int32, from, to int) {
	sp, st := &g.p.st, &g.st
	w := sp.words
	for _, f := range sp.folds {
		xs := in.Enc[f.slot-1][from:to]
		if f.mom < 0 {
			foldExtremes(st.recs, w, f.ext, parts, xs)
			continue
		}
		// Each fold stops at a huge value (see hugeValue), which is
		// folded here, its sum into the partition's lane.
		m := &sp.moms[f.mom]
		for i := 0; i < len(parts); i++ {
			switch {
			case !m.squares:
				i += foldSums(st.recs, w, m.off, m.nOff, parts[i:], xs[i:])
				if i < len(parts) {
					g.hugeSum(parts[i], st.rec(sp, parts[i]), f.mom, math.Float64frombits(xs[i]))
				}
			case f.with >= 0:
				ys := in.Enc[sp.moms[f.with].slot-1][from:to]
				i += foldSquaresWith(st.recs, w, m.off, f.ext, parts[i:], xs[i:], sp.moms[f.with].off, ys[i:])
				if i < len(parts) {
					g.pairRow(f, parts[i], math.Float64frombits(xs[i]), math.Float64frombits(ys[i]))
				}
			default:
				i += foldSquares(st.recs, w, m.off, m.nOff, f.ext, parts[i:], xs[i:])
				if i < len(parts) {
					q := parts[i]
					r := st.rec(sp, q)
					x := math.Float64frombits(xs[i])
					if f.ext >= 0 {
						foldExtreme((*[2]uint64)(r[f.ext:f.ext+2]), x)
					}
					g.hugeSum(q, r, f.mom, x)
				}
			}
		}
		if !m.squares && f.ext >= 0 {
			foldExtremes(st.recs, w, f.ext, parts, xs)
		}
	}
	if len(sp.counts)+len(sp.fls) > 0 {
		for i := from; i < to; i++ {
			sp.takeCounts(st.rec(sp, parts[i-from]), in.Enc, i, in.Times[i])
		}
	}
}

// foldSums adds the finite values xs, row i's to the record of partition
// parts[i] (w words a record), to the sum at word off and counts them at
// word nOff (none when negative). Rows reach their records as in
// foldSquares. It returns how many rows it took: all of them, or those
// before a huge value (see hugeValue), which it leaves for the caller.
func foldSums(recs []uint64, w, off, nOff int, parts []int32, xs []uint64) int {
	if off < 0 || off+2 > w || nOff >= w {
		panic("aligned: record words out of the record")
	}
	xs = xs[:len(parts)]
	nrec := uint(len(recs) / w)
	base := unsafe.Pointer(unsafe.SliceData(recs))
	size := uintptr(w) * 8
	for i, q := range parts {
		if uint(q) >= nrec {
			panic("aligned: partition without a record")
		}
		x := math.Float64frombits(xs[i])
		if !(math.Abs(x) < hugeValue) {
			if x-x != 0 { // NaN or ±Inf: missing
				continue
			}
			return i
		}
		r := unsafe.Add(base, uintptr(q)*size)
		if nOff >= 0 {
			*(*uint64)(unsafe.Add(r, nOff*8))++
		}
		foldSum((*[2]uint64)(unsafe.Add(r, off*8)), x)
	}
	return len(parts)
}

// foldSum adds x to the double-double f[0] + f[1].
func foldSum(f *[2]uint64, x float64) {
	s, c := math.Float64frombits(f[0]), math.Float64frombits(f[1])
	hi := s + x
	bb := hi - s
	c += (s - (hi - bb)) + (x - bb)
	f[0], f[1] = math.Float64bits(hi), math.Float64bits(c)
}

// foldSquares is foldSums adding the squares too, to the words after the
// sum (see bigSquare for values whose square is not summed), and, when
// ext is not negative, foldExtremes at word ext: one pass over a column
// that has a stdev, a min and a max.
//
// The row's arithmetic is written out here, not called (foldSquare is too
// big for the inliner), and a row reaches its record's words from the
// record's address: its partition is checked against the records once,
// the words' offsets against a record's width once for the pass. With
// slice checks for each word, the loop kept too many values live and
// reloaded them from the stack every row.
//
// It returns how many rows it took: all of them, or those before a huge
// value (see hugeValue), of whose row it folds nothing.
func foldSquares(recs []uint64, w, off, nOff, ext int, parts []int32, xs []uint64) int {
	if off < 0 || off+4 > w || ext+2 > w || nOff >= w {
		panic("aligned: record words out of the record")
	}
	xs = xs[:len(parts)]
	nrec := uint(len(recs) / w)
	base := unsafe.Pointer(unsafe.SliceData(recs))
	size := uintptr(w) * 8
	for i, q := range parts {
		if uint(q) >= nrec {
			panic("aligned: partition without a record")
		}
		r := unsafe.Add(base, uintptr(q)*size)
		x := math.Float64frombits(xs[i])
		if !(math.Abs(x) < hugeValue) {
			if x-x == 0 {
				return i
			}
			// NaN or ±Inf: not summed; an infinity is an extreme.
			if ext >= 0 && x == x {
				foldExtreme((*[2]uint64)(unsafe.Add(r, ext*8)), x)
			}
			continue
		}
		if ext >= 0 {
			foldExtreme((*[2]uint64)(unsafe.Add(r, ext*8)), x)
		}
		if nOff >= 0 {
			*(*uint64)(unsafe.Add(r, nOff*8))++
		}
		f := (*[4]uint64)(unsafe.Add(r, off*8))
		hi, e := twoSum(math.Float64frombits(f[0]), x)
		f[0], f[1] = math.Float64bits(hi), math.Float64bits(math.Float64frombits(f[1])+e)
		sq, q := x*x, math.Float64frombits(f[2])
		if !(sq < bigSquare*bigSquare) || q > math.MaxFloat64 { // see foldSquare
			f[2], f[3] = math.Float64bits(math.Inf(1)), 0
			continue
		}
		hq, e := twoSum(q, sq)
		f[2], f[3] = math.Float64bits(hq), math.Float64bits(math.Float64frombits(f[3])+(e+math.FMA(x, x, -sq)))
	}
	return len(parts)
}

// foldSquaresWith is foldSquares of a required column (its count is the
// rows') that also adds the values ys of another required column to the
// sums at word off2, in the same pass: the row's partition, its record's
// address and the loop are paid once for both columns (the seed's cpu and
// requests). Without counts to keep, the loop keeps its values in
// registers. A required column's values are all finite (Spec.Required),
// so neither column's are tested for NaN or ±Inf: the step's count of
// them is its row count anyway.
//
// It returns how many rows it took: all of them, or those before a row
// with a huge value (see hugeValue), of which it folds nothing.
func foldSquaresWith(recs []uint64, w, off, ext int, parts []int32, xs []uint64, off2 int, ys []uint64) int {
	if off < 0 || off+4 > w || ext+2 > w || off2 < 0 || off2+2 > w {
		panic("aligned: record words out of the record")
	}
	// The values and the record's words are read as float64s, which load
	// straight into floating-point registers (a uint64 read as one goes
	// through an integer register first).
	xf, yf := floats(xs[:len(parts)]), floats(ys[:len(parts)])
	nrec := uint(len(recs) / w)
	base := unsafe.Pointer(unsafe.SliceData(recs))
	size := uintptr(w) * 8
	if pairKernel && ext >= 0 {
		for i := 0; i < len(parts); i++ {
			i += foldPair(base, size, nrec, parts[i:], xf[i:], yf[i:], off, ext, off2)
			if i == len(parts) {
				break
			}
			// The kernel leaves a row with a value from about 2^500 up
			// (see pairBig) to the Go loop's arithmetic.
			if uint(parts[i]) >= nrec {
				panic("aligned: partition without a record")
			}
			if isHuge(xf[i]) || isHuge(yf[i]) {
				return i
			}
			foldPairRow(unsafe.Add(base, uintptr(parts[i])*size), xf[i], yf[i], off, ext, off2)
		}
		return len(parts)
	}
	for i, q := range parts {
		if uint(q) >= nrec {
			panic("aligned: partition without a record")
		}
		if !(math.Abs(xf[i]) < hugeValue && math.Abs(yf[i]) < hugeValue) {
			return i
		}
		r := unsafe.Add(base, uintptr(q)*size)
		f2 := (*[2]float64)(unsafe.Add(r, off2*8))
		hi, e := twoSum(f2[0], yf[i])
		f2[0], f2[1] = hi, f2[1]+e
		x := xf[i]
		if ext >= 0 {
			m := (*[2]float64)(unsafe.Add(r, ext*8))
			if !(x >= m[0]) { // as foldExtreme
				m[0] = x
			}
			if !(x <= m[1]) {
				m[1] = x
			}
		}
		f := (*[4]float64)(unsafe.Add(r, off*8))
		hi, e = twoSum(f[0], x)
		f[0], f[1] = hi, f[1]+e
		sq, q := x*x, f[2]
		if !(sq < bigSquare*bigSquare) || q > math.MaxFloat64 { // see foldSquare
			f[2], f[3] = math.Inf(1), 0
			continue
		}
		hq, e := twoSum(q, sq)
		f[2], f[3] = hq, f[3]+(e+math.FMA(x, x, -sq))
	}
	return len(parts)
}

// foldPairRow is one row of foldSquaresWith's Go loop, for the record at
// r: the row the kernel leaves to Go, folded to the same bits.
func foldPairRow(r unsafe.Pointer, x, y float64, off, ext, off2 int) {
	foldSum((*[2]uint64)(unsafe.Add(r, off2*8)), y)
	if ext >= 0 {
		foldExtreme((*[2]uint64)(unsafe.Add(r, ext*8)), x)
	}
	foldSquare((*[4]uint64)(unsafe.Add(r, off*8)), x)
}

// floats returns encoded numbers as the float64s they hold.
func floats(xs []uint64) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs))
}

// foldSquare adds x, finite, to the double-double f[0] + f[1] and x² to
// f[2] + f[3], or marks Σx² infinite when x is too big to square
// (bigSquare): one row of foldSquares, whose loops write it out. |x| ≥
// bigSquare exactly when x² ≥ bigSquare² (x² rounds to below 2^1000 for
// every |x| below 2^500): one test on the square, not one on |x|.
func foldSquare(f *[4]uint64, x float64) {
	foldSum((*[2]uint64)(f[:2]), x)
	sq, q, qc := x*x, math.Float64frombits(f[2]), math.Float64frombits(f[3])
	if !(sq < bigSquare*bigSquare) || q > math.MaxFloat64 {
		f[2], f[3] = math.Float64bits(math.Inf(1)), 0
		return
	}
	hq, e := twoSum(q, sq)
	f[2], f[3] = math.Float64bits(hq), math.Float64bits(qc+(e+math.FMA(x, x, -sq)))
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
		at := int(q)*w + off
		foldExtreme((*[2]uint64)(recs[at:at+2]), x)
	}
}

// foldExtreme lowers the min e[0] and raises the max e[1] (NaN: none
// yet) with x, which is not NaN.
func foldExtreme(e *[2]uint64, x float64) {
	if !(x >= math.Float64frombits(e[0])) {
		e[0] = math.Float64bits(x)
	}
	if !(x <= math.Float64frombits(e[1])) {
		e[1] = math.Float64bits(x)
	}
}
