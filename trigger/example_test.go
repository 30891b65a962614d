package trigger_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A count trigger on a reduce: every third row emits the count so far.
func ExampleCount() {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "x", Kind: schema.Number},
	)
	s, err := live.New("rows", sch, live.Options{})
	if err != nil {
		panic(err)
	}
	n, err := s.Reduce(s.Root(), []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}, trigger.Count(3))
	if err != nil {
		panic(err)
	}
	_ = s.Watch(n)
	for row := 1; row <= 7; row++ {
		out, _ := s.PushRows(nil, schema.Row{schema.MillisValue(int64(row)), schema.NumberValue(1)})
		if tab, ok := live.Find(out, n, live.Event); ok {
			fmt.Println("row", row, "fires:", tab.Value(0, 1))
		}
	}
	fmt.Println(trigger.Count(0).Err())
	// Output:
	// row 3 fires: 3
	// row 6 fires: 6
	// trigger: invalid trigger: count 0 must be at least 1
}

// Every is a clock on boundaries every step from the epoch.
func ExampleEvery() {
	fmt.Println(trigger.Every(200*time.Millisecond), trigger.Every(0).Err() != nil)
	// Output: clock(every 200ms) true
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
