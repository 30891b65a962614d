package trigger_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func ExampleCount() {
	t := trigger.Count(3)
	c := clock.NewCountState(t.N())
	for row := 1; row <= 7; row++ {
		if c.Observe() {
			fmt.Println("row", row, "fires")
		}
	}
	fmt.Println(trigger.Count(0).Err())
	// Output:
	// row 3 fires
	// row 6 fires
	// trigger: invalid trigger: count 0 must be at least 1
}

func ExampleTrigger_Err() {
	for _, t := range []trigger.Trigger{
		trigger.Event(),
		trigger.Count(2),
		trigger.Clock(sequence.Every(200 * time.Millisecond)),
		trigger.Clock(sequence.Every(-time.Second)),
	} {
		fmt.Println(t, t.Err())
	}
	// Output:
	// event <nil>
	// count(2) <nil>
	// clock(every 200ms) <nil>
	// clock(every -1s) trigger: invalid trigger: clock: sequence: invalid sequence: step -1s must be positive
}
