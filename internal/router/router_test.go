package router_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

func numberKey(v schema.Value) router.Key {
	f, _ := v.Num()
	return router.NumberKey(f)
}

// TestMakeRoomKeepsIndicesUntilExpire: MakeRoom removes what Expire would,
// except the partitions it is told to spare, and gives none of their
// indices to new partitions before the next Expire.
func TestMakeRoomKeepsIndicesUntilExpire(t *testing.T) {
	r, err := router.NewRouter(schema.Number, partition.Options{MaxPartitions: 3, IdleTTL: time.Second}, numberKey, nil)
	require.NoError(t, err)
	for k := range 3 {
		r.Route(router.NumberKey(float64(k)), schema.NumberValue(float64(k)), 0, uint64(k))
	}
	require.False(t, r.CheckNew(1))
	spare := []bool{true, false, false}
	gone := r.MakeRoom(int64(2*time.Second), spare, nil)
	assert.ElementsMatch(t, []int32{1, 2}, gone)
	assert.Equal(t, 1, r.Len())
	assert.True(t, r.CheckNew(2))
	a := r.Route(router.NumberKey(10), schema.NumberValue(10), int64(2*time.Second), 3)
	b := r.Route(router.NumberKey(11), schema.NumberValue(11), int64(2*time.Second), 4)
	assert.Equal(t, []int32{3, 4}, []int32{a, b}, "indices 1 and 2 are not reused in the same push")
	r.Touch(0, int64(2*time.Second))
	assert.Empty(t, r.Expire(int64(2*time.Second), nil))
	c := r.Route(router.NumberKey(12), schema.NumberValue(12), int64(2*time.Second), 5)
	assert.Contains(t, []int32{1, 2}, c, "after Expire, the indices are free again")
}

// TestRouteSymsRoutesKnownKeysAndStopsAtANewOne: rows whose string keys
// have live partitions that had a row are routed and recorded as Route
// routes them (times, counts, last rows); it stops at the first row of a
// new or missing key (id 0), or of a partition that never had a row.
func TestRouteSymsRoutesKnownKeysAndStopsAtANewOne(t *testing.T) {
	a0 := schema.StringValue("a")
	r, err := router.NewRouter(schema.String, partition.Options{Groups: []schema.Value{a0}}, func(schema.Value) router.Key {
		return router.Key{Kind: schema.String, Code: 9}
	}, nil)
	require.NoError(t, err)
	key := func(id uint64) router.Key { return router.Key{Kind: schema.String, Code: id} }
	a := r.Route(key(5), schema.StringValue("a"), 10, 100)
	b := r.Route(key(2), schema.StringValue("b"), 10, 101)
	parts := make([]int32, 6)
	n := r.RouteSyms([]uint32{5, 2, 2, 5, 7, 5}, []int64{30, 20, 40, 25, 50, 60}, []uint64{102, 103, 104, 105, 106, 107}, parts)
	assert.Equal(t, 4, n, "the row of key 7, which has no partition, is next")
	assert.Equal(t, []int32{a, b, b, a}, parts[:4])
	assert.Equal(t, int64(30), r.Last(a), "the latest time routed, not the last")
	assert.Equal(t, int64(40), r.Last(b))
	assert.Equal(t, []uint64{3, 3}, []uint64{r.Rows(a), r.Rows(b)})
	assert.Equal(t, []uint64{105, 104}, []uint64{r.LastRow(a), r.LastRow(b)})
	assert.Zero(t, r.RouteSyms([]uint32{0, 5}, []int64{70, 70}, []uint64{108, 109}, parts), "a missing key is not routed by id")
	assert.Zero(t, r.RouteSyms([]uint32{9, 5}, []int64{70, 70}, []uint64{108, 109}, parts), "nor the first row of a declared group")
	assert.Equal(t, 2, r.RouteSyms([]uint32{2, 5}, []int64{70, 80}, []uint64{108, 109}, parts))
	assert.Equal(t, int64(80), r.Last(a))
	assert.Equal(t, uint64(109), r.LastRow(a))
}

// TestRouteSymsAtIsRouteSymsAtOneTime: rows of one time whose identities
// run on from a first one are routed and recorded by RouteSymsAt as
// RouteSyms routes and records them given that time and those
// identities, row by row: 300 random pushes of known, new, missing and
// declared-but-empty keys into two routers, the same partitions, counts,
// latest times and last rows after each, and the same row to stop at.
func TestRouteSymsAtIsRouteSymsAtOneTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func() *router.Router {
		r, err := router.NewRouter(schema.String, partition.Options{Groups: []schema.Value{schema.StringValue("g")}}, func(schema.Value) router.Key {
			return router.Key{Kind: schema.String, Code: 3}
		}, nil)
		require.NoError(t, err)
		return r
	}
	ra, rb := mk(), mk() // RouteSyms, RouteSymsAt
	first, tm := uint64(1), int64(100)
	for push := range 300 {
		n := 1 + rng.IntN(40)
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(rng.IntN(12)) // 0 missing, 3 the declared group
		}
		tm += int64(rng.IntN(3)) - 1 // now and then earlier than a partition's latest
		times, rows := make([]int64, n), make([]uint64, n)
		for i := range times {
			times[i], rows[i] = tm, first+uint64(i)
		}
		pa, pb := make([]int32, n), make([]int32, n)
		na := ra.RouteSyms(ids, times, rows, pa)
		nb := rb.RouteSymsAt(ids, tm, first, pb)
		require.Equal(t, na, nb, "push %d", push)
		require.Equal(t, pa[:na], pb[:nb], "push %d", push)
		if na < n {
			// The row it stopped at goes through Route, in both.
			k := router.Key{Kind: schema.String, Code: uint64(ids[na])}
			if ids[na] == 0 {
				k = router.Key{}
			}
			ra.Route(k, schema.StringValue("x"), tm, rows[na])
			rb.Route(k, schema.StringValue("x"), tm, rows[na])
		}
		first += uint64(n)
		require.Equal(t, ra.Cap(), rb.Cap())
		for p := range int32(ra.Cap()) {
			require.Equal(t, ra.Rows(p), rb.Rows(p), "push %d partition %d", push, p)
			require.Equal(t, ra.Last(p), rb.Last(p), "push %d partition %d", push, p)
			require.Equal(t, ra.LastRow(p), rb.LastRow(p), "push %d partition %d", push, p)
		}
	}
}

// groupedStringRouter is a router of string keys interned as they come,
// with one declared group, "host-7", and an idle time of a second; strKey
// makes a value's key.
func groupedStringRouter(t *testing.T) (*router.Router, func(schema.Value) router.Key, schema.Value) {
	t.Helper()
	syms := intern.New()
	strKey := func(v schema.Value) router.Key {
		s, _ := v.Str()
		return router.Key{Kind: schema.String, Code: uint64(syms.ID(s))}
	}
	host := schema.StringValue("host-7")
	r, err := router.NewRouter(schema.String, partition.Options{Groups: []schema.Value{host}, IdleTTL: time.Second}, strKey, syms)
	require.NoError(t, err)
	return r, strKey, host
}

// TestKeyValueIsMadeFromTheCode: the router keeps no key values; each
// partition's is made from its code as it was first routed: a string's
// from the intern table, a number's from its bits (−0 too, which shares
// 0's partition), a boolean's, the missing key's; an index no live
// partition holds gives a missing value.
func TestKeyValueIsMadeFromTheCode(t *testing.T) {
	r, strKey, host := groupedStringRouter(t)
	b := schema.StringValue("b")
	pb := r.Route(strKey(b), b, 0, 1)
	pm := r.Route(router.Key{}, schema.Value{}, 0, 2)
	assert.True(t, host.Equal(r.KeyValue(0)))
	assert.True(t, b.Equal(r.KeyValue(pb)))
	assert.True(t, r.KeyValue(pm).IsMissing())
	assert.Equal(t, []int32{pb, pm}, r.Expire(int64(2*time.Second), nil))
	assert.True(t, r.KeyValue(pb).IsMissing(), "a removed partition's key is missing")

	negZero := schema.NumberValue(math.Copysign(0, -1))
	n, err := router.NewRouter(schema.Number, partition.Options{IdleTTL: time.Second}, numberKey, nil)
	require.NoError(t, err)
	pz := n.Route(router.NumberKey(math.Copysign(0, -1)), negZero, 0, 1)
	assert.Equal(t, pz, n.Route(router.NumberKey(0), schema.NumberValue(0), 0, 2), "−0 and 0 are one partition")
	p5 := n.Route(router.NumberKey(-5.5), schema.NumberValue(-5.5), int64(2*time.Second), 3)
	f, _ := n.KeyValue(pz).Num()
	assert.True(t, f == 0 && math.Signbit(f), "the partition first routed as −0 keeps −0")
	assert.Equal(t, schema.NumberValue(-5.5), n.KeyValue(p5))
	assert.Equal(t, []int32{pz}, n.Expire(int64(2*time.Second), nil))
	pz2 := n.Route(router.NumberKey(0), schema.NumberValue(0), int64(2*time.Second), 4)
	f, _ = n.KeyValue(pz2).Num()
	assert.False(t, math.Signbit(f), "a new partition of 0, first routed as 0, is 0")

	boolKey := func(v schema.Value) router.Key {
		if x, _ := v.Bool(); x {
			return router.Key{Kind: schema.Bool, Code: 2}
		}
		return router.Key{Kind: schema.Bool, Code: 1}
	}
	o, err := router.NewRouter(schema.Bool, partition.Options{}, boolKey, nil)
	require.NoError(t, err)
	for _, x := range []bool{true, false} {
		v := schema.BoolValue(x)
		assert.Equal(t, v, o.KeyValue(o.Route(boolKey(v), v, 0, 1)))
	}
}

// TestMissingAndZeroAreTwoPartitions: a number router keeps codes
// without kinds, and the missing key's code (0) is 0's bits: the two
// are still two partitions, each with its own key, and a removed
// missing-key partition comes back as missing.
func TestMissingAndZeroAreTwoPartitions(t *testing.T) {
	r, err := router.NewRouter(schema.Number, partition.Options{IdleTTL: time.Second}, numberKey, nil)
	require.NoError(t, err)
	pm := r.Route(router.Key{}, schema.Value{}, 0, 1)
	pz := r.Route(router.NumberKey(0), schema.NumberValue(0), int64(2*time.Second), 2)
	require.NotEqual(t, pm, pz)
	assert.Equal(t, router.Key{}, r.Key(pm))
	assert.Equal(t, router.NumberKey(0), r.Key(pz))
	assert.True(t, r.KeyValue(pm).IsMissing())
	assert.Equal(t, schema.NumberValue(0), r.KeyValue(pz))
	assert.Equal(t, []int32{pm}, r.Expire(int64(2*time.Second), nil))
	_, ok := r.Find(router.Key{})
	assert.False(t, ok)
	got, ok := r.Find(router.NumberKey(0))
	assert.True(t, ok)
	assert.Equal(t, pz, got)
	p := r.Route(router.NumberKey(3), schema.NumberValue(3), int64(2*time.Second), 3)
	assert.Equal(t, pm, p, "the missing key's index is reused")
	assert.Equal(t, schema.NumberValue(3), r.KeyValue(p), "by a key that is not missing")
	pm2 := r.Route(router.Key{}, schema.Value{}, int64(2*time.Second), 4)
	assert.True(t, r.KeyValue(pm2).IsMissing())
	assert.Equal(t, router.Key{}, r.Key(pm2))
}

// TestKeyStrsGivesARunsKeysAsKeyValue: the string keys of a run of
// partitions at once, each KeyValue's; false for a run with the missing
// key's partition or a removed one, and for a router of numbers.
func TestKeyStrsGivesARunsKeysAsKeyValue(t *testing.T) {
	r, strKey, _ := groupedStringRouter(t)
	var parts []int32
	for i, s := range []string{"b", "c", "a"} {
		v := schema.StringValue(s)
		parts = append(parts, r.Route(strKey(v), v, int64(min(i, 1))*int64(2*time.Second), 1))
	}
	parts = append(parts, 0) // the declared group
	keys := make([]string, len(parts))
	require.True(t, r.KeyStrs(keys, parts))
	assert.Equal(t, []string{"b", "c", "a", "host-7"}, keys)
	for k, p := range parts {
		assert.True(t, r.KeyValue(p).Equal(schema.StringValue(keys[k])))
	}
	pm := r.Route(router.Key{}, schema.Value{}, int64(2*time.Second), 2)
	assert.False(t, r.KeyStrs(keys, append(parts, pm)[1:]), "the missing key's partition")
	assert.Equal(t, []int32{parts[0]}, r.Expire(int64(1500*time.Millisecond), nil))
	assert.False(t, r.KeyStrs(keys[:2], parts[:2]), "a removed partition")
	assert.True(t, r.KeyStrs(keys[:2], parts[1:3]))

	n, err := router.NewRouter(schema.Number, partition.Options{}, numberKey, nil)
	require.NoError(t, err)
	pn := n.Route(router.NumberKey(1), schema.NumberValue(1), 0, 1)
	assert.False(t, n.KeyStrs(keys[:1], []int32{pn}))
}

// TestRouteAgainAtIsRouteSymsAtOfTheKeysRemembered: a push of the keys
// of the push remembered, in the same order, routed by RouteAgainAt
// (which records what it routed only when something next reads or
// changes it) leaves the router as RouteSymsAt leaves another: 2,000
// random pushes, most of them of one of a few lists of keys (with
// repeats), some of new keys, with partitions expiring now and then
// (after which Again refuses the keys remembered before), into two
// routers; the same partitions, expired partitions, counts,
// latest times and last rows, read every few pushes, each read first in
// turn.
func TestRouteAgainAtIsRouteSymsAtOfTheKeysRemembered(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	mk := func() *router.Router {
		r, err := router.NewRouter(schema.String, partition.Options{IdleTTL: 3}, nil, nil)
		require.NoError(t, err)
		return r
	}
	ra, rb := mk(), mk() // RouteSymsAt, RouteAgainAt when it can
	lists := [][]uint32{{1, 2, 3, 4}, {4, 3, 3, 1, 5}, {6}, {2, 7, 2, 7, 2}}
	// route routes a push of ids into r, as a partition node does: by
	// intern id (RouteSymsAt, or RouteSyms when how is 1), the row it
	// stops at by its key (every row by its key when how is 2).
	route := func(r *router.Router, ids []uint32, tm int64, first uint64, parts []int32, how int) {
		times, rows := make([]int64, len(ids)), make([]uint64, len(ids))
		for i := range ids {
			times[i], rows[i] = tm, first+uint64(i)
		}
		for i := 0; i < len(ids); i++ {
			switch how {
			case 0:
				i += r.RouteSymsAt(ids[i:], tm, first+uint64(i), parts[i:])
			case 1:
				i += r.RouteSyms(ids[i:], times[i:], rows[i:], parts[i:])
			}
			if i < len(ids) {
				parts[i] = r.Route(router.Key{Kind: schema.String, Code: uint64(ids[i])}, schema.StringValue("k"), tm, first+uint64(i))
			}
		}
	}
	last := -1 // the list of the push rb remembers
	first, tm := uint64(1), int64(100)
	for push := range 2000 {
		k := rng.IntN(len(lists) + 1)
		if last >= 0 && rng.IntN(2) == 0 {
			k = last // runs of pushes routed again, owed together
		}
		var ids []uint32
		if k < len(lists) {
			ids = lists[k]
		} else {
			k = -1
			ids = []uint32{uint32(1 + rng.IntN(12)), uint32(1 + rng.IntN(12))}
		}
		tm += int64(rng.IntN(4)) - 1 // now and then earlier than a partition's latest
		pa, pb := make([]int32, len(ids)), make([]int32, len(ids))
		how := rng.IntN(3)
		route(ra, ids, tm, first, pa, how)
		if k >= 0 && k == last && rb.Again(len(ids)) {
			copy(pb, rb.RouteAgainAt(tm, first))
		} else {
			route(rb, ids, tm, first, pb, how)
			if rng.IntN(3) == 0 {
				// Not every push is remembered (a partition node
				// remembers pushes of its intern cache's ids): the one
				// remembered may have lost partitions since.
				rb.Remember(pb)
				last = k
			}
		}
		require.Equal(t, pa, pb, "push %d", push)
		first += uint64(len(ids))
		if rng.IntN(8) == 0 {
			require.Equal(t, ra.Expire(tm, nil), rb.Expire(tm, nil), "push %d", push)
		}
		if push%5 != 4 {
			continue
		}
		require.Equal(t, ra.Cap(), rb.Cap())
		reads := []func(*router.Router, int32) any{
			func(r *router.Router, p int32) any { return r.Rows(p) },
			func(r *router.Router, p int32) any { return r.Last(p) },
			func(r *router.Router, p int32) any { return r.LastRow(p) },
			func(r *router.Router, p int32) any { return r.Idle(p, tm) },
		}
		at := (push / 5) % len(reads)
		for j := range reads {
			read := reads[(at+j)%len(reads)]
			for p := range int32(ra.Cap()) {
				require.Equal(t, read(ra, p), read(rb, p), "push %d partition %d read %d", push, p, (at+j)%len(reads))
			}
		}
	}
}

// TestFitLetsGoOfTheRoomOfGrowth: a router that made 1,000 partitions
// of string keys at once keeps tables grown by append's steps, a quarter
// at a time; Fit brings them down to the allocator's size class above
// what the partitions need (41 bytes each: four 4-byte tables, a byte
// and a 24-byte count), and keeps every partition as it was.
func TestFitLetsGoOfTheRoomOfGrowth(t *testing.T) {
	const parts, need = 1000, 41
	r, err := router.NewRouter(schema.String, partition.Options{}, nil, nil)
	require.NoError(t, err)
	for id := range uint64(parts) {
		r.Route(router.Key{Kind: schema.String, Code: id + 1}, schema.Value{}, int64(id), id)
	}
	empty, err := router.NewRouter(schema.String, partition.Options{}, nil, nil)
	require.NoError(t, err)
	grown := r.Bytes() - empty.Bytes()
	require.Greater(t, grown, parts*need*5/4, "grown by append")
	require.True(t, r.Fit())
	assert.LessOrEqual(t, r.Bytes()-empty.Bytes(), parts*need*21/20, "bytes for %d partitions", parts)
	for id := range uint64(parts) {
		p, ok := r.FindSym(uint32(id + 1))
		require.True(t, ok)
		assert.Equal(t, int32(id), p)
		assert.Equal(t, []any{int64(id), uint64(1), id}, []any{r.Last(p), r.Rows(p), r.LastRow(p)})
	}
	assert.Len(t, r.Order(), parts)
}

// TestFitIsDueWhenThePartitionsGrewByAnEighth: Fit copies the tables
// only once the partitions grew by an eighth since it last did, so that
// partitions made one at a time, a Fit after each, are copied a few
// dozen times over 10,000 partitions, not at every one.
func TestFitIsDueWhenThePartitionsGrewByAnEighth(t *testing.T) {
	r, err := router.NewRouter(schema.Number, partition.Options{}, numberKey, nil)
	require.NoError(t, err)
	fits := 0
	for k := range 10000 {
		r.Route(router.NumberKey(float64(k)), schema.NumberValue(float64(k)), 0, uint64(k))
		if r.Fit() {
			fits++
		}
	}
	assert.LessOrEqual(t, fits, 80)
	r.Route(router.NumberKey(-1), schema.NumberValue(-1), 0, 0)
	assert.False(t, r.Fit(), "one partition more is not due")
}
