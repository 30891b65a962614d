package aligned

import (
	"math"

	"github.com/pond-go/pond/schema"
)

// Marker is told the intern ids the group holds, so that the series'
// intern table keeps them when it forgets strings nothing holds.
type Marker interface {
	Mark(id uint32)
}

// MarkSyms tells m the intern id of every string cell the group holds:
// the rows waiting in the partitions' inboxes, the first and last values
// of the panes, and the raw rows of the windows that keep them.
func (g *Group) MarkSyms(m Marker) {
	p := g.p
	str := func(slot int) bool { return slot >= 1 && slot <= len(p.kinds) && p.kinds[slot-1] == schema.String }
	for _, q := range g.order {
		pt := g.parts[q]
		if pt == nil {
			continue
		}
		waiting := g.in.waiting(q)
		for k, kind := range p.kinds {
			if kind != schema.String {
				continue
			}
			for r := range waiting.len() {
				m.Mark(uint32(waiting.at(r, 1+k)))
			}
		}
		for w := range pt.wins {
			ws, wp := &pt.wins[w], &p.wins[w]
			for i, s := range wp.fls {
				if !str(s) {
					continue
				}
				for d := range ws.n {
					r, _ := ws.rec(wp, ws.slot(d))
					fl := r[wp.offFL+4*i:][:4]
					if int64(fl[0]) != math.MaxInt64 {
						m.Mark(uint32(fl[1]))
						m.Mark(uint32(fl[3]))
					}
				}
			}
			rr := &ws.raw
			for c, s := range wp.rawSlots {
				if !str(s) {
					continue
				}
				for r := rr.row0; r < rr.rows(); r++ {
					m.Mark(uint32(rr.vals[r*rr.stride+c]))
				}
			}
		}
	}
}
