package live

import (
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// Rolling adds a rolling aggregation over source: one or more windows
// (several time windows share one node and emit one merged row), emitted
// under opts.Trigger. The node's Event output has the schema [time,
// outputs…] in declaration order; built on a partitioned node it is
// [time, partition column, outputs…] and the windows are kept per
// partition.
//
// On a partitioned source with a clock trigger the partitions are
// synchronised: the tick fires inside the ingest of the first row that
// crosses a boundary; every partition known then, in first-seen order
// (declared groups first), evicts against that row's time and emits one
// row keyed at the boundary; partitions first seen later join at the next
// tick; quiet partitions still emit. All partitions' rows of a tick come
// out together in the push's one table. With an event or count trigger
// each partition emits on its own rows.
//
// A series that already holds rows replays them into the new node, in
// arrival order; what it emits while doing so is dropped.
func (s *Series) Rolling(source NodeID, windows []rolling.Window, opts rolling.Options) (NodeID, error) {
	const op = "rolling"
	if _, err := s.node(source); err != nil {
		return 0, err
	}
	src := s.nodes[source].base()
	var key *rolling.Key
	var pn *partitionNode
	if src.scope != nil {
		pn = s.nodes[src.scope.node].(*partitionNode)
		c := pn.sch.Column(pn.col)
		key = &rolling.Key{Name: c.Name, Kind: c.Kind}
	}
	plan, err := rolling.NewPlan(src.sch, windows, opts, key, s.syms)
	if err != nil {
		return 0, configErr(op, "", "cannot build", err)
	}
	n := &rollingNode{s: s, plan: plan, part: pn}
	b := n.base()
	b.src, b.op, b.sch = source, op, plan.Schema()
	b.out = newFrame(plan.Schema())
	b.produces[Event] = true
	if pn == nil {
		n.stream = plan.NewStream()
	} else {
		b.scope = src.scope
		if t := opts.Trigger; t.Kind() == trigger.KindClock {
			n.clock = trigger.NewClockState(t.Sequence())
		}
		// Declared groups are known from the start.
		for _, p := range pn.router.Order() {
			n.engine(p)
		}
	}
	id := s.addNode(n)
	if f, ok := s.replaySource(source); ok {
		n.push(&f)
		n.out.reset()
	}
	return id, nil
}

// replaySource returns the rows a node holds, in arrival order, for a node
// built on it to start from.
func (s *Series) replaySource(id NodeID) (frame, bool) {
	switch n := s.nodes[id].(type) {
	case *rootNode:
		if s.store.Len() > 0 {
			return s.heldFrame(), true
		}
	case *partitionNode:
		f := n.held()
		return f, f.len() > 0
	}
	return frame{}, false
}

// rollingNode is a rolling aggregation, partitioned or not.
type rollingNode struct {
	nodeBase
	s    *Series
	plan *rolling.Plan
	in   rolling.Input

	stream *rolling.Stream // not partitioned

	part    *partitionNode // partitioned
	engines []*rolling.Engine
	gens    []uint32
	counts  []trigger.CountState
	order   []int32
	clock   trigger.ClockState
}

// engine returns the engine of partition p, creating it (and placing the
// partition last in the emission order) if it is new.
func (n *rollingNode) engine(p int32) *rolling.Engine {
	for int(p) >= len(n.engines) {
		n.engines = append(n.engines, nil)
		n.gens = append(n.gens, 0)
		n.counts = append(n.counts, trigger.CountState{})
	}
	gen := n.part.router.Generation(p)
	e := n.engines[p]
	if e != nil && n.gens[p] == gen {
		return e
	}
	if e != nil {
		e.Release()
	}
	e = n.plan.NewEngine()
	n.engines[p], n.gens[p] = e, gen
	if t := n.plan.Trigger(); t.Kind() == trigger.KindCount {
		n.counts[p] = trigger.NewCountState(t.N())
	}
	n.order = append(n.order, p)
	return e
}

func (n *rollingNode) push(in *frame) {
	n.out.reset()
	if in.len() == 0 {
		return
	}
	n.plan.Bind(&n.in, in.tab, in.syms)
	out := n.out.tab
	if n.stream != nil {
		n.stream.Push(&n.in, out)
		return
	}
	times := in.tab.Times()
	tc := out.Col(0)
	kc := out.Col(1)
	switch n.plan.Trigger().Kind() {
	case trigger.KindClock:
		for i, t := range times {
			n.engine(in.part[i]).Append(&n.in, i)
			if b, fired := n.clock.Observe(t); fired {
				for _, p := range n.order {
					e := n.engines[p]
					e.Fold(t)
					tc.AppendTime(b)
					kc.AppendValue(n.part.router.KeyValue(p))
					e.Emit(out)
				}
			}
		}
	case trigger.KindEvent:
		for i, t := range times {
			p := in.part[i]
			e := n.engine(p)
			e.Append(&n.in, i)
			mt, _ := e.MaxTime()
			e.Fold(mt)
			tc.AppendTime(t)
			kc.AppendValue(n.part.router.KeyValue(p))
			e.Emit(out)
		}
	case trigger.KindCount:
		for i, t := range times {
			p := in.part[i]
			e := n.engine(p)
			e.Append(&n.in, i)
			if n.counts[p].Observe() {
				mt, _ := e.MaxTime()
				e.Fold(mt)
				tc.AppendTime(t)
				kc.AppendValue(n.part.router.KeyValue(p))
				e.Emit(out)
			}
		}
	}
}

func (n *rollingNode) evicted(*frame) {}

// finish drops the state of partitions the partitioning removed.
func (n *rollingNode) finish() {
	if n.part == nil || len(n.part.expired) == 0 {
		return
	}
	for _, p := range n.part.expired {
		if int(p) < len(n.engines) && n.engines[p] != nil {
			n.engines[p].Release()
			n.engines[p] = nil
		}
	}
	keep := n.order[:0]
	for _, p := range n.order {
		if n.engines[p] != nil {
			keep = append(keep, p)
		}
	}
	n.order = keep
}

var _ = schema.Time
