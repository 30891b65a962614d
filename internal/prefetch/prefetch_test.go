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
