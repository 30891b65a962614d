package aggregator

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountAnomalies(t *testing.T) {
	th := wire.DefaultThresholds
	cases := []struct {
		name         string
		samples      []float64
		avg, sd      float64
		above, below []int
	}{
		{
			// cuts 0.1 0.15 0.2 0.25 0.3; diffs .31 .31 .31 .21 .11
			name: "above only", samples: []float64{0.81, 0.81, 0.81, 0.71, 0.61}, avg: 0.5, sd: 0.1,
			above: []int{5, 4, 4, 3, 3}, below: []int{0, 0, 0, 0, 0},
		},
		{
			// diffs +.35 +.22 +.12 −.17 −.12 and 0
			name: "both sides", samples: []float64{0.85, 0.72, 0.62, 0.33, 0.38, 0.5}, avg: 0.5, sd: 0.1,
			above: []int{3, 2, 2, 1, 1}, below: []int{2, 1, 0, 0, 0},
		},
		{
			name: "a diff equal to the cut does not count", samples: []float64{0.75, 0.25}, avg: 0.5, sd: 0.25,
			above: []int{0, 0, 0, 0, 0}, below: []int{0, 0, 0, 0, 0},
		},
		{
			name: "zero sd with samples on the mean", samples: []float64{0.4, 0.4}, avg: 0.4, sd: 0,
			above: []int{0, 0, 0, 0, 0}, below: []int{0, 0, 0, 0, 0},
		},
		{
			name: "empty slice", samples: nil, avg: 0.5, sd: 0.1,
			above: []int{0, 0, 0, 0, 0}, below: []int{0, 0, 0, 0, 0},
		},
		{
			name: "missing baseline", samples: []float64{0.9}, avg: math.NaN(), sd: math.NaN(),
			above: []int{0, 0, 0, 0, 0}, below: []int{0, 0, 0, 0, 0},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			above, below := []int{9, 9, 9, 9, 9}, []int{9, 9, 9, 9, 9}
			CountAnomalies(c.samples, c.avg, c.sd, th, above, below)
			assert.Equal(t, c.above, above, "above")
			assert.Equal(t, c.below, below, "below")
		})
	}
}

// t0 is a 200 ms boundary.
var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type row struct {
	at   time.Duration // after t0
	cpu  float64
	req  float64
	host string
}

func batchOf(rows ...row) *schema.Batch {
	b := schema.NewBatch(Schema, len(rows))
	for _, r := range rows {
		b.Time = append(b.Time, t0.Add(r.at).UnixNano())
		b.Cols[0].Num = append(b.Cols[0].Num, r.cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, r.req)
		b.Cols[2].Str = append(b.Cols[2].Str, r.host)
	}
	return b
}

func newTestAggregator(t *testing.T, cfg Config) *Aggregator {
	t.Helper()
	a, err := New(cfg)
	require.NoError(t, err)
	return a
}

func TestTickRowsAreHandComputed(t *testing.T) {
	a := newTestAggregator(t, Config{})
	ms := time.Millisecond
	require.NoError(t, a.Push(batchOf(row{0, 0.4, 10, "a"}), time.Now()))
	require.NoError(t, a.Push(batchOf(row{50 * ms, 0.6, 20, "a"}), time.Now()))
	require.NoError(t, a.Push(batchOf(row{100 * ms, 0.5, 30, "a"}, row{100 * ms, 0.3, 5, "b"}), time.Now()))
	// The first row at 200 ms crosses the boundary: the tick fires after
	// a's row is added and before b's.
	require.NoError(t, a.Push(batchOf(row{200 * ms, 0.9, 40, "a"}, row{200 * ms, 0.7, 7, "b"}), time.Now()))

	ticks := a.hist.all()
	require.Len(t, ticks, 1)
	tk := ticks[0]
	ts := t0.Add(200 * ms).UnixMilli()
	assert.Equal(t, wire.GlobalsTick{TS: ts, EventsIngestedTotal: 6, EventsPerSec: 5, EvictedTotal: 0, RequestsIngestedTotal: 112}, tk.globals)
	require.Len(t, tk.rows, 2)

	ra := tk.rows[0]
	assert.Equal(t, "a", ra.Host)
	assert.Equal(t, ts, ra.TS)
	assert.InDelta(t, 0.6, ra.CPUAvg, 1e-12)
	assert.InDelta(t, math.Sqrt(0.035), ra.CPUSd, 1e-12) // population σ of .4 .6 .5 .9
	assert.Equal(t, 4, ra.CPUN)
	assert.Equal(t, 4, ra.NCurrent, "the 200 ms window [0, 200] is closed at both ends")
	assert.Equal(t, []int{1, 1, 0, 0, 0}, ra.AnomaliesAbove) // +.3 against cuts .187 .281 .374
	assert.Equal(t, []int{1, 0, 0, 0, 0}, ra.AnomaliesBelow) // −.2
	assert.InDelta(t, 25.0, ra.RequestsAvg, 1e-12)
	assert.Equal(t, 100.0, ra.RequestsSum)
	assert.Equal(t, 4, ra.RequestsN)
	assert.Equal(t, 0.2, ra.WindowAgeSeconds)
	assert.Equal(t, 0.4, ra.CPUMin)
	assert.Equal(t, 0.9, ra.CPUMax)

	rb := tk.rows[1]
	assert.Equal(t, "b", rb.Host)
	assert.Equal(t, 1, rb.CPUN, "b's row at 200 ms arrives after the tick")
	assert.Equal(t, 0.3, rb.CPUAvg)
	assert.Equal(t, 0.0, rb.CPUSd, "σ of one value is 0")
	assert.Equal(t, []int{0, 0, 0, 0, 0}, rb.AnomaliesAbove, "σ = 0 with the sample on the mean counts nothing")
	assert.Equal(t, []int{0, 0, 0, 0, 0}, rb.AnomaliesBelow)
	assert.Equal(t, 5.0, rb.RequestsSum)
}

func TestABatchJumpingSeveralBoundariesEmitsOneTick(t *testing.T) {
	a := newTestAggregator(t, Config{})
	require.NoError(t, a.Push(batchOf(row{0, 0.5, 1, "a"}), time.Now()))
	// 1.1 s later: five boundaries crossed in one batch.
	require.NoError(t, a.Push(batchOf(row{1100 * time.Millisecond, 0.5, 1, "a"}), time.Now()))
	ticks := a.hist.all()
	require.Len(t, ticks, 1, "one row per crossing, keyed at the crossing row's own bucket")
	assert.Equal(t, t0.Add(1000*time.Millisecond).UnixMilli(), ticks[0].globals.TS)
}

func TestHostsWithAnEmptyMinuteAreLeftOut(t *testing.T) {
	a := newTestAggregator(t, Config{})
	require.NoError(t, a.Push(batchOf(row{0, 0.5, 1, "quiet"}, row{0, 0.5, 1, "busy"}), time.Now()))
	require.NoError(t, a.Push(batchOf(row{30 * time.Second, 0.5, 1, "busy"}), time.Now()))
	hosts := func() []string {
		var hs []string
		ticks := a.hist.all()
		for _, r := range ticks[len(ticks)-1].rows {
			hs = append(hs, r.Host)
		}
		return hs
	}
	assert.Equal(t, []string{"quiet", "busy"}, hosts(), "a quiet host with rows in the last minute still emits")
	require.NoError(t, a.Push(batchOf(row{61 * time.Second, 0.5, 1, "busy"}), time.Now()))
	assert.Equal(t, []string{"busy"}, hosts(), "a host with nothing in the last minute is left out")
}

func TestSampleStrideThinsEachHostsRollingOnly(t *testing.T) {
	a := newTestAggregator(t, Config{SampleStride: 2})
	for i := range 4 {
		at := time.Duration(i) * 10 * time.Millisecond
		require.NoError(t, a.Push(batchOf(row{at, 0.5, 1, "x"}, row{at, 0.5, 1, "y"}), time.Now()))
	}
	// x's 5th row is not sampled, so it does not reach the rolling and
	// cannot fire the clock; its 6th does.
	require.NoError(t, a.Push(batchOf(row{200 * time.Millisecond, 0.5, 1, "x"}), time.Now()))
	assert.Empty(t, a.hist.all())
	require.NoError(t, a.Push(batchOf(row{210 * time.Millisecond, 0.5, 1, "x"}), time.Now()))
	require.Len(t, a.hist.all(), 1)
	tk := a.hist.all()[0]
	assert.EqualValues(t, 10, tk.globals.EventsIngestedTotal, "the raw window sees every row")
	require.Len(t, tk.rows, 2)
	assert.Equal(t, 3, tk.rows[0].CPUN, "x: its 2nd, 4th and 6th rows")
	assert.Equal(t, 2, tk.rows[1].CPUN, "y: its 2nd and 4th rows; a per-host counter, not a global one")
}

func TestReorderDropsOnlyTheRowsPastTheGrace(t *testing.T) {
	a := newTestAggregator(t, Config{Ordering: 2 /* live.Reorder */, Grace: time.Second})
	require.NoError(t, a.Push(batchOf(row{5 * time.Second, 0.5, 1, "a"}), time.Now()))
	require.NoError(t, a.Push(batchOf(
		row{4500 * time.Millisecond, 0.5, 1, "a"}, // late but within the grace
		row{1 * time.Second, 0.5, 1, "b"},         // past the grace
		row{5 * time.Second, 0.5, 1, "c"},
	), time.Now()))
	st := a.Stats()
	assert.EqualValues(t, 3, st.Series.Ingested)
	assert.EqualValues(t, 1, st.RejectedRows)
}

// TestDropCountsItsDroppedRowsAsOrderRefusals: under drop ordering the
// rows the series drops for being late are refused rows of reason
// "order", in Stats, /metrics.json and /metrics alike, and the total of
// refused rows counts each once. (They were in the total only, and
// refused{order} stayed 0.)
func TestDropCountsItsDroppedRowsAsOrderRefusals(t *testing.T) {
	a := newTestAggregator(t, Config{Ordering: live.Drop})
	require.NoError(t, a.Push(batchOf(row{5 * time.Second, 0.5, 1, "a"}), time.Now()))
	require.NoError(t, a.Push(batchOf(
		row{6 * time.Second, 0.5, 1, "a"},
		row{1 * time.Second, 0.5, 1, "b"}, // late: dropped
		row{2 * time.Second, 0.5, 1, "c"}, // late: dropped
	), time.Now()))
	st := a.Stats()
	assert.EqualValues(t, 2, st.Series.Ingested)
	assert.EqualValues(t, 2, st.Refused.Order)
	assert.EqualValues(t, 2, st.RejectedRows)
	m := a.Metrics()
	assert.EqualValues(t, 2, m.Stats.Refused.Order)
	assert.EqualValues(t, 2, m.Stats.Rejected)
	prom := scrape(t, a)
	assert.Contains(t, prom, `pond_aggregator_rows_refused_total{reason="order"} 2`)
	assert.Contains(t, prom, "pond_aggregator_rows_rejected_total 2\n")
}

// scrape returns the aggregator's /metrics text.
func scrape(t *testing.T, a *Aggregator) string {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.String()
}

// TestAHugeMaxSkewRefusesNothing: a -max-skew that reaches past the
// year 2262 (the largest Go duration, say, to turn the check off) refuses
// no row. (The clock plus the skew overflowed int64 nanoseconds and came
// out negative, so every row was refused as dated in the future.)
func TestAHugeMaxSkewRefusesNothing(t *testing.T) {
	for _, skew := range []time.Duration{250 * 365 * 24 * time.Hour, math.MaxInt64} {
		now := time.Now()
		a := newTestAggregator(t, Config{Logger: quietLogger, MaxSkew: skew, Now: func() time.Time { return now }})
		b := batchOf(row{0, 0.5, 1, "a"})
		b.Time[0] = now.UnixNano()
		require.NoError(t, a.Push(b, now))
		st := a.Stats()
		assert.EqualValues(t, 1, st.Series.Ingested, "max skew %v", skew)
		assert.Zero(t, st.Refused.Future, "max skew %v", skew)
	}
}

// TestEveryBatchIsABatchDoneSample: a batch whose rows are all refused, and
// one the series refuses whole, are batchDone samples like a batch taken
// (batchDoneMs is one sample per batch; they used to leave none, so a
// flood of refused batches did not show in the latency or its count).
func TestEveryBatchIsABatchDoneSample(t *testing.T) {
	now := time.Now()
	a := newTestAggregator(t, Config{Logger: quietLogger, Now: func() time.Time { return now }})
	at := func(d time.Duration) *schema.Batch {
		b := batchOf(row{0, 0.5, 1, "a"})
		b.Time[0] = now.Add(d).UnixNano()
		return b
	}
	require.NoError(t, a.Push(at(-time.Second), now))
	require.NoError(t, a.Push(at(time.Hour), now))  // every row refused: future
	require.Error(t, a.Push(at(-time.Minute), now)) // refused whole: out of order
	require.EqualValues(t, 2, a.Stats().RejectedRows)
	lat := a.Metrics().Latency.BatchDoneMs
	require.NotNil(t, lat)
	assert.Equal(t, 3, lat.Count)
	assert.Contains(t, scrape(t, a), "pond_aggregator_batch_done_seconds_count 3\n")
}

func TestStrictRejectsAnOutOfOrderBatchWhole(t *testing.T) {
	a := newTestAggregator(t, Config{})
	require.NoError(t, a.Push(batchOf(row{5 * time.Second, 0.5, 1, "a"}), time.Now()))
	err := a.Push(batchOf(row{6 * time.Second, 0.5, 1, "a"}, row{time.Second, 0.5, 1, "b"}), time.Now())
	require.Error(t, err)
	st := a.Stats()
	assert.EqualValues(t, 1, st.Series.Ingested)
	assert.EqualValues(t, 2, st.RejectedRows)
}

// With Aligned, the tick at 200 ms holds each host's rows with t < 200 ms,
// whichever host's row crossed the boundary first and however the rows
// were batched; a batch that crosses several boundaries emits a tick for
// each boundary a host's windows hold rows at.
func TestAlignedTicksHoldEachHostsRowsBeforeTheBoundary(t *testing.T) {
	ms := time.Millisecond
	a := newTestAggregator(t, Config{Aligned: true})
	require.NoError(t, a.Push(batchOf(row{0, 0.4, 10, "a"}), time.Now()))
	require.NoError(t, a.Push(batchOf(row{50 * ms, 0.6, 20, "a"}), time.Now()))
	require.NoError(t, a.Push(batchOf(row{100 * ms, 0.5, 30, "a"}, row{100 * ms, 0.3, 5, "b"}), time.Now()))
	require.NoError(t, a.Push(batchOf(row{200 * ms, 0.9, 40, "a"}, row{200 * ms, 0.7, 7, "b"}), time.Now()))

	ticks := a.hist.all()
	require.Len(t, ticks, 1)
	tk := ticks[0]
	require.Len(t, tk.rows, 2)
	ra, rb := tk.rows[0], tk.rows[1]
	assert.Equal(t, "a", ra.Host)
	assert.Equal(t, t0.Add(200*ms).UnixMilli(), ra.TS)
	assert.Equal(t, 3, ra.CPUN, "a's rows at 0, 50 and 100 ms; its row at 200 ms is in the next window")
	assert.InDelta(t, 0.5, ra.CPUAvg, 1e-12)
	assert.Equal(t, 3, ra.NCurrent, "the 200 ms window is [0, 200)")
	assert.Equal(t, 60.0, ra.RequestsSum)
	assert.Equal(t, "b", rb.Host)
	assert.Equal(t, 1, rb.CPUN, "b's row at 100 ms; the same rule as a's")

	// 700 ms later: the boundaries at 400, 600 and 800 ms close in one
	// batch; both hosts emit at each while their 1m window holds rows.
	require.NoError(t, a.Push(batchOf(row{900 * ms, 0.5, 1, "a"}), time.Now()))
	ticks = a.hist.all()
	require.Len(t, ticks, 4)
	for k, want := range []time.Duration{400 * ms, 600 * ms, 800 * ms} {
		tk := ticks[1+k]
		require.Len(t, tk.rows, 2, "tick at %v", want)
		assert.Equal(t, t0.Add(want).UnixMilli(), tk.rows[0].TS)
		assert.Equal(t, 4, tk.rows[0].CPUN, "a: its rows at 0–200 ms, at %v", want)
		assert.Equal(t, 2, tk.rows[1].CPUN, "b: its rows at 100 and 200 ms, at %v", want)
	}
}
