package live

import (
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// mapOp computes each row with its function.
type mapOp struct {
	fn     func(in, out schema.Row) bool
	inRow  schema.Row
	elems  []schema.Value // inRow's number arrays, made here
	outRow schema.Row
}

func (o *mapOp) row(in *frame, i int, _ int32, out *frame) bool {
	o.inRow, o.elems = table.AppendRowInto(o.inRow[:0], o.elems[:0], in.tab, i)
	t := in.tab.TimeNanos(i)
	clear(o.outRow)
	o.outRow[0] = schema.NanosValue(t)
	if !o.fn(o.inRow, o.outRow) {
		return false
	}
	table.Column(out.tab, 0).AppendTime(t)
	for j := 1; j < len(o.outRow); j++ {
		table.AppendValue(table.Column(out.tab, j), mapCell(o.outRow[j]))
	}
	return true
}

// mapCell returns a cell a map's function gave, or a missing cell for an
// array holding an element a push refuses ([schema.BadElement]: one that
// is not a finite number, a string or a boolean), as a non-finite number
// is stored missing.
func mapCell(v schema.Value) schema.Value {
	elems, ok := v.Array()
	if !ok {
		return v
	}
	for _, e := range elems {
		switch e.Kind() {
		case schema.String, schema.Bool:
			continue
		case schema.Number:
			if f, _ := e.Num(); f-f == 0 {
				continue
			}
		}
		return schema.Value{}
	}
	return v
}

func (o *mapOp) forget(int32) {}

// selectOp keeps some columns.
type selectOp struct {
	idx []int // source column of output column k+1
}

func (o *selectOp) row(in *frame, i int, _ int32, out *frame) bool {
	table.Column(out.tab, 0).AppendTime(in.tab.TimeNanos(i))
	for k, j := range o.idx {
		appendCell(table.Column(out.tab, k+1), table.Column(in.tab, j), i)
		copySym(out, k+1, in, j, i)
	}
	return true
}

func (o *selectOp) forget(int32) {}

// Map adds a view that computes each row anew: fn gets the source row
// (the time first) and a row of out.Len() cells to fill, whose first cell
// is the source row's time and whose other cells start missing; it
// returns false to drop the row. A row keeps its source row's time (a
// time fn writes is ignored). A cell whose kind does not match its column
// of out, a non-finite number, or an array with an element a push would
// refuse (one that is not a finite number, a string or a boolean) is
// stored as missing; nothing fn returns fails the push. Both rows, and the elements of the source row's
// arrays, are reused from call to call: copy what you keep of them.
//
// out must have a time column first; it need not contain the partition
// column of a partitioned source (the rows stay partitioned). Its other
// columns are optional in the node's schema ([Series.NodeSchema]), as any
// cell may be missing. Like a filter's function ([Series.Filter]), fn
// cannot push to the series or build a node, and a panic out of it
// leaves the series broken ([ErrBroken]).
func (s *Series) Map(source NodeID, out *schema.Schema, fn func(in, out schema.Row) bool) (NodeID, error) {
	if _, err := s.checkSource(source); err != nil {
		return 0, err
	}
	switch {
	case out == nil:
		return 0, configErr("map", "out", "a map needs an output schema", nil)
	case fn == nil:
		return 0, configErr("map", "fn", "a map needs a function", nil)
	}
	// Any cell may be missing (fn leaves it out, or gives a wrong kind or
	// a non-finite number), whatever out says: the nodes built on the map
	// must not take a column for one that has a value in every row.
	cols := out.Columns()
	for j := 1; j < len(cols); j++ {
		cols[j].Optional = true
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return 0, configErr("map", "out", "bad output schema", err)
	}
	op := &mapOp{fn: fn, outRow: make(schema.Row, out.Len())}
	return s.addView("map", source, sch, viewComputes, op, true), nil
}

// Select adds a view that keeps only the given value columns of source,
// in the source's column order, after the time. An unknown column, the
// time column, a column listed twice or an empty list is an error
// wrapping [ErrConfig].
func (s *Series) Select(source NodeID, columns ...string) (NodeID, error) {
	const op = "select"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if len(columns) == 0 {
		return 0, configErr(op, "columns", "select needs at least one column", nil)
	}
	want := map[int]bool{}
	for _, c := range columns {
		j, ok := src.sch.Index(c)
		switch {
		case !ok:
			return 0, unknownColumn(op, c, src.sch.Names()[1:])
		case j == 0:
			return 0, configErr(op, c, "is the time column, which every row keeps", nil)
		case want[j]:
			return 0, configErr(op, c, "listed twice", nil)
		}
		want[j] = true
	}
	cols := []schema.Column{src.sch.Column(0)}
	var idx []int
	for j := 1; j < src.sch.Len(); j++ {
		if want[j] {
			cols = append(cols, src.sch.Column(j))
			idx = append(idx, j)
		}
	}
	sch, err := schema.New(cols...)
	if err != nil {
		return 0, configErr(op, "columns", "bad output schema", err)
	}
	return s.addView(op, source, sch, viewProjects, &selectOp{idx: idx}, true), nil
}
