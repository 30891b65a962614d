package router_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

const mu42s = int64(time.Second)

func mu42NumberRouter(t *testing.T, o partition.Options) *router.Router {
	t.Helper()
	r, err := router.NewRouter(schema.Number, o, numberKey, nil)
	require.NoError(t, err)
	return r
}

func mu42Route(r *router.Router, f float64, t int64, row uint64) int32 {
	return r.Route(router.NumberKey(f), schema.NumberValue(f), t, row)
}

// A partition's latest time is the greatest routed, by Route and by
// Touch: an earlier time routed or touched later does not lower it.
func TestMu42LastIsTheGreatestTimeRouted(t *testing.T) {
	r := mu42NumberRouter(t, partition.Options{})
	p := mu42Route(r, 1, 5*mu42s, 1)
	mu42Route(r, 1, 3*mu42s, 2)
	assert.Equal(t, 5*mu42s, r.Last(p))
	assert.Equal(t, uint64(2), r.LastRow(p))
	r.Touch(p, 4*mu42s)
	assert.Equal(t, 5*mu42s, r.Last(p))
	r.Touch(p, 6*mu42s)
	assert.Equal(t, 6*mu42s, r.Last(p))
}

// An index given to a new partition starts afresh: its generation
// changes, and its latest time is its first row's, even before the epoch.
func TestMu42AReusedIndexStartsAfresh(t *testing.T) {
	r := mu42NumberRouter(t, partition.Options{IdleTTL: time.Second})
	p := mu42Route(r, 1, -10*mu42s, 1)
	g := r.Generation(p)
	require.Equal(t, []int32{p}, r.Expire(-8*mu42s, nil))
	assert.False(t, r.Alive(p))
	assert.True(t, r.KeyValue(p).IsMissing(), "a removed number partition's key is missing")
	q := mu42Route(r, 2, -7*mu42s, 2)
	require.Equal(t, p, q, "the freed index is reused")
	assert.NotEqual(t, g, r.Generation(q))
	assert.Equal(t, -7*mu42s, r.Last(q))
	assert.Equal(t, uint64(1), r.Rows(q))
}

// Expire removes a partition whose latest row is more than IdleTTL older
// than now, not one exactly IdleTTL older; without an IdleTTL it removes
// nothing.
func TestMu42ExpireCutIsStrictAndNeedsAnIdleTTL(t *testing.T) {
	r := mu42NumberRouter(t, partition.Options{IdleTTL: time.Second})
	p := mu42Route(r, 1, 0, 1)
	assert.Empty(t, r.Expire(mu42s, nil), "exactly IdleTTL old is kept")
	assert.Equal(t, []int32{p}, r.Expire(mu42s+1, nil))

	n := mu42NumberRouter(t, partition.Options{})
	mu42Route(n, 1, 0, 1)
	assert.Empty(t, n.Expire(100*mu42s, nil))
	assert.Equal(t, 1, n.Len())
}

// Without MaxPartitions there is no cap.
func TestMu42CheckNewWithoutACap(t *testing.T) {
	r := mu42NumberRouter(t, partition.Options{})
	mu42Route(r, 1, 0, 1)
	assert.True(t, r.CheckNew(1_000_000))
}

// Declared and Groups: no groups, none declared; with groups, Groups is
// the declared ones only, not the partitions made later.
func TestMu42GroupsAreTheDeclaredOnly(t *testing.T) {
	r := mu42NumberRouter(t, partition.Options{})
	mu42Route(r, 1, 0, 1)
	assert.False(t, r.Declared())
	assert.Empty(t, r.Groups())

	g := mu42NumberRouter(t, partition.Options{Groups: []schema.Value{schema.NumberValue(7)}})
	mu42Route(g, 1, 0, 1)
	assert.True(t, g.Declared())
	assert.Equal(t, []int32{0}, g.Groups())
	assert.Equal(t, []int32{0, 1}, g.Order())
}

// Alive and FindSym answer for indices and ids past the router's tables
// without panicking.
func TestMu42LookupsPastTheTables(t *testing.T) {
	r, strKey, _ := groupedStringRouter(t)
	b := schema.StringValue("b")
	r.Route(strKey(b), b, 0, 1)
	assert.False(t, r.Alive(int32(r.Cap())))
	assert.False(t, r.Alive(math.MaxInt32))
	_, ok := r.FindSym(uint32(len(r.SymIndex())))
	assert.False(t, ok)
	_, ok = r.FindSym(math.MaxUint32)
	assert.False(t, ok)
}
