package live_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestNodeBytesCountsStateThatIsNotRows: the nodes whose state is not the
// rows they store — a partition's per-key rows and router, a reduce's and
// an aggregate's reducer states, a rolling's median, a view's running
// totals per partition — report memory that grows with what they keep: at
// least 8 bytes a value a median or an open bucket's median keeps, 16 a
// partition's running sum (total and compensation), and more for 2,000
// partitions than for 20.
func TestNodeBytesCountsStateThatIsNotRows(t *testing.T) {
	const rows = 2000
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 4})
	require.NoError(t, err)
	median := []reduce.Agg{{Out: "med", From: "value", Using: reduce.Median}}
	red, err := s.Reduce(s.Root(), median, trigger.Event())
	require.NoError(t, err)
	agg, err := s.Aggregate(s.Root(), sequence.Every(time.Hour), median, 0)
	require.NoError(t, err)
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Hour, Aggs: median}}, rolling.Options{})
	require.NoError(t, err)
	// The same rows in the same deque, under a max of rising values (a
	// deque of one entry): what the median adds is its own state.
	rollMax, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Hour, Aggs: []reduce.Agg{{Out: "mx", From: "value", Using: reduce.Max}}}}, rolling.Options{})
	require.NoError(t, err)
	// Aligned, the raw rows of the hour are kept for both a median and
	// the samples, which are written straight from them: what the median
	// adds is the state it is filled into at a closing.
	clock := trigger.Clock(sequence.Every(time.Hour))
	aligned, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Hour, Aggs: median}}, rolling.Options{Trigger: clock, Aligned: true})
	require.NoError(t, err)
	alignedSamples, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Hour, Aggs: []reduce.Agg{{Out: "all", From: "value", Using: reduce.Samples}}}}, rolling.Options{Trigger: clock, Aligned: true})
	require.NoError(t, err)
	cum, err := s.Cumulative(byHost, live.Running{Column: "value", Using: reduce.Sum})
	require.NoError(t, err)
	// Distinct strings over a rolling: a running unique keeps each one.
	uniq, err := s.Reduce(roll, []reduce.Agg{{Out: "u", From: "med", Using: reduce.Unique}}, trigger.Event())
	require.NoError(t, err)

	bytes := func(id live.NodeID) int {
		n, err := s.NodeBytes(id)
		require.NoError(t, err)
		return n
	}
	push := func(from, to, hosts int) {
		for i := from; i < to; i++ {
			_, err := s.PushRows(nil, r(int64(i), float64(i), "h"+strconv.Itoa(i%hosts)))
			require.NoError(t, err)
		}
	}
	push(0, 20, 20)
	few := map[live.NodeID]int{byHost: bytes(byHost), cum: bytes(cum), uniq: bytes(uniq)}
	for id, b := range few {
		assert.Positive(t, b, "node %d", id)
	}
	push(20, rows, rows)
	assert.Greater(t, bytes(byHost), few[byHost], "2,000 partitions against 20")
	assert.GreaterOrEqual(t, bytes(cum)-few[cum], 16*(rows-20), "a running sum a partition")
	assert.Greater(t, bytes(uniq), few[uniq], "a running unique keeps its distinct values")
	for name, id := range map[string]live.NodeID{"reduce": red, "aggregate": agg} {
		assert.GreaterOrEqual(t, bytes(id), 8*rows, "%s: a median keeps every value", name)
	}
	assert.GreaterOrEqual(t, bytes(roll)-bytes(rollMax), 8*rows, "a rolling's median keeps every value beside its rows")
	// An aligned median is filled from the raw rows at each closing and
	// keeps its room: an hour's boundary closes with every row in it.
	_, err = s.PushRows(nil, r(int64(time.Hour/time.Millisecond)+1, 0, "h0"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, bytes(aligned)-bytes(alignedSamples), 8*rows, "an aligned median's state beside its raw rows")
}

// TestAlignedNodeBytesCountsTheHugeValuesMarks: an aligned window that
// has held values from 2^960 up keeps the marks of the panes summed in
// units of 2^128 and its partition's lane of them; NodeBytes counts them
// (the same rows with ordinary values hold fewer bytes).
func TestAlignedNodeBytesCountsTheHugeValuesMarks(t *testing.T) {
	held := func(x float64) int {
		s := newSeries(t, live.Options{})
		byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}},
			rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond)), Aligned: true})
		require.NoError(t, err)
		for i := range 15 {
			_, err := s.PushRows(nil, r(int64(50+100*i), x, "h"))
			require.NoError(t, err)
		}
		n, err := s.NodeBytes(roll)
		require.NoError(t, err)
		return n
	}
	assert.Greater(t, held(1.7e308), held(1.5), "the marks and the lane")
}
