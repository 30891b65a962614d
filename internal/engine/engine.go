package engine

import (
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/prefetch"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Input is a block of source rows prepared for the engines of a plan: the
// times and, per column the plan reads, the cells encoded as 64-bit slots
// (a number's bits with NaN for missing, an intern id with 0 for missing,
// 0/1/2 for a boolean, 0/1 for an array's presence). Bind it once per
// push; its buffers are reused.
type Input struct {
	times []int64
	enc   [][]uint64
	arrs  []*table.Col
	tmp   [][]uint64
	// sorted: the times are in non-decreasing order, after those bound
	// before (see SetSorted).
	sorted bool
	// first is the identity of the first row (see SetFirst).
	first uint64
	// partsID numbers the list of the rows' partitions (see SetPartsID).
	partsID uint64
}

// SetFirst tells the identity of the first row bound in its series, the
// rows' being consecutive, for a group that reads its samples from the
// series' rows ([Group.SetHeld]).
func (in *Input) SetFirst(id uint64) { in.first = id }

// SetSorted tells whether the rows bound are in non-decreasing time
// order and none comes before a row bound before them, as a series'
// accepted rows are unless reordered; false is always safe. Bind forgets
// it. With it, a push's rows that cross no clock boundary are known to
// cross none from their last time alone, an engine takes the last row's
// time as its latest, and a deque that takes them stays known to be in
// order (see dqUnsorted).
func (in *Input) SetSorted(sorted bool) { in.sorted = sorted }

// SetPartsID tells a [Group] the number its caller gives the list of
// partitions pushed with the rows bound: every push given the same
// nonzero id has the same partitions, row for row, as any other given it
// (a list that differs gets another id), so that a group that kept the
// list of one of them need not compare the others with it. 0, always
// safe, tells nothing. Bind forgets it.
func (in *Input) SetPartsID(id uint64) { in.partsID = id }

// Len returns the number of rows bound.
func (in *Input) Len() int { return len(in.times) }

// Time returns the time of row i.
func (in *Input) Time(i int) int64 { return in.times[i] }

// Bind prepares rows of tab, whose schema must be the plan's source
// schema. syms, when not nil, holds the intern ids of string columns
// (syms[j] for column j); strings without ids are interned here. Number
// columns are read in place, without copying.
//
// A plan that reads number columns only, bound before, binds without a
// call beyond this one (the common push); the rest is in bind.
func (p *Plan) Bind(in *Input, tab *schema.Table, syms [][]uint32) {
	if p.notNum || len(in.enc) != len(p.cols) {
		p.bind(in, tab, syms)
		return
	}
	cols := table.Columns(tab)
	in.times = cols[0].Times()
	in.sorted, in.partsID = false, 0
	enc := in.enc[:len(p.cols)]
	for k, j := range p.cols {
		enc[k] = floatBits(cols[j].Numbers())
	}
}

// bind is Bind the first time, or for a plan that reads other columns
// than numbers.
func (p *Plan) bind(in *Input, tab *schema.Table, syms [][]uint32) {
	in.times = tab.Times()
	in.sorted, in.partsID = false, 0
	n := len(in.times)
	if len(in.enc) != len(p.cols) {
		in.enc = make([][]uint64, len(p.cols))
		in.tmp = make([][]uint64, len(p.cols))
		in.arrs = make([]*table.Col, len(p.cols))
	}
	if !p.notNum {
		cols, enc := table.Columns(tab), in.enc[:len(p.cols)]
		for k, j := range p.cols {
			enc[k] = floatBits(cols[j].Numbers())
		}
		return
	}
	for k, j := range p.cols {
		c := table.Column(tab, j)
		switch p.kinds[k] {
		case schema.Number:
			in.enc[k] = floatBits(c.Numbers())
			continue
		case schema.Array:
			in.arrs[k] = c
		}
		buf := in.tmp[k][:0]
		switch p.kinds[k] {
		case schema.String:
			if j < len(syms) && len(syms[j]) == n {
				for _, id := range syms[j] {
					buf = append(buf, uint64(id))
				}
			} else {
				for i := range n {
					s, ok := c.Str(i)
					id := uint32(0)
					if ok {
						id = p.syms.ID(s)
					}
					buf = append(buf, uint64(id))
				}
			}
		case schema.Bool:
			for i := range n {
				f := uint64(cell.Missing)
				if b, ok := c.Bool(i); ok {
					f = cell.Bool(b)
				}
				buf = append(buf, f)
			}
		case schema.Array:
			for i := range n {
				f := uint64(cell.Missing)
				if !c.IsMissing(i) {
					f = cell.Present
				}
				buf = append(buf, f)
			}
		}
		in.tmp[k] = buf
		in.enc[k] = buf
	}
}

// timeBits views times as 64-bit slots, without copying.
func timeBits(ts []int64) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(ts))), len(ts))
}

// floatBits views a float64 slice as its bit patterns, without copying.
func floatBits(f []float64) []uint64 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
}

// Engine is the rolling state of one stream (one partition): one
// arrival-ordered deque shared by all the plan's windows — a row is stored
// once however many windows read it — with a head per window and the
// reducer states of each window.
//
// Rows are appended with [Engine.Append] and taken into the windows
// lazily by [Engine.Fold], which adds the rows that arrived since the last
// fold and evicts the rows that left each window, each row at most once.
// Windows are observable only at emissions, so folding just before each
// emission gives the same contents as folding per row; under a clock the
// per-row cost is an append.
//
// An engine's window states follow it in its record (see arena), so it
// keeps no slice of them: [Engine.wins] makes one from its own address.
type Engine struct {
	p *Plan
	// dq also holds whether maxT is set and whether its rows are known
	// to be in time order (dq.has, see dqState).
	dq   deque
	maxT int64
}

// arrs returns the array cells of the rows held, by arrKey, of an engine
// whose plan reads array columns (see Plan.hasArr): a map in its record,
// which other plans' records do not have.
func (e *Engine) arrs() map[uint64][]schema.Value {
	return *(*map[uint64][]schema.Value)(unsafe.Add(unsafe.Pointer(e), e.p.arena.layout.arr))
}

// setArrs makes m the engine's array cells.
func (e *Engine) setArrs(m map[uint64][]schema.Value) {
	*(*map[uint64][]schema.Value)(unsafe.Add(unsafe.Pointer(e), e.p.arena.layout.arr)) = m
}

// wins returns the engine's window states, one per window of its plan,
// which lie right after it in its record (newLayout checks it).
func (e *Engine) wins() []winState {
	// An array's slice, not unsafe.Slice: its one bound check is less
	// than unsafe.Slice's checks of the length's product and sum.
	n := len(e.p.wins)
	return (*[1 << 24]winState)(unsafe.Pointer(e.win(0)))[:n:n]
}

// win returns the state of window w, below the plan's windows (not
// checked): an emission reads one window of each of a run of engines.
func (e *Engine) win(w int) *winState {
	return (*winState)(unsafe.Add(unsafe.Pointer(e), unsafe.Sizeof(Engine{})+uintptr(w)*unsafe.Sizeof(winState{})))
}

// winState is a window's position in the deque and its reducer states.
// The states lie in the engine's record (see arena), the window's of each
// kind side by side (its minimums, then its maximums): its moments, which
// a fold reads, its extremes, and its counts followed by its generic
// states lie at offsets from it that are the same in every record of the
// plan (winPlan.momOff, winPlan.extOff, winPlan.restOff), and as many as
// its plan has. That is 24 bytes a window: with 56-byte
// Moments and an 88-byte deque, what a partition-tick at a row a second
// reads of the seed's record (the engine, both window states, the minute
// window's two Moments but the last one's outer pointer) lies in its
// first four lines, and the record is six (see arena).
type winState struct {
	head, added uint64
	// leave caches the time from which the window's oldest row (at head)
	// leaves, its time plus the span, as [Engine.still] last read it;
	// unknownLeave when not read since head moved. A partition between
	// its rows is then told still from its record alone, without the
	// deque's line of that row. (The window's Moments, which a pointer
	// here used to find, lie at wp.momOff from it.)
	leave int64
}

// unknownLeave is a window state's leave while it is not known: below
// every cut.
const unknownLeave = math.MinInt64

// moveHead sets the window's head and the end of what its states hold;
// a head that moves forgets when its row leaves.
func (ws *winState) moveHead(head, added uint64) {
	if head != ws.head {
		ws.leave = unknownLeave
	}
	ws.head, ws.added = head, added
}

// mom returns the window's first Moments (see winPlan.momOff).
func (ws *winState) mom(wp *winPlan) *reducers.Moments {
	return (*reducers.Moments)(unsafe.Add(unsafe.Pointer(ws), wp.momOff))
}

// moments returns the window's moment states, one per entry of its
// plan wp's moments.
func (ws *winState) moments(wp *winPlan) []reducers.Moments {
	return unsafe.Slice(ws.mom(wp), len(wp.moments))
}

// moment, minAt and maxAt return the window's moment state, minimum and
// maximum i, as moments(wp)[i], mins(wp)[i] and maxs(wp)[i] do, for an i
// its plan gave (below the count), without building a slice: an emission
// reads one state of each of a run of windows.
func (ws *winState) moment(wp *winPlan, i int) *reducers.Moments {
	return (*reducers.Moments)(unsafe.Add(unsafe.Pointer(ws), uintptr(wp.momOff)+uintptr(i)*unsafe.Sizeof(reducers.Moments{})))
}

func (ws *winState) minAt(wp *winPlan, i int) *reducers.Extreme {
	return ws.extremeAt(wp.extAt(i))
}

func (ws *winState) maxAt(wp *winPlan, i int) *reducers.Extreme {
	return ws.minAt(wp, len(wp.mins)+i)
}

// extAt returns the offset from a window state of its extreme i (its
// minimums, then its maximums), the same in every record of the plan.
func (wp *winPlan) extAt(i int) uintptr {
	return uintptr(wp.extOff) + uintptr(i)*unsafe.Sizeof(reducers.Extreme{})
}

// extremeAt returns the window's extreme at offset off (see extAt).
func (ws *winState) extremeAt(off uintptr) *reducers.Extreme {
	return (*reducers.Extreme)(unsafe.Add(unsafe.Pointer(ws), off))
}

// scalarExt reports whether the window's minimums and maximums hold
// their values only, their deques not built (the window was last
// recomputed from its rows). They are set so all together, and reset
// all together, so the first one tells.
func (ws *winState) scalarExt(wp *winPlan) bool {
	return len(wp.extSlots) > 0 && ws.minAt(wp, 0).Scalar()
}

// counts returns the window's counts, one per entry of its plan wp's
// counts.
func (ws *winState) counts(wp *winPlan) []int {
	if len(wp.counts) == 0 {
		return nil
	}
	return unsafe.Slice((*int)(unsafe.Add(unsafe.Pointer(ws), wp.restOff)), len(wp.counts))
}

// mins returns the window's minimums, one per entry of its plan wp's
// mins.
func (ws *winState) mins(wp *winPlan) []reducers.Extreme {
	if len(wp.mins) == 0 {
		// Not a pointer past the window's states: they may end the record.
		return nil
	}
	return unsafe.Slice(ws.minAt(wp, 0), len(wp.mins))
}

// maxs returns the window's maximums, one per entry of its plan wp's
// maxs.
func (ws *winState) maxs(wp *winPlan) []reducers.Extreme {
	if len(wp.maxs) == 0 {
		return nil
	}
	return unsafe.Slice(ws.maxAt(wp, 0), len(wp.maxs))
}

// generic returns the window's other reducer states, one per entry of
// its plan wp's generic.
func (ws *winState) generic(wp *winPlan) []reducers.Window {
	if len(wp.generic) == 0 {
		// Not a pointer past the counts: they may end the record.
		return nil
	}
	off := int(wp.restOff) + len(wp.counts)*int(unsafe.Sizeof(0))
	return unsafe.Slice((*reducers.Window)(unsafe.Add(unsafe.Pointer(ws), off)), len(wp.generic))
}

// NewEngine returns an empty engine for the plan. Engines come from the
// plan's arena, each with its window and reducer states in one record
// (see arena): the state of engines made one after the other (the
// partitions of a node, in the order they appear) lies side by side in
// memory, which is what a clock tick walks through; an engine released
// is reused.
func (p *Plan) NewEngine() *Engine { return p.newEngine(0) }

// newEngine is [Plan.NewEngine] for a caller that expects to make want
// engines soon, this one included (0 when it does not know): the arena
// sizes a chunk it starts for them (see arena.record).
func (p *Plan) newEngine(want int) *Engine {
	if n := len(p.arena.free); n > 0 {
		e := p.arena.free[n-1]
		p.arena.free = p.arena.free[:n-1]
		e.reuse()
		return e
	}
	r := p.arena.record(p, want)
	eng := r.engine()
	*eng = Engine{p: p}
	eng.dq.stride = uint32(1 + len(p.cols))
	for w := range p.wins {
		wp := &p.wins[w]
		ws := &eng.wins()[w]
		ws.leave = unknownLeave
		g := ws.generic(wp)
		for i, sq := range wp.squares {
			if !sq {
				ws.moments(wp)[i].SkipSquares()
			}
		}
		for i := range ws.maxs(wp) {
			ws.maxs(wp)[i].SetMax()
		}
		for i, gp := range wp.generic {
			// NewPlan checked every reducer against its column.
			g[i] = reducers.NewWindow(reducers.SpecOf(gp.red))
		}
	}
	if p.hasArr {
		eng.setArrs(map[uint64][]schema.Value{})
	}
	return eng
}

// reuse makes a released engine (whose window states [Engine.Release]
// emptied) ready for a new partition.
func (e *Engine) reuse() {
	e.dq = deque{stride: e.dq.stride}
	e.maxT, e.dq.has = 0, 0
	wins := e.wins()
	for w := range wins {
		ws := &wins[w]
		ws.head, ws.added, ws.leave = 0, 0, unknownLeave
		// Release emptied the states.
	}
	if e.p.hasArr {
		e.setArrs(map[uint64][]schema.Value{})
	}
}

// Append stores row i of in at the tail of the engine's deque.
func (e *Engine) Append(in *Input, i int) {
	row := e.dq.push(&e.p.pool)
	t := in.times[i]
	row[0] = uint64(t)
	for k, c := range in.enc {
		row[k+1] = c[i]
	}
	if e.p.hasArr {
		arrs := e.arrs()
		for k, c := range in.arrs {
			if c != nil && !c.IsMissing(i) {
				a, _ := c.CopyArray(i)
				arrs[e.arrKey(e.dq.tail-1, k+1)] = a
			}
		}
	}
	e.noteTime(t)
}

// noteTime keeps maxT for a row at t appended to the deque: a row before
// the latest time appended may come before a row held, so the deque's
// rows are no longer known to be in order (see dqUnsorted).
func (e *Engine) noteTime(t int64) {
	if e.dq.has&dqMax == 0 || t > e.maxT {
		e.maxT = t
		e.dq.has |= dqMax
	} else if t < e.maxT {
		e.dq.has |= dqUnsorted
	}
}

// markTimes notes that rows whose first time is first, in non-decreasing
// time order among themselves when sorted, enter the deque, for a path
// that keeps maxT (the latest time of the rows before them): the deque's
// rows are no longer known to be in order when they are not, or when the
// first comes before maxT.
func (e *Engine) markTimes(first int64, sorted bool) {
	if !sorted || e.dq.has&dqMax != 0 && first < e.maxT {
		e.dq.has |= dqUnsorted
	}
}

// MaxTime returns the latest time appended, and false if none was. A
// group's tick under a clock does not keep it: it folds against the
// crossing row's time.
func (e *Engine) MaxTime() (int64, bool) { return e.maxT, e.dq.has&dqMax != 0 }

// Len returns the number of rows the deque holds (the union of the
// windows, as of the last fold, plus rows appended since).
func (e *Engine) Len() int { return e.dq.len() }

// WindowLen returns the number of rows in window w as of the last fold.
func (e *Engine) WindowLen(w int) int { return int(e.dq.tail - e.wins()[w].head) }

// Fold brings every window up to date: rows appended since the last fold
// enter, and each time window evicts, from its front and in arrival
// order, the rows older than cut − span (stopping at the first row that
// is not); a count window keeps its last Count rows. cut is the time of
// the row being emitted for — the latest row of the stream, or under a
// synchronised clock the row that crossed the boundary.
//
// A window whose contents after the fold are fewer than the rows that
// would enter and leave it (a short window under a clock: 200 ms of rows
// emitted every 200 ms), or that held no rows before, is recomputed from
// the deque instead of updated, which touches each row once rather than
// twice.
func (e *Engine) Fold(cut int64) { e.fold(cut, &e.p.pool) }

// fold is Fold giving the blocks it frees to pool.
func (e *Engine) fold(cut int64, pool *blockPool) {
	if e.p.laid {
		e.foldLaid(cut, pool)
		return
	}
	wins := e.wins()
	tail, st := e.dq.tail, int(e.dq.stride)
	if wins[0].added == tail && e.still(cut) {
		// No row entered since the last fold (it left every window's
		// added at the tail) and none leaves: nothing changes.
		return
	}
	pws := e.p.wins[:len(wins)]
	low := tail
	for w := range wins {
		ws, wp := &wins[w], &pws[w]
		var nh uint64
		if wp.count > 0 {
			nh = ws.head
			if tail-nh > uint64(wp.count) {
				nh = tail - uint64(wp.count)
			}
		} else if nh = ws.head; nh < tail {
			// Up to walkRows rows of the head's block here, the rest
			// through leaveFrom: a window that slides by a few rows
			// finds its new head without a call, one that lets many
			// go by a search when the deque is known sorted.
			lim := cut - wp.span
			blk, i := e.dq.slotOf(nh)
			end := min(len(blk), i+int(min(tail-nh, walkRows))*st)
			for ; i < end && int64(blk[i]) < lim; i += st {
				nh++
			}
			if i >= end && nh < tail {
				nh = e.leaveFrom(nh, tail, lim)
			}
		}
		e.foldWindow(ws, wp, nh, tail)
		ws.moveHead(nh, tail)
		low = min(low, nh)
	}
	e.dropArrays(low)
	e.dq.dropTo(low, pool)
}

// foldWindow brings a window's states from rows [ws.head, ws.added) to
// rows [nh, tail): rows before nh leave, rows from ws.added on enter, as
// a shift, a removal, an addition or a rebuild from the rows. The caller
// then moves the window's head and added to nh and tail.
func (e *Engine) foldWindow(ws *winState, wp *winPlan, nh, tail uint64) {
	ops := (tail - ws.added) + (nh - ws.head)
	// Recomputed from its rows when more enter and leave than remain,
	// or when rows enter a window that held none.
	rebuild := tail-nh < ops || ws.head == ws.added && ops > 0
	if ops > 0 && !rebuild && ws.scalarExt(wp) {
		// The window slides after being recomputed: its extremes'
		// deques are built from the rows it holds first.
		e.buildExtremes(ws, wp, ws.head, ws.added)
	}
	if rebuild {
		e.rebuild(ws, wp, nh, tail)
		return
	}
	rTo, aFrom := min(nh, ws.added), max(ws.added, nh)
	switch {
	case ws.head < rTo && aFrom < tail:
		if !wp.rest {
			// A window of sums alone whose leaving and entering
			// rows each lie in one block: its sums shift here.
			if rem, ok := e.rows(ws.head, rTo); ok {
				if add, ok := e.rows(aFrom, tail); ok {
					sl := reducers.Slide{Rem: rem, Add: add, Stride: int(e.dq.stride), RN: int(rTo - ws.head), AN: int(tail - aFrom)}
					reducers.ShiftEach(ws.moments(wp), wp.moments, &sl)
					return
				}
			}
		}
		e.shift(ws, wp, ws.head, rTo, aFrom, tail)
	case ws.head < rTo:
		e.remove(ws, wp, ws.head, rTo)
	case aFrom < tail:
		if !wp.rest {
			// Rows enter a window of sums alone (their leaving rows
			// were evicted first, see evictFirst): in one call a sum
			// when they lie in one block, as e.add would.
			if add, ok := e.rows(aFrom, tail); ok {
				for i, s := range wp.moments {
					ws.moment(wp, i).AddSlots(add, s, int(e.dq.stride), int(tail-aFrom))
				}
				return
			}
		}
		e.add(ws, wp, aFrom, tail)
	}
}

// foldLaid is fold for a plan whose windows all have a layout the engine
// knows (see winLayout): the common folds of the layouts in its own loop,
// without a call but the reducers' one pass (a short slide of a window
// of sums, a few-row window refilled), the others through foldWindow.
func (e *Engine) foldLaid(cut int64, pool *blockPool) {
	d := &e.dq
	wins := e.wins()
	tail, st := d.tail, int(d.stride)
	if wins[0].added == tail && e.still(cut) {
		return // see fold
	}
	pws := e.p.wins[:len(wins)]
	low := tail
	var one reducers.Slide // a one-row slide's rows
	for w := range wins {
		ws, wp := &wins[w], &pws[w]
		head, added := ws.head, ws.added
		if added+1 == tail {
			// One row entered, the common fold of a partition that
			// gets a row a tick: the slide of one row out and one in
			// of a window of sums, and a fill window that held none
			// and still holds none, each as the loop below would do
			// them, without its scan and its general checks.
			lim := cut - wp.span
			if head == added {
				if wp.layout == layoutFill {
					if blk, i := d.slotOf(added); int64(blk[i]) < lim {
						// The row entered and left: the states stay
						// empty (see below).
						ws.moveHead(tail, tail)
						continue
					}
				}
			} else if wp.layout == layoutSums && head+3 <= tail {
				// The head leaves, the row after it (in the same
				// block) stays, and two rows remain: not a rebuild.
				if rb, ri := d.slotOf(head); ri+2*st <= len(rb) && int64(rb[ri]) < lim && int64(rb[ri+st]) >= lim {
					ab, ai := d.slotOf(added)
					one.Rem, one.Add = rb[ri:ri+st], ab[ai:ai+st]
					one.Stride, one.RN, one.AN = st, 1, 1
					if n := reducers.ShiftRun(ws.mom(wp), wp.moments, &one); n < len(wp.moments) {
						shiftRest(ws, wp, &one, n)
					}
					ws.moveHead(head+1, tail)
					low = min(low, head+1)
					continue
				}
			}
		}
		nh := head
		// The head's block (cut at the tail) and slot, while the
		// window holds rows: a slide's leaving rows start there.
		var hblk []uint64
		var hslot int
		// The new head's slot in hblk, when the scan stopped inside it
		// (nslot < len(hblk)): the fill window's refill reads from there
		// without a second lookup.
		nslot := -1
		if nh < tail {
			lim := cut - wp.span
			blk, i := d.slotOf(nh)
			// Cut at the tail, and at walkRows rows: the rows that leave
			// beyond are found by leaveFrom. (A slide below takes its
			// leaving rows from hblk when they are at most ShortRun, no
			// more than walkRows, and lie in the block: the cut at
			// walkRows leaves that test as it was.)
			blk = blk[:min(len(blk), i+int(min(tail-nh, walkRows))*st)]
			hblk, hslot = blk, i
			// Compared unsigned, i needs no second check as an index.
			for ; uint(i) < uint(len(blk)) && int64(blk[i]) < lim; i += st {
				nh++
			}
			if i >= len(blk) && nh < tail {
				nh = e.leaveFrom(nh, tail, lim)
			} else {
				nslot = i
			}
		}
		done := false
		if wp.layout == layoutSums {
			// A slide of one to ShortRun rows out and in, fewer than
			// remain (not a rebuild), each run in one block.
			rn, an := nh-head, tail-added
			if nh <= added && rn-1 < reducers.ShortRun && an-1 < reducers.ShortRun && tail-nh >= rn+an {
				rb, ri := hblk, hslot // rn > 0: the window held rows
				ab, ai := d.slotOf(added)
				if ri+int(rn)*st <= len(rb) && ai+int(an)*st <= len(ab) {
					sl := reducers.Slide{Rem: rb[ri : ri+int(rn)*st], Add: ab[ai : ai+int(an)*st], Stride: st, RN: int(rn), AN: int(an)}
					// The window's sums side by side, in one call, up
					// to one whose pass does not apply (see shiftRest).
					if n := reducers.ShiftRun(ws.mom(wp), wp.moments, &sl); n < len(wp.moments) {
						shiftRest(ws, wp, &sl, n)
					}
					done = true
				}
			} else if rn == 0 && head < added && an > 0 {
				// Rows enter and none leave (those that left were
				// taken out first, see evictFirst): one call a sum
				// when they lie in one block, as foldWindow's.
				if ab, ai := d.slotOf(added); ai+int(an)*st <= len(ab) {
					add := ab[ai : ai+int(an)*st]
					for i, s := range wp.moments {
						ws.moment(wp, i).AddSlots(add, s, st, int(an))
					}
					done = true
				}
			}
		} else if n, ops := tail-nh, (tail-added)+(nh-head); wp.layout == layoutFill && (n < ops || head == added && ops > 0) {
			// layoutFill rebuilt: from one to ShortRun rows in one
			// block refilled in one pass, others by rebuild. A window
			// that held no rows and holds none (rows entered and left
			// in this fold: a row a second through a 200 ms window)
			// has empty states already, as rebuild leaves them.
			if n == 0 && head == added {
				done = true
			} else if n-1 < reducers.ShortRun {
				blk, i := hblk, nslot
				if i < 0 || i+int(n)*st > len(blk) {
					// Not in the run the scan walked (cut at walkRows
					// rows): look it up.
					blk, i = d.slotOf(nh)
				}
				if f := &wp.fills[0]; i+int(n)*st <= len(blk) {
					if lo, hi, ok := ws.mom(wp).FillRunMinMax(blk[i+f.slot:i+f.slot+(int(n)-1)*st+1], st, int(n)); ok {
						ws.minAt(wp, 0).SetValue(lo, true)
						ws.maxAt(wp, 0).SetValue(hi, true)
						done = true
					}
				}
			}
			if !done {
				e.rebuild(ws, wp, nh, tail)
				done = true
			}
		}
		if !done {
			e.foldWindow(ws, wp, nh, tail)
		}
		ws.moveHead(nh, tail)
		low = min(low, nh)
	}
	e.dropArrays(low)
	d.dropTo(low, pool)
}

// shiftRest finishes a slide of the window's sums that [reducers.ShiftRun]
// stopped at sum i, whose pass does not apply: its values leave and enter
// one by one, and the rest are shifted on.
func shiftRest(ws *winState, wp *winPlan, sl *reducers.Slide, i int) {
	slots := wp.moments
	for i < len(slots) {
		m := ws.moment(wp, i)
		m.RemoveSlots(sl.Rem, slots[i], sl.Stride, sl.RN)
		m.AddSlots(sl.Add, slots[i], sl.Stride, sl.AN)
		if i++; i < len(slots) {
			i += reducers.ShiftRun(ws.moment(wp, i), slots[i:], sl)
		}
	}
}

// still reports whether no window evicts a row at cut: each time
// window's oldest row, if it holds one, is not older than cut − span (a
// count window evicts only as rows arrive). A partition between its
// rows, under a clock faster than they come, is folded with this check
// alone.
//
// The time each window's oldest row leaves is kept in its state (leave)
// until the window's head moves, so that a partition whose windows
// neither gain nor lose a row for several ticks reads the deque once,
// not at every tick. (Times and spans are within 2^62 − 1: a time plus
// a span does not overflow.)
func (e *Engine) still(cut int64) bool {
	tail := e.dq.tail
	wins := e.wins()
	pws := e.p.wins[:len(wins)]
	for w := range wins {
		ws := &wins[w]
		if h := ws.head; h < tail && pws[w].count == 0 && cut > ws.leave {
			ws.leave = e.dq.time(h) + pws[w].span
			if cut > ws.leave {
				return false
			}
		}
	}
	return true
}

// Step is Fold for exactly one row appended since the last fold, the
// event trigger's path: the row enters every window and each window
// evicts from its front, row by row.
func (e *Engine) Step() {
	tail := e.dq.tail
	a := tail - 1
	low := a
	wins := e.wins()
	for w := range wins {
		ws := &wins[w]
		wp := &e.p.wins[w]
		if ws.added != a {
			// Not exactly one row pending: take the general path.
			e.Fold(e.maxT)
			return
		}
		if ws.scalarExt(wp) {
			e.buildExtremes(ws, wp, ws.head, ws.added)
		}
		e.addRow(ws, wp, a)
		h := ws.head
		if wp.count > 0 {
			for tail-h > uint64(wp.count) {
				e.removeRow(ws, wp, h)
				h++
			}
		} else {
			lim := e.maxT - wp.span
			for h < a && e.dq.time(h) < lim {
				e.removeRow(ws, wp, h)
				h++
			}
		}
		ws.moveHead(h, tail)
		low = min(low, h)
	}
	if low > e.dq.front {
		e.dropArrays(low)
		e.dq.dropTo(low, &e.p.pool)
	}
}

// dropArrays forgets the array cells of rows before low.
func (e *Engine) dropArrays(low uint64) {
	if !e.p.hasArr {
		return
	}
	arrs := e.arrs()
	for a := e.dq.front; a < low; a++ {
		for k, kind := range e.p.kinds {
			if kind == schema.Array {
				delete(arrs, e.arrKey(a, k+1))
			}
		}
	}
}

// Prefetch starts loading what a fold of the engine will touch first and
// is least likely to find in cache, beyond the engine's record (see
// arena), which a tick over many partitions prefetches a few engines
// earlier (see cachedRecordBytes): the oldest rows of each window (rows
// a minute old, for a minute-long window) — as many as are about to
// leave when about rows arrive — and the deque's tail. A window whose
// oldest row is within a few rows of the tail (a short window) has its
// rows and the tail's slot loaded as one run; the tail alone is loaded
// only when rows arrive. A tick prefetches a few engines ahead of the one
// it folds, at cut, its rows' time: a window known to keep its oldest
// row at cut (see still) is not loaded when no rows arrive.
func (e *Engine) Prefetch(rows int, cut int64) {
	d := &e.dq
	st := int(d.stride)
	// Lines of the leaving rows, at most 16 (42 rows of 3 slots); a run
	// into the next block is left to the hardware.
	span := uint64(min(max(rows, 1), 16*64/8/st))
	tail := d.tail
	near := tail
	// The last far head's run and the tail's go in one call at the end.
	var far unsafe.Pointer
	nf := 0
	wins := e.wins()
	for w := range wins {
		h := wins[w].head
		if rows == 0 && cut <= wins[w].leave {
			// Its oldest row is known to stay and none arrive: the
			// fold reads nothing of this window in the deque (see
			// still).
			continue
		}
		if h+nearRows >= tail {
			near = min(near, h)
			continue
		}
		if nf > 0 {
			prefetch.Lines(far, nf)
		}
		far, nf = d.lineRun(h, span)
	}
	var at unsafe.Pointer
	na := 0
	if near < tail || rows > 0 && tail-d.front < d.cap {
		// From the nearest head, or the tail when rows arrive, to the
		// tail's slot.
		at, na = d.lineRun(near, tail-near+1)
	}
	prefetch.Runs(far, nf, at, na)
}

// nearRows is how close to the tail a window's oldest row is for
// [Engine.Prefetch] to load it with the tail.
const nearRows = 8

// lineRun returns where the slots of row a (held, or the tail of a ring
// with room) start and the number of cache lines that hold the slots of
// rows rows from there, within a's block: what [prefetch.Lines] asks
// for, computed where it is called.
func (d *deque) lineRun(a, rows uint64) (unsafe.Pointer, int) {
	q := a - d.base // d.pos(a), which would take lineRun past the inliner's budget
	if q >= d.cap {
		q -= d.cap
	}
	i := q % blockRows
	p := unsafe.Add(unsafe.Pointer(d.blocks[q/blockRows]), 8*uintptr(i)*uintptr(d.stride))
	// Up to the end of its block: a full block's, or the ring's.
	n := uintptr(p)%64 + uintptr(min(rows, blockRows-i, d.cap-q))*uintptr(d.stride)*8
	return p, int((n + 63) / 64)
}

// scanTo returns the first row from a on whose time is not before lim
// (tail if none), reading the times block by block.
func (e *Engine) scanTo(a, tail uint64, lim int64) uint64 {
	d := &e.dq
	st := int(d.stride)
	for a < tail {
		blk, i := d.slotOf(a)
		// Rows run on to the block's end, then on at the next block's
		// start.
		end := min(len(blk), i+int(tail-a)*st)
		for ; i < end; i += st {
			if int64(blk[i]) >= lim {
				return a
			}
			a++
		}
	}
	return tail
}

// walkRows is how many rows from a window's head a fold (foldLaid's and
// the general one) tells leaving one at a time, before it calls
// leaveFrom: most folds find the first row that stays among them (a row
// or two at a host a second or ten, a score at a host a hundred), where
// a search would cost more than the walk. At least reducers.ShortRun
// (see foldLaid). evictFirst walks on (see there).
const walkRows = 32

// leaveFrom returns the first row from a (below tail) whose time is lim
// or later, or tail if none is: the head of a window whose rows before
// lim leave. Rows leave in arrival order, up to the first that stays, so
// it is scanTo's answer; when the deque's rows are known to be in time
// order (see dqUnsorted), it is found in each block by a galloping search
// (see leaveSorted), not row by row.
func (e *Engine) leaveFrom(a, tail uint64, lim int64) uint64 {
	d := &e.dq
	if !d.sorted() {
		return e.scanTo(a, tail, lim)
	}
	st := int(d.stride)
	for a < tail {
		blk, i, n := d.seg(a)
		n = int(min(uint64(n), tail-a))
		k := leaveSorted(blk, i*st, st, n, lim)
		a += uint64(k)
		if k < n {
			return a
		}
	}
	return tail
}

// leaveSorted returns how many of the n rows from slot i of blk (rows of
// st slots, their times in non-decreasing order) have a time before lim:
// steps from i that double while their rows are before lim, then halve
// between the last such row and the first one after.
func leaveSorted(blk []uint64, i, st, n int, lim int64) int {
	if n <= 0 || int64(blk[i]) >= lim {
		return 0
	}
	// Rows [0, lo) are before lim; row hi is not, or is n.
	lo, b := 1, 1
	for b < n && int64(blk[i+b*st]) < lim {
		lo = b + 1
		b *= 2
	}
	hi := min(b, n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int64(blk[i+m*st]) < lim {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// addRow adds row a to a window's states.
func (e *Engine) addRow(ws *winState, wp *winPlan, a uint64) {
	row := e.dq.row(a)
	for i, s := range wp.moments {
		ws.moments(wp)[i].Add(math.Float64frombits(row[s]))
	}
	for i, s := range wp.counts {
		if e.present(s, row[s]) {
			ws.counts(wp)[i]++
		}
	}
	for i, s := range wp.mins {
		ws.mins(wp)[i].Add(a, math.Float64frombits(row[s]))
	}
	for i, s := range wp.maxs {
		ws.maxs(wp)[i].Add(a, math.Float64frombits(row[s]))
	}
	for i, g := range wp.generic {
		ws.generic(wp)[i].Add(a, e.value(g.slot, a, row[g.slot]))
	}
}

// removeRow removes row a, the oldest in the window, from its states.
func (e *Engine) removeRow(ws *winState, wp *winPlan, a uint64) {
	row := e.dq.row(a)
	for i, s := range wp.moments {
		ws.moments(wp)[i].Remove(math.Float64frombits(row[s]))
	}
	for i, s := range wp.counts {
		if e.present(s, row[s]) {
			ws.counts(wp)[i]--
		}
	}
	for i := range ws.mins(wp) {
		x := &ws.mins(wp)[i]
		x.Remove(a)
	}
	for i := range ws.maxs(wp) {
		x := &ws.maxs(wp)[i]
		x.Remove(a)
	}
	for i, g := range wp.generic {
		ws.generic(wp)[i].Remove(a, e.value(g.slot, a, row[g.slot]))
	}
}

// rebuild recomputes a window's states from rows [from, to): extremes
// are set to their values ([Engine.scanExtremes]); the sums of rows that
// lie in one block are filled in one pass each. It is called before the
// window's head and added move to from and to.
func (e *Engine) rebuild(ws *winState, wp *winPlan, from, to uint64) {
	if from >= to {
		// A window that held no rows before the fold (its head still
		// at its added) has the states of an empty window already:
		// rows entered it and left in the same fold (a row a second
		// through a 200 ms window). Generic states are emptied anyway.
		if ws.head != ws.added || len(wp.generic) > 0 {
			e.emptyStates(ws, wp)
		}
		return
	}
	blk, base, ok := e.run(from, to)
	if !ok {
		e.resetStates(ws, wp)
		e.scanExtremes(ws, wp, from, to)
		e.addExcept(ws, wp, from, to, false)
		return
	}
	n, stride := int(to-from), int(e.dq.stride)
	// One pass per slot with sums or extremes. Every minimum and maximum
	// is on one of the slots: each is set, as a reset and more would.
	for k := range wp.fills {
		f := &wp.fills[k]
		off := base + f.slot
		var lo, hi float64
		var any bool
		switch {
		case f.min < 0 && f.max < 0:
			ws.moment(wp, f.mom).FillSlots(blk, off, stride, n)
			continue
		case f.mom >= 0:
			lo, hi, any = ws.moment(wp, f.mom).FillMinMax(blk, off, stride, n)
		default:
			lo, hi, any = reducers.MinMaxSlots(blk, off, stride, n)
		}
		if f.min >= 0 {
			ws.minAt(wp, f.min).SetValue(lo, any)
		}
		if f.max >= 0 {
			ws.maxAt(wp, f.max).SetValue(hi, any)
		}
	}
	if len(wp.counts) > 0 {
		counts := ws.counts(wp)
		for i, s := range wp.counts {
			counts[i] = countPresent(blk, base+s, stride, n, wp.countNum[i])
		}
	}
	if len(wp.generic) > 0 {
		for _, g := range ws.generic(wp) {
			g.Reset()
		}
		e.addGeneric(ws, wp, blk, base, n, from)
	}
}

// scanExtremes sets the minimums and maximums of a window recomputed from
// rows [from, to) to their values, one pass per column for both, without
// building their deques ([reducers.Extreme.SetValue]): a window rebuilt at
// every emission never slides them. The deques are built when the window
// next slides instead ([Engine.buildExtremes]).
func (e *Engine) scanExtremes(ws *winState, wp *winPlan, from, to uint64) {
	for _, x := range wp.extSlots {
		lo, hi, ok := e.minMax(x.slot, from, to)
		if x.min >= 0 {
			ws.mins(wp)[x.min].SetValue(lo, ok)
		}
		if x.max >= 0 {
			ws.maxs(wp)[x.max].SetValue(hi, ok)
		}
	}
}

// minMax returns the minimum and maximum of slot s over rows [from, to),
// block by block, the oldest of equal values first.
func (e *Engine) minMax(s int, from, to uint64) (lo, hi float64, ok bool) {
	st := int(e.dq.stride)
	if blk, base, one := e.run(from, to); one {
		return reducers.MinMaxSlots(blk, base+s, st, int(to-from))
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for from < to {
		blk, first, n := e.dq.seg(from)
		n = min(n, int(to-from))
		l, h, k := reducers.MinMaxSlots(blk, first*st+s, st, n)
		// Strict comparisons: an earlier run's equal value stays.
		if l < lo {
			lo = l
		}
		if h > hi {
			hi = h
		}
		ok = ok || k
		from += uint64(n)
	}
	return lo, hi, ok
}

// buildExtremes builds the deques of a window's minimums and maximums
// from its rows [from, to), newest first, one comparison per row; a
// min and a max of one column in one pass.
func (e *Engine) buildExtremes(ws *winState, wp *winPlan, from, to uint64) {
	e.resetExtremes(ws, wp)
	if len(ws.mins(wp))+len(ws.maxs(wp)) == 0 || from >= to {
		return
	}
	// Room for the whole window at once, up to 256 rows: a short
	// window's deques then grow with its row count's high-water mark,
	// not with runs in the data; a long one's grow only as far as the
	// data needs.
	k := min(int(to-from), 256)
	for i := range ws.mins(wp) {
		ws.mins(wp)[i].Reserve(k)
	}
	for i := range ws.maxs(wp) {
		ws.maxs(wp)[i].Reserve(k)
	}
	stride := int(e.dq.stride)
	// Runs from the newest block to the oldest.
	a := to
	for a > from {
		off := e.dq.pos(a - 1)
		blk := e.dq.block(int(off / blockRows))
		last := int(off % blockRows)
		n := min(last+1, int(a-from))
		first := last + 1 - n
		seq := a - uint64(n)
		for i, s := range wp.mins {
			if j := wp.maxOn(s); j >= 0 {
				// A min and a max of one column: one pass for both.
				reducers.PrependMinMax(&ws.mins(wp)[i], &ws.maxs(wp)[j], blk, first*stride+s, stride, n, seq)
				continue
			}
			ws.mins(wp)[i].PrependSlots(blk, first*stride+s, stride, n, seq)
		}
		for i, s := range wp.maxs {
			if wp.minOn(s) >= 0 {
				continue // done with its min
			}
			ws.maxs(wp)[i].PrependSlots(blk, first*stride+s, stride, n, seq)
		}
		a = seq
	}
}

// run returns slots of the block holding rows [from, to), a non-empty
// range, and the offset of the first row's slots in them; false when the
// rows span blocks.
func (e *Engine) run(from, to uint64) ([]uint64, int, bool) {
	if from >= to {
		return nil, 0, false
	}
	r := e.dq.runAt(from)
	if int(to-from)*int(e.dq.stride) > len(r) {
		return nil, 0, false
	}
	return r, 0, true
}

// shift slides a window: rows [rFrom, rTo) leave it and rows [aFrom, aTo)
// enter, as remove then add, both ranges non-empty. When each run lies in
// one block, each sum is updated in one pass (a window sliding by a few
// rows per emission).
func (e *Engine) shift(ws *winState, wp *winPlan, rFrom, rTo, aFrom, aTo uint64) {
	rem, rok := e.rows(rFrom, rTo)
	add, aok := e.rows(aFrom, aTo)
	if !rok || !aok {
		e.remove(ws, wp, rFrom, rTo)
		e.add(ws, wp, aFrom, aTo)
		return
	}
	rn, an := int(rTo-rFrom), int(aTo-aFrom)
	if wp.rest {
		e.removeExtremes(ws, wp, rTo)
		e.removeRest(ws, wp, rem, 0, rn, rFrom)
	}
	sl := reducers.Slide{Rem: rem, Add: add, Stride: int(e.dq.stride), RN: rn, AN: an}
	reducers.ShiftEach(ws.moments(wp), wp.moments, &sl)
	if wp.rest {
		e.addRest(ws, wp, add, 0, an, aFrom, true)
	}
}

// rows returns the slots of rows [from, to), a non-empty range, when they
// lie in one block; false when they span blocks.
func (e *Engine) rows(from, to uint64) ([]uint64, bool) {
	r := e.dq.runAt(from)
	if n := int(to-from) * int(e.dq.stride); n <= len(r) {
		return r[:n], true
	}
	return nil, false
}

// addRest adds n rows from slot base of blk, the first being row a, to
// the window's states other than its sums: counts, extremes (when
// withExtremes is set) and generic states.
func (e *Engine) addRest(ws *winState, wp *winPlan, blk []uint64, base, n int, a uint64, withExtremes bool) {
	stride := int(e.dq.stride)
	for i, s := range wp.counts {
		ws.counts(wp)[i] += countPresent(blk, base+s, stride, n, wp.countNum[i])
	}
	if withExtremes {
		for i, s := range wp.mins {
			ws.mins(wp)[i].AddSlots(blk, base+s, stride, n, a)
		}
		for i, s := range wp.maxs {
			ws.maxs(wp)[i].AddSlots(blk, base+s, stride, n, a)
		}
	}
	if len(wp.generic) > 0 {
		e.addGeneric(ws, wp, blk, base, n, a)
	}
}

// removeRest removes n rows as addRest adds them, but for the extremes,
// which removeExtremes handles by arrival number.
func (e *Engine) removeRest(ws *winState, wp *winPlan, blk []uint64, base, n int, a uint64) {
	stride := int(e.dq.stride)
	for i, s := range wp.counts {
		ws.counts(wp)[i] -= countPresent(blk, base+s, stride, n, wp.countNum[i])
	}
	if len(wp.generic) > 0 {
		e.removeGeneric(ws, wp, blk, base, n, a)
	}
}

// removeExtremes drops the rows before to from the window's minimums and
// maximums.
func (e *Engine) removeExtremes(ws *winState, wp *winPlan, to uint64) {
	for i := range ws.mins(wp) {
		ws.mins(wp)[i].RemoveBefore(to)
	}
	for i := range ws.maxs(wp) {
		ws.maxs(wp)[i].RemoveBefore(to)
	}
}

// addGeneric adds n rows from slot base of blk, the first being row a, to
// the window's generic states.
func (e *Engine) addGeneric(ws *winState, wp *winPlan, blk []uint64, base, n int, a uint64) {
	stride := int(e.dq.stride)
	for i, g := range wp.generic {
		for r := range uint64(n) {
			ws.generic(wp)[i].Add(a+r, e.value(g.slot, a+r, blk[base+int(r)*stride+g.slot]))
		}
	}
}

// removeGeneric removes n rows as addGeneric adds them.
func (e *Engine) removeGeneric(ws *winState, wp *winPlan, blk []uint64, base, n int, a uint64) {
	stride := int(e.dq.stride)
	for i, g := range wp.generic {
		for r := range uint64(n) {
			ws.generic(wp)[i].Remove(a+r, e.value(g.slot, a+r, blk[base+int(r)*stride+g.slot]))
		}
	}
}

// emptyStates empties every state of a window that its rows all left:
// resetStates, with the extremes set to none rather than reset, as a
// rebuild from no rows leaves them.
func (e *Engine) emptyStates(ws *winState, wp *winPlan) {
	for i := range ws.moments(wp) {
		ws.moments(wp)[i].Reset()
	}
	clear(ws.counts(wp))
	for i := range ws.mins(wp) {
		ws.mins(wp)[i].SetValue(0, false)
	}
	for i := range ws.maxs(wp) {
		ws.maxs(wp)[i].SetValue(0, false)
	}
	for _, g := range ws.generic(wp) {
		g.Reset()
	}
}

// resetStates empties every state of a window of plan wp.
func (e *Engine) resetStates(ws *winState, wp *winPlan) {
	for i := range ws.moments(wp) {
		ws.moments(wp)[i].Reset()
	}
	clear(ws.counts(wp))
	e.resetExtremes(ws, wp)
	for _, g := range ws.generic(wp) {
		g.Reset()
	}
}

// resetExtremes empties a window's minimums and maximums.
func (e *Engine) resetExtremes(ws *winState, wp *winPlan) {
	for i := range ws.mins(wp) {
		x := &ws.mins(wp)[i]
		x.Reset()
	}
	for i := range ws.maxs(wp) {
		x := &ws.maxs(wp)[i]
		x.Reset()
	}
}

// runs calls fn for each run of rows [from, to) that lies in one deque
// block: the block, the offset of the run's first slot in it, the run's
// length and the absolute index of its first row.
func (e *Engine) runs(from, to uint64, fn func(blk []uint64, base, n int, a uint64)) {
	for from < to {
		blk, first, n := e.dq.seg(from)
		n = min(n, int(to-from))
		fn(blk, first*int(e.dq.stride), n, from)
		from += uint64(n)
	}
}

func (e *Engine) add(ws *winState, wp *winPlan, from, to uint64) {
	e.addExcept(ws, wp, from, to, true)
}

// addExcept adds rows [from, to) to the window's states, the extremes
// only when withExtremes is set.
func (e *Engine) addExcept(ws *winState, wp *winPlan, from, to uint64, withExtremes bool) {
	stride := int(e.dq.stride)
	e.runs(from, to, func(blk []uint64, base, n int, a uint64) {
		for i, s := range wp.moments {
			ws.moments(wp)[i].AddSlots(blk, base+s, stride, n)
		}
		e.addRest(ws, wp, blk, base, n, a, withExtremes)
	})
}

func (e *Engine) remove(ws *winState, wp *winPlan, from, to uint64) {
	stride := int(e.dq.stride)
	e.removeExtremes(ws, wp, to)
	e.runs(from, to, func(blk []uint64, base, n int, a uint64) {
		for i, s := range wp.moments {
			ws.moments(wp)[i].RemoveSlots(blk, base+s, stride, n)
		}
		e.removeRest(ws, wp, blk, base, n, a)
	})
}

// countPresent counts the present cells among n slots at off, off+stride,
// …: not NaN for a number column, not zero for the others.
func countPresent(blk []uint64, off, stride, n int, number bool) int {
	c := 0
	end := off + n*stride
	if number {
		for r := off; r < end; r += stride {
			if x := math.Float64frombits(blk[r]); x == x {
				c++
			}
		}
		return c
	}
	for r := off; r < end; r += stride {
		if blk[r] != 0 {
			c++
		}
	}
	return c
}

// value decodes the slot of row a.
func (e *Engine) value(slot int, a uint64, bits uint64) schema.Value {
	switch e.p.kinds[slot-1] {
	case schema.Number:
		if x := math.Float64frombits(bits); x == x {
			return schema.NumberValue(x)
		}
	case schema.String:
		if bits != cell.Missing {
			return schema.StringValue(e.p.syms.Str(uint32(bits)))
		}
	case schema.Bool:
		if bits != cell.Missing {
			return schema.BoolValue(bits == cell.True)
		}
	case schema.Array:
		if bits != cell.Missing {
			return schema.ArrayValue(e.arrs()[e.arrKey(a, slot)]...)
		}
	}
	return schema.Value{}
}

// arrKey is the key of the array in slot of row a.
func (e *Engine) arrKey(a uint64, slot int) uint64 { return a*uint64(int(e.dq.stride)) + uint64(slot) }

// slotOf returns the block holding row a, held or the tail, and the
// index of the row's first slot in it. The block's length bounds the
// rows that follow a in it (a short last block is shorter).
func (d *deque) slotOf(a uint64) ([]uint64, int) {
	q := a - d.base
	if q >= d.cap {
		q -= d.cap
	}
	k := int(q / blockRows)
	n := uint32(blockRows) // d.blockLen(k), in fewer instructions here
	if k == len(d.blocks)-1 {
		n = uint32(d.lrows)
	}
	return slots(d.blocks[k], n*d.stride), int(q%blockRows) * int(d.stride)
}

// runAt returns the slots of row a (held, or the tail of a ring with
// room) and of the rows after it in its block.
func (d *deque) runAt(a uint64) []uint64 {
	q := a - d.base // d.pos(a), in fewer instructions here
	if q >= d.cap {
		q -= d.cap
	}
	i := q % blockRows
	st := uintptr(d.stride)
	// Up to the end of its block: a full block's, or the ring's.
	return slots((*uint64)(unsafe.Add(unsafe.Pointer(d.blocks[q/blockRows]), 8*uintptr(i)*st)), uint32(min(blockRows-i, d.cap-q))*d.stride)
}

// present reports whether an encoded slot holds a value.
func (e *Engine) present(slot int, bits uint64) bool {
	if e.p.kinds[slot-1] == schema.Number {
		_, ok := cell.NumOf(bits)
		return ok
	}
	return bits != cell.Missing
}

// Release gives the engine's memory back to the plan's pool and the
// engine to its arena; the engine must not be used afterwards.
func (e *Engine) Release() {
	e.dq.release(&e.p.pool)
	if e.p.hasArr {
		e.setArrs(nil)
	}
	// Empty the window states now, not when the engine is taken again:
	// they may hold strings (unique, top, keep) of a partition gone.
	wins := e.wins()
	for w := range wins {
		e.resetStates(&wins[w], &e.p.wins[w])
	}
	e.p.arena.free = append(e.p.arena.free, e)
}

// Stride returns the number of 64-bit slots an encoded row takes: the time
// and one per column the plan reads.
func (p *Plan) Stride() int { return 1 + len(p.cols) }

// HasArrays reports whether the plan reads an array column; such rows
// cannot be moved around encoded (their elements live beside the deque).
func (p *Plan) HasArrays() bool { return p.hasArr }

// ReadsStrings reports whether the plan reads a string column: its engines
// then use the intern table when they bind rows and when they emit.
func (p *Plan) ReadsStrings() bool {
	for _, k := range p.kinds {
		if k == schema.String {
			return true
		}
	}
	return false
}

// writeRows writes rows [from, from+k) of in row-major into rows, st
// slots a row: the time, then each encoded column.
func writeRows(rows []uint64, in *Input, from, k, st int) {
	times := in.times[from : from+k]
	if st == 1 {
		copy(rows, timeBits(times)) // a window of row counts keeps its times only
		return
	}
	for r, t := range times {
		rows[r*st] = uint64(t)
	}
	for c, col := range in.enc {
		col = col[from : from+k]
		for r, x := range col {
			rows[r*st+c+1] = x
		}
	}
}

// appendInput appends rows [from, to) of in (a plan without array
// columns), block by block.
func (e *Engine) appendInput(in *Input, from, to int) {
	st := int(e.dq.stride)
	for from < to {
		blk, o, room := e.dq.room(&e.p.pool)
		k := min(room, to-from)
		rows := blk[o : o+k*st]
		times := in.times[from : from+k]
		mt := times[k-1]
		if !in.sorted {
			for _, t := range times {
				mt = max(mt, t)
			}
		}
		e.markTimes(times[0], in.sorted)
		if e.dq.has&dqMax != 0 {
			mt = max(mt, e.maxT)
		}
		e.maxT = mt
		e.dq.has |= dqMax
		writeRows(rows, in, from, k, st)
		e.dq.tail += uint64(k)
		from += k
	}
}

// heldBytes returns the memory the engine holds: its deque's blocks, its
// extreme deques and what its other reducers' states keep (a median's
// sorted values, a unique's distinct keys); the shared pool's spares are
// the plan's.
func (e *Engine) heldBytes() int {
	n := e.dq.bytes()
	wins := e.wins()
	for w := range wins {
		ws, wp := &wins[w], &e.p.wins[w]
		for i := range ws.mins(wp) {
			n += 16 * ws.mins(wp)[i].Cap()
		}
		for i := range ws.maxs(wp) {
			n += 16 * ws.maxs(wp)[i].Cap()
		}
		for _, st := range ws.generic(wp) {
			n += st.Bytes()
		}
	}
	return n
}
