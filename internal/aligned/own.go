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
// uses (see [workers.Split] and parClose), and a push's rows, when they
// come grouped by chunk, are folded chunk by chunk, each worker taking
// its home's chunks first: the worker that folds a partition's rows into
// its open-step record is then, as a rule, the one that closes it.
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
	used   bool // a fold was split since the last closing
	g      *Group
	in     *Rows
	parts  []int32
	wk     []ownWorker
}

// ownWorker is one worker's scratch.
type ownWorker struct {
	rawCols [][]uint64
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
// their records, split over the workers by the closing's chunks when the
// rows come grouped by chunk (each chunk's rows one run of the push, as
// when a producer sends its hosts' rows in turn, in the order they were
// first seen); other rows are folded on the caller's goroutine.
func (g *Group) bufferOwned(in *Rows, parts []int32, from, to int) {
	of := &g.own
	k := min(g.par.pool.N(), len(g.order))
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
	if !grouped {
		g.bufferStep(in, parts, from, to, &g.rawCols)
		return
	}
	for c < of.chunks {
		c++
		start[c] = to
	}
	if len(of.wk) < k {
		of.wk = append(of.wk, make([]ownWorker, k-len(of.wk))...)
	}
	// Every worker's scratch is made here: a worker taking part for the
	// first time allocates nothing.
	for w := range k {
		of.wk[w].rawCols = slices.Grow(of.wk[w].rawCols[:0], len(g.p.st.raw))
	}
	of.split.Reset(len(g.order), k, 8)
	of.g, of.in, of.parts = g, in, parts
	of.used = true
	g.par.pool.Run(k, of)
	of.g, of.in, of.parts = nil, nil, nil
}

// Do is worker w's part: the rows of the chunks it takes, its home's
// first.
func (of *ownFold) Do(w int) {
	wk := &of.wk[w]
	for {
		c, _, _, ok := of.split.Next(w)
		if !ok {
			return
		}
		if lo, hi := of.start[c], of.start[c+1]; lo < hi {
			of.g.bufferStep(of.in, of.parts, lo, hi, &wk.rawCols)
		}
	}
}
