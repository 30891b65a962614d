package partition_test

import (
	"errors"
	"fmt"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// Declared groups fix the partitions and their order; a row with another
// key rejects its whole push with a *partition.KeyError.
func ExampleOptions() {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("hosts", sch, live.Options{})
	if err != nil {
		panic(err)
	}
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{Groups: partition.Strings("a", "b"), MaxEvents: 1})
	if err != nil {
		panic(err)
	}
	row := func(ms int64, host string) schema.Row {
		return schema.Row{schema.MillisValue(ms), schema.StringValue(host)}
	}
	_, err = s.PushRows(nil, row(0, "b"), row(1, "c"))
	var ke *partition.KeyError
	fmt.Println(errors.As(err, &ke), ke.Row, ke.Key, errors.Is(err, partition.ErrUnknownGroup))
	_, _ = s.PushRows(nil, row(2, "b"))
	parts, _ := s.Partitions(byHost)
	for _, p := range parts {
		fmt.Println(p.Key, p.Ingested, p.Length)
	}
	// Output:
	// true 1 "c" true
	// "a" 0 0
	// "b" 1 1
}
