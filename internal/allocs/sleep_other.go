//go:build !linux

package allocs

import "time"

// sleepInKernel sleeps for d (elsewhere than Linux, in the runtime's
// timers: no thread is made).
func sleepInKernel(d time.Duration) { time.Sleep(d) }
