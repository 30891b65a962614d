package live

import (
	"time"

	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/schema"
)

// heldRows reads the series' rows for an aligned rolling that takes its
// samples from them instead of keeping them (see aligned.Held): the
// rows' partitions, by their keys, and the samples' column. A string key
// is its intern id, which the router maps to its partition in a table; a
// number key is looked up row by row, and the group is given the
// partition itself (plus one, 0: none) as the key, through a table that
// maps each to itself.
type heldRows struct {
	s      *Series
	router *router.Router
	key    int  // the partition column
	val    int  // the samples' column
	number bool // the partition column holds numbers
	parts  []uint32
	self   []int32  // self[i] = i, for number keys
	keys   []uint32 // keys[i] = i + 1, for number keys
}

// HeldRun returns the rows from identity from on, up to to or the end of
// their chunk of the store: their keys and their values.
func (h *heldRows) HeldRun(from, to uint64) ([]uint32, []float64) {
	s := h.s
	if from < s.evicted || to-s.evicted > uint64(s.store.Len()) || from >= to {
		panic("live: the rows of an aligned step are not held")
	}
	if !h.number {
		return s.store.SymNumRun(h.key, h.val, int(from-s.evicted), int(to-s.evicted))
	}
	keys, vals := s.store.NumNumRun(h.key, h.val, int(from-s.evicted), int(to-s.evicted))
	h.parts = h.parts[:0]
	for _, k := range keys {
		q, ok := h.router.Find(router.NumberKey(k))
		if !ok {
			q = -1
		}
		h.parts = append(h.parts, uint32(q+1))
	}
	return h.parts, vals
}

// HeldParts returns the partition of each key, plus one: by intern id for
// a string key, itself for a number key's partition plus one.
func (h *heldRows) HeldParts() []int32 {
	if !h.number {
		return h.router.SymIndex()
	}
	for len(h.self) <= h.router.Cap() {
		h.self = append(h.self, int32(len(h.self)))
	}
	return h.self
}

// HeldKeys returns the key of each partition, by index: its intern id
// for a string key, the partition plus one for a number key.
func (h *heldRows) HeldKeys() []uint32 {
	if !h.number {
		return h.router.SymKeys()
	}
	for len(h.keys) < h.router.Cap() {
		h.keys = append(h.keys, uint32(len(h.keys)+1))
	}
	return h.keys
}

// holdSamples makes the aligned rolling n read its samples from the
// series' rows when its plan can (engine.Plan.HeldColumn) and the series
// keeps them: n reads a partitioning of the root (source) by a required
// string or number column, rows are never reordered, and the root keeps
// every row of the clock's step (no MaxEvents, no MaxAge shorter than the
// step), so that a step's rows are held until its closing. A rolling built on a
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
	if key.Kind != schema.String && key.Kind != schema.Number || key.Optional || s.schema.Column(col).Kind != schema.Number {
		return
	}
	h := &heldRows{s: s, router: pn.router, key: pn.col, val: col, number: key.Kind == schema.Number}
	if n.group.SetHeld(h) {
		n.held = h
	}
}
