// Package workers runs one piece of work on several goroutines at once and
// waits for all of them: the fork and join of a series' workers.
//
// A [Pool] of n workers is the calling goroutine plus n−1 goroutines it
// owns. They start on the first [Pool.Run] and stop in [Pool.Close]; in
// between they wait on a channel, holding nothing of the work. Run hands a
// [Task] to k of them, calls Do(0) itself and returns when every Do has
// returned, so a caller reads what the workers wrote without further
// synchronisation. Run does not allocate.
package workers

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// A Task is work split in parts: Run calls Do(w) once for each part w.
type Task interface {
	Do(w int)
}

// Pool is a set of n workers. It is not safe for concurrent use: one
// goroutine calls Run and Close.
type Pool struct {
	n       int
	started bool
	closed  bool
	task    Task
	start   []chan struct{} // per goroutine (worker w ≥ 1 at w−1)
	done    chan int        // a worker's index when its part is done
	panics  []any           // per worker: what its part panicked with
	wg      sync.WaitGroup  // the goroutines, for Close
}

// New returns a pool of n workers (n ≥ 1); none starts before the first
// Run.
func New(n int) *Pool {
	return &Pool{n: max(n, 1), panics: make([]any, max(n, 1))}
}

// N returns the number of workers, the caller's goroutine included.
func (p *Pool) N() int { return p.n }

func (p *Pool) startAll() {
	p.started = true
	p.done = make(chan int, p.n)
	p.start = make([]chan struct{}, p.n-1)
	for i := range p.start {
		c := make(chan struct{})
		p.start[i] = c
		p.wg.Add(1)
		go p.loop(i+1, c)
	}
}

// loop is worker w's goroutine: it runs its part of each task it is
// started on until its channel closes.
func (p *Pool) loop(w int, start <-chan struct{}) {
	defer p.wg.Done()
	for range start {
		p.do(w)
		p.done <- w
	}
}

// do runs part w, keeping what it panics with for Run to raise again on
// the caller's goroutine.
func (p *Pool) do(w int) {
	defer func() {
		if r := recover(); r != nil {
			p.panics[w] = fmt.Sprintf("%v\n\n%s", r, debug.Stack())
		}
	}()
	p.task.Do(w)
}

// Run calls t.Do(w) for w in [0, k) (k is clamped to [1, N]), Do(0) on
// the caller's goroutine and the others on the pool's, and returns when
// all have returned. A part that panics makes Run panic on the caller's
// goroutine, once every part has returned, with a message holding the
// part's panic value and stack. Run on a
// closed pool panics.
func (p *Pool) Run(k int, t Task) {
	if p.closed {
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
	for w := 1; w < k; w++ {
		p.start[w-1] <- struct{}{}
	}
	p.do(0)
	for range k - 1 {
		<-p.done
	}
	p.task = nil
	for w := range k {
		if r := p.panics[w]; r != nil {
			clear(p.panics)
			panic(fmt.Sprintf("workers: part %d panicked: %v", w, r))
		}
	}
}

// Close stops the pool's goroutines and waits for them to exit. It is
// safe to call more than once.
func (p *Pool) Close() {
	if p.closed {
		return
	}
	p.closed = true
	for _, c := range p.start {
		close(c)
	}
	p.wg.Wait()
}
