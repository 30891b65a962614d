package live_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
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

// A partitioning that keeps one row per partition replays exactly those
// rows, in arrival order, into a rolling built later; the partitions
// emit in the order the partitioning first saw them, as they would had
// the rolling been there from the start.
func TestPartitionKeepingOneRowReplaysTheLastRows(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"), r(2, 3, "a"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3, 4, "b"), r(4, 5, "c"), r(5, 6, "b"))
	require.NoError(t, err)
	roll, err := s.Rolling(p, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "sum", From: "value", Using: reduce.Sum},
		{Out: "n", From: "value", Using: reduce.Count},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	out, err := s.PushRows(nil, r(1000, 10, "a"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	hosts, _ := out[0].Events.Strings("host")
	sums, _ := out[0].Events.Numbers("sum")
	n, _ := out[0].Events.Numbers("n")
	// Held rows in arrival order: a@2 (3), c@4 (5), b@5 (6); then a's new
	// row. First seen: a, b, c.
	assert.Equal(t, []string{"a", "b", "c"}, hosts)
	assert.Equal(t, []float64{13, 6, 5}, sums)
	assert.Equal(t, []float64{2, 1, 1}, n)
}

// Watching a partitioning's evictions reports each row its retention lets
// go, also with one row per partition.
func TestPartitionEvictionsAreReported(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	require.NoError(t, s.Watch(p, live.Evict))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(2, 3, "a"), r(3, 4, "a"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, []float64{1, 3}, values(out[0].Events))
}

// The rows of a partition IdleTTL removes are the partitioning's Evict
// output, and leave the views built on it, whether the partition goes at
// the end of a push or to make room for a new key at MaxPartitions.
func TestIdlePartitionsRowsAreEvicted(t *testing.T) {
	for _, limit := range []int{0, 1} {
		t.Run(fmt.Sprintf("MaxPartitions=%d", limit), func(t *testing.T) {
			s := newSeries(t, live.Options{})
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxPartitions: limit, IdleTTL: time.Second})
			require.NoError(t, err)
			d, err := s.Diff(p, "value")
			require.NoError(t, err)
			require.NoError(t, s.Watch(p, live.Evict))
			require.NoError(t, s.Watch(d, live.Evict))
			_, err = s.PushRows(nil, r(0, 1, "a"))
			require.NoError(t, err)
			out, err := s.PushRows(nil, r(2000, 2, "b"))
			require.NoError(t, err)
			for _, id := range []live.NodeID{p, d} {
				gone, ok := live.Find(out, id, live.Evict)
				require.True(t, ok, "node %d", id)
				hosts, _ := gone.Strings("host")
				assert.Equal(t, []string{"a"}, hosts, "node %d", id)
			}
		})
	}
}

// A partition's last row outlives the series' own retention: a host that
// goes quiet keeps its last row (the series has forgotten it since), and
// a snapshot of the partitioning shows every host's last row, under every
// ordering, whether the row was routed a moment ago or long before, and
// after watching the partitioning's evictions starts.
//
// The rows about to leave the store are matched to their partitions'
// last rows either way: by partition, then by row.
func TestPartitionKeepsItsLastRowsPastTheSeriesRetention(t *testing.T) {
	for _, by := range []struct {
		name  string
		ratio int
	}{{"by partition", 1 << 30}, {"by row", 0}} {
		t.Run(by.name, func(t *testing.T) {
			defer live.RescueByPartitions(live.RescueByPartitions(by.ratio))
			testLastRowsPastTheSeriesRetention(t)
		})
	}
}

func testLastRowsPastTheSeriesRetention(t *testing.T) {
	for _, ord := range []live.Ordering{live.Strict, live.Drop, live.Reorder} {
		t.Run(ord.String(), func(t *testing.T) {
			opts := live.Options{MaxAge: time.Second, Ordering: ord}
			if ord == live.Reorder {
				opts.Grace = time.Second
			}
			s := newSeries(t, opts)
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"), r(2, 0, "c"))
			require.NoError(t, err)
			_, err = s.PushRows(nil, r(3, 3, "c")) // c's last row is not its first
			require.NoError(t, err)
			for i := int64(1); i <= 50; i++ { // 5 s of a alone, then b once
				_, err = s.PushRows(nil, r(100*i, float64(10+i), "a"))
				require.NoError(t, err)
			}
			_, err = s.PushRows(nil, r(5001, 99, "b"))
			require.NoError(t, err)
			assert.Equal(t, 11, s.Len(), "the series keeps its last second")

			snap, err := s.Snapshot(p)
			require.NoError(t, err)
			hosts, _ := snap.Strings("host")
			vals, _ := snap.Numbers("value")
			// In arrival order of each host's last row: c, a, b.
			assert.Equal(t, []string{"c", "a", "b"}, hosts)
			assert.Equal(t, []float64{3, 60, 99}, vals)

			require.NoError(t, s.Watch(p, live.Evict))
			out, err := s.PushRows(nil, r(5100, 7, "c"))
			require.NoError(t, err)
			gone, ok := live.Find(out, p, live.Evict)
			require.True(t, ok)
			gv, _ := gone.Numbers("value")
			assert.Equal(t, []float64{3}, gv, "c's last row leaves for its new one")
			snap, err = s.Snapshot(p)
			require.NoError(t, err)
			vals, _ = snap.Numbers("value")
			assert.Equal(t, []float64{60, 99, 7}, vals)
		})
	}
}

// A key that goes quiet keeps its last row while other keys go on: the
// rows leaving the store are matched to the last rows of every partition,
// the quiet key's included, even though the busy keys' last rows are
// newer at every push.
func TestPartitionKeepsTheLastRowOfAQuietKeyAmongBusyOnes(t *testing.T) {
	for _, by := range []struct {
		name  string
		ratio int
	}{{"by partition", 1 << 30}, {"by row", 0}} {
		t.Run(by.name, func(t *testing.T) {
			defer live.RescueByPartitions(live.RescueByPartitions(by.ratio))
			s := newSeries(t, live.Options{MaxAge: time.Second})
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			for i := int64(0); i <= 30; i++ { // b, a and c every 100 ms; b stops at 1 s, c at 2 s
				rows := []schema.Row{r(100*i, float64(i), "a")}
				if i <= 10 {
					rows = append([]schema.Row{r(100*i, float64(100+i), "b")}, rows...)
				}
				if i <= 20 {
					rows = append(rows, r(100*i, float64(200+i), "c"))
				}
				_, err = s.PushRows(nil, rows...)
				require.NoError(t, err)
			}
			snap, err := s.Snapshot(p)
			require.NoError(t, err)
			hosts, _ := snap.Strings("host")
			vals, _ := snap.Numbers("value")
			assert.Equal(t, []string{"b", "c", "a"}, hosts, "arrival order of the last rows")
			assert.Equal(t, []float64{110, 220, 30}, vals)
		})
	}
}

func TestPartitionSlotsGrowByAQuarter(t *testing.T) {
	// Keeping one row per partition in its slot (its evictions watched,
	// the node keeps its rows itself, not by id), the partitions' slots
	// lie side by side in one slice, grown by a quarter as partitions
	// appear (as append grows the other per-partition slices), not
	// doubled.
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	require.NoError(t, s.Watch(byHost, live.Evict))
	for k := range 100 {
		b := schema.NewBatch(metricsSchema, 100)
		for h := range 100 {
			b.Time = append(b.Time, int64(k)*int64(time.Second))
			b.Cols[0].Num = append(b.Cols[0].Num, 1)
			b.Cols[1].Str = append(b.Cols[1].Str, fmt.Sprintf("host-%d", 100*k+h))
		}
		_, err = s.PushMany(nil, b)
		require.NoError(t, err)
	}
	parts, room := live.LastRowsRoom(s, byHost)
	require.Equal(t, 10000, parts)
	assert.LessOrEqual(t, room, parts*5/4+1, "slots for %d partitions", parts)
}

func TestPartitionSlotsLetGoOfGrowthsRoomAfterAPushOfNewKeys(t *testing.T) {
	// A push that makes 1,000 partitions at once, kept in their slots
	// (evictions watched), grows the slots by a quarter at a time; at
	// its end the slots are as many as the partitions, within the
	// allocator's rounding (a sixteenth), and each partition's row is
	// its own.
	const hosts = 1000
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	require.NoError(t, s.Watch(byHost, live.Evict))
	_, err = s.PushMany(nil, hostsBatch(0, hosts))
	require.NoError(t, err)
	parts, room := live.LastRowsRoom(s, byHost)
	require.Equal(t, hosts, parts)
	assert.GreaterOrEqual(t, room, parts)
	assert.LessOrEqual(t, room, parts+parts/16, "slots for %d partitions", parts)
	assertHostsRows(t, s, byHost, 0, hosts)
}

func TestPartitionKeepingRowsByIDMakesSlotsOnlyToSaveThem(t *testing.T) {
	// Keeping one row per partition by id (nothing reads its evictions),
	// a partition node makes no slot while the series' store holds each
	// partition's last row: 1,000 hosts pushed three times take none. A
	// snapshot saves every partition's last row, in slots then made, and
	// reads the rows of the last push.
	const hosts = 1000
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	for k := range 3 {
		_, err = s.PushMany(nil, hostsBatch(int64(k), hosts))
		require.NoError(t, err)
	}
	parts, room := live.LastRowsRoom(s, byHost)
	require.Equal(t, hosts, parts)
	assert.Zero(t, room, "slots before a read")
	assertHostsRows(t, s, byHost, 2, hosts)
	_, room = live.LastRowsRoom(s, byHost)
	assert.GreaterOrEqual(t, room, parts, "slots after a read")
}

// hostsBatch is a batch of metricsSchema rows at time k seconds, one for
// each of hosts hosts ("host-0" …), host h's value 1000k + h.
func hostsBatch(k int64, hosts int) *schema.Batch {
	b := schema.NewBatch(metricsSchema, hosts)
	for h := range hosts {
		b.Time = append(b.Time, k*int64(time.Second))
		b.Cols[0].Num = append(b.Cols[0].Num, float64(1000*k+int64(h)))
		b.Cols[1].Str = append(b.Cols[1].Str, fmt.Sprintf("host-%d", h))
	}
	return b
}

// assertHostsRows asserts that partition node id holds, for each of
// hosts hosts, host h's row of hostsBatch(k, hosts).
func assertHostsRows(t *testing.T, s *live.Series, id live.NodeID, k int64, hosts int) {
	t.Helper()
	snap, err := s.Snapshot(id)
	require.NoError(t, err)
	vals, _ := snap.Numbers("value")
	keys, _ := snap.Strings("host")
	require.Len(t, vals, hosts)
	for h, v := range vals {
		require.Equal(t, fmt.Sprintf("host-%d", h), keys[h])
		require.Equal(t, float64(1000*k+int64(h)), v, "host %d's row", h)
	}
}

func TestPartitionKeepingOneRowHasNoRings(t *testing.T) {
	// Keeping one row per partition, a partition's row is its slot and a
	// mark says whether the slot holds one: no ring of 40 bytes a
	// partition. Partitions removed by IdleTTL hold nothing, and their
	// indices, given to new partitions, hold the new rows.
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 2 * time.Second})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, "a"), r(0, 2, "b"), r(0, 3, "c"), r(1000, 4, "a"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3000, 5, "a")) // b and c go
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(3000, 6, "d"), r(3000, 7, "e"))
	require.NoError(t, err)
	ps, err := s.Partitions(byHost)
	require.NoError(t, err)
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%v:%d/%d", p.Key, p.Length, p.Ingested))
	}
	assert.Equal(t, []string{`"a":1/3`, `"d":1/1`, `"e":1/1`}, got)
	f, err := s.Snapshot(byHost)
	require.NoError(t, err)
	vals, _ := f.Numbers("value")
	assert.Equal(t, []float64{5, 6, 7}, vals, "each partition's last row")
	rings, marks := live.PartitionRings(s, byHost)
	assert.Zero(t, rings)
	assert.Equal(t, 3, marks, "b's and c's indices went to d and e")
}

// A push of no rows is no change, under every ordering, into a
// partitioning that keeps one row per partition, before its first
// partition and after: reorder ordering passes such a push on to the
// partitioning, which panicked indexing a slot when it had none yet.
func TestEmptyPushIntoPartitionsKeepingOneRow(t *testing.T) {
	for _, opts := range []live.Options{
		{},
		{Ordering: live.Drop},
		{Ordering: live.Reorder, Grace: time.Second},
	} {
		for _, watch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/watched=%v", opts.Ordering, watch), func(t *testing.T) {
				s := newSeries(t, opts)
				p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
				require.NoError(t, err)
				if watch {
					require.NoError(t, s.Watch(p, live.Event))
				}
				empty := schema.NewBatch(metricsSchema, 0)
				var out []live.Output
				require.NotPanics(t, func() { out, err = s.PushMany(nil, empty) })
				require.NoError(t, err)
				assert.Empty(t, out)
				_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"), r(2, 3, "a"))
				require.NoError(t, err)
				require.NotPanics(t, func() { out, err = s.PushMany(nil, empty) })
				require.NoError(t, err)
				assert.Empty(t, out)
				snap, err := s.Snapshot(p)
				require.NoError(t, err)
				assert.Equal(t, []float64{2, 3}, values(snap), "each host's last row")
			})
		}
	}
}

// Under reorder ordering a partition keeps its rows as the series keeps
// its own: in time order, MaxAge measured from the partition's latest
// time and MaxEvents keeping its newest rows, so that with one key the
// partition holds exactly the series' rows and lets go of the same ones.
// Before, a late row was kept in arrival order at the end of its
// partition: MaxAge let it stay after later rows had made it too old,
// and MaxEvents let a newer row go in its place.
func TestPartitionRetentionUnderReorderFollowsTime(t *testing.T) {
	cases := []struct {
		name   string
		opts   live.Options
		pushes []int64 // one row a push, at these times in ms
		held   []int64
		gone   [][]int64 // the partition's evictions, push by push
	}{
		{"max age from the latest, not the late row", live.Options{MaxAge: 100 * time.Millisecond},
			[]int64{100, 50, 160}, []int64{100, 160}, [][]int64{nil, nil, {50}}},
		{"a late row too old at once", live.Options{MaxAge: 100 * time.Millisecond},
			[]int64{200, 90}, []int64{200}, [][]int64{nil, {90}}},
		{"max events keeps the newest", live.Options{MaxEvents: 2},
			[]int64{100, 50, 160}, []int64{100, 160}, [][]int64{nil, nil, {50}}},
		{"max events lets a late row older than all go", live.Options{MaxEvents: 2},
			[]int64{100, 120, 50}, []int64{100, 120}, [][]int64{nil, nil, {50}}},
		{"max events with a late row among the held", live.Options{MaxEvents: 3},
			[]int64{100, 120, 140, 110, 130}, []int64{120, 130, 140}, [][]int64{nil, nil, nil, {100}, {110}}},
		{"equal times keep arrival order", live.Options{MaxEvents: 2},
			[]int64{100, 120, 100}, []int64{100, 120}, [][]int64{nil, nil, {100}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Ordering = live.Reorder
			s := newSeries(t, c.opts)
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{})
			require.NoError(t, err)
			require.NoError(t, s.Watch(p, live.Evict))
			require.NoError(t, s.Watch(s.Root(), live.Evict))
			for i, at := range c.pushes {
				out, err := s.PushRows(nil, r(at, float64(i), "a"))
				require.NoError(t, err)
				var gone, rootGone []int64
				if tab, ok := live.Find(out, p, live.Evict); ok {
					gone = times(tab)
				}
				if tab, ok := live.Find(out, s.Root(), live.Evict); ok {
					rootGone = times(tab)
				}
				assert.Equal(t, c.gone[i], gone, "push %d", i)
				assert.Equal(t, rootGone, gone, "push %d: the series let go of the same rows", i)
			}
			snap, err := s.Snapshot(p)
			require.NoError(t, err)
			assert.Equal(t, c.held, times(snap))
			rootSnap, err := s.Snapshot(s.Root())
			require.NoError(t, err)
			assert.Equal(t, times(rootSnap), times(snap))
			ps, err := s.Partitions(p)
			require.NoError(t, err)
			require.Len(t, ps, 1)
			assert.Equal(t, len(c.held), ps[0].Length)
			assert.Equal(t, uint64(len(c.pushes)-len(c.held)), ps[0].Evicted)
		})
	}
}

// A node built on a partitioning after rows have arrived starts from the
// rows the partitions hold, under the partitioning's own retention, not
// from every row the series holds: a partitioning that keeps one row per
// partition (MaxEvents 1) gives a rolling built late the last row of each
// partition only. Build rollings before pushing to have them see every
// row.
func TestNodesBuiltLateOnAPartitioningStartFromItsRows(t *testing.T) {
	aggs := []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}
	for _, c := range []struct {
		maxEvents int
		late      float64 // the late rolling's count at 1 s
	}{{0, 11}, {1, 2}} {
		t.Run(fmt.Sprintf("MaxEvents %d", c.maxEvents), func(t *testing.T) {
			s := newSeries(t, live.Options{MaxAge: time.Minute})
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: c.maxEvents})
			require.NoError(t, err)
			early, err := s.Rolling(p, []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{})
			require.NoError(t, err)
			for i := range 10 {
				_, err = s.PushRows(nil, r(int64(i*100), 1, "a"))
				require.NoError(t, err)
			}
			late, err := s.Rolling(p, []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{})
			require.NoError(t, err)
			require.NoError(t, s.Watch(early))
			require.NoError(t, s.Watch(late))
			out, err := s.PushRows(nil, r(1000, 1, "a"))
			require.NoError(t, err)
			e, _ := live.Find(out, early, live.Event)
			l, _ := live.Find(out, late, live.Event)
			assert.Equal(t, []any{11.0}, cells(t, e, "n"))
			assert.Equal(t, []any{c.late}, cells(t, l, "n"))
			assert.Equal(t, 11, s.Len())
		})
	}
}

// A rolling built on a partitioned rolling keeps its windows per
// partition: the rows it reads carry their partition's key, not the
// partition, which it finds from the key. It panicked on its first row.
func TestRollingOnAPartitionedRolling(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	first, err := s.Rolling(p, []rolling.Window{{Count: 2, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}, rolling.Options{})
	require.NoError(t, err)
	second, err := s.Rolling(first, []rolling.Window{{Count: 2, Aggs: []reduce.Agg{{Out: "sum", From: "n", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	var tab *schema.Table
	require.NotPanics(t, func() {
		tab = emitted(t, s, second, r(0, 1, "a"), r(1, 1, "b"), r(2, 1, "a"), r(3, 1, "a"))
	})
	hosts, _ := tab.Strings("host")
	assert.Equal(t, []string{"a", "b", "a", "a"}, hosts)
	// a's counts are 1, 2, 2; b's 1: each partition sums its own.
	assert.Equal(t, []any{1.0, 1.0, 3.0, 4.0}, cells(t, tab, "sum"))
}

func TestRollingOnAPartitionedRollingUnderEveryTrigger(t *testing.T) {
	every := trigger.Clock(sequence.Every(10 * time.Millisecond))
	for _, c := range []struct {
		name          string
		first, second rolling.Options
	}{
		{"event on clock", rolling.Options{Trigger: every}, rolling.Options{}},
		{"clock on event", rolling.Options{}, rolling.Options{Trigger: every}},
		{"aligned on event", rolling.Options{}, rolling.Options{Trigger: every, Aligned: true}},
		{"count on clock", rolling.Options{Trigger: every}, rolling.Options{Trigger: trigger.Count(2)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 30 * time.Millisecond})
			require.NoError(t, err)
			first, err := s.Rolling(p, []rolling.Window{{Span: 5 * time.Millisecond, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}, c.first)
			require.NoError(t, err)
			second, err := s.Rolling(first, []rolling.Window{{Span: 20 * time.Millisecond, Aggs: []reduce.Agg{{Out: "sum", From: "n", Using: reduce.Sum}}}}, c.second)
			require.NoError(t, err)
			require.NoError(t, s.Watch(second))
			for i := range 200 {
				host := []string{"a", "b", "c"}[i%3]
				if i > 100 {
					host = []string{"a", "b"}[i%2] // c goes quiet and expires
				}
				require.NotPanics(t, func() { _, err = s.PushRows(nil, r(int64(i), 1, host)) })
				require.NoError(t, err)
			}
			v, err := s.Value(second)
			require.NoError(t, err)
			assert.Positive(t, v.Len())
		})
	}
}

// A partition keeping one row (MaxEvents 1) whose last row is still in
// the series' store keeps only its id, and saves the row before retention
// evicts it. Once a retention had saved every partition's last row, no
// later one looked again: the next last row left the store unsaved, and
// reading the partition panicked ("a partition's last row left the store
// before it was saved").
func TestPartitionSavesLastRowsAfterAllWereSaved(t *testing.T) {
	for _, ord := range []live.Ordering{live.Strict, live.Drop} {
		t.Run(ord.String(), func(t *testing.T) {
			s := newSeries(t, live.Options{MaxAge: 10 * time.Millisecond, Ordering: ord})
			p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			for _, row := range []schema.Row{
				r(0, 1, "a"), r(0, 2, "b"),
				r(100, 3, "c"), // evicts a's and b's last rows: both saved
				r(101, 4, "a"),
				r(200, 5, "b"), // evicts c's row and a's new last row
			} {
				_, err = s.PushRows(nil, row)
				require.NoError(t, err)
			}
			var snap *schema.Table
			require.NotPanics(t, func() { snap, err = s.Snapshot(p) })
			require.NoError(t, err)
			assert.Equal(t, []float64{3, 4, 5}, values(snap), "each partition's last row")
		})
	}
}

// Options a partitioning cannot use are refused when it is built, with
// an error naming the option in its Field and quoting its value.
func TestPartitionByRefusesBadOptions(t *testing.T) {
	cases := []struct {
		name   string
		column string // the partition column; "host" when empty
		opts   partition.Options
		field  string
		want   string
	}{
		{
			name:  "a negative MaxEvents",
			opts:  partition.Options{MaxEvents: -2},
			field: "MaxEvents",
			want:  "partition: invalid options: MaxEvents -2 must not be negative",
		},
		{
			name:  "a MaxAge longer than the longest duration",
			opts:  partition.Options{MaxAge: sequence.MaxDuration + 1},
			field: "MaxAge",
			want:  "partition: invalid options: MaxAge 1281023h53m38.427387905s is longer than 1281023h53m38.427387904s",
		},
		{
			name:  "a negative MaxPartitions",
			opts:  partition.Options{MaxPartitions: -1},
			field: "MaxPartitions",
			want:  "partition: invalid options: MaxPartitions -1 must not be negative",
		},
		{
			name:  "a negative IdleTTL",
			opts:  partition.Options{IdleTTL: -time.Second},
			field: "IdleTTL",
			want:  "partition: invalid options: IdleTTL -1s must not be negative",
		},
		{
			name:  "an IdleTTL longer than the longest duration",
			opts:  partition.Options{IdleTTL: sequence.MaxDuration + 1},
			field: "IdleTTL",
			want:  "partition: invalid options: IdleTTL 1281023h53m38.427387905s is longer than 1281023h53m38.427387904s",
		},
		{
			name:  "more declared groups than MaxPartitions",
			opts:  partition.Options{Groups: partition.Strings("a", "b"), MaxPartitions: 1},
			field: "Groups",
			want:  "partition: invalid options: 2 declared groups exceed MaxPartitions 1",
		},
		{
			name:  "a group of another kind than the column",
			opts:  partition.Options{Groups: []schema.Value{schema.NumberValue(1)}},
			field: "Groups",
			want:  "partition: invalid options: group 0 (1) is a number, the column is string",
		},
		{
			name:  "a group declared twice",
			opts:  partition.Options{Groups: partition.Strings("a", "b", "a")},
			field: "Groups",
			want:  "partition: invalid options: group \"a\" is declared twice",
		},
		{
			name:   "a group that is not a finite number",
			column: "value",
			opts:   partition.Options{Groups: []schema.Value{schema.NumberValue(1), schema.NumberValue(math.Inf(-1))}},
			field:  "Groups",
			want:   "partition: invalid options: group 1 (-Inf) is not finite",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			_, err := s.PartitionBy(s.Root(), cmp.Or(c.column, "host"), c.opts)
			require.ErrorIs(t, err, partition.ErrOptions)
			var ce *live.ConfigError
			require.True(t, errors.As(err, &ce))
			assert.Equal(t, c.field, ce.Field)
			assert.EqualError(t, ce.Err, c.want)
			assert.Equal(t, "live: partitionBy: "+c.field+": bad option: "+c.want, err.Error())
		})
	}
}

// A column of a kind no partitioning can use is named by its Field
// "column", the column's name in the reason.
func TestPartitionByRefusesAnArrayColumn(t *testing.T) {
	sch, err := schema.New(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "tags", Kind: schema.Array})
	require.NoError(t, err)
	s, err := live.New("arrays", sch, live.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	_, err = s.PartitionBy(s.Root(), "tags", partition.Options{})
	require.ErrorIs(t, err, partition.ErrOptions)
	var ce *live.ConfigError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, "column", ce.Field)
	assert.Equal(t, `live: partitionBy: column: "tags" cannot be partitioned by: partition: invalid options: cannot partition by an array column`, err.Error())
}
