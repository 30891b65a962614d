package engine

import "github.com/pond-go/pond/schema"

// Marker is told the intern ids a stream or a group holds, so that the
// series' intern table keeps them when it forgets strings nothing holds.
// The series' intern table is one.
type Marker interface {
	Mark(id uint32)
}

// MarkSyms tells m the intern id of every string cell the engine's rows
// hold.
func (e *Engine) MarkSyms(m Marker) {
	for k, kind := range e.p.kinds {
		if kind == schema.String {
			e.dq.markSlot(1+k, m)
		}
	}
}

// MarkSyms tells m the intern id of every string cell the stream holds.
func (s *Stream) MarkSyms(m Marker) {
	if s.al != nil {
		s.al.MarkSyms(m)
		return
	}
	s.e.MarkSyms(m)
}

// MarkSyms tells m the intern id of every string cell the group holds:
// its partitions' rows and the rows buffered for the next tick.
func (g *Group) MarkSyms(m Marker) {
	if g.al != nil {
		g.al.MarkSyms(m)
	}
	g.settle()
	for _, e := range g.engines {
		if e != nil {
			e.MarkSyms(m)
		}
	}
	for k, kind := range g.p.kinds {
		for _, r := range []*pendRows{&g.in, &g.work} {
			if kind != schema.String || k >= len(r.c) {
				continue
			}
			for _, id := range r.c[k] {
				m.Mark(uint32(id))
			}
		}
	}
}
