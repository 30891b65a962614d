package aligned

import (
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// A closing's steady step, without the generic loops. When rows are
// folded into open-step records and every window is either one pane read
// from the record (the seed's 200ms window) or a window of more panes
// that keeps only sums and counts (the seed's 1m window), a partition
// whose windows are in their steady state — the closing step's pane is
// the next one each ring takes, and exactly one pane leaves — is closed
// by closeSteady: the record written as the new pane and entered in one
// go, the outputs emitted by the grouped emitters, the oldest pane left.
// Anything else (a partition waking, a gap, a ring growing, a lateness)
// takes the generic path, which gives the same rows.

// steadyPlan lists the windows of a plan that closeSteady can close; ok
// when every window is one of them.
type steadyPlan struct {
	ok     bool
	single []int // windows of one pane, read from the record
	multi  []int // windows of more panes keeping sums and counts only
}

// newSteadyPlan sorts p's windows for closeSteady.
func newSteadyPlan(p *Plan) steadyPlan {
	sp := steadyPlan{ok: p.st.ok}
	for w := range p.wins {
		wp := &p.wins[w]
		switch {
		case !sp.ok:
		case wp.single && p.st.wins[w].view && wp.fast.ok:
			sp.single = append(sp.single, w)
		case !wp.single && wp.fast.ok && len(wp.exts)+len(wp.fls)+len(wp.raws) == 0:
			sp.multi = append(sp.multi, w)
		default:
			sp.ok = false
		}
	}
	if !sp.ok {
		return steadyPlan{}
	}
	return sp
}

// steadyBounds sets what a steady partition's windows hold at the
// closing of pane k (see closeSteady), the same for every partition: a
// window of more panes holds panes [los − 1, k) and closes to k + 1, so
// at most one test a bound is left for each partition. sc holds the
// windows' bounds.
func (g *Group) steadyBounds(k int64, sc *closeScratch) {
	p := g.p
	sc.steadyOK = true
	sc.bases = sc.bases[:0]
	for _, w := range p.steady.multi {
		base := sc.los[w] - 1
		n := k - base
		if sc.his[w] != k+1 || n <= 0 || n > p.wins[w].maxRing {
			sc.steadyOK = false
		}
		sc.bases = append(sc.bases, base)
	}
}

// steady reports whether partition pt, q, with rows in its record, is in
// the steady state at the closing of pane k (see closeSteady), sc holding
// the closing's bounds (steadyBounds).
func (g *Group) steady(q int32, pt *part, k int64, sc *closeScratch) bool {
	p := g.p
	if !sc.steadyOK || !pt.live || pt.huge || g.st.rows(q) == 0 {
		return false
	}
	for _, w := range p.steady.single {
		ws := &pt.wins[w]
		if ws.n != 0 || len(ws.raw.runs) != 0 {
			return false
		}
	}
	bases := sc.bases[:len(p.steady.multi)]
	for i, w := range p.steady.multi {
		ws := &pt.wins[w]
		// With steadyBounds' tests, the ring holds panes [base, k), one
		// more fits, and the oldest leaves at the next boundary.
		if ws.hi != k || ws.base != bases[i] || ws.base+int64(ws.n) != k || ws.n >= ws.cap || ws.rebuild {
			return false
		}
	}
	return true
}

// closeSteady closes partition q, pt, when it is in the steady state
// (steady) at boundary b, the end of pane k: what closeRange's generic
// path does for it, emitting its row as row e of sc. It reports whether it
// closed the partition (done; when not, it changed nothing) and whether
// its windows still hold a row. The check is made here, not by the
// caller: one call a partition, not two.
func (g *Group) closeSteady(q int32, pt *part, k, b int64, out *schema.Table, dsts []*table.Col, sc *closeScratch, e int) (done, held bool) {
	if !g.steady(q, pt, k, sc) {
		return false, false
	}
	p, sp, st := g.p, &g.p.st, &g.st
	n := int64(st.n[q])
	r := st.rec(sp, q)
	sc.times[e] = b
	if g.keys != nil {
		sc.parts[e] = q
	}
	// Each window's state, cells and columns are its own: a window is
	// entered, emitted and left in one pass, its plan and state looked up
	// once.
	for _, w := range p.steady.multi {
		wp, ws := &p.wins[w], &pt.wins[w]
		s := ws.slot(ws.n)
		ws.n++
		pr, cs := ws.rec(wp, s)
		sp.writePane(wp, &sp.wins[w], r, n, pr, cs)
		ws.enterRec(wp, k, pr, cs)
		ws.hi = k + 1
		if ws.rebuild {
			ws.resum(wp) // a sum faded beside a larger one (see fadeRatio)
		}
		ws.curS, ws.curE = 0, 0
		p.emitFast(wp, ws, b, dsts, sc.cols, e)
		ws.leave(wp)
		if ws.rebuild {
			ws.resum(wp)
		}
		held = held || ws.held(wp)
	}
	for _, w := range p.steady.single {
		wp, ws := &p.wins[w], &pt.wins[w]
		ws.curS, ws.curE = 0, 0
		if ws.hi < ws.base {
			ws.hi = ws.base
		}
		ws.hi = max(ws.hi, sc.his[w])
		g.emitStepFast(w, ws, q, dsts, sc.cols, e)
		ws.base = max(ws.base, sc.los[w])
		held = held || ws.held(wp)
	}
	copy(r, sp.empty) // st.empty, the record and its rows known
	st.n[q] = 0
	return true, held
}
