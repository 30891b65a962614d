package aligned

import (
	"slices"

	"github.com/pond-go/pond/internal/workers"
)

// Folding a push's rows over the workers, each partition on its owner
// (a prototype, measured in BENCH.md, session 17; not kept).
//
// With a pool of more than one worker, the partitions of the emission
// order are cut into the chunks a closing split over the same workers
// uses (see [workers.Split] and parClose). A push whose rows come grouped
// by chunk hands the rows of each other worker's home chunks, copied, to
// that worker (Pool.Post) and folds its own home's; a closing after such
// a fold is split the same way, so the worker that folds a partition's
// record is, as a rule, the one that closes it. Whatever reads or changes
// the group first waits for the hand-overs (waitOwn).
//
// Which goroutine folds a chunk does not show: each record takes its own
// rows in their order either way (see bufferStep), and a chunk's rows
// belong to its partitions only. A push in which a partition wakes (which
// changes the emission order) is folded on the caller's goroutine.

// ownFoldRows is the fewest rows a fold is split over the workers from:
// below it, the meeting costs more than the half of the fold it saves. A variable for the tests.
var ownFoldRows = 256

// SetOwnFoldRows sets ownFoldRows and returns the setting before. For
// tests: with 1, every fold of a group with workers is split.
func SetOwnFoldRows(n int) int {
	old := ownFoldRows
	ownFoldRows = n
	return old
}

// ownFold is the fold of a push's rows split by owner.
type ownFold struct {
	own    []uint16 // the chunk of each partition index (of those in order)
	ownFor int      // the partitions own was made for; -1 after a change
	k      int      // the owners own was made for
	chunks int
	start  []int // the first row of each chunk
	split  workers.Split
	used   bool      // a fold was split since the last closing
	posts  []ownPost // per worker: the rows handed to it
	posted int       // workers [1, posted) may hold a hand-over
}

// owners makes own give each partition of the emission order its owner
// among k: the worker whose home, in a closing split over k workers,
// holds the partition's chunk.
func (of *ownFold) owners(g *Group, k int) {
	if of.ownFor == len(g.order) && of.k == k {
		return
	}
	n := len(g.order)
	chunks := of.split.Reset(n, k, 8)
	size := max(of.split.Size(), 1)
	if len(of.own) < len(g.parts) {
		of.own = slices.Grow(of.own[:0], len(g.parts))[:len(g.parts)]
	}
	for pos, q := range g.order {
		of.own[q] = uint16(pos / size)
	}
	of.chunks = chunks
	of.ownFor, of.k = n, k
}

// splitFold reports whether rows [from, to) are folded by owner: with a
// pool of more than one worker, rows in the open step, and at least
// ownFoldRows of them.
func (g *Group) splitFold(in *Rows, from, to int) bool {
	return g.par.pool != nil && g.par.pool.N() > 1 && to-from >= ownFoldRows && in.Times[from] >= g.stepStart()
}

// bufferOwned folds rows [from, to) of in, of partitions parts, into
// their records, each worker's home chunks on that worker, when the rows
// come grouped by chunk (each chunk's rows one run of the push, as when a
// producer sends its hosts' rows in turn, in the order they were first
// seen): the rows of another worker's home are copied and handed to it
// (Pool.Post), and the caller folds its own home's and returns; the group
// waits for the hand-overs before anything reads or changes it (waitOwn).
// Other rows are folded on the caller's goroutine.
func (g *Group) bufferOwned(in *Rows, parts []int32, from, to int) {
	of := &g.own
	pool := g.par.pool
	k := min(pool.N(), len(g.order))
	if k >= 2 {
		of.owners(g, k)
	}
	// One pass finds where each chunk's rows start, and whether a row's
	// partition wakes (which changes the emission order, so the chunks).
	grouped := k >= 2
	start := slices.Grow(of.start[:0], of.chunks+1)[:of.chunks+1]
	of.start = start
	st, own := &g.st, of.own
	c := 0
	start[0] = from
	for i := from; i < to && grouped; i++ {
		q := parts[i]
		if int(q) >= len(st.n) || st.n[q] == stepShut {
			grouped = false
			break
		}
		o := int(own[q])
		if o < c {
			grouped = false
			break
		}
		for c < o {
			c++
			start[c] = i
		}
	}
	for w := 1; w < k && grouped; w++ {
		grouped = !pool.Busy(w) // another group's hand-over
	}
	if !grouped {
		g.bufferStep(in, parts, from, to, &g.rawCols)
		return
	}
	for c < of.chunks {
		c++
		start[c] = to
	}
	if len(of.posts) < k {
		of.posts = append(of.posts, make([]ownPost, k-len(of.posts))...)
	}
	home := func(w int) (int, int) { return start[w*of.chunks/k], start[(w+1)*of.chunks/k] }
	for w := 1; w < k; w++ {
		lo, hi := home(w)
		if lo == hi {
			continue
		}
		op := &of.posts[w]
		op.g = g
		op.rows.Times = append(op.rows.Times[:0], in.Times[lo:hi]...)
		op.parts = append(op.parts[:0], parts[lo:hi]...)
		if len(op.rows.Enc) < len(in.Enc) {
			op.rows.Enc = append(op.rows.Enc, make([][]uint64, len(in.Enc)-len(op.rows.Enc))...)
		}
		op.rows.Enc = op.rows.Enc[:len(in.Enc)]
		for j, col := range in.Enc {
			op.rows.Enc[j] = append(op.rows.Enc[j][:0], col[lo:hi]...)
		}
		op.rawCols = slices.Grow(op.rawCols[:0], len(g.p.st.raw))
		pool.Post(w, op)
		of.posted = max(of.posted, w+1)
	}
	of.used = true
	if lo, hi := home(0); lo < hi {
		g.bufferStep(in, parts, lo, hi, &g.rawCols)
	}
}

// ownPost is the rows of one worker's home chunks, handed to it.
type ownPost struct {
	g       *Group
	rows    Rows
	parts   []int32
	rawCols [][]uint64
}

// Do folds the rows into their records.
func (op *ownPost) Do(int) {
	op.g.bufferStep(&op.rows, op.parts, 0, len(op.parts), &op.rawCols)
}

// waitOwn waits for the rows handed to workers to be folded (folding them
// on the caller's goroutine if their worker has not started).
func (g *Group) waitOwn() {
	of := &g.own
	for w := 1; w < of.posted; w++ {
		g.par.pool.Wait(w)
	}
	of.posted = 0
}
