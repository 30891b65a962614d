package engine

import "slices"

// A tick on one goroutine takes each partition's buffered rows straight
// from the buffer (column by column, as pushes left them) into its deque,
// inside the tick's one pass over the partitions: before the pass it only
// sorts the rows' indices by partition (a counting sort of 2-byte
// indices, 4-byte ones beyond narrowRows rows), or, with a few rows a
// partition, links each partition's rows (a 4-byte link a row), not the
// rows themselves; when the pushes since the last tick repeat one push
// naming each partition at most once, a partition's rows are every k-th
// row from its first (k the push's rows), and nothing is written a row
// (see strideChains). So the rows between two ticks are held once, in
// the buffer, with at most 2 or 4 bytes a row beside them (and their
// partitions, 4 bytes a row, unless the pushes repeat one push's: see
// [Group.bufferParts]), and each partition's
// state is still brought into cache once per tick. (A tick
// over workers lays the rows out by partition first, see [Group.link], so
// that the workers can split the copying without sharing a deque.)

// linkRows: a tick on one goroutine whose buffered rows are at most this
// many a known partition links each partition's rows (see linkChains)
// rather than sorting their indices (index): a pass over the rows, not
// two over the rows and one over every partition. With a row or two a
// partition a tick (a host a second under a 200 ms clock, or ten a
// second), the sort's pass over the partitions and its counts cost more
// than the rows; with many rows a partition, the sorted indices are read
// in sequence where the links are followed one row at a time. A variable
// for the tests, which take each way.
var linkRows = 4

// SetLinkRows sets up to how many buffered rows a known partition a tick
// on one goroutine links its rows rather than sorting them (see linkRows),
// and returns the setting before. For tests: 0 sorts at every tick.
func SetLinkRows(n int) int {
	old := linkRows
	linkRows = n
	return old
}

// place makes each partition's buffered rows findable for a tick on one
// goroutine: found by their place in the template when every push since
// the last tick repeated one push naming each partition at most once,
// linked when they are few a partition, sorted otherwise.
func (g *Group) place() {
	n := len(g.work.t)
	if n > 0 && g.strideChains() {
		return
	}
	if n > 0 && n <= linkRows*len(g.order) {
		g.linkChains()
		return
	}
	g.index()
}

// strideTicks: a tick on one goroutine whose buffered rows repeat a
// template naming each partition at most once finds each partition's
// rows by their place in it (see strideChains) rather than linking or
// sorting them. A variable for the tests, which take each way.
var strideTicks = true

// strideChains makes each partition's buffered rows findable without a
// pass over the rows, when the buffer repeats its template (g.work is
// cyc: row i's partition is tmpl[(off+i) mod k], k the template's
// length), the template names each partition at most once, and every
// place of it has a row (k rows or more): then the rows of the
// partition at place j of the template are rows i0, i0+k, i0+2k, … below
// the rows buffered, i0 the first row at place j. chains[p] holds i0 as
// its end and the row count (see gatherStrided). No index a row is
// written: a producer sending every key's row at each push, in the same
// order, keeps its rows between two ticks in the buffer alone (at 1,000
// hosts and 20 rows each a tick, the sorted indices took 40 bytes a
// host). It reports false, and leaves every chain empty, when it does
// not apply. Every chain must be empty before.
func (g *Group) strideChains() bool {
	r := &g.work
	n, k := len(r.t), len(g.tmpl)
	if !strideTicks || !r.cyc || k == 0 || n < k {
		return false
	}
	// The first row at place 0 of the template; the rows at each place,
	// q or, at the first rem places from row 0 on, q+1.
	i0 := (k - r.off%k) % k
	q, rem := n/k, n%k
	ch := g.chains
	unknown := false
	for j, p := range g.tmpl {
		if int(p) >= len(ch) {
			// At once for the template's partitions (their indices are
			// dense), not one by one: append's growth would leave room.
			g.growChains(max(int(p)+1, k))
			ch = g.chains
		}
		c := &ch[p]
		if c.n != 0 {
			// Named twice: every place has a row, so a partition met
			// before has a count; let the chains go.
			for _, q := range g.tmpl[:j] {
				ch[q] = chain{}
			}
			return false
		}
		i := i0 + j
		if i >= k {
			i -= k
		}
		c.end, c.n = int32(i), int32(q)
		if i < rem {
			c.n++
		}
		if int(p) >= len(g.engines) || g.engines[p] == nil {
			unknown = true
		}
	}
	if unknown {
		g.meet()
	}
	g.indexed, g.linked, g.strided = true, false, true
	return true
}

// linkChains links the buffered rows of g.work partition by partition,
// newest first: chains[p] holds partition p's row count and, as its end,
// the index of its last row, and idx[i] the index of the row of the same
// partition before row i (for all but a partition's first). It makes the
// engines of the partitions first seen among the rows in the order their
// first rows arrived, as index does. Every chain must be empty before.
func (g *Group) linkChains() {
	r := &g.work
	n := len(r.t)
	g.idx = slices.Grow(g.idx[:0], n)[:n]
	idx, ch := g.idx, g.chains
	// Every partition below len(engines) has an engine when the
	// emission order holds as many: then a partition's first row needs
	// no look at its engine to tell whether it is new.
	ne, holes := len(g.engines), len(g.engines) != len(g.order)
	unknown := false
	long := int32(0) // the longest chain
	for i := 0; i < n; {
		ps := g.parts(r, i, n)
		for k, p := range ps {
			if int(p) >= len(ch) {
				g.growChains(int(p) + 1)
				ch = g.chains
			}
			c := &ch[p]
			if c.n == 0 && (int(p) >= ne || holes && g.engines[p] == nil) {
				unknown = true
			}
			idx[i+k] = c.end // a partition's first row: unused
			c.end, c.n = int32(i+k), c.n+1
			long = max(long, c.n)
		}
		i += len(ps)
	}
	if unknown {
		g.meet()
	}
	// gatherLinked's scratch, sized here for every chain of every tick,
	// not only those that take its slow path: a ring's tail block
	// rarely ends inside a chain, so the longest chain to do so could
	// come long after the warm-up, and grow the scratch there.
	g.seq = slices.Grow(g.seq[:0], int(long))
	g.indexed, g.linked, g.strided = true, true, false
}

// index sorts the indices of the rows of g.work by partition, in arrival
// order within each (partition p's end at idx[chains[p].end], or
// idx16's when narrow), making the
// engines of the partitions first seen among them in the order their
// first rows arrived.
func (g *Group) index() {
	r := &g.work
	n := len(r.t)
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
	g.narrow = n <= narrowRows && g.par.pool == nil
	if g.narrow {
		g.idx16 = slices.Grow(g.idx16[:0], n)[:n]
	} else {
		g.idx = slices.Grow(g.idx[:0], n)[:n]
	}
	for i := 0; i < n; {
		ps := g.parts(r, i, n)
		if g.narrow {
			sortIndices(g.idx16, ps, g.cnt, i)
		} else {
			sortIndices(g.idx, ps, g.cnt, i)
		}
		i += len(ps)
	}
	clear(g.cnt)
	g.indexed, g.linked, g.strided = true, false, false
}

// narrowRows is the most buffered rows whose sorted indices a tick keeps
// in 16 bits (Group.idx16), on a group without workers: 2 bytes a
// buffered row, not 4 (at 1,000 partitions and 20 rows each a tick, 40
// bytes a partition). With workers the indices stay 32-bit, in the one
// slice the workers' reserve grows. A variable for the tests, which take
// each way (at most 1 << 16, as an index must fit in a uint16).
var narrowRows = 1 << 16

// rowIndex is the type of a buffered row's index in sorted indices.
type rowIndex interface{ ~uint16 | ~int32 }

// sortIndices writes into idx the indices of the rows of part, the
// partitions of the rows from row first on, in partition order (a
// counting sort), each partition's from cur[p] on, moving cur[p] past
// them.
func sortIndices[I rowIndex](idx []I, part, cur []int32, first int) {
	for k, p := range part {
		idx[cur[p]] = I(first + k)
		cur[p]++
	}
}

// gather appends partition p's buffered rows, found through the indices
// [Group.index] sorted, to its engine's deque, as take does; the common
// row widths have loops of their own.
func (g *Group) gather(p int32, e *Engine, cut int64, pool *blockPool) {
	if int(p) >= len(g.chains) || g.chains[p].n == 0 {
		return
	}
	if g.strided {
		// A flush's; a tick calls gatherStrided itself.
		g.gatherStrided(p, e, cut, pool)
		return
	}
	c := g.chains[p]
	g.chains[p] = chain{}
	r := &g.work
	ts := r.t
again:
	if d := &e.dq; len(r.c) == 2 && d.tail-d.front+uint64(c.n) <= d.cap {
		// The common case of a tick: rows of three slots that fit in
		// the ring and in the tail's block, written in place.
		if blk, o := d.slotOf(d.tail); 3*int(c.n) <= len(blk)-o {
			if g.narrow {
				putRows3(blk[o:], g.idx16[c.end-c.n:c.end], ts, r.c[0], r.c[1])
			} else {
				putRows3(blk[o:], g.idx[c.end-c.n:c.end], ts, r.c[0], r.c[1])
			}
			d.tail += uint64(c.n)
			if r.unsorted {
				d.has |= dqUnsorted
			}
			return
		}
	}
	if e.evictFor(uint64(c.n), cut, pool) {
		cut = noFold
		goto again
	}
	if g.narrow {
		gatherRows(&g.work, e, pool, g.idx16[c.end-c.n:c.end])
	} else {
		gatherRows(&g.work, e, pool, g.idx[c.end-c.n:c.end])
	}
}

// putRows3 writes the buffered rows of the indices rows, of times ts and
// two columns c0 and c1, as rows of three slots into dst, which has room
// for them.
func putRows3[I rowIndex](dst []uint64, rows []I, ts []int64, c0, c1 []uint64) {
	// The columns cut to the times' length: one check of an index
	// serves all three.
	c0, c1 = c0[:len(ts)], c1[:len(ts)]
	for k, j := range rows {
		row := dst[3*k : 3*k+3 : 3*k+3]
		row[0], row[1], row[2] = uint64(ts[j]), c0[j], c1[j]
	}
}

// gatherStrided is gather for rows placed by [Group.strideChains]: a
// partition's rows are every k-th buffered row from its first, k the
// template's length.
func (g *Group) gatherStrided(p int32, e *Engine, cut int64, pool *blockPool) {
	if int(p) >= len(g.chains) || g.chains[p].n == 0 {
		return
	}
	c := g.chains[p]
	g.chains[p] = chain{}
	r := &g.work
	ts := r.t
	k := len(g.tmpl)
again:
	if d := &e.dq; len(r.c) == 2 && d.tail-d.front+uint64(c.n) <= d.cap {
		// The common case, as gather's: written in place.
		if blk, o := d.slotOf(d.tail); 3*int(c.n) <= len(blk)-o {
			c0, c1 := r.c[0][:len(ts)], r.c[1][:len(ts)]
			j := int(c.end)
			for end := o + 3*int(c.n); o < end; o += 3 {
				row := blk[o : o+3 : o+3]
				row[0], row[1], row[2] = uint64(ts[j]), c0[j], c1[j]
				j += k
			}
			d.tail += uint64(c.n)
			if r.unsorted {
				d.has |= dqUnsorted
			}
			return
		}
	}
	if e.evictFor(uint64(c.n), cut, pool) {
		cut = noFold
		goto again
	}
	// Otherwise the chain's indices, a few at a time, then as gather: no
	// scratch of the group's, as the workers of a tick gather side by
	// side.
	var seq [64]int32
	for m := int32(0); m < c.n; {
		b := seq[:min(int(c.n-m), len(seq))]
		for i := range b {
			b[i] = c.end + (m+int32(i))*int32(k)
		}
		gatherRows(&g.work, e, pool, b)
		m += int32(len(b))
	}
}

// gatherLinked is gather for rows linked by [Group.linkChains]: a
// partition's rows are followed from its last back to its first.
func (g *Group) gatherLinked(p int32, e *Engine, cut int64, pool *blockPool) {
	if int(p) >= len(g.chains) || g.chains[p].n == 0 {
		return
	}
	c := g.chains[p]
	g.chains[p] = chain{}
	r := &g.work
	ts := r.t
	idx := g.idx[:len(ts)]
	if d := &e.dq; len(r.c) == 2 && d.tail-d.front+uint64(c.n) <= d.cap {
		// The common case, as gather's: written in place, from the
		// last row's slots back to the first's.
		if blk, o := d.slotOf(d.tail); 3*int(c.n) <= len(blk)-o {
			c0, c1 := r.c[0][:len(ts)], r.c[1][:len(ts)]
			// The link of the first row is not read: it holds nothing,
			// and is a line of its own in a long buffer.
			j := c.end
			for k := o + 3*int(c.n-1); ; k -= 3 {
				row := blk[k : k+3 : k+3]
				row[0], row[1], row[2] = uint64(ts[j]), c0[j], c1[j]
				if k <= o {
					break
				}
				j = idx[j]
			}
			d.tail += uint64(c.n)
			if r.unsorted {
				d.has |= dqUnsorted
			}
			return
		}
	}
	if e.evictFor(uint64(c.n), cut, pool) {
		// Taken again, with the room made (a call, not a jump back:
		// a cut kept live across the loop above cost it registers).
		g.chains[p] = c
		g.gatherLinked(p, e, noFold, pool)
		return
	}
	// Otherwise the chain's indices in arrival order, then as gather.
	seq := slices.Grow(g.seq[:0], int(c.n))[:c.n]
	g.seq = seq
	j := c.end
	for k := len(seq) - 1; ; k-- {
		seq[k] = j
		if k == 0 {
			break
		}
		j = idx[j]
	}
	gatherRows(&g.work, e, pool, seq)
}

// gatherRows appends the rows of r at the indices rows, in order, to e's
// deque, block by block, and notes them out of order when r's are not
// known to be in order.
func gatherRows[I rowIndex](r *pendRows, e *Engine, pool *blockPool, rows []I) {
	ts := r.t
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
	if r.unsorted {
		e.dq.has |= dqUnsorted
	}
}
