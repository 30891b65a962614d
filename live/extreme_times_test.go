package live_test

import (
	"errors"
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

func at(ns int64, x float64) schema.Row {
	return schema.Row{schema.NanosValue(ns), schema.NumberValue(x), schema.StringValue("a")}
}

// Times more than 2^62 − 1 ns from the epoch (before 1823, after 2116)
// are rejected as a validation error naming the row: inside that range a
// time minus any accepted duration cannot overflow.
func TestTimesOutsideTheRangeAreRejected(t *testing.T) {
	for _, ns := range []int64{math.MinInt64, math.MaxInt64, schema.MinTime - 1, schema.MaxTime + 1} {
		s := newSeries(t, live.Options{MaxAge: time.Second})
		_, err := s.PushRows(nil, at(0, 1), at(ns, 2))
		require.ErrorIs(t, err, schema.ErrValidation, "time %d", ns)
		var re *schema.RowError
		require.True(t, errors.As(err, &re))
		assert.Equal(t, schema.TimeRange, re.Reason)
		assert.Equal(t, 1, re.Row)
		assert.Zero(t, s.Len())
	}
	_, err := live.New("m", metricsSchema, live.Options{MaxAge: sequence.MaxDuration + 1})
	assert.ErrorIs(t, err, live.ErrConfig, "durations are bounded too")
}

// At the edges of the range, with the longest durations, the arithmetic
// of retention, grace, windows and partition retention stays exact.
func TestTimeArithmeticAtTheEdges(t *testing.T) {
	long := sequence.MaxDuration
	t.Run("MaxAge retention keeps a row at the minimum time", func(t *testing.T) {
		s := newSeries(t, live.Options{MaxAge: long})
		_, err := s.PushRows(nil, at(schema.MinTime, 1), at(schema.MinTime+1, 2))
		require.NoError(t, err)
		assert.Equal(t, 2, s.Len())
		_, err = s.PushRows(nil, at(schema.MaxTime, 3))
		require.NoError(t, err)
		assert.Equal(t, 1, s.Len(), "the oldest rows are more than 2^62 ns older than the latest")
	})
	t.Run("grace compares the whole distance", func(t *testing.T) {
		s := newSeries(t, live.Options{Ordering: live.Reorder, Grace: time.Second})
		_, err := s.PushRows(nil, at(schema.MaxTime, 1))
		require.NoError(t, err)
		_, err = s.PushRows(nil, at(schema.MinTime, 2))
		assert.ErrorIs(t, err, live.ErrLate)
		_, err = s.PushRows(nil, at(schema.MaxTime-int64(time.Second), 2))
		assert.NoError(t, err, "exactly the grace late")
	})
	t.Run("a long time window at the minimum time keeps every row", func(t *testing.T) {
		s := newSeries(t, live.Options{})
		id, err := s.Rolling(s.Root(), []rolling.Window{{Span: long, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
		require.NoError(t, err)
		require.NoError(t, s.Watch(id))
		out, err := s.PushRows(nil, at(schema.MinTime, 1), at(schema.MinTime+1, 2), at(0, 4))
		require.NoError(t, err)
		require.Len(t, out, 1)
		sums, _ := out[0].Events.Numbers("sum")
		assert.Equal(t, []float64{1, 3, 7}, sums)
	})
	t.Run("partition MaxAge at the minimum time", func(t *testing.T) {
		s := newSeries(t, live.Options{})
		p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxAge: time.Second})
		require.NoError(t, err)
		_, err = s.PushRows(nil, at(schema.MinTime, 1), at(schema.MinTime+1, 2))
		require.NoError(t, err)
		snap, err := s.Snapshot(p)
		require.NoError(t, err)
		assert.Equal(t, 2, snap.Len())
	})
}

// An aligned clock's boundaries are anchor + k·step for every k, wherever
// the anchor is: one anchored at the end of the range, or a lateness as
// long as the range, closes the boundaries near the other end as the same
// grid anchored at the epoch would.
func TestAlignedBoundariesAcrossTheRange(t *testing.T) {
	const step = 1 << 61
	sumOver := func(span int64) []rolling.Window {
		return []rolling.Window{{Span: time.Duration(span), Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}
	}
	cases := []struct {
		name   string
		opts   live.Options
		anchor int64
		span   int64
		rows   []schema.Row
		times  []int64
		sums   []float64
	}{{
		name:   "an anchor at the maximum time closes boundaries near the minimum",
		anchor: schema.MaxTime,
		span:   2 * step,
		rows:   []schema.Row{at(schema.MinTime, 1), at(-step, 2), at(0, 4), at(schema.MaxTime, 8)},
		times:  []int64{-step - 1, -1, step - 1, schema.MaxTime},
		sums:   []float64{1, 3, 6, 4},
	}, {
		name:   "a grace as long as the range closes what the watermark passed",
		opts:   live.Options{Ordering: live.Reorder, Grace: sequence.MaxDuration},
		anchor: -1,
		span:   step,
		rows:   []schema.Row{at(schema.MinTime, 1), at(schema.MaxTime, 2)},
		times:  []int64{-step - 1},
		sums:   []float64{1},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, c.opts)
			seq := sequence.Every(step).WithAnchorNanos(c.anchor)
			id, err := s.Rolling(s.Root(), sumOver(c.span), rolling.Options{Trigger: trigger.Clock(seq), Aligned: true})
			require.NoError(t, err)
			require.NoError(t, s.Watch(id))
			var times []int64
			var sums []float64
			for _, row := range c.rows {
				out, err := s.PushRows(nil, row)
				require.NoError(t, err)
				for _, o := range out {
					for i := range o.Events.Len() {
						times = append(times, o.Events.TimeNanos(i))
					}
					got, _ := o.Events.Numbers("sum")
					sums = append(sums, got...)
				}
			}
			assert.Equal(t, c.times, times)
			assert.Equal(t, c.sums, sums)
		})
	}
}

// The longest grace and the longest step fit in a few panes: an aligned
// rolling builds on them, and its ring holds the rows a boundary needs.
func TestAlignedLongestGraceAndStep(t *testing.T) {
	s := newSeries(t, live.Options{Ordering: live.Reorder, Grace: sequence.MaxDuration})
	seq := sequence.Every(sequence.MaxDuration).WithAnchorNanos(-1)
	id, err := s.Rolling(s.Root(), []rolling.Window{{Span: sequence.MaxDuration / 2, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}},
		rolling.Options{Trigger: trigger.Clock(seq), Aligned: true})
	require.NoError(t, err)
	require.NoError(t, s.Watch(id))
	_, err = s.PushRows(nil, at(schema.MinTime, 1), at(-5, 2))
	require.NoError(t, err)
	out, err := s.PushRows(nil, at(schema.MaxTime, 4))
	require.NoError(t, err)
	require.Len(t, out, 1, "the watermark, latest − grace, reaches the boundary at −1 ns")
	assert.Equal(t, []int64{-1}, []int64{out[0].Events.TimeNanos(0)})
	sums, _ := out[0].Events.Numbers("sum")
	assert.Equal(t, []float64{2}, sums, "the window [−1 − 2^61, −1) holds the row at −5 ns")
}
