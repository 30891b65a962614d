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
		fmt.Println(r, r.OutputKind(schema.Number), r.Check(schema.String))
	}
	// Output:
	// avg number reduce: reducer "avg" cannot read a string column
	// p99.9 number reduce: reducer "p99.9" cannot read a string column
	// top3 array <nil>
	// reduce: reducer "p101": percentile 101 outside [0, 100] true
	// reduce: unknown reducer "p1e1" true
}
