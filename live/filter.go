package live

import (
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// filterOp passes the rows its function keeps.
type filterOp struct {
	keep    func(schema.Row) bool
	scratch schema.Row
	elems   []schema.Value // the scratch row's number arrays, made here
}

func (o *filterOp) row(in *frame, i int, _ int32, out *frame) bool {
	o.scratch, o.elems = table.AppendRowInto(o.scratch[:0], o.elems[:0], in.tab, i)
	if !o.keep(o.scratch) {
		return false
	}
	copyRow(out, in, i)
	return true
}

func (o *filterOp) forget(int32) {}

// Filter adds a view that passes on the rows of source for which keep
// returns true. The row given to keep (the time first, then a cell per
// column) is reused from call to call, the elements of its arrays too:
// copy what you keep of it. keep runs inside the push, after its commit
// point (and, for the rows the source holds, inside Filter itself): it
// cannot push to the series or build a node (that fails with
// [ErrReentrant]), and it must not panic: a panic propagates out of the
// push (or Filter), which cannot be undone half way, and every later call
// on the series that can fail returns [ErrBroken].
//
// Like every view, a filter over a node that holds rows (the root, a
// partition, a window, a view over those) follows its evictions: a row
// leaves the filter exactly when it leaves the source. It keeps only the
// keys of the rows it passed, never the rows.
func (s *Series) Filter(source NodeID, keep func(row schema.Row) bool) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if keep == nil {
		return 0, configErr("filter", "keep", "a filter needs a function", nil)
	}
	return s.addView("filter", source, src.sch, viewPasses, &filterOp{keep: keep}, true), nil
}
