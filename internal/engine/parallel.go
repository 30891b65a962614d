package engine

import (
	"sync"

	"github.com/pond-go/pond/internal/column"
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
// description and the buffered rows. So the caller first sorts the
// buffered rows' indices by partition (see [Group.index], as a tick on
// one goroutine does), then the emission order is cut into chunks of
// contiguous partitions that the workers take as they come
// ([workers.Split]), each chunk emitting into a table of its own; once
// all have finished, the chunks' tables are appended to the output in
// chunk order. The output is then row for row what one worker emits,
// whoever took which chunk — the caller alone, if no worker joins in time.
//
// Deque blocks: every worker gets and puts them in the plan's pool under
// one lock (rare: a block changes hands every 256 rows a partition takes
// in), so the blocks in use and spare are those of one worker and steady
// ticks allocate none, however the chunks fall.
type parTick struct {
	pool   *workers.Pool
	g      *Group
	t, b   int64
	split  workers.Split
	chunks []*schema.Table // the rows of each chunk
	wk     []tickWorker
	mu     sync.Mutex // guards the plan's pool during the tick
	locked blockPool  // the plan's pool seen through mu, shared by the workers
}

// tickWorker is one worker's scratch.
type tickWorker struct {
	sc tickScratch
}

func (pt *parTick) run(g *Group, t, b int64, out *schema.Table) {
	k := pt.pool.N()
	if len(pt.wk) < k {
		pt.wk = append(pt.wk, make([]tickWorker, k-len(pt.wk))...)
	}
	g.index()
	pt.g, pt.t, pt.b = g, t, b
	pt.locked.shared, pt.locked.mu = &g.p.pool, &pt.mu
	pt.chunks = table.Empties(pt.chunks, pt.split.Reset(len(g.order), k, 8), out.Schema())
	strKeys := table.Column(out, 1).Kind() == column.String
	for w := range k {
		g.readyScratch(&pt.wk[w].sc, strKeys)
	}
	pt.pool.Run(k, pt)
	g.indexed = false
	for _, c := range pt.chunks {
		table.AppendAll(out, c)
	}
	pt.g = nil
}

// Do is worker w's part of the tick: chunks of partitions until none is
// left.
func (pt *parTick) Do(w int) {
	wk := &pt.wk[w]
	for {
		c, lo, hi, ok := pt.split.Next(w)
		if !ok {
			return
		}
		pt.g.tickRange(lo, hi, pt.t, pt.b, pt.chunks[c], &wk.sc, &pt.locked)
	}
}
