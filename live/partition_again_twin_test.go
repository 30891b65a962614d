package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A partitioning routes a push of the same key strings as the pushes
// before it (the same bytes at the same addresses) as it routes fresh
// copies of them, whatever came between: a key order that changes and
// then repeats, partitions that IdleTTL or MaxPartitions removes (by
// pushes whose late rows Drop drops, which leave the root's cache of
// strings as it was), a key that comes back to another partition, a
// missing key, and pushes refused (a bad cell, a partition limit) that
// must change nothing. Two series take the same random pushes, one with
// its strings reused and one with fresh copies; their outputs, errors,
// partitions' rows (Snapshot) and counts (Partitions) must agree after
// every push, and a clock rolling's windows must hold rows of their own
// partition's key only.
func TestRepeatedKeysRouteAsFreshKeysWhateverCameBetween(t *testing.T) {
	clock := rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))}
	for _, tc := range []struct {
		name string
		opts live.Options
		part partition.Options
	}{
		{"drop idle", live.Options{Ordering: live.Drop}, partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond}},
		{"drop idle rings", live.Options{Ordering: live.Drop}, partition.Options{MaxEvents: 3, IdleTTL: 250 * time.Millisecond}},
		{"drop limit", live.Options{Ordering: live.Drop}, partition.Options{MaxEvents: 1, MaxPartitions: 4, IdleTTL: 250 * time.Millisecond}},
		{"strict limit", live.Options{}, partition.Options{MaxEvents: 2, MaxPartitions: 3}},
		{"reorder idle", live.Options{Ordering: live.Reorder, Grace: time.Second}, partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond}},
		{"drop workers", live.Options{Ordering: live.Drop, Workers: 2}, partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond}},
	} {
		for _, evictions := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s evictions=%v", tc.name, evictions), func(t *testing.T) {
				build := func() twin {
					s := newSeries(t, tc.opts)
					t.Cleanup(func() { require.NoError(t, s.Close()) })
					p, err := s.PartitionBy(s.Root(), "host", tc.part)
					require.NoError(t, err)
					require.NoError(t, s.Watch(p))
					if evictions {
						require.NoError(t, s.Watch(p, live.Evict))
					}
					roll, err := s.Rolling(p, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
						{Out: "sum", From: "value", Using: reduce.Sum},
						{Out: "n", From: "value", Using: reduce.Count},
						{Out: "hosts", From: "host", Using: reduce.Unique},
					}}}, clock)
					require.NoError(t, err)
					require.NoError(t, s.Watch(roll))
					return twin{s, p}
				}
				checkTwins(t, build(), build(), rand.New(rand.NewPCG(44, uint64(len(tc.name)))), tc.opts.Ordering != live.Strict)
			})
		}
	}
}

// twin is a series and its partitioning.
type twin struct {
	s    *live.Series
	part live.NodeID
}

// checkTwins pushes the same random batches to same, with its key
// strings taken from one pool every time, and to fresh, with new copies
// of them every time, and compares what each push gives and leaves. late
// adds rows before the series' latest time (for orderings that take or
// drop them).
func checkTwins(t *testing.T, same, fresh twin, rng *rand.Rand, late bool) {
	pool := []string{"a", "b", "c", "d", "e", "f"}
	orders := [][]string{{"a", "b"}, {"b", "a"}, {"c", "d"}, {"a", "b", "c"}, {"e"}}
	var keys []string // the last push's keys, often pushed again
	tm := int64(time.Hour)
	for push := range 600 {
		switch r := rng.IntN(10); {
		case keys == nil || r < 4:
			// One of a few key orders, which come back.
			keys = orders[rng.IntN(len(orders))]
		case r < 5:
			keys = nil
			for _, k := range rng.Perm(len(pool))[:1+rng.IntN(4)] {
				keys = append(keys, pool[k])
			}
		}
		tm += []int64{0, 0, 40, 120, 400}[rng.IntN(5)] * int64(time.Millisecond)
		rows := make([]twinRow, 0, len(keys)+1)
		for i, k := range keys {
			rows = append(rows, twinRow{t: tm, key: k, v: float64(10*push + i)})
		}
		if late && rng.IntN(3) == 0 {
			// A late row, which Drop drops (Reorder takes it).
			at := rng.IntN(len(rows) + 1)
			rows = append(rows[:at], append([]twinRow{{t: tm - int64(time.Second), key: pool[rng.IntN(len(pool))], v: -1}}, rows[at:]...)...)
		}
		if rng.IntN(25) == 0 {
			rows[rng.IntN(len(rows))].missing = true
		}
		if rng.IntN(25) == 0 {
			rows[rng.IntN(len(rows))].v = math.NaN() // refused: nothing changes
		}
		pushTwins(t, same, fresh, rows, fmt.Sprintf("push %d: keys %v", push, keys))
	}
}

// twinRow is a row of a batch pushed to twins.
type twinRow struct {
	t       int64
	key     string
	missing bool
	v       float64
}

// pushTwins pushes rows to same, with its key strings as they are, and
// to fresh, with new copies of them, and requires that both give and
// leave the same.
func pushTwins(t *testing.T, same, fresh twin, rows []twinRow, msg string) {
	t.Helper()
	var got [2]string
	for k, tw := range []twin{same, fresh} {
		b := schema.NewBatch(metricsSchema, len(rows))
		var missing []bool
		for i, r := range rows {
			b.Time = append(b.Time, r.t)
			b.Cols[0].Num = append(b.Cols[0].Num, r.v)
			key := r.key
			if k == 1 {
				key = strings.Clone(key)
			}
			b.Cols[1].Str = append(b.Cols[1].Str, key)
			if r.missing {
				if missing == nil {
					missing = make([]bool, len(rows))
				}
				missing[i] = true
			}
		}
		b.Cols[1].Missing = missing
		out, err := tw.s.PushMany(nil, b)
		held, serr := tw.s.Snapshot(tw.part)
		require.NoError(t, serr)
		parts, perr := tw.s.Partitions(tw.part)
		require.NoError(t, perr)
		got[k] = fmt.Sprint(err, outputRows(out), tableRows(held), parts)
		requireOwnHosts(t, out, msg)
	}
	require.Equal(t, got[1], got[0], msg)
}

// requireOwnHosts requires that the rows a partitioned rolling emitted
// with a "hosts" column (the unique hosts of its window) hold rows of
// their own partition's host only: the twins take the same routing
// path, so only this tells a row routed to another key's partition.
func requireOwnHosts(t *testing.T, outs []live.Output, msg string) {
	t.Helper()
	for _, o := range outs {
		j, ok := o.Events.Schema().Index("hosts")
		if !ok {
			continue
		}
		for i := range o.Events.Len() {
			hosts, _ := o.Events.Value(i, j).Array()
			for _, h := range hosts {
				require.True(t, h.Equal(o.Events.Value(i, 1)), "%s: %v in the window of %v", msg, h, o.Events.Value(i, 1))
			}
		}
	}
}

// A partitioning of declared groups built on a series whose retention
// has let go of some groups' rows starts with those groups empty: the
// first push of the cached key strings routes a group's first row the
// slow way, and the next push of the same strings must route each row to
// its own group, as a series that got fresh copies of them does.
func TestRepeatedKeysAfterALateBuiltPartitioningOfGroups(t *testing.T) {
	keys := []string{"g3", "g2", "g1"} // the root keeps the last, g1
	build := func() twin {
		s := newSeries(t, live.Options{MaxEvents: 1})
		return twin{s: s}
	}
	same, fresh := build(), build()
	push := func(tw twin, i int, copyKeys bool) string {
		b := schema.NewBatch(metricsSchema, len(keys))
		for j, k := range keys {
			if copyKeys {
				k = strings.Clone(k)
			}
			b.Time = append(b.Time, int64(i)*int64(time.Second))
			b.Cols[0].Num = append(b.Cols[0].Num, float64(10*i+j))
			b.Cols[1].Str = append(b.Cols[1].Str, k)
		}
		out, err := tw.s.PushMany(nil, b)
		require.NoError(t, err)
		if tw.part == 0 {
			return ""
		}
		held, err := tw.s.Snapshot(tw.part)
		require.NoError(t, err)
		parts, err := tw.s.Partitions(tw.part)
		require.NoError(t, err)
		return fmt.Sprint(outputRows(out), tableRows(held), parts)
	}
	for i := range 3 {
		push(same, i, false)
		push(fresh, i, true)
	}
	for _, tw := range []*twin{&same, &fresh} {
		p, err := tw.s.PartitionBy(tw.s.Root(), "host", partition.Options{MaxEvents: 1,
			Groups: []schema.Value{schema.StringValue("g1"), schema.StringValue("g2"), schema.StringValue("g3")}})
		require.NoError(t, err)
		require.NoError(t, tw.s.Watch(p))
		tw.part = p
	}
	for i := 3; i < 7; i++ {
		assert.Equal(t, push(fresh, i, true), push(same, i, false), "push %d", i)
	}
}

// The cases of TestRepeatedKeysRouteAsFreshKeysWhateverCameBetween that
// a random run may miss, written out: between pushes of the same key
// strings, a push whose late row Drop drops (which leaves the root's
// cache of strings as it was) lets a partition go idle, gives its index
// to another key, makes room under MaxPartitions, or brings the same
// keys in another order.
func TestRepeatedKeysAroundAPushThatLeavesTheCache(t *testing.T) {
	const ms = int64(time.Millisecond)
	at := func(t int64, keys ...string) []twinRow {
		var rows []twinRow
		for i, k := range keys {
			// Each row's value tells its place: keys in another
			// order sum to other values in their partitions.
			rows = append(rows, twinRow{t: t, key: k, v: float64(10*(t/ms) + int64(i))})
		}
		return rows
	}
	late := func(rows []twinRow) []twinRow {
		return append([]twinRow{{t: rows[0].t - 1000*ms, key: "z", v: -1}}, rows...)
	}
	ab := at(0, "a", "b")
	for _, tc := range []struct {
		name   string
		part   partition.Options
		pushes [][]twinRow
	}{
		{"a key's partition goes idle", partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond},
			[][]twinRow{ab, ab, ab, late(at(400*ms, "b")), at(400*ms, "a", "b"), at(400*ms, "a", "b")}},
		{"its index goes to another key", partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond},
			[][]twinRow{ab, ab, ab, late(at(400*ms, "b")), late(at(400*ms, "c", "b")), at(400*ms, "a", "b"), at(400*ms, "a", "b")}},
		{"room is made for a key", partition.Options{MaxEvents: 1, MaxPartitions: 2, IdleTTL: 250 * time.Millisecond},
			[][]twinRow{ab, ab, ab, late(at(400*ms, "c")), at(400*ms, "a", "b"), at(400*ms, "a", "b")}},
		{"the keys come in another order", partition.Options{MaxEvents: 1},
			[][]twinRow{ab, ab, ab, late(at(0, "b", "a")), ab, ab, at(400*ms, "a", "b")}},
	} {
		for _, workers := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s workers=%d", tc.name, workers), func(t *testing.T) {
				build := func() twin {
					s := newSeries(t, live.Options{Ordering: live.Drop, Workers: workers})
					t.Cleanup(func() { require.NoError(t, s.Close()) })
					p, err := s.PartitionBy(s.Root(), "host", tc.part)
					require.NoError(t, err)
					require.NoError(t, s.Watch(p, live.Event, live.Evict))
					roll, err := s.Rolling(p, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
						{Out: "n", From: "value", Using: reduce.Count},
						{Out: "sum", From: "value", Using: reduce.Sum},
						{Out: "hosts", From: "host", Using: reduce.Unique},
					}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))})
					require.NoError(t, err)
					require.NoError(t, s.Watch(roll))
					return twin{s, p}
				}
				same, fresh := build(), build()
				for i, rows := range tc.pushes {
					pushTwins(t, same, fresh, rows, fmt.Sprintf("push %d", i))
				}
			})
		}
	}
}
