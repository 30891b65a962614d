package benchmarks

// Checks that the workloads and the benchmarks' figures are what the docs
// say: the stream against an independent generator written from
// WORKLOAD.md (docs/workload.md), the answers' shape-derived counts, and
// the helpers that turn a run into reported metrics.

import (
	"flag"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

// bt42T0Ms is WORKLOAD.md's T0 in milliseconds.
const bt42T0Ms = 1735689600000

// bt42Rng is mulberry32 exactly as WORKLOAD.md writes it.
type bt42Rng struct{ a uint32 }

func (r *bt42Rng) u() float64 {
	r.a = r.a + 0x6D2B79F5
	t := r.a
	t = (t ^ (t >> 15)) * (t | 1)
	t = t ^ (t + (t^(t>>7))*(t|61))
	return float64(t^(t>>14)) / 4294967296.0
}

// bt42Row is one row of the spec's stream.
type bt42Row struct {
	ms       int64
	host     string
	cpu, req float64
}

// bt42Host is "host-" and h zero-padded to 4 digits.
func bt42Host(h int) string {
	s := strconv.Itoa(h)
	if len(s) < 4 {
		s = strings.Repeat("0", 4-len(s)) + s
	}
	return "host-" + s
}

// bt42Stream generates the spec's stream: K = secs·N ticks of P rows,
// tick k at T0 + k·(1000/N) ms, hosts in order, 15 uniforms a row.
func bt42Stream(p, n, secs int) [][]bt42Row {
	rng := &bt42Rng{a: 42}
	tickMs := int64(1000 / n)
	var out [][]bt42Row
	for k := 0; k < secs*n; k++ {
		var batch []bt42Row
		for h := 0; h < p; h++ {
			var u [15]float64
			for j := range u {
				u[j] = rng.u()
			}
			s := 0.0
			for j := 0; j < 12; j++ {
				s = s + u[j]
			}
			cpu := 0.5 + float64(0.1*(s-6))
			if u[12] < 0.01 {
				cpu = 0.8 + float64(0.2*u[13])
			}
			cpu = math.Min(1, math.Max(0, cpu))
			req := 70 + math.Floor(u[14]*61)
			batch = append(batch, bt42Row{ms: bt42T0Ms + int64(k)*tickMs, host: bt42Host(h), cpu: cpu, req: req})
		}
		out = append(out, batch)
	}
	return out
}

// bt42SameBatch fails unless b holds want's rows, value for value (numbers
// by their bits).
func bt42SameBatch(t *testing.T, want []bt42Row, b *schema.Batch, msg string) {
	t.Helper()
	require.Equal(t, len(want), b.Len(), "%s: rows", msg)
	require.Len(t, b.Cols, 3, msg)
	for i, w := range want {
		require.Equal(t, w.ms*int64(time.Millisecond), b.Time[i], "%s row %d: time", msg, i)
		require.Equal(t, w.host, b.Cols[2].Str[i], "%s row %d: host", msg, i)
		require.Equal(t, math.Float64bits(w.cpu), math.Float64bits(b.Cols[0].Num[i]), "%s row %d: cpu %v vs %v", msg, i, w.cpu, b.Cols[0].Num[i])
		require.Equal(t, math.Float64bits(w.req), math.Float64bits(b.Cols[1].Num[i]), "%s row %d: requests", msg, i)
		require.Nil(t, b.Cols[0].Missing, msg)
	}
}

var bt42Configs = []struct{ P, N, Secs int }{{3, 10, 2}, {7, 1000, 1}, {10, 100, 3}, {1, 1, 5}, {12, 8, 2}, {2, 200, 2}}

// The package's seed stream (its batches, its Feed, EachSeedBatch) is
// the spec's, value for value.
func TestBt42SeedStreamIsTheSpecsStream(t *testing.T) {
	assert.Equal(t, int64(bt42T0Ms)*int64(time.Millisecond), T0.UnixNano(), "T0")
	for _, c := range bt42Configs {
		want := bt42Stream(c.P, c.N, c.Secs)
		st := NewSeedStream(c.P, c.N, c.Secs)
		require.Len(t, st.Batches, c.Secs*c.N, "K = secs·N batches")
		assert.Equal(t, c.Secs*c.N*c.P, st.Rows())
		for k, b := range st.Batches {
			bt42SameBatch(t, want[k], b, "Batches")
		}
		for _, from := range []int{0, len(want) / 2} {
			f := st.Feed(from)
			k := from
			for b, ok := f.Next(); ok; b, ok = f.Next() {
				bt42SameBatch(t, want[k], b, "Feed")
				k++
			}
			assert.Equal(t, len(want), k, "Feed(%d) ends at the last batch", from)
		}
		k := 0
		require.NoError(t, EachSeedBatch(c.P, c.N, c.Secs, func(b *schema.Batch) error {
			bt42SameBatch(t, want[k], b, "EachSeedBatch")
			k++
			return nil
		}))
		assert.Equal(t, len(want), k)
	}
	// Host names past 9999 keep all their digits.
	assert.Equal(t, "host-0000", HostName(0))
	assert.Equal(t, "host-0042", HostName(42))
	assert.Equal(t, bt42Host(12345), HostName(12345))
}

// The micro stream: rows 1 ms apart from T0, one draw each, in batches.
func TestBt42MicroStreamIsTheSpecs(t *testing.T) {
	rng := &bt42Rng{a: 42}
	batches := NewMicroStream(2500, 1000)
	require.Len(t, batches, 3)
	i := 0
	for bi, b := range batches {
		assert.Equal(t, min(1000, 2500-bi*1000), b.Len())
		for r := range b.Len() {
			assert.Equal(t, (bt42T0Ms+int64(i))*int64(time.Millisecond), b.Time[r])
			assert.Equal(t, math.Float64bits(rng.u()), math.Float64bits(b.Cols[0].Num[r]))
			i++
		}
	}
}

// bt42Shape is what follows from the stream's shape alone (WORKLOAD.md):
// one tick per batch that starts a later 200 ms bucket (for ticks of at
// most 200 ms, floor((K−1)·tickMs/200) of them), each P partitioned rows
// and one per-second row; ingested K·P; evicted the rows older than
// t_last − 30 s.
func bt42Shape(p, n, secs int) (rows, perSec int, ingested, evicted uint64) {
	k := secs * n
	tick := 1000 / n
	for i := 1; i < k; i++ {
		if i*tick/200 != (i-1)*tick/200 {
			perSec++
		}
	}
	if tick <= 200 && perSec != (k-1)*tick/200 {
		panic("bt42Shape: crossings")
	}
	last := (k - 1) * tick
	old := 0
	for i := range k {
		if i*tick < last-30000 {
			old++
		}
	}
	return p * perSec, perSec, uint64(k * p), uint64(old * p)
}

// The answer table's counts are the ones the stream's shape gives.
func TestBt42SeedAnswersCountsFollowFromTheShape(t *testing.T) {
	require.Len(t, SeedAnswers, 5)
	for _, a := range SeedAnswers {
		rows, perSec, in, ev := bt42Shape(a.P, a.N, a.Secs)
		assert.Equal(t, rows, a.Rows, "%d×%d rows emitted", a.P, a.N)
		assert.Equal(t, perSec, a.PerSecRows, "%d×%d persec rows", a.P, a.N)
		assert.Equal(t, in, a.Ingested, "%d×%d ingested", a.P, a.N)
		assert.Equal(t, ev, a.Evicted, "%d×%d evicted", a.P, a.N)
		// Each partitioned row's 200ms window holds N/5 rows once
		// the stream runs; the samples add up accordingly, give or take
		// the first tick.
		assert.InDelta(t, float64(rows*a.N/5), float64(a.SamplesLenSum), float64(a.P*a.N), "%d×%d samples", a.P, a.N)
	}
	// The table as WORKLOAD.md prints it.
	spec := []SeedAnswer{
		{10, 1000, 70, 3490, 1757.724008983987, 1757724021, 119700349, 11971485286, 698349, 3179551583, 374223585, 349, 3470349, 700000, 399990},
		{1000, 10, 70, 349000, 175772.35563767992, 175772355469, 119700349, 11971485286, 698349, 196577159544, 37115051685, 349, 3470349, 700000, 399000},
		{100, 1000, 70, 34900, 17586.79844534201, 17586798447, 1197000349, 119704241995, 6980349, 31760685871, 3744425917, 349, 34700349, 7000000, 3999900},
		{1000, 100, 70, 349000, 175867.98292267657, 175867982776, 1197000349, 119704241995, 6980349, 253167909736, 37416484844, 349, 34700349, 7000000, 3999000},
		{1000, 1000, 8, 39000, 19653.55050209651, 19653550460, 156000039, 15600462276, 7800039, 35481425224, 4182939231, 39, 37000039, 8000000, 0},
	}
	assert.Equal(t, spec, SeedAnswers)
}

// RunSeed's checksum counts each emitted row once: on small streams the
// rows, per-second rows, ingested and evicted are the shape's, and the
// per-second counts add up to the rows of each 1 s window.
func TestBt42RunSeedCountsEachRowOnce(t *testing.T) {
	for _, c := range []struct{ P, N, Secs int }{{3, 10, 40}, {4, 50, 35}, {2, 1, 70}} {
		got, err := RunSeed(NewSeedStream(c.P, c.N, c.Secs))
		require.NoError(t, err)
		rows, perSec, in, ev := bt42Shape(c.P, c.N, c.Secs)
		assert.Equal(t, rows, got.Rows, "%v rows", c)
		assert.Equal(t, perSec, got.PerSecRows, "%v persec rows", c)
		assert.Equal(t, in, got.Ingested, "%v ingested", c)
		assert.Equal(t, ev, got.Evicted, "%v evicted", c)
	}
}

// The steady phase: 130 s of stream for the configurations of at most
// 10,000 rows a second, then 670,000 rows timed from 63 s; the first
// timed batch is the one at 63 s.
func TestBt42SteadyPhaseSplit(t *testing.T) {
	for _, c := range seedConfigs {
		secs := steadySecs(c.P, c.N, c.Secs)
		if c.P*c.N <= 10000 {
			assert.Equal(t, 130, secs, "%v", c)
			assert.Equal(t, 670000, (secs-63)*c.N*c.P, "%v: rows timed", c)
		} else {
			assert.Equal(t, c.Secs, secs, "%v", c)
		}
	}
	st := NewSeedStream(2, 10, 70)
	warm := 63 * st.N
	assert.Equal(t, T0.Add(63*time.Second).UnixNano(), st.Batches[warm].Time[0], "the first timed batch")
	assert.Equal(t, T0.Add(63*time.Second-100*time.Millisecond).UnixNano(), st.Batches[warm-1].Time[0], "the last warm batch")
}

// bt42WindowRows counts, from the stream's shape alone, the rows not
// older than the last crossing row's time minus span: the crossing row
// is the first batch of the last 200 ms bucket.
func bt42WindowRows(p, n, secs int, span time.Duration) int {
	tickMs := int64(1000 / n)
	k := int64(secs * n)
	lastMs := (k - 1) * tickMs
	bucket := lastMs / 200 * 200
	firstInBucket := (bucket + tickMs - 1) / tickMs * tickMs // first batch time ≥ bucket start
	if lastMs < 200 {
		firstInBucket = 0 // no crossing: the cut stays 0 ms from T0
	}
	cut := firstInBucket
	rows := 0
	for i := int64(0); i < k; i++ {
		if i*tickMs >= cut-span.Milliseconds() {
			rows += p
		}
	}
	return rows
}

func TestBt42WindowRowsCountsFromTheLastCut(t *testing.T) {
	for _, c := range []struct{ P, N, Secs int }{{2, 10, 70}, {3, 100, 70}, {5, 1, 70}, {4, 8, 70}, {1, 40, 65}, {2, 1000, 62}} {
		st := NewSeedStream(c.P, c.N, c.Secs)
		for _, span := range []time.Duration{time.Minute, time.Second, 200 * time.Millisecond} {
			assert.Equal(t, bt42WindowRows(c.P, c.N, c.Secs, span), windowRows(st, span), "%v span %v", c, span)
		}
	}
	// By hand: 1000 × 100 over 70 s, last cut at 69.8 s: the rows from
	// 9.8 s on, 6,020 ticks.
	assert.Equal(t, 6020*2, bt42WindowRows(2, 100, 70, time.Minute))
	// 100,000 × 1: every batch crosses; cut 69 s, rows from 9 s: 61 ticks.
	assert.Equal(t, 61*3, windowRows(NewSeedStream(3, 1, 70), time.Minute))
}

// bt42Bench runs f under testing.Benchmark at -benchtime nx.
func bt42Bench(t *testing.T, n string, f func(b *testing.B)) testing.BenchmarkResult {
	t.Helper()
	fl := flag.Lookup("test.benchtime")
	require.NotNil(t, fl)
	old := fl.Value.String()
	require.NoError(t, fl.Value.Set(n))
	defer func() { require.NoError(t, fl.Value.Set(old)) }()
	return testing.Benchmark(f)
}

// bt42Pushed pushes the whole stream into a fresh seed pipeline and
// returns it with the rows it emitted from batch from on.
func bt42Pushed(t *testing.T, st *SeedStream, from int) (*SeedPipeline, int) {
	t.Helper()
	p, err := NewSeedPipeline()
	require.NoError(t, err)
	var out []live.Output
	emitted := 0
	for k, b := range st.Batches {
		out, err = p.Series.PushMany(out[:0], b)
		require.NoError(t, err)
		if k >= from {
			for _, o := range out {
				emitted += o.Events.Len()
			}
		}
	}
	return p, emitted
}

// runSeed times the batches from warmSecs on, counts one run's input rows
// and every run's emitted rows, and leaves the last run's pipeline after
// its last push.
func TestBt42RunSeedSplitsAndCounts(t *testing.T) {
	st := NewSeedStream(2, 10, 70)
	ref, emitted := bt42Pushed(t, st, 63*st.N)
	defer ref.Series.Close()
	var r seedRun
	var runs int
	res := bt42Bench(t, "2x", func(b *testing.B) {
		r = runSeed(b, st, 63, NewSeedPipeline)
		runs = b.N
		r.last.Series.Close()
	})
	require.Equal(t, 2, runs)
	require.Equal(t, 2, res.N)
	assert.Equal(t, 7*10*2, r.rows, "one run's timed rows: 63–70 s")
	assert.Equal(t, runs*emitted, r.outRows, "rows emitted in the timed parts of all runs")
	assert.Equal(t, uint64(st.Rows()), r.last.Series.Stats().Ingested, "the last pipeline took the whole stream")
	assert.Positive(t, r.total)
}

// The metrics benchSeedHosts reports agree with each other and with the
// run: rows/s × ns/row = 1e9; ns/out and cpu-ns/out divide by the input
// rows plus the emitted rows, in the proportion an independent run
// gives; root-B/row is the root's storage a row.
func TestBt42SeedHostsMetricsUseTheRightDenominators(t *testing.T) {
	st := NewSeedStream(2, 10, 70)
	ref, emitted := bt42Pushed(t, st, 63*st.N)
	defer ref.Series.Close()
	in := 7 * st.N * st.P
	res := bt42Bench(t, "2x", func(b *testing.B) { benchSeedHosts(b, st) })
	m := res.Extra
	for _, k := range []string{"rows/s", "ns/row", "ns/out", "cpu-ns/out", "cpu-ns/row", "allocs/row", "B/partition", "root-B/row"} {
		require.Contains(t, m, k)
	}
	assert.InEpsilon(t, 1e9, m["rows/s"]*m["ns/row"], 1e-9, "rows/s and ns/row are the same time over the same rows")
	share := float64(in) / float64(in+emitted)
	assert.InEpsilon(t, share, m["ns/out"]/m["ns/row"], 1e-9, "ns/out: input plus emitted rows (%d + %d a run)", in, emitted)
	if m["cpu-ns/row"] > 0 {
		assert.InEpsilon(t, share, m["cpu-ns/out"]/m["cpu-ns/row"], 1e-9, "cpu-ns/out")
	}
	// The root's storage: HeldBytes less its table of the host names.
	assert.InEpsilon(t, float64(ref.Series.HeldBytes()-intern.BytesPerString*st.P)/float64(ref.Series.Len()), m["root-B/row"], 1e-12)
}

// benchSeedWith reports state-B/partition from the last run's pipeline
// after its last push: what a pipeline that took the whole stream holds.
func TestBt42SeedStatePerPartitionIsTheLastPipelines(t *testing.T) {
	st := NewSeedStream(3, 10, 70)
	ref, _ := bt42Pushed(t, st, 0)
	defer ref.Series.Close()
	held, err := ref.Series.NodeBytes(ref.Hosts)
	require.NoError(t, err)
	res := bt42Bench(t, "2x", func(b *testing.B) { benchSeed(b, st, 63) })
	m := res.Extra
	for _, k := range []string{"rows/s", "cpu-ns/row", "B/row", "allocs/row", "state-B/partition"} {
		require.Contains(t, m, k)
	}
	assert.InEpsilon(t, float64(held)/3, m["state-B/partition"], 1e-12)
	assert.Positive(t, m["rows/s"])
}
