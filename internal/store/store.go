// Package store keeps the rows of a live series: columnar, in fixed-size
// chunks, sorted by time, with eviction from the front in amortised O(1).
// Strings are kept as intern ids; the caller resolves them.
package store

import (
	"sort"
	"unsafe"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// ChunkRows is the number of rows a chunk holds.
const ChunkRows = 2048

// Store holds rows sorted by time. Column 0 is the time; number columns
// keep float64 (NaN = missing), string columns intern ids (0 = missing),
// boolean columns a byte (0 missing, 1 false, 2 true), array columns the
// elements (nil = missing). Optionally each row carries a 64-bit identity.
type Store struct {
	kinds  []schema.Kind
	chunks []*chunk
	head   int // offset of the first live row in chunks[0]
	n      int
	free   []*chunk
	ids    bool
	// added counts the rows appended since the last eviction; spare is
	// the most chunks a store keeps for reuse (see Evict).
	added, spare int
	// The value columns by kind: numbers, strings, the others.
	nums, syms, others []int
	olderLast          int // what Older returned last
}

type chunk struct {
	t    []int64
	id   []uint64
	cols []ccol // index = schema column; cols[0] unused
}

// ccol is a chunk's column: a pointer to the first of its ChunkRows
// cells, of the column's kind (read through num, sym, flg or arr, as the
// kind says). A store of 100,000 rows a second holds about 1,500 chunks
// for 30 s of rows; a slice header for each kind, 96 bytes a column,
// made a chunk of four columns 464 bytes beside its cells, 680 KB in all.
type ccol struct{ p unsafe.Pointer }

func (c ccol) num() []float64        { return unsafe.Slice((*float64)(c.p), ChunkRows) }
func (c ccol) sym() []uint32         { return unsafe.Slice((*uint32)(c.p), ChunkRows) }
func (c ccol) flg() []uint8          { return unsafe.Slice((*uint8)(c.p), ChunkRows) }
func (c ccol) arr() [][]schema.Value { return unsafe.Slice((*[]schema.Value)(c.p), ChunkRows) }
func cellsOf[T any](s []T) ccol      { return ccol{unsafe.Pointer(unsafe.SliceData(s))} }

// putCells copies xs to the cells of a chunk's column from cell o on,
// which the caller has checked the chunk has room for (o+len(xs) ≤
// ChunkRows): the copy needs no bounds of its own.
func putCells[T any](cells unsafe.Pointer, o int, xs []T) {
	copy(unsafe.Slice((*T)(unsafe.Add(cells, uintptr(o)*unsafe.Sizeof(*new(T)))), len(xs)), xs)
}

// New returns an empty store for columns of the given kinds (kinds[0] is
// the time). withIDs keeps an identity per row.
func New(kinds []schema.Kind, withIDs bool) *Store {
	s := &Store{kinds: kinds, ids: withIDs, free: make([]*chunk, 0, minSpare), spare: minSpare}
	for j := 1; j < len(kinds); j++ {
		switch kinds[j] {
		case schema.Number:
			s.nums = append(s.nums, j)
		case schema.String:
			s.syms = append(s.syms, j)
		default:
			s.others = append(s.others, j)
		}
	}
	return s
}

// Len returns the number of rows held.
func (s *Store) Len() int { return s.n }

func (s *Store) newChunk() *chunk {
	if k := len(s.free); k > 0 {
		c := s.free[k-1]
		s.free = s.free[:k-1]
		return c
	}
	c := &chunk{t: make([]int64, ChunkRows), cols: make([]ccol, len(s.kinds))}
	if s.ids {
		c.id = make([]uint64, ChunkRows)
	}
	for j := 1; j < len(s.kinds); j++ {
		switch s.kinds[j] {
		case schema.Number:
			c.cols[j] = cellsOf(make([]float64, ChunkRows))
		case schema.String:
			c.cols[j] = cellsOf(make([]uint32, ChunkRows))
		case schema.Bool:
			c.cols[j] = cellsOf(make([]uint8, ChunkRows))
		case schema.Array:
			c.cols[j] = cellsOf(make([][]schema.Value, ChunkRows))
		}
	}
	return c
}

func (s *Store) loc(r int) (*chunk, int) {
	// Unsigned: a position is never negative, and so its division by
	// the chunk size is a shift.
	p := uint(s.head + r)
	return s.chunks[p/ChunkRows], int(p % ChunkRows)
}

// Time returns the time of row r.
func (s *Store) Time(r int) int64 {
	c, o := s.loc(r)
	return c.t[o]
}

// ID returns the identity of row r (0 if the store keeps none).
func (s *Store) ID(r int) uint64 {
	if !s.ids {
		return 0
	}
	c, o := s.loc(r)
	return c.id[o]
}

// Num returns number column j of row r (NaN if missing).
func (s *Store) Num(r, j int) float64 {
	c, o := s.loc(r)
	return c.cols[j].num()[o]
}

// Sym returns the intern id in string column j of row r (0 if missing).
func (s *Store) Sym(r, j int) uint32 {
	c, o := s.loc(r)
	return c.cols[j].sym()[o]
}

// SymRuns calls fn with the intern ids of string column j of rows [from,
// to), a run per chunk, in order; first is the row of a run's first id.
func (s *Store) SymRuns(j, from, to int, fn func(first int, syms []uint32)) {
	for from < to {
		c, o := s.loc(from)
		n := min(ChunkRows-o, to-from)
		fn(from, c.cols[j].sym()[o:o+n])
		from += n
	}
}

// SymNumRun returns, from row from up to row to or the end of its chunk,
// the intern ids of string column sj and the values of number column nj:
// the rows of one chunk, read in place.
func (s *Store) SymNumRun(sj, nj, from, to int) ([]uint32, []float64) {
	c, o := s.loc(from)
	n := min(ChunkRows-o, to-from)
	return c.cols[sj].sym()[o : o+n], c.cols[nj].num()[o : o+n]
}

// NumNumRun is SymNumRun for a number column kj in place of the string
// one: the numbers of columns kj and nj of rows from on, up to to or the
// end of from's chunk.
func (s *Store) NumNumRun(kj, nj, from, to int) ([]float64, []float64) {
	c, o := s.loc(from)
	n := min(ChunkRows-o, to-from)
	return c.cols[kj].num()[o : o+n], c.cols[nj].num()[o : o+n]
}

// Flag returns boolean column j of row r: 0 missing, 1 false, 2 true.
func (s *Store) Flag(r, j int) uint8 {
	c, o := s.loc(r)
	return c.cols[j].flg()[o]
}

// Arr returns array column j of row r (nil if missing).
func (s *Store) Arr(r, j int) []schema.Value {
	c, o := s.loc(r)
	return c.cols[j].arr()[o]
}

// Source is a block of rows to append, column by column. Syms[j] holds the
// intern ids of string column j; IDs the row identities (when kept).
type Source struct {
	Table *schema.Table
	Syms  [][]uint32
	IDs   []uint64
}

// Append appends rows [from, to) of src, which must not be before the last
// row held. An append that fits in the last chunk (most) is checked inline,
// the copy behind one call.
func (s *Store) Append(src *Source, from, to int) {
	end, k := uint(s.head+s.n), to-from
	if i, o := end/ChunkRows, int(end%ChunkRows); i < uint(len(s.chunks)) && o+k <= ChunkRows {
		s.copyIn(s.chunks[i], o, src, from, to)
		s.n += k
		s.added += k
		return
	}
	s.appendChunks(src, from, to)
}

// appendChunks is Append over chunk boundaries, adding chunks as needed.
func (s *Store) appendChunks(src *Source, from, to int) {
	for from < to {
		end := s.head + s.n
		if end == len(s.chunks)*ChunkRows {
			s.chunks = append(s.chunks, s.newChunk())
		}
		c := s.chunks[end/ChunkRows]
		o := end % ChunkRows
		k := min(ChunkRows-o, to-from)
		s.copyIn(c, o, src, from, from+k)
		s.n += k
		s.added += k
		from += k
	}
}

func (s *Store) copyIn(c *chunk, o int, src *Source, from, to int) {
	cols := table.Columns(src.Table)
	putCells(unsafe.Pointer(unsafe.SliceData(c.t)), o, cols[0].Times()[from:to])
	for _, j := range s.nums {
		putCells(c.cols[j].p, o, cols[j].Numbers()[from:to])
	}
	s.copyRest(c, o, src, from, to)
}

// copyRest is copyIn for the columns other than the times and numbers:
// the identities, intern ids, booleans and arrays.
func (s *Store) copyRest(c *chunk, o int, src *Source, from, to int) {
	cols := table.Columns(src.Table)
	if s.ids {
		putCells(unsafe.Pointer(unsafe.SliceData(c.id)), o, src.IDs[from:to])
	}
	for _, j := range s.syms {
		putCells(c.cols[j].p, o, src.Syms[j][from:to])
	}
	for _, j := range s.others {
		col, cc := &cols[j], c.cols[j]
		switch s.kinds[j] {
		case schema.Bool:
			for i := from; i < to; i++ {
				f := uint8(cell.Missing)
				if b, ok := col.Bool(i); ok {
					f = uint8(cell.Bool(b))
				}
				cc.flg()[o+i-from] = f
			}
		case schema.Array:
			for i := from; i < to; i++ {
				a, _ := col.CopyArray(i)
				cc.arr()[o+i-from] = a
			}
		}
	}
}

// Room is where the next rows appended to a store go in its last chunk:
// a caller may write their times and numbers there, then append them
// with [Store.AppendRoom].
type Room struct {
	c *chunk
	o int
}

// Room returns where the next k rows go, when they fit in the last chunk
// (ok false otherwise: then [Store.Append] adds chunks). Writing there
// changes nothing the store holds: the cells after the last row are not
// rows until AppendRoom makes them so.
func (s *Store) Room(k int) (r Room, ok bool) {
	end := uint(s.head + s.n)
	if i, o := end/ChunkRows, int(end%ChunkRows); i < uint(len(s.chunks)) && o+k <= ChunkRows {
		return Room{s.chunks[i], o}, true
	}
	return Room{}, false
}

// Times returns the cells of the room's first k times.
func (r Room) Times(k int) []int64 { return r.c.t[r.o : r.o+k] }

// Nums returns the cells of the room's first k numbers in column j, a
// number column.
func (r Room) Nums(j, k int) []float64 { return r.c.cols[j].num()[r.o : r.o+k] }

// AppendRoom appends rows [0, k) of src whose times and numbers the caller
// wrote in the room [Store.Room](k) returned, with nothing appended,
// inserted or evicted since: it copies their other columns (identities,
// intern ids, booleans, arrays) from src. A store of numbers and strings
// without identities, the common one, copies the intern ids alone,
// without copyRest's tests for the other kinds.
func (s *Store) AppendRoom(src *Source, k int) {
	end := uint(s.head + s.n)
	c, o := s.chunks[end/ChunkRows], int(end%ChunkRows)
	if s.ids || len(s.others) > 0 {
		s.copyRest(c, o, src, 0, k)
	} else {
		for _, j := range s.syms {
			putCells(c.cols[j].p, o, src.Syms[j][:k])
		}
	}
	s.n += k
	s.added += k
}

// Insert inserts row i of src at position r (0 ≤ r ≤ Len), shifting later
// rows back by one. Its cost is proportional to Len − r.
func (s *Store) Insert(r int, src *Source, i int) {
	s.Append(src, i, i+1)
	for k := s.n - 1; k > r; k-- {
		s.move(k, k-1)
	}
	// The moves overwrote the appended row; write it at its place.
	dc, do := s.loc(r)
	s.copyIn(dc, do, src, i, i+1)
}

// move copies row src over row dst.
func (s *Store) move(dst, src int) {
	dc, do := s.loc(dst)
	sc, so := s.loc(src)
	dc.t[do] = sc.t[so]
	if s.ids {
		dc.id[do] = sc.id[so]
	}
	for j := 1; j < len(s.kinds); j++ {
		d, x := dc.cols[j], sc.cols[j]
		switch s.kinds[j] {
		case schema.Number:
			d.num()[do] = x.num()[so]
		case schema.String:
			d.sym()[do] = x.sym()[so]
		case schema.Bool:
			d.flg()[do] = x.flg()[so]
		case schema.Array:
			d.arr()[do] = x.arr()[so]
		}
	}
}

// UpperBound returns the number of rows with time ≤ t: the position where a
// row at t goes after its equals.
func (s *Store) UpperBound(t int64) int {
	return sort.Search(s.n, func(r int) bool { return s.Time(r) > t })
}

// LowerBound returns the number of rows with time < t.
func (s *Store) LowerBound(t int64) int {
	return sort.Search(s.n, func(r int) bool { return s.Time(r) >= t })
}

// Older returns the number of rows with time < t, as LowerBound does, but
// searching from the front: in O(log k) steps for a result k, reading
// only the first rows when few are older, which is retention's case (a
// push evicts about as many rows as it appended).
//
// It first tries the count it returned last time, which a steady stream
// of pushes of one size keeps returning: two times read, when they are in
// the first chunk.
func (s *Store) Older(t int64) int {
	if g := s.olderLast; g > 0 && g < s.n && s.head+g < ChunkRows {
		if ts := s.chunks[0].t; ts[s.head+g-1] < t && ts[s.head+g] >= t {
			return g
		}
	}
	k := s.older(t)
	s.olderLast = k
	return k
}

// older is Older without the guess.
func (s *Store) older(t int64) int {
	if s.n == 0 || s.Time(0) >= t {
		return 0
	}
	// Few older rows (a push's worth, at a small push): count them off
	// the first chunk's times.
	first := s.chunks[0].t[s.head:min(s.head+s.n, ChunkRows)]
	for k, ft := range first[:min(len(first), 32)] {
		if ft >= t {
			return k
		}
	}
	// Gallop: Time(lo) < t, and hi is the first probe at or past t (or
	// the end).
	lo, hi := 0, 1
	for hi < s.n && s.Time(hi) < t {
		lo, hi = hi, min(2*hi, s.n)
	}
	return lo + 1 + sort.Search(hi-lo-1, func(i int) bool { return s.Time(lo+1+i) >= t })
}

// Evict drops the first k rows. Whole chunks go back to a free list, so a
// store in steady state does not allocate.
func (s *Store) Evict(k int) {
	if k <= 0 {
		return
	}
	if k > s.n {
		k = s.n
	}
	if k < s.n && s.head+k < ChunkRows {
		// The rows leave from the first chunk, which keeps some: no chunk
		// is given back (a small push's eviction).
		s.head += k
		s.n -= k
		s.spare = max(s.spare, min(chunksFor(s.added), len(s.chunks)))
		s.added = 0
		return
	}
	s.head += k
	s.n -= k
	drop := s.head / ChunkRows
	if s.n == 0 {
		drop = len(s.chunks)
		s.head = 0
	} else {
		s.head %= ChunkRows
	}
	// Keep as many spare chunks as the rows appended between two
	// evictions can take at most (a push of more rows than a chunk holds
	// takes several before retention gives any back: ceil(rows/ChunkRows)
	// whatever the offset it starts at), at least minSpare and never more
	// than the chunks still held, so a store whose pushes are large does
	// not allocate in steady state and one that shrank keeps no copy of
	// what it held: the spares a burst of rows needed go once the store
	// holds fewer chunks than they are.
	s.spare = max(minSpare, min(max(s.spare, chunksFor(s.added)), len(s.chunks)-drop))
	s.added = 0
	for _, c := range s.chunks[:drop] {
		if len(s.free) >= s.spare {
			break
		}
		for _, j := range s.others {
			if s.kinds[j] == schema.Array {
				clear(c.cols[j].arr())
			}
		}
		s.free = append(s.free, c)
	}
	if len(s.free) > s.spare {
		clear(s.free[s.spare:])
		s.free = s.free[:s.spare]
	}
	if drop > 0 {
		n := copy(s.chunks, s.chunks[drop:])
		clear(s.chunks[n:])
		s.chunks = s.chunks[:n]
	}
}

// chunksFor returns the most chunks that n rows appended at any offset
// take: ceil(n / ChunkRows).
func chunksFor(n int) int { return int((uint(n) + ChunkRows - 1) / ChunkRows) }

// MarkSyms marks in t the intern id of every string cell held (missing
// cells mark the reserved id 0, which is harmless).
func (s *Store) MarkSyms(t *intern.Table) {
	end := s.head + s.n
	for j, k := range s.kinds {
		if k != schema.String {
			continue
		}
		for p := s.head; p < end; {
			o := p % ChunkRows
			to := min(ChunkRows, o+end-p)
			for _, id := range s.chunks[p/ChunkRows].cols[j].sym()[o:to] {
				t.Mark(id)
			}
			p += to - o
		}
	}
}

// minSpare is the number of evicted chunks a store keeps for reuse
// whatever the size of its pushes.
const minSpare = 2

// Bytes returns the memory the store holds, spare chunks included: a
// chunk's cells (8 bytes a row for the time and for an identity, 8 for a
// number, 4 for a string's intern id, 1 for a boolean, 24 for an array
// cell's slice header) and its header — the chunk itself, its list of
// columns and its entry in the store's list, 120 bytes for four columns,
// a sixteenth of a byte a row, which at 30 s of 100,000 rows a second is
// 180 KB — as the allocator sizes them.
func (s *Store) Bytes() int {
	per := 8
	if s.ids {
		per += 8
	}
	for _, k := range s.kinds[1:] {
		switch k {
		case schema.Number:
			per += 8
		case schema.String:
			per += 4
		case schema.Bool:
			per++
		case schema.Array:
			per += 24
		}
	}
	head := allocSize(unsafe.Sizeof(chunk{})) + allocSize(uintptr(len(s.kinds))*unsafe.Sizeof(ccol{})) + unsafe.Sizeof((*chunk)(nil))
	return (len(s.chunks) + len(s.free)) * (ChunkRows*per + int(head))
}

// allocSize returns the bytes the allocator takes for a small object of
// n bytes: its size class, n rounded up to 8 bytes up to 32 and to 16
// above, as the classes are up to 256 bytes (the list of columns of a
// schema of more than 32 columns is a few bytes short).
func allocSize(n uintptr) uintptr {
	if n <= 32 {
		return (n + 7) &^ 7
	}
	return (n + 15) &^ 15
}
