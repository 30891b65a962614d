package aligned

import (
	"math"
	"slices"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Samples read from the series' rows.
//
// A window of one pane, the step's, with a samples output keeps the step's
// raw values: per partition, every value of the step, so its state grows
// with the event rate (2,000 values a partition at 10,000 rows a second
// and a 200ms step). The series holds those rows anyway when its root
// keeps at least a step of them. In held mode the group keeps no raw
// values: a closing writes each partition's samples cell with the room
// its row count needs, and then fills every cell in one pass over the
// series' rows of the closing step, each row to its partition's cell.
//
// Rows are named by their identity in the series, which counts the rows
// it accepted: a push's rows are consecutive from [Rows.First]. The step
// that a boundary closes holds the rows from the one that closed the
// boundary before (stepFrom) to the one that closes it (closeID). A
// partition made anew (after its key's partition was removed) takes only
// the rows from the push that made it (from).

// Held reads the rows a series holds, for a group in held mode.
type Held interface {
	// HeldRun returns the rows from identity from on, up to to (at least
	// one, at most to − from, which must be held): the key of each and
	// the held slot's value of each.
	HeldRun(from, to uint64) (keys []uint32, vals []float64)
	// HeldParts returns the partition of each key, plus one (0: none
	// now), as a table indexed by key (a key past it has none).
	HeldParts() []int32
	// HeldKeys returns the key of each partition, as a table indexed by
	// partition: for a live partition q, HeldParts()[HeldKeys()[q]] is
	// q + 1 (what it holds for other indices is of no use).
	HeldKeys() []uint32
}

// heldState is a group's held mode (see Held).
type heldState struct {
	src Held
	out int // the samples output's column, counted from the group's first
	// cnt is the record word counting the slot's present values, for a
	// slot that may be missing (missing values are not samples); −1: the
	// slot is required, every row is a sample.
	cnt int
	// from is the identity of the first row partition q may take: that
	// of the push that made it.
	from []uint64
	// cur is where the fill writes partition q's next value, while a
	// closing's cells are filled; −1 otherwise.
	cur []int
	// made is the greatest of from: when it is not past the step's
	// first row, no partition was made during the step.
	made uint64
	// at is the identity of the current push's first row during a push,
	// after the last push's last row between pushes.
	at       uint64
	stepFrom uint64     // the open step's first row
	closeID  uint64     // the row that closes boundaries now
	filled   []heldFill // the cells of a fill
	// curKey is cur by key, for the fill's rows (see fillCells): where
	// the fill writes the next value of the key of a partition with a
	// cell, −1 for every other key and outside a fill; keys holds the
	// key of each partition of filled, during a fill.
	curKey []int
	keys   []uint32
}

// HeldSlot reports whether the plan can read its raw values from the
// series' rows (see [Group.SetHeld]), and which slot they are of: every
// window's panes are a step wide, and the only raw output is the samples
// of a number slot in a window of one pane, the step's. A closing needs
// to know how many of a partition's rows are samples: for a slot that may
// be missing, the count of its present values in the step's record, which
// an output's count, sum, avg or stdev keeps, or the plan adds when none
// does (heldCount).
func (p *Plan) HeldSlot() (slot int, ok bool) {
	slot, required, ok := p.heldShape(&p.st)
	return slot, ok && (required || p.st.presentCount(slot) >= 0)
}

// heldShape reports whether step plan st has the shape HeldSlot needs,
// which slot the samples are of and whether it is required.
func (p *Plan) heldShape(st *stepPlan) (slot int, required, ok bool) {
	if !st.ok || len(st.raw) != 1 {
		return 0, false, false
	}
	n := 0
	for w := range p.wins {
		wp := &p.wins[w]
		for i := range wp.raws {
			rp := &wp.raws[i]
			n++
			if rp.red.Op != reducers.OpSamples || rp.kind != schema.Number || !st.wins[w].view {
				return 0, false, false
			}
			required = rp.required
		}
	}
	return st.raw[0], required, n == 1
}

// heldCount adds to step plan st, laid out up to words, the count of the
// held slot's present values when the slot may be missing and no output
// counts them, and returns the words it takes.
func (p *Plan) heldCount(st *stepPlan, words int) int {
	slot, required, ok := p.heldShape(st)
	if !ok || required || st.presentCount(slot) >= 0 {
		return words
	}
	st.counts = append(st.counts, stepCount{slot: slot, number: true, off: words})
	return words + 1
}

// presentCount returns the record word that counts the present values of
// number slot s, −1 for none. A series' values are finite or missing, so
// the count of a sum's values is the count of the present ones.
func (sp *stepPlan) presentCount(s int) int {
	for _, c := range sp.counts {
		if c.slot == s && c.number {
			return c.off
		}
	}
	for _, m := range sp.moms {
		if m.slot == s && m.nOff >= 0 {
			return m.nOff
		}
	}
	return -1
}

// Step returns the plan's step, in nanoseconds.
func (p *Plan) Step() int64 { return p.step }

// SetHeld makes the group read its samples from src (see Held), for a
// plan whose [Plan.HeldSlot] is ok, before the group takes a row. It
// reports whether the group is in held mode: not when the plan cannot,
// the group takes rows otherwise (a lateness, arrays), or it has taken
// rows already.
func (g *Group) SetHeld(src Held) bool {
	if _, ok := g.p.HeldSlot(); !ok || !g.stepped || g.started || src == nil {
		return false
	}
	h := &heldState{src: src, cnt: -1}
	for w := range g.p.wins {
		for _, rp := range g.p.wins[w].raws { // the one samples output
			h.out = rp.out
			if !rp.required {
				h.cnt = g.p.st.presentCount(g.p.st.raw[0])
			}
		}
	}
	g.hold = h
	for range g.parts {
		g.hold.from = append(g.hold.from, 0)
		g.hold.cur = append(g.hold.cur, -1)
	}
	return true
}

// Held reports whether the group is in held mode.
func (g *Group) Held() bool { return g.hold != nil }

// heldMade notes that partition q was made now.
func (g *Group) heldMade(q int32) {
	h := g.hold
	for len(h.from) <= int(q) {
		h.from = append(h.from, 0)
		h.cur = append(h.cur, -1)
	}
	h.from[q] = h.at
	h.made = max(h.made, h.at)
}

// heldN returns how many samples a step of n rows, record r, holds.
func (h *heldState) heldN(r []uint64, n int64) int64 {
	if h.cnt < 0 {
		return n
	}
	return min(int64(r[h.cnt]), countMax)
}

// heldCell appends partition q's samples cell, n values to be filled
// after the closing (fill): the first holds q until then.
func heldCell(dst *table.Col, q int32, n int64) {
	dst.BeginArray()
	if n > 0 {
		dst.GrowNumElems(int(n))[0] = math.Float64frombits(uint64(uint32(q)))
	}
	dst.EndArray()
}

// fill writes the samples of the closing that appended rows [e0, e1) of
// out: each non-empty cell of the samples column names its partition in
// its first value; one pass over the step's rows writes each partition's
// values into its cell, in arrival order.
func (g *Group) fill(out *schema.Table, e0 int) {
	h := g.hold
	defer func() { h.stepFrom = h.closeID }()
	if h.stepFrom >= h.closeID {
		return
	}
	ends, nums := table.Column(out, g.first+h.out).ArrayNums()
	h.filled = h.filled[:0]
	prev := 0 // the end of the cell before
	if e0 > 0 {
		prev = int(ends[e0-1])
	}
	for _, end := range ends[e0:] {
		if hi := int(end); hi > prev {
			q := int32(math.Float64bits(nums[prev]))
			h.cur[q] = prev
			h.filled = append(h.filled, heldFill{q: q, end: hi})
		}
		prev = int(end)
	}
	if len(h.filled) == 0 {
		return
	}
	// Every cell must be full: each row of a partition's step is one of
	// its values. A cell that is not is the engine's fault, never the
	// rows': a bug to stop at, not an error to return (see filledTo).
	byKey := h.src.HeldParts()
	if h.made > h.stepFrom || h.cnt >= 0 || !h.byKeys(byKey) {
		for id := h.stepFrom; id < h.closeID; {
			keys, vals := h.src.HeldRun(id, h.closeID)
			h.fillFrom(id, keys, vals, byKey, nums)
			id += uint64(len(keys))
		}
		for _, f := range h.filled {
			filledTo(h.cur[f.q], f.end)
			h.cur[f.q] = -1
		}
		return
	}
	for id := h.stepFrom; id < h.closeID; {
		keys, vals := h.src.HeldRun(id, h.closeID)
		fillCells(keys, vals, h.curKey, nums)
		id += uint64(len(keys))
	}
	for i, f := range h.filled {
		k := h.keys[i]
		filledTo(h.curKey[k], f.end)
		h.cur[f.q], h.curKey[k] = -1, -1
	}
}

// heldFill is a partition's samples cell in a fill: its partition and
// where it ends in the column's values.
type heldFill struct {
	q   int32
	end int
}

// filledTo checks that a cell's cursor, at the end of a fill, is at the
// cell's end: the fill wrote every value of the cell and none past it.
func filledTo(cur, end int) {
	if cur != end {
		panic("aligned: the series' rows of a step do not match its partitions' counts")
	}
}

// byKeys moves the cursors of the partitions of filled to curKey, at
// their keys, and reports true; or, when a partition's key does not lead
// back to it through byKey (the key table of HeldParts), moves nothing
// and reports false. The rows of a step in which no partition was made
// then reach their cells by their keys alone (fillCells), not through
// their partitions.
func (h *heldState) byKeys(byKey []int32) bool {
	keyOf := h.src.HeldKeys()
	h.keys = h.keys[:0]
	for _, f := range h.filled {
		q := f.q
		if uint(q) >= uint(len(keyOf)) {
			return false
		}
		k := keyOf[q]
		if uint(k) >= uint(len(byKey)) || byKey[k] != q+1 {
			return false
		}
		h.keys = append(h.keys, k)
	}
	if n := len(byKey); len(h.curKey) < n {
		from := len(h.curKey)
		h.curKey = slices.Grow(h.curKey, n-from)[:n]
		for i := range h.curKey[from:] {
			h.curKey[from+i] = -1
		}
	}
	for i, f := range h.filled {
		h.curKey[h.keys[i]] = h.cur[f.q]
	}
	return true
}

// fillCells writes each row's value vals[i] into the cell of its key at
// curKey (see heldState.curKey), which it moves on; rows of keys without
// a cell (−1) are not the closing's.
func fillCells(keys []uint32, vals []float64, curKey []int, nums []float64) {
	vals = vals[:len(keys)]
	for i, k := range keys {
		if uint(k) >= uint(len(curKey)) {
			continue
		}
		// A key without a cell (−1) makes c past nums: one test, which
		// is the bounds check too.
		c := curKey[k]
		if uint(c) >= uint(len(nums)) {
			continue
		}
		nums[c] = vals[i]
		curKey[k] = c + 1
	}
}

// fillFrom is fillCells for a step during which a partition was made (a
// row before its partition's from is another's, see Held) or for a slot
// that may be missing (a missing value, NaN, is no sample).
func (h *heldState) fillFrom(id uint64, keys []uint32, vals []float64, byKey []int32, nums []float64) {
	vals = vals[:len(keys)]
	for i, k := range keys {
		if uint(k) >= uint(len(byKey)) {
			continue
		}
		q := byKey[k] - 1
		if uint(q) >= uint(len(h.cur)) || id+uint64(i) < h.from[q] || vals[i] != vals[i] {
			continue
		}
		if c := h.cur[q]; c >= 0 {
			nums[c] = vals[i]
			h.cur[q] = c + 1
		}
	}
}

// leaveHeld ends held mode: every partition's open step gets its raw
// values from the series' rows taken so far, up to identity end, as if
// it had kept them, for what reads them from the step (a record merged
// into its panes before its closing).
func (g *Group) leaveHeld(end uint64) {
	h := g.hold
	if h == nil {
		return
	}
	g.hold = nil
	st := &g.st
	if h.stepFrom >= end {
		return
	}
	for q := range st.n {
		if n := int(st.rows(int32(q))); n > 0 {
			st.roomRaw(int32(q), 0, n)
			h.cur[q] = 0
		}
	}
	byKey := h.src.HeldParts()
	for id := h.stepFrom; id < end; {
		keys, vals := h.src.HeldRun(id, end)
		for i, k := range keys {
			if uint(k) >= uint(len(byKey)) {
				continue
			}
			q := byKey[k] - 1
			if uint(q) >= uint(len(st.n)) || uint(q) >= uint(len(h.cur)) || id+uint64(i) < h.from[q] {
				continue
			}
			if c := h.cur[q]; c >= 0 && int64(c) < st.rows(q) {
				st.raw[q][c] = math.Float64bits(vals[i])
				h.cur[q] = c + 1
			}
		}
		id += uint64(len(keys))
	}
}
