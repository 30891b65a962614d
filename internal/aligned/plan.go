// Package aligned is the engine of aligned rolling windows: windows that
// end on the boundaries of a clock's sequence, half-open ([b − span, b)),
// closed when no row before the boundary can still be accepted, and kept
// as panes of width gcd(span, step) on the clock's grid.
//
// A window keeps, per partition, one partial state per pane for its
// mergeable outputs (count, sum, avg, stdev, min, max, first, last,
// difference) and never stores their rows; only the outputs that need
// every value (samples, median, percentiles, keep, unique, top) keep raw
// rows, for their own window's span. The engine is pure: rows and a
// watermark in, rows out, nothing else.
package aligned

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// Symbols resolves intern ids to strings (id 0 is a missing string).
type Symbols interface {
	Str(id uint32) string
}

// Spec describes an aligned node: its clock, the kinds of the encoded
// slots it reads (slot k+1 is Kinds[k]; slot 0 is the time) and its
// windows. Outputs are numbered in declaration order across windows.
type Spec struct {
	Step, Anchor int64
	Kinds        []schema.Kind
	Required     []bool // slot k+1's column is required: every row has a finite value
	Windows      []Window
	Syms         Symbols
}

// Window is one time window and its outputs.
type Window struct {
	Span       int64
	MinSamples int
	Aggs       []Agg
}

// Agg is one output: a reducer over slot Slot (1-based); slot 0 is the
// count of a column every row has, the window's row count.
type Agg struct {
	Slot  int
	Using reduce.Reducer
}

// Plan is a compiled Spec, shared by the partitions of a node.
type Plan struct {
	step, anchor int64
	kinds        []schema.Kind
	syms         Symbols
	wins         []winPlan
	nOut         int
	maxSpan      int64
	st           stepPlan // the open step's record, when every window's panes are a step wide
	// cellOuts is the output of each cell column: a number output that a
	// closing writes into its scratch (see closeScratch), not into the
	// output column, which takes the cells at once after the closing.
	cellOuts []int
	steady   steadyPlan // the windows a steady closing takes (see closeSteady)
	panes    []int      // the windows of more than one pane
}

// outKind is how one output is computed.
type outKind uint8

const (
	oRows  outKind = iota // count of a required column: the window's rows
	oCount                // count field
	oN                    // count of a Moments
	oSum
	oAvg
	oStdev
	oMin
	oMax
	oDiff
	oFirst
	oLast
	oRaw // a reducers.Window over the raw rows
)

type outPlan struct {
	kind outKind
	idx  int // moments, count, extreme, first/last or raw index
	out  int // output index across the node
	cell int // cell column (see Plan.cellOuts); −1: the output appends to its column
}

// winPlan is one window's layout. A pane record is nCounts 32-bit counts
// in one ring (the row count first when it is kept, then each Moments' n,
// then each count; 31 bits each, the top bit of the first one set once
// the pane has a row) and stride 64-bit words in another: per Moments s,
// c (and q, qc when squared), then per extreme slot the pane's min or
// max, then per first/last slot its first time, first value, last time
// and last value. The counts apart keep the words whole: a pane of the
// seed's 1m window is 48 + 4 bytes, not 56.
type winPlan struct {
	span, width int64
	spanPanes   int64 // span / width (see paneOf)
	stepPanes   int64 // step / width
	single      bool  // the window is one pane (span = width): its outputs read that pane, not running sums and deques
	minSamples  int
	stride      int
	nCounts     int  // rows (when kept) + moments + counts
	hasRows     bool // the row count is kept: a row-count output or a warm-up needs it
	c0          int  // 1 when the row count is kept (packed index 0), else 0
	cnt0        int  // packed index of the first count
	moments     []momPlan
	counts      []countPlan
	exts        []extPlan
	fls         []int // slot of each first/last state
	raws        []rawPlan
	rawSlots    []int // slots the raw rows keep, in order
	rawArr      bool  // a raw slot is an array column
	rawTimes    bool  // the raw rows keep their times: a raw first or last orders by them
	outs        []outPlan
	offMom      int // word offset of the first Moments' sums
	offExt      int
	offFL       int
	maxRing     int64 // the most panes the ring may need (span, step and lateness)
	fast        fastOuts
}

type momPlan struct {
	slot    int
	squares bool
	off     int  // word offset of s (c, q, qc follow)
	nIdx    int  // packed index of its n: the row count's (0) for a required column
	isRows  bool // its n is the row count
}

type countPlan struct {
	slot   int
	number bool
}

type extPlan struct {
	slot int
	max  bool
}

type rawPlan struct {
	required bool // the slot's column is required: every row has a finite value
	col      int  // index in rawSlots
	red      reducers.Spec
	kind     schema.Kind
	out      int
	inRow    int // position of the slot in a raw row (col)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// NewPlan compiles a Spec. The caller has checked every reducer against
// its column; NewPlan returns an error only for a spec it cannot lay out.
func NewPlan(s Spec) (*Plan, error) {
	if s.Step <= 0 {
		return nil, fmt.Errorf("aligned: step %d must be positive", s.Step)
	}
	// The boundaries are anchor + k·step for every k: the plan keeps the
	// one in [0, step), so that a time minus the anchor stays within an
	// int64 however far from the epoch the anchor given is.
	anchor := s.Anchor % s.Step
	if anchor < 0 {
		anchor += s.Step
	}
	p := &Plan{step: s.Step, anchor: anchor, kinds: s.Kinds, syms: s.Syms}
	out := 0
	for _, w := range s.Windows {
		if w.Span <= 0 {
			return nil, fmt.Errorf("aligned: span %d must be positive", w.Span)
		}
		wp := winPlan{span: w.Span, width: gcd(w.Span, s.Step), minSamples: w.MinSamples}
		wp.spanPanes, wp.stepPanes = wp.span/wp.width, s.Step/wp.width
		wp.single = wp.width == wp.span
		p.maxSpan = max(p.maxSpan, w.Span)
		needsMoments := map[int]bool{}
		for _, a := range w.Aggs {
			switch reducers.SpecOf(a.Using).Op {
			case reducers.OpSum, reducers.OpAvg, reducers.OpStdev:
				needsMoments[a.Slot] = true
			}
		}
		momOf, cntOf, extOf, flOf, rawOf := map[int]int{}, map[int]int{}, map[[2]int]int{}, map[int]int{}, map[int]int{}
		mom := func(slot int, sq bool) int {
			i, ok := momOf[slot]
			if !ok {
				i = len(wp.moments)
				momOf[slot] = i
				wp.moments = append(wp.moments, momPlan{slot: slot})
			}
			wp.moments[i].squares = wp.moments[i].squares || sq
			return i
		}
		ext := func(slot int, isMax bool) int {
			k := [2]int{slot, 0}
			if isMax {
				k[1] = 1
			}
			i, ok := extOf[k]
			if !ok {
				i = len(wp.exts)
				extOf[k] = i
				wp.exts = append(wp.exts, extPlan{slot: slot, max: isMax})
			}
			return i
		}
		for _, a := range w.Aggs {
			o := outPlan{out: out}
			out++
			if a.Slot == 0 {
				wp.outs = append(wp.outs, o) // oRows
				continue
			}
			kind := s.Kinds[a.Slot-1]
			op := reducers.SpecOf(a.Using).Op
			switch {
			case kind == schema.Number && needsMoments[a.Slot] && (op == reducers.OpCount || op == reducers.OpSum || op == reducers.OpAvg || op == reducers.OpStdev):
				o.idx = mom(a.Slot, op == reducers.OpStdev)
				o.kind = map[reducers.Op]outKind{reducers.OpCount: oN, reducers.OpSum: oSum, reducers.OpAvg: oAvg, reducers.OpStdev: oStdev}[op]
			case op == reducers.OpCount:
				i, ok := cntOf[a.Slot]
				if !ok {
					i = len(wp.counts)
					cntOf[a.Slot] = i
					wp.counts = append(wp.counts, countPlan{slot: a.Slot, number: kind == schema.Number})
				}
				o.kind, o.idx = oCount, i
			case op == reducers.OpMin && kind == schema.Number:
				o.kind, o.idx = oMin, ext(a.Slot, false)
			case op == reducers.OpMax && kind == schema.Number:
				o.kind, o.idx = oMax, ext(a.Slot, true)
			case op == reducers.OpDifference && kind == schema.Number:
				// The min's index; the max's is found beside it.
				o.kind, o.idx = oDiff, ext(a.Slot, false)
				ext(a.Slot, true)
			case (op == reducers.OpFirst || op == reducers.OpLast) && kind != schema.Array:
				i, ok := flOf[a.Slot]
				if !ok {
					i = len(wp.fls)
					flOf[a.Slot] = i
					wp.fls = append(wp.fls, a.Slot)
				}
				o.kind, o.idx = oFirst, i
				if op == reducers.OpLast {
					o.kind = oLast
				}
			default:
				c, ok := rawOf[a.Slot]
				if !ok {
					c = len(wp.rawSlots)
					rawOf[a.Slot] = c
					wp.rawSlots = append(wp.rawSlots, a.Slot)
					wp.rawArr = wp.rawArr || kind == schema.Array
				}
				o.kind, o.idx = oRaw, len(wp.raws)
				wp.raws = append(wp.raws, rawPlan{required: a.Slot-1 < len(s.Required) && s.Required[a.Slot-1], col: c, red: reducers.SpecOf(a.Using), kind: kind, out: o.out, inRow: c})
				wp.rawTimes = wp.rawTimes || op == reducers.OpFirst || op == reducers.OpLast
			}
			wp.outs = append(wp.outs, o)
		}
		req := func(slot int) bool { return slot-1 < len(s.Required) && s.Required[slot-1] }
		for _, o := range wp.outs {
			wp.hasRows = wp.hasRows || o.kind == oRows
		}
		for _, m := range wp.moments {
			wp.hasRows = wp.hasRows || req(m.slot)
		}
		wp.hasRows = wp.hasRows || wp.minSamples > 0 || len(wp.moments)+len(wp.counts) == 0
		if wp.hasRows {
			wp.c0 = 1
		}
		// A required column's values are all finite: its n is the row count.
		nc := wp.c0
		for i := range wp.moments {
			if req(wp.moments[i].slot) {
				wp.moments[i].nIdx, wp.moments[i].isRows = 0, true
				continue
			}
			wp.moments[i].nIdx = nc
			nc++
		}
		wp.cnt0 = nc
		wp.nCounts = nc + len(wp.counts)
		wp.offMom = 0
		off := wp.offMom
		for i := range wp.moments {
			wp.moments[i].off = off
			off += 2
			if wp.moments[i].squares {
				off += 2
			}
		}
		wp.offExt = off
		off += len(wp.exts)
		wp.offFL = off
		off += 4 * len(wp.fls)
		wp.stride = off
		p.wins = append(p.wins, wp)
	}
	p.nOut = out
	for i := range p.wins {
		wp := &p.wins[i]
		for j := range wp.outs {
			o := &wp.outs[j]
			o.cell = -1
			if o.kind < oFirst || (o.kind == oFirst || o.kind == oLast) && p.kinds[wp.fls[o.idx]-1] == schema.Number {
				o.cell = len(p.cellOuts)
				p.cellOuts = append(p.cellOuts, o.out)
			}
		}
		wp.fast = newFastOuts(wp)
		if !wp.single {
			p.panes = append(p.panes, i)
		}
	}
	p.st = newStepPlan(p)
	if p.st.ok {
		for i := range p.wins {
			p.wins[i].fast.setStep(&p.wins[i], &p.st, &p.st.wins[i])
		}
	}
	p.steady = newSteadyPlan(p)
	if err := p.SetLateness(0); err != nil {
		return nil, err
	}
	return p, nil
}

// MaxPanes bounds the panes a window's ring may hold: its span, a step
// and the lateness, in panes.
const MaxPanes = 1 << 22

// PanesError is SetLateness' error: window Win's ring would need N panes
// of Width for its span, a step and the lateness.
type PanesError struct {
	Win                    int
	Span, Step, Lag, Width time.Duration
	N                      uint64
}

func (e *PanesError) Error() string {
	return fmt.Sprintf("aligned: a span of %v, a step of %v and a lateness of %v need %d panes of %v (at most %d)",
		e.Span, e.Step, e.Lag, e.N, e.Width, MaxPanes)
}

// SetLateness sizes the windows' rings for rows up to lag late and
// reports, as a *PanesError, whether any ring would need more than
// MaxPanes panes.
func (p *Plan) SetLateness(lag int64) error {
	if lag < 0 {
		return fmt.Errorf("aligned: lateness %d ns must not be negative", lag)
	}
	for i := range p.wins {
		wp := &p.wins[i]
		// Each term is at most 2^62 (a span, a step, a lateness of one
		// nanosecond panes): their sum is exact in a uint64, where a step
		// plus a lateness can leave the int64 range.
		n := uint64(wp.spanPanes) + uint64(wp.stepPanes) + uint64(lag/wp.width) + 2
		if n > MaxPanes {
			w := time.Duration(wp.width)
			return &PanesError{Win: i, Span: time.Duration(wp.spanPanes) * w, Step: time.Duration(wp.stepPanes) * w, Lag: time.Duration(lag), Width: w, N: n}
		}
		wp.maxRing = int64(n)
	}
	return nil
}

// maxOf returns the index of the max extreme on the same slot as the min
// extreme i.
func (wp *winPlan) maxOf(i int) int {
	for j, x := range wp.exts {
		if x.max && x.slot == wp.exts[i].slot {
			return j
		}
	}
	return -1
}

// Describe says how each window is kept: "panes of 200ms" and, when some
// outputs need every value, "+ raw rows".
func (p *Plan) Describe(i int) (width int64, raw bool) {
	return p.wins[i].width, len(p.wins[i].raws) > 0
}
