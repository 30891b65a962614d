package engine

import (
	"math"
	"sync"
	"unsafe"

	"github.com/pond-go/pond/internal/reducers"
)

// blockRows is the number of rows in a full deque block; a power of two.
// A minute at 100 rows a second is 5 full blocks and a last one, whose
// list takes 48 bytes (at 256 rows, 24 blocks took 640 bytes a
// partition, when a block was listed by its 24-byte slice); a minute at
// 10 rows a second is one block, listed in the deque itself.
const blockRows = 1024

// A deque is a ring of full blocks and one last block that grows a step
// at a time, so that the ring holds at most its high-water mark of rows
// plus one step: a host with a few dozen rows in its windows does not pay
// for a full block (at 3 slots a row, a full block is 24 KB), and one with
// thousands does not hold a partly-used block at each end. The steps are
// the pool's classes (see blockPool.setStride): 8, 16, 32 and 64 rows,
// then each size the allocator has for objects between 64 rows and a full
// block, at least minStep rows apart, so that a last block has no room
// the allocator rounds away and the ring no more than a step (a seventh
// or less above 64 rows) beyond its rows. While a deque fills its
// windows (time windows with rows in order, or a count window), it
// foresees the rows it will hold (see foresee) and steps faster: its
// last block about doubles (to the largest class of at most twice its
// rows) until it reaches them, cut to them at the last for time
// windows, and a
// block after a full one starts at a full block or half the rows
// foreseen for it. Stepping a class at a time moved each row about ten
// times as a window filled; so the room a filling ring holds is at most
// as many rows as it holds (the first classes aside), and once its
// windows are full, a step again.

// sizeClasses is the most block sizes a pool has: the short ones, then
// full (rows of one slot have the most: 32 short classes up to 1,024
// rows).
const sizeClasses = 34

// firstRows are the rows of the first short classes, in doublings.
var firstRows = [...]int{8, 16, 32, 64}

// minStep is the fewest rows a short class has beyond the one before.
// At 8 it left out the 133-row class of 3-slot rows (a 3,200-byte
// object): a minute of 100 rows a second peaks at 6,021 rows, 133 past
// 23 full blocks, and its ring took a 144-row last block, 11 rows of
// room (264 bytes) it never used. At 4 a pool still has at most 17
// classes for rows of 1 to 6 slots.
const minStep = 4

// allocClasses are the sizes, in bytes, in which the Go allocator hands
// out small objects, from 64 bytes to 32 KB (the runtime's size classes;
// TestAllocClassesAreTheAllocatorsSizes checks each): a block of rows is
// made of the largest number of rows that fills one.
var allocClasses = [...]int{
	64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896,
	1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200,
	3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728,
	10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480,
	21760, 24576, 27264, 28672, 32768,
}

// fillRows returns the rows of rowBytes bytes each that fill the
// allocator's size for rows of them (as many as fit in the smallest size
// that holds them), or rows itself beyond 32 KB.
func fillRows(rows, rowBytes int) int {
	for _, c := range allocClasses {
		if c >= rows*rowBytes {
			return c / rowBytes
		}
	}
	return rows
}

// blockPool recycles deque blocks among the engines of one plan, one free
// list per block size: the last blocks a deque outgrows as it fills, and
// the blocks of deques that shrank or were released, which partitions
// that grow or are created take up again.
type blockPool struct {
	size   int // uint64 slots per full block
	stride int // uint64 slots per row
	// rows[c] is the rows of blocks of class c, ascending; class full
	// is the full block.
	rows  [sizeClasses]int
	full  int
	free  [sizeClasses][][]uint64
	inUse [sizeClasses]int
	// A worker's pool during a tick split over workers: it holds nothing
	// and gets and puts in the plan's pool, under mu (a block changes
	// hands only when a deque grows or shrinks, so the lock is rare).
	shared *blockPool
	mu     *sync.Mutex
	// span is the longest window of the deques' plan, in nanoseconds,
	// when its windows are time windows (else 0): from it a deque that
	// is still filling its windows foresees its peak (see cutRows).
	span int64
	// ahead is how much later than the fold that evicts for them rows
	// may enter the deques, in nanoseconds: 0, or the clock's step once
	// a group has handed rows to a worker between ticks (see
	// Group.handOffTo), where a deque holds the rows of up to a step
	// beside its windows' until the tick evicts. A deque filling its
	// windows foresees its peak over span + ahead (see cutRows); without
	// it, every deque of the seed's 1000 × 100 outgrew its cut block by
	// the step's 20 rows in a wrapped ring, which took a full block of
	// 1,024 rows (24 KB a partition) to hold them.
	ahead int64
	// count is the rows of the plan's window when it is a count window
	// (else 0): a deque filling it foresees its peak from it (see
	// foresee).
	count int
	// slab is room that last blocks cut to a deque's peak are taken
	// from (see cut): they are sized to the row, not to the allocator's
	// classes, and are not pooled.
	slab []uint64
}

// cutClass is the class of a last block cut to a deque's peak (see
// cutRows): of no class, its rows its own.
const cutClass = -1

// cutSlabMax is the most blocks a slab of cut blocks is made for.
const cutSlabMax = 64

// cut returns a block of rows rows, from the slab, for a deque whose last
// block is of class c (cutClass for a cut one). A new slab holds a block
// for each deque whose last block is of that class (up to cutSlabMax):
// deques that fill their windows in step leave a class together and cut
// blocks of about the same rows, so the last slab of a burst holds about
// the blocks still to cut, and leaves little room unused once the deques
// are full. Of about that many, the number the allocator's rounding of
// the slab wastes least on.
func (p *blockPool) cut(rows, c int) []uint64 {
	if p.shared != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.shared.cut(rows, c)
	}
	n := rows * p.stride
	if len(p.slab) < n {
		want := 1
		if c != cutClass {
			want = min(max(p.inUse[c], 1), cutSlabMax)
		}
		p.slab = make([]uint64, n*slabBlocks(8*n, want))
	}
	b := p.slab[:n:n]
	p.slab = p.slab[n:]
	return b
}

// slabBlocks returns how many blocks of size bytes a slab is made for:
// want, or fewer but more than half of want, whichever leaves the least
// room a block in the allocator's rounding of the slab.
func slabBlocks(size, want int) int {
	best, waste := want, math.MaxInt
	for k := want; k > want/2; k-- {
		if w := (allocBytes(k*size) - k*size) / k; w < waste {
			best, waste = k, w
		}
	}
	return best
}

// allocBytes returns the bytes the allocator takes for an object of n
// bytes without pointers: its size class up to 32 KB, whole 8 KB pages
// beyond.
func allocBytes(n int) int {
	if n > allocClasses[len(allocClasses)-1] {
		return (n + 8191) &^ 8191
	}
	for _, c := range allocClasses {
		if c >= n {
			return c
		}
	}
	return n
}

// windowSpan returns the span deques foresee their peak from, 0 for none,
// and how much later than their fold rows may enter (see ahead).
func (p *blockPool) windowSpan() (span, ahead int64) {
	if p.shared != nil {
		return p.shared.span, p.shared.ahead
	}
	return p.span, p.ahead
}

// windowCount returns the rows of the plan's count window, 0 for none.
func (p *blockPool) windowCount() int {
	if p.shared != nil {
		return p.shared.count
	}
	return p.count
}

// setStride sizes the pool's blocks for rows of stride slots, and
// chooses its classes.
func (p *blockPool) setStride(stride int) {
	p.stride = stride
	p.size = blockRows * stride
	rb := 8 * stride
	n := 0
	add := func(r int) {
		if r < blockRows && (n == 0 || r >= p.rows[n-1]+minStep) && n < sizeClasses-1 {
			p.rows[n] = r
			n++
		}
	}
	for _, r := range firstRows {
		add(min(fillRows(r, rb), blockRows-1))
	}
	for _, c := range allocClasses {
		if r := c / rb; r > p.rows[n-1] {
			add(r)
		}
	}
	p.rows[n] = blockRows
	p.full = n
}

// classRows returns the rows of blocks of class c.
func (p *blockPool) classRows(c int) int {
	if p.shared != nil {
		return p.shared.classRows(c)
	}
	return p.rows[c]
}

// fullClass returns the class of full blocks.
func (p *blockPool) fullClass() int {
	if p.shared != nil {
		return p.shared.full
	}
	return p.full
}

// spareFullRows and spareShortRows are the rows of spare blocks of one
// class a pool keeps whatever the blocks in use: full blocks for 16,384
// rows (16 blocks; it was 64 blocks of 256 rows), and blocks of a short
// class for 256 rows, at most 2 of them (2 of each class up to 128 rows,
// 1 up to 256, none above). Short classes rise to a full block, and a
// size that deques outgrew during their warm-up is not used again: 2 of
// each class up to a 1,024-row block held 494 bytes a partition at
// 1,000 partitions (8 of each up to 256 rows, 150 bytes).
const (
	spareFullRows  = 16384
	spareShortRows = 256
)

// minSpare returns the number of spare blocks of class c a pool may keep
// whatever the blocks in use (see spareFullRows).
func (p *blockPool) minSpare(c int) int {
	if c == p.full {
		return spareFullRows / blockRows
	}
	return min(2, spareShortRows/p.rows[c])
}

// get returns a block of class c.
func (p *blockPool) get(c int) []uint64 {
	if p.shared != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.shared.get(c)
	}
	p.inUse[c]++
	if n := len(p.free[c]); n > 0 {
		b := p.free[c][n-1]
		p.free[c][n-1] = nil
		p.free[c] = p.free[c][:n-1]
		return b
	}
	return make([]uint64, p.rows[c]*p.stride)
}

// put gives back block b of class c. A cut block (cutClass) is let go:
// its slab goes when none of its blocks is held.
func (p *blockPool) put(b []uint64, c int) {
	if c == cutClass {
		return
	}
	if p.shared != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.shared.put(b, c)
		return
	}
	p.inUse[c]--
	// A deque sliding at a steady size gives nothing back (its ring
	// reuses its own room), so spares are the blocks of partitions
	// removed or shrunk, for those created or growing, and last blocks
	// outgrown while deques fill in step. Keep at most as many spare
	// blocks of a size as are in use, and at least minSpare; a surplus
	// left by blocks that went out of use is let go as blocks come
	// back.
	limit := max(p.minSpare(c), p.inUse[c])
	f := p.free[c]
	for len(f) > limit {
		f[len(f)-1] = nil
		f = f[:len(f)-1]
	}
	if len(f) < limit {
		f = append(f, b)
	}
	// The list itself shrinks too: a list that held one spare per
	// partition while deques outgrew a size at once is copied to a
	// smaller one once a quarter of it or less is in use.
	if k := 2 * max(len(f), p.minSpare(c)); 2*k <= cap(f) {
		f = append(make([][]uint64, 0, k), f...)
	}
	p.free[c] = f
}

// bytes returns the memory of the pool's spare blocks.
func (p *blockPool) bytes() int {
	n := 0
	for c := range p.free {
		n += 8 * p.rows[c] * p.stride * len(p.free[c])
	}
	return n
}

// deque is an arrival-ordered, row-major queue of rows: each row is
// stride uint64 slots (the time, then one slot per used column), kept in
// a ring of blocks. Rows are addressed by absolute index, which grows by
// one per appended row and never repeats. The ring has positions
// 0 … cap−1: full blocks (blockRows rows) in order, then a last block of
// class last (short, or full; see blockPool.rows) and of lastRows rows;
// position q is in block
// q / blockRows. Row a is at position a − base, less cap when that is cap
// or more: base is the absolute index at position 0 of the front's lap
// (front − base < cap), and rows past the end of the ring wrap to its
// start.
//
// The ring grows only when it is full: by a step of its last block, with
// the rows after the tail's position moved up by the step when the tail
// is in that block, or, once it has fullGrowBlocks full blocks, by a full
// block. A ring wrapped elsewhere first rotates its rows so
// that the front is at position 0 when it is short (rotateMax), else
// takes a full block at the tail. It shrinks when a quarter of it or
// less is in use, to twice its rows, so that a window that slides at a
// steady size neither allocates nor moves rows, and one that shrank
// gives its blocks back.
//
// The block list of a deque of up to three blocks is in the deque itself:
// a tick over many partitions of a few rows each reaches a partition's
// rows from its engine without first missing the cache on a list of its
// own.
type deque struct {
	// blocks lists the blocks by their first slot: block k holds
	// blockLen(k) rows of stride slots from there (see block). A block's
	// length follows from its place, so a pointer lists it where its
	// slice took 24 bytes: the list of a minute at 100 rows a second,
	// six blocks, takes 48 bytes a partition, not 144.
	blocks []*uint64
	one    [3]*uint64 // blocks' array while the deque has up to three blocks
	base   uint64     // absolute index of the row at position 0 in the front's lap
	front  uint64     // absolute index of the first row held
	tail   uint64     // absolute index after the last row held
	cap    uint64     // rows the ring has room for
	// The last word: the slots a row (1 + the plan's columns), the class
	// and rows of the last block, and has. 32 bits for the stride keep
	// the deque at 88 bytes, which makes the seed's record six lines
	// and what a partition-tick reads of it four (see winState);
	// unsigned, its conversion to int is a plain load (a signed one took
	// a few more instructions at 1000 × 10 in callgrind).
	stride uint32
	lrows  int16 // the rows of the last block
	last   int8  // the class of the last block (below sizeClasses, or cutClass)
	// has belongs to the engine: whether its maxT is set (dqMax, see
	// Engine), and whether the rows held may be out of time order
	// (dqUnsorted). It lies in the deque's last word, which the fields
	// above leave room in, where a field of the engine's own took 8
	// bytes.
	has dqState
}

// dqState is a deque's has: flags the engine keeps in the deque's last
// word.
type dqState uint8

const (
	// dqMax: the engine's maxT is set (a row was appended since it was
	// made or reused).
	dqMax dqState = 1 << iota
	// dqUnsorted: a row appended since the deque was last empty may have
	// come before a row appended before it, so the rows held may not be
	// in non-decreasing time order. Every path that appends rows sets it
	// when it cannot tell that they are not before the deque's latest
	// (see Engine.markTimes); dropTo clears it when the deque empties.
	// Without it, the rows that leave a window are found by a galloping
	// search (see leaveSorted).
	dqUnsorted
)

// sorted reports whether the rows held are known to be in non-decreasing
// time order (see dqUnsorted).
func (d *deque) sorted() bool { return d.has&dqUnsorted == 0 }

// setLast makes c, of p, the class of the last block.
func (d *deque) setLast(p *blockPool, c int) {
	d.last, d.lrows = int8(c), int16(p.classRows(c))
}

// pos returns the ring position of row a, held or the tail.
func (d *deque) pos(a uint64) uint64 {
	q := a - d.base
	if q >= d.cap {
		q -= d.cap
	}
	return q
}

// blockLen returns the rows of block k.
func (d *deque) blockLen(k int) int {
	if k == len(d.blocks)-1 {
		return int(d.lrows)
	}
	return blockRows
}

// block returns the slots of block k.
func (d *deque) block(k int) []uint64 { return slots(d.blocks[k], uint32(d.blockLen(k))*d.stride) }

// slots returns the n slots from b, a listed block's first: an array's
// slice, not unsafe.Slice, whose checks of the length cost a fold more
// than reading the block's length from a 24-byte slice in the list did,
// and of 2^32 slots, so that a 32-bit length needs no check at all.
func slots(b *uint64, n uint32) []uint64 { return (*[1 << 32]uint64)(unsafe.Pointer(b))[:n:n] }

// listed returns the list's entry for block b (its first slot).
func listed(b []uint64) *uint64 { return unsafe.SliceData(b) }

// at returns the slots of the row at ring position q (below cap).
func (d *deque) at(q uint64) []uint64 {
	st := int(d.stride)
	return slots((*uint64)(unsafe.Add(unsafe.Pointer(d.blocks[q/blockRows]), 8*uintptr(q%blockRows)*uintptr(st))), d.stride)
}

// seg returns the block that holds row a, the row's index in it and the
// number of positions from there to the block's end: a run of rows from
// a that lies in one block has at most n rows.
func (d *deque) seg(a uint64) (blk []uint64, i, n int) {
	q := d.pos(a)
	i = int(q % blockRows)
	r := int(min(d.cap-q&^(blockRows-1), blockRows)) // as slotOf's
	return slots(d.blocks[q/blockRows], uint32(r)*d.stride), i, r - i
}

// row returns the slots of row a.
func (d *deque) row(a uint64) []uint64 { return d.at(d.pos(a)) }

// time returns the time of row a.
func (d *deque) time(a uint64) int64 {
	q := d.pos(a)
	return *(*int64)(unsafe.Add(unsafe.Pointer(d.blocks[q/blockRows]), 8*uintptr(q%blockRows)*uintptr(d.stride)))
}

// room returns the block that holds the tail's slots, the tail's first
// slot in it, and how many rows fit from there on in that block, making
// room first when the ring is full.
func (d *deque) room(p *blockPool) (blk []uint64, i, n int) {
	if d.tail-d.front == d.cap {
		d.grow(p)
	}
	blk, i, n = d.seg(d.tail)
	return blk, i * int(d.stride), min(n, int(d.cap-(d.tail-d.front)))
}

// grow makes room for at least one more row in a full ring (or an empty
// one with no blocks).
func (d *deque) grow(p *blockPool) {
	if d.cap == 0 {
		if cap(d.blocks) == 0 {
			d.blocks = d.one[:0]
		}
		d.blocks = append(d.blocks[:0], listed(p.get(0)))
		d.setLast(p, 0)
		d.base, d.cap = d.front, uint64(d.lrows)
		return
	}
	if q := d.pos(d.tail); q != 0 {
		k := int(q / blockRows)
		switch i := int(q % blockRows); {
		case k == len(d.blocks)-1 && int(d.last) < p.fullClass():
			// The tail is in the short last block: the step opens
			// there, and the rows after it (the oldest) move up.
			g := d.growLast(p, i)
			d.base -= uint64(g)
			return
		case d.cap > rotateMax:
			d.insertFull(p, k, i)
			return
		}
		d.rotate()
	}
	// The front is at position 0: the room goes at the ring's end.
	if int(d.last) < p.fullClass() {
		d.growLast(p, int(d.lrows))
		return
	}
	d.roomForBlock()
	if len(d.blocks) >= fullGrowBlocks {
		d.blocks = append(d.blocks, listed(p.get(p.fullClass())))
		d.cap += blockRows
		return
	}
	// A ring still filling its windows starts its next block at a full
	// one if it foresees that many rows for it, else at half the rows it
	// foresees, where a block of the first class would step through
	// every class up to them, moving its rows at each step. Half: its one
	// step, cut to the rows foreseen (see growLast), takes its block from
	// a slab shared with the deques filling in step, where a block cut
	// now would be an allocation of its own, rounded up to the
	// allocator's size (882 rows of 24 bytes took 21,760 bytes, 592
	// more, a partition of the seed at 1,000 hosts).
	c := 0
	peak, _ := d.foresee(p)
	if need := peak - float64(d.cap); need >= blockRows {
		c = p.fullClass()
	} else {
		for c < p.fullClass() && float64(2*p.classRows(c)) < need {
			c++
		}
	}
	d.blocks = append(d.blocks, listed(p.get(c)))
	d.setLast(p, c)
	d.cap += uint64(d.lrows)
}

// fullGrowBlocks is the number of full blocks from which a ring grows by
// a full block instead of a short last block that grows a step at a
// time. A window that fills without foreseeing its peak (rows out of
// order) moves each of its rows several times as its last
// block steps from 8 rows to a full one; a ring of this many blocks
// moves none, and its room beyond its rows is at most 1/32 of them.
const fullGrowBlocks = 32

// rotateMax is the largest ring, in rows, that grows while wrapped by
// moving its rows (three reversals, at most 4,096 row swaps, for a step
// of at least 32 rows); a larger one takes a full block at its tail
// instead (at most 1,023 rows copied, and room for up to 1,023 rows
// beyond a step).
const rotateMax = 4 * blockRows

// insertFull opens room for a full block at the tail of a wrapped ring,
// the tail being at index i of full block k: a new block goes before
// block k, with block k's rows before i (the newest) copied to it, and
// the rows from there on (the oldest) move up a block.
func (d *deque) insertFull(p *blockPool, k, i int) {
	nb := p.get(p.fullClass())
	copy(nb[:i*int(d.stride)], d.block(k)[:i*int(d.stride)])
	d.roomForBlock()
	d.blocks = append(d.blocks, nil)
	copy(d.blocks[k+1:], d.blocks[k:])
	d.blocks[k] = listed(nb)
	d.cap += blockRows
	d.base -= blockRows
}

// roomForBlock makes room in the block list for one more block. The list
// grows by an eighth, not by doubling: the doubled list of a long window
// (24 blocks, 25 minutes at 100 rows a second) has 64 bytes of spare
// slots.
func (d *deque) roomForBlock() {
	if len(d.blocks) < cap(d.blocks) {
		return
	}
	nl := make([]*uint64, len(d.blocks), len(d.blocks)+1+len(d.blocks)/8)
	copy(nl, d.blocks)
	d.blocks = nl
}

// growLast replaces the last block by one of the next class, its rows
// before index i at the same place and those from i on moved up by the
// difference, which it returns.
//
// While the deque fills its windows, the step may be cut short to the
// peak it foresees (see cutRows): the allocator's classes are up to a
// seventh apart (a 603-row peak took a 682-row block, the class above
// 597 rows), and a cut block has no room beyond the peak. A
// cut block that is outgrown steps to the next class above it.
func (d *deque) growLast(p *blockPool, i int) int {
	k := len(d.blocks) - 1
	c := int(d.last)
	old, r := d.block(k), int(d.lrows)
	next := c + 1
	if c == cutClass {
		for next = 0; p.classRows(next) <= r; next++ {
		}
	}
	peak, cut := d.foresee(p)
	need := peak - float64(d.cap-uint64(d.lrows))
	if need > float64(p.classRows(next)) {
		// Still filling, and foreseen past the next class: the step
		// skips classes, to the class of the rows foreseen if that is
		// at most twice the block's rows (the block then cut to them),
		// else to the largest class of at most twice its rows. The
		// classes are a seventh apart above 64 rows, so stepping through
		// each moved a block's rows about seven times as it filled (the
		// first minute of the seed at 1,000 hosts spent three quarters
		// of its time moving rows); doubling moves them about once, and
		// leaves room for no more rows than the block holds.
		if need <= float64(2*r) {
			for next < p.fullClass() && float64(p.classRows(next)) < need {
				next++
			}
		} else {
			for next < p.fullClass() && p.classRows(next+1) <= 2*r {
				next++
			}
		}
	}
	var nb []uint64
	var g int
	rows := 0
	if cut {
		rows = d.cutRows(p, r, next, need)
	}
	if rows > 0 {
		nb, g = p.cut(rows, c), rows-r
	} else {
		nb, g = p.get(next), p.classRows(next)-r
	}
	st := int(d.stride)
	copy(nb[:i*st], old[:i*st])
	copy(nb[(i+g)*st:], old[i*st:r*st])
	p.put(old, c)
	d.blocks[k] = listed(nb)
	if rows == 0 {
		d.setLast(p, next)
	} else {
		// Cut, even to a class's rows: the block is the slab's, not the
		// class's, and goes back to no free list.
		d.last, d.lrows = cutClass, int16(rows)
	}
	d.cap += uint64(g)
	return g
}

// cutMinRows is the fewest rows from which a deque foresees its peak.
const cutMinRows = 16

// cutRows returns the rows of a last block cut to need, the rows foreseen
// for the last block at the deque's peak (see foresee), when need is more
// than the last block's r rows and at least two fewer than class next
// has (than a full block, once the pool's ahead is set); else 0. The
// peak foreseen is the rows at the rate of those
// held (their times, first and last) over the plan's longest window and
// the pool's ahead (rows handed to a worker before their tick), one
// for the window's two ends, and room for the rows of a short tick: those
// that arrive in a 256th of the window (234 ms at 1m, for a 200 ms
// clock), when they are reducers.ShortRun or fewer. A tick of more rows
// than the ring has room for evicts before they enter (see evictFirst),
// so the ring need not hold them beside the window's; a tick of a few
// rows fits, and its fold keeps the one-pass slide of the sums. Where a
// 256th of the window brings more rows than that, ticks evict first
// whatever room is kept (at 100 rows a second, 23 rows a 256th of a
// minute: 4 rows of room were 96 bytes a partition never used). A peak
// foreseen short costs a step later, as without the cut; one foreseen
// long is never more than the class the step would have taken (at most
// twice the block's rows: see growLast), but where rows are handed over
// (ahead), which may cost up to a full block once, against a full block
// for certain after the ring has wrapped.
func (d *deque) cutRows(p *blockPool, r, next int, need float64) int {
	top := p.classRows(next)
	if _, ahead := p.windowSpan(); ahead > 0 {
		// Rows taken before their fold may fill the ring after it has
		// wrapped, when the only room it can make is a full block at its
		// tail (see grow): cut to the peak now, above the next class if
		// need be.
		top = p.classRows(p.fullClass())
	}
	if need <= float64(r) || need+2 > float64(top) {
		return 0
	}
	return int(need)
}

// foresee returns the rows the deque is foreseen to hold at its peak
// (even; see cutRows) while it is still filling its windows, and whether
// its last block may be cut to them; else 0. Time windows foresee from
// the rate of the rows held, and may cut. A count window foresees its
// count and one row more, but is not cut: the rows of a tick may enter
// before its fold evicts, and the room of the class above the peak
// holds them, as it did when the ring stepped a class at a time.
func (d *deque) foresee(p *blockPool) (peak float64, cut bool) {
	span, ahead := p.windowSpan()
	n := d.tail - d.front
	if n < cutMinRows {
		return 0, false
	}
	if c := p.windowCount(); c > 0 {
		if n >= uint64(c) {
			return 0, false // full: the peak is here
		}
		return float64(c + 1 + (c+1)&1), false
	}
	if span <= 0 {
		return 0, false
	}
	t0, t1 := d.time(d.front), d.time(d.tail-1)
	if t1 <= t0 || t1-t0 >= span {
		// Out of order, or the windows are full: the peak is here.
		return 0, false
	}
	rate := float64(n-1) / float64(t1-t0)
	peak = rate*float64(span+ahead) + 1
	if short := rate * float64(span>>8); short <= reducers.ShortRun {
		peak += short
	}
	// Even, as the classes' rows are: a ring of an odd number of rows
	// sliding by two rows a fold (two rows each 200 ms) has every other
	// lap's pairs across its blocks' ends, which the folds take apart
	// row by row (1 % more instructions at 1,000 hosts).
	return 2 * math.Ceil(peak/2), true
}

// rotate moves the rows so that the front is at position 0 (three
// reversals of rows in place; no memory).
func (d *deque) rotate() {
	f := d.pos(d.front)
	if f != 0 {
		d.reverse(0, f)
		d.reverse(f, d.cap)
		d.reverse(0, d.cap)
	}
	d.base = d.front
}

// reverse reverses the order of the rows at positions [i, j).
func (d *deque) reverse(i, j uint64) {
	st := int(d.stride)
	for j > i+1 {
		j--
		x, y := d.at(i), d.at(j)[:st]
		for s := range x {
			x[s], y[s] = y[s], x[s]
		}
		i++
	}
}

// push makes room for one more row and returns its slots.
func (d *deque) push(p *blockPool) []uint64 {
	b, i, _ := d.room(p)
	d.tail++
	return b[i : i+int(d.stride) : i+int(d.stride)]
}

// shrinkFloor is the capacity, in rows, below which a ring never shrinks:
// windows that empty and refill at every emission keep their blocks.
const shrinkFloor = 2 * blockRows

// dropTo forgets the rows before a (a no later than the tail); when a
// quarter of the ring or less is left in use, it gives back blocks.
func (d *deque) dropTo(a uint64, p *blockPool) {
	if a <= d.front {
		return
	}
	d.front = a
	if d.front-d.base >= d.cap {
		d.base += d.cap
	}
	if d.front == d.tail {
		// Empty: the rows that come next are in order until one comes
		// before a row before it.
		d.base = d.front
		d.has &^= dqUnsorted
	}
	if n := d.tail - d.front; d.cap > shrinkFloor && 4*n <= d.cap {
		d.shrink(p)
	}
}

// shrink rotates the rows to the ring's start and gives back whole last
// blocks while the rest holds twice the rows or more.
func (d *deque) shrink(p *blockPool) {
	d.rotate()
	n := d.tail - d.front
	for len(d.blocks) > 1 {
		k := len(d.blocks) - 1
		r := uint64(d.lrows)
		if d.cap-r < 2*n {
			break
		}
		p.put(d.block(k), int(d.last))
		d.blocks[k] = nil
		d.blocks = d.blocks[:k]
		d.setLast(p, p.fullClass())
		d.cap -= r
	}
}

// release gives every block back to the pool.
func (d *deque) release(p *blockPool) {
	for i := range d.blocks {
		c := p.fullClass()
		if i == len(d.blocks)-1 {
			c = int(d.last)
		}
		p.put(d.block(i), c)
	}
	clear(d.blocks)
	d.blocks = d.one[:0]
	d.base, d.front, d.cap = d.tail, d.tail, 0
}

// len returns the number of rows held.
func (d *deque) len() int { return int(d.tail - d.front) }

// bytes returns the memory of the deque's blocks and block list (none
// while the list is the deque's own one).
func (d *deque) bytes() int {
	n := 0
	if cap(d.blocks) > len(d.one) {
		n = 8 * cap(d.blocks)
	}
	for k := range d.blocks {
		n += 8 * d.blockLen(k) * int(d.stride)
	}
	return n
}

// markSlot tells m the slot k (0 the time) of every row held.
func (d *deque) markSlot(k int, m Marker) {
	for a := d.front; a < d.tail; {
		b, i, n := d.seg(a)
		n = min(n, int(d.tail-a))
		for r := i * int(d.stride); r < (i+n)*int(d.stride); r += int(d.stride) {
			m.Mark(uint32(b[r+k]))
		}
		a += uint64(n)
	}
}
