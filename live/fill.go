package live

import (
	"fmt"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

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

// ParseFillStrategy parses "hold", "zero" or "linear". Any other name is an
// error wrapping [ErrConfig].
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
	// (every number column for FillZero) but, on a partitioned source, the
	// partition column: its cells are the rows' keys, missing only in the
	// partition of missing keys, which nodes downstream key as missing
	// whatever the view writes there. Listed, it is filled as any other.
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
	table.Column(out.tab, 0).AppendTime(in.tab.TimeNanos(i))
	base := int(p) * o.nt
	for j := 1; j < len(o.slot); j++ {
		dst, c := table.Column(out.tab, j), table.Column(in.tab, j)
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
			table.AppendValue(dst, o.last[x])
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
func (o *fillOp) keep(x int, c *table.Col, i int, in *frame, j int) {
	var v schema.Value
	if a, ok := c.CopyArray(i); ok {
		v = schema.ArrayValue(a...) // kept past the push: a copy of its own
	} else {
		v = in.tab.Value(i, j)
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
// and columns pass through. Rows are taken as they arrive, also a reorder
// source's late rows: the last present value is the last to arrive, and a
// late row's gap takes it even when it is of a later time.
//
// FillLinear is rejected (it needs future values; docs/differences.md §16), as are
// a missing strategy, a negative limit, an unknown or time column, a
// column listed twice, and FillZero on a column that is not a number
// column: all errors wrap
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
		key := s.partitionColumn(src)
		for j := 1; j < src.sch.Len(); j++ {
			if c := src.sch.Column(j); c.Name != key && (opts.Strategy == FillHold || c.Kind == schema.Number) {
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
	return s.addView(op, source, src.sch, viewComputes, o, true), nil
}
