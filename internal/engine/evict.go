package engine

import "math"

// A partition-tick adds the tick's rows to the deque and folds its
// windows: the rows that leave each window are taken from its states, the
// rows that arrived are added. Taken in that order, with the rows written
// into the ring first, the ring must hold a window's rows and a tick's at
// once (a minute at 100 rows a second peaks at 6,021 rows for a window of
// 6,001). When the tick's rows do not fit in the ring, the tick evicts
// first instead (evictFirst): each window whose fold would slide takes
// its leaving rows out of its states and the ring drops them; the tick's
// rows are then written into the room they left, and the fold adds them.
// A ring then peaks at its windows' rows, and its last block is cut to
// them (see deque.cutRows).
//
// The rows a window holds after the two halves are those the fold alone
// gives, and its states are made by the same operations in the same
// order: a fold's slide is a removal of the leaving rows followed by an
// addition of the entering ones (reducers.ShiftEach and ShiftRun give
// the bits of RemoveSlots then AddSlots, each state on its own), so the
// first half does the removal and the fold the addition. A window the
// fold would rebuild from its rows, or that its rows all leave, is left
// to the fold, its rows kept.

// noFold is the cut of a take that no fold follows (rows moved into the
// deques before a removal, or by a worker between ticks): its rows enter
// first, the ring growing when they do not fit.
const noFold = math.MinInt64

// evictFor makes room for n rows about to enter the deque when they do
// not fit and a fold at cut follows (cut is not noFold), by evictFirst,
// and reports whether it did: the caller takes the rows again, with
// the room made.
func (e *Engine) evictFor(n uint64, cut int64, pool *blockPool) bool {
	d := &e.dq
	if cut == noFold || d.tail-d.front+n <= d.cap {
		return false
	}
	e.evictFirst(cut, n, pool)
	return true
}

// evictFirst is the first half of a fold at cut that n rows, not yet in
// the deque and more than it has room for, will enter: every time window
// that holds rows in their way (the oldest) and whose fold would slide
// (rows leave it, fewer than remain, and not all of those it holds)
// removes its leaving rows from its states and moves its head past them,
// and the deque drops the rows no window holds. The fold, after the rows
// are taken, finds no more rows leaving those windows and adds the rows
// that entered.
func (e *Engine) evictFirst(cut int64, n uint64, pool *blockPool) {
	d := &e.dq
	st := int(d.stride)
	wins := e.wins()
	pws := e.p.wins[:len(wins)]
	// The tail the fold will see: the rules are the fold's, at it.
	tail := d.tail + n
	// The rows before need are in the way of the tick's: only windows
	// that hold some of them evict here.
	need := tail - d.cap
	low := d.tail
	for w := range wins {
		ws := &wins[w]
		head, added := ws.head, ws.added
		before := low
		low = min(low, head)
		wp := &pws[w]
		if head >= need || wp.count > 0 || head >= added {
			continue
		}
		lim := cut - wp.span
		blk, i := d.slotOf(head)
		if int64(blk[i]) >= lim || d.time(added-1) < lim {
			// No row leaves; or every row it held does, and the fold
			// rebuilds it.
			continue
		}
		// The head's block first, then on through scanTo; the scan
		// stops before added, at a row that stays. Not leaveFrom's
		// search past walkRows rows, as a fold's: at 1,000 hosts x 100
		// (20 rows leaving a tick, 35,000 windows evicting first in the
		// seed's steady phase) its cut cost 4 to 9 instructions a
		// window, +0.06 to +0.14 % of the pushes, where ticks of 200
		// rows gained 1.7 % (BenchmarkLeavingRows, path=evictFirst).
		nh := head
		blk = blk[:min(len(blk), i+int(added-nh)*st)]
		// Compared unsigned, i needs no second check as an index.
		for ; uint(i) < uint(len(blk)) && int64(blk[i]) < lim; i += st {
			nh++
		}
		if i >= len(blk) && nh < added {
			nh = e.scanTo(nh, added, lim)
		}
		if tail-nh < (tail-added)+(nh-head) {
			continue // the fold rebuilds it (see foldWindow)
		}
		// The rows leave as the fold's slide removes them, before it
		// adds (see foldWindow and shift): a window of sums alone whose
		// rows lie in one block one call a sum.
		if rem, ok := e.rows(head, nh); ok && !wp.rest {
			for i, s := range wp.moments {
				ws.moment(wp, i).RemoveSlots(rem, s, st, int(nh-head))
			}
		} else {
			if ws.scalarExt(wp) {
				// Recomputed at its last fold: its extremes' deques
				// are built from its rows first.
				e.buildExtremes(ws, wp, head, added)
			}
			e.remove(ws, wp, head, nh)
		}
		ws.moveHead(nh, ws.added)
		low = min(before, nh)
	}
	e.dropArrays(low)
	d.dropTo(low, pool)
}
