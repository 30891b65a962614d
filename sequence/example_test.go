package sequence_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/sequence"
)

func ExampleEvery() {
	ms := int64(time.Millisecond)
	s := sequence.Every(5 * time.Second)
	for _, t := range []int64{0, 4999, 5000, -1} {
		start := s.Start(t * ms)
		fmt.Printf("%dms is in bucket [%dms, %dms)\n", t, start/ms, (start+int64(s.Step()))/ms)
	}
	// Anchored at 1s, the boundaries are 1s, 6s, 11s…
	a := sequence.Every(5 * time.Second).WithAnchorNanos(1000 * ms)
	fmt.Println(a, a.Start(0)/ms)
	fmt.Println(sequence.Every(0).Err())
	// Output:
	// 0ms is in bucket [0ms, 5000ms)
	// 4999ms is in bucket [0ms, 5000ms)
	// 5000ms is in bucket [5000ms, 10000ms)
	// -1ms is in bucket [-5000ms, 0ms)
	// every 5s from 1000000000 -4000
	// sequence: invalid sequence: step 0s must be positive
}
