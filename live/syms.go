package live

import (
	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/schema"
)

// symHolder is a node that keeps intern ids from one push to the next (in
// stored rows, partition keys, window rows or caches). When the intern
// table's sweep is due, every holder marks the ids it keeps, and the
// table forgets the others (see package intern): the series' memory for
// strings is bounded by the strings it holds.
type symHolder interface {
	markSyms(t *intern.Table)
}

// sweepSyms forgets the strings no node holds, when a sweep is due. It
// runs at the end of a successful push: the ids of the push's frames are
// not read after it.
func (s *Series) sweepSyms() {
	if s.syms.Due() || s.sweepEveryPush {
		s.sweep()
	}
}

// sweep marks the ids every holder keeps and forgets the others.
func (s *Series) sweep() {
	for _, h := range s.symHolders {
		h.markSyms(s.syms)
	}
	s.syms.Sweep()
}

// markSyms marks the ids of the stored rows and of the intern caches.
func (r *rootNode) markSyms(t *intern.Table) {
	r.s.store.MarkSyms(t)
	for j := range r.cache {
		for _, id := range r.cache[j].ids {
			t.Mark(id)
		}
	}
}

// markSyms marks the string keys of the live partitions and the string
// cells of the rows they hold.
func (n *partitionNode) markSyms(t *intern.Table) {
	if n.kind == schema.String {
		for _, p := range n.router.Order() {
			if k := n.router.Key(p); k.Kind == schema.String {
				t.Mark(uint32(k.Code))
			}
		}
	}
	for j := 1; j < n.sch.Len(); j++ {
		if n.sch.Column(j).Kind != schema.String {
			continue
		}
		for p := range max(len(n.rings), len(n.one)) {
			if n.stale && n.behind(int32(p)) {
				continue // its row is the store's, which marks it
			}
			for k := range n.rowCount(int32(p)) {
				t.Mark(uint32(n.heldRow(int32(p), k)[1+j]))
			}
		}
	}
}

// markSyms marks the string cells of the rows the windows hold.
func (n *rollingNode) markSyms(t *intern.Table) {
	if n.stream != nil {
		n.stream.MarkSyms(t)
	} else {
		n.group.MarkSyms(t)
	}
}

// markSyms marks the ids a fill holds for its last values.
func (n *viewNode) markSyms(t *intern.Table) {
	if o, ok := n.op.(*fillOp); ok {
		for x, id := range o.lastSym {
			if o.has[x] {
				t.Mark(id)
			}
		}
	}
}
