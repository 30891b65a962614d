package engine

import (
	"slices"
	"sync/atomic"

	"github.com/pond-go/pond/internal/workers"
)

// A tick over workers first finds each partition's buffered rows. On one
// goroutine that is a counting sort of the rows' indices by partition
// ([Group.index]): a pass over the rows to count, one over the
// partitions to place, one over the rows to scatter. With many rows
// (rows handed to no worker between ticks: the hand-over was busy, or
// the ticks are close) it is a part of the tick that only the pushing
// goroutine would do, while the workers wait for the fold. So the rows are
// cut into pieces, one a worker, each sorted on its own by whoever takes
// it: piece j's rows [lo, hi) get their indices in idx[lo:hi], by
// partition and in arrival order within each, and a count a partition
// that, after the scatter, holds where the partition's indices end in
// the piece (see pieces.ends). A partition's rows are then its indices in
// piece 0, then in piece 1, and so on: the arrival order, as the one
// sort gives, so the deques take the same rows in the same order.
//
// The partitions first seen among the rows get their engines once all
// pieces are sorted, on the pushing goroutine, in the order their first
// rows arrived (as index makes them), before the tick's partitions are
// cut into chunks.

// pieceRows is the fewest buffered rows a tick over workers sorts in
// pieces (see pieces); it also wants at least pieceRowsPerPart rows a
// known partition, so that the pieces' passes over the partitions cost
// little beside the rows. Fewer are sorted on the pushing goroutine alone
// (index). A variable for the tests.
var pieceRows = 4096

const pieceRowsPerPart = 4

// SetPieceRows sets the fewest buffered rows a tick over workers sorts
// in pieces (see pieceRows) and returns the setting before. For tests:
// with 1, every tick over workers with rows sorts them in pieces, however
// few a partition.
func SetPieceRows(n int) int {
	old := pieceRows
	pieceRows = max(n, 1)
	return old
}

// pieces is a tick's buffered rows sorted by partition in pieces, one a
// worker (see the comment above), and the task that sorts them.
type pieces struct {
	g *Group
	n int // pieces of this tick
	// lo[j] is the first row of piece j; lo[n] the number of rows.
	lo []int32
	// ends[j][p]: after the sort, where partition p's indices end in
	// idx (they start where partition p−1's end, or at lo[j] for p = 0);
	// partitions at or beyond its length have no rows in piece j.
	ends    [][]int32
	unknown []bool       // per piece: a partition without an engine among its rows
	next    atomic.Int32 // the next piece to sort
}

// usePieces reports whether a tick over k workers sorts its buffered rows
// in pieces.
func (g *Group) usePieces(k int) bool {
	n := len(g.work.part)
	return k > 1 && n >= pieceRows && n >= pieceRowsPerPart*len(g.engines)
}

// indexPieces sorts the buffered rows' indices by partition in k pieces
// over the pool's workers, then makes the engines of the partitions first
// seen among them, in the order their first rows arrived.
func (g *Group) indexPieces(pool *workers.Pool, k int) {
	ps := &g.pcs
	n := len(g.work.part)
	ps.g, ps.n = g, k
	ps.lo = slices.Grow(ps.lo[:0], k+1)[:k+1]
	for j := range k + 1 {
		ps.lo[j] = int32(j * n / k)
	}
	if len(ps.ends) < k {
		ps.ends = append(ps.ends, make([][]int32, k-len(ps.ends))...)
		ps.unknown = make([]bool, k)
	}
	// Each piece's counts are made long enough for every known partition
	// here, so that a worker taking a piece allocates only for a partition
	// seen for the first time.
	for j := range k {
		if len(ps.ends[j]) < len(g.engines) {
			ps.ends[j] = append(ps.ends[j], make([]int32, len(g.engines)-len(ps.ends[j]))...)
		}
	}
	g.idx = slices.Grow(g.idx[:0], n)[:n]
	ps.next.Store(0)
	pool.Run(k, ps)
	ps.g = nil
	for _, u := range ps.unknown[:k] {
		if u {
			g.meet()
			break
		}
	}
	g.pieced = true
}

// Do sorts pieces until none is left.
func (ps *pieces) Do(int) {
	for {
		j := int(ps.next.Add(1) - 1)
		if j >= ps.n {
			return
		}
		ps.sort(j)
	}
}

// sort sorts piece j's rows' indices by partition into idx[lo[j]:lo[j+1]].
func (ps *pieces) sort(j int) {
	g := ps.g
	lo, hi := int(ps.lo[j]), int(ps.lo[j+1])
	clear(ps.ends[j])
	ps.unknown[j] = g.count(lo, hi, &ps.ends[j])
	cur := ps.ends[j]
	off := int32(lo)
	for p, k := range cur {
		cur[p] = off
		off += k
	}
	idx := g.idx
	for i, p := range g.work.part[lo:hi] {
		idx[cur[p]] = int32(lo + i)
		cur[p]++
	}
}

// span returns where partition p's indices start and end in idx within
// piece j.
func (ps *pieces) span(j int, p int32) (start, end int32) {
	ends := ps.ends[j]
	if int(p) >= len(ends) {
		return 0, 0
	}
	start = ps.lo[j]
	if p > 0 {
		start = ends[p-1]
	}
	return start, ends[p]
}

// pending returns the number of partition p's buffered rows.
func (ps *pieces) pending(p int32) int {
	n := int32(0)
	for j := range ps.n {
		s, e := ps.span(j, p)
		n += e - s
	}
	return int(n)
}

// gatherPieces appends partition p's buffered rows, found through the
// indices [Group.indexPieces] sorted, piece after piece, to its engine's
// deque.
func (g *Group) gatherPieces(p int32, e *Engine, pool *blockPool) {
	ps := &g.pcs
	for j := range ps.n {
		if s, end := ps.span(j, p); s < end {
			g.gatherIdx(e, pool, g.idx[s:end])
		}
	}
}
