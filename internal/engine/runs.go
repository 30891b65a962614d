package engine

import (
	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/table"
)

// timeRuns is the rows of an unpartitioned stream whose windows are all
// time windows that count rows (count of required columns, which have a
// value in every row): such a window needs only the times of its rows,
// and rows that arrive one after the other with the same time are kept as
// one run, their time and the arrival number of the first. A push of a
// thousand rows at one time is one run of 16 bytes, not a thousand times
// of 8.
//
// The windows evict runs as the deque evicts rows: from the front, in
// arrival order, stopping at the first run not older than cut − span, so
// a window holds the same rows. The engine's deque holds no rows: its
// tail counts the rows appended and each window's head is the arrival
// number of its first row, which is what an emission of row counts
// reads.
//
// A row with the last run's time joins it: every window holds the last
// run, since a fold's cut is the latest time appended (the crossing row's
// under a clock, the latest row's under a count trigger), a run at that
// time is inside every window of positive span, and eviction stops there
// before reaching the runs after it.
type timeRuns struct {
	ring  []timeRun // capacity a power of two; run k at k & (len−1)
	front uint64    // the first run held
	tail  uint64    // after the last run held
	heads []uint64  // per window, the first run it holds
}

// timeRun is a run of rows with one time, and the arrival number of its
// first row.
type timeRun struct {
	t     int64
	first uint64
}

// minRuns is the smallest ring.
const minRuns = 8

// countsByTime reports whether the plan's rows can be kept as runs of
// equal times: a rolling of a source that is not partitioned, not
// aligned, under a clock or count trigger, whose windows are all time
// windows and whose outputs are all row counts (the deque's rows are
// their times only).
func (p *Plan) countsByTime() bool {
	if p.key != nil || p.al != nil || len(p.cols) > 0 {
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
	return true
}

// CountsByTime reports whether a stream of the plan keeps, instead of its
// rows, one time and a first arrival per run of rows with equal times:
// its windows only count rows, and it holds memory by distinct times.
func (p *Plan) CountsByTime() bool { return p.countsByTime() }

func newTimeRuns(windows int) *timeRuns {
	return &timeRuns{heads: make([]uint64, windows)}
}

// add appends the rows with times ts, in non-decreasing order when
// sorted, to the runs, the engine's tail and its latest time.
func (r *timeRuns) add(e *Engine, ts []int64, sorted bool) {
	if len(ts) == 0 {
		return
	}
	n := e.dq.tail
	mt := ts[0]
	for i := 0; i < len(ts); {
		t := ts[i]
		j := i + 1
		if sorted && ts[len(ts)-1] == t {
			j = len(ts) // the rest are at t (a push of rows at one time)
		}
		for j < len(ts) && ts[j] == t {
			j++
		}
		mt = max(mt, t)
		if r.tail == r.front || r.ring[(r.tail-1)&uint64(len(r.ring)-1)].t != t {
			r.push(timeRun{t: t, first: n})
		}
		n += uint64(j - i)
		i = j
	}
	e.dq.tail = n
	if e.has {
		mt = max(mt, e.maxT)
	}
	e.maxT, e.has = mt, true
}

// push appends a run, growing the ring when it is full.
func (r *timeRuns) push(x timeRun) {
	if r.tail-r.front == uint64(len(r.ring)) {
		r.resize(max(minRuns, 2*len(r.ring)))
	}
	r.ring[r.tail&uint64(len(r.ring)-1)] = x
	r.tail++
}

// resize moves the runs held to a ring of n runs, n a power of two no
// smaller than the runs held.
func (r *timeRuns) resize(n int) {
	ring := make([]timeRun, n)
	for k := r.front; k < r.tail; k++ {
		ring[k&uint64(n-1)] = r.ring[k&uint64(len(r.ring)-1)]
	}
	r.ring = ring
}

// fold evicts from each window, in arrival order, the runs older than
// cut − span, stopping at the first that is not, and points the window's
// head at its first row; the runs no window holds are dropped, and the
// ring shrinks to twice its runs when a quarter of it or less is in use.
func (r *timeRuns) fold(e *Engine, cut int64) {
	mask := uint64(len(r.ring) - 1)
	tail := e.dq.tail
	low := r.tail
	for w := range e.wins {
		lim := cut - e.p.wins[w].span
		h := r.heads[w]
		for h < r.tail && r.ring[h&mask].t < lim {
			h++
		}
		r.heads[w] = h
		ws := &e.wins[w]
		ws.head, ws.added = tail, tail
		if h < r.tail {
			ws.head = r.ring[h&mask].first
		}
		low = min(low, h)
	}
	r.front = low
	e.dq.front = tail
	if low < r.tail {
		e.dq.front = r.ring[low&mask].first
	}
	if n := int(r.tail - r.front); len(r.ring) > minRuns && 4*n <= len(r.ring) {
		k := minRuns
		for k < 2*n {
			k *= 2
		}
		r.resize(k)
	}
}

// bytes returns the memory of the ring.
func (r *timeRuns) bytes() int { return 16 * cap(r.ring) }

// pushRuns is [Stream.PushTo] for a stream that keeps runs (see
// timeRuns): the same triggers, rows and emissions.
func (s *Stream) pushRuns(in *Input, out Sink) {
	e, r := s.e, s.runs
	emit := func(t int64) {
		tab := out.Table()
		table.Column(tab, 0).AppendTime(t)
		e.Emit(tab)
	}
	if e.p.trig.Kind == clock.Count {
		for i, t := range in.times {
			r.add(e, in.times[i:i+1], true)
			if s.count.Observe() {
				r.fold(e, e.maxT)
				emit(t)
			}
		}
		return
	}
	if n := len(in.times); in.sorted && n > 0 && s.clock.Quiet(in.times[n-1]) {
		r.add(e, in.times, true)
		return
	}
	from := 0
	for i, t := range in.times {
		if b, fired := s.clock.Observe(t); fired {
			r.add(e, in.times[from:i+1], in.sorted)
			from = i + 1
			r.fold(e, t)
			emit(b)
		}
	}
	r.add(e, in.times[from:], in.sorted)
}
