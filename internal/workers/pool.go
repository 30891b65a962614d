// Package workers runs one piece of work on several goroutines at once: the
// fork and join of a series' workers.
//
// A [Pool] of n workers is the calling goroutine plus n−1 goroutines it
// owns. They start on the first [Pool.Run] and stop in [Pool.Close]. Run
// hands a [Task] to the pool, calls Do(0) itself and returns once every
// part that started has returned, so a caller reads what the workers wrote
// without further synchronisation. Run does not allocate.
//
// # Workers join late or not at all
//
// The caller never waits for a worker to start. A worker's part runs only
// if the worker joins the task while the caller's part is still running;
// once Do(0) has returned, the task is closed, and a worker that comes
// later skips it. So a task's parts share its work as they come (take
// items from a common supply, such as a [Split]), and Do(0) alone must be
// able to do all of it. A machine whose other cores are busy, a parked
// worker slow to wake or a caller locked to its thread
// (runtime.LockOSThread) then costs the caller nothing beyond doing the
// work itself: it waits only for the parts already running.
//
// # Handing work over
//
// A series forks at every tick, a few microseconds to a few milliseconds
// of work each; waking a parked goroutine costs the operating system's
// wake-up, several microseconds. So a worker that finished its part
// watches for the next task for a while (spinWaits looks, a run of the
// processor's spin-wait hint between two) before it parks, and a Run
// that finds it watching hands the task over without a wake-up; a parked
// worker is woken through its channel, and joins if it wakes in time. An
// idle pool thus holds its processors for a fraction of a millisecond
// after a Run, then nothing.
//
// Watching is done with the spin-wait hint (PAUSE on amd64), not by
// yielding the processor: the hint leaves the core's resources to
// whatever runs beside the watcher (the caller, on the other thread of
// the same core, or another virtual processor of the same host core),
// where a loop through the scheduler competes with it for them. The
// watcher still yields now and then, so that with fewer processors than
// workers the caller is not kept waiting for one.
//
// A task handed to one worker with [Pool.Post] is taken back the same
// way: if the worker has not started it when the caller needs its result
// ([Pool.Wait]), the caller runs it itself.
package workers

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// A Task is work split in parts: Run calls Do(w) once for each part w.
type Task interface {
	Do(w int)
}

// taskParts is more than the most workers a pool can have (MaxWorkers of
// package live).
const taskParts = 1 << 10

// spinWaits is how many times a worker looks for its next task before it
// parks, with spinPauses spin-wait hints between two looks and a yield
// every yieldLooks looks: 256 × 32 hints of 10–40 ns, 0.1–0.3 ms on
// current machines, longer than a push of a thousand rows, so a worker
// handed rows at every push, or joining ticks ten pushes apart, is
// seldom parked when the next comes (a wake-up costs the caller a system
// call and the worker tens of microseconds). A variable for the tests,
// which make workers park at once.
var spinWaits = 256

const (
	spinPauses = 32
	yieldLooks = 8
)

// everyPart makes every Run wait for all the pool's workers to join
// before the caller starts its own part, and every Wait leave a posted
// task to its worker: see [SetEveryPart].
var everyPart atomic.Bool

// SetEveryPart, for tests, makes every pool's workers take part in every
// Run (the caller starts its part only once all have joined) and run
// every posted task themselves, and returns the setting before. Tests
// that compare the rows of several workers with one worker's set it, so
// that the workers' paths are taken however busy the machine is.
func SetEveryPart(on bool) bool { return everyPart.Swap(on) }

// alone makes every Run's caller do the whole task: see [SetAlone].
var alone atomic.Bool

// SetAlone, for tests, makes every Run's caller do every part itself, as
// when no worker wakes in time (their cores busy with other work), and
// returns the setting before.
func SetAlone(on bool) bool { return alone.Swap(on) }

// Pool is a set of n workers. It is not safe for concurrent use: one
// goroutine calls Run and Close.
type Pool struct {
	n       int
	started bool
	closed  atomic.Bool
	task    Task
	k       int // the parts of the current task
	// state is the current task's generation (from genShift up), whether
	// it is closed (closedBit: the caller's part has returned) and how
	// many workers are running a part of it (the low bits). A worker joins
	// by adding one while the generation is the one it saw and the task
	// is open, so the caller, which closes the task and then waits for
	// the count to reach zero, never waits for a worker that has not
	// started.
	state  atomic.Uint64
	joins  atomic.Int32 // workers that joined the current task
	parked []atomic.Bool
	wake   []chan struct{} // per goroutine (worker w ≥ 1 at w−1), one token deep
	posts  []post          // per worker: a task handed over with Post
	panics []any           // per worker: what its part panicked with
	wg     sync.WaitGroup  // the goroutines, for Close
}

// post is a task handed to one worker to run on its own (see
// [Pool.Post]): the task, then its state set to posted; whoever moves
// the state from posted to running (the worker, or the caller in Wait)
// runs it and sets it back to idle.
type post struct {
	task  Task
	state atomic.Int32
	panic any
	_     [32]byte
}

// The states of a post.
const (
	postIdle    = iota // nothing posted, or the posted task has returned
	postWaiting        // posted, not started
	postRunning        // started by the worker or taken back by the caller
)

// The fields of Pool.state.
const (
	genShift  = 32
	closedBit = 1 << 31
	joinedMax = closedBit - 1 // mask of the running workers' count
)

// New returns a pool of n workers (n is clamped to [1, 1023]); none
// starts before the first Run.
func New(n int) *Pool {
	n = min(max(n, 1), taskParts-1)
	return &Pool{n: n, panics: make([]any, n), posts: make([]post, n)}
}

// N returns the number of workers, the caller's goroutine included.
func (p *Pool) N() int { return p.n }

func (p *Pool) startAll() {
	p.started = true
	p.parked = make([]atomic.Bool, p.n)
	p.wake = make([]chan struct{}, p.n-1)
	for i := range p.wake {
		p.wake[i] = make(chan struct{}, 1)
		p.wg.Add(1)
		go p.loop(i + 1)
	}
}

// loop is worker w's goroutine: it waits for each task and runs its part
// when it has one, until the pool closes.
func (p *Pool) loop(w int) {
	defer p.wg.Done()
	seen := uint64(0)
	for {
		g := p.await(w, seen)
		if ps := &p.posts[w]; ps.state.Load() == postWaiting {
			// Before anything else, a closing included: whoever posted
			// waits for it, unless the caller has taken it back.
			if ps.state.CompareAndSwap(postWaiting, postRunning) {
				p.runPost(w, ps)
			}
			continue
		}
		if p.closed.Load() {
			return
		}
		seen = g
		if p.join(g) {
			p.joins.Add(1)
			if w < p.k {
				p.do(w)
			}
			p.state.Add(^uint64(0)) // leaves: one fewer running
		}
	}
}

// join adds the worker to the task of generation g if that task is still
// open, and reports whether it did. Only after joining may a worker read
// the task: until it leaves, the caller's Run does not return.
func (p *Pool) join(g uint64) bool {
	for {
		s := p.state.Load()
		if s>>genShift != g || s&closedBit != 0 {
			return false
		}
		if p.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// await returns the generation of the next task after seen, watching for
// it spinWaits times, then parked until Run or Close wakes the worker.
func (p *Pool) await(w int, seen uint64) uint64 {
	for spins := 0; ; spins++ {
		if g := p.state.Load() >> genShift; g != seen || p.closed.Load() || p.posts[w].state.Load() == postWaiting {
			return g
		}
		if spins < spinWaits {
			watchPause(spins)
			continue
		}
		// Announce the park, then look once more: a Run that came in
		// between either saw the announcement (and sends a token) or
		// published its task before it (seen here).
		p.parked[w].Store(true)
		if g := p.state.Load() >> genShift; g != seen || p.closed.Load() || p.posts[w].state.Load() == postWaiting {
			p.parked[w].Store(false)
			return g
		}
		<-p.wake[w-1]
		spins = 0
	}
}

// watchPause is a watching worker's pause after its spins-th look for its
// next task: spin-wait hints, and a yield every yieldLooks looks (which
// it reports).
func watchPause(spins int) (yielded bool) {
	pause(spinPauses)
	if spins%yieldLooks != yieldLooks-1 {
		return false
	}
	runtime.Gosched()
	return true
}

// do runs part w, keeping what it panics with for Run to raise again on
// the caller's goroutine.
func (p *Pool) do(w int) { p.panics[w] = guard(p.task, w) }

// guard calls t.Do(w) and returns what it panicked with, as its value
// and stack, or nil.
func guard(t Task, w int) (panicked any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("%v\n\n%s", r, debug.Stack())
		}
	}()
	t.Do(w)
	return nil
}

// Run calls t.Do(0) on the caller's goroutine and, while that runs,
// t.Do(w) for w in [1, k) on those of the pool's workers that join in
// time (k is clamped to [1, N]), each part at most once, and returns when
// every part that started has returned. Parts other than 0 are help, not
// a promise: a worker that is parked, slow to wake or busy may join late
// or not at all (see the package doc), so Do(0) alone must be able to do
// the whole task. A part that panics makes Run panic on the caller's
// goroutine, once every started part has returned, with a message holding
// the part's panic value and stack. Run on a closed pool panics.
func (p *Pool) Run(k int, t Task) {
	if p.closed.Load() {
		panic("workers: Run after Close")
	}
	k = min(max(k, 1), p.n)
	if k == 1 {
		t.Do(0)
		return
	}
	if !p.started {
		p.startAll()
	}
	if alone.Load() {
		t.Do(0)
		return
	}
	p.task, p.k = t, k
	p.joins.Store(0)
	g := p.state.Load()>>genShift + 1
	p.state.Store(g << genShift) // publishes task and k: open, nobody in
	all := everyPart.Load()
	for w := 1; w < k || all && w < p.n; w++ {
		if p.parked[w].CompareAndSwap(true, false) {
			p.wakeUp(w)
		}
	}
	if all {
		for spins := 0; p.joins.Load() < int32(p.n-1); spins++ {
			callerPause(spins)
		}
	}
	p.do(0)
	p.state.Or(closedBit)
	for spins := 0; p.state.Load()&joinedMax != 0; spins++ {
		callerPause(spins)
	}
	p.task = nil
	for w := range k {
		if r := p.panics[w]; r != nil {
			clear(p.panics)
			panic(fmt.Sprintf("workers: part %d panicked: %v", w, r))
		}
	}
}

// Post hands t to worker w (in [1, N)) to run t.Do(w) on its own
// goroutine, and returns at once: the caller goes on while the worker
// works. The worker runs it before any later Run's part; [Pool.Wait]
// returns once it has run (running it on the caller's goroutine if the
// worker has not started it), and [Pool.Busy] tells whether it has not
// returned yet. The caller must not Post to w again before that, nor touch
// what the task works on. A worker's posted task does not delay the
// others. Post on a closed pool panics, as do a w out of range and a
// second Post to a busy worker.
func (p *Pool) Post(w int, t Task) {
	if p.closed.Load() {
		panic("workers: Post after Close")
	}
	if w < 1 || w >= p.n {
		panic(fmt.Sprintf("workers: Post to worker %d of %d", w, p.n))
	}
	if !p.started {
		p.startAll()
	}
	ps := &p.posts[w]
	if ps.state.Load() != postIdle {
		panic("workers: Post to a busy worker")
	}
	ps.task = t
	ps.state.Store(postWaiting) // publishes the task
	if p.parked[w].CompareAndSwap(true, false) {
		p.wakeUp(w)
	}
}

// Busy reports whether the task posted to worker w has not returned yet.
// Once it reports false, the caller may read what the task wrote.
func (p *Pool) Busy(w int) bool {
	return w >= 1 && w < len(p.posts) && p.posts[w].state.Load() != postIdle
}

// Wait returns once the task posted to worker w (if any) has returned:
// if the worker has not started it, Wait runs it on the caller's
// goroutine. A task that panicked makes Wait panic on the caller's
// goroutine with its panic value and stack.
func (p *Pool) Wait(w int) {
	if w < 1 || w >= len(p.posts) {
		return
	}
	ps := &p.posts[w]
	if !everyPart.Load() && ps.state.CompareAndSwap(postWaiting, postRunning) {
		p.runPost(w, ps) // taken back
	}
	for spins := 0; ps.state.Load() != postIdle; spins++ {
		callerPause(spins)
	}
	if r := ps.panic; r != nil {
		ps.panic = nil
		panic(fmt.Sprintf("workers: posted task of worker %d panicked: %v", w, r))
	}
}

// runPost runs worker w's posted task and lets the poster know.
func (p *Pool) runPost(w int, ps *post) {
	ps.panic = guard(ps.task, w)
	ps.task = nil
	ps.state.Store(postIdle)
}

// callerWatch is how many times the caller looks at what it waits for
// before it starts yielding its processor between looks: with a
// spin-wait hint between two looks, some tens of microseconds, the most a
// worker's part usually outlasts the caller's.
const callerWatch = 1 << 12

// callerPause is the caller's pause after its spins-th look at the parts
// it waits for: one spin-wait hint, which leaves the core to the worker it
// waits for if the two share one. It looks without yielding first: a
// goroutine locked to its thread (runtime.LockOSThread) that yields hands
// its processor to another thread and waits to be given one back, two
// wake-ups of the operating system each time. Then it yields every 64
// looks, so that on one processor the workers get to run.
func callerPause(spins int) {
	pause(1)
	if spins >= callerWatch && spins%64 == 63 {
		runtime.Gosched()
	}
}

// Close stops the pool's goroutines and waits for them to exit. It is
// safe to call more than once.
func (p *Pool) Close() {
	if p.closed.Swap(true) || !p.started {
		return
	}
	for w := 1; w < p.n; w++ {
		if p.parked[w].CompareAndSwap(true, false) {
			p.wakeUp(w)
		}
	}
	p.wg.Wait()
}

// wakeUp leaves worker w a token, unless one is waiting already: a worker
// that announced its park and then saw the new task runs it without
// taking the token, which it takes (and looks again) the next time it
// parks.
func (p *Pool) wakeUp(w int) {
	select {
	case p.wake[w-1] <- struct{}{}:
	default:
	}
}
