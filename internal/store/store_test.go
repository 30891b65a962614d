package store

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

var sch = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number},
	schema.Column{Name: "s", Kind: schema.String},
	schema.Column{Name: "b", Kind: schema.Bool, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
)

func kinds() []schema.Kind {
	var k []schema.Kind
	for _, c := range sch.Columns() {
		k = append(k, c.Kind)
	}
	return k
}

func source(times []int64) *Source {
	t := schema.NewTable(sch)
	syms := make([][]uint32, sch.Len())
	var ids []uint64
	for i, tm := range times {
		table.Column(t, 0).AppendTime(tm)
		table.Column(t, 1).AppendNum(float64(tm) / 2)
		table.Column(t, 2).AppendStr("x")
		syms[2] = append(syms[2], uint32(i+1))
		table.Column(t, 3).AppendBool(i%2 == 0)
		table.Column(t, 4).AppendArray([]schema.Value{schema.NumberValue(float64(i))})
		ids = append(ids, uint64(100+i))
	}
	return &Source{Table: t, Syms: syms, IDs: ids}
}

func times(s *Store) []int64 {
	var out []int64
	for r := range s.Len() {
		out = append(out, s.Time(r))
	}
	return out
}

func TestAppendAcrossChunksAndEvict(t *testing.T) {
	s := New(kinds(), true)
	n := 3*ChunkRows + 17
	ts := make([]int64, n)
	for i := range ts {
		ts[i] = int64(i)
	}
	src := source(ts)
	s.Append(src, 0, 1000)
	s.Append(src, 1000, n)
	require.Equal(t, n, s.Len())
	assert.Equal(t, ts, times(s))
	assert.Equal(t, float64(ChunkRows+5)/2, s.Num(ChunkRows+5, 1))
	assert.Equal(t, uint32(ChunkRows+6), s.Sym(ChunkRows+5, 2))
	assert.Equal(t, uint64(100+ChunkRows+5), s.ID(ChunkRows+5))
	assert.Equal(t, uint8(2), s.Flag(4, 3))
	assert.Equal(t, uint8(1), s.Flag(5, 3))

	s.Evict(ChunkRows + 3)
	assert.Equal(t, n-ChunkRows-3, s.Len())
	assert.Equal(t, int64(ChunkRows+3), s.Time(0))
	assert.Len(t, s.chunks, 3)
	s.Evict(s.Len())
	assert.Zero(t, s.Len())
	assert.Empty(t, s.chunks)
}

func TestInsertKeepsTimeOrder(t *testing.T) {
	s := New(kinds(), true)
	rng := rand.New(rand.NewPCG(1, 2))
	var want []int64
	for i := range 3 * ChunkRows {
		tm := int64(rng.IntN(1000))
		src := source([]int64{tm})
		src.IDs[0] = uint64(i)
		r := s.UpperBound(tm)
		s.Insert(r, src, 0)
		want = append(want, tm)
		if i%500 == 499 {
			s.Evict(7)
			slices.Sort(want)
			want = want[7:]
		}
	}
	slices.Sort(want)
	assert.Equal(t, want, times(s))
}

func TestBoundsAndSteadyStateDoesNotAllocate(t *testing.T) {
	s := New(kinds()[:3], false)
	tab := schema.NewTable(schema.MustNew(sch.Columns()[:3]...))
	syms := make([][]uint32, 3)
	for i := range 1000 {
		table.Column(tab, 0).AppendTime(int64(i))
		table.Column(tab, 1).AppendNum(1)
		table.Column(tab, 2).AppendStr("x")
		syms[2] = append(syms[2], 1)
	}
	src := &Source{Table: tab, Syms: syms}
	s.Append(src, 0, 1000)
	assert.Equal(t, 10, s.LowerBound(10))
	assert.Equal(t, 11, s.UpperBound(10))
	for range 20 {
		s.Append(src, 0, 1000)
		s.Evict(1000)
	}
	n := allocs.Count(50, func() {
		s.Append(src, 0, 1000)
		s.Evict(1000)
	})
	assert.Zero(t, n)
}

// numSource is a source of n rows of a time and a number column, at times
// from t0 on.
func numSource(n int, t0 int64) *Source {
	tab := schema.NewTable(schema.MustNew(sch.Columns()[:2]...))
	for i := range n {
		table.Column(tab, 0).AppendTime(t0 + int64(i))
		table.Column(tab, 1).AppendNum(1)
	}
	return &Source{Table: tab}
}

func TestPushesLargerThanAChunkDoNotAllocateInSteadyState(t *testing.T) {
	// Each push appends several chunks' worth of rows before retention
	// gives back as many: the store must keep that many spares. The
	// warm-up covers a whole turn of the offset the pushes start at (100
	// rows further each time), so that the push taking the most chunks
	// has been seen.
	s := New(kinds()[:2], false)
	const push = 5*ChunkRows + 100
	src := numSource(push, 0)
	s.Append(src, 0, push)
	for range ChunkRows/100 + 2 {
		s.Append(src, 0, push)
		s.Evict(push)
	}
	n := allocs.Count(50, func() {
		s.Append(src, 0, push)
		s.Evict(push)
	})
	assert.Zero(t, n)
}

func TestASmallEvictionAfterABigAppendKeepsTheSparesItNeeds(t *testing.T) {
	// A few rows leave from the first chunk (no chunk goes back) between
	// a push of several chunks and the eviction that gives them back: the
	// spares must still be sized by that push.
	s := New(kinds()[:2], false)
	const push = 5*ChunkRows + 100
	src := numSource(push, 0)
	s.Append(src, 0, push)
	round := func() {
		s.Append(src, 0, push)
		s.Evict(10)
		s.Evict(push - 10)
	}
	for range ChunkRows/100 + 2 {
		round()
	}
	assert.Zero(t, allocs.Count(50, round))
}

func TestSparesNeverExceedTheChunksHeld(t *testing.T) {
	s := New(kinds()[:2], false)
	const rows = 20 * ChunkRows
	s.Append(numSource(rows, 0), 0, rows)
	// Retention gives back all but a chunk in one go: what the append took
	// is a spare only up to what the store still holds.
	s.Evict(rows - ChunkRows)
	assert.Len(t, s.chunks, 1)
	assert.LessOrEqual(t, len(s.free), max(minSpare, len(s.chunks)))
	assert.Equal(t, (len(s.chunks)+len(s.free))*(ChunkRows*16+80+16+8), s.Bytes())
}

func TestOlderCountsAsLowerBoundDoes(t *testing.T) {
	// Times with runs of equal values, across chunks: every cut, including
	// before the first row, on a time held several times and past the last.
	s := New(kinds()[:2], false)
	const rows = 3*ChunkRows + 7
	tab := schema.NewTable(schema.MustNew(sch.Columns()[:2]...))
	for i := range rows {
		table.Column(tab, 0).AppendTime(int64(i / 3))
		table.Column(tab, 1).AppendNum(1)
	}
	s.Append(&Source{Table: tab}, 0, rows)
	for cut := int64(-2); cut <= rows/3+2; cut++ {
		require.Equal(t, s.LowerBound(cut), s.Older(cut), "cut %d", cut)
	}
	// The first rows a few short of a chunk's end, then in the middle of
	// one: the count of a few older rows, off the first chunk, meets the
	// search past it.
	for _, k := range []int{ChunkRows - 5, 40} {
		s.Evict(k)
		for cut := int64(-2); cut <= rows/3+2; cut++ {
			require.Equal(t, s.LowerBound(cut), s.Older(cut), "evicted %d, cut %d", k, cut)
		}
	}
	// Cuts in random order, each asked twice: the count Older returned
	// last is right for the second and mostly wrong for the first.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		cut := int64(rng.IntN(rows/3+5)) - 2
		require.Equal(t, s.LowerBound(cut), s.Older(cut), "cut %d", cut)
		require.Equal(t, s.LowerBound(cut), s.Older(cut), "cut %d again", cut)
	}
	s.Evict(s.Len())
	assert.Zero(t, s.Older(5))
}

// TestChunkHoldsLittleBesidesItsCells: a chunk of the seed's columns (a
// time, two numbers, a string) allocates its cells and at most 128 bytes
// more; with a slice header per kind and column it was 464.
func TestChunkHoldsLittleBesidesItsCells(t *testing.T) {
	s := New([]schema.Kind{schema.Time, schema.Number, schema.Number, schema.String}, false)
	const n = 64
	cells := ChunkRows * (8 + 8 + 8 + 4)
	// TotalAlloc counts every goroutine's allocations, the runtime's and
	// the test framework's too, so one round on a loaded machine can read
	// high: the least of five rounds is the chunks' own figure.
	per := math.MaxInt
	for range 5 {
		var before, after runtime.MemStats
		chunks := make([]*chunk, 0, n)
		runtime.ReadMemStats(&before)
		for range n {
			chunks = append(chunks, s.newChunk())
		}
		runtime.ReadMemStats(&after)
		per = min(per, int(after.TotalAlloc-before.TotalAlloc)/n)
		runtime.KeepAlive(chunks)
	}
	assert.GreaterOrEqual(t, per, cells)
	assert.LessOrEqual(t, per-cells, 128, "bytes a chunk beyond its cells")
}

// TestEvictKeepsCellsOfEveryKind: rows of every kind read back the same
// after chunks were evicted and reused.
func TestEvictKeepsCellsOfEveryKind(t *testing.T) {
	s := New(kinds(), true)
	for k := range 10 {
		ts := make([]int64, 1500)
		for i := range ts {
			ts[i] = int64(k*1500 + i)
		}
		s.Append(source(ts), 0, len(ts))
		s.Evict(s.Len() - 1000)
		for r := range s.Len() {
			i := int(s.Time(r)) % 1500
			require.Equal(t, float64(s.Time(r))/2, s.Num(r, 1))
			require.Equal(t, uint32(i+1), s.Sym(r, 2))
			require.Equal(t, uint64(100+i), s.ID(r))
			require.Equal(t, map[bool]uint8{true: 2, false: 1}[i%2 == 0], s.Flag(r, 3))
			require.Equal(t, []schema.Value{schema.NumberValue(float64(i))}, s.Arr(r, 4))
		}
	}
}

// TestSparesShrinkWithTheStore: the spares a burst needed are kept while
// the store holds as many chunks, and let go once it holds fewer: they
// are bounded by what the store holds, not by its history.
func TestSparesShrinkWithTheStore(t *testing.T) {
	s := New(kinds()[:2], false)
	const rows = 20 * ChunkRows
	s.Append(numSource(rows, 0), 0, rows)
	s.Evict(ChunkRows)
	require.Len(t, s.chunks, 19)
	// A push of a chunk's rows at a time, each evicting as many: the
	// store shrinks to a few chunks as retention catches up.
	for range 30 {
		s.Append(numSource(ChunkRows, 0), 0, ChunkRows)
		s.Evict(2 * ChunkRows)
	}
	assert.LessOrEqual(t, len(s.chunks), 2)
	assert.LessOrEqual(t, len(s.free), max(minSpare, len(s.chunks)))
}

// TestAppendsOfEverySizeFillEachChunkToItsEnd appends runs of sizes that
// end inside a chunk, exactly at its end and past it, to a store with
// identities and every kind of column: each cell of every row reads back
// as it was appended, and no cell of a chunk's neighbour is written.
func TestAppendsOfEverySizeFillEachChunkToItsEnd(t *testing.T) {
	s := New(kinds(), true)
	n := 3*ChunkRows + 5
	ts := make([]int64, n)
	for i := range ts {
		ts[i] = int64(i)
	}
	src := source(ts)
	for from, k := 0, 1; from < n; k++ {
		to := min(from+k, n)
		if from < ChunkRows && to > ChunkRows-3 {
			to = ChunkRows // a run that ends exactly at the first chunk's end
		}
		s.Append(src, from, to)
		from = to
	}
	require.Equal(t, n, s.Len())
	assert.Equal(t, ts, times(s))
	for r := range n {
		require.Equal(t, float64(r)/2, s.Num(r, 1), "row %d", r)
		require.Equal(t, uint32(r+1), s.Sym(r, 2), "row %d", r)
		require.Equal(t, uint64(100+r), s.ID(r), "row %d", r)
		require.Equal(t, uint8(2-r%2), s.Flag(r, 3), "row %d", r)
	}
	// The cells after the last row were never written: zero.
	last := s.chunks[len(s.chunks)-1]
	o := (s.head + s.n) % ChunkRows
	assert.Zero(t, last.t[o])
	assert.Zero(t, last.cols[1].num()[o])
	assert.Zero(t, last.cols[2].sym()[o])
}

// TestRoomHoldsNothingUntilAppended writes rows' times and numbers in the
// room for them, which changes nothing the store holds (written twice,
// as by a push refused after its check and the next one), then appends
// them with their other columns: the store holds what Append of the same
// rows holds, for a store of every kind with identities and for one of
// numbers and strings without. The room runs out at the end of the last
// chunk.
func TestRoomHoldsNothingUntilAppended(t *testing.T) {
	ts := make([]int64, ChunkRows+40)
	for i := range ts {
		ts[i] = int64(10 * i)
	}
	src := source(ts)
	for _, every := range []bool{true, false} {
		ks := kinds()
		if !every {
			ks = ks[:3] // the time, a number and a string column
		}
		want, s := New(ks, every), New(ks, every)
		want.Append(src, 0, ChunkRows-30)
		s.Append(src, 0, ChunkRows-30)
		pushed := sourceFrom(src, ChunkRows-30, ChunkRows-10)
		room, ok := s.Room(20)
		require.True(t, ok)
		copy(room.Times(20), ts) // a refused push's rows
		copy(room.Nums(1, 20), []float64{-1, -2, -3})
		assert.Equal(t, times(want), times(s))
		copy(room.Times(20), pushed.Table.Times())
		copy(room.Nums(1, 20), table.Column(pushed.Table, 1).Numbers())
		s.AppendRoom(pushed, 20)
		want.Append(src, ChunkRows-30, ChunkRows-10)
		require.Equal(t, want.Len(), s.Len())
		for r := range want.Len() {
			assert.Equal(t, want.Time(r), s.Time(r))
			assert.Equal(t, want.Num(r, 1), s.Num(r, 1))
			assert.Equal(t, want.Sym(r, 2), s.Sym(r, 2))
			assert.Equal(t, want.ID(r), s.ID(r))
			if every {
				assert.Equal(t, want.Flag(r, 3), s.Flag(r, 3))
				assert.Equal(t, want.Arr(r, 4), s.Arr(r, 4))
			}
		}
		assert.Equal(t, uint32(ChunkRows-10), s.Sym(s.Len()-1, 2))
		_, ok = s.Room(11)
		assert.False(t, ok, "the last chunk has room for 10 rows")
		_, ok = s.Room(10)
		assert.True(t, ok)
	}
}

// sourceFrom returns rows [from, to) of src as a source of their own.
func sourceFrom(src *Source, from, to int) *Source {
	t := schema.NewTable(sch)
	syms := make([][]uint32, sch.Len())
	for i := from; i < to; i++ {
		table.Column(t, 0).AppendTime(src.Table.TimeNanos(i))
		for j := 1; j < sch.Len(); j++ {
			table.AppendValue(table.Column(t, j), src.Table.Value(i, j))
		}
	}
	syms[2] = src.Syms[2][from:to]
	return &Source{Table: t, Syms: syms, IDs: src.IDs[from:to]}
}

func TestBytesIsTheHeapTheStoreHolds(t *testing.T) {
	// A store of a number, a string and a boolean with identities, its
	// chunks full: the heap it takes is its cells and its chunks' headers,
	// which Bytes counts, and the store itself with the room of its lists,
	// a few hundred bytes.
	const rows = 64 * ChunkRows
	ts := make([]int64, rows)
	for i := range ts {
		ts[i] = int64(i)
	}
	src := source(ts)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	s := New(kinds()[:4], true)
	s.Append(src, 0, rows)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	held := int64(ms.HeapAlloc) - int64(before)
	runtime.KeepAlive(src)
	// The headers are 64 × 120 bytes: without them Bytes is 7.5 KB short.
	assert.InDelta(t, held, s.Bytes(), 2048, "held %d, Bytes %d", held, s.Bytes())
	runtime.KeepAlive(s)
}
