// Package allocs counts heap allocations exactly, for the tests that
// guard zero-allocation paths.
//
// testing.AllocsPerRun reports the average number of allocations per run
// rounded down, so a path that allocates now and then (a buffer growing,
// a pool giving out fresh memory every few hundred runs) reads as zero.
// [Count] reports the total instead.
package allocs

import (
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Count calls f once to warm it up, then runs more times, and returns the
// number of heap allocations those runs made, in total. Like
// testing.AllocsPerRun it runs with GOMAXPROCS set to 1, so that other
// goroutines disturb the count as little as possible.
//
// The heap's count is the whole process's, so the runtime's own work can
// land in it: its scavenger growing the timer heap of the one processor
// left when it goes to sleep, a thread it starts. Count profiles every
// allocation of the runs (runtime.MemProfileRate 1 while they run), and
// when the count is not zero it leaves out those made wholly inside the
// runtime, with no frame of any other package on their stack. What f's
// code allocates has its frames on the stack and counts; what the
// runtime allocates on its own stack for it may not (the descriptor of a
// goroutine f starts, when none is free to reuse, can be such), so a
// guard over code that starts goroutines counts their work, not their
// descriptors.
func Count(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rate := runtime.MemProfileRate
	defer func() { runtime.MemProfileRate = rate }()
	// Only the runs are profiled: nothing before them waits to show in
	// the profile, nothing after them is added to it, and the runs lie
	// within the count, so every allocation left out was counted.
	profileOff()
	publish()
	before := profile(nil)
	f()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	runtime.MemProfileRate = 1
	for range runs {
		f()
	}
	profileOff()
	runtime.ReadMemStats(&ms)
	n := ms.Mallocs - mallocs - 1 // profileOff's allocation
	if n == 0 {
		return 0
	}
	publish()
	for stack, objs := range profile(before) {
		if runtimeOnly(stack) {
			n -= min(n, uint64(objs))
		}
	}
	return n
}

// profileOff stops profiling allocations, and makes one. The runtime
// profiles the first allocation after a change of MemProfileRate whatever
// the new rate: that is this one, unless another goroutine's came first.
func profileOff() {
	runtime.MemProfileRate = 0
	offSink.Store(new([16]byte))
}

var offSink atomic.Pointer[[16]byte]

// publish collects until the memory profile shows every allocation
// profiled so far: it shows one once two collections have ended after it.
func publish() {
	for range 3 {
		runtime.GC()
	}
}

// profile returns the memory profile's allocations by stack, less those
// of since, when it is not nil.
func profile(since map[[32]uintptr]int64) map[[32]uintptr]int64 {
	var recs []runtime.MemProfileRecord
	for {
		n, ok := runtime.MemProfile(recs, true)
		if ok {
			recs = recs[:n]
			break
		}
		recs = make([]runtime.MemProfileRecord, n+n/4+16)
	}
	m := make(map[[32]uintptr]int64, len(recs))
	for _, r := range recs {
		m[r.Stack0] += r.AllocObjects
	}
	for stack, objs := range since {
		if m[stack] -= objs; m[stack] <= 0 {
			delete(m, stack)
		}
	}
	return m
}

// runtimeOnly reports whether every frame of stack is the runtime's.
func runtimeOnly(stack [32]uintptr) bool {
	var pcs []uintptr
	for _, pc := range stack {
		if pc == 0 {
			break
		}
		pcs = append(pcs, pc)
	}
	if len(pcs) == 0 {
		return false
	}
	frames := runtime.CallersFrames(pcs)
	for {
		fr, more := frames.Next()
		if !runtimeFunc(fr.Function) {
			return false
		}
		if !more {
			return true
		}
	}
}

// runtimeFunc reports whether the function named fn is the runtime's:
// of package runtime or of the runtime's internal packages.
func runtimeFunc(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/")
}

// LockThread wires the calling goroutine to its OS thread, as
// runtime.LockOSThread does (undo it with runtime.UnlockOSThread), for a
// benchmark that reads its thread's CPU time and counts its allocations.
//
// The first time in a process, it first has the runtime start spare
// threads and leave them idle. When a goroutine locked to its thread is
// preempted, the runtime hands its processor to another thread, and
// makes one if none is idle: a handful of allocations (about 2 KB) that
// a count around the benchmark's loop would charge to the code it
// measures, once a process, at random.
func LockThread() {
	spareOnce.Do(spareThreads)
	runtime.LockOSThread()
}

var spareOnce sync.Once

// spareThreads blocks several goroutines in a system call at once: the
// runtime takes the processor of each and runs the others on new threads,
// which go idle, not away, when the calls return. The runtime's monitor
// takes a processor from a blocked thread only when it looks, which on a
// busy machine can come after the calls returned: so the round is done
// again, with longer calls, until the runtime has made two threads more
// than before (or a few rounds failed to).
func spareThreads() {
	threads := pprof.Lookup("threadcreate")
	want := threads.Count() + 2
	d := 5 * time.Millisecond
	for range 6 {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sleepInKernel(d)
			}()
		}
		wg.Wait()
		if threads.Count() >= want {
			return
		}
		d *= 2
	}
}
