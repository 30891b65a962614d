package benchmarks

import (
	"syscall"
	"time"
)

// threadCPU returns the calling thread's CPU time, user and system
// (getrusage RUSAGE_THREAD; 0 where it is not supported). The caller
// locks its goroutine to the thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
