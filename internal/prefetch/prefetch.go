// Package prefetch asks the processor to start loading memory that will
// be needed soon, without waiting for it.
package prefetch

import "unsafe"

// Line starts loading the cache line holding p into the cache. It has no
// other effect; on architectures without an implementation it does
// nothing.
func Line(p unsafe.Pointer) { line(p) }
