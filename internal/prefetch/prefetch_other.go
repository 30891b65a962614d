//go:build !amd64

package prefetch

import "unsafe"

func line(unsafe.Pointer) {}

func lines(unsafe.Pointer, int) {}

func two(unsafe.Pointer, unsafe.Pointer) {}

func runs(unsafe.Pointer, int, unsafe.Pointer, int) {}

func span(unsafe.Pointer, int) {}
