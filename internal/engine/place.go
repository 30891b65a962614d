package engine

import "unsafe"

// A tick on one goroutine moves the rows buffered since the last tick
// straight into their partitions' deques: it counts each partition's
// rows, makes room for them at the tail of its deque, then copies every
// row, in arrival order, to the next free place of its partition. The
// rows then wait in the deques, not in a second buffer laid out by
// partition, and are copied once. (A tick over workers lays them out by
// partition first, see [Group.link], so that the workers can split the
// copying without sharing a deque.)

// cursor is where a tick copies a partition's next buffered row: dst is
// the row's first slot in its deque, and left rows fit from there to the
// end of dst's block (or ring); n rows are still to come.
type cursor struct {
	dst  unsafe.Pointer
	left int32
	n    int32
}

// place moves the rows of g.work into their partitions' deques, making
// the engines of the partitions first seen among them in the order their
// first rows arrived, and leaves each partition's count of rows in g.cnt
// for [Group.arrive].
func (g *Group) place(pool *blockPool) {
	r := &g.work
	if len(r.part) == 0 {
		return
	}
	if g.count(0, len(r.part), &g.cnt) {
		g.meet()
	}
	if len(g.cur) < len(g.cnt) {
		g.cur = append(g.cur, make([]cursor, len(g.cnt)-len(g.cur))...)
	}
	for p, n := range g.cnt {
		if n > 0 {
			g.cur[p] = g.engines[p].dq.reserve(int(n), pool)
		}
	}
	g.placeRows(r)
}

// placeRows copies the rows of r, counted and with room made, to their
// partitions' cursors; the common row widths have loops of their own.
func (g *Group) placeRows(r *pendRows) {
	part, cur := r.part, g.cur
	ts := r.t[:len(part)]
	switch len(r.c) {
	case 1:
		c0 := r.c[0][:len(part)]
		for i, p := range part {
			c := &cur[p]
			if c.left == 0 {
				g.refill(p, c)
			}
			*(*[2]uint64)(c.dst) = [2]uint64{uint64(ts[i]), c0[i]}
			c.advance(2 * 8)
		}
	case 2:
		c0, c1 := r.c[0][:len(part)], r.c[1][:len(part)]
		for i, p := range part {
			c := &cur[p]
			if c.left == 0 {
				g.refill(p, c)
			}
			*(*[3]uint64)(c.dst) = [3]uint64{uint64(ts[i]), c0[i], c1[i]}
			c.advance(3 * 8)
		}
	default:
		st := 1 + len(r.c)
		for i, p := range part {
			c := &cur[p]
			if c.left == 0 {
				g.refill(p, c)
			}
			row := unsafe.Slice((*uint64)(c.dst), st)
			row[0] = uint64(ts[i])
			for k, col := range r.c {
				row[1+k] = col[i]
			}
			c.advance(uintptr(st) * 8)
		}
	}
}

// refill points c, whose block is full, at the block of partition p's
// next row.
func (g *Group) refill(p int32, c *cursor) {
	d := &g.engines[p].dq
	*c = d.cursorAt(d.tail-uint64(c.n), int(c.n))
}

// advance moves c past the row just written, of size bytes. dst moves on
// only within its block: a pointer past a block's end is not one the
// garbage collector may see.
func (c *cursor) advance(size uintptr) {
	c.n--
	if c.left--; c.left > 0 {
		c.dst = unsafe.Add(c.dst, size)
	}
}

// arrive readies partition p's engine for its fold at a tick: the rows
// [Group.place] put in its deque are there already; those [Group.link]
// laid out are taken in. Under a clock the engine's latest time is not
// kept: the tick folds against the crossing row's time, and nothing
// else reads it.
func (g *Group) arrive(p int32, e *Engine, pool *blockPool) {
	if int(p) < len(g.cnt) && g.cnt[p] > 0 {
		g.cnt[p] = 0
		return
	}
	g.take(p, e, pool)
}

// reserve makes room for n more rows at the tail (n > 0) and returns the
// cursor of the first: the rows are the deque's from then on, to be
// written before anything reads them.
func (d *deque) reserve(n int, p *blockPool) cursor {
	a := d.tail
	for left := n; left > 0; {
		_, _, k := d.room(p)
		k = min(k, left)
		d.tail += uint64(k)
		left -= k
	}
	return d.cursorAt(a, n)
}

// cursorAt returns the cursor of row a, held, with n rows from a on to
// write.
func (d *deque) cursorAt(a uint64, n int) cursor {
	blk, i, k := d.seg(a)
	return cursor{dst: unsafe.Pointer(&blk[i*d.stride]), left: int32(min(k, n)), n: int32(n)}
}
