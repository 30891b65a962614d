package aligned

import (
	"math"
	"slices"

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
	// pairRaw: the one fold is a paired one (foldSquaresWith) with
	// extremes, its column is the one raw slot, and there are no counts,
	// firsts or lasts: a batch's rows are counted, kept and folded in one
	// pass (countFoldPair), the seed's shape.
	pairRaw bool
	empty   []uint64 // an empty record
	wins    []stepWin
}

// stepFold is what a batch's rows fold into per column, in one pass:
// the column's sums (mom, an index in moms; −1: none) and its extremes
// (ext, the min's word; −1: none), and, with a required column's
// squares, another required column's plain sums (with, an index in moms;
// −1: none) that has no fold of its own.
type stepFold struct {
	slot, mom, ext, with int
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
	// A record written as a new pane (writePane): the record word of
	// each of the pane's words, and of each of its counts (−1: the
	// step's row count).
	paneWords, paneCounts []int
	// paneRun is paneWords[0] when the pane's words are the record's
	// from there on, in order (one copy writes them); −1 otherwise.
	paneRun int
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
		sw.paneWords, sw.paneCounts = st.paneCopy(wp, &sw)
		sw.paneRun = wordRun(sw.paneWords)
		st.wins = append(st.wins, sw)
	}
	words = p.heldCount(&st, words)
	st.words = words
	for j, m := range st.moms {
		st.folds = append(st.folds, stepFold{slot: m.slot, mom: j, ext: -1, with: -1})
	}
	for _, e := range st.exts {
		j := slices.IndexFunc(st.folds, func(f stepFold) bool { return f.slot == e.slot })
		if j < 0 {
			j = len(st.folds)
			st.folds = append(st.folds, stepFold{slot: e.slot, mom: -1, with: -1})
		}
		st.folds[j].ext = e.off
	}
	st.folds = pairSums(st.folds, st.moms)
	st.pairRaw = len(st.folds) == 1 && st.folds[0].with >= 0 && st.folds[0].ext >= 0 &&
		len(st.raw) == 1 && st.raw[0] == st.folds[0].slot && len(st.counts)+len(st.fls) == 0
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

// paneCopy returns where each word and each count of window wp's pane
// comes from in a record (see stepWin).
func (st *stepPlan) paneCopy(wp *winPlan, sw *stepWin) (words, counts []int) {
	words, counts = make([]int, wp.stride), make([]int, wp.nCounts)
	for i := range words {
		words[i] = -2 // not placed
	}
	for i := range counts {
		counts[i] = -2
	}
	if wp.hasRows {
		counts[0] = -1
	}
	for i := range wp.moments {
		m, sm := &wp.moments[i], &st.moms[sw.moms[i]]
		if !m.isRows {
			counts[m.nIdx] = sm.nOff
		}
		words[m.off], words[m.off+1] = sm.off, sm.off+1
		if m.squares {
			words[m.off+2], words[m.off+3] = sm.off+2, sm.off+3
		}
	}
	for i, off := range sw.counts {
		counts[wp.cnt0+i] = off
	}
	for i, off := range sw.exts {
		words[wp.offExt+i] = off
	}
	for i, off := range sw.fls {
		for j := range 4 {
			words[wp.offFL+4*i+j] = off + j
		}
	}
	if slices.Contains(words, -2) || slices.Contains(counts, -2) {
		panic("aligned: a pane item without a record item")
	}
	return words, counts
}

// wordRun returns words[0] when words are consecutive (each one more than
// the one before it), −1 otherwise or when there are none.
func wordRun(words []int) int {
	for i, w := range words {
		if w != words[0]+i {
			return -1
		}
	}
	if len(words) == 0 {
		return -1
	}
	return words[0]
}

// steps holds every partition's open-step record: its row count (stepShut
// for a partition unknown or not live, whose next row takes the slow
// way), its words, partition q's at q·words, and its raw rows. A
// partition's raw rows are the first rows·len(stepPlan.raw) words of its
// buffer (raws); the buffer's length is its capacity, so that a row's
// values are written at their place with no length to keep (countLiveRaw).
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
	}
}

// raws returns partition q's raw rows, w words a row.
func (st *steps) raws(q int32, w int) []uint64 {
	return st.raw[q][:int(st.rows(q))*w]
}

// roomRaw makes partition q's raw buffer hold need words, keeping its
// first have.
func (st *steps) roomRaw(q int32, have, need int) {
	if need <= len(st.raw[q]) {
		return
	}
	r := slices.Grow(st.raw[q][:have], need-have)
	st.raw[q] = r[:cap(r)]
}

// putRaws writes rows [from, to) of the raw slots' columns cols as
// partition q's raw rows from row c on.
func (st *steps) putRaws(q int32, c int, cols [][]uint64, from, to int) {
	w := len(cols)
	if w == 0 || from >= to {
		return
	}
	st.roomRaw(q, c*w, (c+to-from)*w)
	r := st.raw[q][c*w : (c+to-from)*w]
	for j, col := range cols {
		for i, x := range col[from:to] {
			r[i*w+j] = x
		}
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

// rows returns the number of rows in partition q's record.
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
	st.n[q] = 0
}

// pairSums gives each fold of a required column's squares the plain sums
// of another required column (no squares, no extremes) to fold in the
// same pass (foldSquaresWith), and drops that column's own fold.
func pairSums(folds []stepFold, moms []stepMom) []stepFold {
	plain := func(f stepFold) bool { return f.mom >= 0 && !moms[f.mom].squares && moms[f.mom].nOff < 0 && f.ext < 0 }
	for i := 0; i < len(folds); i++ {
		if folds[i].mom < 0 || !moms[folds[i].mom].squares || moms[folds[i].mom].nOff >= 0 {
			continue
		}
		j := slices.IndexFunc(folds, plain)
		if j < 0 {
			break
		}
		folds[i].with = folds[j].mom
		folds = slices.Delete(folds, j, j+1)
		if j < i {
			i-- // the squares' fold moved down one
		}
	}
	return folds
}
