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
)

// Count calls f once to warm it up, then runs more times, and returns the
// number of heap allocations those runs made, in total. Like
// testing.AllocsPerRun it runs with GOMAXPROCS set to 1, so that other
// goroutines disturb the count as little as possible.
func Count(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	for range runs {
		f()
	}
	runtime.ReadMemStats(&ms)
	return ms.Mallocs - before
}
