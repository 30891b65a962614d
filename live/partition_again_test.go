package live_test

import (
	"fmt"
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

// Pushes that bring the same keys in the same order, as the same strings
// at the same addresses (a producer that reuses its key values), route
// every row as pushes of fresh copies of those strings do: also when
// partitions come and go between them (IdleTTL), a removed partition's
// index goes to a new key, and the keys change order or number. The
// partitioning's last rows (Snapshot) and counts (Partitions) are read
// back, both when it keeps its last rows by id and, with its evictions
// watched, when it copies them.
func TestRepeatedKeysRouteAsFreshKeys(t *testing.T) {
	for _, evictions := range []bool{false, true} {
		t.Run(fmt.Sprintf("evictions=%v", evictions), func(t *testing.T) {
			testRepeatedKeys(t, evictions)
		})
	}
}

func testRepeatedKeys(t *testing.T, evictions bool) {
	pushes := [][]string{
		{"a", "b", "c"}, {"a", "b", "c"}, {"a", "b"}, {"a", "b"}, {"a", "b"},
		{"a", "b"}, {"b", "a"}, {"b", "a"}, {"d", "a", "b"}, {"a", "b"},
		{"a", "b"}, {"a", "b"}, {"c", "a", "b"}, {"c", "a", "b"}, {"a", "b"},
	}
	reused := map[string]string{}
	for _, keys := range pushes {
		for _, k := range keys {
			reused[k] = strings.Clone(k)
		}
	}
	type run struct {
		s         *live.Series
		part, sum live.NodeID
	}
	build := func() run {
		s := newSeries(t, live.Options{})
		p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 250 * time.Millisecond})
		require.NoError(t, err)
		roll, err := s.Rolling(p, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "sum", From: "value", Using: reduce.Sum},
			{Out: "n", From: "value", Using: reduce.Count},
		}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))})
		require.NoError(t, err)
		require.NoError(t, s.Watch(roll))
		if evictions {
			require.NoError(t, s.Watch(p, live.Evict))
		}
		return run{s, p, roll}
	}
	same, fresh := build(), build()
	for i, keys := range pushes {
		var got [2]string
		for k, r := range []run{same, fresh} {
			b := schema.NewBatch(metricsSchema, len(keys))
			for j, key := range keys {
				b.Time = append(b.Time, int64(i)*int64(60*time.Millisecond))
				b.Cols[0].Num = append(b.Cols[0].Num, float64(10*i+j))
				if r == same {
					key = reused[key]
				} else {
					key = strings.Clone(key)
				}
				b.Cols[1].Str = append(b.Cols[1].Str, key)
			}
			out, err := r.s.PushMany(nil, b)
			require.NoError(t, err)
			held, err := r.s.Snapshot(r.part)
			require.NoError(t, err)
			parts, err := r.s.Partitions(r.part)
			require.NoError(t, err)
			got[k] = fmt.Sprint(outputRows(out), tableRows(held), parts)
		}
		assert.Equal(t, got[1], got[0], "push %d", i)
	}
}

// outputRows lists the rows of outs, by node and kind.
func outputRows(outs []live.Output) []string {
	var s []string
	for _, o := range outs {
		s = append(s, fmt.Sprint(o.Node, o.Kind, tableRows(o.Events)))
	}
	return s
}

// tableRows lists the rows of tab.
func tableRows(tab *schema.Table) []schema.Row {
	var rows []schema.Row
	for _, r := range tab.All() {
		rows = append(rows, r)
	}
	return rows
}

// The partitions a push of the same keys takes again are kept beside the
// partitioning, 4 bytes a row of the push that found them, and
// NodeBytes counts them: once pushes of 1,000 keys as the same strings
// take them from the root's cache of strings (from the second or third
// push on), the partitioning holds 4,000 bytes more than after the
// first, and then no more.
func TestNodeBytesCountsThePartitionsKeptForTheSameKeys(t *testing.T) {
	s := newSeries(t, live.Options{})
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("h%d", i)
	}
	var held []int
	for i := range 4 {
		b := schema.NewBatch(metricsSchema, len(keys))
		for _, k := range keys {
			b.Time = append(b.Time, int64(i)*int64(time.Second))
			b.Cols[0].Num = append(b.Cols[0].Num, float64(i))
			b.Cols[1].Str = append(b.Cols[1].Str, k)
		}
		_, err := s.PushMany(nil, b)
		require.NoError(t, err)
		n, err := s.NodeBytes(p)
		require.NoError(t, err)
		held = append(held, n)
	}
	assert.GreaterOrEqual(t, held[3]-held[0], 4*len(keys))
	assert.Equal(t, held[2], held[3])
}
