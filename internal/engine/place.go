package engine

import "slices"

// A tick on one goroutine takes each partition's buffered rows straight
// from the buffer (column by column, as pushes left them) into its deque,
// inside the tick's one pass over the partitions: before the pass it only
// sorts the rows' indices by partition (a counting sort of 4-byte
// indices), not the rows themselves. So the rows between two ticks are
// held once, in the buffer, with 4 bytes a row beside them, and each
// partition's state is still brought into cache once per tick. (A tick
// over workers lays the rows out by partition first, see [Group.link], so
// that the workers can split the copying without sharing a deque.)

// index sorts the indices of the rows of g.work by partition, in arrival
// order within each (partition p's end at idx[chains[p].end]), making the
// engines of the partitions first seen among them in the order their
// first rows arrived.
func (g *Group) index() {
	r := &g.work
	n := len(r.part)
	if n == 0 {
		return
	}
	if g.count(0, n, &g.cnt) {
		g.meet()
	}
	g.growChains(len(g.cnt))
	off := int32(0)
	for p := range g.chains {
		k := int32(0)
		if p < len(g.cnt) {
			k, g.cnt[p] = g.cnt[p], off
		}
		g.chains[p] = chain{end: off + k, n: k}
		off += k
	}
	g.idx = slices.Grow(g.idx[:0], n)[:n]
	idx, cur := g.idx, g.cnt
	for i, p := range r.part {
		idx[cur[p]] = int32(i)
		cur[p]++
	}
	clear(g.cnt)
	g.indexed = true
}

// gather appends partition p's buffered rows, found through the indices
// [Group.index] sorted, to its engine's deque; the common row widths have
// loops of their own.
func (g *Group) gather(p int32, e *Engine, pool *blockPool) {
	if int(p) >= len(g.chains) || g.chains[p].n == 0 {
		return
	}
	c := g.chains[p]
	g.chains[p] = chain{}
	r := &g.work
	ts := r.t
	if d := &e.dq; len(r.c) == 2 && d.tail-d.front+uint64(c.n) <= d.cap {
		// The common case of a tick: rows of three slots that fit in
		// the ring and in the tail's block, written in place.
		if blk, o := d.slotOf(d.tail); 3*int(c.n) <= len(blk)-o {
			rows := g.idx[c.end-c.n : c.end]
			dst := blk[o:]
			// The columns cut to the times' length: one check of an
			// index serves all three.
			c0, c1 := r.c[0][:len(ts)], r.c[1][:len(ts)]
			for k, j := range rows {
				row := dst[3*k : 3*k+3 : 3*k+3]
				row[0], row[1], row[2] = uint64(ts[j]), c0[j], c1[j]
			}
			d.tail += uint64(c.n)
			return
		}
	}
	rows := g.idx[c.end-c.n : c.end]
	for len(rows) > 0 {
		blk, o, n := e.dq.room(pool)
		n = min(n, len(rows))
		switch len(r.c) {
		case 1:
			c0 := r.c[0]
			dst := blk[o : o+2*n]
			for k, j := range rows[:n] {
				dst[2*k], dst[2*k+1] = uint64(ts[j]), c0[j]
			}
		case 2:
			c0, c1 := r.c[0], r.c[1]
			dst := blk[o : o+3*n]
			for k, j := range rows[:n] {
				d := dst[3*k : 3*k+3]
				d[0], d[1], d[2] = uint64(ts[j]), c0[j], c1[j]
			}
		default:
			st := 1 + len(r.c)
			dst := blk[o : o+st*n]
			for k, j := range rows[:n] {
				d := dst[st*k : st*k+st]
				d[0] = uint64(ts[j])
				for m, col := range r.c {
					d[1+m] = col[j]
				}
			}
		}
		e.dq.tail += uint64(n)
		rows = rows[n:]
	}
}
