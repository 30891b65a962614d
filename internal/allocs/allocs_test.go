package allocs

import "testing"

var sink []byte

func TestCountSeesRareAllocations(t *testing.T) {
	i := 0
	// One allocation every 10 runs: AllocsPerRun reads 0.
	rare := func() {
		if i++; i%10 == 0 {
			sink = make([]byte, 64)
		}
	}
	if got := Count(100, rare); got != 10 {
		t.Fatalf("Count = %d, want 10", got)
	}
	if avg := testing.AllocsPerRun(100, rare); avg != 0 {
		t.Fatalf("AllocsPerRun = %v; the premise of Count has changed", avg)
	}
	if got := Count(100, func() {}); got != 0 {
		t.Fatalf("Count of nothing = %d", got)
	}
}
