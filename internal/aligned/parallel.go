package aligned

import (
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/schema"
)

// SetWorkers lets the group spread each closing over the pool's workers
// (nil: every closing on the caller's goroutine). The rows a closing emits
// do not depend on the number of workers; see [parClose].
func (g *Group) SetWorkers(p *workers.Pool) { g.par.pool = p }

// closeScratch is what one goroutine's part of a closing writes besides
// the partitions: the destination columns.
type closeScratch struct {
	dsts []*table.Col
}

// close emits at boundary b for every live partition whose windows hold
// a row, in emission order, then slides their windows to the next
// boundary.
func (g *Group) close(b int64, out *schema.Table) {
	if g.par.pool != nil && g.par.pool.N() > 1 && len(g.order) > 1 {
		g.live -= g.par.run(g, b, out)
		return
	}
	g.live -= g.closeRange(0, len(g.order), b, out, &g.sc)
}

// parClose is a closing split over workers.
//
// What a closing does for one partition (drain its waiting rows into its
// panes, emit its row, slide its windows) reads and writes that
// partition's state only, beside the plan's read-only description. So the
// emission order is cut into as many contiguous ranges as there are
// workers; worker 0 emits its range straight into the push's output and
// every other worker into a table of its own, appended to the output in
// range order once all have finished: the output is row for row what one
// worker emits. Partitions that go dormant are counted per worker and
// summed afterwards.
type parClose struct {
	pool *workers.Pool
	g    *Group
	b    int64
	out  *schema.Table
	wk   []closeWorker
}

// closeWorker is one worker's share of a closing.
type closeWorker struct {
	lo, hi  int
	tab     *schema.Table // its rows (worker 0: the push's output)
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
	pc.g, pc.b, pc.out = g, b, out
	n := len(g.order)
	for w := range k {
		wk := &pc.wk[w]
		wk.lo, wk.hi = w*n/k, (w+1)*n/k
		if w > 0 {
			if wk.tab == nil || wk.tab.Schema() != out.Schema() {
				wk.tab = schema.NewTable(out.Schema())
			}
			table.Reset(wk.tab)
		}
	}
	pc.pool.Run(k, pc)
	dormant := 0
	for w := range k {
		wk := &pc.wk[w]
		dormant += wk.dormant
		if w == 0 {
			continue
		}
		table.AppendAll(out, wk.tab)
	}
	pc.g, pc.out = nil, nil
	return dormant
}

// Do is worker w's part of the closing.
func (pc *parClose) Do(w int) {
	wk := &pc.wk[w]
	out := pc.out
	if w > 0 {
		out = wk.tab
	}
	wk.dormant = pc.g.closeRange(wk.lo, wk.hi, pc.b, out, &wk.sc)
}
