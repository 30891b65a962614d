package live

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// Views are per-row operators built on any node: filter, map, select,
// window, diff, rate, pctChange, fill, cumulative, sample, gather. They
// share one node type, which does what all of them must:
//
//   - rows are taken in arrival order, also a reorder source's late rows,
//     which a view passes on as they come and holds in key order (by time,
//     then arrival), as the root does (docs/differences.md §14);
//   - over a source that holds rows (the root, a partition, a window,
//     another view over those) a view follows the source's evictions by
//     identity, not time (§15 there), and announces its own as its Evict output;
//     over a source that holds none (a rolling, an aggregate, a reduce) it
//     holds nothing either, except a window, which holds its own rows and
//     announces their eviction (§13 there);
//   - a view over a partitioned node keeps its state per partition and
//     stays partitioned, so a rolling built on it is per partition.
//
// A view keeps only what it must to do that: a filter or a sample keeps
// the keys of the rows it passed, a select keeps nothing (its rows are a
// projection of its source's), a window and the views that compute new
// cells keep their rows.

// viewKind says what a view keeps of the rows it holds.
type viewKind uint8

const (
	// viewPasses: rows pass unchanged or not at all (filter, sample); the
	// view keeps the keys of those it passed.
	viewPasses viewKind = iota + 1
	// viewProjects: rows are a pure function of the source's (select,
	// gather); the view keeps nothing.
	viewProjects
	// viewComputes: rows are computed with state (map, diff, fill,
	// cumulative); the view keeps them.
	viewComputes
	// viewWindow: rows pass unchanged, and the view keeps the last span or
	// count of them.
	viewWindow
)

// viewOp is the per-row work of one view.
type viewOp interface {
	// row appends the view's row for row i of in, in partition p, to out
	// (cells and intern ids; not the partition or identity) and reports
	// whether it emitted one.
	row(in *frame, i int, p int32, out *frame) bool
	// forget drops the state kept for partition p.
	forget(p int32)
}

// viewNode is a view of any kind.
type viewNode struct {
	nodeBase
	s       *Series
	kind    viewKind
	op      viewOp
	pn      *partitionNode // the source's partitioning, nil if none
	outPart bool           // the rows keep their partition (all but gather)
	follows bool           // the source holds rows: follow its evictions
	holds   bool           // the view holds rows: follows, or is a window
	stored  bool           // the view keeps keys or rows in stores
	stores  []*rowStore    // per partition
	gens    []uint32       // generation of each partition index seen
	ownIDs  bool           // the source's rows have no identity: give them one
	nextID  uint64

	// windows
	span    int64 // nanoseconds, or 0
	count   int   // rows, or 0
	maxT    []int64
	hasMax  []bool
	touched []int32
	stamp   []uint64
	pushes  uint64
}

// addView registers a view built on source with output schema sch.
// setup, when not nil, completes the node before it replays what its
// source holds.
func (s *Series) addView(op string, source NodeID, sch *schema.Schema, kind viewKind, vo viewOp, keepPart bool, setup func(*viewNode)) NodeID {
	src := s.nodes[source].base()
	n := &viewNode{s: s, kind: kind, op: vo, outPart: keepPart}
	if setup != nil {
		setup(n)
	}
	b := n.base()
	b.src, b.op, b.sch = source, op, sch
	if src.scope != nil {
		n.pn = s.nodes[src.scope.node].(*partitionNode)
		if keepPart {
			b.scope = src.scope
		}
	}
	n.follows = s.holds(source)
	n.holds = n.follows || kind == viewWindow
	n.stored = kind == viewWindow || n.follows && (kind == viewPasses || kind == viewComputes)
	n.ownIDs = !s.givesIDs(source)
	b.out = newFrame(sch)
	b.produces[Event] = true
	if n.holds {
		b.produces[Evict] = true
		b.gone = newFrame(sch)
	}
	b.followsEvictions = n.follows
	b.late = src.late
	id := s.addNode(n)
	if f, ok := s.replayFrame(source); ok {
		n.push(&f)
		n.out.reset()
		if n.holds {
			n.gone.reset()
		}
	}
	return id
}

// holds reports whether a node holds rows, and so announces their
// eviction with their identities.
func (s *Series) holds(id NodeID) bool {
	switch n := s.nodes[id].(type) {
	case *rootNode, *partitionNode:
		return true
	case *viewNode:
		return n.holds
	}
	return false
}

// givesIDs reports whether a node's rows carry identities.
func (s *Series) givesIDs(id NodeID) bool {
	switch s.nodes[id].(type) {
	case *rootNode, *partitionNode, *viewNode:
		return true
	}
	return false
}

// holdings returns the rows a node holds now, in key order, with their
// identities (and partitions, for a partitioned node), and false for a
// node that holds no rows.
func (s *Series) holdings(id NodeID) (frame, bool) {
	switch n := s.nodes[id].(type) {
	case *rootNode:
		f := newFrame(s.schema)
		for r := range s.store.Len() {
			s.appendStored(&f, r)
			f.ids = append(f.ids, s.storedID(r))
		}
		return f, true
	case *partitionNode:
		f := n.held()
		return sortedFrame(&f, byKey(&f)), true
	case *viewNode:
		return n.holdings()
	}
	return frame{}, false
}

// replayFrame returns the rows a node holds in arrival order, for a node
// built on it to start from, and false when there are none.
func (s *Series) replayFrame(id NodeID) (frame, bool) {
	switch s.nodes[id].(type) {
	case *rootNode:
		if s.store.Len() == 0 {
			return frame{}, false
		}
		return s.heldFrame(), true
	case *partitionNode:
		f := s.nodes[id].(*partitionNode).held()
		return f, f.len() > 0
	}
	f, ok := s.holdings(id)
	if !ok || f.len() == 0 {
		return frame{}, false
	}
	return sortedFrame(&f, byArrival(&f)), true
}

// partOf returns the partition of row i of f. Rows carry it, except
// those of a partitioned rolling, whose partition is found from the key
// column they carry after the time.
func (n *viewNode) partOf(f *frame, i int) int32 {
	if len(f.part) == f.len() {
		return f.part[i]
	}
	k := n.s.keyOf(f.tab.Value(i, 1))
	if p, ok := n.pn.router.Find(k); ok {
		return p
	}
	return 0
}

// enter makes room for partition p and forgets its state if the index now
// belongs to a new partition.
func (n *viewNode) enter(p int32) {
	for int(p) >= len(n.gens) {
		n.gens = append(n.gens, 0)
		n.stores = append(n.stores, nil)
		n.maxT = append(n.maxT, 0)
		n.hasMax = append(n.hasMax, false)
		n.stamp = append(n.stamp, 0)
	}
	if n.pn == nil {
		return
	}
	if g := n.pn.router.Generation(p); g != n.gens[p] {
		n.gens[p] = g
		n.forget(p)
	}
}

func (n *viewNode) forget(p int32) {
	n.op.forget(p)
	if st := n.stores[p]; st != nil {
		st.reset()
	}
	n.hasMax[p] = false
}

func (n *viewNode) store(p int32) *rowStore {
	st := n.stores[p]
	if st == nil {
		st = newRowStore(n.sch, n.kind != viewPasses)
		n.stores[p] = st
	}
	return st
}

func (n *viewNode) push(in *frame) {
	out := &n.out
	out.reset()
	if n.holds {
		n.gone.reset()
	}
	n.pushes++
	n.touched = n.touched[:0]
	hasIDs := len(in.ids) == in.len()
	for i := range in.len() {
		var p int32
		if n.pn != nil {
			p = n.partOf(in, i)
		}
		n.enter(p)
		if !n.op.row(in, i, p, out) {
			continue
		}
		if n.outPart {
			out.part = append(out.part, p)
		}
		var id uint64
		switch {
		case hasIDs:
			id = in.ids[i]
		case n.ownIDs:
			id = n.nextID
			n.nextID++
		}
		out.ids = append(out.ids, id)
		if !n.stored {
			continue
		}
		t := in.tab.TimeNanos(i)
		n.store(p).add(t, id, out.tab, out.len()-1)
		if n.kind == viewWindow {
			if !n.hasMax[p] || t > n.maxT[p] {
				n.maxT[p], n.hasMax[p] = t, true
			}
			if n.stamp[p] != n.pushes {
				n.stamp[p] = n.pushes
				n.touched = append(n.touched, p)
			}
		}
	}
	for _, p := range n.touched {
		n.trim(p)
	}
}

// trim applies a window's own bound to partition p.
func (n *viewNode) trim(p int32) {
	st := n.stores[p]
	if n.count > 0 {
		for st.len() > n.count {
			n.drop(p, st, st.head)
		}
		return
	}
	cut := n.maxT[p] - n.span
	for st.len() > 0 && st.t[st.head] < cut {
		n.drop(p, st, st.head)
	}
}

// drop removes the row at pos of partition p's store, announcing it.
func (n *viewNode) drop(p int32, st *rowStore, pos int) {
	if n.wantGone {
		st.appendTo(&n.gone, pos)
		if n.outPart {
			n.gone.part = append(n.gone.part, p)
		}
	}
	st.remove(pos)
}

// evicted follows the source's evictions: the rows of gone the view
// holds leave it, and are announced as its own.
func (n *viewNode) evicted(gone *frame) {
	for i := range gone.len() {
		var p int32
		if n.pn != nil {
			p = n.partOf(gone, i)
		}
		switch n.kind {
		case viewProjects:
			if n.wantGone && n.op.row(gone, i, p, &n.gone) {
				if n.outPart {
					n.gone.part = append(n.gone.part, p)
				}
				n.gone.ids = append(n.gone.ids, gone.ids[i])
			}
			continue
		}
		if int(p) >= len(n.stores) || n.stores[p] == nil {
			continue
		}
		st := n.stores[p]
		pos, ok := st.find(gone.tab.TimeNanos(i), gone.ids[i])
		if !ok {
			continue
		}
		if n.kind == viewPasses {
			if n.wantGone {
				copyRow(&n.gone, gone, i)
				if n.outPart {
					n.gone.part = append(n.gone.part, p)
				}
				n.gone.ids = append(n.gone.ids, gone.ids[i])
			}
			st.remove(pos)
			continue
		}
		n.drop(p, st, pos)
	}
}

// finish drops the state of partitions the partitioning removed (their
// rows left through the evictions; a window over a source that holds
// nothing announces its own here).
func (n *viewNode) finish() {
	if n.pn == nil || len(n.pn.expired) == 0 {
		return
	}
	for _, p := range n.pn.expired {
		if int(p) >= len(n.gens) {
			continue
		}
		if st := n.stores[p]; st != nil && n.kind != viewPasses {
			for st.len() > 0 {
				n.drop(p, st, st.head)
			}
		}
		n.forget(p)
	}
}

// holdings returns the rows the view holds, in key order.
func (n *viewNode) holdings() (frame, bool) {
	if !n.holds {
		return frame{}, false
	}
	f := newFrame(n.sch)
	if n.stored && n.kind != viewPasses {
		type ref struct {
			st  *rowStore
			p   int32
			pos int
		}
		var refs []ref
		for p, st := range n.stores {
			if st == nil {
				continue
			}
			for pos := st.head; pos < len(st.t); pos++ {
				refs = append(refs, ref{st, int32(p), pos})
			}
		}
		slices.SortFunc(refs, func(a, b ref) int {
			if c := cmp.Compare(a.st.t[a.pos], b.st.t[b.pos]); c != 0 {
				return c
			}
			return cmp.Compare(a.st.id[a.pos], b.st.id[b.pos])
		})
		for _, r := range refs {
			r.st.appendTo(&f, r.pos)
			if n.outPart {
				f.part = append(f.part, r.p)
			}
		}
		return f, true
	}
	src, ok := n.s.holdings(n.src)
	if !ok {
		return f, true
	}
	for i := range src.len() {
		var p int32
		if n.pn != nil {
			p = n.partOf(&src, i)
		}
		if n.kind == viewPasses {
			if int(p) >= len(n.stores) || n.stores[p] == nil {
				continue
			}
			if _, ok := n.stores[p].find(src.tab.TimeNanos(i), src.ids[i]); !ok {
				continue
			}
			copyRow(&f, &src, i)
		} else if !n.op.row(&src, i, p, &f) {
			continue
		}
		if n.outPart {
			f.part = append(f.part, p)
		}
		f.ids = append(f.ids, src.ids[i])
	}
	return f, true
}

// checkSource returns the node's base, or an error for an unknown node or
// a push in progress.
func (s *Series) checkSource(source NodeID) (*nodeBase, error) {
	if s.busy {
		return nil, ErrReentrant
	}
	n, err := s.node(source)
	if err != nil {
		return nil, err
	}
	return n.base(), nil
}

// Filter adds a view that passes on the rows of source for which keep
// returns true. The row given to keep (the time first, then a cell per
// column) is reused from call to call: copy what you keep of it. keep
// runs inside the push, after its commit point: it must not push to the
// series (that fails with [ErrReentrant]) and must not panic (a panic
// leaves the push half done).
//
// Like every view, a filter over a node that holds rows (the root, a
// partition, a window, a view over those) follows its evictions: a row
// leaves the filter exactly when it leaves the source. It keeps only the
// keys of the rows it passed, never the rows.
func (s *Series) Filter(source NodeID, keep func(row schema.Row) bool) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if keep == nil {
		return 0, configErr("filter", "keep", "a filter needs a function", nil)
	}
	return s.addView("filter", source, src.sch, viewPasses, &filterOp{keep: keep}, true, nil), nil
}

// Map adds a view that computes each row anew: fn gets the source row
// (the time first) and a row of out.Len() cells to fill, whose first cell
// is the source row's time and whose other cells start missing; it
// returns false to drop the row. A row keeps its source row's time (a
// time fn writes is ignored). A cell whose kind does not match its column
// of out, or a non-finite number, is stored as missing; nothing fn
// returns fails the push. Both rows are reused from call to call.
//
// out must have a time column first; it need not contain the partition
// column of a partitioned source (the rows stay partitioned). Like a
// filter's function, fn must neither push to the series nor panic.
func (s *Series) Map(source NodeID, out *schema.Schema, fn func(in, out schema.Row) bool) (NodeID, error) {
	if _, err := s.checkSource(source); err != nil {
		return 0, err
	}
	switch {
	case out == nil:
		return 0, configErr("map", "out", "a map needs an output schema", nil)
	case fn == nil:
		return 0, configErr("map", "fn", "a map needs a function", nil)
	}
	op := &mapOp{fn: fn, outRow: make(schema.Row, out.Len())}
	return s.addView("map", source, out, viewComputes, op, true, nil), nil
}

// Select adds a view that keeps only the given value columns of source,
// in the source's column order, after the time. An unknown column, the
// time column or an empty list is an error wrapping [ErrConfig].
func (s *Series) Select(source NodeID, columns ...string) (NodeID, error) {
	const op = "select"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if len(columns) == 0 {
		return 0, configErr(op, "columns", "select needs at least one column", nil)
	}
	want := map[int]bool{}
	for _, c := range columns {
		j, ok := src.sch.Index(c)
		switch {
		case !ok:
			return 0, configErr(op, c, fmt.Sprintf("unknown column (columns: %v)", src.sch.Names()[1:]), nil)
		case j == 0:
			return 0, configErr(op, c, "is the time column, which every row keeps", nil)
		}
		want[j] = true
	}
	cols := []schema.Column{src.sch.Column(0)}
	var idx []int
	for j := 1; j < src.sch.Len(); j++ {
		if want[j] {
			cols = append(cols, src.sch.Column(j))
			idx = append(idx, j)
		}
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return 0, configErr(op, "columns", "bad output schema", err)
	}
	return s.addView(op, source, sch, viewProjects, &selectOp{idx: idx}, true, nil), nil
}

// Window adds a view that passes every row of source on and holds those
// of the last span: after each push it evicts the rows older than its
// latest time minus span (a row exactly span old stays), and announces
// them as its Evict output, so nodes built on it (a reduce, a filter) see
// only the window (docs/differences.md §13). Rows the source evicts leave it too.
// On a partitioned source each partition keeps its own window, measured
// from its own latest time. A span that is not positive is an error
// wrapping [ErrConfig].
func (s *Series) Window(source NodeID, span time.Duration) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if err := sequence.CheckDuration(span); err != nil {
		return 0, configErr("window", "span", fmt.Sprintf("%v must be positive and at most %v", span, sequence.MaxDuration), err)
	}
	return s.addWindow(source, src, int64(span), 0), nil
}

// WindowCount is [Series.Window] holding the last n rows (in key order,
// per partition on a partitioned source). An n below 1 is an error
// wrapping [ErrConfig].
func (s *Series) WindowCount(source NodeID, n int) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, configErr("window", "count", fmt.Sprintf("%d must be at least 1", n), nil)
	}
	return s.addWindow(source, src, 0, n), nil
}

func (s *Series) addWindow(source NodeID, src *nodeBase, span int64, count int) NodeID {
	return s.addView("window", source, src.sch, viewWindow, passOp{}, true, func(n *viewNode) {
		n.span, n.count = span, count
	})
}
