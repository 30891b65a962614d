package live

import (
	"fmt"
	"math"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// passOp passes every row on (a window).
type passOp struct{}

func (passOp) row(in *frame, i int, _ int32, out *frame) bool {
	copyRow(out, in, i)
	return true
}

func (passOp) forget(int32) {}

// filterOp passes the rows its function keeps.
type filterOp struct {
	keep    func(schema.Row) bool
	scratch schema.Row
}

func (o *filterOp) row(in *frame, i int, _ int32, out *frame) bool {
	o.scratch = in.tab.AppendRow(o.scratch[:0], i)
	if !o.keep(o.scratch) {
		return false
	}
	copyRow(out, in, i)
	return true
}

func (o *filterOp) forget(int32) {}

// mapOp computes each row with its function.
type mapOp struct {
	fn     func(in, out schema.Row) bool
	inRow  schema.Row
	outRow schema.Row
}

func (o *mapOp) row(in *frame, i int, _ int32, out *frame) bool {
	o.inRow = in.tab.AppendRow(o.inRow[:0], i)
	t := in.tab.TimeNanos(i)
	clear(o.outRow)
	o.outRow[0] = schema.NanosValue(t)
	if !o.fn(o.inRow, o.outRow) {
		return false
	}
	out.tab.Col(0).AppendTime(t)
	for j := 1; j < len(o.outRow); j++ {
		out.tab.Col(j).AppendValue(o.outRow[j])
	}
	return true
}

func (o *mapOp) forget(int32) {}

// selectOp keeps some columns.
type selectOp struct {
	idx []int // source column of output column k+1
}

func (o *selectOp) row(in *frame, i int, _ int32, out *frame) bool {
	out.tab.Col(0).AppendTime(in.tab.TimeNanos(i))
	for k, j := range o.idx {
		appendCell(out.tab.Col(k+1), in.tab.Col(j), i)
		copySym(out, k+1, in, j, i)
	}
	return true
}

func (o *selectOp) forget(int32) {}

// appendFinite appends f, or a missing cell when f is NaN or infinite.
func appendFinite(dst *schema.Col, f float64) {
	if f-f == 0 {
		dst.AppendNum(f)
	} else {
		dst.AppendMissing()
	}
}

// targetColumns resolves the listed columns of a view that rewrites
// number columns: each must be a value column of kind number, listed once.
// It returns the columns and the output schema, where they become
// optional.
func targetColumns(op string, src *schema.Schema, columns []string, numbersOnly bool) ([]int, *schema.Schema, error) {
	if len(columns) == 0 {
		return nil, nil, configErr(op, "columns", op+" needs at least one column", nil)
	}
	var idx []int
	seen := map[int]bool{}
	for _, c := range columns {
		j, ok := src.Index(c)
		switch {
		case !ok:
			return nil, nil, configErr(op, c, fmt.Sprintf("unknown column (columns: %v)", src.Names()[1:]), nil)
		case j == 0:
			return nil, nil, configErr(op, c, "is the time column, not a value column", nil)
		case numbersOnly && src.Column(j).Kind != schema.Number:
			return nil, nil, configErr(op, c, fmt.Sprintf("is a %s column; %s needs a number column", src.Column(j).Kind, op), nil)
		case seen[j]:
			return nil, nil, configErr(op, c, "listed twice", nil)
		}
		seen[j] = true
		idx = append(idx, j)
	}
	cols := src.Columns()
	for _, j := range idx {
		cols[j].Optional = true
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return nil, nil, configErr(op, "columns", "bad output schema", err)
	}
	return idx, sch, nil
}

// changeKind is diff, rate or pctChange.
type changeKind uint8

const (
	changeDiff changeKind = iota
	changeRate
	changePct
)

var changeNames = [...]string{changeDiff: "diff", changeRate: "rate", changePct: "pctChange"}

// changeOp computes, per partition, the change of each target column from
// the previous row to this one.
type changeOp struct {
	kind    changeKind
	targets []int
	target  []bool    // per schema column
	has     []bool    // per partition: a previous row exists
	prevT   []int64   // per partition
	prev    []float64 // per partition × target; NaN for missing
}

func (o *changeOp) row(in *frame, i int, p int32, out *frame) bool {
	nt := len(o.targets)
	for int(p) >= len(o.has) {
		o.has = append(o.has, false)
		o.prevT = append(o.prevT, 0)
		for range nt {
			o.prev = append(o.prev, math.NaN())
		}
	}
	t := in.tab.TimeNanos(i)
	out.tab.Col(0).AppendTime(t)
	prev := o.prev[int(p)*nt : int(p)*nt+nt]
	k := 0
	for j := 1; j < len(o.target); j++ {
		dst := out.tab.Col(j)
		if !o.target[j] {
			appendCell(dst, in.tab.Col(j), i)
			copySym(out, j, in, j, i)
			continue
		}
		cur, before := in.tab.Col(j).Numbers()[i], prev[k]
		v := math.NaN()
		if o.has[p] && cur == cur && before == before {
			switch o.kind {
			case changeDiff:
				v = cur - before
			case changeRate:
				if dt := t - o.prevT[p]; dt != 0 {
					v = (cur - before) / (float64(dt) / 1e9)
				}
			case changePct:
				if before != 0 {
					v = (cur - before) / before
				}
			}
		}
		appendFinite(dst, v)
		prev[k] = cur
		k++
	}
	o.has[p], o.prevT[p] = true, t
	return true
}

func (o *changeOp) forget(p int32) {
	if int(p) >= len(o.has) {
		return
	}
	o.has[p] = false
	nt := len(o.targets)
	for k := range nt {
		o.prev[int(p)*nt+k] = math.NaN()
	}
}

func (s *Series) addChange(kind changeKind, source NodeID, columns []string) (NodeID, error) {
	op := changeNames[kind]
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	idx, sch, err := targetColumns(op, src.sch, columns, true)
	if err != nil {
		return 0, err
	}
	o := &changeOp{kind: kind, targets: idx, target: make([]bool, sch.Len())}
	for _, j := range idx {
		o.target[j] = true
	}
	return s.addView(op, source, sch, viewComputes, o, true, nil), nil
}

// Diff adds a view that replaces each listed number column by its change
// from the previous row (per partition on a partitioned source): missing
// for the first row, and whenever this or the previous cell is missing
// (so a gap costs two rows: diff of 1, –, 5, 8 is –, –, –, 3). Other
// columns pass through. The previous row is the one that arrived before,
// also for a reorder source's late rows. Listed columns become optional.
// An empty list, an unknown, time or non-number column is an error
// wrapping [ErrConfig].
func (s *Series) Diff(source NodeID, columns ...string) (NodeID, error) {
	return s.addChange(changeDiff, source, columns)
}

// Rate is [Series.Diff] divided by the time between the two rows in
// seconds: the change per second. Two rows at the same time give a
// missing rate.
func (s *Series) Rate(source NodeID, columns ...string) (NodeID, error) {
	return s.addChange(changeRate, source, columns)
}

// PctChange is [Series.Diff] divided by the previous value: (cur − prev)
// / prev, a fraction (0.5 is +50%). A previous value of 0 gives a missing
// change.
func (s *Series) PctChange(source NodeID, columns ...string) (NodeID, error) {
	return s.addChange(changePct, source, columns)
}

// FillStrategy says how [Series.Fill] fills a missing cell.
type FillStrategy uint8

// The fill strategies.
const (
	// FillHold repeats the column's last present value (per partition);
	// a cell stays missing while none is known.
	FillHold FillStrategy = iota + 1
	// FillZero writes 0 (number columns only).
	FillZero
	// FillLinear interpolates between the values around the gap. It needs
	// a value that has not arrived yet, so a live view rejects it when
	// built (docs/differences.md §16); it exists so that a pipeline read from a
	// configuration fails with a clear error.
	FillLinear
)

// String returns "hold", "zero" or "linear", or "fill(n)" for a value
// that is not a strategy.
func (f FillStrategy) String() string {
	switch f {
	case FillHold:
		return "hold"
	case FillZero:
		return "zero"
	case FillLinear:
		return "linear"
	}
	return fmt.Sprintf("fill(%d)", uint8(f))
}

// ParseFillStrategy parses "hold", "zero" or "linear".
func ParseFillStrategy(s string) (FillStrategy, error) {
	switch s {
	case "hold":
		return FillHold, nil
	case "zero":
		return FillZero, nil
	case "linear":
		return FillLinear, nil
	}
	return 0, configErr("fill", "strategy", fmt.Sprintf("unknown strategy %q (hold, zero or linear)", s), nil)
}

// FillOptions configure [Series.Fill].
type FillOptions struct {
	// Strategy is required.
	Strategy FillStrategy
	// Limit, when positive, fills at most this many consecutive missing
	// cells of a column; the later ones of a longer gap stay missing.
	Limit int
	// Columns lists the columns to fill; empty means every value column
	// (every number column for FillZero).
	Columns []string
}

// fillOp fills missing cells of the target columns, per partition.
type fillOp struct {
	strategy FillStrategy
	limit    int
	slot     []int // per schema column: index of the target, or -1
	nt       int
	last     []schema.Value // per partition × target: the last present value (hold)
	lastSym  []uint32       // its intern id, when known
	has      []bool
	run      []int // consecutive missing cells
}

func (o *fillOp) row(in *frame, i int, p int32, out *frame) bool {
	for (int(p)+1)*o.nt > len(o.has) {
		for range o.nt {
			o.last = append(o.last, schema.Value{})
			o.lastSym = append(o.lastSym, 0)
			o.has = append(o.has, false)
			o.run = append(o.run, 0)
		}
	}
	out.tab.Col(0).AppendTime(in.tab.TimeNanos(i))
	base := int(p) * o.nt
	for j := 1; j < len(o.slot); j++ {
		dst, c := out.tab.Col(j), in.tab.Col(j)
		k := o.slot[j]
		if k < 0 {
			appendCell(dst, c, i)
			copySym(out, j, in, j, i)
			continue
		}
		x := base + k
		if !c.IsMissing(i) {
			appendCell(dst, c, i)
			o.run[x] = 0
			if o.strategy == FillHold {
				o.keep(x, c, i, in, j)
				if o.has[x] && o.lastSym[x] != 0 {
					out.syms[j] = append(out.syms[j], o.lastSym[x])
				}
			}
			continue
		}
		o.run[x]++
		switch {
		case o.limit > 0 && o.run[x] > o.limit:
			dst.AppendMissing()
		case o.strategy == FillZero:
			dst.AppendNum(0)
		case o.has[x]:
			dst.AppendValue(o.last[x])
			if o.lastSym[x] != 0 {
				out.syms[j] = append(out.syms[j], o.lastSym[x])
			}
		default:
			dst.AppendMissing()
		}
	}
	return true
}

// keep records cell (i, j) of in as target x's last value.
func (o *fillOp) keep(x int, c *schema.Col, i int, in *frame, j int) {
	v := c.Value(i)
	if a, ok := v.Array(); ok {
		v = schema.ArrayValue(append([]schema.Value(nil), a...)...)
	}
	o.last[x], o.has[x] = v, true
	o.lastSym[x] = 0
	if j < len(in.syms) && len(in.syms[j]) == in.len() {
		o.lastSym[x] = in.syms[j][i]
	}
}

func (o *fillOp) forget(p int32) {
	for k := range o.nt {
		x := int(p)*o.nt + k
		if x >= len(o.has) {
			return
		}
		o.last[x], o.lastSym[x], o.has[x], o.run[x] = schema.Value{}, 0, false, 0
	}
}

// Fill adds a view that fills missing cells of source's rows: with the
// column's last present value (per partition on a partitioned source) or
// with zero, at most opts.Limit in a row when a limit is set. Other cells
// and columns pass through.
//
// FillLinear is rejected (it needs future values; docs/differences.md §16), as are
// a missing strategy, a negative limit, an unknown or time column, and
// FillZero on a column that is not a number column: all errors wrap
// [ErrConfig].
func (s *Series) Fill(source NodeID, opts FillOptions) (NodeID, error) {
	const op = "fill"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	switch opts.Strategy {
	case FillHold, FillZero:
	case FillLinear:
		return 0, configErr(op, "strategy", "linear needs values that have not arrived yet; a live fill supports hold and zero", nil)
	default:
		return 0, configErr(op, "strategy", fmt.Sprintf("unknown strategy %s", opts.Strategy), nil)
	}
	if opts.Limit < 0 {
		return 0, configErr(op, "limit", fmt.Sprintf("%d must not be negative", opts.Limit), nil)
	}
	columns := opts.Columns
	if len(columns) == 0 {
		for j := 1; j < src.sch.Len(); j++ {
			if c := src.sch.Column(j); opts.Strategy == FillHold || c.Kind == schema.Number {
				columns = append(columns, c.Name)
			}
		}
		if len(columns) == 0 {
			return 0, configErr(op, "columns", "the source has no column to fill", nil)
		}
	}
	idx, _, err := targetColumns(op, src.sch, columns, opts.Strategy == FillZero)
	if err != nil {
		return 0, err
	}
	o := &fillOp{strategy: opts.Strategy, limit: opts.Limit, slot: make([]int, src.sch.Len()), nt: len(idx)}
	for j := range o.slot {
		o.slot[j] = -1
	}
	for k, j := range idx {
		o.slot[j] = k
	}
	return s.addView(op, source, src.sch, viewComputes, o, true, nil), nil
}

// Running is one running total of [Series.Cumulative]: the number column
// it replaces and the reducer, one of [reduce.Sum], [reduce.Count],
// [reduce.Min] and [reduce.Max].
type Running struct {
	Column string
	Using  reduce.Reducer
}

// cumOp keeps running totals per partition.
type cumOp struct {
	ops  []reducers.Op
	slot []int // per schema column: index of the total, or -1
	acc  []float64
	comp []float64 // compensation of a running sum
	has  []bool
}

func (o *cumOp) row(in *frame, i int, p int32, out *frame) bool {
	nt := len(o.ops)
	for (int(p)+1)*nt > len(o.has) {
		for range nt {
			o.acc = append(o.acc, 0)
			o.comp = append(o.comp, 0)
			o.has = append(o.has, false)
		}
	}
	out.tab.Col(0).AppendTime(in.tab.TimeNanos(i))
	for j := 1; j < len(o.slot); j++ {
		dst, c := out.tab.Col(j), in.tab.Col(j)
		k := o.slot[j]
		if k < 0 {
			appendCell(dst, c, i)
			copySym(out, j, in, j, i)
			continue
		}
		x := int(p)*nt + k
		if v, ok := c.Num(i); ok {
			switch o.ops[k] {
			case reducers.OpSum:
				// Neumaier's compensated sum.
				s := o.acc[x] + v
				if math.Abs(o.acc[x]) >= math.Abs(v) {
					o.comp[x] += (o.acc[x] - s) + v
				} else {
					o.comp[x] += (v - s) + o.acc[x]
				}
				o.acc[x] = s
			case reducers.OpCount:
				o.acc[x]++
			case reducers.OpMin:
				if !o.has[x] || v < o.acc[x] {
					o.acc[x] = v
				}
			case reducers.OpMax:
				if !o.has[x] || v > o.acc[x] {
					o.acc[x] = v
				}
			}
			o.has[x] = true
		}
		if o.has[x] {
			appendFinite(dst, o.acc[x]+o.comp[x])
		} else {
			dst.AppendMissing()
		}
	}
	return true
}

func (o *cumOp) forget(p int32) {
	nt := len(o.ops)
	for k := range nt {
		x := int(p)*nt + k
		if x >= len(o.has) {
			return
		}
		o.acc[x], o.comp[x], o.has[x] = 0, 0, false
	}
}

// Cumulative adds a view that replaces each listed number column by its
// running total since the view was built (per partition on a partitioned
// source): sum (compensated), count of present values, min or max. A
// missing cell repeats the running value, which is missing until the
// first present one: the sum of –, 2, –, 3 is –, 2, 2, 5. Other columns
// pass through. No total, an unknown, time or non-number column, a column
// listed twice or another reducer is an error wrapping [ErrConfig].
func (s *Series) Cumulative(source NodeID, totals ...Running) (NodeID, error) {
	const op = "cumulative"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	columns := make([]string, len(totals))
	ops := make([]reducers.Op, len(totals))
	for k, r := range totals {
		switch r.Using {
		case reduce.Sum, reduce.Count, reduce.Min, reduce.Max:
		default:
			return 0, configErr(op, r.Column, fmt.Sprintf("reducer %s: a running total is sum, count, min or max", r.Using), nil)
		}
		columns[k], ops[k] = r.Column, reducers.SpecOf(r.Using).Op
	}
	idx, sch, err := targetColumns(op, src.sch, columns, true)
	if err != nil {
		return 0, err
	}
	o := &cumOp{ops: ops, slot: make([]int, sch.Len())}
	for j := range o.slot {
		o.slot[j] = -1
	}
	for k, j := range idx {
		o.slot[j] = k
	}
	return s.addView(op, source, sch, viewComputes, o, true, nil), nil
}
