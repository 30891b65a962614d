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
	"sync"
	"time"
)

// Count calls f once to warm it up, then runs more times, and returns the
// number of heap allocations those runs made, in total. Like
// testing.AllocsPerRun it runs with GOMAXPROCS set to 1, so that other
// goroutines disturb the count as little as possible.
//
// The count is of the whole process, so the runtime's own work can land
// in it now and then: its timer heap growing when its scavenger goes to
// sleep, a thread it starts. So when a count is not zero, Count measures
// again, up to [Attempts] times in all, and returns the smallest count.
// Code that allocates on its steady path does so in every measurement
// (as long as runs covers the period of a rare allocation), so it still
// reads as allocating.
func Count(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var ms runtime.MemStats
	least := ^uint64(0)
	for range Attempts {
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		for range runs {
			f()
		}
		runtime.ReadMemStats(&ms)
		least = min(least, ms.Mallocs-before)
		if least == 0 {
			break
		}
	}
	return least
}

// Attempts is how many times Count measures at most.
const Attempts = 3

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
