package engine

import (
	"time"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Stream runs one [Engine] under the plan's trigger: the rolling of a
// source that is not partitioned.
type Stream struct {
	e       *Engine
	clock   clock.ClockState
	count   clock.CountState
	fast    bool // the event trigger's batch path applies
	scratch eventScratch

	al   *aligned.Group // the aligned engine, when the plan is aligned
	rows aligned.Rows

	// room: the room at the engine's deque tail, from slot at, when a
	// push of sorted rows crossing no boundary last asked (see
	// appendQuiet); forgotten by any other push and by Engine.
	room []uint64
	at   int

	runs *timeRuns // the rows as runs of equal times, when the plan counts by time
	// rowsOnly: the stream keeps runs, under a clock, and reads no
	// column (it counts rows only): a push of rows at one time that
	// crosses no boundary is one run added (see PushAt).
	rowsOnly bool
}

// NewStream returns an empty stream for the plan.
func (p *Plan) NewStream() *Stream {
	s := &Stream{e: p.NewEngine(), fast: p.fastEvent()}
	if p.al != nil {
		s.al = p.al.NewGroup(nil, p.first, 0)
		return s
	}
	switch t := p.trig; t.Kind {
	case clock.Clock:
		s.clock = clock.NewClockState(t.Seq)
	case clock.Count:
		s.count = clock.NewCountState(t.N)
	}
	if p.countsByTime() {
		s.runs = p.newTimeRuns()
		s.rowsOnly = p.trig.Kind == clock.Clock && len(p.cols) == 0
	}
	return s
}

// PushAt takes n sorted rows (n > 0), all at time t, when it can without
// their input: the stream counts rows only (see [Plan.CountsByTime]),
// under a clock the rows do not cross. It reports whether it took them;
// when it did not, nothing changed, and the caller binds the rows and
// pushes them (PushTo), which does the same for those it could have
// taken. It is small enough to be written where it is called.
func (s *Stream) PushAt(t int64, n int) bool {
	if s.rowsOnly && s.clock.Quiet(t) {
		s.addAt(t, n)
		return true
	}
	return false
}

// SetLateness is [Group.SetLateness] for a stream.
func (s *Stream) SetLateness(d time.Duration) {
	if s.al != nil {
		s.al.SetLag(int64(d))
	}
}

// AdvanceTo closes, in aligned mode, the boundaries that the series
// accepting a row at t closes, for a stream given only some of the series'
// rows (see [aligned.Group.Advance]); out's table is asked for only when
// one closes. Other modes close on their own rows only.
func (s *Stream) AdvanceTo(t int64, out Sink) {
	if s.al != nil && s.al.Due(t) {
		s.al.Advance(t, out.Table())
	}
}

// HeldBytes returns the memory the stream's windows hold.
func (s *Stream) HeldBytes() int {
	if s.al != nil {
		return s.al.Bytes()
	}
	if s.runs != nil {
		return s.runs.bytes()
	}
	return s.e.heldBytes() + s.e.p.pool.bytes()
}

// Engine returns the stream's engine. A stream that counts by time (see
// [Plan.CountsByTime]) keeps its rows beside it, not in its deque.
func (s *Stream) Engine() *Engine {
	s.room = nil // the caller may change the deque
	return s.e
}

// Push takes every row of in, in order, and appends the rows it emits to
// out, whose schema must be the plan's:
//
//   - event trigger: one row per input row, keyed at its time;
//   - count trigger: one row on every n-th input row, keyed at its time;
//   - clock trigger: one row per crossing, keyed at the start of the
//     bucket the crossing row opens, with that row included and the
//     windows evicted against its time.
//
// An aligned plan emits as [Group] does, without the partition column.
func (s *Stream) Push(in *Input, out *schema.Table) { s.PushTo(in, (*tableSink)(out)) }

// PushTo is [Stream.Push] appending to the table of out, asked for when
// the first row is emitted (an aligned stream asks at once).
func (s *Stream) PushTo(in *Input, out Sink) {
	if s.al != nil {
		s.rows = aligned.Rows{Times: in.times, Enc: in.enc, Arrs: in.arrs}
		s.al.Push(&s.rows, nil, out.Table())
		return
	}
	if s.runs != nil {
		s.pushRuns(in, out)
		return
	}
	e := s.e
	if e.p.trig.Kind == clock.Clock && !e.p.hasArr {
		// Sorted rows whose last crosses nothing: appended in one run,
		// through the room kept at the deque's tail.
		if n := len(in.times); in.sorted && n > 0 && s.clock.Quiet(in.times[n-1]) {
			s.appendQuiet(in)
			return
		}
	}
	s.room = nil // anything else may change the deque
	// emit appends the row of the windows as they are, keyed at t.
	emit := func(t int64) {
		tab := out.Table()
		table.Column(tab, 0).AppendTime(t)
		e.Emit(tab)
	}
	switch e.p.trig.Kind {
	case clock.Event:
		if len(in.times) == 0 {
			return
		}
		tab := out.Table()
		if s.fast && len(in.times) > 1 {
			s.pushEvents(in, tab)
			return
		}
		tc := table.Column(tab, 0)
		for i, t := range in.times {
			e.Append(in, i)
			e.Step()
			tc.AppendTime(t)
			e.Emit(tab)
		}
	case clock.Count:
		for i, t := range in.times {
			e.Append(in, i)
			if s.count.Observe() {
				e.Fold(e.maxT)
				emit(t)
			}
		}
	case clock.Clock:
		if e.p.hasArr {
			for i, t := range in.times {
				e.Append(in, i)
				if b, fired := s.clock.Observe(t); fired {
					e.Fold(t)
					emit(b)
				}
			}
			return
		}
		// Append runs of rows between crossings in one go.
		from := 0
		for i, t := range in.times {
			if b, fired := s.clock.Observe(t); fired {
				e.appendInput(in, from, i+1)
				from = i + 1
				e.Fold(t)
				emit(b)
			}
		}
		e.appendInput(in, from, len(in.times))
	}
}

// appendQuiet appends the rows of in, sorted and crossing no boundary, to
// the engine's deque through the room kept at its tail (s.room), which
// only this changes between other pushes.
func (s *Stream) appendQuiet(in *Input) {
	e := s.e
	st := int(e.dq.stride)
	n := len(in.times)
	from := 0
	if k := n * st; s.at+k <= len(s.room) {
		// The room at hand takes the whole push (most pushes).
		writeRows(s.room[s.at:s.at+k], in, 0, n, st)
		s.at += k
		e.dq.tail += uint64(n)
		from = n
	}
	for from < n {
		if s.at+st > len(s.room) {
			blk, i, k := e.dq.room(&e.p.pool)
			s.room, s.at = blk[:i+k*st], i
		}
		k := min((len(s.room)-s.at)/st, n-from)
		writeRows(s.room[s.at:s.at+k*st], in, from, k, st)
		s.at += k * st
		e.dq.tail += uint64(k)
		from += k
	}
	mt := in.times[n-1]
	e.markTimes(in.times[0], true)
	if e.dq.has&dqMax != 0 {
		mt = max(mt, e.maxT)
	}
	e.maxT = mt
	e.dq.has |= dqMax
}
