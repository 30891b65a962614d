package engine

import (
	"unsafe"

	"github.com/pond-go/pond/internal/prefetch"
)

// A group on one goroutine buffers the rows between two ticks and takes
// them into their deques at the tick, sorted by partition (see place.go).
// The buffer would hold a whole tick's rows: at 1,000 partitions of 20
// rows a tick, 20,000 rows of 28 bytes and their 4-byte indices, about
// 680 bytes a partition held for the group's life. So the buffer holds at
// most spillRows rows: when a push's rows find it full, the rows in it go
// into their deques first, as a removal moves them (see [Group.flush]),
// and the buffer starts again from empty. The tick then takes only the
// rows buffered since and folds deques that already hold the rest, as
// after a hand-over to a worker. Each partition's rows enter its deque in
// arrival order either way, and the fold reads the same deques, so the
// rows emitted are the same bit for bit.
//
// A group with workers keeps the whole tick in its buffer: the rows are
// handed over between ticks or laid out for the workers at the tick (see
// [Group.handOff], [Group.reserve]), each with its own bounds.

// spillRows is the most rows a group on one goroutine buffers between
// two ticks before it moves them into their deques (see above). A
// variable for the tests; 0 leaves the buffer unbounded.
var spillRows = 8192

// SetSpillRows sets the most rows a group on one goroutine buffers before
// it moves them into their deques (see spillRows), and returns the
// setting before. For tests: 0 leaves the buffer unbounded.
func SetSpillRows(n int) int {
	old := spillRows
	spillRows = n
	return old
}

// linkSpills: a full buffer's rows are linked by partition (see
// linkChains) rather than their indices sorted, however many a partition
// has: a flush of a bounded buffer then costs a pass over its rows, not
// one more over every partition.
var linkSpills = true

// spillPer, when positive, bounds the buffer at spillPer rows a known
// partition instead, when that is more than spillRows: a group of many
// partitions, whose buffer is little a partition, then keeps a tick's
// rows.
var spillPer = 0

// spillLimit is the most rows g buffers between two ticks.
func (g *Group) spillLimit() int {
	return max(spillRows, spillPer*len(g.order))
}

// bounded reports whether g's buffer holds at most spillRows rows: on
// one goroutine (no workers, or one).
func (g *Group) bounded() bool {
	return spillRows > 0 && (g.par.pool == nil || g.par.pool.N() < 2)
}

// bufferBounded is [Group.buffer] for a bounded group: rows [from, to)
// of in go to the buffer in runs that fit under spillRows, and a full
// buffer is moved into the deques before more rows enter it.
func (g *Group) bufferBounded(in *Input, part []int32, from, to int) {
	r := &g.in
	lim := g.spillLimit()
	for from < to {
		if len(r.part) >= lim {
			g.spilt = true
			g.flush()
		}
		k := min(to-from, lim-len(r.part))
		n := len(r.part) + k
		r.t = append(growRows(r.t, n, lim), in.times[from:from+k]...)
		for j, c := range in.enc {
			r.c[j] = append(growRows(r.c[j], n, lim), c[from:from+k]...)
		}
		r.part = append(growRows(r.part, n, lim), part[from:from+k]...)
		g.tickRows += k
		from += k
	}
}

// growRows returns s with room for n rows, never more than spillRows
// (n is at most that): twice the room it had, at least n. append would
// grow it by a quarter past spillRows.
func growRows[T int64 | uint64 | int32](s []T, n, lim int) []T {
	if n <= cap(s) {
		return s
	}
	m := min(lim, max(n, 2*cap(s)))
	return append(make([]T, 0, m), s...)
}

// prefetchFold prefetches what partition q's fold at this tick reads
// first (see [Engine.Prefetch]), with as many leaving rows as arrive:
// those buffered for it and, when a full buffer went to the deques since
// the last tick, those its deque took then (the rows since its last
// fold), which are then prefetched too, as far as their first block.
func (g *Group) prefetchFold(q int32) {
	e := g.engines[q]
	n := g.pending(q)
	if !g.spilt {
		e.Prefetch(n)
		return
	}
	d := &e.dq
	a := e.win(0).added
	e.Prefetch(n + int(d.tail-a))
	if a < d.tail {
		prefetch.Lines(d.lineRun(a, int(d.tail-a)*int(d.stride)*8))
	}
}

// prefetchTail, as a flush visits partitions ps in turn, prefetches the
// record of the partition a few places ahead, and the tail slot of the
// one nearer, which its deque takes rows at.
func (g *Group) prefetchTail(ps []int32, i int) {
	const far, near = 8, 4
	if i+far < len(ps) {
		prefetch.Line(unsafe.Pointer(g.engines[ps[i+far]]))
	}
	if i+near < len(ps) {
		if d := &g.engines[ps[i+near]].dq; d.tail-d.front < d.cap {
			p, _ := d.lineRun(d.tail, 8)
			prefetch.Line(p)
		}
	}
}
