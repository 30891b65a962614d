package engine

// blockRows is the number of rows in a deque block; a power of two.
const blockRows = 256

// blockPool recycles deque blocks among the engines of one plan, so that
// windows that slide in steady state do not allocate.
type blockPool struct {
	size  int // uint64 slots per block
	free  [][]uint64
	inUse int
}

func (p *blockPool) get() []uint64 {
	p.inUse++
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return b
	}
	return make([]uint64, p.size)
}

func (p *blockPool) put(b []uint64) {
	p.inUse--
	// Keep enough spare blocks to absorb the churn of many partitions
	// sliding at once: each frees a block at its head and takes one at
	// its tail at different moments, and partitions fed in step do so
	// all at the same tick, so up to one block per partition waits here
	// between the two. Beyond that, do not keep a copy of windows that
	// shrank: at most as many spare blocks as are in use, and at least 64.
	if len(p.free) < max(64, p.inUse) {
		p.free = append(p.free, b)
	}
}

// deque is an arrival-ordered, row-major queue of rows: each row is
// stride uint64 slots (the time, then one slot per used column), kept in
// fixed-size blocks. Rows are addressed by absolute index, which grows by
// one per appended row and never repeats.
type deque struct {
	blocks [][]uint64
	base   uint64 // absolute index of the first row of blocks[0]
	front  uint64 // absolute index of the first row held
	tail   uint64 // absolute index after the last row held
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

// push makes room for one more row and returns its slots.
func (d *deque) push(p *blockPool) []uint64 {
	off := d.tail - d.base
	if off == uint64(len(d.blocks))*blockRows {
		d.blocks = append(d.blocks, p.get())
	}
	b := d.blocks[off/blockRows]
	i := int(off%blockRows) * d.stride
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
			p.put(d.blocks[i])
			d.blocks[i] = nil
		}
		if len(d.blocks) > 1 {
			d.blocks = d.blocks[:1]
		}
		d.base = d.front
		return
	}
	k := int((d.front - d.base) / blockRows)
	if k == 0 {
		return
	}
	for i := range k {
		p.put(d.blocks[i])
	}
	n := copy(d.blocks, d.blocks[k:])
	clear(d.blocks[n:])
	d.blocks = d.blocks[:n]
	d.base += uint64(k) * blockRows
}

// release gives every block back to the pool.
func (d *deque) release(p *blockPool) {
	for i, b := range d.blocks {
		p.put(b)
		d.blocks[i] = nil
	}
	d.blocks = d.blocks[:0]
	d.base, d.front = d.tail, d.tail
}

// len returns the number of rows held.
func (d *deque) len() int { return int(d.tail - d.front) }

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

// bytes returns the memory of the pool's spare blocks.
func (p *blockPool) bytes() int { return 8 * p.size * len(p.free) }
