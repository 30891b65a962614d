package live

import (
	"fmt"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// NodeID identifies a node of a series' pipeline: the root, a partition, a
// rolling, a view. Ids are given in build order, which is also a
// topological order, and are not always consecutive: a rolling with a
// history takes the next id for it as well.
type NodeID int32

// OutputKind is a kind of output a node produces in a push.
type OutputKind uint8

// The output kinds.
const (
	// Event: the rows a node emitted (for the root and the series-like
	// nodes, the rows it took in; for a rolling, the rows it emitted).
	Event OutputKind = iota + 1
	// Batch: the rows a series-like node (the root, a partition) took in,
	// as one table per push. For those nodes it holds the same rows as
	// Event.
	Batch
	// Evict: the rows a node let go of in the push: the root's and a
	// partition's retention, the rows of the partitions IdleTTL removed,
	// a window's own evictions, and, for any other
	// view over a node that holds rows (a filter, select, map… of the
	// root, a partition or a window), its rows that left with the
	// source's. A rolling, a reduce and an aggregate have none.
	Evict
)

// String returns "event", "batch" or "evict", or "kind(n)" for a value
// that is not an output kind.
func (k OutputKind) String() string {
	switch k {
	case Event:
		return "event"
	case Batch:
		return "batch"
	case Evict:
		return "evict"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Output is one tagged output of a push: the rows one node produced of one
// kind. Events is owned by the series and valid until its next push; clone
// it ([schema.Table.Clone]) to keep it.
type Output struct {
	Node   NodeID        // the node that produced the rows
	Kind   OutputKind    // which of its outputs they are
	Events *schema.Table // the rows, all of them in one table
}

// Find returns the table of node's output of kind k among outs (what
// [Series.PushMany] returned), and false if the push produced none: a push
// returns at most one output per node and kind.
func Find(outs []Output, node NodeID, k OutputKind) (*schema.Table, bool) {
	for _, o := range outs {
		if o.Node == node && o.Kind == k {
			return o.Events, true
		}
	}
	return nil, false
}

// frame is the block of rows one node hands to the next in a push.
type frame struct {
	tab  *schema.Table
	syms [][]uint32 // intern ids of string columns, when known (else nil)
	part []int32    // partition index of each row, for partitioned nodes
	ids  []uint64   // identity of each row, for nodes whose evictions are followed
	// sorted: the rows are known to be in non-decreasing time order (set
	// by the root and the partitions for the push's rows; false is safe).
	sorted bool
	// fitted is the room of the time column after the table's last
	// [frame.fitGrown]: more, and its buffers grew since.
	fitted int
}

func newFrame(s *schema.Schema) frame {
	return frame{tab: schema.NewTable(s), syms: make([][]uint32, s.Len())}
}

// len returns the frame's rows: its time column's cells, read without
// the table's checks (a frame's table always has its time column).
func (f *frame) len() int {
	if f.tab == nil {
		return 0
	}
	return len(table.Column(f.tab, 0).Times())
}

// fitGrown lets go of the room growth left in the table's buffers
// (each column's Fit) when they grew since the last time: the table of a
// rolling's emissions grows for the largest of them, by steps of about a
// quarter, and is kept between pushes for [Series.Value]. Its time column
// tells: it grows with the rows.
func (f *frame) fitGrown() {
	if cap(table.Column(f.tab, 0).Times()) == f.fitted {
		return
	}
	cols := table.Columns(f.tab)
	for j := range cols {
		cols[j].Fit()
	}
	f.fitted = cap(cols[0].Times())
}

// reset empties the frame. A frame nothing wrote to since its last reset
// (most frames of a small push: the evictions, the rollings that did not
// tick) is left as it is: rows, their ids, partitions and intern ids are
// only ever written together, so an empty table means the rest is empty.
func (f *frame) reset() {
	if table.Empty(f.tab) && len(f.part)|len(f.ids) == 0 {
		return
	}
	table.Reset(f.tab)
	for j := range f.syms {
		if f.syms[j] != nil {
			f.syms[j] = f.syms[j][:0]
		}
	}
	f.part = f.part[:0]
	f.ids = f.ids[:0]
}

// node is one operator of the pipeline. Nodes are driven by the series,
// once per push, in build order.
type node interface {
	base() *nodeBase
	// push takes the rows the node's source produced in this push. It
	// starts by clearing the rows the node produced in the previous push.
	push(in *frame)
	// evicted takes the rows the node's source evicted in this push; it is
	// called only for nodes with followsEvictions set.
	evicted(gone *frame)
	// finish runs after retention, at the end of a successful push.
	finish()
}

// nodeBase is what every node has.
type nodeBase struct {
	id       NodeID
	src      NodeID // -1 for the root
	op       string
	sch      *schema.Schema
	out      frame // rows emitted in this push
	gone     frame // rows evicted in this push
	produces [Evict + 1]bool
	watched  [Evict + 1]bool
	// followsEvictions: the node wants its source's evictions.
	followsEvictions bool
	// wantGone: someone (a watcher or a consumer) reads gone. The root and
	// a partitioning write gone only while it is set, and refreshWants
	// empties gone when it clears, so their gone is empty while it is not
	// set: a push resets it only when it is.
	wantGone bool
	// scope is the partitioning the node's rows carry, nil if none.
	scope *partScope
	// late: the node's rows are produced after retention (in finish, as a
	// reduce does, or by a node fed by such a node), so the nodes built on
	// it are pushed in the finish pass, once it has finished.
	late bool
}

func (b *nodeBase) base() *nodeBase { return b }

// partScope describes a partitioning: nodes downstream of a partition node
// carry the partition index of each row and keep their state per
// partition. It is filled in by the partition node.
type partScope struct {
	node NodeID
}
