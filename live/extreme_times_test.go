package live_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
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

// The hourly bucket of a row at schema.MinTime starts before it
// (1823-11-12T00:00:00Z), and an aggregate keys that bucket at MinTime, so
// that nothing downstream measures back from a time below the range: a
// window or a rolling's history that keeps the longest span holds the
// bucket (measured back from its start, the cut wrapped around to the far
// future and dropped it).
func TestNodesOverABucketBeforeTheRangeKeepIt(t *testing.T) {
	long := sequence.MaxDuration
	s := newSeries(t, live.Options{})
	agg, err := s.Aggregate(s.Root(), sequence.Every(time.Hour), sumAgg, 0)
	require.NoError(t, err)
	win, err := s.Window(agg, long)
	require.NoError(t, err)
	roll, err := s.Rolling(agg, []rolling.Window{{Span: time.Hour, Aggs: []reduce.Agg{{Out: "sum", From: "sum", Using: reduce.Sum}}}},
		rolling.Options{History: rolling.History{MaxAge: long}})
	require.NoError(t, err)
	require.NoError(t, s.Watch(agg))
	out, err := s.PushRows(nil, at(schema.MinTime, 1), at(schema.MinTime+int64(time.Hour), 2))
	require.NoError(t, err)
	closed, ok := live.Find(out, agg, live.Event)
	require.True(t, ok)
	require.Equal(t, 1, closed.Len())
	require.Equal(t, []int64{schema.MinTime}, closed.Times(), "the first bucket is keyed at MinTime")

	for _, node := range []struct {
		name string
		id   live.NodeID
	}{{"window", win}, {"rolling's history", roll}} {
		snap, err := s.Snapshot(node.id)
		require.NoError(t, err)
		assert.Equal(t, closed.Times(), snap.Times(), node.name)
	}
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

// edgeCase is a random aligned rolling whose clock, grace and rows reach
// the ends of the range: long steps, anchors anywhere in it, times at and
// near its bounds.
type edgeCase struct {
	step, span, anchor, grace int64
	times                     []int64 // accepted, in arrival order; row i has value i+1, host a or b by parity
}

func newEdgeCase(rng *rand.Rand) edgeCase {
	steps := []int64{1 << 60, 3 << 59, 1 << 61, 3 << 60, 1<<61 + 1, 1<<62 - 1, 1 << 62}
	c := edgeCase{step: steps[rng.IntN(len(steps))]}
	c.span = c.step
	if rng.IntN(2) == 0 && c.step <= 1<<61 {
		c.span = 2 * c.step
	}
	anywhere := func(ends ...int64) int64 {
		if rng.IntN(3) == 0 {
			return ends[rng.IntN(len(ends))]
		}
		return rng.Int64N(2*schema.MaxTime+1) - schema.MaxTime
	}
	c.anchor = anywhere(schema.MinTime, schema.MaxTime, -1, 1)
	if rng.IntN(3) == 0 {
		c.grace = 1 + rng.Int64N(int64(sequence.MaxDuration))
	}
	var times []int64
	for range 2 + rng.IntN(8) {
		times = append(times, anywhere(schema.MinTime, schema.MinTime+1, -1, 0, schema.MaxTime-1, schema.MaxTime))
	}
	slices.Sort(times)
	if c.grace > 0 && rng.IntN(2) == 0 {
		rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
	}
	for i, t := range times { // the rows a reorder series accepts
		if i == 0 || new(big.Int).Sub(big.NewInt(slices.Max(times[:i])), big.NewInt(t)).Cmp(big.NewInt(c.grace)) <= 0 {
			c.times = append(c.times, t)
		}
	}
	return c
}

// brute gives, in exact arithmetic, every row the rolling must emit:
// "<boundary> <host> <sum> <count>" for each boundary the watermark
// passed and each host whose rows meet [b − span, b).
func (c edgeCase) brute() []string {
	wm := new(big.Int).Sub(big.NewInt(slices.Max(c.times)), big.NewInt(c.grace))
	step := big.NewInt(c.step)
	k := new(big.Int).Div(new(big.Int).Sub(big.NewInt(schema.MinTime), big.NewInt(c.anchor)), step) // Euclidean: a floor
	var rows []string
	for b := new(big.Int).Add(big.NewInt(c.anchor), k.Mul(k, step)); b.Cmp(wm) <= 0; b.Add(b, step) {
		lo := new(big.Int).Sub(b, big.NewInt(c.span))
		for _, h := range []string{"a", "b"} {
			sum, n := 0.0, 0
			for i, t := range c.times {
				if bt := big.NewInt(t); []string{"a", "b"}[i%2] == h && bt.Cmp(lo) >= 0 && bt.Cmp(b) < 0 {
					sum += float64(i + 1)
					n++
				}
			}
			if n > 0 {
				rows = append(rows, fmt.Sprint(b.Int64(), " ", h, " ", sum, " ", n))
			}
		}
	}
	return rows
}

// At the ends of the range, under the longest steps and graces and with
// anchors anywhere, an aligned rolling emits exactly the rows exact
// arithmetic gives (its samples here, which every path keeps).
func TestAlignedAtTheEdgesMatchesExactArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 63))
	for range 2000 {
		c := newEdgeCase(rng)
		opts := live.Options{Workers: 1 + rng.IntN(3)}
		if c.grace > 0 {
			opts.Ordering, opts.Grace = live.Reorder, time.Duration(c.grace)
		}
		s := newSeries(t, opts)
		by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		seq := sequence.Every(time.Duration(c.step)).WithAnchorNanos(c.anchor)
		aggs := []reduce.Agg{{Out: "samples", From: "value", Using: reduce.Samples}}
		if rng.IntN(2) == 0 {
			aggs = append(aggs, reduce.Agg{Out: "min", From: "value", Using: reduce.Min})
		}
		id, err := s.Rolling(by, []rolling.Window{{Span: time.Duration(c.span), Aggs: aggs}}, rolling.Options{Trigger: trigger.Clock(seq), Aligned: true})
		require.NoError(t, err)
		require.NoError(t, s.Watch(id))
		var got []string
		for i, ts := range c.times {
			out, err := s.PushRows(nil, schema.Row{schema.NanosValue(ts), schema.NumberValue(float64(i + 1)), schema.StringValue([]string{"a", "b"}[i%2])})
			require.NoError(t, err)
			for _, o := range out {
				for r := range o.Events.Len() {
					samples, _ := o.Events.Value(r, 2).Array()
					sum := 0.0
					for _, v := range samples {
						x, _ := v.Num()
						sum += x
					}
					host, _ := o.Events.Value(r, 1).Str()
					got = append(got, fmt.Sprint(o.Events.TimeNanos(r), " ", host, " ", sum, " ", len(samples)))
				}
			}
		}
		require.NoError(t, s.Close())
		require.Equal(t, c.brute(), got, "%+v", c)
	}
}
