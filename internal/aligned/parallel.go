package aligned

import (
	"slices"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/schema"
)

// SetWorkers lets the group spread each closing over the pool's workers
// (nil: every closing on the caller's goroutine). The rows a closing emits
// do not depend on the number of workers; see [parClose].
func (g *Group) SetWorkers(p *workers.Pool) { g.par.pool = p }

// closeScratch is what one goroutine's part of a closing writes besides
// the partitions: the destination columns, and per window the panes that
// bound it at the closed boundary and at the next one (the same for every
// partition).
type closeScratch struct {
	dsts []*table.Col
	his  []int64 // window w's panes before his[w] are closed
	los  []int64 // window w's panes before los[w] leave it at the next boundary
	// The cells of the number outputs (see Plan.cellOuts), grown in
	// their columns for every row the closing may emit: the cell of
	// output column c for emitted row e is cols[c][e], written with one
	// store, not appended (a length, a capacity and a call on the way);
	// the cells of rows not emitted are dropped again when the closing
	// is done. times holds the rows' times.
	cols  [][]float64
	times []int64
	n     int // rows grown
	// parts is the partition of each emitted row, whose key the closing
	// writes once it is done (see Group.putKeys); keys its scratch.
	parts []int32
	keys  []string
	// A steady closing's bounds (see Group.steadyBounds): whether the
	// closing can be steady at all, and the base each window of
	// steadyPlan.multi has in a steady partition.
	steadyOK bool
	bases    []int64
}

// ready grows the cell columns of plan p's outputs in out (the first at
// column first) by n rows.
func (sc *closeScratch) ready(p *Plan, out *schema.Table, first, n int) {
	sc.n = n
	sc.cols = sc.cols[:0]
	for _, o := range p.cellOuts {
		sc.cols = append(sc.cols, table.Column(out, first+o).GrowNums(n))
	}
	if len(sc.times) < n {
		sc.times = make([]int64, n)
	}
	if len(sc.parts) < n {
		sc.parts = make([]int32, n)
	}
}

// flush keeps the cells of the e rows emitted and appends their times.
func (sc *closeScratch) flush(p *Plan, out *schema.Table, first, e int) {
	if e < sc.n {
		for _, o := range p.cellOuts {
			table.Column(out, first+o).DropNums(sc.n - e)
		}
	}
	clear(sc.cols) // the columns' memory is theirs
	table.Column(out, 0).AppendTimes(sc.times[:e])
}

// reserve gives the scratch room for closings of plan p over up to n
// partitions, so that closeRange's appends and [closeScratch.ready] find
// it.
func (sc *closeScratch) reserve(p *Plan, n int) {
	if cap(sc.dsts) < p.nOut {
		sc.dsts = make([]*table.Col, p.nOut)
	}
	sc.his = slices.Grow(sc.his[:0], len(p.wins))
	sc.los = slices.Grow(sc.los[:0], len(p.wins))
	sc.bases = slices.Grow(sc.bases[:0], len(p.steady.multi))
	sc.cols = slices.Grow(sc.cols[:0], len(p.cellOuts))
	if len(sc.times) < n {
		sc.times = make([]int64, n)
	}
	if len(sc.parts) < n {
		sc.parts = make([]int32, n)
	}
	sc.keys = slices.Grow(sc.keys[:0], n)
}

// bytes returns the memory the scratch holds.
func (sc *closeScratch) bytes() int {
	return 8*(cap(sc.dsts)+cap(sc.his)+cap(sc.los)+cap(sc.times)) + 24*cap(sc.cols) + 4*cap(sc.parts) + 16*cap(sc.keys)
}

// close emits at boundary b for every live partition whose windows hold
// a row, in emission order, then slides their windows to the next
// boundary.
func (g *Group) close(b int64, out *schema.Table) {
	gated := g.splitClose()
	items := len(g.order) + g.since
	g.since = 0
	g.keyTag()
	e0 := out.Len()
	if g.hold != nil && table.Column(out, g.first+g.hold.out).Wide() {
		// Cells that keep values, not numbers, cannot be filled in
		// place (never a series' table).
		g.leaveHeld(g.hold.closeID)
	}
	// A closing that may be split is split when the gate finds that
	// pays (see workers.Gate).
	if gated && g.par.gate.Begin(items) {
		g.live -= g.par.run(g, b, out)
	} else {
		g.live -= g.closeRange(0, len(g.order), b, out, &g.sc)
	}
	if gated {
		g.par.gate.End()
	}
	if g.hold != nil {
		g.fill(out, e0)
	}
}

// closeSplitRows is the most rows a partition, on average, taken since
// the last closing for a closing to be split over workers. A closing's
// work is per partition, a push's per row: with few rows a partition
// between closings (the seed's 1000 hosts at 10 rows a second: 2) the
// closings are most of the work, and two workers sharing them gain;
// with more (20 at 100 rows a second, 200 at 1000), the push's own work
// on the pushing goroutine is most of it, and what a split costs (the
// other core reads and writes the partitions that the pushing goroutine
// folds its next rows into, the chunks' rows are copied after the join)
// outweighs the half of the closing it saves: two workers read slower
// than one there (BENCH.md, session 16). A variable for the tests.
var closeSplitRows = 8

// splitClose reports whether the next closing is split over workers: with
// a pool of more than one, more than one partition, and fewer than
// closeSplitRows rows a partition since the last closing. Which it is
// does not show in the rows (see parClose).
func (g *Group) splitClose() bool {
	return g.par.pool != nil && g.par.pool.N() > 1 && len(g.order) > 1 && g.since < closeSplitRows*len(g.order)
}

// SetCloseSplitRows sets closeSplitRows and returns the setting before.
// For tests: with a large n, every closing of a group with workers is
// split.
func SetCloseSplitRows(n int) int {
	old := closeSplitRows
	closeSplitRows = n
	return old
}

// parClose is a closing split over workers.
//
// What a closing does for one partition (drain its waiting rows into its
// panes, emit its row, slide its windows) reads and writes that
// partition's state only, beside the plan's read-only description. So the
// emission order is cut into chunks of contiguous partitions that the
// workers take as they come ([workers.Split]), each chunk emitting into a
// table of its own but those the caller takes in order from the first,
// which it emits straight into the output; once all have finished, the
// chunks' tables are appended to the output in chunk order
// ([table.Chunks]), so the output is row for row what one worker emits.
// Partitions that go dormant are counted per worker and summed
// afterwards.
type parClose struct {
	pool   *workers.Pool
	gate   workers.Gate // whether a closing is split
	g      *Group
	b      int64
	split  workers.Split
	chunks table.Chunks // where each chunk's rows go
	wk     []closeWorker
}

// closeWorker is one worker's scratch and count.
type closeWorker struct {
	sc      closeScratch
	dormant int
}

// run closes boundary b over the workers and returns the number of
// partitions that went dormant.
func (pc *parClose) run(g *Group, b int64, out *schema.Table) int {
	k := min(pc.pool.N(), len(g.order))
	if len(pc.wk) < k {
		pc.wk = append(pc.wk, make([]closeWorker, k-len(pc.wk))...)
	}
	pc.g, pc.b = g, b
	pc.chunks.Reset(out, pc.split.Reset(len(g.order), k, 8))
	// Every worker's scratch is readied here, for the largest chunk: a
	// worker taking part for the first time (which depends on when its
	// core is free) allocates nothing.
	for w := range k {
		pc.wk[w].dormant = 0
		pc.wk[w].sc.reserve(g.p, pc.split.Size())
	}
	pc.pool.Run(k, pc)
	dormant := 0
	for w := range k {
		dormant += pc.wk[w].dormant
	}
	pc.chunks.Join()
	pc.g = nil
	return dormant
}

// Do is worker w's part of the closing: chunks until none is left.
func (pc *parClose) Do(w int) {
	wk := &pc.wk[w]
	for {
		c, lo, hi, ok := pc.split.Next(w)
		if !ok {
			return
		}
		wk.dormant += pc.g.closeRange(lo, hi, pc.b, pc.chunks.For(w, c), &wk.sc)
	}
}
