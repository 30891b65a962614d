package live

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/pond-go/pond/internal/article"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
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

// viewBound is the part of a viewOp that bounds the rows its view holds
// beyond its source's evictions: a window's span or count (window.go).
type viewBound interface {
	// begin starts a push.
	begin()
	// kept records that the view stored a row of time t in partition p.
	kept(p int32, t int64)
	// trim drops, through n.drop, the rows the push put outside the bound.
	trim(n *viewNode)
}

// viewNode is a view of any kind.
type viewNode struct {
	nodeBase
	s       *Series
	kind    viewKind
	op      viewOp
	bound   viewBound      // the op's own bound on the rows held, nil if none
	pn      *partitionNode // the source's partitioning, nil if none
	outPart bool           // the rows keep their partition (all but gather)
	follows bool           // the source holds rows: follow its evictions
	holds   bool           // the view holds rows: follows, or is a window
	stored  bool           // the view keeps keys or rows in stores
	stores  []*rowStore    // per partition
	gens    []uint32       // generation of each partition index seen
	ownIDs  bool           // the source's rows have no identity: give them one
	nextID  uint64
}

// addView registers a view built on source with output schema sch. A vo
// that is also a viewBound bounds what the view holds.
func (s *Series) addView(op string, source NodeID, sch *schema.Schema, kind viewKind, vo viewOp, keepPart bool) NodeID {
	src := s.nodes[source].base()
	n := &viewNode{s: s, kind: kind, op: vo, outPart: keepPart}
	n.bound, _ = vo.(viewBound)
	b := n.base()
	b.src, b.op, b.sch = source, op, sch
	if n.pn = s.partitioning(src); n.pn != nil {
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
		s.guarded(func() { n.push(&f) })
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

// partOf returns the partition of row i of f (see partitionNode.partOf).
func (n *viewNode) partOf(f *frame, i int) int32 { return n.pn.partOf(f, i) }

// enter makes room for partition p and forgets its state if the index now
// belongs to a new partition.
func (n *viewNode) enter(p int32) {
	for int(p) >= len(n.gens) {
		n.gens = append(n.gens, 0)
		n.stores = append(n.stores, nil)
	}
	if n.pn == nil {
		return
	}
	if g := n.pn.router.Generation(p); g != n.gens[p] {
		n.gens[p] = g
		n.forget(p)
	}
}

// forget lets go of partition p's state and rows. Its store goes too: kept
// emptied for the next partition at p, each slot held the room of the
// busiest partition it ever had, which over keys that come and go summed
// to far more than any moment held (and NodeBytes counted it).
func (n *viewNode) forget(p int32) {
	n.op.forget(p)
	if st := n.stores[p]; st != nil {
		st.reset()
		n.stores[p] = nil
	}
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
	if n.bound != nil {
		n.bound.begin()
	}
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
		if n.bound != nil {
			n.bound.kept(p, t)
		}
	}
	if n.bound != nil {
		n.bound.trim(n)
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

// heldBytes returns the memory of the rows (or keys) the view keeps, and
// of its operation's own state (a previous value or a running total per
// partition).
func (n *viewNode) heldBytes() int {
	b := 0
	if n.pn != nil { // a store pointer and a generation per partition index
		b += 8*cap(n.stores) + 4*cap(n.gens)
	}
	if o, ok := n.op.(opBytes); ok {
		b += o.stateBytes()
	}
	for _, st := range n.stores {
		if st != nil {
			b += st.bytes()
		}
	}
	return b
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
// a push in progress: every builder starts with it, as a node built
// during a push would replay rows the push's retention is about to evict.
func (s *Series) checkSource(source NodeID) (*nodeBase, error) {
	if err := s.canPush(); err != nil {
		return nil, err
	}
	n, err := s.node(source)
	if err != nil {
		return nil, err
	}
	return n.base(), nil
}

// partitioning returns the partition node whose partitions src's rows
// carry, or nil when src is not partitioned.
func (s *Series) partitioning(src *nodeBase) *partitionNode {
	if src.scope == nil {
		return nil
	}
	return s.nodes[src.scope.node].(*partitionNode)
}

// partitionColumn returns the name of the partition column of the
// partitioning src is on, or "" when src is not partitioned.
func (s *Series) partitionColumn(src *nodeBase) string {
	if pn := s.partitioning(src); pn != nil {
		return pn.sch.Column(pn.col).Name
	}
	return ""
}

// appendFinite appends f, or a missing cell when f is NaN or infinite.
func appendFinite(dst *table.Col, f float64) {
	if f-f == 0 {
		dst.AppendNum(f)
	} else {
		dst.AppendMissing()
	}
}

// targetColumns resolves the listed columns of a view that rewrites
// number columns: each must be a value column of kind number, listed once.
// It returns the columns and the output schema, where they become
// optional.
func targetColumns(op string, src *schema.Schema, columns []string, numbersOnly bool) ([]int, *schema.Schema, error) {
	if len(columns) == 0 {
		return nil, nil, configErr(op, "columns", op+" needs at least one column", nil)
	}
	var idx []int
	seen := map[int]bool{}
	for _, c := range columns {
		j, ok := src.Index(c)
		switch {
		case !ok:
			return nil, nil, unknownColumn(op, c, src.Names()[1:])
		case j == 0:
			return nil, nil, configErr(op, c, "is the time column, not a value column", nil)
		case numbersOnly && src.Column(j).Kind != schema.Number:
			return nil, nil, configErr(op, c, fmt.Sprintf("is %s column; %s needs a number column", article.A(src.Column(j).Kind.String()), op), nil)
		case seen[j]:
			return nil, nil, configErr(op, c, "listed twice", nil)
		}
		seen[j] = true
		idx = append(idx, j)
	}
	cols := src.Columns()
	for _, j := range idx {
		cols[j].Optional = true
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return nil, nil, configErr(op, "columns", "bad output schema", err)
	}
	return idx, sch, nil
}
