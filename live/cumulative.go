package live

import (
	"fmt"
	"math"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
)

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
	// huge is, per total, a running sum's values from 2^960 up, in units
	// of 2^128, and its compensation (two words a total): nil until the
	// first such value. Two of them can sum beyond the float64 range, and
	// acc would then stay infinite, and the total missing, whatever came
	// after; kept apart, the sum is missing only while it is beyond the
	// range, as a reducer's sum is (package reduce, "Missing values and
	// NaN").
	huge []float64
}

// Values from cumHuge up are summed apart, in units of 2^128 (cumOp.huge):
// a power of two, so scaling them is exact.
const (
	cumHuge = 0x1p960
	cumDown = 0x1p-128
	cumUp   = 0x1p128
)

// addComp adds v to the Neumaier-compensated sum (*s, *c).
func addComp(s, c *float64, v float64) {
	t := *s + v
	if math.Abs(*s) >= math.Abs(v) {
		*c += (*s - t) + v
	} else {
		*c += (v - t) + *s
	}
	*s = t
}

// sum returns running sum x: its ordinary values' sum, and with its huge
// ones, added in float64 units while that stays below 2^960 (where huge
// values that cancel leave the bits of the others), else in units of
// 2^128. It is not finite exactly while the values sum beyond the range.
//
// The huge part meets the ordinary sum before its compensation: when
// they cancel (2^959, 2^959, 1, −2^960), what the compensation holds is
// the result, and rounding the ordinary sum first would lose it.
func (o *cumOp) sum(x int) float64 {
	s := o.acc[x] + o.comp[x]
	if 2*x >= len(o.huge) {
		return s
	}
	hi, lo := o.huge[2*x], o.huge[2*x+1]
	if hi == 0 && lo == 0 {
		return s
	}
	if t := (o.acc[x] + hi*cumUp) + (o.comp[x] + lo*cumUp); math.Abs(t) < cumHuge {
		return t
	}
	return ((hi + lo) + s*cumDown) * cumUp
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
	table.Column(out.tab, 0).AppendTime(in.tab.TimeNanos(i))
	for j := 1; j < len(o.slot); j++ {
		dst, c := table.Column(out.tab, j), table.Column(in.tab, j)
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
				// Neumaier's compensated sum, huge values apart.
				if math.Abs(v) < cumHuge {
					addComp(&o.acc[x], &o.comp[x], v)
					break
				}
				for len(o.huge) < 2*len(o.acc) {
					o.huge = append(o.huge, 0)
				}
				addComp(&o.huge[2*x], &o.huge[2*x+1], v*cumDown)
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
		switch {
		case !o.has[x]:
			dst.AppendMissing()
		case o.ops[k] == reducers.OpSum:
			appendFinite(dst, o.sum(x))
		default:
			appendFinite(dst, o.acc[x]+o.comp[x])
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
		if 2*x < len(o.huge) {
			o.huge[2*x], o.huge[2*x+1] = 0, 0
		}
	}
}

// Cumulative adds a view that replaces each listed number column by its
// running total over the rows it has seen (per partition on a partitioned
// source): those its source held when it was built, replayed (see
// "The node graph" in the package doc), then every row pushed since, in
// the order they arrive: a reorder source's late row adds to the total
// when it comes, and the rows of later times it follows keep theirs. Sum
// (compensated; missing only while it is beyond the float64 range, as a
// reducer's sum: the sum of 1.7e308, 1.7e308, −1.7e308 is 1.7e308, –,
// 1.7e308), count of present values, min or max. A
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
	return s.addView(op, source, sch, viewComputes, o, true), nil
}
