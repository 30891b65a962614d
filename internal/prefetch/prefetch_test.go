package prefetch

import (
	"testing"
	"unsafe"
)

// counting returns n words holding 0, 1, 2, …
func counting(n int) []int64 {
	x := make([]int64, n)
	for i := range x {
		x[i] = int64(i)
	}
	return x
}

// unchanged fails t unless x still holds 0, 1, 2, …
func unchanged(t *testing.T, x []int64) {
	t.Helper()
	for i := range x {
		if x[i] != int64(i) {
			t.Fatal("prefetching changed memory")
		}
	}
}

func TestLineHasNoEffect(t *testing.T) {
	x := counting(3)
	Line(unsafe.Pointer(&x[1]))
	unchanged(t, x)
}

func TestLinesHasNoEffect(t *testing.T) {
	x := counting(64)
	Lines(unsafe.Pointer(&x[3]), 4)
	Lines(unsafe.Pointer(&x[0]), 0)
	unchanged(t, x)
}

func TestTwoHasNoEffect(t *testing.T) {
	x := counting(16)
	Two(unsafe.Pointer(&x[1]), unsafe.Pointer(&x[15]))
	unchanged(t, x)
}

func TestSpanHasNoEffect(t *testing.T) {
	x := counting(128)
	for _, c := range []struct{ from, bytes int }{{0, 0}, {0, 8}, {3, 584}, {7, 256}, {1, 1000}, {5, -8}} {
		Span(unsafe.Pointer(&x[c.from]), c.bytes)
	}
	unchanged(t, x)
}

func TestRunsHasNoEffect(t *testing.T) {
	x := counting(64)
	Runs(unsafe.Pointer(&x[3]), 2, unsafe.Pointer(&x[40]), 3)
	Runs(nil, 0, unsafe.Pointer(&x[0]), 1)
	Runs(unsafe.Pointer(&x[8]), 1, nil, 0)
	Runs(nil, -1, nil, 0)
	unchanged(t, x)
}
