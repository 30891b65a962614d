package engine

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

// roomFor makes room for the n rows a tick is about to take into the
// deque, folding at cut: when they do not fit in the ring, the windows
// evict first (see evictFirst).
func (e *Engine) roomFor(n int, cut int64, pool *blockPool) {
	if d := &e.dq; n > 0 && d.tail-d.front+uint64(n) > d.cap {
		e.evictFirst(cut, uint64(n), pool)
	}
}

// evictFirst is the first half of a fold at cut that n rows, not yet in
// the deque, will enter: every time window whose fold would slide
// (rows leave it, fewer than remain, and not all of those it holds)
// removes its leaving rows from its states and moves its head past them,
// and the deque drops the rows no window holds. The fold, after the rows
// are taken, finds no more rows leaving those windows and adds the rows
// that entered.
func (e *Engine) evictFirst(cut int64, n uint64, pool *blockPool) {
	d := &e.dq
	wins := e.wins()
	pws := e.p.wins[:len(wins)]
	// The tail the fold will see: the rules below are the fold's, at it.
	tail := d.tail + n
	low := d.tail
	for w := range wins {
		ws, wp := &wins[w], &pws[w]
		head, added := ws.head, ws.added
		if wp.count == 0 && head < added {
			// Only the rows the window held are scanned: a scan that
			// reaches them all leaves the window to the fold.
			nh := e.scanTo(head, added, cut-wp.span)
			// Not a rebuild (see foldWindow): the fold's rule with
			// the rows that will enter.
			if nh > head && nh < added && tail-nh >= (tail-added)+(nh-head) {
				e.evictRows(ws, wp, head, nh)
				ws.head, head = nh, nh
			}
		}
		low = min(low, head)
	}
	e.dropArrays(low)
	d.dropTo(low, pool)
}

// evictRows removes rows [from, to), the oldest the window holds, from
// its states, as the fold's slide would before adding: a window of sums
// whose rows lie in one block in one call per sum.
func (e *Engine) evictRows(ws *winState, wp *winPlan, from, to uint64) {
	if ws.scalarExt(wp) {
		// Recomputed at its last fold: its extremes' deques are
		// built from its rows first, as foldWindow builds them.
		e.buildExtremes(ws, wp, from, ws.added)
	}
	if !wp.rest {
		if rem, ok := e.rows(from, to); ok {
			st, rn := int(e.dq.stride), int(to-from)
			for i, s := range wp.moments {
				ws.moment(i).RemoveSlots(rem, s, st, rn)
			}
			return
		}
	}
	e.remove(ws, wp, from, to)
}
