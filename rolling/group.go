package rolling

import (
	"slices"

	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// Keys gives the partition column's value of a partition index; the
// partition router is one.
type Keys interface {
	KeyValue(p int32) schema.Value
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
// arrival order, in one sequential buffer; at the tick they are sorted by
// partition (a counting sort that keeps arrival order within a partition)
// and copied into each partition's deque in one run, which keeps the
// per-row cost to a sequential write and the writes into a thousand deques
// to one burst each.
//
// Under an event or count trigger each partition emits on its own rows
// (the count per partition), keyed at the row's time.
type Group struct {
	p       *Plan
	keys    Keys
	engines []*Engine
	order   []int32
	clock   trigger.ClockState
	counts  []trigger.CountState

	pend     []uint64 // encoded rows since the last tick
	pendPart []int32
	sorted   []uint64
	offs     []int32
}

// NewGroup returns an empty group for the plan, whose [Plan] must have
// been built with a partition key.
func (p *Plan) NewGroup(keys Keys) *Group {
	g := &Group{p: p, keys: keys}
	if t := p.opts.Trigger; t.Kind() == trigger.KindClock {
		g.clock = trigger.NewClockState(t.Sequence())
	}
	return g
}

// Declare makes partition part known (placing it last in the emission
// order) before any of its rows arrive, as declared groups are.
func (g *Group) Declare(part int32) { g.engine(part) }

// Remove forgets partition part and gives its memory back to the pool. A
// row for the same index later starts a new partition.
func (g *Group) Remove(part int32) {
	if int(part) >= len(g.engines) || g.engines[part] == nil {
		return
	}
	g.flush() // buffered rows of the partition leave with it
	g.engines[part].Release()
	g.engines[part] = nil
	keep := g.order[:0]
	for _, q := range g.order {
		if q != part {
			keep = append(keep, q)
		}
	}
	g.order = keep
}

// Len returns the number of partitions the group knows.
func (g *Group) Len() int { return len(g.order) }

// Engine returns the engine of partition part, or nil.
func (g *Group) Engine(part int32) *Engine {
	if int(part) >= len(g.engines) {
		return nil
	}
	return g.engines[part]
}

func (g *Group) engine(part int32) *Engine {
	for int(part) >= len(g.engines) {
		g.engines = append(g.engines, nil)
		g.counts = append(g.counts, trigger.CountState{})
	}
	e := g.engines[part]
	if e == nil {
		e = g.p.NewEngine()
		g.engines[part] = e
		if t := g.p.opts.Trigger; t.Kind() == trigger.KindCount {
			g.counts[part] = trigger.NewCountState(t.N())
		}
		g.order = append(g.order, part)
	}
	return e
}

// Push takes every row of in, in order, row i belonging to partition
// part[i], and appends the rows it emits to out.
func (g *Group) Push(in *Input, part []int32, out *schema.Table) {
	tc, kc := out.Col(0), out.Col(1)
	switch g.p.opts.Trigger.Kind() {
	case trigger.KindClock:
		if g.p.hasArr {
			for i, t := range in.times {
				g.engine(part[i]).Append(in, i)
				if b, fired := g.clock.Observe(t); fired {
					g.tick(t, b, out)
				}
			}
			return
		}
		st := g.p.Stride()
		for i, t := range in.times {
			n := len(g.pend)
			if cap(g.pend)-n < st {
				g.pend = slices.Grow(g.pend, st*(len(in.times)-i))
			}
			g.pend = g.pend[:n+st]
			in.encodeRow(i, g.pend[n:])
			g.pendPart = append(g.pendPart, part[i])
			if b, fired := g.clock.Observe(t); fired {
				g.flush()
				g.tick(t, b, out)
			}
		}
	case trigger.KindEvent:
		for i, t := range in.times {
			e := g.engine(part[i])
			e.Append(in, i)
			e.Step()
			tc.AppendTime(t)
			kc.AppendValue(g.keys.KeyValue(part[i]))
			e.Emit(out)
		}
	case trigger.KindCount:
		for i, t := range in.times {
			p := part[i]
			e := g.engine(p)
			e.Append(in, i)
			if g.counts[p].Observe() {
				e.Fold(e.maxT)
				tc.AppendTime(t)
				kc.AppendValue(g.keys.KeyValue(p))
				e.Emit(out)
			}
		}
	}
}

// tick emits one row per known partition, keyed at boundary b, with every
// window evicted against t.
func (g *Group) tick(t, b int64, out *schema.Table) {
	tc, kc := out.Col(0), out.Col(1)
	for _, p := range g.order {
		e := g.engines[p]
		e.Fold(t)
		tc.AppendTime(b)
		kc.AppendValue(g.keys.KeyValue(p))
		e.Emit(out)
	}
}

// flush moves the buffered rows into their partitions' deques: new
// partitions are created in the order their first row arrived, then the
// rows are sorted by partition, keeping arrival order, and copied in one
// run per partition.
func (g *Group) flush() {
	if len(g.pendPart) == 0 {
		return
	}
	for _, p := range g.pendPart {
		if int(p) >= len(g.engines) || g.engines[p] == nil {
			g.engine(p)
		}
	}
	st := g.p.Stride()
	if cap(g.offs) < len(g.engines)+1 {
		g.offs = make([]int32, len(g.engines)+1)
	}
	offs := g.offs[:len(g.engines)+1]
	clear(offs)
	for _, p := range g.pendPart {
		offs[p+1]++
	}
	for i := 1; i < len(offs); i++ {
		offs[i] += offs[i-1]
	}
	if cap(g.sorted) < len(g.pend) {
		g.sorted = make([]uint64, len(g.pend))
	}
	sorted := g.sorted[:len(g.pend)]
	for i, p := range g.pendPart {
		k := int(offs[p])
		offs[p]++
		copy(sorted[k*st:(k+1)*st], g.pend[i*st:(i+1)*st])
	}
	// offs[p] is now the end of partition p's rows, offs[p-1] its start.
	start := int32(0)
	for p := range g.engines {
		end := offs[p]
		if end > start {
			g.engines[p].appendEncoded(sorted[int(start)*st : int(end)*st])
		}
		start = end
	}
	g.pend = g.pend[:0]
	g.pendPart = g.pendPart[:0]
}
