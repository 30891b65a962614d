package live

import (
	"math"

	"github.com/pond-go/pond/internal/table"
)

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
	table.Column(out.tab, 0).AppendTime(t)
	prev := o.prev[int(p)*nt : int(p)*nt+nt]
	k := 0
	for j := 1; j < len(o.target); j++ {
		dst := table.Column(out.tab, j)
		if !o.target[j] {
			appendCell(dst, table.Column(in.tab, j), i)
			copySym(out, j, in, j, i)
			continue
		}
		cur, before := table.Column(in.tab, j).Numbers()[i], prev[k]
		v := math.NaN()
		if o.has[p] && cur == cur && before == before {
			switch o.kind {
			case changeDiff:
				v = cur - before
			case changeRate:
				if dt := t - o.prevT[p]; dt != 0 {
					v = changeOver(cur, before, float64(dt)/1e9)
				}
			case changePct:
				if before != 0 {
					v = changeOver(cur, before, before)
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

// changeOver returns (cur − before) / by. Where cur − before is beyond the
// float64 range the quotient need not be (the rate of −1.7e308 then
// 1.7e308 ten seconds later, their change −2): the difference is then
// taken in halves, exact as both values are at least 2^970, so the
// result is not finite only where the quotient itself is beyond the
// range, and is the same float64 as without the overflow.
func changeOver(cur, before, by float64) float64 {
	if d := cur - before; !math.IsInf(d, 0) {
		return d / by
	}
	return (cur/2 - before/2) / by * 2
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
	return s.addView(op, source, sch, viewComputes, o, true), nil
}

// Diff adds a view that replaces each listed number column by its change
// from the previous row (per partition on a partitioned source): missing
// for the first row, and whenever this or the previous cell is missing
// (so a gap costs two rows: diff of 1, –, 5, 8 is –, –, –, 3). Other
// columns pass through. The previous row is the one that arrived before,
// also for a reorder source's late rows. Listed columns become optional.
// An empty list, an unknown, time or non-number column, or a column
// listed twice is an error wrapping [ErrConfig]; so for Rate and
// PctChange.
func (s *Series) Diff(source NodeID, columns ...string) (NodeID, error) {
	return s.addChange(changeDiff, source, columns)
}

// Rate is [Series.Diff] divided by the time between the two rows in
// seconds: the change per second. Two rows at the same time give a
// missing rate, and so does a rate beyond the float64 range (a change
// beyond it is not: −1.7e308 then 1.7e308 ten seconds later is 3.4e307
// a second).
func (s *Series) Rate(source NodeID, columns ...string) (NodeID, error) {
	return s.addChange(changeRate, source, columns)
}

// PctChange is [Series.Diff] divided by the previous value: (cur − prev)
// / prev, a fraction (0.5 is +50%). A previous value of 0 gives a missing
// change; cur − prev beyond the float64 range does not (−1.7e308 then
// 1.7e308 is −2).
func (s *Series) PctChange(source NodeID, columns ...string) (NodeID, error) {
	return s.addChange(changePct, source, columns)
}
