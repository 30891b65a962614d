package workers

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parts records which parts ran and on how many goroutines at once.
type parts struct {
	ran     []atomic.Int32
	running atomic.Int32
	peak    atomic.Int32
	wait    bool // each part waits until all k are running
	k       int32
	panicAt int
}

func (t *parts) Do(w int) {
	n := t.running.Add(1)
	for {
		p := t.peak.Load()
		if n <= p || t.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if t.wait {
		for t.peak.Load() < t.k {
			runtime.Gosched()
		}
	}
	t.ran[w].Add(1)
	t.running.Add(-1)
	if w == t.panicAt {
		panic("boom")
	}
}

func newParts(n int) *parts { return &parts{ran: make([]atomic.Int32, n), panicAt: -1} }

func TestRunCallsEveryPartOnceAndWaits(t *testing.T) {
	p := New(4)
	defer p.Close()
	for _, k := range []int{1, 2, 3, 4} {
		tk := newParts(4)
		tk.wait, tk.k = true, int32(k)
		p.Run(k, tk)
		for w := range 4 {
			want := int32(0)
			if w < k {
				want = 1
			}
			assert.Equal(t, want, tk.ran[w].Load(), "k=%d part %d", k, w)
		}
		assert.Equal(t, int32(k), tk.peak.Load(), "k=%d: parts ran at once", k)
		assert.Zero(t, tk.running.Load(), "Run returned before a part did")
	}
}

func TestRunClampsTheNumberOfParts(t *testing.T) {
	p := New(2)
	defer p.Close()
	tk := newParts(2)
	tk.wait, tk.k = true, 2 // part 0 waits for worker 1 to join
	p.Run(5, tk)
	assert.Equal(t, int32(1), tk.ran[0].Load())
	assert.Equal(t, int32(1), tk.ran[1].Load())
	tk = newParts(2)
	p.Run(0, tk)
	assert.Equal(t, int32(1), tk.ran[0].Load())
	assert.Zero(t, tk.ran[1].Load())
}

func TestOneWorkerStartsNoGoroutine(t *testing.T) {
	require.Zero(t, loops(0), "pools of earlier tests")
	p := New(1)
	p.Run(1, newParts(1))
	assert.Zero(t, loops(0))
	p.Close()
}

// loops counts the goroutines running a pool's loop, waiting up to 5 s
// for the count to be want: the runtime may count a goroutine a little
// after its function returned, a goroutine just started may not be in
// the count yet on a busy machine, and other tests' goroutines come and
// go, so only pool loops are counted.
func loops(want int) int {
	count := func() int {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		return strings.Count(string(buf[:n]), "workers.(*Pool).loop")
	}
	n := count()
	for deadline := time.Now().Add(5 * time.Second); n != want && time.Now().Before(deadline); n = count() {
		time.Sleep(time.Millisecond)
	}
	return n
}

func TestGoroutinesStartOnFirstRunAndStopInClose(t *testing.T) {
	require.Zero(t, loops(0), "pools of earlier tests")
	p := New(3)
	assert.Zero(t, loops(0), "goroutines before the first Run")
	p.Run(3, newParts(3))
	assert.Equal(t, 2, loops(2))
	p.Close()
	p.Close() // twice is fine
	assert.Zero(t, loops(0), "goroutines after Close")
	assert.Panics(t, func() { p.Run(2, newParts(3)) }, "Run after Close")
}

func TestAPanicInAWorkerReachesTheCaller(t *testing.T) {
	p := New(2)
	defer p.Close()
	tk := newParts(2)
	tk.panicAt = 1
	tk.wait, tk.k = true, 2 // part 0 waits for worker 1 to join
	var got any
	func() {
		defer func() { got = recover() }()
		p.Run(2, tk)
	}()
	require.NotNil(t, got)
	assert.Contains(t, got, "part 1 panicked: boom")
	assert.Equal(t, int32(1), tk.ran[0].Load(), "the other part still ran")
	// The pool still works afterwards.
	tk = newParts(2)
	tk.wait, tk.k = true, 2
	p.Run(2, tk)
	assert.Equal(t, int32(1), tk.ran[1].Load())
}

type nop struct{}

func (nop) Do(int) {}

func TestRunDoesNotAllocate(t *testing.T) {
	p := New(2)
	defer p.Close()
	var tk nop
	assert.Zero(t, allocs.Count(1000, func() { p.Run(2, tk) }))
}

// splitTask squares items into a buffer per chunk, sleeping on worker 0
// so that the other takes more chunks.
type splitTask struct {
	s      Split
	chunks [][]int
	slow   bool
}

func (t *splitTask) Do(w int) {
	for {
		c, lo, hi, ok := t.s.Next(w)
		if !ok {
			return
		}
		if t.slow && w == 0 {
			time.Sleep(time.Millisecond)
		}
		for i := lo; i < hi; i++ {
			t.chunks[c] = append(t.chunks[c], i*i)
		}
	}
}

func TestSplitCoversEveryItemOnceInChunkOrder(t *testing.T) {
	p := New(3)
	defer p.Close()
	for _, n := range []int{0, 1, 7, 100, 1001} {
		for _, slow := range []bool{false, true} {
			tk := &splitTask{slow: slow}
			tk.chunks = make([][]int, tk.s.Reset(n, 3, 4))
			p.Run(3, tk)
			var joined []int
			for _, c := range tk.chunks {
				joined = append(joined, c...)
			}
			require.Len(t, joined, n)
			for i, x := range joined {
				require.Equal(t, i*i, x, "n=%d item %d", n, i)
			}
		}
	}
}

// TestRunReachesParkedWorkers lets the workers park between runs (a
// pause longer than their watch for the next task), mixed with runs back
// to back that find them watching, and closes the pool while they are
// parked: every run still gets all its parts done.
func TestRunReachesParkedWorkers(t *testing.T) {
	p := New(3)
	for i := range 40 {
		if i%4 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		k := 2 + i%2
		tk := newParts(3)
		tk.wait, tk.k = true, int32(k)
		p.Run(k, tk)
		for w := range k {
			require.Equal(t, int32(1), tk.ran[w].Load(), "run %d part %d", i, w)
		}
	}
	time.Sleep(5 * time.Millisecond)
	p.Close()
}

// TestRunsThatMeetParkingWorkersDoNotDeadlock hands over tasks whose parts
// wait for each other, with pauses around the length of a worker's watch
// for its next task, so that Runs often meet a worker between announcing
// its park and parking (the hand-over once blocked there for good).
func TestRunsThatMeetParkingWorkersDoNotDeadlock(t *testing.T) {
	defer func(n int) { spinWaits = n }(spinWaits)
	spinWaits = 0 // park at once: every Run meets a parking or parked worker
	p := New(2)
	defer p.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20000 {
			if i%3 == 0 {
				time.Sleep(time.Duration(i%5) * time.Microsecond)
			}
			tk := newParts(2)
			tk.wait, tk.k = true, 2
			p.Run(2, tk)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("runs did not finish: a hand-over deadlocked")
	}
}

// TestAWakeUpWithATokenWaitingReturns: a worker that announced its park
// and then saw its task left its token in the channel; the next wake-up
// must not wait for room there (the worker may be running the task the
// waker then waits on), and the worker still finds a token when it parks.
func TestAWakeUpWithATokenWaitingReturns(t *testing.T) {
	p := New(2)
	p.wake = []chan struct{}{make(chan struct{}, 1)} // worker 1's, no goroutine
	p.wake[0] <- struct{}{}                          // the token left behind
	done := make(chan struct{})
	go func() { p.wakeUp(1); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("wakeUp blocked on a token already waiting")
	}
	assert.Len(t, p.wake[0], 1, "one token waits for the worker")
}

// TestSplitHandsEachWorkerItsHomeFirst: a worker takes the chunks of its
// own home from the front, then the others' from their back; chunks are
// the same for the same n and k, whoever takes them.
func TestSplitHandsEachWorkerItsHomeFirst(t *testing.T) {
	var s Split
	require.Equal(t, 16, s.Reset(160, 2, 1))
	var got []int
	for range 10 { // worker 0 alone: its home 0–7, then 15, 14 from worker 1's back
		c, lo, hi, ok := s.Next(0)
		require.True(t, ok)
		assert.Equal(t, [2]int{c * 10, c*10 + 10}, [2]int{lo, hi})
		got = append(got, c)
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 15, 14}, got)
	got = got[:0]
	for {
		c, _, _, ok := s.Next(1) // worker 1: what is left of its home, from the front
		if !ok {
			break
		}
		got = append(got, c)
	}
	assert.Equal(t, []int{8, 9, 10, 11, 12, 13}, got)
	_, _, _, ok := s.Next(0)
	assert.False(t, ok)

	// Fewer chunks than workers: the homes of some are empty, and every
	// chunk is still taken once.
	require.Equal(t, 2, s.Reset(2, 4, 1))
	seen := map[int]bool{}
	for w := 3; w >= 0; w-- {
		for {
			c, _, _, ok := s.Next(w)
			if !ok {
				break
			}
			assert.False(t, seen[c])
			seen[c] = true
		}
	}
	assert.Len(t, seen, 2)
}

// counter is a task that counts its runs, optionally holding its worker
// until released.
type counter struct {
	runs    atomic.Int32
	hold    chan struct{}
	panicky bool
}

func (c *counter) Do(int) {
	if c.hold != nil {
		<-c.hold
	}
	c.runs.Add(1)
	if c.panicky {
		panic("posted boom")
	}
}

// TestPostRunsBesideTheCaller: a posted task runs on its worker while the
// caller goes on (it is held until the caller lets it go), Busy tells
// whether it has returned, Wait waits for it, and it reaches workers that
// are watching for work or parked.
func TestPostRunsBesideTheCaller(t *testing.T) {
	p := New(3)
	defer p.Close()
	c := &counter{hold: make(chan struct{})}
	p.Post(2, c)
	assert.True(t, p.Busy(2))
	assert.False(t, p.Busy(1))
	close(c.hold) // the caller was not held: the task runs elsewhere
	p.Wait(2)
	assert.False(t, p.Busy(2))
	assert.Equal(t, int32(1), c.runs.Load())

	// Posts to watching and to parked workers, between Runs.
	c = &counter{}
	for i := range 30 {
		if i%5 == 0 {
			time.Sleep(2 * time.Millisecond) // the workers park
		}
		p.Post(1, c)
		tk := newParts(3)
		tk.wait, tk.k = true, 3
		p.Run(3, tk) // worker 1 joins after the posted task
		p.Wait(1)
		for w := range 3 {
			require.Equal(t, int32(1), tk.ran[w].Load(), "round %d part %d", i, w)
		}
	}
	assert.Equal(t, int32(30), c.runs.Load())
}

// TestAPostedPanicReachesWait: a posted task's panic is raised by Wait on
// the caller's goroutine; the worker goes on with later work; a wrong
// Post panics at once.
func TestAPostedPanicReachesWait(t *testing.T) {
	p := New(2)
	c := &counter{panicky: true}
	p.Post(1, c)
	require.Panics(t, func() { p.Wait(1) })
	c.panicky = false
	p.Post(1, c)
	p.Wait(1)
	assert.Equal(t, int32(2), c.runs.Load())
	assert.Panics(t, func() { p.Post(0, c) }, "worker 0 is the caller")
	assert.Panics(t, func() { p.Post(2, c) }, "no worker 2")
	p.Close()
	assert.Panics(t, func() { p.Post(1, c) }, "after Close")
}

// TestClosingRunsAPostedTask: Close returns after a task posted just
// before has run, with no goroutine left.
func TestClosingRunsAPostedTask(t *testing.T) {
	p := New(2)
	c := &counter{}
	p.Post(1, c)
	p.Close()
	assert.Equal(t, int32(1), c.runs.Load())
	assert.False(t, p.Busy(1))
}

// idlePool returns a pool of n workers that looks started but has no
// goroutines: no worker ever joins a task or starts a posted one, as
// when the machine gives the workers no processor.
func idlePool(n int) *Pool {
	p := New(n)
	p.started = true
	p.parked = make([]atomic.Bool, n)
	p.wake = make([]chan struct{}, n-1)
	for i := range p.wake {
		p.wake[i] = make(chan struct{}, 1)
	}
	return p
}

// TestRunDoesNotWaitForWorkersThatDoNotJoin: with no worker getting to
// run, Run returns once the caller's part has done the whole task.
func TestRunDoesNotWaitForWorkersThatDoNotJoin(t *testing.T) {
	p := idlePool(3)
	tk := &splitTask{chunks: make([][]int, 100)}
	n := tk.s.Reset(100, 3, 1)
	done := make(chan struct{})
	go func() { p.Run(3, tk); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run waited for workers that never started")
	}
	var all []int
	for c := range n {
		all = append(all, tk.chunks[c]...)
	}
	want := make([]int, 100)
	for i := range want {
		want[i] = i * i
	}
	assert.Equal(t, want, all, "every item once, in chunk order")
}

// TestALateWorkerSkipsAClosedTask: a worker that was busy while a Run came
// and went does not run that task's part afterwards, and joins the next
// Run as usual.
func TestALateWorkerSkipsAClosedTask(t *testing.T) {
	p := New(2)
	defer p.Close()
	c := &counter{hold: make(chan struct{})}
	p.Post(1, c) // worker 1 is held inside it
	for p.posts[1].state.Load() != postRunning {
		runtime.Gosched()
	}
	tk := newParts(2)
	p.Run(2, tk)
	assert.Equal(t, int32(1), tk.ran[0].Load())
	close(c.hold)
	p.Wait(1)
	time.Sleep(5 * time.Millisecond) // time for a wrong late part
	assert.Zero(t, tk.ran[1].Load(), "a part ran after its Run returned")
	tk = newParts(2)
	tk.wait, tk.k = true, 2
	p.Run(2, tk)
	assert.Equal(t, int32(1), tk.ran[1].Load())
}

// TestWaitRunsAPostTheWorkerHasNotStarted: Wait takes a posted task back
// and runs it on the caller's goroutine when its worker has not started
// it, so a worker without a processor does not hold the caller up.
func TestWaitRunsAPostTheWorkerHasNotStarted(t *testing.T) {
	p := idlePool(2)
	c := &counter{}
	p.Post(1, c)
	assert.True(t, p.Busy(1))
	done := make(chan struct{})
	go func() { p.Wait(1); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Wait waited for a worker that never started")
	}
	assert.Equal(t, int32(1), c.runs.Load())
	assert.False(t, p.Busy(1))
	p.Post(1, c) // the worker is free for the next post
	p.Wait(1)
	assert.Equal(t, int32(2), c.runs.Load())
}

// TestPauseTakesTimeAndReturns: the spin-wait hint runs the number of
// times asked (none for 0 or less), so a longer run takes longer.
func TestPauseTakesTimeAndReturns(t *testing.T) {
	pause(0)
	pause(-3)
	t0 := time.Now()
	pause(1)
	one := time.Since(t0)
	t0 = time.Now()
	pause(1 << 16)
	many := time.Since(t0)
	assert.Greater(t, many, one, "65536 hints take longer than one")
}

// TestAWatchingWorkerYieldsOnlyNowAndThen: between two looks for its next
// task a worker pauses with spin-wait hints and yields its processor only
// every yieldLooks looks, so it goes through the scheduler (and competes
// with the caller for a shared core) a few times per watch, not at every
// look, while on one processor the caller still gets it back soon.
func TestAWatchingWorkerYieldsOnlyNowAndThen(t *testing.T) {
	yields := 0
	for spins := range spinWaits {
		if watchPause(spins) {
			yields++
		}
	}
	assert.Equal(t, spinWaits/yieldLooks, yields)
	assert.Greater(t, yields, 0, "it yields during a watch")
}
