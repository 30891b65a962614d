package live_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// rootCase is one push of TestRootOutputIsEachPushsRows: its rows (a
// missing host as ""), the rows the root takes from it, and whether it
// fails.
type rootCase struct {
	name  string
	rows  []schema.Row
	want  []schema.Row
	fails bool
}

// TestRootOutputIsEachPushsRows pushes batches whose columns the root can
// borrow (no missing cell) and batches it must copy (a missing cell, a
// dropped row), in every order, longer and shorter than the one before,
// with failed pushes between: each push's root and partition outputs hold
// exactly its accepted rows, whatever the push before held.
func TestRootOutputIsEachPushsRows(t *testing.T) {
	s := newSeries(t, live.Options{Ordering: live.Drop})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(s.Root(), live.Event))
	require.NoError(t, s.Watch(byHost, live.Event))
	nan := r(9000, math.NaN(), "a")
	routed := map[string]uint64{}
	for _, c := range []rootCase{
		{name: "borrowed", rows: []schema.Row{r(1000, 1, "a"), r(1000, 2, "b"), r(1000, 3, "c")}},
		{name: "borrowed again", rows: []schema.Row{r(1100, 4, "a"), r(1100, 5, "b"), r(1100, 6, "c")}},
		{name: "borrowed a third time, ids from the cache", rows: []schema.Row{r(1150, 4.1, "a"), r(1150, 5.1, "b"), r(1150, 6.1, "c")}},
		{name: "a dropped row after cached ids", rows: []schema.Row{r(1160, 4.2, "c"), r(1, 0, "b"), r(1160, 6.2, "a")},
			want: []schema.Row{r(1160, 4.2, "c"), r(1160, 6.2, "a")}},
		{name: "cached again", rows: []schema.Row{r(1170, 4.3, "a"), r(1170, 5.3, "b"), r(1170, 6.3, "c")}},
		{name: "shorter, borrowed", rows: []schema.Row{r(1200, 7, "b")}},
		{name: "a missing host", rows: []schema.Row{r(1300, 8, "a"), r(1300, 9, "")}},
		{name: "borrowed after a copy", rows: []schema.Row{r(1400, 10, "c"), r(1400, 11, "a")}},
		{name: "a dropped row", rows: []schema.Row{r(1500, 12, "a"), r(1, 13, "b"), r(1500, 14, "b")},
			want: []schema.Row{r(1500, 12, "a"), r(1500, 14, "b")}},
		{name: "borrowed after a selection", rows: []schema.Row{r(1600, 15, "a"), r(1600, 16, "b"), r(1600, 17, "c"), r(1600, 18, "d")}},
		{name: "rejected", rows: []schema.Row{r(1700, 19, "a"), nan}, fails: true},
		{name: "borrowed after a rejection", rows: []schema.Row{r(1800, 20, "b")}},
	} {
		out, err := s.PushMany(nil, rootBatch(c.rows))
		if c.fails {
			require.Error(t, err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		want := c.want
		if want == nil {
			want = c.rows
		}
		for _, row := range want {
			k, _ := row[2].Str()
			routed[k]++
		}
		for _, node := range []live.NodeID{s.Root(), byHost} {
			tab, ok := live.Find(out, node, live.Event)
			require.True(t, ok, "%s: node %d", c.name, node)
			var got []schema.Row
			for _, row := range tab.All() {
				got = append(got, row)
			}
			assert.Equal(t, want, got, "%s: node %d", c.name, node)
		}
	}
	// Every row went to the partition of its key (by intern id: the ids
	// a push takes from the cache, or writes, are its keys' own).
	parts, err := s.Partitions(byHost)
	require.NoError(t, err)
	got := map[string]uint64{}
	for _, p := range parts {
		k, _ := p.Key.Str()
		got[k] = p.Ingested
	}
	assert.Equal(t, routed, got)
}

// rootBatch builds a batch of rows of metricsSchema column by column, as
// a producer does: Missing only when a host is missing.
func rootBatch(rows []schema.Row) *schema.Batch {
	b := schema.NewBatch(metricsSchema, len(rows))
	for i, row := range rows {
		ns, _ := row[0].Nanos()
		x, _ := row[1].Num()
		b.Time = append(b.Time, ns)
		b.Cols[0].Num = append(b.Cols[0].Num, x)
		h, ok := row[2].Str()
		b.Cols[1].Str = append(b.Cols[1].Str, h)
		if !ok {
			if b.Cols[1].Missing == nil {
				b.Cols[1].Missing = make([]bool, len(rows))
			}
			b.Cols[1].Missing[i] = true
		}
	}
	return b
}
