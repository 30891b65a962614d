package allocs

import (
	"runtime"
	"sync"
	"testing"
)

var sink []byte

func TestCountSeesRareAllocations(t *testing.T) {
	i := 0
	// One allocation every 10 runs: AllocsPerRun reads 0.
	rare := func() {
		if i++; i%10 == 0 {
			sink = make([]byte, 64)
		}
	}
	if got := Count(100, rare); got != 10 {
		t.Fatalf("Count = %d, want 10", got)
	}
	if avg := testing.AllocsPerRun(100, rare); avg != 0 {
		t.Fatalf("AllocsPerRun = %v; the premise of Count has changed", avg)
	}
	if got := Count(100, func() {}); got != 0 {
		t.Fatalf("Count of nothing = %d", got)
	}
}

// TestCountKeepsTheCodesOwnAllocations: allocations made by f, on its
// goroutine or on another it starts and waits for, all count; profiling
// them leaves the profile's rate as it was.
func TestCountKeepsTheCodesOwnAllocations(t *testing.T) {
	rate := runtime.MemProfileRate
	if got := Count(5, func() { sink = make([]byte, 64) }); got != 5 {
		t.Fatalf("Count of a run that allocates = %d, want 5", got)
	}
	var wg sync.WaitGroup
	if got := Count(5, func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sink = make([]byte, 64)
		}()
		wg.Wait()
	}); got < 5 {
		t.Fatalf("Count of a run whose goroutine allocates = %d, want at least 5", got)
	}
	if runtime.MemProfileRate != rate {
		t.Fatalf("MemProfileRate left at %d, was %d", runtime.MemProfileRate, rate)
	}
}

// TestRuntimeOnlyStacks: a stack is the runtime's when every frame is of
// package runtime or internal/runtime/…; the stacks the profile gives for
// the code's own allocations are not.
func TestRuntimeOnlyStacks(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.bgscavenge":                true,
		"runtime.(*timers).addHeap":         true,
		"internal/runtime/maps.newarray":    true,
		"runtime/pprof.(*Profile).Count":    false,
		"runtime/metrics.Read":              false,
		"github.com/pond-go/pond/live.Push": false,
		"testing.tRunner":                   false,
		"internal/poll.(*FD).Write":         false,
		"sync.(*Pool).Get":                  false,
	} {
		if got := runtimeFunc(fn); got != want {
			t.Errorf("runtimeFunc(%q) = %v, want %v", fn, got, want)
		}
	}
	before := profile(nil)
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	sink = make([]byte, 64)
	runtime.MemProfileRate = rate
	for range 3 {
		runtime.GC()
	}
	mine := 0
	for stack, objs := range profile(before) {
		if !runtimeOnly(stack) {
			mine += int(objs)
		}
	}
	if mine < 1 {
		t.Fatalf("the test's own allocation is not in the profile, or reads as the runtime's")
	}
}
