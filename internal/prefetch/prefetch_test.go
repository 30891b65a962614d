package prefetch

import (
	"testing"
	"unsafe"
)

func TestLineHasNoEffect(t *testing.T) {
	x := []int64{1, 2, 3}
	Line(unsafe.Pointer(&x[1]))
	if x[0] != 1 || x[1] != 2 || x[2] != 3 {
		t.Fatal("prefetching changed memory")
	}
}

func TestLinesHasNoEffect(t *testing.T) {
	x := make([]int64, 64)
	for i := range x {
		x[i] = int64(i)
	}
	Lines(unsafe.Pointer(&x[3]), 4)
	Lines(unsafe.Pointer(&x[0]), 0)
	for i := range x {
		if x[i] != int64(i) {
			t.Fatal("prefetching changed memory")
		}
	}
}

func TestTwoHasNoEffect(t *testing.T) {
	x := make([]int64, 16)
	for i := range x {
		x[i] = int64(i)
	}
	Two(unsafe.Pointer(&x[1]), unsafe.Pointer(&x[15]))
	for i := range x {
		if x[i] != int64(i) {
			t.Fatal("prefetching changed memory")
		}
	}
}

func TestSpanHasNoEffect(t *testing.T) {
	x := make([]int64, 128)
	for i := range x {
		x[i] = int64(i)
	}
	for _, c := range []struct{ from, bytes int }{{0, 0}, {0, 8}, {3, 584}, {7, 256}, {1, 1000}, {5, -8}} {
		Span(unsafe.Pointer(&x[c.from]), c.bytes)
	}
	for i := range x {
		if x[i] != int64(i) {
			t.Fatal("prefetching changed memory")
		}
	}
}
