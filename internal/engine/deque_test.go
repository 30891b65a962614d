package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
)

const testStride = 3

func testPool() *blockPool {
	p := &blockPool{}
	p.setStride(testStride)
	return p
}

// pushRow appends a row whose slots are v, v+1, v+2.
func pushRow(d *deque, p *blockPool, v uint64) {
	r := d.push(p)
	for k := range r {
		r[k] = v + uint64(k)
	}
}

// requireRows checks that d holds exactly the rows front … tail−1, row a
// holding a, a+1, a+2, and that its blocks have the lengths the ring
// gives them (see requireBlocks).
func requireRows(t *testing.T, d *deque) {
	t.Helper()
	requireBlocks(t, d)
	for a := d.front; a < d.tail; a++ {
		r := d.row(a)
		require.Equal(t, []uint64{a, a + 1, a + 2}, r, "row %d", a)
		require.Equal(t, int64(a), d.time(a))
	}
}

// requireBlocks checks the deque's blocks against its ring: blockRows
// rows each, but the last block's lrows, all of them the ring's cap; and
// that the run seg gives from each row held is the rows that follow it
// in its block, up to the block's end.
func requireBlocks(t *testing.T, d *deque) {
	t.Helper()
	st := int(d.stride)
	rows := 0
	for k := range d.blocks {
		want := blockRows
		if k == len(d.blocks)-1 {
			want = int(d.lrows)
		}
		require.Len(t, d.block(k), want*st, "block %d of %d", k, len(d.blocks))
		rows += want
	}
	require.Equal(t, uint64(rows), d.cap, "the blocks' rows")
	for a := d.front; a < d.tail; a++ {
		blk, i, n := d.seg(a)
		q := d.pos(a)
		end := blockRows
		if int(q/blockRows) == len(d.blocks)-1 {
			end = int(d.lrows)
		}
		require.Equal(t, end-int(q%blockRows), n, "row %d: rows to its block's end", a)
		require.Same(t, &d.row(a)[0], &blk[i*st], "row %d", a)
		if last := a + uint64(n) - 1; last < d.tail {
			require.Same(t, &d.row(last)[0], &blk[(i+n-1)*st], "row %d: the last of the run from row %d", last, a)
		}
	}
}

func TestDequeKeepsItsRowsAsItGrowsAndSlides(t *testing.T) {
	// Windows of several sizes, each slid far past its own size: the
	// rows held stay the right ones through small blocks that grow or
	// move their rows back, and through full blocks.
	for _, held := range []int{1, 5, 9, 13, 40, 61, 100, 300, 1000} {
		p := testPool()
		d := deque{stride: testStride}
		for a := range uint64(10 * held) {
			pushRow(&d, p, a)
			if d.len() > held {
				d.dropTo(d.tail-uint64(held), p)
			}
			require.Equal(t, []uint64{a, a + 1, a + 2}, d.row(a))
			if a%uint64(held) == 0 {
				requireRows(t, &d)
			}
		}
		requireRows(t, &d)
		assert.Equal(t, held, d.len())
		d.dropTo(d.tail, p)
		assert.Zero(t, d.len())
		pushRow(&d, p, d.tail)
		requireRows(t, &d)
		d.release(p)
		assert.Zero(t, p.inUse, "held=%d: every block back in the pool", held)
	}
}

func TestALargeDequeGrowsByFullBlocksWithoutMovingItsRows(t *testing.T) {
	// A window filling at a high rate: once the ring has fullGrowBlocks
	// full blocks, it grows a full block at a time, so no row taken
	// after that moves, and the room beyond its rows stays under a
	// block. Both held and wrapped rings keep their rows.
	p := testPool()
	d := deque{stride: testStride}
	large := uint64(fullGrowBlocks * blockRows)
	for a := range large {
		pushRow(&d, p, a)
	}
	pushRow(&d, p, large)
	at := &d.row(large)[0]
	for a := large + 1; a < 3*large; a++ {
		pushRow(&d, p, a)
		require.Same(t, at, &d.row(large)[0], "row %d moved when row %d was taken", large, a)
		require.Less(t, d.cap-uint64(d.len()), uint64(blockRows), "room beyond the rows after row %d", a)
	}
	requireRows(t, &d)
	// Slid at a steady size, the ring wraps and still holds its rows.
	for a := 3 * large; a < 5*large; a++ {
		pushRow(&d, p, a)
		d.dropTo(d.tail-2*large, p)
	}
	requireRows(t, &d)
	d.release(p)
	assert.Zero(t, p.inUse, "every block back in the pool")
}

func TestDequeOfAFewRowsHoldsASmallBlock(t *testing.T) {
	// 61 rows, the minute of a host at one event per second: the deque
	// settles on one short block (64 rows), and no longer allocates.
	p := testPool()
	d := deque{stride: testStride}
	slide := func() {
		pushRow(&d, p, d.tail)
		if d.len() > 61 {
			d.dropTo(d.tail-61, p)
		}
	}
	for range 1000 {
		slide()
	}
	require.Len(t, d.blocks, 1)
	assert.Same(t, &d.one[0], &d.blocks[0], "the list of one block is the deque's own")
	assert.Equal(t, 8*testStride*64, d.bytes(), "one 64-row block, its list in the deque")
	assert.Zero(t, allocs.Count(1000, slide))
}

func TestPoolLetsGoOfOutgrownSmallBlocks(t *testing.T) {
	// Many deques grow through the small sizes at once: the blocks they
	// outgrow are not all kept once no deque uses that size.
	p := testPool()
	ds := make([]deque, 1000)
	for i := range ds {
		ds[i].stride = testStride
	}
	for range 100 {
		for i := range ds {
			pushRow(&ds[i], p, ds[i].tail)
		}
	}
	for c := range p.full {
		if p.inUse[c] == 0 {
			assert.LessOrEqual(t, len(p.free[c]), 2, "class %d: spares of a size no deque uses", c)
		}
	}
	for i := range ds {
		requireRows(t, &ds[i])
	}
}

func TestDequeRingGrowsWhereverItWrappedAndKeepsItsRows(t *testing.T) {
	// A window that slides while its size wanders up and down: the ring
	// grows while wrapped (its tail in the short last block or in a full
	// one), and holds its rows in order throughout.
	p := testPool()
	d := deque{stride: testStride}
	held, seed := 1, uint64(1)
	for step := range 20000 {
		seed = seed*6364136223846793005 + 1442695040888963407
		switch {
		case step < 15000 && seed>>61 == 0:
			held += int(seed >> 58 % 7)
		case step >= 15000 && seed>>61 == 0 && held > 1:
			held--
		}
		pushRow(&d, p, d.tail)
		if d.len() > held {
			d.dropTo(d.tail-uint64(held), p)
		}
		if step%97 == 0 {
			requireRows(t, &d)
		}
		require.LessOrEqual(t, uint64(d.len()), d.cap)
	}
	requireRows(t, &d)
	d.release(p)
	assert.Zero(t, p.inUse, "every block back in the pool")
}

func TestDequeRingHoldsItsRowsPlusAStep(t *testing.T) {
	// Windows sliding at a steady size: the ring's room is the rows'
	// high-water mark rounded up to the next step of the last block, and
	// sliding on neither allocates nor moves rows. A step is at most 32
	// rows up to 256-row blocks; above, the allocator's sizes between
	// 12 and 24 KB are up to a seventh apart (601 rows of 3 slots take
	// a 682-row block, the class above 597 rows).
	for _, held := range []int{5, 61, 601, 6101} {
		p := testPool()
		d := deque{stride: testStride}
		slide := func() {
			pushRow(&d, p, d.tail)
			if d.len() > held {
				d.dropTo(d.tail-uint64(held), p)
			}
		}
		for range 3 * held {
			slide()
		}
		requireRows(t, &d)
		assert.Less(t, d.cap, uint64(held+max(32, int(d.lrows)/7)), "held=%d", held)
		assert.LessOrEqual(t, cap(d.blocks), max(len(d.one), len(d.blocks)+1+len(d.blocks)/8), "held=%d: block list", held)
		assert.Zero(t, allocs.Count(1000, slide), "held=%d", held)
	}
}

func TestDequeRingThatShrankGivesBlocksBack(t *testing.T) {
	// A window of 5,000 rows that falls to 100: the ring gives back its
	// blocks down to twice the rows it holds.
	p := testPool()
	d := deque{stride: testStride}
	for range 5000 {
		pushRow(&d, p, d.tail)
	}
	d.dropTo(d.tail-3000, p)
	for range 2000 {
		pushRow(&d, p, d.tail)
		d.dropTo(d.tail-3000, p)
	}
	d.dropTo(d.tail-100, p)
	requireRows(t, &d)
	assert.LessOrEqual(t, d.cap, uint64(2*100+blockRows))
	for range 1000 {
		pushRow(&d, p, d.tail)
		d.dropTo(d.tail-100, p)
	}
	requireRows(t, &d)
}

func TestPoolKeepsFewRowsOfShortSpares(t *testing.T) {
	// Many deques grow in step through every short class to more than a
	// full block: once none uses a short class, the pool keeps at most
	// spareShortRows rows of its blocks (2 of each class up to 1,024-row
	// blocks were 494 bytes a partition at 1,000 partitions).
	p := testPool()
	ds := make([]deque, 200)
	for i := range ds {
		ds[i].stride = testStride
	}
	for range blockRows + 100 {
		for i := range ds {
			pushRow(&ds[i], p, ds[i].tail)
		}
	}
	for c := range p.full {
		if p.inUse[c] > 0 {
			continue // the last blocks' class
		}
		assert.LessOrEqual(t, p.rows[c]*len(p.free[c]), spareShortRows, "class %d (%d rows): %d spares", c, p.rows[c], len(p.free[c]))
	}
	for i := range ds {
		requireRows(t, &ds[i])
	}
}

func TestDequesFillingInStepLeaveNoSlabRoom(t *testing.T) {
	// A hundred deques fill their windows in step and each cuts its last
	// block to its peak: the slabs are made for the deques still in the
	// class they leave, so the last one is used up.
	const span = 60000
	p := testPool()
	p.span = span
	ds := make([]deque, 100)
	for i := range ds {
		ds[i].stride = testStride
	}
	for ds[0].tail < 1400 {
		for i := range ds {
			slideTimed(&ds[i], p, span)
		}
	}
	for i := range ds {
		require.Equal(t, int8(cutClass), ds[i].last, "deque %d", i)
		requireTimed(t, &ds[i])
	}
	assert.Zero(t, len(p.slab), "slots left in the slab")
}

func TestPoolFreeListShrinksWithItsSpares(t *testing.T) {
	// A thousand deques outgrow their first size at once: the spares of
	// that size, and the list that held them, go back down to the floor.
	p := testPool()
	ds := make([]deque, 1000)
	for i := range ds {
		ds[i].stride = testStride
	}
	for range p.rows[0] + 1 {
		for i := range ds {
			pushRow(&ds[i], p, ds[i].tail)
		}
	}
	assert.Zero(t, p.inUse[0])
	assert.LessOrEqual(t, len(p.free[0]), p.minSpare(0))
	assert.LessOrEqual(t, cap(p.free[0]), 4*p.minSpare(0))
}

func TestDequeLongRingGrowingWhileWrappedKeepsItsRowsInPlace(t *testing.T) {
	// A ring of 5,000 rows (more than rotateMax), wrapped with its tail
	// in a full block, that must take one row more: it takes a full block
	// at the tail, its rows staying where they are (none rotated), and
	// holds them in order.
	p := testPool()
	d := deque{stride: testStride}
	require.Greater(t, 5000, rotateMax)
	for range 5000 {
		pushRow(&d, p, d.tail)
	}
	for d.pos(d.tail) == 0 || d.pos(d.tail)/blockRows == uint64(len(d.blocks)-1) {
		pushRow(&d, p, d.tail)
		d.dropTo(d.front+1, p)
	}
	for d.len() < int(d.cap) {
		pushRow(&d, p, d.tail)
	}
	front, held := &d.row(d.front)[0], d.cap
	pushRow(&d, p, d.tail)
	assert.Same(t, front, &d.row(d.front)[0], "the front row did not move")
	assert.Equal(t, held+blockRows, d.cap)
	requireRows(t, &d)
}

func TestDequeListsABlockInEightBytes(t *testing.T) {
	// A minute at 100 rows a second: five full blocks and a last one,
	// listed by their first slots in 48 bytes (their slices took 144 a
	// partition of the seed at 1,000 hosts).
	p := testPool()
	d := deque{stride: testStride}
	for d.len() < 6000 {
		pushRow(&d, p, d.tail)
	}
	require.Len(t, d.blocks, 6)
	requireBlocks(t, &d)
	blocks := 0
	for k := range d.blocks {
		blocks += 8 * len(d.block(k))
	}
	assert.Equal(t, 48, d.bytes()-blocks, "the list of six blocks")
}

func TestDequeListMovesOutOfTheDequeAndBackWhenReleased(t *testing.T) {
	// A deque's first three blocks are listed in the deque itself;
	// growing to more blocks moves the list out with its rows, and a
	// released deque lists its next first block in itself again.
	p := testPool()
	d := deque{stride: testStride}
	pushRow(&d, p, d.tail)
	require.Same(t, &d.one[0], &d.blocks[0])
	for len(d.blocks) < len(d.one) || int(d.lrows) < blockRows {
		pushRow(&d, p, d.tail)
	}
	require.Len(t, d.blocks, len(d.one))
	assert.Same(t, &d.one[0], &d.blocks[0], "three full blocks are listed in the deque")
	for len(d.blocks) == len(d.one) {
		pushRow(&d, p, d.tail)
	}
	assert.NotSame(t, &d.one[0], &d.blocks[0], "a list of four blocks is one of its own")
	requireRows(t, &d)
	d.release(p)
	for range 20 {
		pushRow(&d, p, d.tail)
	}
	assert.Same(t, &d.one[0], &d.blocks[0])
	requireRows(t, &d)
	d.release(p)
	assert.Zero(t, p.inUse)
}

func TestAllocClassesAreTheAllocatorsSizes(t *testing.T) {
	// Each size in allocClasses is one the allocator hands out whole: a
	// slice grown to it has exactly that capacity, and one a byte larger
	// gets more.
	for _, c := range allocClasses {
		assert.Equal(t, c, cap(slices.Grow([]byte(nil), c)), "size %d", c)
	}
	for i := 1; i < len(allocClasses); i++ {
		// No size between two listed ones.
		c := allocClasses[i-1] + 1
		assert.Equal(t, allocClasses[i], cap(slices.Grow([]byte(nil), c)), "after %d", allocClasses[i-1])
	}
}

func TestPoolClassesFillTheirAllocations(t *testing.T) {
	// For every row width, the short classes rise by minStep rows or
	// more, start at 8 rows, end below a full block, and each block's
	// allocation has room for less than one more row.
	for stride := 1; stride <= 24; stride++ {
		p := &blockPool{}
		p.setStride(stride)
		rb := 8 * stride
		assert.Equal(t, blockRows, p.rows[p.full], "stride %d", stride)
		// Room for one class more: none was left out.
		assert.Less(t, p.full, sizeClasses-1, "stride %d", stride)
		assert.Equal(t, 8, p.rows[0], "stride %d", stride)
		for c := 1; c < p.full; c++ {
			assert.GreaterOrEqual(t, p.rows[c], p.rows[c-1]+minStep, "stride %d class %d", stride, c)
		}
		for c := range p.full {
			bytes := p.rows[c] * rb
			if bytes > allocClasses[len(allocClasses)-1] {
				continue
			}
			got := cap(slices.Grow([]byte(nil), bytes))
			assert.Less(t, got-bytes, rb, "stride %d class %d: %d rows in %d bytes", stride, c, p.rows[c], got)
		}
	}
	// Rows of 3 slots, the seed pipeline's: 64 rows for a host at one
	// event a second, 597 below a minute at 10 (601 rows), 906 above the
	// last block of a minute at 100 (6,001 rows: 5 full blocks and 881
	// rows).
	p := testPool()
	assert.Equal(t, []int{8, 16, 32, 64, 74, 85, 96, 112, 128, 133, 144, 170, 202, 224, 256,
		272, 282, 288, 341, 394, 405, 426, 453, 512, 565, 597, 682, 768, 794, 853, 906, 1024}, p.rows[:p.full+1])
}

// pushTimed appends row a (the deque's tail) at time 100·a: rows 100 ns
// apart, as a host's rows 100 ms apart.
func pushTimed(d *deque, p *blockPool) {
	a := d.tail
	r := d.push(p)
	r[0], r[1], r[2] = 100*a, a, a+1
}

// requireTimed checks that d holds exactly the rows pushTimed wrote.
func requireTimed(t *testing.T, d *deque) {
	t.Helper()
	for a := d.front; a < d.tail; a++ {
		require.Equal(t, []uint64{100 * a, a, a + 1}, d.row(a), "row %d", a)
	}
}

// slideTimed pushes two rows (a clock's tick) into d and drops the rows
// more than span before the newest (a window of span), and returns the
// rows held before the drop.
func slideTimed(d *deque, p *blockPool, span uint64) uint64 {
	pushTimed(d, p)
	pushTimed(d, p)
	held := d.tail - d.front
	if newest := 100 * (d.tail - 1); newest > span {
		lim := newest - span
		a := d.front
		for a < d.tail && uint64(d.time(a)) < lim {
			a++
		}
		d.dropTo(a, p)
	}
	return held
}

func TestAFillingDequeCutsItsLastBlockToItsPeak(t *testing.T) {
	// The seed's minute at 10 rows a second: 601 rows a window, 603 at a
	// fold's peak, on one block. The allocator's class above the 597-row
	// one is 682 rows; foreseeing its peak from the pool's span, the
	// filling deque cuts its block to 604 rows (601 for the window, 2.3
	// for a short tick, even).
	const span = 60000
	for _, c := range []struct {
		span      int64
		wantCap   uint64
		wantClass int8
	}{{0, 682, 26}, {span, 604, cutClass}} {
		p := testPool()
		p.span = c.span
		d := deque{stride: testStride}
		var peak uint64
		for d.tail < 5000 {
			peak = max(peak, slideTimed(&d, p, span))
			if d.tail%97 == 0 {
				requireTimed(t, &d)
			}
		}
		requireTimed(t, &d)
		assert.Equal(t, uint64(603), peak)
		assert.Equal(t, c.wantCap, d.cap, "span %d: the ring", c.span)
		assert.Equal(t, c.wantClass, d.last, "span %d: the last block's class", c.span)
		// Sliding at its size, the ring takes nothing more.
		n := allocs.Count(100, func() { slideTimed(&d, p, span) })
		assert.Zero(t, n, "span %d", c.span)
		requireTimed(t, &d)
		d.release(p)
		assert.Zero(t, p.inUse, "span %d: every class block back", c.span)
	}
}

func TestACutBlockOutgrownStepsToAClass(t *testing.T) {
	// The rate doubles once the deque has foreseen its peak: the cut
	// block is outgrown, the ring steps to the class above it, and every
	// row stays in place. Many deques' cut blocks share slabs, which
	// their rounding wastes little of.
	const span = 60000
	p := testPool()
	p.span = span
	d := deque{stride: testStride}
	for d.tail < 598 {
		slideTimed(&d, p, span)
	}
	require.Equal(t, int8(cutClass), d.last, "cut while filling")
	for d.tail < 1400 {
		pushRow(&d, p, d.tail) // rows whose times do not move: the window only grows
	}
	for a := d.front; a < 598; a++ {
		require.Equal(t, []uint64{100 * a, a, a + 1}, d.row(a), "row %d", a)
	}
	for a := uint64(598); a < d.tail; a++ {
		require.Equal(t, []uint64{a, a + 1, a + 2}, d.row(a), "row %d", a)
	}
	assert.NotEqual(t, int8(cutClass), d.last, "stepped to a class")
	assert.Equal(t, p.classRows(int(d.last)), int(d.lrows))
	d.release(p)
	assert.Zero(t, p.inUse)

	for _, size := range []int{2208, 1464, 4200, 24 * 250} {
		for _, want := range []int{1, 2, 5, 16, 64} {
			k := slabBlocks(size, want)
			require.True(t, k <= want && k > want/2, "size %d want %d: %d blocks", size, want, k)
			if want == 64 {
				assert.Less(t, (allocBytes(k*size)-k*size)/k, 128, "size %d: room a block", size)
			}
		}
	}
}

func TestPlanGivesItsPoolTheLongestSpan(t *testing.T) {
	plan, err := NewPlan(benchSchema, seedWindows, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(time.Minute), plan.pool.span, "the seed's 1m window")
	count, err := NewPlan(testSchema, []rolling.Window{{Count: 5, Aggs: []reduce.Agg{{Out: "s", From: "v", Using: reduce.Sum}}}}, rolling.Options{}, nil, nil)
	require.NoError(t, err)
	assert.Zero(t, count.pool.span, "a count window foresees no span")
	assert.Equal(t, 5, count.pool.count, "but its count")
}

func TestRowsTakenBeforeTheirFoldFitTheCutRing(t *testing.T) {
	// A row every 100 units, as the seed's hosts at 100 (and 200) rows a
	// second: a 1m window of 6,000 (12,000) rows and a 200 ms step of 20
	// (40). First ticks take their rows, evicting first; then the rows
	// are handed to a worker between ticks and enter before the tick
	// evicts, so the ring holds a step's rows beside the window's. With
	// the pool's ahead at the step, the filling deque cuts its last block
	// to that peak (6,022 and 12,042 rows, even), also above the class
	// after its block (the 768-row one, at 12,042), and the wrapped ring
	// then slides without growing. Without ahead both rings, cut to the
	// window alone, took a full block of 1,024 rows at the first step
	// handed over.
	for _, c := range []struct {
		span, step int64
		wantCap    uint64
	}{{600000, 2000, 6022}, {1200000, 4000, 12042}} {
		p := testPool()
		p.span, p.ahead = c.span, c.step
		span, per := uint64(c.span), uint64(c.step/100)
		d := deque{stride: testStride}
		drop := func(newest uint64) {
			if newest <= span {
				return
			}
			a := d.front
			for a < d.tail && uint64(d.time(a)) < newest-span {
				a++
			}
			d.dropTo(a, p)
		}
		for d.tail < span/100+2000 { // ticks take their rows: evict first
			drop(100 * (d.tail + per - 1))
			for range per {
				pushTimed(&d, p)
			}
		}
		handOver := func() { // rows in before the tick evicts
			for range per {
				pushTimed(&d, p)
			}
			drop(100 * (d.tail - 1))
		}
		n := allocs.Count(int(2*span/100/per), handOver)
		requireTimed(t, &d)
		assert.Equal(t, c.wantCap, d.cap, "span %d: the ring", c.span)
		assert.Equal(t, int8(cutClass), d.last, "span %d: its last block cut", c.span)
		assert.Zero(t, n, "span %d: allocations of rings sliding with rows handed over", c.span)
	}
}

// pushCountingMoves pushes the next timed row into d and returns the rows
// the push moved: those of the last block, when it grew into a new one.
func pushCountingMoves(d *deque, p *blockPool) int {
	k, lrows := len(d.blocks), int(d.lrows)
	var last *uint64
	if k > 0 {
		last = d.blocks[k-1]
	}
	pushTimed(d, p)
	if k > 0 && k == len(d.blocks) && last != d.blocks[k-1] {
		return lrows
	}
	return 0
}

func TestAFillingDequeMovesItsRowsAtMostTwice(t *testing.T) {
	// Windows filling at a steady rate, two rows a tick, each tick
	// evicting first (600 and 6,000 rows, the seed's minute at 10 and
	// 100 rows a second): foreseeing its peak, the ring doubles its short
	// last block rather than stepping through every class (a seventh
	// apart above 64 rows), and starts each block after a full one at the
	// rows it foresees; so its rows move, in all, fewer than twice the
	// rows the ring ends with (its first block's doublings from 8 rows to
	// 512), and it still ends cut to its peak. Stepping through the
	// classes moved them about ten times (the first minute of the seed at
	// 1,000 hosts spent three quarters of its time moving rows).
	for _, c := range []struct {
		span    uint64
		wantCap uint64
	}{{60000, 604}, {600000, 6002}} {
		p := testPool()
		p.span = int64(c.span)
		d := deque{stride: testStride}
		moved := 0
		for d.tail < 2*c.span/100 {
			if newest := 100 * (d.tail + 1); newest > c.span {
				a := d.front
				for a < d.tail && uint64(d.time(a)) < newest-c.span {
					a++
				}
				d.dropTo(a, p)
			}
			for range 2 {
				moved += pushCountingMoves(&d, p)
			}
		}
		requireTimed(t, &d)
		assert.Equal(t, c.wantCap, d.cap, "span %d: the ring cut to its peak", c.span)
		assert.Less(t, moved, 2*int(c.wantCap), "span %d: rows moved while the ring filled", c.span)
		d.release(p)
		assert.Zero(t, p.inUse, "span %d: every class block back", c.span)
	}
}

func TestAFillingCountWindowMovesItsRowsAtMostTwice(t *testing.T) {
	// A count window of 600 and of 6,000 rows, filling: the ring foresees
	// its count, steps as a time window's does, and ends on the same
	// class as a ring that stepped through every class (its room above
	// the count holds the rows of a tick that enter before the fold
	// evicts), having moved fewer than twice its rows, not ten times.
	for _, c := range []struct {
		count   int
		wantCap uint64
	}{{600, 682}, {6000, 6026}} {
		p := testPool()
		p.count = c.count
		d := deque{stride: testStride}
		moved := 0
		for d.len() < c.count {
			moved += pushCountingMoves(&d, p)
		}
		for range 3 * c.count { // sliding at its count
			pushTimed(&d, p)
			d.dropTo(d.tail-uint64(c.count), p)
		}
		requireTimed(t, &d)
		assert.Equal(t, c.wantCap, d.cap, "count %d: the ring", c.count)
		assert.NotEqual(t, int8(cutClass), d.last, "count %d: its last block of a class", c.count)
		assert.Less(t, moved, 2*int(c.wantCap), "count %d: rows moved while the ring filled", c.count)
		d.release(p)
		assert.Zero(t, p.inUse, "count %d: every class block back", c.count)
	}
}

func TestADequeMisforeseeingItsPeakHoldsNoMoreRoomThanRows(t *testing.T) {
	// A burst, then a trickle: the rate of the rows held foresees a peak
	// far above what the window will hold. The ring takes more room than
	// the classes' steps would, but never more than the rows it holds
	// (the first classes aside), and keeps its rows.
	const span = 600000
	p := testPool()
	p.span = span
	d := deque{stride: testStride}
	at := int64(0)
	for a := range 6000 {
		if a < 3000 {
			at++ // 3,000 rows in 3,000 units: a peak of 600,000 foreseen
		} else {
			at += 1000
		}
		r := d.push(p)
		r[0], r[1], r[2] = uint64(at), uint64(a), uint64(a)+1
		require.LessOrEqual(t, d.cap-uint64(d.len()), uint64(max(d.len(), 64)), "after row %d", a)
	}
	for a := d.front; a < d.tail; a++ {
		require.Equal(t, []uint64{a, a + 1}, d.row(a)[1:], "row %d", a)
	}
	d.release(p)
	assert.Zero(t, p.inUse)
}
