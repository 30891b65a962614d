package reducers_test

import (
	"fmt"

	"github.com/pond-go/pond/internal/reducers"
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
