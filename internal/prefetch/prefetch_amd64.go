package prefetch

import "unsafe"

//go:noescape
func line(p unsafe.Pointer)

//go:noescape
func lines(p unsafe.Pointer, n int)

//go:noescape
func two(p, r unsafe.Pointer)

//go:noescape
func runs(p unsafe.Pointer, n int, r unsafe.Pointer, m int)

//go:noescape
func span(p unsafe.Pointer, bytes int)
