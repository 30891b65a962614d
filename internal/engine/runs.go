package engine

import (
	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// timeRuns is the rows of an unpartitioned stream whose windows are all
// time windows that count: rows (a count of a required column, which has
// a value in every row) or the present values of a column (a count of a
// column that can be missing). Such a window needs only how many rows
// and values it holds, and rows that arrive one after the other with the
// same time are kept as one run: their time, the arrival number of the
// first, and for each column counted the values present before it (a
// running count over every row appended). A push of a thousand rows at
// one time is one run of 16 bytes, not a thousand times of 8.
//
// The windows evict runs as the deque evicts rows: from the front, in
// arrival order, stopping at the first run not older than cut − span, so
// a window holds the same rows. The engine's deque holds no rows: its
// tail counts the rows appended and each window's head is the arrival
// number of its first row, which is what an emission of row counts
// reads; a fold sets each count of present values to the running count
// less the count before the window's first run.
//
// A row with the last run's time joins it: every window holds the last
// run, since a fold's cut is the latest time appended (the crossing row's
// under a clock, the latest row's under a count trigger), a run at that
// time is inside every window of positive span, and eviction stops there
// before reaching the runs after it.
type timeRuns struct {
	// ring holds the runs, stride slots each: the time, the first row's
	// arrival number, then the running count of each column counted at
	// that row. Its capacity in runs is a power of two; run k is at
	// k & (runs−1).
	ring   []uint64
	stride int
	size   int      // the ring's capacity in runs, len(ring)/stride: no division finds a run
	front  uint64   // the first run held
	tail   uint64   // after the last run held
	heads  []uint64 // per window, the first run it holds
	// present[k]: the values of column slot k+1 present among every row
	// appended; number[k]: that column is a number column (NaN missing),
	// else 0 is missing.
	present []uint64
	number  []bool
}

// minRuns is the smallest ring, in runs.
const minRuns = 8

// countsByTime reports whether the plan's rows can be kept as runs of
// equal times: a rolling of a source that is not partitioned, not
// aligned, under a clock or count trigger, whose windows are all time
// windows and whose outputs all count rows or present values.
func (p *Plan) countsByTime() bool {
	if p.key != nil || p.al != nil {
		return false
	}
	if k := p.trig.Kind; k != clock.Clock && k != clock.Count {
		return false
	}
	for _, wp := range p.wins {
		if wp.span <= 0 {
			return false
		}
	}
	for _, o := range p.outs {
		if o.state != stRows && o.state != stCount {
			return false
		}
	}
	return true
}

// CountsByTime reports whether a stream of the plan keeps, instead of its
// rows, one time, a first arrival and counts per run of rows with equal
// times: its windows only count rows and values, and it holds memory by
// distinct times.
func (p *Plan) CountsByTime() bool { return p.countsByTime() }

func (p *Plan) newTimeRuns() *timeRuns {
	r := &timeRuns{stride: 2 + len(p.cols), heads: make([]uint64, len(p.wins)), present: make([]uint64, len(p.cols))}
	for _, k := range p.kinds {
		r.number = append(r.number, k == schema.Number)
	}
	return r
}

// runs returns the ring's capacity in runs.
func (r *timeRuns) runs() int { return r.size }

// run returns the slots of run k.
func (r *timeRuns) run(k uint64) []uint64 {
	i := int(k&uint64(r.runs()-1)) * r.stride
	return r.ring[i : i+r.stride : i+r.stride]
}

// timeOf returns the time of run k (its first slot), without cutting its
// slots out of the ring.
func (r *timeRuns) timeOf(k uint64) int64 {
	return int64(r.ring[int(k&uint64(r.runs()-1))*r.stride])
}

// add appends rows [from, to) of in, their times in non-decreasing order
// when sorted, to the runs, the running counts, the engine's tail and its
// latest time.
func (r *timeRuns) add(e *Engine, in *Input, from, to int, sorted bool) {
	if from >= to {
		return
	}
	ts := in.times[:to]
	n := e.dq.tail
	mt := ts[from]
	for i := from; i < to; {
		t := ts[i]
		j := i + 1
		if sorted && ts[to-1] == t {
			j = to // the rest are at t (a push of rows at one time)
		}
		for j < to && ts[j] == t {
			j++
		}
		mt = max(mt, t)
		if r.tail == r.front || r.timeOf(r.tail-1) != t {
			r.push(t, n)
		}
		for k, c := range in.enc {
			r.present[k] += uint64(countPresent(c, i, 1, j-i, r.number[k]))
		}
		n += uint64(j - i)
		i = j
	}
	e.dq.tail = n
	e.markTimes(ts[from], sorted)
	if e.dq.has&dqMax != 0 {
		mt = max(mt, e.maxT)
	}
	e.maxT = mt
	e.dq.has |= dqMax
}

// addAt is add for n rows at time t, not before any row added, of a
// stream that counts no column (the rows of a push at one time, counted):
// they join the last run when it is at t, else they open one, written
// here as push writes it (push's loop over the counts has nothing to
// copy, and its call costs more than it does).
func (s *Stream) addAt(t int64, n int) {
	r, e := s.runs, s.e
	first := e.dq.tail
	if k := r.tail; k == r.front || r.timeOf(k-1) != t {
		if k-r.front == uint64(r.runs()) {
			r.resize(max(minRuns, 2*r.runs()))
		}
		x := r.run(k)
		x[0], x[1] = uint64(t), first
		r.tail = k + 1
	}
	e.dq.tail = first + uint64(n)
	e.noteTime(t)
}

// push appends a run at t whose first row is row first, growing the ring
// when it is full.
func (r *timeRuns) push(t int64, first uint64) {
	if r.tail-r.front == uint64(r.runs()) {
		r.resize(max(minRuns, 2*r.runs()))
	}
	x := r.run(r.tail)
	x[0], x[1] = uint64(t), first
	// A loop, not copy: most streams count no column, and copy would
	// call memmove to copy nothing.
	for k, c := range r.present {
		x[2+k] = c
	}
	r.tail++
}

// resize moves the runs held to a ring of n runs, n a power of two no
// smaller than the runs held.
func (r *timeRuns) resize(n int) {
	old := *r
	r.ring, r.size = make([]uint64, n*r.stride), n
	for k := r.front; k < r.tail; k++ {
		copy(r.run(k), old.run(k))
	}
}

// fold evicts from each window, in arrival order, the runs older than
// cut − span, stopping at the first that is not, points the window's
// head at its first row and sets its counts of present values; the runs
// no window holds are dropped, and the ring shrinks to twice its runs or
// less (a power of two) when a quarter of it or less is in use.
func (r *timeRuns) fold(e *Engine, cut int64) {
	tail := e.dq.tail
	low := r.tail
	wins := e.wins()
	for w := range wins {
		wp := &e.p.wins[w]
		lim := cut - wp.span
		h := r.heads[w]
		for h < r.tail && int64(r.run(h)[0]) < lim {
			h++
		}
		r.heads[w] = h
		ws := &wins[w]
		head := tail
		var before []uint64 // the running counts at the window's first row
		if h < r.tail {
			x := r.run(h)
			head, before = x[1], x[2:]
		}
		ws.moveHead(head, tail)
		for i, s := range wp.counts {
			c := 0
			if before != nil {
				c = int(r.present[s-1] - before[s-1])
			}
			ws.counts(wp)[i] = c
		}
		low = min(low, h)
	}
	r.front = low
	e.dq.front = tail
	if low < r.tail {
		e.dq.front = r.run(low)[1]
	}
	if n := int(r.tail - r.front); r.runs() > minRuns && 4*n <= r.runs() {
		k := minRuns
		for k < 2*n {
			k *= 2
		}
		r.resize(k)
	}
}

// bytes returns the memory of the ring.
func (r *timeRuns) bytes() int { return 8 * cap(r.ring) }

// pushRuns is [Stream.PushTo] for a stream that keeps runs (see
// timeRuns): the same triggers, rows and emissions.
func (s *Stream) pushRuns(in *Input, out Sink) {
	e, r := s.e, s.runs
	count := e.p.trig.Kind == clock.Count
	// A sorted push under a clock that crosses no boundary (most pushes)
	// only adds its runs: it returns before the emission's closure is made.
	if n := len(in.times); !count && in.sorted && n > 0 && s.clock.Quiet(in.times[n-1]) {
		if t := in.times[0]; t == in.times[n-1] && len(in.enc) == 0 {
			s.addAt(t, n)
			return
		}
		r.add(e, in, 0, n, true)
		return
	}
	emit := func(t int64) {
		tab := out.Table()
		table.Column(tab, 0).AppendTime(t)
		e.Emit(tab)
	}
	if count {
		for i, t := range in.times {
			r.add(e, in, i, i+1, true)
			if s.count.Observe() {
				r.fold(e, e.maxT)
				emit(t)
			}
		}
		return
	}
	from := 0
	if in.sorted {
		// Only the times that are not quiet are observed.
		for i := s.clock.NextLoud(in.times, 0); i < len(in.times); i = s.clock.NextLoud(in.times, i+1) {
			t := in.times[i]
			if b, fired := s.clock.Observe(t); fired {
				r.add(e, in, from, i+1, true)
				from = i + 1
				r.fold(e, t)
				emit(b)
			}
		}
	} else {
		for i, t := range in.times {
			if b, fired := s.clock.Observe(t); fired {
				r.add(e, in, from, i+1, false)
				from = i + 1
				r.fold(e, t)
				emit(b)
			}
		}
	}
	r.add(e, in, from, len(in.times), in.sorted)
}
