package engine

import (
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/schema"
)

// SetWorkers lets the group spread each tick of a synchronised clock over
// the pool's workers (nil: every tick on the caller's goroutine). The rows
// a tick emits do not depend on the number of workers; see [parTick].
func (g *Group) SetWorkers(p *workers.Pool) {
	if g.al != nil {
		g.al.SetWorkers(p)
		return
	}
	g.par.pool = p
}

// parTick is a tick split over workers.
//
// A tick visits the partitions in emission order, and what it does for
// one partition (take its buffered rows, fold its windows, emit its row)
// reads and writes only that partition's engine, the plan's read-only
// description and the buffered rows. So the emission order is cut into as
// many contiguous ranges as there are workers; worker 0 emits its range
// straight into the push's output and every other worker into a table of
// its own, which is appended to the output, in range order, once all have
// finished. The output is then row for row what one worker emits.
//
// Deque blocks come from the plan's pool; a worker other than 0 draws
// from a share of its spare blocks handed over before the tick and gives
// back what it holds after, so the blocks in use and spare are counted
// as with one worker.
type parTick struct {
	pool *workers.Pool
	g    *Group
	t, b int64
	out  *schema.Table
	wk   []tickWorker
}

// tickWorker is one worker's share of a tick.
type tickWorker struct {
	lo, hi int
	tab    *schema.Table // the rows it emits (worker 0: the push's output)
	dsts   []*table.Col
	pool   blockPool
	inUse  [sizeClasses]int // the pool's counts of blocks in use when handed over
}

func (pt *parTick) run(g *Group, t, b int64, out *schema.Table) {
	k := min(pt.pool.N(), len(g.order))
	if len(pt.wk) < k {
		pt.wk = append(pt.wk, make([]tickWorker, k-len(pt.wk))...)
	}
	pt.g, pt.t, pt.b, pt.out = g, t, b, out
	shared := &g.p.pool
	n := len(g.order)
	for w := range k {
		wk := &pt.wk[w]
		wk.lo, wk.hi = w*n/k, (w+1)*n/k
		if w == 0 {
			continue
		}
		if wk.tab == nil || wk.tab.Schema() != out.Schema() {
			wk.tab = schema.NewTable(out.Schema())
		}
		table.Reset(wk.tab)
		// A share of the spare blocks, and the shared count of blocks in
		// use, so that the worker keeps what it frees as the shared pool
		// would.
		wk.inUse = shared.lend(&wk.pool, k-w+1)
	}
	pt.pool.Run(k, pt)
	for w := 1; w < k; w++ {
		wk := &pt.wk[w]
		shared.reclaim(&wk.pool, wk.inUse)
		table.AppendAll(out, wk.tab)
	}
	pt.g, pt.out = nil, nil
}

// Do is worker w's part of the tick.
func (pt *parTick) Do(w int) {
	g, wk := pt.g, &pt.wk[w]
	if w == 0 {
		g.tickRange(wk.lo, wk.hi, pt.t, pt.b, pt.out, &wk.dsts, &g.p.pool)
		return
	}
	g.tickRange(wk.lo, wk.hi, pt.t, pt.b, wk.tab, &wk.dsts, &wk.pool)
}
