package live

import (
	"slices"
	"unsafe"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// rowStore holds the rows of one partition of a view in key order: by
// time, then by identity (arrival), which is the order the root keeps its
// own rows in. A store keeps either only the keys (time, identity) of its
// rows, for a view whose rows are its source's (filter, sample), or the
// rows' cells too (windows and computing views).
//
// Removing the oldest row is O(1) and memory is compacted once half of it
// is dead; inserting or removing elsewhere (late rows of a reorder source)
// shifts the rows after it.
type rowStore struct {
	head int
	t    []int64
	id   []uint64
	cols []cellCol // one per schema column (0, the time, unused); nil for keys only
}

// cellCol is one column of a rowStore.
type cellCol struct {
	kind schema.Kind
	num  []float64        // Number: NaN is missing
	str  []string         // String
	flag []uint8          // String, Array: 0 missing, 1 present; Bool: 0 missing, 1 false, 2 true
	arr  [][]schema.Value // Array: owned copies
}

func newRowStore(sch *schema.Schema, cells bool) *rowStore {
	st := &rowStore{}
	if cells {
		st.cols = make([]cellCol, sch.Len())
		for j := 1; j < sch.Len(); j++ {
			st.cols[j].kind = sch.Column(j).Kind
		}
	}
	return st
}

func (st *rowStore) len() int { return len(st.t) - st.head }

// bytes returns the memory the store holds, spare room included: itself
// and its columns' headers, keys, cells and array elements; not the bytes
// of strings, which the rows share with the tables they came from.
func (st *rowStore) bytes() int {
	const value = int(unsafe.Sizeof(schema.Value{}))
	b := int(unsafe.Sizeof(*st)) + int(unsafe.Sizeof(cellCol{}))*cap(st.cols)
	b += 8*cap(st.t) + 8*cap(st.id)
	for j := range st.cols {
		c := &st.cols[j]
		b += 8*cap(c.num) + int(unsafe.Sizeof(""))*cap(c.str) + cap(c.flag) + int(unsafe.Sizeof([]schema.Value(nil)))*cap(c.arr)
		for _, a := range c.arr {
			b += value * cap(a)
		}
	}
	return b
}

// find returns the position of the row with key (t, id).
func (st *rowStore) find(t int64, id uint64) (int, bool) {
	if st.len() == 0 {
		return 0, false
	}
	if st.t[st.head] == t && st.id[st.head] == id {
		return st.head, true
	}
	pos := st.search(t, id)
	return pos, pos < len(st.t) && st.t[pos] == t && st.id[pos] == id
}

// search returns the position of the first row with a key not before
// (t, id).
func (st *rowStore) search(t int64, id uint64) int {
	lo, hi := st.head, len(st.t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if st.t[m] < t || st.t[m] == t && st.id[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// add stores a row with key (t, id) and, for a store with cells, the
// cells of row i of tab, whose schema is the store's.
func (st *rowStore) add(t int64, id uint64, tab *schema.Table, i int) {
	n := len(st.t)
	if st.len() == 0 || st.t[n-1] < t || st.t[n-1] == t && st.id[n-1] < id {
		st.t = append(st.t, t)
		st.id = append(st.id, id)
		for j := 1; j < len(st.cols); j++ {
			st.cols[j].appendFrom(table.Column(tab, j), i)
		}
		return
	}
	pos := st.search(t, id)
	st.t = slices.Insert(st.t, pos, t)
	st.id = slices.Insert(st.id, pos, id)
	for j := 1; j < len(st.cols); j++ {
		st.cols[j].insertFrom(pos, table.Column(tab, j), i)
	}
}

// remove drops the row at pos.
func (st *rowStore) remove(pos int) {
	if pos == st.head {
		for j := 1; j < len(st.cols); j++ {
			c := &st.cols[j]
			switch c.kind {
			case schema.String:
				c.str[pos] = ""
			case schema.Array:
				c.arr[pos] = nil
			}
		}
		st.head++
		switch {
		case st.head == len(st.t):
			st.truncate(0)
		case st.head >= 32 && 2*st.head >= len(st.t):
			st.compact()
		}
		return
	}
	st.t = slices.Delete(st.t, pos, pos+1)
	st.id = slices.Delete(st.id, pos, pos+1)
	for j := 1; j < len(st.cols); j++ {
		c := &st.cols[j]
		switch c.kind {
		case schema.Number:
			c.num = slices.Delete(c.num, pos, pos+1)
		case schema.String:
			c.str = slices.Delete(c.str, pos, pos+1)
			c.flag = slices.Delete(c.flag, pos, pos+1)
		case schema.Bool:
			c.flag = slices.Delete(c.flag, pos, pos+1)
		case schema.Array:
			c.arr = slices.Delete(c.arr, pos, pos+1)
			c.flag = slices.Delete(c.flag, pos, pos+1)
		}
	}
}

// reset empties the store and keeps its memory.
func (st *rowStore) reset() {
	st.truncate(0)
}

// truncate drops every row and keeps the memory (n must be 0).
func (st *rowStore) truncate(n int) {
	st.head = 0
	st.t = st.t[:n]
	st.id = st.id[:n]
	for j := 1; j < len(st.cols); j++ {
		c := &st.cols[j]
		clear(c.str)
		clear(c.arr)
		c.num, c.str, c.flag, c.arr = c.num[:n], c.str[:n], c.flag[:n], c.arr[:n]
	}
}

// compact moves the live rows to the front of the memory.
func (st *rowStore) compact() {
	h := st.head
	st.t = compactSlice(st.t, h)
	st.id = compactSlice(st.id, h)
	for j := 1; j < len(st.cols); j++ {
		c := &st.cols[j]
		switch c.kind {
		case schema.Number:
			c.num = compactSlice(c.num, h)
		case schema.String:
			c.str = compactSlice(c.str, h)
			c.flag = compactSlice(c.flag, h)
		case schema.Bool:
			c.flag = compactSlice(c.flag, h)
		case schema.Array:
			c.arr = compactSlice(c.arr, h)
			c.flag = compactSlice(c.flag, h)
		}
	}
	st.head = 0
}

func compactSlice[E any](s []E, head int) []E {
	n := copy(s, s[head:])
	clear(s[n:])
	return s[:n]
}

// appendTo appends the row at pos (time, cells, identity) to f, whose
// schema is the store's. The store must keep cells.
func (st *rowStore) appendTo(f *frame, pos int) {
	table.Column(f.tab, 0).AppendTime(st.t[pos])
	for j := 1; j < len(st.cols); j++ {
		st.cols[j].appendTo(table.Column(f.tab, j), pos)
	}
	f.ids = append(f.ids, st.id[pos])
}

func (c *cellCol) appendFrom(src *table.Col, i int) {
	switch c.kind {
	case schema.Number:
		c.num = append(c.num, src.Numbers()[i])
	case schema.String:
		s, ok := src.Str(i)
		c.str = append(c.str, s)
		c.flag = append(c.flag, presence(ok))
	case schema.Bool:
		c.flag = append(c.flag, boolFlag(src.Bool(i)))
	case schema.Array:
		a, ok := src.CopyArray(i)
		c.arr = append(c.arr, a)
		c.flag = append(c.flag, presence(ok))
	}
}

func (c *cellCol) insertFrom(pos int, src *table.Col, i int) {
	switch c.kind {
	case schema.Number:
		c.num = slices.Insert(c.num, pos, src.Numbers()[i])
	case schema.String:
		s, ok := src.Str(i)
		c.str = slices.Insert(c.str, pos, s)
		c.flag = slices.Insert(c.flag, pos, presence(ok))
	case schema.Bool:
		c.flag = slices.Insert(c.flag, pos, boolFlag(src.Bool(i)))
	case schema.Array:
		a, ok := src.CopyArray(i)
		c.arr = slices.Insert(c.arr, pos, a)
		c.flag = slices.Insert(c.flag, pos, presence(ok))
	}
}

func (c *cellCol) appendTo(dst *table.Col, pos int) {
	switch c.kind {
	case schema.Number:
		dst.AppendNum(c.num[pos])
	case schema.String:
		if c.flag[pos] == cell.Missing {
			dst.AppendMissing()
		} else {
			dst.AppendStr(c.str[pos])
		}
	case schema.Bool:
		if c.flag[pos] == cell.Missing {
			dst.AppendMissing()
		} else {
			dst.AppendBool(c.flag[pos] == cell.True)
		}
	case schema.Array:
		if c.flag[pos] == cell.Missing {
			dst.AppendMissing()
		} else {
			dst.AppendArray(c.arr[pos])
		}
	}
}

func presence(ok bool) uint8 {
	if ok {
		return 1
	}
	return 0
}

func boolFlag(b, ok bool) uint8 {
	switch {
	case !ok:
		return 0
	case b:
		return 2
	}
	return 1
}

// appendCell appends cell i of src to dst, a column of the same kind.
func appendCell(dst, src *table.Col, i int) {
	switch table.Kind(src) {
	case schema.Time:
		dst.AppendTime(src.Time(i))
	case schema.Number:
		dst.AppendNum(src.Numbers()[i])
	case schema.String:
		if s, ok := src.Str(i); ok {
			dst.AppendStr(s)
		} else {
			dst.AppendMissing()
		}
	case schema.Bool:
		if b, ok := src.Bool(i); ok {
			dst.AppendBool(b)
		} else {
			dst.AppendMissing()
		}
	case schema.Array:
		if a, ok := src.Array(i); ok {
			dst.AppendArray(a)
		} else {
			dst.AppendMissing()
		}
	}
}

// copySym appends the intern id of cell (i, j) of in to column k of out,
// when in knows its ids.
func copySym(out *frame, k int, in *frame, j, i int) {
	if j < len(in.syms) {
		if ids := in.syms[j]; len(ids) == in.len() && len(ids) > i {
			out.syms[k] = append(out.syms[k], ids[i])
		}
	}
}

// copyRow appends row i of in to out, whose schema has the same kinds:
// the cells and the intern ids (not the partition or identity).
func copyRow(out *frame, in *frame, i int) {
	table.AppendFrom(out.tab, in.tab, i)
	for j := range in.syms {
		copySym(out, j, in, j, i)
	}
}

// sortedFrame returns a copy of f with its rows in the order of cmp.
func sortedFrame(f *frame, cmp func(a, b int) int) frame {
	perm := make([]int, f.len())
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, cmp)
	g := newFrame(f.tab.Schema())
	hasPart := len(f.part) == f.len()
	hasIDs := len(f.ids) == f.len()
	for _, i := range perm {
		copyRow(&g, f, i)
		if hasPart {
			g.part = append(g.part, f.part[i])
		}
		if hasIDs {
			g.ids = append(g.ids, f.ids[i])
		}
	}
	return g
}

// byKey orders rows of f by time, then identity.
func byKey(f *frame) func(a, b int) int {
	return func(a, b int) int {
		ta, tb := f.tab.TimeNanos(a), f.tab.TimeNanos(b)
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		}
		return cmpIDs(f, a, b)
	}
}

// byArrival orders rows of f by identity.
func byArrival(f *frame) func(a, b int) int {
	return func(a, b int) int { return cmpIDs(f, a, b) }
}

func cmpIDs(f *frame, a, b int) int {
	if len(f.ids) != f.len() {
		return 0
	}
	switch {
	case f.ids[a] < f.ids[b]:
		return -1
	case f.ids[a] > f.ids[b]:
		return 1
	}
	return 0
}
