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
// the rows waiting in the partitions' inboxes or open-step records, the first and last values
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
		g.markStep(m, q, str)
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

// markStep marks the strings of partition q's open-step record: its
// firsts and lasts and its raw rows.
func (g *Group) markStep(m Marker, q int32, str func(slot int) bool) {
	sp, st := &g.p.st, &g.st
	if !g.stepped || int(q) >= len(st.n) || st.n[q] == stepShut {
		return
	}
	r := st.rec(sp, q)
	for _, fl := range sp.fls {
		if str(fl.slot) && int64(r[fl.off]) != math.MaxInt64 {
			m.Mark(uint32(r[fl.off+1]))
			m.Mark(uint32(r[fl.off+3]))
		}
	}
	w := len(sp.raw)
	for c, s := range sp.raw {
		if !str(s) {
			continue
		}
		raw := st.raws(q, w)
		for j := c; j < len(raw); j += w {
			m.Mark(uint32(raw[j]))
		}
	}
}
