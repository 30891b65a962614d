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
// ([workers.Split]), each chunk emitting into a table of its own but
// those the caller takes in order from the first, which it emits straight
// into the output; once all have finished, the chunks' tables are appended
// to the output in chunk order ([table.Chunks]). The output is then row
// for row what one worker emits, whoever took which chunk — the caller
// alone, if no worker joins in time.
//
// Deque blocks: every worker gets and puts them in the plan's pool under
// one lock (rare: a block changes hands every 256 rows a partition takes
// in), so the blocks in use and spare are those of one worker and steady
// ticks allocate none, however the chunks fall.
type parTick struct {
	pool   *workers.Pool
	gate   workers.Gate // whether a tick is split
	g      *Group
	t, b   int64
	split  workers.Split
	chunks table.Chunks // where each chunk's rows go
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
	// The rows' places: by stride when the pushes repeated a template
	// (each worker then gathers its partitions' rows by stride), else
	// sorted indices.
	if len(g.work.t) == 0 || !g.strideChains() {
		g.index()
	}
	g.keyTag()
	pt.g, pt.t, pt.b = g, t, b
	pt.locked.shared, pt.locked.mu = &g.p.pool, &pt.mu
	pt.chunks.Reset(out, pt.split.Reset(len(g.order), k, 8))
	strKeys := table.Column(out, 1).Kind() == column.String
	for w := range k {
		g.readyScratch(&pt.wk[w].sc, strKeys)
	}
	pt.pool.Run(k, pt)
	g.indexed, g.strided = false, false
	pt.chunks.Join()
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
		pt.g.tickRange(lo, hi, pt.t, pt.b, pt.chunks.For(w, c), &wk.sc, &pt.locked)
	}
}

// handOffRows is the fewest buffered rows a push hands to a worker. A
// variable for the tests, which hand over every push's rows.
var handOffRows = 512

// handOffMax is the most buffered rows a push hands to a worker. More
// have piled up only while the worker was still busy with the rows
// handed before: it has fallen behind the pushes. Taking rows between
// ticks costs a worker several times what the same take costs inside
// the tick's fold (a partition's engine and deque are out of cache
// there, a handed-over row or two per partition), so a worker left to
// it falls further behind with each hand-over, which then grows, and
// the tick waits for the last one. The rows beyond stay buffered for the
// tick, which takes them in its fold, shared between the workers. A
// variable for the tests.
var handOffMax = 2048

// handOffSpan is the fewest rows between the last two ticks (the first
// tick: since the first row) for a group to hand rows to a worker
// between ticks. With ticks closer than a few
// hand-overs apart (the seed's 1000 hosts at 10 rows a second: 2000 rows
// a tick, in two pushes), the worker takes a push's rows, one or two a
// partition, just before the tick folds the same partitions, half of
// them on the pushing goroutine, which then reads the deques the other
// core has just written, and waits for the worker's take besides: two
// workers read slower than one there (BENCH.md, session 16). The rows
// then wait for the tick, whose fold the workers share; before the first
// tick too, when the pace is not known yet. A variable for the tests.
var handOffSpan = handOffSpanRows

const handOffSpanRows = 4 * 2048

// SetHandOffRows sets the fewest buffered rows a push of a group with
// workers hands to a worker between ticks (see [Group.handOff]) and
// returns the setting before. For tests: with 1, every push's rows are
// taken on a worker, however close the ticks (handOffSpan is then 0; any
// other n restores it).
func SetHandOffRows(n int) int {
	old := handOffRows
	handOffRows = max(n, 1)
	handOffSpan = handOffSpanRows
	if handOffRows == 1 {
		handOffSpan = 0
	}
	return old
}

// bgTake is a group's buffered rows taken into their partitions' deques
// on a worker between ticks (see [Group.handOff]).
type bgTake struct {
	g    *Group
	busy bool // posted, not yet waited for
}

// Do lays out the rows handed over and takes each partition's into its
// deque, as a tick would before folding.
func (b *bgTake) Do(int) {
	g := b.g
	g.link() // their engines exist: no meet
	for _, p := range g.work.part {
		if g.chains[p].n > 0 {
			g.take(p, g.engines[p], noFold, &g.p.pool)
		}
	}
	g.clearPending()
}

// handOff, at the end of a push that buffered rows, lets a worker take
// them into the deques while the pushing goroutine goes on with the next
// pushes: with workers, when at least handOffRows and at most handOffMax
// rows wait, the last two ticks were at least handOffSpan rows apart and
// the worker is free (else they wait for the next push or the tick).
// Until
// the worker is done, the pushing goroutine touches only the rows it
// buffers since (in): every call that reads or changes the engines, the
// deques or the plan's pool settles first. The rows are those a tick
// would have taken, in the same order, so a tick folds the same deques.
//
// The engines of the partitions first seen among the rows are made here,
// in the order their rows arrived, as a tick would.
func (g *Group) handOff() {
	// The check is inlined (most groups have no workers), the work behind
	// a call.
	if g.par.pool != nil {
		g.handOffTo(g.par.pool)
	}
}

// handOffTo is handOff for a group with a pool of workers.
func (g *Group) handOffTo(pool *workers.Pool) {
	if n := len(g.in.t); pool.N() < 2 || n < handOffRows || n > handOffMax || g.spanRows < handOffSpan || pool.Busy(1) {
		return
	}
	g.settle()
	pool.Wait(1) // another group's task, if it was the last: done, checked
	// From now on rows of up to a step enter the deques before the fold
	// that evicts for them: deques still filling make room for them.
	g.p.pool.ahead = int64(g.p.trig.Seq.Step())
	g.spell(&g.in, len(g.in.t))
	g.meetIn(g.in.part)
	g.in, g.work = g.work, g.in
	g.bg.g, g.bg.busy = g, true
	pool.Post(1, &g.bg)
}

// settle waits for the rows handed to a worker to be taken.
func (g *Group) settle() {
	if g.bg.busy {
		g.par.pool.Wait(1)
		g.bg.busy = false
	}
}
