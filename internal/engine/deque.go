package engine

import "sync"

// blockRows is the number of rows in a full deque block; a power of two.
const blockRows = 256

// smallRows are the row capacities of the blocks a deque starts with,
// smallest first, doubling from 12: a deque that holds one block holds a
// small one, and moves to the next size only when its rows fill more than
// three quarters of it (else its rows move back to the start of the
// block), so that a partition with a few dozen rows in its windows does
// not pay for a full block (at 3 slots a row, a full block is 6 KB). A
// deque holding n rows on a small block has room for at most about
// 2.7 n + 12, and moving rows costs at most three copies per row
// appended.
var smallRows = [...]int{12, 24, 48, 96, 192}

// sizeClasses is the number of block sizes: the small ones, then full.
const sizeClasses = len(smallRows) + 1

// classRows returns the row capacity of blocks of class c.
func classRows(c int) int {
	if c < len(smallRows) {
		return smallRows[c]
	}
	return blockRows
}

// blockPool recycles deque blocks among the engines of one plan, one free
// list per block size, so that windows that slide in steady state do not
// allocate.
type blockPool struct {
	size   int // uint64 slots per full block
	stride int // uint64 slots per row
	free   [sizeClasses][][]uint64
	inUse  [sizeClasses]int
	// A worker's pool during a tick split over workers: it holds nothing
	// and gets and puts in the plan's pool, under mu (a block changes
	// hands every 256 rows a partition takes in, so the lock is rare).
	shared *blockPool
	mu     *sync.Mutex
}

// setStride sizes the pool's blocks for rows of stride slots.
func (p *blockPool) setStride(stride int) {
	p.stride = stride
	p.size = blockRows * stride
}

// minSpare is the number of spare blocks of each class a pool may keep
// whatever the blocks in use.
var minSpare = func() (m [sizeClasses]int) {
	for c := range m {
		m[c] = 8
	}
	m[len(smallRows)] = 64
	return m
}()

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
	return make([]uint64, classRows(c)*p.stride)
}

// put gives back block b of class c.
func (p *blockPool) put(b []uint64, c int) {
	if p.shared != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.shared.put(b, c)
		return
	}
	p.inUse[c]--
	// Keep enough spare blocks to absorb the churn of many partitions
	// sliding at once: each frees a block at its head and takes one at
	// its tail at different moments, and partitions fed in step do so
	// all at the same tick, so up to one block per partition waits here
	// between the two. Beyond that, do not keep a copy of windows that
	// shrank or of small blocks outgrown: at most as many spare blocks
	// of a size as are in use, and at least 64 full blocks or 8 small
	// ones (small blocks go back when a deque outgrows them or its
	// partition is removed, not at every slide); a surplus left by blocks
	// that went out of use is let go as blocks come back.
	limit := max(minSpare[c], p.inUse[c])
	f := p.free[c]
	for len(f) > limit {
		f[len(f)-1] = nil
		f = f[:len(f)-1]
	}
	if len(f) < limit {
		f = append(f, b)
	}
	p.free[c] = f
}

// bytes returns the memory of the pool's spare blocks.
func (p *blockPool) bytes() int {
	n := 0
	for c := range p.free {
		n += 8 * classRows(c) * p.stride * len(p.free[c])
	}
	return n
}

// deque is an arrival-ordered, row-major queue of rows: each row is
// stride uint64 slots (the time, then one slot per used column), kept in
// blocks. Rows are addressed by absolute index, which grows by one per
// appended row and never repeats; row a is at offset a − base, in block
// (a − base) / blockRows. Every block is full-size (blockRows rows)
// except, when the deque has a single block, that one, which may be
// small (see smallRows) and then holds the rows at the start of it.
type deque struct {
	blocks [][]uint64
	base   uint64 // absolute index of the first row of blocks[0]
	front  uint64 // absolute index of the first row held
	tail   uint64 // absolute index after the last row held
	end    uint64 // absolute index after the last row the blocks have room for
	class  int    // the class of blocks[0] while it is the only block
	stride int
}

// row returns the slots of row a.
func (d *deque) row(a uint64) []uint64 {
	off := a - d.base
	b := d.blocks[off/blockRows]
	i := int(off%blockRows) * d.stride
	return b[i : i+d.stride : i+d.stride]
}

// time returns the time of row a.
func (d *deque) time(a uint64) int64 {
	off := a - d.base
	return int64(d.blocks[off/blockRows][int(off%blockRows)*d.stride])
}

// room returns the block that holds the tail's slots, the tail's first
// slot in it, and how many rows fit from there on in that block, making
// room first when the blocks are full.
func (d *deque) room(p *blockPool) (blk []uint64, i, n int) {
	if d.tail == d.end {
		d.grow(p)
	}
	off := d.tail - d.base
	blk = d.blocks[off/blockRows]
	o := int(off % blockRows)
	return blk, o * d.stride, len(blk)/d.stride - o
}

// grow makes room for at least one more row at the tail: a first small
// block for an empty deque; for a deque on one small block, its rows
// moved to the start of it when they fill at most three quarters of it,
// else to a block of the next size; otherwise one more full block.
func (d *deque) grow(p *blockPool) {
	switch {
	case len(d.blocks) == 0:
		d.class = 0
		d.blocks = append(d.blocks, p.get(0))
		d.base = d.front
	case len(d.blocks) == 1 && d.class < len(smallRows):
		held := int(d.tail - d.front)
		old := d.blocks[0]
		from := int(d.front-d.base) * d.stride
		rows := old[from : from+held*d.stride]
		if held > 3*smallRows[d.class]/4 {
			nb := p.get(d.class + 1)
			copy(nb, rows)
			p.put(old, d.class)
			d.class++
			d.blocks[0] = nb
		} else {
			copy(old, rows)
		}
		d.base = d.front
	default:
		d.blocks = append(d.blocks, p.get(len(smallRows)))
	}
	d.end = d.base + uint64(len(d.blocks)-1)*blockRows + uint64(classRows(d.blockClass(len(d.blocks)-1)))
}

// blockClass returns the class of block k.
func (d *deque) blockClass(k int) int {
	if k == 0 && len(d.blocks) == 1 {
		return d.class
	}
	return len(smallRows)
}

// push makes room for one more row and returns its slots.
func (d *deque) push(p *blockPool) []uint64 {
	b, i, _ := d.room(p)
	d.tail++
	return b[i : i+d.stride : i+d.stride]
}

// dropTo forgets the rows before a, giving whole blocks back to the pool.
func (d *deque) dropTo(a uint64, p *blockPool) {
	if a <= d.front {
		return
	}
	d.front = a
	if d.front == d.tail {
		// Empty: keep one block for the next rows, release the rest.
		for i := 1; i < len(d.blocks); i++ {
			p.put(d.blocks[i], len(smallRows))
			d.blocks[i] = nil
		}
		if len(d.blocks) > 1 {
			d.blocks = d.blocks[:1]
			d.class = len(smallRows)
		}
		d.base = d.front
		if len(d.blocks) == 1 {
			d.end = d.base + uint64(classRows(d.class))
		}
		return
	}
	k := int((d.front - d.base) / blockRows)
	if k == 0 {
		return
	}
	// Whole blocks passed: they are all full-size, as the deque had more
	// than one.
	for i := range k {
		p.put(d.blocks[i], len(smallRows))
	}
	n := copy(d.blocks, d.blocks[k:])
	clear(d.blocks[n:])
	d.blocks = d.blocks[:n]
	d.base += uint64(k) * blockRows
	if n == 1 {
		d.class = len(smallRows)
	}
}

// release gives every block back to the pool.
func (d *deque) release(p *blockPool) {
	for i, b := range d.blocks {
		p.put(b, d.blockClass(i))
	}
	clear(d.blocks)
	d.blocks = d.blocks[:0]
	d.base, d.front, d.end = d.tail, d.tail, d.tail
}

// len returns the number of rows held.
func (d *deque) len() int { return int(d.tail - d.front) }

// bytes returns the memory of the deque's blocks and block list.
func (d *deque) bytes() int {
	n := 24 * cap(d.blocks)
	for _, b := range d.blocks {
		n += 8 * len(b)
	}
	return n
}

// markSlot tells m the slot k (0 the time) of every row held.
func (d *deque) markSlot(k int, m Marker) {
	for a := d.front; a < d.tail; {
		off := a - d.base
		b := d.blocks[off/blockRows]
		i := int(off % blockRows)
		n := min(blockRows-i, int(d.tail-a))
		for r := i * d.stride; r < (i+n)*d.stride; r += d.stride {
			m.Mark(uint32(b[r+k]))
		}
		a += uint64(n)
	}
}
