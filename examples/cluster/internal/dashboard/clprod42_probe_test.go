package dashboard

// Probes of the dashboard tier against a model written from
// examples/cluster/README.md: rows grouped by boundary, a boundary sent
// once every input partition still sending has sent a later one (or after
// a second), each (host, boundary) row shown once, in boundary order, the
// fields of a row carried into its frame, malformed records skipped.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/internal/wire"
)

// cp42Record is an output record of row r from input partition part.
func cp42Record(part int, r rows.Row) *kgo.Record {
	return &kgo.Record{Value: r.AppendJSON(nil), Headers: []kgo.RecordHeader{
		{Key: rows.HeaderBoundary, Value: []byte(strconv.FormatInt(r.BoundaryMs, 10))},
		{Key: rows.HeaderPartition, Value: []byte(strconv.Itoa(part))},
	}}
}

// cp42Row is a random row of host at boundary b.
func cp42Row(rng *rand.Rand, host string, b int64) rows.Row {
	n := rng.IntN(6)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.Float64()
	}
	r := rows.Row{
		BoundaryMs: b, Host: host,
		CPUAvg: rng.Float64(), CPUSd: rng.Float64() / 10, CPUN: int64(1 + rng.IntN(600)),
		RequestsAvg: 70 + 60*rng.Float64(), RequestsSum: float64(rng.IntN(1e6)), RequestsN: int64(rng.IntN(600)),
		CPUMin: rng.Float64(), CPUMax: rng.Float64(), CurrentAvg: rng.Float64(), CurrentSd: rng.Float64(),
	}
	r.SetSamples(xs)
	if rng.IntN(10) == 0 {
		r.CPUSamplesLeftOut = int64(1 + rng.IntN(100))
	}
	if rng.IntN(10) == 0 {
		r.CPUAvg, r.CPUSd, r.RequestsAvg, r.RequestsSum = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	return r
}

// cp42Anomalies counts, as the README says the tier does, the samples a
// row carries that are strictly beyond each σ threshold of its 1m
// baseline.
func cp42Anomalies(r rows.Row) (above, below []int) {
	above, below = make([]int, len(wire.DefaultThresholds)), make([]int, len(wire.DefaultThresholds))
	if math.IsNaN(r.CPUAvg) || math.IsNaN(r.CPUSd) {
		return above, below
	}
	for _, v := range r.CPUSamples {
		for i, th := range wire.DefaultThresholds {
			switch {
			case v-r.CPUAvg > th*r.CPUSd:
				above[i]++
			case r.CPUAvg-v > th*r.CPUSd:
				below[i]++
			}
		}
	}
	return above, below
}

// cp42SameNum: equal bit for bit, or both missing.
func cp42SameNum(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// cp42CheckTick checks a shown host tick against the row it came from.
func cp42CheckTick(t *testing.T, r rows.Row, h *wire.HostTick, msg string) {
	t.Helper()
	assert.Equal(t, r.BoundaryMs, h.TS, msg)
	assert.Equal(t, r.Host, h.Host, msg)
	for i, p := range [][2]float64{
		{r.CPUAvg, h.CPUAvg}, {r.CPUSd, h.CPUSd}, {r.RequestsAvg, h.RequestsAvg},
		{r.CPUMin, h.CPUMin}, {r.CPUMax, h.CPUMax}, {r.CurrentAvg, h.CurrentAvg}, {r.CurrentSd, h.CurrentSd},
	} {
		assert.True(t, cp42SameNum(p[0], p[1]), "%s: number %d: %v shown as %v", msg, i, p[0], p[1])
	}
	wantSum := r.RequestsSum
	if math.IsNaN(wantSum) {
		wantSum = 0 // the wire's request sum is 0 when empty
	}
	assert.Equal(t, wantSum, h.RequestsSum, msg)
	assert.EqualValues(t, r.CPUN, h.CPUN, msg)
	assert.EqualValues(t, r.RequestsN, h.RequestsN, msg)
	assert.Equal(t, len(r.CPUSamples)+int(r.CPUSamplesLeftOut), h.NCurrent, "%s: n_current counts the left-out samples too", msg)
	above, below := cp42Anomalies(r)
	assert.Equal(t, above, h.AnomaliesAbove, msg)
	assert.Equal(t, below, h.AnomaliesBelow, msg)
	assert.GreaterOrEqual(t, h.WindowAgeSeconds, 0.0, msg)
	assert.LessOrEqual(t, h.WindowAgeSeconds, 60.0, msg)
}

// TestCp42EveryRowIsShownOnceInBoundaryOrder: partitions of random sizes
// send their rows boundary by boundary, each heard from once before the
// first poll, then interleaved at random and polled
// at random points, each poll well within a second of the last; a few
// malformed records are mixed in. Every boundary is sent once, in order,
// holding each of its (host, boundary) rows once, sorted by host, with
// the row's fields; nothing is late; the counters add up.
func TestCp42EveryRowIsShownOnceInBoundaryOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 10))
	for c := range 60 {
		parts := 1 + rng.IntN(6)
		nb := 1 + rng.IntN(20)
		hosts := make([][]string, parts)
		for p := range hosts {
			for h := range 1 + rng.IntN(5) {
				hosts[p] = append(hosts[p], fmt.Sprintf("p%d-h%d-ü\u2028\"%d", p, h, c))
			}
		}
		b0 := int64(1735689600000 + 200*rng.IntN(1000))
		// Each partition's records in its order, and the model: the rows
		// of each boundary.
		queues := make([][]*kgo.Record, parts)
		want := map[int64][]rows.Row{}
		for k := range nb {
			b := b0 + int64(k)*200
			for p := range parts {
				for _, h := range hosts[p] {
					r := cp42Row(rng, h, b)
					want[b] = append(want[b], r)
					queues[p] = append(queues[p], cp42Record(p, r))
				}
			}
		}
		bad := 0
		for range rng.IntN(3) {
			p := rng.IntN(parts)
			i := 1 + rng.IntN(len(queues[p]))
			queues[p] = slices.Insert(queues[p], i, &kgo.Record{Value: []byte(`{"ts":1,`)})
			bad++
		}

		tr := newTierWith(Config{History: time.Hour, HistoryTicks: 1000})
		// The wall clock just past the last boundary, as when workers
		// write rows live (rows more than a minute ahead of it are left
		// out).
		now := time.UnixMilli(b0 + int64(nb)*200)
		tr.now = func() time.Time { return now }
		total := 0
		// Every partition is heard from before the first poll (as the
		// tier's first fetch, of every partition, gives it): the tier
		// cannot wait for a partition it has never read.
		for _, p := range rng.Perm(parts) {
			tr.take(queues[p][0])
			queues[p] = queues[p][1:]
			total++
		}
		for {
			live := []int{}
			for p := range queues {
				if len(queues[p]) > 0 {
					live = append(live, p)
				}
			}
			if len(live) == 0 {
				break
			}
			p := live[rng.IntN(len(live))]
			n := 1 + rng.IntN(len(queues[p]))
			for _, r := range queues[p][:n] {
				tr.take(r)
				total++
			}
			queues[p] = queues[p][n:]
			if rng.IntN(3) == 0 {
				now = now.Add(time.Duration(rng.IntN(20)) * time.Millisecond)
				tr.flush(now)
			}
		}
		now = now.Add(2 * maxWait)
		tr.flush(now)

		msg := fmt.Sprintf("case %d (%d partitions, %d boundaries)", c, parts, nb)
		require.Len(t, tr.history, nb, msg)
		var ingested uint64
		for k, tk := range tr.history {
			b := b0 + int64(k)*200
			require.Equal(t, b, tk.globals.TS, "%s: boundaries in order", msg)
			w := slices.Clone(want[b])
			slices.SortFunc(w, func(x, y rows.Row) int {
				switch {
				case x.Host < y.Host:
					return -1
				case x.Host > y.Host:
					return 1
				}
				return 0
			})
			require.Len(t, tk.rows, len(w), "%s: boundary %d holds each of its rows once", msg, b)
			var n int64
			for i := range w {
				cp42CheckTick(t, w[i], tk.rows[i], fmt.Sprintf("%s: boundary %d row %d", msg, b, i))
				n += int64(len(w[i].CPUSamples)) + w[i].CPUSamplesLeftOut
			}
			ingested += uint64(n)
			assert.Equal(t, 5*n, tk.globals.EventsPerSec, "%s: events_per_sec = 5 × the 200 ms samples", msg)
			assert.Equal(t, ingested, tk.globals.EventsIngestedTotal, msg)
		}
		assert.Zero(t, tr.lateRows, msg)
		assert.EqualValues(t, total-bad, tr.rowsIn, "%s: malformed records are not rows in", msg)
		assert.Equal(t, b0+int64(nb-1)*200, tr.sent, msg)
		assert.Empty(t, tr.pending, msg)
	}
}

// TestCp42TheHistoryKeepsTheLastTicksWithinItsAge: however many ticks go
// by, the history holds at most HistoryTicks of them and none older than
// History before the last.
func TestCp42TheHistoryKeepsTheLastTicksWithinItsAge(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 11))
	for c := range 30 {
		keep := 1 + rng.IntN(30)
		age := time.Duration(200*(1+rng.IntN(40))) * time.Millisecond
		tr := newTierWith(Config{History: age, HistoryTicks: keep})
		b := int64(1735689600000)
		now := time.UnixMilli(b)
		tr.now = func() time.Time { return now }
		for range 200 {
			b += 200 * int64(1+rng.IntN(3))
			now = time.UnixMilli(b) // rows written live
			tr.take(record(0, b, "a"))
			tr.flush(now.Add(2 * maxWait))
			require.LessOrEqual(t, len(tr.history), keep, "case %d", c)
			for _, tk := range tr.history {
				require.GreaterOrEqual(t, tk.globals.TS, b-age.Milliseconds(), "case %d", c)
			}
			require.Equal(t, b, tr.history[len(tr.history)-1].globals.TS, "case %d: the last tick is kept", c)
		}
	}
}
