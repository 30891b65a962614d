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

// TestAgainIDNumbersTheListRouteAgainAtReturns: the list RouteAgainAt
// returns is numbered, the same number at every push routed to it; a
// copy of it, part of it or the list a push was routed to otherwise is
// not; and each list Remember keeps gets a new number, even of the same
// partitions in the same memory.
func TestAgainIDNumbersTheListRouteAgainAtReturns(t *testing.T) {
	r, strKey, host := groupedStringRouter(t)
	a := schema.StringValue("a")
	pa, ph := r.Route(strKey(a), a, 0, 1), r.Route(strKey(host), host, 0, 2)
	parts := []int32{pa, ph, pa}
	assert.Zero(t, r.AgainID(parts), "nothing remembered")
	r.Remember(parts)
	assert.Zero(t, r.AgainID(parts), "the list remembered, not the router's")
	first := r.RouteAgainAt(0, 3)
	n := r.AgainID(first)
	assert.NotZero(t, n, "the router's list")
	assert.Equal(t, n, r.AgainID(r.RouteAgainAt(0, 6)), "the next push routed to it")
	assert.Zero(t, r.AgainID(append([]int32(nil), first...)), "a copy of it")
	assert.Zero(t, r.AgainID(first[:2]), "part of it")
	assert.Zero(t, r.AgainID(first[1:]), "part of it")
	r.Remember(parts)
	again := r.RouteAgainAt(0, 9)
	require.Equal(t, &first[0], &again[0], "the same memory")
	assert.NotZero(t, r.AgainID(again))
	assert.NotEqual(t, n, r.AgainID(again), "a list remembered anew")
	assert.Equal(t, r.AgainID(again), r.AgainID(first), "the same memory holds the list remembered last")
}
