package reduce_test

import (
	"errors"
	"fmt"

	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

func ExampleParse() {
	for _, name := range []string{"avg", "p99.9", "top3", "p101", "p1e1"} {
		r, err := reduce.Parse(name)
		if err != nil {
			fmt.Println(err, errors.Is(err, reduce.ErrReducer))
			continue
		}
		fmt.Println(r, r.Op(), r.Q(), r.N())
	}
	// Output:
	// avg avg 0 0
	// p99.9 percentile 99.9 0
	// top3 top 0 3
	// reduce: reducer "p101": percentile 101 outside [0, 100] true
	// reduce: unknown reducer "p1e1" true
}

// A sliding window of three values: each new value enters with Add, the
// oldest leaves with Remove, and Append writes the current reduction.
func ExampleWindow() {
	w, err := reduce.Stdev.NewWindow(schema.Number)
	if err != nil {
		panic(err)
	}
	out := schema.NewCol(reduce.Stdev.OutputKind(schema.Number))
	in := []float64{1e16, 1, 9, 5, 5, 5}
	for i, x := range in {
		w.Add(uint64(i), schema.NumberValue(x))
		if i >= 3 {
			w.Remove(uint64(i-3), schema.NumberValue(in[i-3]))
		}
		w.Append(out)
	}
	for i := range out.Len() {
		fmt.Println(out.Value(i))
	}
	// Output:
	// 0
	// 5e+15
	// 4.714045207910314e+15
	// 3.265986323710904
	// 1.8856180831641267
	// 0
}

func ExampleReducer_NewBucket() {
	b, err := reduce.MustParse("top2").NewBucket(schema.String)
	if err != nil {
		panic(err)
	}
	for _, s := range []string{"x", "y", "y", "z", "z", "a"} {
		b.Add(schema.StringValue(s))
	}
	out := schema.NewCol(schema.Array)
	b.Append(out)
	fmt.Println(out.Value(0))
	// Output: ["y", "z"]
}
