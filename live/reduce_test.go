package live_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// pushAll pushes each batch of rows and returns the node's emissions, one
// table per push (nil when it emitted nothing).
func pushAll(t *testing.T, s *live.Series, node live.NodeID, pushes ...[]schema.Row) []*schema.Table {
	t.Helper()
	require.NoError(t, s.Watch(node))
	var got []*schema.Table
	var out []live.Output
	var err error
	for i, rows := range pushes {
		out, err = s.PushRows(out[:0], rows...)
		require.NoError(t, err, "push %d", i)
		var tab *schema.Table
		for _, o := range out {
			if o.Node == node && o.Kind == live.Event {
				tab = o.Events.Clone()
			}
		}
		got = append(got, tab)
	}
	return got
}

func rows(rs ...schema.Row) []schema.Row { return rs }

// TestReduce pins pond-ts's reference case 23, with pond-go's once-per-push rule
// (docs/differences.md §12) in place of pond-ts's microtask.
func TestReduce(t *testing.T) {
	sum := []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}
	t.Run("once per push, keyed at its last row", func(t *testing.T) {
		s := newSeries(t, live.Options{})
		n, err := s.Reduce(s.Root(), sum, trigger.Event())
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(0, 1, "")), rows(r(1000, 2, "")), rows(r(2000, 3, "")))
		assert.Equal(t, []int64{2000}, times(got[2]))
		assert.Equal(t, []any{6.0}, cells(t, got[2], "sum"))
	})
	t.Run("after retention", func(t *testing.T) {
		s := newSeries(t, live.Options{MaxEvents: 2})
		n, err := s.Reduce(s.Root(), []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}, trigger.Event())
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(0, 1, "")), rows(r(1000, 2, "")), rows(r(2000, 3, "")))
		assert.Equal(t, []any{2.0}, cells(t, got[2], "n"))
		got = pushAll(t, s, n, rows(r(3000, 4, ""), r(4000, 5, ""), r(5000, 6, "")))
		assert.Equal(t, []int64{5000}, times(got[0]))
		assert.Equal(t, []any{2.0}, cells(t, got[0], "n"))
	})
	t.Run("count trigger emits the same row per n counted", func(t *testing.T) {
		s := newSeries(t, live.Options{})
		n, err := s.Reduce(s.Root(), sum, trigger.Count(2))
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(0, 1, ""), r(1, 2, ""), r(2, 3, ""), r(3, 4, ""), r(4, 5, "")), rows(r(5, 6, "")))
		assert.Equal(t, []any{15.0, 15.0}, cells(t, got[0], "sum"))
		assert.Equal(t, []int64{4, 4}, times(got[0]))
		assert.Equal(t, []any{21.0}, cells(t, got[1], "sum"), "the fifth and sixth rows make the third emission")
	})
	t.Run("clock trigger sees the push's last row", func(t *testing.T) {
		s := newSeries(t, live.Options{})
		n, err := s.Reduce(s.Root(), sum, trigger.Clock(sequence.Every(time.Second)))
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(0, 1, "")), rows(r(1500, 2, ""), r(2500, 3, ""), r(3500, 4, "")))
		assert.Nil(t, got[0])
		assert.Equal(t, []int64{3000}, times(got[1]), "crossings within one push collapse")
		assert.Equal(t, []any{10.0}, cells(t, got[1], "sum"))
	})
	t.Run("reorder with retention", func(t *testing.T) {
		s := newSeries(t, live.Options{Ordering: live.Reorder, MaxEvents: 3})
		n, err := s.Reduce(s.Root(), []reduce.Agg{
			{Out: "avg", From: "value", Using: reduce.Avg},
			{Out: "sd", From: "value", Using: reduce.Stdev},
		}, trigger.Event())
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(4000, 50, "")), rows(r(3000, 60, "")), rows(r(2000, 70, "")), rows(r(1000, 10, "")))
		assert.Equal(t, []int64{1000}, times(got[3]), "keyed at the last row, although it was evicted")
		avg, _ := got[3].Numbers("avg")
		sd, _ := got[3].Numbers("sd")
		assert.InDelta(t, 60, avg[0], 1e-12)
		assert.InDelta(t, math.Sqrt(200.0/3), sd[0], 1e-12)
	})
	t.Run("min and max under reorder with retention (as in pond-ts)", func(t *testing.T) {
		s := newSeries(t, live.Options{Ordering: live.Reorder, MaxEvents: 2})
		n, err := s.Reduce(s.Root(), []reduce.Agg{
			{Out: "min", From: "value", Using: reduce.Min},
			{Out: "first", From: "value", Using: reduce.First},
			{Out: "s", From: "value", Using: reduce.Samples},
		}, trigger.Event())
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(3000, 30, "")), rows(r(2000, 20, "")), rows(r(1000, 10, "")))
		assert.Equal(t, []any{20.0}, cells(t, got[2], "min"), "pond-ts gives undefined")
		assert.Equal(t, []any{30.0}, cells(t, got[2], "first"), "the earliest arrived of those held")
		assert.Equal(t, "[30, 20]", got[2].Value(0, 3).String())
	})
	t.Run("replays what the series holds", func(t *testing.T) {
		s := newSeries(t, live.Options{MaxEvents: 3})
		_, err := s.PushRows(nil, r(0, 50, ""), r(1000, 40, ""), r(2000, 30, ""))
		require.NoError(t, err)
		n, err := s.Reduce(s.Root(), []reduce.Agg{{Out: "min", From: "value", Using: reduce.Min}}, trigger.Event())
		require.NoError(t, err)
		var pushes [][]schema.Row
		for i, x := range []float64{20, 10, 5, 100, 1} {
			pushes = append(pushes, rows(r(int64(3000+1000*i), x, "")))
		}
		var mins []any
		for _, tab := range pushAll(t, s, n, pushes...) {
			mins = append(mins, cells(t, tab, "min")...)
		}
		assert.Equal(t, []any{20.0, 10.0, 5.0, 5.0, 1.0}, mins)
	})
	t.Run("over a rolling, every row", func(t *testing.T) {
		s := newSeries(t, live.Options{MaxEvents: 1})
		roll, err := s.Rolling(s.Root(), []rolling.Window{{Count: 1, Aggs: []reduce.Agg{{Out: "x", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
		require.NoError(t, err)
		n, err := s.Reduce(roll, []reduce.Agg{{Out: "sum", From: "x", Using: reduce.Sum}}, trigger.Event())
		require.NoError(t, err)
		got := pushAll(t, s, n, rows(r(0, 1, ""), r(1, 2, "")), rows(r(2, 3, "")))
		assert.Equal(t, []any{6.0}, cells(t, got[1], "sum"))
	})
	t.Run("nodes built on a reduce take its rows in the same push", func(t *testing.T) {
		s := newSeries(t, live.Options{})
		n, err := s.Reduce(s.Root(), sum, trigger.Event())
		require.NoError(t, err)
		d, err := s.Diff(n, "sum")
		require.NoError(t, err)
		got := pushAll(t, s, d, rows(r(0, 1, "")), rows(r(1, 2, ""), r(2, 3, "")))
		assert.Equal(t, []any{nil}, cells(t, got[0], "sum"))
		assert.Equal(t, []any{5.0}, cells(t, got[1], "sum"))
	})
}

func TestReduceConfigErrors(t *testing.T) {
	s := newSeries(t, live.Options{})
	cases := []struct {
		name string
		aggs []reduce.Agg
		trig trigger.Trigger
	}{
		{"no aggregation", nil, trigger.Event()},
		{"unknown column", []reduce.Agg{{Out: "x", From: "nope", Using: reduce.Sum}}, trigger.Event()},
		{"time column", []reduce.Agg{{Out: "x", From: "time", Using: reduce.Count}}, trigger.Event()},
		{"sum of strings", []reduce.Agg{{Out: "x", From: "host", Using: reduce.Sum}}, trigger.Event()},
		{"duplicate output", []reduce.Agg{{Out: "x", From: "value", Using: reduce.Sum}, {Out: "x", From: "value", Using: reduce.Max}}, trigger.Event()},
		{"output named time", []reduce.Agg{{Out: "time", From: "value", Using: reduce.Sum}}, trigger.Event()},
		{"zero reducer", []reduce.Agg{{Out: "x", From: "value"}}, trigger.Event()},
		{"count of zero", []reduce.Agg{{Out: "x", From: "value", Using: reduce.Sum}}, trigger.Count(0)},
		{"clock of zero", []reduce.Agg{{Out: "x", From: "value", Using: reduce.Sum}}, trigger.Clock(sequence.Every(0))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Reduce(s.Root(), c.aggs, c.trig)
			assert.ErrorIs(t, err, live.ErrConfig)
		})
	}
}

// A reducer that is invalid whatever it reads (p101, top0, the zero
// Reducer) is reported as such by Reduce and Aggregate, not as one that
// does not fit its column.
func TestReduceAndAggregateReportAnInvalidReducer(t *testing.T) {
	build := map[string]func(*live.Series, []reduce.Agg) error{
		"reduce": func(s *live.Series, aggs []reduce.Agg) error {
			_, err := s.Reduce(s.Root(), aggs, trigger.Event())
			return err
		},
		"aggregate": func(s *live.Series, aggs []reduce.Agg) error {
			_, err := s.Aggregate(s.Root(), sequence.Every(time.Second), aggs, 0)
			return err
		},
	}
	for op, f := range build {
		for _, r := range []reduce.Reducer{reduce.Percentile(101), reduce.Top(0), {}} {
			t.Run(op+" "+r.String(), func(t *testing.T) {
				err := f(newSeries(t, live.Options{}), []reduce.Agg{{Out: "x", From: "value", Using: r}})
				require.ErrorIs(t, err, reduce.ErrReducer)
				var ce *live.ConfigError
				require.True(t, errors.As(err, &ce))
				assert.Equal(t, op, ce.Op)
				assert.Equal(t, "x", ce.Field)
				assert.Equal(t, "bad reducer", ce.Reason)
			})
		}
	}
}

// BenchmarkReduceMedian pushes 10,000 rows at a time into a series holding
// a fixed number of rows (MaxEvents), reduced by median and p99: the cost
// per row added (and, once full, per row evicted) must not grow with what
// the series holds.
func BenchmarkReduceMedian(b *testing.B) {
	const push = 10_000
	for _, held := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			sch := schema.MustNew(
				schema.Column{Name: "time", Kind: schema.Time},
				schema.Column{Name: "x", Kind: schema.Number},
			)
			s, err := live.New("m", sch, live.Options{MaxEvents: held})
			require.NoError(b, err)
			red, err := s.Reduce(s.Root(), []reduce.Agg{
				{Out: "median", From: "x", Using: reduce.Median},
				{Out: "p99", From: "x", Using: reduce.Percentile(99)},
			}, trigger.Event())
			require.NoError(b, err)
			require.NoError(b, s.Watch(red))
			batch := schema.NewBatch(sch, push)
			t0 := int64(0)
			fill := func() {
				batch.Reset()
				for i := range push {
					t0 += int64(time.Millisecond)
					batch.Time = append(batch.Time, t0)
					// A spread of values, so the sorted state sees inserts
					// everywhere, not only at its ends.
					batch.Cols[0].Num = append(batch.Cols[0].Num, float64((i*7919)%10007))
				}
			}
			var out []live.Output
			for s.Len() < held {
				fill()
				out, err = s.PushMany(out[:0], batch)
				require.NoError(b, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				fill()
				b.StartTimer()
				if out, err = s.PushMany(out[:0], batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*push), "ns/row")
		})
	}
}

// TestMomentsBeyondFloatRange pins what reduce/doc.go says of avg and
// stdev over values whose sums leave the float64 range: the avg is the
// mean (huge values are summed apart), the stdev missing while a value
// whose square is beyond what the sums keep is held.
func TestMomentsBeyondFloatRange(t *testing.T) {
	aggs := []reduce.Agg{{Out: "avg", From: "value", Using: reduce.Avg}, {Out: "sd", From: "value", Using: reduce.Stdev}}
	s := newSeries(t, live.Options{})
	n, err := s.Reduce(s.Root(), aggs, trigger.Event())
	require.NoError(t, err)
	got := pushAll(t, s, n, rows(r(0, 1e200, "")), rows(r(1, 1e308, ""), r(2, 1e308, "")))
	assert.Equal(t, []any{1e200}, cells(t, got[0], "avg"))
	assert.Equal(t, []any{nil}, cells(t, got[0], "sd"), "Σx² of 1e200 overflows")
	assert.Equal(t, []any{(1e200 + 2e308) / 3}, cells(t, got[1], "avg"), "Σx is beyond the range, the mean is not")
	assert.Equal(t, []any{nil}, cells(t, got[1], "sd"))
}

// TestSpreadBeyondFloatRangeGivesNoInfinity pins results over two finite
// values whose difference is beyond the float64 range: a difference that
// is not finite is missing, as every non-finite result is, and a
// percentile between them is interpolated without overflowing.
func TestSpreadBeyondFloatRangeGivesNoInfinity(t *testing.T) {
	aggs := []reduce.Agg{
		{Out: "diff", From: "value", Using: reduce.Difference},
		{Out: "p50", From: "value", Using: reduce.Median},
		{Out: "p25", From: "value", Using: reduce.Percentile(25)},
	}
	hi := math.Ldexp(1, 1023) // hi − (−hi) is 2^1024, beyond MaxFloat64
	lo := -hi
	cases := []struct {
		name  string
		opts  live.Options
		build func(s *live.Series) (live.NodeID, error)
	}{
		{"rolling over a count", live.Options{}, func(s *live.Series) (live.NodeID, error) {
			return s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: aggs}}, rolling.Options{Trigger: trigger.Count(2)})
		}},
		{"rolling over a time", live.Options{}, func(s *live.Series) (live.NodeID, error) {
			return s.Rolling(s.Root(), []rolling.Window{{Span: time.Minute, Aggs: aggs}}, rolling.Options{Trigger: trigger.Count(2)})
		}},
		{"rolling under reorder", live.Options{Ordering: live.Reorder}, func(s *live.Series) (live.NodeID, error) {
			return s.Rolling(s.Root(), []rolling.Window{{Span: time.Minute, Aggs: aggs}}, rolling.Options{Trigger: trigger.Count(2)})
		}},
		{"aligned rolling", live.Options{}, func(s *live.Series) (live.NodeID, error) {
			return s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: aggs}},
				rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second)), Aligned: true})
		}},
		{"reduce", live.Options{MaxAge: time.Hour}, func(s *live.Series) (live.NodeID, error) {
			return s.Reduce(s.Root(), aggs, trigger.Event())
		}},
		{"reduce under reorder", live.Options{Ordering: live.Reorder, MaxAge: time.Hour}, func(s *live.Series) (live.NodeID, error) {
			return s.Reduce(s.Root(), aggs, trigger.Event())
		}},
		{"aggregate", live.Options{}, func(s *live.Series) (live.NodeID, error) {
			return s.Aggregate(s.Root(), sequence.Every(time.Second), aggs, 0)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, c.opts)
			n, err := c.build(s)
			require.NoError(t, err)
			// The later push closes the buckets of an aggregate and an
			// aligned rolling; the others emit in the first.
			got := pushAll(t, s, n, rows(r(0, lo, "a"), r(1, hi, "a")), rows(r(1000, 0, "a")))
			if got[0] == nil {
				got[0] = got[1]
			}
			require.NotNil(t, got[0])
			assert.Equal(t, []any{nil}, cells(t, got[0], "diff")[:1])
			assert.Equal(t, []any{0.0}, cells(t, got[0], "p50")[:1])
			assert.Equal(t, []any{lo / 2}, cells(t, got[0], "p25")[:1])
		})
	}
}
