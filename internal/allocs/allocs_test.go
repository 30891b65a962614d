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

// TestCountMeasuresAgainWhenItSawAllocations: a one-off allocation (here
// in the code, in the runtime's place) makes Count measure again, so it
// does not fail a steady path; code that allocates on every run reads as
// allocating in every measurement.
func TestCountMeasuresAgainWhenItSawAllocations(t *testing.T) {
	i := 0
	once := func() {
		if i++; i == 3 {
			sink = make([]byte, 64)
		}
	}
	if got := Count(5, once); got != 0 {
		t.Fatalf("Count with a one-off allocation = %d, want 0", got)
	}
	if i != 1+2*5 {
		t.Fatalf("f ran %d times, want a warm-up and two measurements of 5", i)
	}
	i = 0
	each := func() {
		if i++; i%5 == 3 {
			sink = make([]byte, 64)
		}
	}
	if got := Count(5, each); got != 1 {
		t.Fatalf("Count with an allocation in each measurement = %d, want 1", got)
	}
	if got := Count(5, func() { sink = make([]byte, 64) }); got != 5 {
		t.Fatalf("Count of a run that allocates = %d, want 5", got)
	}
}
