package router_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
)

// TestChangesCountsEachPartitionMadeOrRemoved: a declared group, a key
// routed for the first time, each partition Expire or MakeRoom removes
// and each index given again count one change; routing rows to known
// partitions, by any of the ways to route, counts none.
func TestChangesCountsEachPartitionMadeOrRemoved(t *testing.T) {
	r, strKey, host := groupedStringRouter(t)
	sec := int64(time.Second)
	assert.Equal(t, uint64(1), r.Changes(), "the declared group")
	a, b := schema.StringValue("a"), schema.StringValue("b")
	pa := r.Route(strKey(a), a, 0, 1)
	pb := r.Route(strKey(b), b, 0, 2)
	assert.Equal(t, uint64(3), r.Changes(), "two keys seen")
	ids := []uint32{uint32(strKey(a).Code), uint32(strKey(b).Code)}
	parts := make([]int32, 2)
	require.Equal(t, 2, r.RouteSymsAt(ids, 0, 3, parts))
	r.Remember([]int32{pa, pb})
	r.RouteAgainAt(0, 5)
	r.Route(strKey(host), host, 0, 7)
	assert.Equal(t, uint64(3), r.Changes(), "rows to known partitions")
	// b stays; a goes at 2 s.
	r.Touch(pb, 2*sec)
	r.Expire(2*sec, nil)
	assert.Equal(t, uint64(4), r.Changes(), "a removed")
	c := schema.StringValue("c")
	assert.Equal(t, pa, r.Route(strKey(c), c, 2*sec, 8), "a's index given again")
	assert.Equal(t, uint64(5), r.Changes())
	r.MakeRoom(4*sec, nil, nil) // b and c, idle
	assert.Equal(t, uint64(7), r.Changes(), "b and c removed")
}
