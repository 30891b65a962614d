package live_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// hostBatch is a batch of metricsSchema rows one millisecond apart from
// start, with the given hosts; a nil host is a missing cell.
func hostBatch(start int64, hosts ...*string) *schema.Batch {
	b := schema.NewBatch(metricsSchema, len(hosts))
	var missing []bool
	for i, h := range hosts {
		b.Time = append(b.Time, ms(start+int64(i)))
		b.Cols[0].Num = append(b.Cols[0].Num, float64(i))
		str := ""
		if h != nil {
			str = *h
		}
		b.Cols[1].Str = append(b.Cols[1].Str, str)
		missing = append(missing, h == nil)
	}
	for _, m := range missing {
		if m {
			b.Cols[1].Missing = missing
		}
	}
	return b
}

func str(s string) *string { return &s }

// TestEmptyStringIsAValueWhateverCameBefore: an optional string cell
// holding "" is the string "", not a missing cell, in storage and in
// routing, whatever the previous push held at the same position of the
// batch.
func TestEmptyStringIsAValueWhateverCameBefore(t *testing.T) {
	cases := []struct {
		name   string
		before []*string
		push   []*string
	}{
		{"after a missing cell, in a batch with missing cells", []*string{nil, str("x")}, []*string{str(""), nil}},
		{"after a missing cell, in a batch without missing cells", []*string{nil, str("x")}, []*string{str(""), str("y")}},
		{"after an empty string", []*string{str(""), nil}, []*string{str(""), nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
			require.NoError(t, err)
			_, err = s.PushMany(nil, hostBatch(0, c.before...))
			require.NoError(t, err)
			_, err = s.PushMany(nil, hostBatch(10, c.push...))
			require.NoError(t, err)

			held, err := s.Snapshot(s.Root())
			require.NoError(t, err)
			assert.Equal(t, schema.StringValue(""), held.Value(len(c.before), 2), "the stored cell")
			snap, err := s.Snapshot(byHost)
			require.NoError(t, err)
			assert.Equal(t, keyCounts(append(c.before, c.push...)), routedKeys(snap), "rows per partition key")
		})
	}
}

// keyCounts counts hosts by value, "<missing>" for a missing one.
func keyCounts(hosts []*string) map[string]int {
	n := map[string]int{}
	for _, h := range hosts {
		if h == nil {
			n["<missing>"]++
		} else {
			n[*h]++
		}
	}
	return n
}

// routedKeys counts the rows of a partition snapshot by their key.
func routedKeys(snap *schema.Table) map[string]int {
	n := map[string]int{}
	col := table.Column(snap, 2)
	for i := range snap.Len() {
		if v, ok := col.Str(i); ok {
			n[v]++
		} else {
			n["<missing>"]++
		}
	}
	return n
}

// reqSchema has a host and a request id that is new in every row.
var reqSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "req", Kind: schema.String, Optional: true},
)

// heldStringsCases build, on a series that keeps one row, nodes that hold
// strings the root no longer does, one holder per case; they return the
// nodes to watch and to snapshot.
var heldStringsCases = []struct {
	name  string
	build func(s *live.Series) ([]live.NodeID, error)
}{
	{"a partition's rows", func(s *live.Series) ([]live.NodeID, error) {
		p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		return []live.NodeID{p}, err
	}},
	{"a partitioned rolling's windows", func(s *live.Series) ([]live.NodeID, error) {
		p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		if err != nil {
			return nil, err
		}
		id, err := s.Rolling(p, []rolling.Window{{Count: 4, Aggs: firstAndUnique}}, rolling.Options{})
		return []live.NodeID{id}, err
	}},
	{"rows waiting for a partitioned clock's tick", func(s *live.Series) ([]live.NodeID, error) {
		p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		if err != nil {
			return nil, err
		}
		id, err := s.Rolling(p, []rolling.Window{{Span: 20 * time.Millisecond, Aggs: firstAndUnique}}, everySeven)
		return []live.NodeID{id}, err
	}},
	{"a rolling's window rows, waiting for a tick", func(s *live.Series) ([]live.NodeID, error) {
		id, err := s.Rolling(s.Root(), []rolling.Window{{Span: 20 * time.Millisecond, Aggs: firstAndUnique}}, everySeven)
		return []live.NodeID{id}, err
	}},
	{"an aligned rolling's panes, raw rows and inboxes, partitioned", func(s *live.Series) ([]live.NodeID, error) {
		p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		if err != nil {
			return nil, err
		}
		id, err := s.Rolling(p, []rolling.Window{
			{Span: 21 * time.Millisecond, Aggs: alignedStrings},
			{Span: 7 * time.Millisecond, Aggs: []reduce.Agg{{Out: "last7", From: "req", Using: reduce.Last}}},
		}, everySevenAligned)
		return []live.NodeID{id}, err
	}},
	{"an aligned rolling's panes and raw rows, unpartitioned", func(s *live.Series) ([]live.NodeID, error) {
		id, err := s.Rolling(s.Root(), []rolling.Window{{Span: 21 * time.Millisecond, Aggs: alignedStrings}}, everySevenAligned)
		return []live.NodeID{id}, err
	}},
	{"a fill's last value", func(s *live.Series) ([]live.NodeID, error) {
		fill, err := s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold, Columns: []string{"req"}})
		if err != nil {
			return nil, err
		}
		// Only the second of two filled rows gets through: nothing but
		// the fill holds its value.
		second, err := s.Filter(fill, func(row schema.Row) bool { ns, _ := row[0].Nanos(); return ns/int64(time.Millisecond)%7 == 4 })
		if err != nil {
			return nil, err
		}
		id, err := s.Rolling(second, []rolling.Window{{Count: 1, Aggs: firstAndUnique}}, rolling.Options{})
		return []live.NodeID{id}, err
	}},
}

var (
	firstAndUnique = []reduce.Agg{{Out: "first", From: "req", Using: reduce.First}, {Out: "uniq", From: "req", Using: reduce.Unique}}
	everySeven     = rolling.Options{Trigger: trigger.Clock(sequence.Every(7 * time.Millisecond))}
	// Aligned windows keep first and last in panes and samples and unique
	// in raw rows: both hold intern ids.
	alignedStrings = []reduce.Agg{
		{Out: "first", From: "req", Using: reduce.First},
		{Out: "last", From: "req", Using: reduce.Last},
		{Out: "samples", From: "req", Using: reduce.Samples},
		{Out: "uniq", From: "req", Using: reduce.Unique},
	}
	everySevenAligned = rolling.Options{Trigger: trigger.Clock(sequence.Every(7 * time.Millisecond)), Aligned: true}
)

// TestStringsHeldOnlyByNodesOutliveSweeps: a series that forgets unheld
// strings after every push emits and holds what a twin that never needs
// to sweep does, although its strings are held by one node only, and new
// strings take the freed ids.
func TestStringsHeldOnlyByNodesOutliveSweeps(t *testing.T) {
	for _, c := range heldStringsCases {
		t.Run(c.name, func(t *testing.T) {
			var series [2]*live.Series
			var nodes []live.NodeID
			for k := range series {
				s, err := live.New("held", reqSchema, live.Options{MaxEvents: 1})
				require.NoError(t, err)
				nodes, err = c.build(s)
				require.NoError(t, err)
				for _, id := range nodes {
					require.NoError(t, s.Watch(id))
				}
				series[k] = s
			}
			s, twin := series[0], series[1]
			live.SweepEveryPush(s)
			for i := range 300 {
				row := schema.Row{schema.MillisValue(int64(i)), schema.StringValue(fmt.Sprintf("h%d", i%5)), schema.StringValue(fmt.Sprintf("r%d", i))}
				if i%7 == 3 || i%7 == 4 {
					row[2] = schema.Missing()
				}
				out, err := s.PushRows(nil, row)
				require.NoError(t, err)
				want, err := twin.PushRows(nil, row)
				require.NoError(t, err)
				require.Equal(t, render(want), render(out), "push %d", i)
				for _, id := range nodes {
					exp, err := twin.Snapshot(id)
					if err != nil {
						continue // the node holds no rows to show
					}
					got, err := s.Snapshot(id)
					require.NoError(t, err)
					require.Equal(t, exp.String(), got.String(), "node %d after push %d", id, i)
				}
			}
		})
	}
}

// TestDeclaredGroupKeysOutliveSweeps: a declared group's key is held by
// the partitioning even before any row has it.
func TestDeclaredGroupKeysOutliveSweeps(t *testing.T) {
	s, err := live.New("groups", reqSchema, live.Options{MaxEvents: 1})
	require.NoError(t, err)
	live.SweepEveryPush(s)
	_, err = s.PartitionBy(s.Root(), "host", partition.Options{Groups: partition.Strings("a", "b")})
	require.NoError(t, err)
	for i := range 50 {
		_, err := s.PushRows(nil, schema.Row{schema.MillisValue(int64(i)), schema.StringValue("a"), schema.StringValue(fmt.Sprintf("r%d", i))})
		require.NoError(t, err)
	}
	_, err = s.PushRows(nil, schema.Row{schema.MillisValue(50), schema.StringValue("b"), schema.Missing()})
	assert.NoError(t, err, "b is still a declared group")
	_, err = s.PushRows(nil, schema.Row{schema.MillisValue(51), schema.StringValue("r3"), schema.Missing()})
	assert.ErrorIs(t, err, partition.ErrUnknownGroup, "a string given a freed id is no group")
}

// TestDistinctStringsPushDoesNotAllocate: once warm, pushes that bring a
// new string in every row, and the sweeps that forget the old ones, do not
// allocate.
func TestDistinctStringsPushDoesNotAllocate(t *testing.T) {
	s, err := live.New("reqs", reqSchema, live.Options{MaxAge: time.Second})
	require.NoError(t, err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: time.Second})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: 2 * time.Second, Aggs: []reduce.Agg{
		{Out: "n", From: "req", Using: reduce.Count},
		{Out: "first", From: "req", Using: reduce.First},
	}}}, everySeven)
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	const rows, pushes = 500, 400
	hosts := make([]string, 10)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%d", i)
	}
	reqs := make([]string, rows*pushes)
	for i := range reqs {
		reqs[i] = fmt.Sprintf("req-%d", i)
	}
	b := schema.NewBatch(reqSchema, rows)
	next := 0
	var out []live.Output
	push := func() {
		b.Reset()
		for range rows {
			b.Time = append(b.Time, ms(int64(next)))
			b.Cols[0].Str = append(b.Cols[0].Str, hosts[next%len(hosts)])
			b.Cols[1].Str = append(b.Cols[1].Str, reqs[next])
			next++
		}
		if out, err = s.PushMany(out[:0], b); err != nil {
			panic(err)
		}
	}
	for range pushes / 2 {
		push()
	}
	assert.Zero(t, allocs.Count(pushes/2-1, push), "%d pushes of %d new strings each", pushes/2-1, rows)
}

// TestReusedStringsThatChangeMidBatchAreInterned pushes the same string
// values (the same bytes, as a producer reusing its names sends them)
// three times, the third time with one of them replaced in the middle:
// every row goes to the partition of its own key.
func TestReusedStringsThatChangeMidBatchAreInterned(t *testing.T) {
	names := []*string{str("a"), str("b"), str("c"), str("d")}
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	b := hostBatch(0, names...)
	_, err = s.PushMany(nil, b)
	require.NoError(t, err)
	b.Time = []int64{ms(10), ms(11), ms(12), ms(13)}
	_, err = s.PushMany(nil, b) // the same strings at the same addresses
	require.NoError(t, err)
	b.Time = []int64{ms(20), ms(21), ms(22), ms(23)}
	b.Cols[1].Str[2] = "e"
	_, err = s.PushMany(nil, b)
	require.NoError(t, err)

	snap, err := s.Snapshot(byHost)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"a": 3, "b": 3, "c": 2, "d": 3, "e": 1}, routedKeys(snap))
}

// TestInternCacheHoldsTheIdsOfAPushThatMissedIt: a push of 1,000 hosts
// the root's intern cache does not hold (the first, then one with a host
// replaced) writes their ids in the cache itself, keeping no buffer of
// ids beside it, and every row goes to the partition of its own key.
func TestInternCacheHoldsTheIdsOfAPushThatMissedIt(t *testing.T) {
	const hosts = 1000
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	names := make([]*string, hosts)
	for h := range names {
		names[h] = str(fmt.Sprintf("host-%d", h))
	}
	for k := range 3 {
		if k == 2 {
			names[500] = str("host-new")
		}
		_, err = s.PushMany(nil, hostBatch(int64(k*hosts), names...))
		require.NoError(t, err)
	}
	assert.Zero(t, live.InternIDBuffers(s))
	snap, err := s.Snapshot(byHost)
	require.NoError(t, err)
	got := routedKeys(snap)
	assert.Equal(t, 1, got["host-new"])
	assert.Equal(t, 2, got["host-500"])
	assert.Equal(t, 3, got["host-0"])
	assert.Len(t, got, hosts+1)
}

// TestInternCacheForgetsTheIdsOfAPushThatFails: a push refused after its
// strings were interned (here, one partition too many) gives their new
// ids back; the root's intern cache, which it missed, held them, and
// forgets them: the next push of the strings the cache held before, at
// the same addresses, interns them again and routes every row to its
// own key.
func TestInternCacheForgetsTheIdsOfAPushThatFails(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxPartitions: 2})
	require.NoError(t, err)
	a, b, c := str("a"), str("b"), str("c")
	_, err = s.PushMany(nil, hostBatch(0, a, b))
	require.NoError(t, err)
	_, err = s.PushMany(nil, hostBatch(10, a, c)) // c would be a third partition
	require.Error(t, err)
	_, err = s.PushMany(nil, hostBatch(20, str("d"), str("e"))) // given c's id, given back
	require.Error(t, err)
	_, err = s.PushMany(nil, hostBatch(30, a, b))
	require.NoError(t, err)
	snap, err := s.Snapshot(byHost)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"a": 2, "b": 2}, routedKeys(snap))
}
