package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"time"
)

// Symbols turns strings into dense ids and back; the live series' intern
// table is one. Id 0 is a missing string.
type Symbols interface {
	ID(s string) uint32
	Str(id uint32) string
}

// Plan is a validated, compiled rolling specification: which source
// columns each window reads, which states it keeps, and the output schema.
// It is shared by every [Engine] of a node (one per partition), and holds
// the pool their deques draw blocks from. A Plan is not safe for
// concurrent use.
type Plan struct {
	src    *schema.Schema
	out    *schema.Schema
	key    *Key
	opts   rolling.Options
	trig   clock.Spec    // opts.Trigger, read once
	cols   []int         // source column of slot k+1
	kinds  []schema.Kind // kind of slot k+1
	wins   []winPlan
	outs   []outPlan
	emits  []winEmit // the outputs of each window, grouped by the state they read
	syms   Symbols
	hasArr bool
	// notNum: a column the plan reads is not a number column (Bind reads
	// number columns in place and encodes the others).
	notNum bool
	// laid: every window has a layout the engine folds in its own loop
	// (see winLayout).
	laid  bool
	pool  blockPool
	arena arena
	dsts  []*table.Col  // scratch of Emit
	first int           // output column of the first aggregation
	al    *aligned.Plan // the aligned engine's plan, when Options.Aligned
}

type stateKind uint8

const (
	stMoments stateKind = iota // count, sum, avg, stdev of a number column
	stCount                    // count without sums
	stRows                     // count of a required column: the window's rows
	stMin
	stMax
	stFirst   // scanned from the deque at emission
	stLast    // scanned from the deque at emission
	stSamples // scanned from the deque at emission
	stGeneric // any other reducer, through reducers.Window
)

type winPlan struct {
	name       string
	span       int64 // nanoseconds; 0 for a count window
	count      int
	minSamples int
	moments    []int  // slot of each Moments state
	squares    []bool // the Moments state feeds a stdev
	counts     []int  // slot of each plain count
	countNum   []bool // the count's column is a number column (NaN = missing)
	mins, maxs []int  // slot of each extreme
	generic    []genPlan
	aggs       []aligned.Agg // the outputs, for an aligned plan (slot 0: the row count)
	rest       bool          // the window keeps states besides its sums: counts, extremes or generic
	extSlots   []extSlot     // the slots with a min or a max, each once
	fills      []fillStep    // a rebuild's passes over the slots with sums or extremes
	layout     winLayout     // the fold's own path for the window's states, if any
	// restOff is the offset from the window's winState of its counts,
	// then its generic states, the same in every record of the plan
	// (see arena); set with the plan's record layout, 0 when it keeps
	// neither.
	restOff int32
	// extOff is the offset from the window's winState of its first
	// extreme (its minimums, then its maximums), the same in every
	// record of the plan; set with the record layout, 0 when it keeps
	// none.
	extOff int32
	// momOff is the offset from the window's winState of its first
	// Moments, the same in every record of the plan; set with the record
	// layout. A window without Moments has that of its record's start.
	momOff int32
}

// winLayout names the window layouts whose common fold the engine does
// in its own loop, without the general path's calls (see Engine.fold):
// time windows that keep sums and extremes of number columns only.
type winLayout uint8

const (
	layoutGeneral winLayout = iota
	// layoutSums: Moments alone (count, sum, avg, stdev), which a short
	// slide shifts in one pass each.
	layoutSums
	// layoutFill: one Moments with the minimum and the maximum of its
	// column, which a window of a few rows refills at every fold in one
	// pass.
	layoutFill
)

// layoutOf returns the layout of a window plan whose fills are set.
func layoutOf(wp *winPlan) winLayout {
	if wp.count > 0 || len(wp.counts) > 0 || len(wp.generic) > 0 {
		return layoutGeneral
	}
	switch {
	case !wp.rest && len(wp.moments) > 0:
		return layoutSums
	case len(wp.moments) == 1 && len(wp.mins) == 1 && len(wp.maxs) == 1 && len(wp.fills) == 1:
		// One pass reads all three: the min and max are on the sums'
		// column.
		return layoutFill
	}
	return layoutGeneral
}

// fillStep is one pass of a rebuild over a slot: its Moments state (index
// in moments, or −1) and its min and max (indices in mins and maxs, or
// −1). Each such slot has one step, so a rebuild sets each state once.
type fillStep struct{ slot, mom, min, max int }

// extSlot is a slot with a min (index in mins) or a max (in maxs), or
// both; −1 for none.
type extSlot struct{ slot, min, max int }

// maxOn returns the index of the max state on slot s, or -1.
func (wp *winPlan) maxOn(s int) int {
	for j, x := range wp.maxs {
		if x == s {
			return j
		}
	}
	return -1
}

// minOn returns the index of the min state on slot s, or -1.
func (wp *winPlan) minOn(s int) int {
	for j, x := range wp.mins {
		if x == s {
			return j
		}
	}
	return -1
}

// fillSteps returns a rebuild's passes: one per Moments state, with the
// extremes of its slot, then one per other slot with extremes.
func fillSteps(wp *winPlan) []fillStep {
	var steps []fillStep
	for i, s := range wp.moments {
		steps = append(steps, fillStep{slot: s, mom: i, min: wp.minOn(s), max: wp.maxOn(s)})
	}
	for _, x := range wp.extSlots {
		if !slices.Contains(wp.moments, x.slot) {
			steps = append(steps, fillStep{slot: x.slot, mom: -1, min: x.min, max: x.max})
		}
	}
	return steps
}

type genPlan struct {
	slot int
	red  reduce.Reducer
	kind schema.Kind
}

type outPlan struct {
	win   int
	state stateKind
	idx   int // index of the state in its window's list (moments, counts, …)
	slot  int
	op    reducers.Op
}

// maxAggs is the most aggregations a window may have: a window's states
// of each kind are counted in 16 bits (see winState).
const maxAggs = 1<<16 - 1

// NewPlan validates windows and options against the source schema and
// compiles them. key, when not nil, is the partition column that output
// rows carry after the time; syms interns and resolves strings (it may be
// nil when no string column is read).
//
// It returns a [*SpecError] for: no window; a window with neither or both
// of Span and Count, or a negative one; a count window among several; a
// window without aggregations or with more than 65,535; an unknown or
// time source column; a reducer that is invalid or does not fit its
// column's kind; an empty, duplicate, "time" or partition-column output
// name; a bad trigger, warm-up or history.
func NewPlan(src *schema.Schema, windows []rolling.Window, opts rolling.Options, key *Key, syms Symbols) (*Plan, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	if len(windows) == 0 {
		return nil, &rolling.SpecError{Reason: "at least one window is needed"}
	}
	p := &Plan{src: src, key: key, opts: opts, syms: syms, trig: clock.SpecOf(opts.Trigger)}
	outCols := []schema.Column{{Name: src.Column(0).Name, Kind: schema.Time}}
	taken := map[string]string{src.Column(0).Name: "the time column"}
	if key != nil {
		outCols = append(outCols, schema.Column{Name: key.Name, Kind: key.Kind, Optional: true})
		taken[key.Name] = "the partition column"
	}
	p.first = len(outCols)
	slotOf := map[int]int{}
	names := map[string]bool{}
	for wi, w := range windows {
		name := spanName(w)
		switch {
		case w.Span < 0:
			return nil, &rolling.SpecError{Window: name, Reason: fmt.Sprintf("span %v must be positive", w.Span)}
		case w.Count < 0:
			return nil, &rolling.SpecError{Window: name, Reason: fmt.Sprintf("count %d must be positive", w.Count)}
		case w.Span > sequence.MaxDuration:
			return nil, &rolling.SpecError{Window: name, Reason: fmt.Sprintf("span %v is longer than %v", w.Span, sequence.MaxDuration)}
		case w.Span == 0 && w.Count == 0:
			return nil, &rolling.SpecError{Window: name, Reason: "a window needs a positive Span or Count"}
		case w.Span > 0 && w.Count > 0:
			return nil, &rolling.SpecError{Window: name, Reason: "a window has a Span or a Count, not both"}
		case w.Count > 0 && len(windows) > 1:
			return nil, &rolling.SpecError{Window: name, Reason: "count windows are allowed only on their own, not among several windows"}
		case w.MinSamples != nil && *w.MinSamples < 0:
			return nil, &rolling.SpecError{Window: name, Reason: fmt.Sprintf("MinSamples %d must not be negative", *w.MinSamples)}
		case len(w.Aggs) == 0:
			return nil, &rolling.SpecError{Window: name, Reason: "a window needs at least one aggregation"}
		case len(w.Aggs) > maxAggs:
			return nil, &rolling.SpecError{Window: name, Reason: fmt.Sprintf("%d aggregations: a window has at most %d", len(w.Aggs), maxAggs)}
		case names[name]:
			return nil, &rolling.SpecError{Window: name, Reason: "duplicate window name"}
		}
		names[name] = true
		wp := winPlan{name: name, span: int64(w.Span), count: w.Count, minSamples: opts.MinSamples}
		if w.MinSamples != nil {
			wp.minSamples = *w.MinSamples
		}
		if w.Count > 0 && wp.minSamples > w.Count {
			// A count window never holds more than Count rows, so it would
			// stay in warm-up for ever.
			return nil, &rolling.SpecError{Window: name, Reason: fmt.Sprintf("MinSamples %d is more than the %d rows the count window holds", wp.minSamples, w.Count)}
		}
		// A number column needs Moments only for sum, avg or stdev; a count
		// alone is a plain counter.
		needsMoments := map[string]bool{}
		for _, a := range w.Aggs {
			switch reducers.SpecOf(a.Using).Op {
			case reducers.OpSum, reducers.OpAvg, reducers.OpStdev:
				needsMoments[a.From] = true
			}
		}
		momentOf := map[int]int{}
		countOf := map[int]int{}
		minOf := map[int]int{}
		maxOf := map[int]int{}
		for _, a := range w.Aggs {
			if a.Out == "" {
				return nil, &rolling.SpecError{Window: name, Reason: "an output needs a name"}
			}
			if what, dup := taken[a.Out]; dup {
				return nil, &rolling.SpecError{Window: name, Output: a.Out, Reason: "duplicate output column: it is already " + what}
			}
			taken[a.Out] = fmt.Sprintf("an output of window %q", name)
			ci, ok := src.Index(a.From)
			if !ok {
				return nil, &rolling.SpecError{Window: name, Output: a.Out, Reason: fmt.Sprintf("unknown source column %q (columns: %v)", a.From, src.Names()[1:])}
			}
			if ci == 0 {
				return nil, &rolling.SpecError{Window: name, Output: a.Out, Reason: fmt.Sprintf("source %q is the time column, not a value column", a.From)}
			}
			kind := src.Column(ci).Kind
			if err := reducers.ErrOf(a.Using); err != nil {
				return nil, &rolling.SpecError{Window: name, Output: a.Out, Reason: "bad reducer", Err: err}
			}
			if err := a.Using.Check(kind); err != nil {
				return nil, &rolling.SpecError{Window: name, Output: a.Out, Reason: fmt.Sprintf("reducer %s does not fit column %q", a.Using, a.From), Err: err}
			}
			op := reducers.SpecOf(a.Using).Op
			if op == reducers.OpCount && !src.Column(ci).Optional {
				// A required column has a value in every row: its count
				// is the number of rows in the window, and the deque need
				// not hold the column for it.
				p.outs = append(p.outs, outPlan{win: wi, state: stRows, op: op})
				wp.aggs = append(wp.aggs, aligned.Agg{Slot: 0, Using: a.Using})
				outCols = append(outCols, schema.Column{Name: a.Out, Kind: schema.Number, Optional: true})
				continue
			}
			slot, ok := slotOf[ci]
			if !ok {
				p.cols = append(p.cols, ci)
				p.kinds = append(p.kinds, kind)
				slot = len(p.cols)
				slotOf[ci] = slot
				p.hasArr = p.hasArr || kind == schema.Array
				p.notNum = p.notNum || kind != schema.Number
			}
			o := outPlan{win: wi, slot: slot, op: op}
			wp.aggs = append(wp.aggs, aligned.Agg{Slot: slot, Using: a.Using})
			intern := func(m map[int]int, list *[]int) int {
				if i, ok := m[slot]; ok {
					return i
				}
				*list = append(*list, slot)
				m[slot] = len(*list) - 1
				return len(*list) - 1
			}
			switch {
			case kind == schema.Number && needsMoments[a.From] && (op == reducers.OpCount || op == reducers.OpSum || op == reducers.OpAvg || op == reducers.OpStdev):
				o.state, o.idx = stMoments, intern(momentOf, &wp.moments)
				for len(wp.squares) < len(wp.moments) {
					wp.squares = append(wp.squares, false)
				}
				wp.squares[o.idx] = wp.squares[o.idx] || op == reducers.OpStdev
			case op == reducers.OpCount:
				o.state, o.idx = stCount, intern(countOf, &wp.counts)
				if len(wp.countNum) < len(wp.counts) {
					wp.countNum = append(wp.countNum, kind == schema.Number)
				}
			case op == reducers.OpMin:
				o.state, o.idx = stMin, intern(minOf, &wp.mins)
			case op == reducers.OpMax:
				o.state, o.idx = stMax, intern(maxOf, &wp.maxs)
			case op == reducers.OpFirst && kind != schema.Array:
				o.state = stFirst
			case op == reducers.OpLast && kind != schema.Array:
				o.state = stLast
			case op == reducers.OpSamples && kind != schema.Array:
				o.state = stSamples
			default:
				o.state, o.idx = stGeneric, len(wp.generic)
				wp.generic = append(wp.generic, genPlan{slot: slot, red: a.Using, kind: kind})
			}
			p.outs = append(p.outs, o)
			outCols = append(outCols, schema.Column{Name: a.Out, Kind: a.Using.OutputKind(kind), Optional: true})
		}
		wp.rest = len(wp.counts)+len(wp.mins)+len(wp.maxs)+len(wp.generic) > 0
		for i, s := range wp.mins {
			wp.extSlots = append(wp.extSlots, extSlot{slot: s, min: i, max: wp.maxOn(s)})
		}
		for i, s := range wp.maxs {
			if wp.minOn(s) < 0 {
				wp.extSlots = append(wp.extSlots, extSlot{slot: s, min: -1, max: i})
			}
		}
		wp.fills = fillSteps(&wp)
		wp.layout = layoutOf(&wp)
		p.wins = append(p.wins, wp)
	}
	out, err := schema.New(outCols...)
	if err != nil {
		return nil, &rolling.SpecError{Reason: "bad output schema", Err: err}
	}
	p.out = out
	p.emits = p.emitPlan()
	p.laid = true
	for _, wp := range p.wins {
		p.laid = p.laid && wp.layout != layoutGeneral
	}
	p.pool.setStride(1 + len(p.cols))
	for _, wp := range p.wins {
		if wp.count > 0 {
			p.pool.span, p.pool.count = 0, wp.count
			break
		}
		p.pool.span = max(p.pool.span, wp.span)
	}
	for _, k := range p.kinds {
		if k == schema.String && syms == nil {
			return nil, &rolling.SpecError{Reason: "string columns need a symbol table"}
		}
	}
	if opts.Aligned {
		if err := p.buildAligned(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// maxPanes bounds the panes an aligned window may need: spans whose
// greatest common divisor with the step is tiny would need billions.
const maxPanes = 1 << 20

// buildAligned compiles the aligned engine's plan.
func (p *Plan) buildAligned() error {
	seq := p.trig.Seq
	step := int64(seq.Step())
	spec := aligned.Spec{Step: step, Anchor: seq.Anchor(), Kinds: p.kinds}
	for _, c := range p.cols {
		spec.Required = append(spec.Required, !p.src.Column(c).Optional)
	}
	if p.syms != nil {
		spec.Syms = p.syms
	}
	for _, wp := range p.wins {
		if wp.count > 0 {
			return &rolling.SpecError{Window: wp.name, Option: "Aligned", Reason: "Aligned needs time windows, not a count window"}
		}
		if g := gcd(wp.span, step); wp.span/g > maxPanes {
			// A pane is at most a step wide: once the span is a multiple
			// of the step, only a shorter span or a longer step helps.
			advice := "make the span a multiple of a larger divisor of the step, or shorten it"
			if g == step {
				advice = "the span is a multiple of the step already: shorten the span or lengthen the step"
			}
			return &rolling.SpecError{Window: wp.name, Option: "Aligned", Reason: fmt.Sprintf("Aligned: span %v and step %v would need %d panes of %v (at most %d); %s", formatSpan(time.Duration(wp.span)), seq.Step(), wp.span/g, time.Duration(g), maxPanes, advice)}
		}
		spec.Windows = append(spec.Windows, aligned.Window{Span: wp.span, MinSamples: wp.minSamples, Aggs: wp.aggs})
	}
	al, err := aligned.NewPlan(spec)
	if err != nil {
		return p.panesErr(err, "Aligned")
	}
	p.al = al
	return nil
}

// panesErr is the SpecError of err from the aligned plan, reason first,
// naming the window when err is an *aligned.PanesError.
func (p *Plan) panesErr(err error, reason string) error {
	var pe *aligned.PanesError
	if errors.As(err, &pe) && pe.Win < len(p.wins) {
		return &rolling.SpecError{Window: p.wins[pe.Win].name, Option: "Aligned", Reason: reason, Err: err}
	}
	return &rolling.SpecError{Option: "Aligned", Reason: reason, Err: err}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// CheckLateness sizes an aligned plan's pane rings for rows up to d late
// (the series' grace) and returns a [*SpecError] when a window would need
// too many panes; it does nothing for a plan that is not aligned.
func (p *Plan) CheckLateness(d time.Duration) error {
	if p.al == nil {
		return nil
	}
	if err := p.al.SetLateness(int64(d)); err != nil {
		return p.panesErr(err, "Aligned: the span, the step and the series' grace need too many panes")
	}
	return nil
}

// WindowNames returns the windows' names in declaration order.
func (p *Plan) WindowNames() []string {
	var names []string
	for _, wp := range p.wins {
		names = append(names, wp.name)
	}
	return names
}

// Aligned reports whether the plan's windows are aligned, and describes
// how each window is kept: "panes of 200ms", with "+ raw rows" when some
// output needs every value, or, for a group that reads its samples from
// the series' rows (held, see [Group.SetHeld]), "+ samples read from the
// series' rows".
func (p *Plan) Aligned(held bool) (bool, []string) {
	if p.al == nil {
		return false, nil
	}
	var d []string
	for i, wp := range p.wins {
		width, raw := p.al.Describe(i)
		s := wp.name + ": panes of " + formatSpan(time.Duration(width))
		switch {
		case raw && held:
			s += " + samples read from the series' rows"
		case raw:
			s += " + raw rows"
		}
		d = append(d, s)
	}
	return true, d
}

// HeldColumn reports whether an aligned plan's groups can read their
// samples from the series' rows ([Group.SetHeld]): which source column
// they are of, and the clock's step, which the series must keep rows for.
func (p *Plan) HeldColumn() (col int, step int64, ok bool) {
	if p.al == nil {
		return 0, 0, false
	}
	slot, ok := p.al.HeldSlot()
	if !ok {
		return 0, 0, false
	}
	return p.cols[slot-1], p.al.Step(), true
}

// Schema returns the schema of the emitted rows: the time, the partition
// column if any, then the outputs in declaration order.
func (p *Plan) Schema() *schema.Schema { return p.out }

// Options returns the options the plan was built with.
func (p *Plan) Options() rolling.Options { return p.opts }

// FirstOutput returns the index of the first aggregation column in the
// output schema (1, or 2 when rows carry a partition column).
func (p *Plan) FirstOutput() int { return p.first }

// Columns returns the source columns the plan reads, in slot order.
func (p *Plan) Columns() []int { return p.cols }
