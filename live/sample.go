package live

import "fmt"

// Sample adds a view that passes on every stride-th row of source: the
// stride-th, 2·stride-th, … row, counting across pushes (a reorder
// source's late rows count when they arrive). On a partitioned source
// each partition counts its own rows (the per-host sampling of the
// aggregator), and the view stays partitioned, so a rolling built on it
// keeps its windows per partition; a partition index given to a new
// partition starts counting afresh.
//
// Over a source that holds rows the sample follows its evictions, keeping
// only the keys of the rows it passed. A stride below 1 is an error
// wrapping [ErrConfig].
func (s *Series) Sample(source NodeID, stride int) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if stride < 1 {
		return 0, configErr("sample", "stride", fmt.Sprintf("%d must be at least 1", stride), nil)
	}
	return s.addView("sample", source, src.sch, viewPasses, &sampleOp{stride: stride}, true), nil
}

// sampleOp keeps every stride-th row, per partition.
type sampleOp struct {
	stride int
	seen   []int // rows seen since the last one kept, per partition
}

func (o *sampleOp) row(in *frame, i int, p int32, out *frame) bool {
	for int(p) >= len(o.seen) {
		o.seen = append(o.seen, 0)
	}
	o.seen[p]++
	if o.seen[p] < o.stride {
		return false
	}
	o.seen[p] = 0
	copyRow(out, in, i)
	return true
}

func (o *sampleOp) forget(p int32) {
	if int(p) < len(o.seen) {
		o.seen[p] = 0
	}
}
