package engine

import (
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/column"
	"github.com/pond-go/pond/internal/prefetch"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Keys gives the partition column's value of a partition index; the
// partition router is one.
type Keys interface {
	KeyValue(p int32) schema.Value
}

// StrKeys is a [Keys] that also gives the string keys of a run of
// partitions at once: KeyStrs sets keys[k] to partition parts[k]'s key
// and reports true when every one of them is a string; otherwise it
// reports false, and the tick asks KeyValue one partition at a time. The
// partition router is one.
type StrKeys interface {
	KeyStrs(keys []string, parts []int32) bool
}

// capKeys is a [Keys] that also tells one more than the largest partition
// index it has (the partition router is one): a group expects to make an
// engine for each index it has none for yet.
type capKeys interface {
	Cap() int
}

// Group runs one [Engine] per partition of a partitioned stream under the
// plan's trigger. Output rows carry the partition column after the time.
//
// # The synchronised clock
//
// Under a clock trigger the partitions share one clock: the tick fires
// inside the ingest of the first row that crosses a boundary, and every
// partition the group knows then, in the order it first saw them (declared
// groups first, see [Group.Declare]), evicts against that row's time and
// emits one row keyed at the boundary. Partitions first seen after the
// crossing row join at the next tick; quiet partitions still emit.
//
// Between ticks nothing is observable, so rows are only buffered, in
// arrival order, in one sequential buffer. At the tick the buffered rows
// are sorted by partition (their indices, or with workers the rows; with
// a row or two a partition, their indices are linked instead), and
// the tick visits each partition once: it takes the partition's rows into
// its deque, folds its windows and emits its row, while the oldest rows,
// tail and state of partitions a few places ahead are prefetched. The per-row cost is a sequential write; a partition's
// state is brought into cache once per tick.
//
// Under an event or count trigger each partition emits on its own rows
// (the count per partition), keyed at the row's time.
type Group struct {
	p    *Plan
	keys Keys
	// sk is keys as StrKeys when it is one, asserted once here: an
	// assertion to an interface at every tick goes through the runtime,
	// which now and then (about one call in a thousand, at random)
	// allocates the call site's cache.
	sk      StrKeys
	kc      capKeys // keys as capKeys when it is one (see unmade)
	engines []*Engine
	order   []int32
	// keysTag names the partitions' order to the output's key column
	// (see [column.Col.KeepStrs]): a tick that finds the keys of the same
	// order at the same cells of the column after its reset does not
	// write them again. 0 after the order changed: the next tick takes
	// a new tag (see keyTag).
	keysTag uint64
	clock   clock.ClockState
	counts  []clock.CountState // under a count trigger, by partition

	// Rows since the last tick, column by column: in takes a push's rows;
	// work holds those being moved into the deques, at a tick, or before
	// it on a worker (see handOff). On one goroutine the two swap back
	// after each tick, so that only in grows.
	in, work pendRows
	bg       bgTake
	tickRows int // rows buffered since the last tick
	mostRows int // the most rows a tick has taken from the buffer (see fitBuffer)
	// The most of them whose partitions were spelt (see fitBuffer).
	mostSpelt int
	// tmpl: the partitions of a push's rows, which the pushes since the
	// last tick repeat (see bufferParts); tmplID: the id its caller gave
	// that list (see Input.SetPartsID), 0 when none is known.
	tmpl     []int32
	tmplID   uint64
	spanRows int // rows buffered up to the last tick since the one before (see handOff)
	// At a tick on one goroutine, the buffered rows' indices sorted by
	// partition (see index): partition p's end at idx[chains[p].end]
	// (idx16's when narrow);
	// or, linked (see linkChains), p's last row chains[p].end and the
	// row before row i idx[i]; or, strided (see strideChains), p's first
	// row chains[p].end and the others every len(tmpl)-th row after it.
	// Over workers, the buffered rows themselves laid out row-major (the
	// time, then the encoded columns), grouped by partition and in
	// arrival order within each: partition p's end at row chains[p].end
	// of sorted (see link).
	chains  []chain
	idx     []int32
	indexed bool // this tick's chains are of idx, not of sorted
	linked  bool // and idx links each partition's rows (see linkChains)
	strided bool // or the chains are of no index (see strideChains)
	// On a group without workers, a tick of at most narrowRows rows
	// sorts their indices into idx16, 2 bytes a row, not idx (see
	// index); narrow says this tick's are there.
	idx16  []uint16
	narrow bool
	seq    []int32 // gatherLinked's scratch: a chain's rows in order
	sorted []uint64
	cnt    []int32 // index's and link's scratch: buffered rows by partition
	at     []int   // link's scratch: each buffered row's place in sorted
	sc     tickScratch
	// room[p]: the room left at partition p's deque tail when rows go
	// there directly (see direct.go), until the next tick or removal.
	room []tailRoom
	// quiet2: the plan, not aligned, is under a clock and reads two
	// number columns, as PushQuiet needs.
	quiet2 bool

	al   *aligned.Group // the aligned engine, when the plan is aligned
	rows aligned.Rows

	par parTick // a tick split over workers (see parallel.go)
}

// pendRows are rows buffered for the next tick, column by column: times,
// the encoded columns the plan reads, partitions.
type pendRows struct {
	t []int64
	c [][]uint64
	// part holds the rows' partitions, unless cyc: then they are the
	// group's template repeated, row i's at tmpl[(off+i) mod len(tmpl)],
	// and next is where the next row's must be (see Group.bufferParts).
	part      []int32
	cyc       bool
	off, next int
	// unsorted: rows of a push not known to be in order (see
	// Input.SetSorted) were buffered, so the rows a deque takes from
	// the buffer may come before its latest (see dqUnsorted).
	unsorted bool
}

// bytes returns the memory the buffer holds.
func (r *pendRows) bytes() int {
	n := 8*cap(r.t) + 4*cap(r.part)
	for _, c := range r.c {
		n += 8 * cap(c)
	}
	return n
}

// chain is one partition's buffered rows: how many, and where they end
// in the sorted rows.
type chain struct{ end, n int32 }

// NewGroup returns an empty group for the plan, whose [Plan] must have
// been built with a partition key.
func (p *Plan) NewGroup(keys Keys) *Group {
	g := &Group{p: p, keys: keys}
	g.sk, _ = keys.(StrKeys)
	g.kc, _ = keys.(capKeys)
	if p.al != nil {
		g.al = p.al.NewGroup(keys, p.first, 0)
		return g
	}
	if t := p.trig; t.Kind == clock.Clock {
		g.clock = clock.NewClockState(t.Seq)
		g.quiet2 = !p.notNum && len(p.cols) == 2
	}
	return g
}

// Declare makes partition part known (placing it last in the emission
// order) before any of its rows arrive, as declared groups are.
func (g *Group) Declare(part int32) {
	if g.al != nil {
		g.al.Declare(part)
		return
	}
	g.settle()
	g.engine(part)
}

// SetLateness tells an aligned group how late an accepted row may be: the
// series' grace under reorder ordering, zero under strict or drop. A
// boundary closes when the latest accepted time minus the lateness
// reaches it. It has no effect on a group that is not aligned.
func (g *Group) SetLateness(d time.Duration) {
	if g.al != nil {
		g.al.SetLag(int64(d))
	}
}

// AdvanceTo closes, in aligned mode, the boundaries that the series
// accepting a row at t closes, for a group given only some of the series'
// rows (see [aligned.Group.Advance]); out's table is asked for only when
// one closes. Other modes close on their own rows only.
func (g *Group) AdvanceTo(t int64, out Sink) {
	if g.al != nil && g.al.Due(t) {
		g.al.Advance(t, out.Table())
	}
}

// SetHeld makes an aligned group read its samples from the series' rows
// through src (see [aligned.Held]), before it takes a row, and reports
// whether it does: when the plan's [Plan.HeldColumn] is ok.
func (g *Group) SetHeld(src aligned.Held) bool {
	return g.al != nil && g.al.SetHeld(src)
}

// HeldBytes returns the memory the group's windows hold.
func (g *Group) HeldBytes() int {
	if g.al != nil {
		return g.al.Bytes()
	}
	g.settle()
	n := 0
	for _, p := range g.order {
		n += g.engines[p].heldBytes()
	}
	return n + g.in.bytes() + g.work.bytes() + 4*cap(g.tmpl) + g.p.pool.bytes() + 8*cap(g.sorted)
}

// Remove forgets partition part and gives its memory back to the pool. A
// row for the same index later starts a new partition.
func (g *Group) Remove(part int32) {
	if g.al != nil {
		g.al.Remove(part)
		return
	}
	// Buffered rows of the partition leave with it, even when it has not
	// reached a tick yet (its index may be given to another key).
	g.flush()
	if int(part) >= len(g.engines) || g.engines[part] == nil {
		return
	}
	g.engines[part].Release()
	g.engines[part] = nil
	g.keysTag = 0
	keep := g.order[:0]
	for _, q := range g.order {
		if q != part {
			keep = append(keep, q)
		}
	}
	g.order = keep
}

// Len returns the number of partitions the group knows: all those of
// the rows up to the last tick; with workers or few partitions, also some
// of those of the rows since (see [Group.handOff] and directParts).
func (g *Group) Len() int {
	if g.al != nil {
		return g.al.Len()
	}
	return len(g.order)
}

// Engine returns the engine of partition part, or nil.
func (g *Group) Engine(part int32) *Engine {
	g.settle()
	if int(part) >= len(g.engines) {
		return nil
	}
	return g.engines[part]
}

// engine returns the engine of partition part, making it (and placing the
// partition last in the emission order) if it has none. A count trigger's
// counters are kept per partition only under a count trigger.
func (g *Group) engine(part int32) *Engine {
	count := g.p.trig.Kind == clock.Count
	for int(part) >= len(g.engines) {
		g.engines = append(g.engines, nil)
		if count {
			g.counts = append(g.counts, clock.CountState{})
		}
	}
	e := g.engines[part]
	if e == nil {
		e = g.p.newEngine(g.unmade())
		g.engines[part] = e
		if count {
			g.counts[part] = clock.NewCountState(g.p.trig.N)
		}
		g.order = append(g.order, part)
		g.keysTag = 0
	}
	return e
}

// unmade returns how many partitions the group's keys have that it has
// made no engine for (0 when its keys do not tell): the engines it
// expects to make, as the rows of partitions a push made arrive.
func (g *Group) unmade() int {
	if g.kc == nil {
		return 0
	}
	return g.kc.Cap() - len(g.order)
}

// Push takes every row of in, in order, row i belonging to partition
// part[i], and appends the rows it emits to out.
func (g *Group) Push(in *Input, part []int32, out *schema.Table) {
	g.PushTo(in, part, (*tableSink)(out))
}

// PushTo is [Group.Push] appending to the table of out, asked for when the
// first row is emitted (an aligned group asks at once).
func (g *Group) PushTo(in *Input, part []int32, out Sink) {
	if g.al != nil {
		g.rows = aligned.Rows{Times: in.times, Enc: in.enc, Arrs: in.arrs, First: in.first}
		g.al.Push(&g.rows, part, out.Table())
		return
	}
	switch g.p.trig.Kind {
	case clock.Clock:
		if g.p.hasArr {
			for i, t := range in.times {
				g.engine(part[i]).Append(in, i)
				if b, fired := g.clock.Observe(t); fired {
					g.tick(t, b, out)
				}
			}
			return
		}
		// Buffer the rows between crossings column by column, in runs;
		// sorted rows whose last crosses nothing, in one run.
		if n := len(in.times); in.sorted && n > 0 && g.clock.Quiet(in.times[n-1]) {
			if g.direct() {
				// Straight to the deques (a group without workers:
				// nothing to hand off).
				g.appendDirect(in, part, 0, n)
				return
			}
			g.buffer(in, part, 0, n)
			g.handOff()
			return
		}
		from := 0
		if in.sorted {
			// Only the times that are not quiet are observed (a tick
			// a second of 100,000 rows reads one or two).
			for i := g.clock.NextLoud(in.times, 0); i < len(in.times); i = g.clock.NextLoud(in.times, i+1) {
				t := in.times[i]
				if b, fired := g.clock.Observe(t); fired {
					g.buffer(in, part, from, i+1)
					from = i + 1
					g.tick(t, b, out)
				}
			}
		} else {
			for i, t := range in.times {
				if b, fired := g.clock.Observe(t); fired {
					g.buffer(in, part, from, i+1)
					from = i + 1
					g.tick(t, b, out)
				}
			}
		}
		g.buffer(in, part, from, len(in.times))
		g.handOff()
	case clock.Event:
		if len(in.times) == 0 {
			return
		}
		tab := out.Table()
		tc, kc := table.Column(tab, 0), table.Column(tab, 1)
		for i, t := range in.times {
			e := g.engine(part[i])
			e.Append(in, i)
			e.Step()
			tc.AppendTime(t)
			table.AppendValue(kc, g.keys.KeyValue(part[i]))
			e.Emit(tab)
		}
	case clock.Count:
		for i, t := range in.times {
			p := part[i]
			e := g.engine(p)
			e.Append(in, i)
			if g.counts[p].Observe() {
				tab := out.Table()
				e.Fold(e.maxT)
				table.Column(tab, 0).AppendTime(t)
				table.AppendValue(table.Column(tab, 1), g.keys.KeyValue(p))
				e.Emit(tab)
			}
		}
	}
}

// tick emits one row per known partition, keyed at boundary b, with every
// window evicted against t. Each partition first takes the rows buffered
// for it, so that its engine is visited once per tick: append, fold,
// emit.
func (g *Group) tick(t, b int64, out Sink) {
	g.settle()
	g.forgetRoom()
	g.in, g.work = g.work, g.in
	par := g.par.pool != nil && g.par.pool.N() > 1
	// With workers, a tick is split over them. Where the ticks are close
	// enough that no rows are handed over between them (see handOff), the
	// tick is all the workers share, and the gate chooses whether it is
	// split, from what ticks took each way (see workers.Gate). Where rows
	// are handed over, the tick is split: a worker that took a
	// partition's rows between ticks finds its lines again in the tick,
	// which a tick's own time does not show.
	split := par && len(g.order)+len(g.work.t) > 1
	gated := split && g.spanRows < handOffSpan
	if gated {
		split = g.par.gate.Begin(len(g.order) + len(g.work.t))
	}
	if split {
		g.par.run(g, t, b, out.Table())
	} else {
		g.place()
		g.keyTag()
		g.tickRange(0, len(g.order), t, b, out.Table(), &g.sc, &g.p.pool)
		g.indexed, g.linked, g.strided = false, false, false
	}
	if gated {
		g.par.gate.End()
	}
	spelt := len(g.work.part)
	g.clearPending()
	if par {
		g.reserve(g.tickRows)
	} else {
		g.in, g.work = g.work, g.in
		g.fitBuffer(g.tickRows, spelt)
	}
	g.spanRows, g.tickRows = g.tickRows, 0
}

// keyTags hands out the tags of groups' orders (see Group.keysTag),
// distinct over every group of the process.
var keyTags atomic.Uint64

// keyTag gives the group's order a tag, a new one after it changed. A
// tick calls it once its partitions are known, before it emits.
func (g *Group) keyTag() {
	if g.keysTag == 0 {
		g.keysTag = keyTags.Add(1)
	}
}

// reserve, with workers, grows every buffer the rows between two ticks
// pass through to hold all of them: the two buffers, the laid-out rows,
// the scratch of a link and the sorted indices of a tick. How a tick's
// rows are split between the hand-overs and the tick depends on the
// workers' timing; the buffers' size then does not, and a steady stream
// does not make them grow.
func (g *Group) reserve(rows int) {
	for _, r := range []*pendRows{&g.in, &g.work} {
		r.t = slices.Grow(r.t[:0], rows)
		for k := range r.c {
			r.c[k] = slices.Grow(r.c[k][:0], rows)
		}
		r.part = slices.Grow(r.part[:0], rows)
		r.unsorted = false
	}
	g.sortRoom(int32(rows))
	g.at = slices.Grow(g.at[:0], rows)
	g.idx = slices.Grow(g.idx[:0], rows)
}

// fitBuffer, on one goroutine after a tick that took rows buffered rows,
// lets go of the buffer's room beyond a sixteenth more than the most
// rows a tick has taken, when it has more than an eighth beyond: append
// grows a buffer by a quarter, and the room it leaves unused is held for
// the group's life (at 1,000 partitions and 20 rows each a tick, 3,552
// rows of 28 bytes: 100 bytes a partition). A buffer is made anew only
// when the most rows grow (and append has grown it), so a steady stream
// does not allocate.
//
// The partition column is fitted the same way to the most rows a tick
// has taken with their partitions written out, spelt (see
// [Group.bufferParts]): none while the pushes repeat their partitions.
func (g *Group) fitBuffer(rows, spelt int) {
	g.mostRows = max(g.mostRows, rows)
	g.mostSpelt = max(g.mostSpelt, spelt)
	r := &g.in
	if len(r.t) > 0 {
		return
	}
	if 8*cap(r.t) > 9*g.mostRows {
		want := g.mostRows + g.mostRows/16
		r.t = make([]int64, 0, want)
		for k := range r.c {
			r.c[k] = make([]uint64, 0, want)
		}
	}
	if 8*cap(r.part) > 9*g.mostSpelt {
		r.part = make([]int32, 0, g.mostSpelt+g.mostSpelt/16)
	}
}

// readyScratch makes sc hold what [Group.tickRange] needs for g's ticks
// (strKeys: keys that are strings, for a string column). A tick split
// over workers readies every worker's scratch before they start, so that
// a worker taking part for the first time, which depends on when its
// core is free, allocates nothing.
func (g *Group) readyScratch(sc *tickScratch, strKeys bool) {
	if cap(sc.dsts) < len(g.p.outs) {
		sc.dsts = make([]*table.Col, len(g.p.outs))
	}
	if g.sk != nil && strKeys && sc.keys == nil {
		sc.keys = make([]string, emitRun)
	}
}

// tickRange is the tick of the partitions at [lo, hi) of the emission
// order: it appends their rows to out, with sc as scratch, taking
// blocks from pool and giving it those it frees.
func (g *Group) tickRange(lo, hi int, t, b int64, out *schema.Table, sc *tickScratch, pool *blockPool) {
	tc, kc := table.Column(out, 0), table.Column(out, 1)
	p0 := g.p
	strKeys := kc.Kind() == column.String
	g.readyScratch(sc, strKeys)
	ds := sc.dsts[:len(p0.outs)]
	for j := range ds {
		ds[j] = table.Column(out, p0.first+j)
	}
	order := g.order[lo:hi]
	// Each partition's record (its engine and states, see arena) far
	// ahead, when the group's records are more than stay in cache from
	// one tick to the next; then, once it is in, the rows it points to
	// near ahead.
	const ahead = 4
	rec, far := p0.arena.recordBytes(), 0
	if len(g.order)*rec > cachedRecordBytes {
		far = 8
	}
	for i := range min(far, len(order)) {
		prefetch.Span(unsafe.Pointer(g.engines[order[i]]), rec)
	}
	for i := range min(ahead, len(order)) {
		q := order[i]
		g.engines[q].Prefetch(g.pending(q), t)
	}
	// The partitions are folded a run at a time and the run's rows
	// emitted output by output, while their states are still in cache.
	var run [emitRun]*Engine
	// A run's keys, when they are strings for a string column: appended
	// at once after the run, not one value at a time.
	var keys [emitRun]string
	// With StrKeys, a run's keys are asked for at once after its folds,
	// into the scratch's (keys would escape through the interface).
	sk := g.sk
	if !strKeys {
		sk = nil
	}
	// The key of order[i] is written at cell at+i of the key column,
	// under the order's tag.
	tag, at := g.keysTag, kc.Len()-lo
	// Every row's time is the boundary: a run's times are appended at
	// once.
	var times [emitRun]int64
	for k := range times {
		times[k] = b
	}
	// Each partition's buffered rows go to its deque before its fold:
	// from the buffer through the sorted indices (see index), or the
	// rows laid out by link.
	indexed, linked, strided, laid := g.indexed, g.linked, g.strided, p0.laid
	for from := 0; from < len(order); from += emitRun {
		es := run[:min(emitRun, len(order)-from)]
		nk := 0 // keys gathered, up to the first that is not a string
		for k := range es {
			i := from + k
			if far > 0 && i+far < len(order) {
				prefetch.Span(unsafe.Pointer(g.engines[order[i+far]]), rec)
			}
			if i+ahead < len(order) {
				q := order[i+ahead]
				g.engines[q].Prefetch(g.pending(q), t)
			}
			p := order[i]
			e := g.engines[p]
			if strided {
				g.gatherStrided(p, e, t, pool)
			} else if indexed && linked {
				g.gatherLinked(p, e, t, pool)
			} else if indexed {
				g.gather(p, e, t, pool)
			} else {
				g.take(p, e, t, pool)
			}
			if laid {
				e.foldLaid(t, pool)
			} else {
				e.fold(t, pool)
			}
			es[k] = e
			if sk != nil {
				continue
			}
			v := g.keys.KeyValue(p)
			if str, ok := v.Str(); ok && strKeys && nk == k {
				keys[k] = str
				nk++
				continue
			}
			if nk == k {
				kc.AppendStrs(keys[:nk])
				nk = -1 // the rest of the run one by one
			}
			table.AppendValue(kc, v)
		}
		if sk != nil {
			// The keys of the same order are found at the same cells
			// after the column's reset, unless something wrote there.
			if !kc.KeepStrs(tag, at, len(es)) {
				g.appendKeys(kc, order[from:from+len(es)], sc.keys[:len(es)], tag, at)
			}
		} else if nk == len(es) {
			kc.AppendStrs(keys[:nk])
		}
		tc.AppendTimes(times[:len(es)])
		p0.emitRows(es, ds)
	}
}

// appendKeys appends the keys of partitions ps to the key column kc, as
// strings at once when the router gives them (into ks, as long as ps),
// under the order's tag counted from cell at; else one value at a time.
func (g *Group) appendKeys(kc *table.Col, ps []int32, ks []string, tag uint64, at int) {
	if g.sk.KeyStrs(ks, ps) {
		kc.AppendStrsAs(ks, tag, at)
		clear(ks) // the scratch keeps no key of a partition that may go
		return
	}
	for _, p := range ps {
		table.AppendValue(kc, g.keys.KeyValue(p))
	}
}

// tickScratch is the scratch of a tick's pass over partitions, kept
// from one tick to the next: the output columns, and a run's keys.
type tickScratch struct {
	dsts []*table.Col
	keys []string
}

// emitRun is the number of partitions a tick folds before it emits their
// rows.
const emitRun = 32

// cachedRecordBytes is how many bytes of engine records a tick expects
// to find still in cache from the tick before (a core's 1 MB second-level
// cache on the machines measured): up to it, prefetching the records
// costs instructions and hides nothing (1,000 of the seed's records are
// 384 KB); beyond it, each record is prefetched whole a few partitions
// ahead.
const cachedRecordBytes = 1 << 20

// buffer appends rows [from, to) of in to the rows waiting for the next
// tick, or, with few partitions, straight to their deques (the rows wait
// there in the same order; see directParts).
func (g *Group) buffer(in *Input, part []int32, from, to int) {
	if from >= to {
		return
	}
	if g.direct() {
		g.appendDirect(in, part, from, to)
		return
	}
	r := &g.in
	if len(r.c) != len(in.enc) {
		r.c = make([][]uint64, len(in.enc))
		g.work.c = make([][]uint64, len(in.enc))
	}
	r.t = append(r.t, in.times[from:to]...)
	for k, c := range in.enc {
		r.c[k] = append(r.c[k], c[from:to]...)
	}
	g.bufferParts(r, part, in.partsID, from, to)
	if !in.sorted {
		r.unsorted = true
	}
	g.tickRows += to - from
}

// bufferParts notes the partitions of rows [from, to) of a push, whose
// rows' partitions are part, the list numbered id (see
// [Input.SetPartsID]), as those of the rows just buffered in r.
// A producer that sends the same keys in the same order at each push
// sends the same partitions: while every push since the last tick
// repeats one push's partitions (g.tmpl, taken from the first push after
// a tick that does not repeat it), the buffer holds them only there (r
// is cyc), not 4 bytes a row. A push that breaks the repetition writes
// them out, spells them, for the rest of the rows until the tick. Rows
// handed to a worker between ticks (see handOff) are spelt first.
func (g *Group) bufferParts(r *pendRows, part []int32, id uint64, from, to int) {
	if repeatParts && len(r.part) == 0 {
		if len(r.t) == to-from {
			// The first rows since the tick.
			if !g.repeats(part, id, from, to) {
				g.tmpl = append(g.tmpl[:0], part...)
				g.tmplID = id
			}
			r.cyc, r.off, r.next = true, from, to
			if to == len(part) {
				r.next = 0
			}
			return
		}
		if r.cyc && r.next == from && g.repeats(part, id, from, to) {
			r.next = to
			if to == len(part) {
				r.next = 0
			}
			return
		}
	}
	g.spell(r, len(r.t)-(to-from))
	r.part = append(r.part, part[from:to]...)
}

// repeatParts: a group keeps the partitions of pushes that repeat them
// once (see bufferParts). A variable for the tests,
// which take each way.
var repeatParts = true

// SetRepeatParts sets whether a group keeps the partitions of pushes that repeat them once (see repeatParts), and
// returns the setting before. For tests: false writes every buffered
// row's partition out.
func SetRepeatParts(on bool) bool {
	old := repeatParts
	repeatParts = on
	return old
}

// repeats reports whether rows [from, to) of a push whose rows'
// partitions are part, the list numbered id, have the template's
// partitions: the template is a list of the same nonzero id; or part is
// as long as the template, and the same from from to to (compared as
// bytes, in one call). A whole list found the same makes its id the
// template's.
func (g *Group) repeats(part []int32, id uint64, from, to int) bool {
	if id != 0 && id == g.tmplID {
		return true
	}
	if len(part) != len(g.tmpl) || from == to {
		return len(part) == len(g.tmpl)
	}
	a, b := part[from:to], g.tmpl[from:to]
	if unsafe.String((*byte)(unsafe.Pointer(&a[0])), 4*len(a)) != unsafe.String((*byte)(unsafe.Pointer(&b[0])), 4*len(b)) {
		return false
	}
	if id != 0 && from == 0 && to == len(part) {
		g.tmplID = id
	}
	return true
}

// spell writes out the partitions of the first n rows of r when they are
// the template's (see bufferParts).
func (g *Group) spell(r *pendRows, n int) {
	if !r.cyc {
		return
	}
	for i := 0; i < n; {
		ps := g.parts(r, i, n)
		r.part = append(r.part, ps...)
		i += len(ps)
	}
	r.cyc = false
}

// parts returns the partitions of rows [i, to) of r, or of as many of
// them from i on as lie in one run: at least one when i < to.
func (g *Group) parts(r *pendRows, i, to int) []int32 {
	if !r.cyc {
		return r.part[i:to]
	}
	k := len(g.tmpl)
	q := r.off + i
	if q >= k {
		q %= k
	}
	return g.tmpl[q:min(k, q+to-i)]
}

// link makes the engines of the partitions first seen among the
// buffered rows, in the order their first rows arrived, and lays the
// buffered rows out by partition (a counting sort): each partition's rows
// side by side, row-major, in arrival order, so that each is taken with
// one sequential copy. A worker does it with the rows handed over between
// ticks (see bgTake), and a tick over workers in parts (see parTick); a
// tick on one goroutine sorts the rows' indices only (see index).
func (g *Group) link() {
	g.spell(&g.work, len(g.work.t))
	if len(g.work.part) == 0 {
		return
	}
	n := len(g.work.part)
	if g.count(0, n, &g.cnt) {
		g.meet()
	}
	// Each partition's rows start where the ones before it end: its
	// count becomes its cursor for the scatter.
	g.growChains(len(g.cnt))
	off := int32(0)
	for p := range g.chains {
		k := int32(0)
		if p < len(g.cnt) {
			k, g.cnt[p] = g.cnt[p], off
		}
		g.chains[p] = chain{end: off + k, n: k}
		off += k
	}
	g.sortRoom(off)
	g.scatter(0, n, g.cnt, &g.at)
	clear(g.cnt)
}

// count counts the buffered rows [from, to) of each partition into *cnt
// (indexed by partition, grown as needed) and reports whether a partition
// without an engine is among them.
func (g *Group) count(from, to int, cnt *[]int32) (unknown bool) {
	c := *cnt
	for i := from; i < to; {
		ps := g.parts(&g.work, i, to)
		for _, p := range ps {
			if int(p) >= len(c) {
				c = append(c, make([]int32, int(p)+1-len(c))...)
			}
			if c[p] == 0 && (int(p) >= len(g.engines) || g.engines[p] == nil) {
				unknown = true
			}
			c[p]++
		}
		i += len(ps)
	}
	*cnt = c
	return unknown
}

// meet makes the engines of the partitions first seen among the rows laid
// out, in the order their first rows arrived.
func (g *Group) meet() {
	r := &g.work
	for i := 0; i < len(r.t); {
		ps := g.parts(r, i, len(r.t))
		g.meetIn(ps)
		i += len(ps)
	}
}

// meetIn makes the engines of the partitions first seen among parts, in
// order.
func (g *Group) meetIn(parts []int32) {
	for _, p := range parts {
		if int(p) >= len(g.engines) || g.engines[p] == nil {
			g.engine(p)
		}
	}
}

// growChains gives every partition index below n a chain.
func (g *Group) growChains(n int) {
	if len(g.chains) < n {
		g.chains = append(g.chains, make([]chain, n-len(g.chains))...)
	}
}

// sortRoom makes room for rows sorted rows.
func (g *Group) sortRoom(rows int32) {
	if need := int(rows) * (1 + len(g.work.c)); cap(g.sorted) < need {
		g.sorted = make([]uint64, need)
	}
}

// scatter copies the buffered rows [from, to) into the sorted rows, each
// to the place its partition's cursor (cur[p], counted in rows and moved
// past it) gives: each row's place first, then the columns through the
// places. at is scratch.
func (g *Group) scatter(from, to int, cur []int32, at *[]int) {
	st := 1 + len(g.work.c)
	n := to - from
	a := slices.Grow((*at)[:0], n)[:n]
	*at = a
	for i, p := range g.work.part[from:to] {
		a[i] = int(cur[p]) * st
		cur[p]++
	}
	sorted := g.sorted[:cap(g.sorted)]
	for i, t := range g.work.t[from:to] {
		sorted[a[i]] = uint64(t)
	}
	for k, col := range g.work.c {
		dst := sorted[1+k:]
		for i, x := range col[from:to] {
			dst[a[i]] = x
		}
	}
}

// pending returns the number of rows buffered for partition p.
func (g *Group) pending(p int32) int {
	if int(p) >= len(g.chains) {
		return 0
	}
	return int(g.chains[p].n)
}

// take appends partition p's buffered rows, laid out by [Group.link], to
// its engine's deque; when they do not fit in the ring and a fold at cut
// follows (cut is not noFold), after its windows evict (see evictFirst).
func (g *Group) take(p int32, e *Engine, cut int64, pool *blockPool) {
	if int(p) >= len(g.chains) || g.chains[p].n == 0 {
		return
	}
	c := g.chains[p]
	g.chains[p] = chain{}
	d := &e.dq
	st := int(d.stride)
	rows := g.sorted[int(c.end-c.n)*st : int(c.end)*st]
	mt, has := e.maxT, e.dq.has&dqMax != 0
	for r := 0; r < len(rows); r += st {
		if t := int64(rows[r]); !has || t > mt {
			mt, has = t, true
		}
	}
	e.maxT = mt
	e.dq.has |= dqMax
	e.evictFor(uint64(c.n), cut, pool)
	if g.work.unsorted {
		// After the eviction, which may have emptied the deque.
		d.has |= dqUnsorted
	}
	if d.tail-d.front+uint64(c.n) <= d.cap {
		// The common case of a tick: rows that fit in the ring and in
		// the tail's block, copied in place.
		if blk, i := d.slotOf(d.tail); len(rows) <= len(blk)-i {
			copy(blk[i:i+len(rows)], rows)
			d.tail += uint64(c.n)
			return
		}
	}
	for len(rows) > 0 {
		blk, i, n := e.dq.room(pool)
		k := min(n, len(rows)/st)
		copy(blk[i:i+k*st], rows[:k*st])
		rows = rows[k*st:]
		e.dq.tail += uint64(k)
	}
}

// flush moves every buffered row into its partition's deque.
func (g *Group) flush() {
	g.settle()
	g.forgetRoom()
	g.in, g.work = g.work, g.in
	if len(g.work.t) > 0 {
		g.place()
		for _, p := range g.order {
			if g.linked {
				g.gatherLinked(p, g.engines[p], noFold, &g.p.pool)
			} else {
				g.gather(p, g.engines[p], noFold, &g.p.pool)
			}
		}
		g.indexed, g.linked, g.strided = false, false, false
		g.clearPending()
	}
	g.in, g.work = g.work, g.in
}

// clearPending forgets the rows laid out, which have been taken.
func (g *Group) clearPending() {
	r := &g.work
	r.t = r.t[:0]
	for k := range r.c {
		r.c[k] = r.c[k][:0]
	}
	r.part = r.part[:0]
	r.cyc, r.unsorted = false, false
}
