package reducers_test

import (
	"fmt"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

func ExampleMoments() {
	var m reducers.Moments
	m.Add(1e16)
	m.Add(1)
	m.Remove(1e16)
	fmt.Println(m.N(), m.Sum())
	// Output: 1 1
}

func ExampleExtreme() {
	lo := reducers.NewMin()
	for seq, x := range []float64{1, 5, 3, 2} {
		lo.Add(uint64(seq), x)
	}
	lo.Remove(0) // the oldest value, 1, leaves
	fmt.Println(lo.Value())
	// Output: 2 true
}

// A sliding window of three values: each new value enters with Add, the
// oldest leaves with Remove, and Append writes the current reduction.
func ExampleNewWindow() {
	w := reducers.NewWindow(reducers.Spec{Op: reducers.OpStdev})
	out := table.NewCol(schema.Number)
	in := []float64{1e16, 1, 9, 5, 5, 5}
	for i, x := range in {
		w.Add(uint64(i), schema.NumberValue(x))
		if i >= 3 {
			w.Remove(uint64(i-3), schema.NumberValue(in[i-3]))
		}
		w.Append(out)
	}
	for i := range out.Len() {
		fmt.Println(table.Value(out, i))
	}
	// Output:
	// 0
	// 5e+15
	// 4.714045207910314e+15
	// 3.265986323710904
	// 1.8856180831641267
	// 0
}

func ExampleNewBucket() {
	b := reducers.NewBucket(reducers.Spec{Op: reducers.OpTop, N: 2})
	for _, s := range []string{"x", "y", "y", "z", "z", "a"} {
		b.Add(schema.StringValue(s))
	}
	out := table.NewCol(schema.Array)
	b.Append(out)
	fmt.Println(table.Value(out, 0))
	// Output: ["y", "z"]
}
