// Package prefetch asks the processor to start loading memory that will
// be needed soon, without waiting for it.
package prefetch

import "unsafe"

// Line starts loading the cache line holding p into the cache. It has no
// other effect; on architectures without an implementation it does
// nothing.
func Line(p unsafe.Pointer) { line(p) }

// Two starts loading the cache lines holding p and r, in one call: [Line]
// twice for the price of one call.
func Two(p, r unsafe.Pointer) { two(p, r) }

// Lines starts loading n consecutive cache lines, the first holding p, in
// one call. Like [Line] it has no other effect; p and the lines after it
// need not be valid memory (prefetches do not fault), but callers pass
// addresses inside one allocation.
func Lines(p unsafe.Pointer, n int) {
	if n > 0 {
		lines(p, n)
	}
}

// Runs starts loading two runs of consecutive cache lines in one call:
// n lines from the one holding p, then m lines from the one holding r
// ([Lines] twice for the price of one call). A run of no lines (n or m
// 0 or less) is skipped, and its pointer is not used.
func Runs(p unsafe.Pointer, n int, r unsafe.Pointer, m int) { runs(p, n, r, m) }

// Span starts loading every cache line that holds one of the bytes bytes
// from p: a struct or a run of structs that need not start at a line.
// Like [Lines] it has no other effect, and callers pass addresses inside
// one allocation.
func Span(p unsafe.Pointer, bytes int) {
	if bytes > 0 {
		span(p, bytes)
	}
}
