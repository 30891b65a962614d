// Package workers runs one piece of work on several goroutines at once and
// waits for all of them: the fork and join of a series' workers.
//
// A [Pool] of n workers is the calling goroutine plus n−1 goroutines it
// owns. They start on the first [Pool.Run] and stop in [Pool.Close]. Run
// hands a [Task] to k of them, calls Do(0) itself and returns when every
// Do has returned, so a caller reads what the workers wrote without
// further synchronisation. Run does not allocate.
//
// # Handing work over
//
// A series forks and joins at every push and every tick, a few
// microseconds to a few milliseconds of work each; waking a parked
// goroutine costs the operating system's wake-up, several microseconds.
// So a worker that finished its part watches for the next task for a
// while (spinWaits times, yielding its processor each time) before it
// parks, and a Run that finds it watching hands the task over without a
// wake-up; a parked worker is woken through its channel. The caller waits
// for the parts the same way, watching a count of the parts left. An idle
// pool thus holds its processors for a few tens of microseconds after a
// Run, then nothing.
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

// taskParts is more than the most parts a task can have (MaxWorkers of
// package live).
const taskParts = 1 << 10

// spinWaits is how many times a worker looks for its next task, yielding
// in between, before it parks: about 20–60 µs on current machines. A
// variable for the tests, which make workers park at once.
var spinWaits = 256

// Pool is a set of n workers. It is not safe for concurrent use: one
// goroutine calls Run and Close.
type Pool struct {
	n       int
	started bool
	closed  atomic.Bool
	task    Task
	// gen counts the tasks handed out, times taskParts, plus the number
	// of parts of the newest: one word, read once, tells a worker whether
	// the new task has a part for it.
	gen    atomic.Int64
	left   atomic.Int32 // parts of the current task not done
	parked []atomic.Bool
	wake   []chan struct{} // per goroutine (worker w ≥ 1 at w−1), one token deep
	posts  []post          // per worker: a task handed over with Post
	panics []any           // per worker: what its part panicked with
	wg     sync.WaitGroup  // the goroutines, for Close
}

// post is a task handed to one worker to run on its own (see
// [Pool.Post]): the task, then busy set; the worker clears busy once the
// task has returned.
type post struct {
	task  Task
	busy  atomic.Bool
	panic any
	_     [32]byte
}

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
	seen := int64(0)
	for {
		g := p.await(w, seen)
		if ps := &p.posts[w]; ps.busy.Load() {
			// Before anything else, a closing included: whoever posted
			// waits for it.
			p.runPost(w, ps)
			continue
		}
		if p.closed.Load() {
			return
		}
		seen = g
		if w < int(g%taskParts) {
			p.do(w)
			p.left.Add(-1)
		}
	}
}

// await returns the generation of the next task after seen, watching for
// it spinWaits times, then parked until Run or Close wakes the worker.
func (p *Pool) await(w int, seen int64) int64 {
	for spins := 0; ; spins++ {
		if g := p.gen.Load(); g != seen || p.closed.Load() || p.posts[w].busy.Load() {
			return g
		}
		if spins < spinWaits {
			runtime.Gosched()
			continue
		}
		// Announce the park, then look once more: a Run that came in
		// between either saw the announcement (and sends a token) or
		// changed gen before it (seen here).
		p.parked[w].Store(true)
		if g := p.gen.Load(); g != seen || p.closed.Load() || p.posts[w].busy.Load() {
			p.parked[w].Store(false)
			return g
		}
		<-p.wake[w-1]
		spins = 0
	}
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

// Run calls t.Do(w) for w in [0, k) (k is clamped to [1, N]), Do(0) on
// the caller's goroutine and the others on the pool's, and returns when
// all have returned. A part that panics makes Run panic on the caller's
// goroutine, once every part has returned, with a message holding the
// part's panic value and stack. Run on a closed pool panics.
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
	p.task = t
	p.left.Store(int32(k - 1))
	g := p.gen.Load()
	p.gen.Store((g/taskParts+1)*taskParts + int64(k)) // publishes task and left to the workers
	for w := 1; w < k; w++ {
		if p.parked[w].CompareAndSwap(true, false) {
			p.wakeUp(w)
		}
	}
	p.do(0)
	for spins := 0; p.left.Load() > 0; spins++ {
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
// returns once it has run, and [Pool.Busy] tells whether it is still
// running. The caller must not Post to w again before that, nor touch
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
	if ps.busy.Load() {
		panic("workers: Post to a busy worker")
	}
	ps.task = t
	ps.busy.Store(true) // publishes the task
	if p.parked[w].CompareAndSwap(true, false) {
		p.wakeUp(w)
	}
}

// Busy reports whether the task posted to worker w has not returned yet.
// Once it reports false, the caller may read what the task wrote.
func (p *Pool) Busy(w int) bool {
	return w >= 1 && w < len(p.posts) && p.posts[w].busy.Load()
}

// Wait returns once the task posted to worker w (if any) has returned. A
// task that panicked makes Wait panic on the caller's goroutine with its
// panic value and stack.
func (p *Pool) Wait(w int) {
	if w < 1 || w >= len(p.posts) {
		return
	}
	ps := &p.posts[w]
	for spins := 0; ps.busy.Load(); spins++ {
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
	ps.busy.Store(false)
}

// callerWatch is how many times the caller looks at what it waits for
// before it starts yielding its processor between looks: some tens of
// microseconds, the most a worker's part usually outlasts the caller's.
const callerWatch = 1 << 14

// callerPause is the caller's pause after its spins-th look at the parts
// it waits for. It looks without yielding first: a goroutine locked to
// its thread (runtime.LockOSThread) that yields hands its processor to
// another thread and waits to be given one back, two wake-ups of the
// operating system each time. Then it yields every 64 looks, so that on
// one processor the workers get to run.
func callerPause(spins int) {
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
