package allocs

import (
	"syscall"
	"time"
)

// sleepInKernel blocks the calling thread in the kernel for d.
func sleepInKernel(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
