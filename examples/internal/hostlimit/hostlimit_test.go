package hostlimit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/examples/internal/seed"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// batch builds a batch of the seed schema of (time in ms, host) rows.
func batch(rows ...any) *schema.Batch {
	b := schema.NewBatch(seed.Schema, len(rows)/2)
	for i := 0; i < len(rows); i += 2 {
		b.Time = append(b.Time, int64(rows[i].(int))*int64(time.Millisecond))
		b.Cols[0].Num = append(b.Cols[0].Num, 0.5)
		b.Cols[1].Num = append(b.Cols[1].Num, 1)
		b.Cols[2].Str = append(b.Cols[2].Str, rows[i+1].(string))
	}
	return b
}

func hostsOf(t *testing.T, s *live.Series, byHost live.NodeID) []string {
	t.Helper()
	parts, err := s.Partitions(byHost)
	require.NoError(t, err)
	var hs []string
	for _, p := range parts {
		h, _ := p.Key.Str()
		hs = append(hs, h)
	}
	return hs
}

// TestALateRowOfANewHostTakesNoPlaceUnderDrop: under Drop ordering a row
// older than the latest never reaches the partitioning, so its host takes
// no place there: with room for one new host, the new host whose rows the
// series takes gets it, and the late row is refused with the other host
// past the bound. (The late row's host took the place, and every row of
// the new host that would have fitted was refused.)
func TestALateRowOfANewHostTakesNoPlaceUnderDrop(t *testing.T) {
	s, err := live.New("metrics", seed.Schema, live.Options{Ordering: live.Drop})
	require.NoError(t, err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: time.Minute, MaxPartitions: 3})
	require.NoError(t, err)
	_, refused, err := Push(s, byHost, 3, time.Minute, live.Drop, nil, batch(100, "a", 100, "b"))
	require.NoError(t, err)
	require.Zero(t, refused)

	_, refused, err = Push(s, byHost, 3, time.Minute, live.Drop, nil, batch(50, "late", 200, "new", 200, "other", 201, "new"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a", "b", "new"}, hostsOf(t, s, byHost), "the hosts tracked")
	assert.EqualValues(t, 2, refused, "the rows of the hosts past the bound")
	assert.EqualValues(t, 4, s.Stats().Ingested, "a and b, then new's two rows")
}

// TestAKnownHostWhoseRowsAreAllLateLeavesItsPlaceUnderDrop: under Drop
// ordering a known host whose only rows in a push are older than the
// series' latest time gets none of them routed, so once it has been quiet
// for longer than idle at the push's latest time the push removes it, and
// its place goes to a new host: m, whose row is the batch's latest. (Counted
// as taking a place, the late host cost every new host its rows.)
func TestAKnownHostWhoseRowsAreAllLateLeavesItsPlaceUnderDrop(t *testing.T) {
	s, err := live.New("t", seed.Schema, live.Options{Ordering: live.Drop})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 10 * time.Second, MaxPartitions: 2})
	require.NoError(t, err)
	_, refused, err := Push(s, by, 2, 10*time.Second, live.Drop, nil, batch(95_000, "k", 100_000, "a"))
	require.NoError(t, err)
	require.Zero(t, refused)

	// At 121s k (last 95s) has been quiet for more than 10s and its row
	// is dropped: m takes its place, n finds none.
	_, refused, err = Push(s, by, 2, 10*time.Second, live.Drop, nil, batch(50_000, "k", 120_000, "a", 120_000, "n", 121_000, "m"))
	require.NoError(t, err)
	assert.EqualValues(t, 1, refused, "n")
	assert.ElementsMatch(t, []string{"a", "m"}, hostsOf(t, s, by))
	st := s.Stats()
	assert.EqualValues(t, 2+2, st.Ingested, "k and a, then a and m")
	assert.EqualValues(t, 1, st.Rejected, "k's late row, dropped by the series")
}

// TestPushCountsTheRoomAtTheLatestRowItKeeps: the series counts the room
// at the latest time of the rows a push keeps, which is earlier than the
// batch's when the batch's latest row is a new host's and that host is
// refused. Here a and b have been quiet for more than 10s at 27s, the
// batch's latest time, but not at 18s or 19s: e, whose row is at 27s, is
// taken first and frees both places, c takes the second, and d finds
// none, under every ordering. (Given two places at 27s, c and d were
// refused at 19s, and every new host with them.)
func TestPushCountsTheRoomAtTheLatestRowItKeeps(t *testing.T) {
	for _, ord := range []live.Ordering{live.Strict, live.Drop, live.Reorder} {
		t.Run(ord.String(), func(t *testing.T) {
			s, err := live.New("t", seed.Schema, live.Options{Ordering: ord})
			require.NoError(t, err)
			by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 10 * time.Second, MaxPartitions: 2})
			require.NoError(t, err)
			_, refused, err := Push(s, by, 2, 10*time.Second, ord, nil, batch(10_000, "b", 15_000, "a"))
			require.NoError(t, err)
			require.Zero(t, refused)

			_, refused, err = Push(s, by, 2, 10*time.Second, ord, nil, batch(18_000, "c", 19_000, "d", 27_000, "e"))
			require.NoError(t, err)
			assert.EqualValues(t, 1, refused, "d")
			assert.ElementsMatch(t, []string{"c", "e"}, hostsOf(t, s, by))
			assert.EqualValues(t, 2+2, s.Stats().Ingested, "b and a, then c and e")
		})
	}
}

// TestQuietHostsMakeNoRoomWithoutAnIdleTimeToLive: with IdleTTL 0 the
// series removes no host for being quiet, so a host older than the push
// frees no place, and Push keeps the new hosts that fit the places left.
func TestQuietHostsMakeNoRoomWithoutAnIdleTimeToLive(t *testing.T) {
	s, err := live.New("t", seed.Schema, live.Options{})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, MaxPartitions: 3})
	require.NoError(t, err)
	_, refused, err := Push(s, by, 3, 0, live.Strict, nil, batch(1_000, "a", 2_000, "b"))
	require.NoError(t, err)
	require.Zero(t, refused)

	_, refused, err = Push(s, by, 3, 0, live.Strict, nil, batch(60_000, "c", 61_000, "d", 62_000, "a"))
	require.NoError(t, err)
	assert.EqualValues(t, 1, refused, "d")
	assert.ElementsMatch(t, []string{"a", "b", "c"}, hostsOf(t, s, by))
}

// bounded is a series partitioned by host under a bound of limit hosts,
// forgetting a host after idle.
func bounded(t *testing.T, limit int, idle time.Duration) (*live.Series, live.NodeID) {
	t.Helper()
	s, err := live.New("t", seed.Schema, live.Options{MaxAge: time.Second})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: idle, MaxPartitions: limit})
	require.NoError(t, err)
	return s, by
}

// batchAt makes rows of the given hosts at second sec, in order.
func batchAt(sec int, hosts ...string) *schema.Batch {
	var rows []any
	for _, h := range hosts {
		rows = append(rows, sec*1000, h)
	}
	return batch(rows...)
}

// TestPushKeepsKnownHostsAndAdmitsNewOnesInOrder: a push with more new
// hosts than there is room for keeps every row of the hosts tracked and of
// the first new hosts that fit, in the order they come, and counts the
// rest; a push within the bound goes through whole.
func TestPushKeepsKnownHostsAndAdmitsNewOnesInOrder(t *testing.T) {
	s, by := bounded(t, 3, time.Minute)
	_, refused, err := Push(s, by, 3, time.Minute, live.Strict, nil, batchAt(0, "a"))
	require.NoError(t, err)
	assert.Zero(t, refused)

	_, refused, err = Push(s, by, 3, time.Minute, live.Strict, nil, batchAt(1, "x", "a", "y", "z", "x", "w", "a"))
	require.NoError(t, err)
	assert.EqualValues(t, 2, refused, "z and w, once each")
	assert.Equal(t, []string{"a", "x", "y"}, hostsOf(t, s, by))
	assert.Equal(t, 1+5, s.Len(), "a's first row, then a twice, x twice and y")
}

// TestPushCountsQuietHostsAsRoom: hosts quiet for longer than idle at the
// push's latest time leave their places to the push's new hosts, which
// were refused for good while such places were counted as taken.
func TestPushCountsQuietHostsAsRoom(t *testing.T) {
	s, by := bounded(t, 2, 10*time.Second)
	_, _, err := Push(s, by, 2, 10*time.Second, live.Strict, nil, batchAt(0, "a", "b"))
	require.NoError(t, err)
	_, refused, err := Push(s, by, 2, 10*time.Second, live.Strict, nil, batchAt(30, "c", "d", "e"))
	require.NoError(t, err)
	assert.EqualValues(t, 1, refused, "e")
	assert.Equal(t, []string{"c", "d"}, hostsOf(t, s, by))
}

// TestPushPassesOtherErrorsOn: an error other than the bound's is
// returned as it is, with nothing counted as refused and nothing taken.
func TestPushPassesOtherErrorsOn(t *testing.T) {
	s, by := bounded(t, 1, time.Minute)
	_, _, err := Push(s, by, 1, time.Minute, live.Strict, nil, batchAt(5, "a"))
	require.NoError(t, err)
	_, refused, err := Push(s, by, 1, time.Minute, live.Strict, nil, batchAt(1, "a", "b"))
	require.Error(t, err, "strict ordering refuses a row older than the latest")
	assert.NotErrorIs(t, err, partition.ErrLimit)
	assert.Zero(t, refused)
	assert.Equal(t, []string{"a"}, hostsOf(t, s, by))
}

func TestFilterKeepsTheRowsAskedFor(t *testing.T) {
	b := batchAt(2, "a", "b", "c", "d")
	b.Cols[0].Num[2] = 7
	dst := Filter(nil, b, func(i int) bool { return i%2 == 0 })
	assert.Equal(t, []string{"a", "c"}, dst.Cols[2].Str)
	assert.Equal(t, []float64{0.5, 7}, dst.Cols[0].Num)
	assert.Equal(t, []int64{2e9, 2e9}, dst.Time)
	again := Filter(dst, b, func(i int) bool { return i == 3 })
	assert.Same(t, dst, again, "dst reused")
	assert.Equal(t, []string{"d"}, again.Cols[2].Str)
}
