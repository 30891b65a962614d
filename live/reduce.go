package live

import (
	"fmt"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// compileAggs checks aggregations over src and returns the source column
// of each and the output schema [time, outputs…] (outputs optional, of
// each reducer's output kind, in the order given).
func compileAggs(op string, src *schema.Schema, aggs []reduce.Agg) ([]int, *schema.Schema, error) {
	if len(aggs) == 0 {
		return nil, nil, configErr(op, "aggs", "at least one aggregation is needed", nil)
	}
	timeName := src.Column(0).Name
	cols := []schema.Column{{Name: timeName, Kind: schema.Time}}
	taken := map[string]bool{timeName: true}
	idx := make([]int, len(aggs))
	for k, a := range aggs {
		switch {
		case a.Out == "":
			return nil, nil, configErr(op, "aggs", fmt.Sprintf("aggregation %d has no output name", k), nil)
		case a.Out == timeName:
			return nil, nil, configErr(op, a.Out, "an output cannot be named like the time column", nil)
		case taken[a.Out]:
			return nil, nil, configErr(op, a.Out, "duplicate output column", nil)
		}
		taken[a.Out] = true
		j, ok := src.Index(a.From)
		switch {
		case !ok:
			return nil, nil, configErr(op, a.Out, fmt.Sprintf("unknown source column %q (columns: %v)", a.From, src.Names()[1:]), nil)
		case j == 0:
			return nil, nil, configErr(op, a.Out, fmt.Sprintf("source %q is the time column, not a value column", a.From), nil)
		}
		kind := src.Column(j).Kind
		if err := reducers.ErrOf(a.Using); err != nil {
			return nil, nil, configErr(op, a.Out, "bad reducer", err)
		}
		if err := a.Using.Check(kind); err != nil {
			return nil, nil, configErr(op, a.Out, fmt.Sprintf("reducer %s does not fit column %q", a.Using, a.From), err)
		}
		idx[k] = j
		cols = append(cols, schema.Column{Name: a.Out, Kind: a.Using.OutputKind(kind), Optional: true})
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return nil, nil, configErr(op, "aggs", "bad output schema", err)
	}
	return idx, sch, nil
}

// Reduce adds a node that reduces everything source holds now: the root's
// retained rows, a partition's (all partitions together), a window's, a
// view's. Its Event output has the schema [time, outputs…].
//
// It emits at the end of each successful push in which at least one row
// reached it, after retention, so the reduction is over what the source
// holds once the push is done, keyed at the last row that reached it —
// even when retention evicted that row again (docs/differences.md §12):
//
//   - [trigger.Event] (the zero Trigger): one row per such push;
//   - [trigger.Count](n): the rows that reached it are counted across
//     pushes, and a push emits one row (all the same) per n counted;
//   - [trigger.Clock](seq): the crossing rule applied to the push's last
//     row only: a push whose last row is in a later bucket than the
//     previous such row emits one row, keyed at that bucket's start.
//
// The reduction follows the source's evictions by identity. Where rows
// may leave out of arrival order (a reorder series, partitions) its states
// accept removals in any order, so it is right for every reducer under
// reorder with retention (pond-ts's min, max, first, last and samples are
// not: they assume rows leave in arrival order); elsewhere min and max use
// monotone deques. Over a source that holds no rows (a rolling) it reduces
// every row that ever reached it, in the memory of an [Series.Aggregate]
// bucket: O(1) for every reducer but median, percentiles, samples, unique
// and top, whose answers need the values. Nodes built on a
// reduce take its rows in the same push, after it emits.
//
// A series that already holds rows replays them into the node; what it
// would emit then is dropped. No aggregation, an unknown or time source
// column, a reducer that does not fit its column, a duplicate output or a
// bad trigger is an error wrapping [ErrConfig].
func (s *Series) Reduce(source NodeID, aggs []reduce.Agg, trig trigger.Trigger) (NodeID, error) {
	const op = "reduce"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	idx, sch, err := compileAggs(op, src.sch, aggs)
	if err != nil {
		return 0, err
	}
	if err := trig.Err(); err != nil {
		return 0, configErr(op, "trigger", "bad trigger", err)
	}
	n := &reduceNode{cols: idx, trig: clock.SpecOf(trig), ownSeq: !s.givesIDs(source)}
	newState := reducers.NewSet
	switch {
	case !s.holds(source):
		newState = reducers.NewRunning // nothing leaves: no per-row state
	case s.evictsInArrivalOrder(source):
		newState = reducers.NewWindow // monotone deques for min and max
	}
	for _, a := range aggs { // compileAggs checked each against its column
		n.states = append(n.states, newState(reducers.SpecOf(a.Using)))
	}
	switch n.trig.Kind {
	case clock.Clock:
		n.clock = clock.NewClockState(n.trig.Seq)
	case clock.Count:
		n.every = n.trig.N
	}
	b := n.base()
	b.src, b.op, b.sch = source, op, sch
	b.out = newFrame(sch)
	b.produces[Event] = true
	b.followsEvictions = s.holds(source)
	b.late = true
	id := s.addNode(n)
	if f, ok := s.replayFrame(source); ok {
		n.push(&f)
		n.finish()
		n.out.reset()
	}
	return id, nil
}

// evictsInArrivalOrder reports whether a node lets its rows go oldest
// first: the series does not reorder and no partitioning lies on the way
// from the root (partitions evict each on its own). Windows, filters and
// the other views over such a node keep that order.
func (s *Series) evictsInArrivalOrder(id NodeID) bool {
	if s.opts.Ordering == Reorder {
		return false
	}
	for id > 0 {
		b := s.nodes[id].base()
		if b.scope != nil {
			return false
		}
		id = b.src
	}
	return true
}

// reduceNode reduces what its source holds.
type reduceNode struct {
	nodeBase
	cols    []int
	states  []reducers.Window
	trig    clock.Spec
	clock   clock.ClockState
	every   int    // count trigger: n
	counted int    // count trigger: rows counted since the last emission
	reached int    // rows that reached the node in this push
	lastT   int64  // time of the last of them
	seen    bool   // a row has reached the node
	ownSeq  bool   // the source's rows have no identity: number them
	nextSeq uint64 // the next own number
}

func (n *reduceNode) push(in *frame) {
	n.out.reset()
	rows := in.len()
	if rows == 0 {
		return
	}
	useIDs := !n.ownSeq && len(in.ids) == rows
	base := n.nextSeq
	if !useIDs {
		n.nextSeq += uint64(rows)
	}
	for k, st := range n.states {
		for i := range rows {
			seq := base + uint64(i)
			if useIDs {
				seq = in.ids[i]
			}
			st.Add(seq, owned(in.tab.Value(i, n.cols[k])))
		}
	}
	n.reached += rows
	n.lastT = in.tab.TimeNanos(rows - 1)
	n.seen = true
}

func (n *reduceNode) evicted(gone *frame) {
	if len(gone.ids) != gone.len() {
		return
	}
	for k, st := range n.states {
		for i, id := range gone.ids {
			st.Remove(id, gone.tab.Value(i, n.cols[k]))
		}
	}
}

// finish emits, after retention, for a push that reached the node.
func (n *reduceNode) finish() {
	if n.reached == 0 {
		return
	}
	rows := n.reached
	n.reached = 0
	switch n.trig.Kind {
	case clock.Count:
		n.counted += rows
		if k := n.counted / n.every; k > 0 {
			n.counted -= k * n.every
			// The rows are all the same: the reduction is made once
			// (unique and top sort what they hold), then copied.
			n.emit(n.lastT)
			tab := n.out.tab
			last := tab.Len() - 1
			for range k - 1 {
				table.AppendFrom(tab, tab, last)
			}
		}
	case clock.Clock:
		if b, fired := n.clock.Observe(n.lastT); fired {
			n.emit(b)
		}
	default:
		n.emit(n.lastT)
	}
}

func (n *reduceNode) emit(t int64) { n.emitTo(n.out.tab, t) }

// emitTo appends the reduction of what the node holds now to tab, at t.
func (n *reduceNode) emitTo(tab *schema.Table, t int64) {
	table.Column(tab, 0).AppendTime(t)
	for k, st := range n.states {
		st.Append(table.Column(tab, k+1))
	}
}
