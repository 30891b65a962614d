package router_test

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

func ExampleRouter() {
	// Numeric shards, one declared up front, at most three partitions,
	// dropped after 10s of quiet in event time.
	opts := partition.Options{Groups: []schema.Value{schema.NumberValue(7)}, MaxPartitions: 3, IdleTTL: 10 * time.Second}
	keyOf := func(v schema.Value) router.Key {
		f, _ := v.Num()
		return router.NumberKey(f)
	}
	r, err := router.NewRouter(schema.Number, opts, keyOf, nil)
	if err != nil {
		panic(err)
	}
	sec := int64(time.Second)
	for id, row := range []struct {
		shard float64
		t     int64
	}{{3, 0}, {7, 1}, {3, 2}, {0, 3}} {
		v := schema.NumberValue(row.shard)
		fmt.Println("shard", row.shard, "→ partition", r.Route(keyOf(v), v, row.t*sec, uint64(id)))
	}
	fmt.Println(r.Order(), r.CheckNew(1))
	// After 20s only shard 0 reported: 3 expires, 7 is declared and stays.
	r.Touch(2, 20*sec)
	fmt.Println(r.Expire(20*sec, nil), r.Order(), r.CheckNew(1))
	_, err = router.NewRouter(schema.Number, partition.Options{MaxPartitions: -1}, keyOf, nil)
	fmt.Println(err)
	// Output:
	// shard 3 → partition 1
	// shard 7 → partition 0
	// shard 3 → partition 1
	// shard 0 → partition 2
	// [0 1 2] false
	// [1] [0 2] true
	// partition: invalid options: MaxPartitions -1 must not be negative
}
