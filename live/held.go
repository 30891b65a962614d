package live

import (
	"time"

	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/schema"
)

// heldRows reads the series' rows for an aligned rolling that takes its
// samples from them instead of keeping them (see aligned.Held): the
// rows' partitions by their keys' intern ids, and the samples' column.
type heldRows struct {
	s      *Series
	router *router.Router
	key    int // the partition column
	val    int // the samples' column
}

// HeldRun returns the rows from identity from on, up to to or the end of
// their chunk of the store: their keys' intern ids and their values.
func (h *heldRows) HeldRun(from, to uint64) ([]uint32, []float64) {
	s := h.s
	if from < s.evicted || to-s.evicted > uint64(s.store.Len()) || from >= to {
		panic("live: the rows of an aligned step are not held")
	}
	return s.store.SymNumRun(h.key, h.val, int(from-s.evicted), int(to-s.evicted))
}

// HeldParts returns the partition of each intern id, plus one.
func (h *heldRows) HeldParts() []int32 { return h.router.SymIndex() }

// holdSamples makes the aligned rolling n read its samples from the
// series' rows when its plan can (engine.Plan.HeldColumn) and the series
// keeps them: n reads a partitioning of the root (source) by a required
// string column, rows are never reordered, and the root keeps every row
// of the clock's step (no MaxEvents, no MaxAge shorter than the step), so
// that a step's rows are held until its closing. A rolling built on a
// series that holds rows keeps its samples: it starts from a replay of
// the partitions' rows, which are not the series' in order.
func (s *Series) holdSamples(n *rollingNode, source NodeID) {
	pn := n.part
	if pn == nil || !n.aligned || pn.base().src != s.Root() || s.nodes[source] != node(pn) || s.store.Len() > 0 {
		return
	}
	col, step, ok := n.plan.HeldColumn()
	if !ok || s.opts.Ordering == Reorder || s.opts.MaxEvents > 0 || s.opts.MaxAge > 0 && s.opts.MaxAge < time.Duration(step) {
		return
	}
	key := s.schema.Column(pn.col)
	if key.Kind != schema.String || key.Optional || s.schema.Column(col).Kind != schema.Number {
		return
	}
	h := &heldRows{s: s, router: pn.router, key: pn.col, val: col}
	if n.group.SetHeld(h) {
		n.held = h
	}
}
