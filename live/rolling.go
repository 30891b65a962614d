package live

import (
	"errors"
	"time"

	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
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
// With opts.Aligned the windows end on the clock's boundaries instead:
// boundary b closes when no row before it can still be accepted by the
// series (under strict or drop ordering at the first accepted row at or
// after b; under reorder once the latest accepted time minus the grace
// reaches b — reorder without a grace is an error; a row that views in
// front of the rolling drop closes boundaries too, at the end of its
// push), and each partition whose windows
// hold a row emits one row keyed at b over its own rows in
// [b − span, b). See the rolling package's "Aligned windows".
//
// A series that already holds rows replays the rows source holds into the
// new node, in arrival order; what it emits while doing so is in no
// output, though [Series.Value] reads its last emission. On a partitioned
// source those are the partitions' rows, under the partitioning's
// retention (a partitioning with MaxEvents 1 replays each partition's
// last row only, so windows built after the first push miss the rows
// before it), and the partitions join the rolling in the order the
// partitioning first saw them, the order of [Series.Partitions] — on the
// partitioning itself or on a view of it. Built on the partitioning, that
// is as if the rolling had been there from the start; built on a view
// that dropped a partition's first rows (a filter, a sample), a rolling
// there from the start would have met that partition later.
//
// A rolling with a history (opts.History) keeps it in a hidden node that
// takes the id after the rolling's. That id is no node of its own: every
// method given it (Snapshot, Watch, NodeSchema, NodeBytes, a builder…)
// returns an error wrapping [ErrNode] that names the rolling, through
// which the history is read ([Series.Snapshot]) and counted
// ([Series.NodeBytes]).
func (s *Series) Rolling(source NodeID, windows []rolling.Window, opts rolling.Options) (NodeID, error) {
	const op = "rolling"
	if _, err := s.checkSource(source); err != nil {
		return 0, err
	}
	src := s.nodes[source].base()
	var key *engine.Key
	pn := s.partitioning(src)
	if pn != nil {
		c := pn.sch.Column(pn.col)
		key = &engine.Key{Name: c.Name, Kind: c.Kind}
	}
	if opts.Aligned && s.opts.Ordering == Reorder && s.opts.Grace == 0 {
		return 0, configErr(op, "Aligned", "aligned windows need a grace under reorder ordering: without one any row may be late and no boundary ever closes", nil)
	}
	plan, err := engine.NewPlan(src.sch, windows, opts, key, s.syms)
	if err != nil {
		return 0, configErr(op, specField(err), "cannot build", err)
	}
	var lateness time.Duration
	if s.opts.Ordering == Reorder {
		lateness = s.opts.Grace
	}
	if err := plan.CheckLateness(lateness); err != nil {
		return 0, configErr(op, "Aligned", "cannot build", err)
	}
	n := &rollingNode{s: s, plan: plan, part: pn, aligned: opts.Aligned}
	n.advances = opts.Aligned && s.advancesAt(source)
	b := n.base()
	b.src, b.op, b.sch = source, op, plan.Schema()
	b.out = newFrame(plan.Schema())
	b.produces[Event] = true
	if pn == nil {
		n.stream = plan.NewStream()
		n.stream.SetLateness(lateness)
	} else {
		b.scope = src.scope
		n.group = plan.NewGroup(pn.router)
		n.group.SetLateness(lateness)
		n.group.SetWorkers(s.pool)
		s.holdSamples(n, source)
		// Declared groups are known from the start; other partitions join
		// as the node first sees their rows.
		for _, p := range pn.router.Groups() {
			n.group.Declare(p)
		}
	}
	id := s.addNode(n)
	if f, ok := s.replaySource(source); ok {
		n.replay(&f)
	}
	s.rollingBuilt(n, opts.History)
	return id, nil
}

// replay starts the new node n from f, the rows its source holds in
// arrival order. On partitions, those the replay brings join in the
// order the partitioning first saw them (that of Partitions, in which a
// synchronised clock emits them), not in the order of their rows held:
// retention, or a view that dropped rows, may have let a partition's
// first rows go.
func (n *rollingNode) replay(f *frame) {
	if pn := n.part; pn != nil {
		held := make([]bool, pn.router.Cap())
		for _, p := range f.part {
			held[p] = true
		}
		for _, p := range pn.router.Order() {
			if held[p] {
				n.group.Declare(p)
			}
		}
	}
	n.push(f)
	n.settle()
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
	plan *engine.Plan
	in   engine.Input

	stream *engine.Stream // not partitioned
	part   *partitionNode // partitioned
	group  *engine.Group

	// last holds the rows of the latest emission before the current
	// push's, for [Series.Value]: out and last swap tables, so keeping
	// them copies nothing. The engine asks for out's table (Table) only
	// when it emits; the table of the latest emission becomes out's then,
	// so that one table has room for an emission and the other stays
	// empty (an aligned rolling, which asks at every push, keeps two).
	last   frame
	opened bool // this push's out is the table the engine appends to
	// aligned: the plan's windows are aligned (its engine asks for the
	// table at every push), read without copying the plan's options.
	aligned bool
	// advances: aligned, behind views that may drop rows, so that the
	// series' latest time closes its boundaries at the end of each push
	// (see advance).
	advances bool
	// held: the aligned group reads its samples from the series' rows
	// through it, and each push tells it the identity of its first row.
	held *heldRows
	// withParts' frame and partitions, for a source whose rows carry
	// their partition's key but not the partition (a partitioned rolling).
	inParts frame
	parts   []int32
}

// settle empties the node's output for the next push, keeping the rows
// it holds as the latest emission when there are any.
func (n *rollingNode) settle() {
	// Unless the engine asked for a table since the last settle, out is
	// as that settle left it, empty (most pushes under a clock): the
	// check is inlined, the work behind a call.
	if n.opened || n.last.tab == nil {
		n.settleOut()
	}
}

// settleOut is settle's work for an output the engine may have written.
func (n *rollingNode) settleOut() {
	if n.last.tab == nil {
		n.last = newFrame(n.sch)
	}
	if n.out.len() > 0 {
		// The latest emission is kept until the next: without the
		// room its growth left, as a sixth of the table's bytes were
		// (the seed's 10,000 hosts: 23 bytes a partition).
		n.out.fitGrown()
		n.out, n.last = n.last, n.out
	}
	n.out.reset()
	n.opened = n.aligned
}

// Table returns the table the engine appends this push's rows to: the
// latest emission's, emptied, which a newer one replaces.
func (n *rollingNode) Table() *schema.Table {
	if !n.opened {
		n.opened = true
		n.out, n.last = n.last, n.out
		n.out.reset()
	}
	return n.out.tab
}

func (n *rollingNode) push(in *frame) {
	n.settle()
	if n.part != nil {
		// Partitions removed to make room for this push's keys leave
		// before its ticks (those removed at its end leave in finish).
		for _, p := range n.part.expired {
			n.group.Remove(p)
		}
	}
	if in.tab == nil {
		return
	}
	times := table.Column(in.tab, 0).Times()
	k := len(times)
	if k == 0 {
		return
	}
	if n.group != nil && len(in.part) != k {
		in = n.withParts(in)
	}
	// A push of sorted rows at one time, to a stream that counts rows
	// only, needs no binding when it crosses no boundary (most pushes
	// of a producer that sends a tick of every host at once).
	if n.stream != nil && in.sorted && times[0] == times[k-1] && n.stream.PushAt(times[0], k) {
		return
	}
	// Likewise sorted rows to a group that appends them directly.
	if n.group != nil && in.sorted && n.group.PushQuiet(in.tab, in.part) {
		return
	}
	n.plan.Bind(&n.in, in.tab, in.syms)
	n.in.SetSorted(in.sorted)
	if n.held != nil {
		n.in.SetFirst(in.ids[0])
	}
	if n.stream != nil {
		n.stream.PushTo(&n.in, n)
		return
	}
	// When the rows' partitions are the list the router routes the same
	// keys again to, the router's number of it tells the group.
	n.in.SetPartsID(n.part.router.AgainID(in.part))
	n.group.PushTo(&n.in, in.part, n)
}

// withParts returns in with the partition of each row, for the rows of a
// partitioned rolling, which carry their key instead.
func (n *rollingNode) withParts(in *frame) *frame {
	f := *in
	n.parts = n.parts[:0]
	for i := range f.len() {
		n.parts = append(n.parts, n.part.partOf(in, i))
	}
	f.part = n.parts
	n.inParts = f
	return &n.inParts
}

func (n *rollingNode) evicted(*frame) {}

// finish closes what the series' latest time closes (see advance), then
// drops the state of partitions the partitioning removed.
func (n *rollingNode) finish() {
	if n.advances {
		n.advance()
	}
	if n.part == nil {
		return
	}
	for _, p := range n.part.expired {
		n.group.Remove(p)
	}
}

// advance closes the boundaries the series' latest accepted time closes.
// An aligned boundary closes when no row before it can still be accepted
// by the series, whichever node the rows that show it go to: behind a
// view that dropped the rows crossing it (a filter, a sample), the node
// would otherwise wait for one of its own. Its rows of the push all came
// before (the finish pass runs after them), and each view keeps its
// rows' times, so no row the node gets later is before what closes.
func (n *rollingNode) advance() {
	if !n.s.hasLatest {
		return
	}
	if n.stream != nil {
		n.stream.AdvanceTo(n.s.latest, n)
	} else {
		n.group.AdvanceTo(n.s.latest, n)
	}
}

// advancesAt reports whether an aligned rolling built on source is given
// only some of the series' rows, all at their own times: source is a view
// (of views…) of the root or of a partitioning. On the root or a
// partitioning it is given every row; behind another kind of node
// (a rolling, a reduce, an aggregate) its rows have times of their own.
func (s *Series) advancesAt(source NodeID) bool {
	if _, ok := s.nodes[source].(*viewNode); !ok {
		return false
	}
	for id := source; ; {
		switch n := s.nodes[id].(type) {
		case *viewNode:
			id = n.base().src
		case *rootNode, *partitionNode:
			return true
		default:
			return false
		}
	}
}

// finishesNothing reports that the node's finish does nothing: it does
// not advance, and its partitions never expire (no IdleTTL).
func (n *rollingNode) finishesNothing() bool {
	return !n.advances && (n.part == nil || n.part.opts.IdleTTL <= 0)
}

func (n *rollingNode) heldBytes() int {
	if n.stream != nil {
		return n.stream.HeldBytes()
	}
	b := n.group.HeldBytes()
	if n.held != nil {
		b += 4*cap(n.held.parts) + 4*cap(n.held.self) + 4*cap(n.held.keys)
	}
	return b
}

// specField names what the error of a rolling's specification is about,
// as a ConfigError's Field: its output, else its window, else its option,
// else the windows.
func specField(err error) string {
	var se *rolling.SpecError
	if errors.As(err, &se) {
		switch {
		case se.Output != "":
			return se.Output
		case se.Window != "":
			return se.Window
		case se.Option != "":
			return se.Option
		}
	}
	return "windows"
}
