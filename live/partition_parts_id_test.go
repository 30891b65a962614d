package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// idPush is a push of TestPartitionsToldRepeatedMatchSpeltOnes: a row
// per key, all at time t (in milliseconds), the keys pushed as the slice
// itself, so that the root's cache of strings knows them when they come
// again.
type idPush struct {
	t    int64
	keys []string
	// late: a row a second before t first, which Drop drops (the keys
	// are then pushed in a slice of their own).
	late bool
	// bad: a row's value is NaN, and the push is refused.
	bad bool
	// split: the second half of the rows is 10 ms later.
	split bool
}

// A partitioning tells a rolling built on it when a push's partitions
// are a list it numbered before (the push has the keys of the last push,
// in the same order, and no partition was created or removed since),
// and the rolling's tick buffer then takes them as the list it kept
// without comparing them. Whatever comes between two such pushes — keys
// in another order, fewer of them or a key twice, a partition removed by
// IdleTTL or to make room under MaxPartitions and its index given to
// another key, a late row that Drop drops, a refused push, rows at two
// times, a tick inside a push — the series gives, push by push, what its
// twin whose tick buffer writes every row's partition out gives. A
// second rolling behind a filter, whose partitions are the filter's
// list, is told nothing and must agree too.
func TestPartitionsToldRepeatedMatchSpeltOnes(t *testing.T) {
	// The rows are buffered for the tick, however few the partitions.
	defer engine.SetDirectParts(engine.SetDirectParts(0))
	abc, ab, abd := []string{"a", "b", "c"}, []string{"a", "b"}, []string{"a", "b", "d"}
	cba, aba := []string{"c", "b", "a"}, []string{"a", "b", "a"}
	idle := partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond}
	for _, tc := range []struct {
		name   string
		opts   live.Options
		part   partition.Options
		pushes []idPush
	}{
		{"a key's index goes to another key before the keys come back", live.Options{}, idle, []idPush{
			{t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc},
			{t: 200, keys: ab}, {t: 400, keys: ab},
			{t: 450, keys: abd}, {t: 500, keys: abc}, {t: 600, keys: abc}, {t: 1000, keys: abc},
			{t: 1100, keys: abc}, {t: 2000, keys: abc}, {t: 3000, keys: abc},
		}},
		{"room is made for a key", live.Options{}, partition.Options{MaxEvents: 1, MaxPartitions: 3, IdleTTL: 250 * time.Millisecond}, []idPush{
			{t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc},
			{t: 400, keys: abd}, {t: 400, keys: abd},
			{t: 800, keys: abc}, {t: 900, keys: abc}, {t: 1000, keys: abc}, {t: 1000, keys: abc}, {t: 2000, keys: abc},
		}},
		{"the keys come in another order and back", live.Options{}, partition.Options{MaxEvents: 1}, []idPush{
			{t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc},
			{t: 1000, keys: cba}, {t: 1000, keys: cba},
			{t: 1100, keys: abc}, {t: 1200, keys: abc}, {t: 2000, keys: cba}, {t: 2000, keys: abc},
			{t: 2100, keys: abc}, {t: 3000, keys: aba}, {t: 3000, keys: aba}, {t: 4000, keys: abc}, {t: 5000, keys: abc},
		}},
		{"a late row Drop drops, before other keys after a tick", live.Options{Ordering: live.Drop}, idle, []idPush{
			{t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 999, keys: abc},
			{t: 1000, keys: ab, late: true}, {t: 1000, keys: abc},
			{t: 1100, keys: abc}, {t: 2000, keys: abc}, {t: 3000, keys: abc},
		}},
		{"a late row, a refused push and rows at two times between", live.Options{Ordering: live.Drop}, idle, []idPush{
			{t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc}, {t: 0, keys: abc},
			{t: 100, keys: abc, late: true}, {t: 100, keys: abc},
			{t: 200, keys: abc}, {t: 200, keys: abc, bad: true}, {t: 200, keys: abc}, {t: 995, keys: abc, split: true},
			{t: 1100, keys: abc}, {t: 1100, keys: abc}, {t: 2000, keys: abc}, {t: 3000, keys: abc},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			told, spelt := newIDTwin(t, tc.opts, tc.part), newIDTwin(t, tc.opts, tc.part)
			for i, p := range tc.pushes {
				pushIDTwins(t, told, spelt, p, i, fmt.Sprintf("push %d: %+v", i, p))
			}
		})
	}
}

// A partitioning's router numbers the list of partitions it keeps for
// the next push of the same keys, and a push routed to that list (the
// keys of the push that made it, in the same order, with no partition
// created or removed since) is told its number, which is what a rolling
// on the partitioning tells its group. A push of other keys, of the same
// keys in another order or after a partition was removed and created
// again is told none (0), and the list made then gets a new number.
func TestPartitioningNumbersTheListOfTheSameKeys(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond})
	require.NoError(t, err)
	abc, cba, ab := []string{"a", "b", "c"}, []string{"c", "b", "a"}, []string{"a", "b"}
	push := func(tm int64, keys []string) uint64 {
		b := schema.NewBatch(metricsSchema, len(keys))
		for range keys {
			b.Time = append(b.Time, tm*int64(time.Millisecond))
			b.Cols[0].Num = append(b.Cols[0].Num, 1)
		}
		b.Cols[1].Str = keys
		_, err := s.PushMany(nil, b)
		require.NoError(t, err)
		return live.PartsID(s, p)
	}
	// The root knows a push's strings from the second or third push of
	// them on, and until then the partitioning cannot tell; the first
	// push it can tell of makes the list the next ones are routed to.
	numbered := func(tm int64, keys []string) uint64 {
		for range 4 {
			if id := push(tm, keys); id != 0 {
				return id
			}
		}
		require.Fail(t, "not numbered", "%v", keys)
		return 0
	}
	require.Zero(t, push(0, abc), "a push that creates partitions")
	first := numbered(0, abc)
	assert.Equal(t, first, push(0, abc), "the same keys again")
	assert.Equal(t, first, push(10, abc), "at another time")
	reversed := numbered(20, cba)
	assert.NotEqual(t, first, reversed, "the same keys in another order")
	again := numbered(30, abc)
	assert.NotContains(t, []uint64{first, reversed}, again, "the first order once more, after another")
	assert.Equal(t, again, push(40, abc), "and again")
	push(200, ab)
	push(400, ab) // c is removed (IdleTTL)
	assert.Zero(t, push(400, abc), "the keys of a partition created again")
	last := numbered(400, abc)
	assert.NotContains(t, []uint64{first, reversed, again}, last, "the same keys after a partition was created again")
}

// The same as TestPartitionsToldRepeatedMatchSpeltOnes, over random
// pushes of a few key lists, each pushed as the same slice every time,
// most often the last push's again.
func TestPartitionsToldRepeatedMatchSpeltOnesRandom(t *testing.T) {
	defer engine.SetDirectParts(engine.SetDirectParts(0))
	lists := [][]string{
		{"a", "b", "c", "d", "e", "f", "g", "h"},
		{"h", "g", "f", "e", "d", "c", "b", "a"},
		{"a", "b", "c"},
		{"a", "b", "x"},
		{"a", "b", "c", "d", "e", "f", "g", "h", "a"},
		{"b", "a", "c", "d", "e", "f", "g", "h"},
	}
	for _, tc := range []struct {
		name string
		opts live.Options
		part partition.Options
	}{
		{"drop idle", live.Options{Ordering: live.Drop}, partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond}},
		{"drop idle rings", live.Options{Ordering: live.Drop}, partition.Options{MaxEvents: 3, IdleTTL: 250 * time.Millisecond}},
		{"drop limit", live.Options{Ordering: live.Drop}, partition.Options{MaxEvents: 1, MaxPartitions: 9, IdleTTL: 250 * time.Millisecond}},
		{"strict", live.Options{}, partition.Options{MaxEvents: 1}},
		{"drop workers", live.Options{Ordering: live.Drop, Workers: 2}, partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			told, spelt := newIDTwin(t, tc.opts, tc.part), newIDTwin(t, tc.opts, tc.part)
			rng := rand.New(rand.NewPCG(45, uint64(len(tc.name))))
			keys := lists[0]
			tm := int64(0)
			for i := range 800 {
				if rng.IntN(2) == 0 {
					keys = lists[rng.IntN(len(lists))]
				}
				tm += []int64{0, 0, 0, 30, 100, 300}[rng.IntN(6)]
				p := idPush{t: tm, keys: keys, split: rng.IntN(10) == 0, bad: rng.IntN(25) == 0}
				p.late = tc.opts.Ordering == live.Drop && rng.IntN(10) == 0
				pushIDTwins(t, told, spelt, p, i, fmt.Sprintf("push %d: %+v", i, p))
			}
		})
	}
}

// newIDTwin returns a series partitioned by host, with a clock rolling
// on the partitioning and another behind a filter of it, all watched.
func newIDTwin(t *testing.T, opts live.Options, part partition.Options) *live.Series {
	s := newSeries(t, opts)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	p, err := s.PartitionBy(s.Root(), "host", part)
	require.NoError(t, err)
	windows := []rolling.Window{{Span: 2 * time.Second, Aggs: []reduce.Agg{
		{Out: "n", From: "value", Using: reduce.Count},
		{Out: "sum", From: "value", Using: reduce.Sum},
		{Out: "hosts", From: "host", Using: reduce.Unique},
	}}}
	clock := rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))}
	roll, err := s.Rolling(p, windows, clock)
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	// Keeps two rows in three, not the same from one push to the next.
	f, err := s.Filter(p, func(row schema.Row) bool {
		v, _ := row[1].Num()
		return math.Mod(v, 3) != 0
	})
	require.NoError(t, err)
	froll, err := s.Rolling(f, windows, clock)
	require.NoError(t, err)
	require.NoError(t, s.Watch(froll))
	return s
}

// pushIDTwins pushes p, the i-th push, to told, whose tick buffers take
// partitions as the list they kept when told, and to spelt, whose
// buffers write every row's partition out, and requires that both give
// the same.
func pushIDTwins(t *testing.T, told, spelt *live.Series, p idPush, i int, msg string) {
	t.Helper()
	ms := int64(time.Millisecond)
	b := schema.NewBatch(metricsSchema, len(p.keys)+1)
	b.Cols[1].Str = p.keys
	if p.late {
		b.Time = append(b.Time, (p.t-1000)*ms)
		b.Cols[0].Num = append(b.Cols[0].Num, -1)
		b.Cols[1].Str = append([]string{"z"}, p.keys...)
	}
	for k := range p.keys {
		tm := p.t * ms
		if p.split && 2*k >= len(p.keys) {
			tm += 10 * ms
		}
		b.Time = append(b.Time, tm)
		b.Cols[0].Num = append(b.Cols[0].Num, float64(100*i+k))
	}
	if p.bad {
		b.Cols[0].Num[len(b.Cols[0].Num)-1] = math.NaN()
	}
	var got [2]string
	for k, s := range []*live.Series{told, spelt} {
		was := engine.SetRepeatParts(k == 0)
		out, err := s.PushMany(nil, b)
		engine.SetRepeatParts(was)
		requireOwnHosts(t, out, msg)
		got[k] = fmt.Sprint(err, outputRows(out))
	}
	require.Equal(t, got[1], got[0], msg)
}
