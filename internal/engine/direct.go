package engine

import (
	"unsafe"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// directParts: a group without workers that knows fewer partitions than
// this appends a push's rows directly to their deques, rather than
// buffering them for the tick. With few partitions their deques' tails
// stay in cache, and a row is written once instead of buffered, sorted
// by partition at the tick and copied again. A variable for the tests,
// which take each way.
var directParts = 128

// SetDirectParts sets below how many partitions a group without workers
// appends a push's rows directly to their deques (see directParts), and
// returns the setting before. For tests: 0 buffers every row for the
// tick.
func SetDirectParts(n int) int {
	old := directParts
	directParts = n
	return old
}

// direct reports whether rows arriving now go straight to their deques.
// Only while nothing is buffered since the last tick: the rows appended
// then come after every row of their partitions, as at a tick. (A group
// that buffers goes on buffering until the tick, even if a removal leaves
// it few partitions.)
func (g *Group) direct() bool {
	return len(g.in.t) == 0 && len(g.order) < directParts && (g.par.pool == nil || g.par.pool.N() < 2)
}

// tailRoom is the room left at a deque's tail: the slots [at, end) of
// the block whose first slot blk points at. A pointer and two indices,
// not a slice: the append's loop checks one bound a row (at+stride ≤
// end) and keeps fewer values live. The zero tailRoom has no room.
type tailRoom struct {
	e       *Engine
	blk     unsafe.Pointer // the block's slot 0
	at, end int
}

// slots returns the k slots of the room from slot at on, which the caller
// has checked are in it (at+k ≤ end).
func (r *tailRoom) slots(at, k int) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Add(r.blk, uintptr(at)*8)), k)
}

// appendDirect appends rows [from, to) of in to their partitions' deques,
// in order, through the room each deque had at its tail when last asked
// (g.room). Only a tick or a removal changes a deque otherwise, and both
// forget that room first.
func (g *Group) appendDirect(in *Input, part []int32, from, to int) {
	for from < to {
		if len(in.enc) == 2 && in.sorted {
			from = g.appendRoomy2(in.times, in.enc[0], in.enc[1], part[:to], from)
		} else {
			from = g.appendRoomy(in, part[:to], from)
		}
		if from < to {
			g.refillRoom(part[from])
		}
	}
}

// PushQuiet is [Group.PushTo] for sorted rows of tab, the plan's source,
// partitioned by part, when it can take them without binding them: a
// plan under a clock that reads two number columns, a group that appends
// directly (see direct), rows that cross no boundary. It reports whether
// it took them; when it did not, nothing changed, and the caller binds
// the rows and pushes them (PushTo), which does the same for those it
// could have taken. This is most pushes of a few rows to a few
// partitions, whose binding and layers of calls cost more than their
// rows.
func (g *Group) PushQuiet(tab *schema.Table, part []int32) bool {
	if !g.quiet2 || !g.direct() {
		return false
	}
	cols := table.Columns(tab)
	times := cols[0].Times()
	n := len(times)
	if n == 0 || len(part) < n || !g.clock.Quiet(times[n-1]) {
		return false
	}
	at := g.p.cols[:2]
	c0, c1 := floatBits(cols[at[0]].Numbers()), floatBits(cols[at[1]].Numbers())
	part = part[:n]
	for from := 0; from < n; {
		if from = g.appendRoomy2(times, c0, c1, part, from); from < n {
			g.refillRoom(part[from])
		}
	}
	return true
}

// appendRoomy appends rows of in from row from on, while their
// partitions' deques have room at hand, and returns the first row it
// could not append (len(part) when it appended them all). It calls
// nothing, so that its loop keeps its values in registers.
func (g *Group) appendRoomy(in *Input, part []int32, from int) int {
	st := 1 + len(in.enc)
	times := in.times[:len(part)]
	rooms, sorted := g.room, in.sorted
	for i := from; i < len(part); i++ {
		p := uint(part[i]) // a negative index is out of range too
		if p >= uint(len(rooms)) {
			return i
		}
		r := &rooms[p]
		at := r.at
		if at+st > r.end {
			return i
		}
		row := r.slots(at, st)
		r.at = at + st
		t := times[i]
		row[0] = uint64(t)
		for k, c := range in.enc {
			row[1+k] = c[i]
		}
		r.e.took(t, sorted)
	}
	return len(part)
}

// appendRoomy2 is appendRoomy for sorted rows of a plan that reads two
// columns (rows of three slots: the times, c0 and c1), unrolled. Sorted,
// each row's time is its deque's latest: one flag fewer for the loop to
// keep (its values then fit in registers) and no test a row.
func (g *Group) appendRoomy2(times []int64, c0, c1 []uint64, part []int32, from int) int {
	times = times[:len(part)]
	c0, c1 = c0[:len(part)], c1[:len(part)]
	rooms := g.room
	for i := from; i < len(part); i++ {
		p := uint(part[i])
		if p >= uint(len(rooms)) {
			return i
		}
		r := &rooms[p]
		at := r.at
		if at+3 > r.end {
			return i
		}
		row := (*[3]uint64)(unsafe.Add(r.blk, uintptr(at)*8))
		r.at = at + 3
		t := times[i]
		row[0], row[1], row[2] = uint64(t), c0[i], c1[i]
		e := r.e
		e.dq.tail++
		e.maxT = t
		e.dq.has |= dqMax
	}
	return len(part)
}

// took counts one row written at the deque's tail, at time t; sorted
// tells that t is not before any time taken (rows in order). A row not
// known to be in order leaves the deque's rows not known to be in order
// (a group's maxT is not kept by every path, see Engine.MaxTime, so t is
// not compared with it).
func (e *Engine) took(t int64, sorted bool) {
	e.dq.tail++
	if sorted || t > e.maxT || e.dq.has&dqMax == 0 {
		e.maxT = t
		e.dq.has |= dqMax
	}
	if !sorted {
		e.dq.has |= dqUnsorted
	}
}

// refillRoom makes g.room[p] the room at partition p's deque tail (making
// its engine if it has none yet, last in the emission order).
func (g *Group) refillRoom(p int32) {
	if int(p) >= len(g.room) {
		g.room = append(g.room, make([]tailRoom, int(p)+1-len(g.room))...)
	}
	e := g.engine(p)
	blk, i, n := e.dq.room(&g.p.pool)
	end := i + n*int(e.dq.stride)
	_ = blk[:end] // the room is inside the block
	g.room[p] = tailRoom{e: e, blk: unsafe.Pointer(unsafe.SliceData(blk)), at: i, end: end}
}

// forgetRoom forgets the room at the deques' tails: before a tick folds
// the windows (which may give blocks back or move rows) or a removal. A
// group with directParts partitions or more buffers its rows until the
// next tick, so it lets go of the list as well: the first push of a
// group that meets many partitions at once goes direct (it knows none
// before), and the list it leaves, 40 bytes a partition, was held for
// the group's life.
func (g *Group) forgetRoom() {
	if len(g.order) >= directParts {
		g.room = nil
		return
	}
	clear(g.room)
}
