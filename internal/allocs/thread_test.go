package allocs

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// handOff makes the runtime hand the locked caller's processor to another
// thread while a goroutine waits to run, a few times, and returns the
// allocations made meanwhile.
func handOff() uint64 {
	const times = 8
	start, done := make(chan struct{}, 1), make(chan struct{})
	go func() {
		for range times {
			<-start
		}
		close(done)
	}()
	runtime.Gosched()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	for range times {
		start <- struct{}{}
		runtime.Gosched()
	}
	<-done
	runtime.ReadMemStats(&ms)
	return ms.Mallocs - before
}

// TestMain runs the child process of TestLockThreadLeavesNothingToAllocate
// when the environment names it, and the tests otherwise.
func TestMain(m *testing.M) {
	if os.Getenv("ALLOCS_LOCK_CHILD") != "" {
		LockThread()
		n := handOff()
		runtime.UnlockOSThread()
		fmt.Printf("allocs=%d\n", n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLockThreadLeavesNothingToAllocate hands a locked goroutine's
// processor over in fresh processes (GOMAXPROCS=1, so that no other
// processor runs the waiting goroutine): after LockThread the runtime has
// an idle thread to take it each time. With runtime.LockOSThread alone,
// most processes make a thread there: six allocations.
func TestLockThreadLeavesNothingToAllocate(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("LockThread makes spare threads on Linux only (see sleepInKernel)")
	}
	for range 4 {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "ALLOCS_LOCK_CHILD=1", "GOMAXPROCS=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(string(out), "allocs=0\n") {
			t.Fatalf("the hand-overs allocated:\n%s", out)
		}
	}
}
