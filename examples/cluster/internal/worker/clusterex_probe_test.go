package worker_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// clxRec is one input record as a user's producer might write it: the
// host as its key, the event time (ms) as its timestamp, and any value.
type clxRec struct {
	key   []byte // nil: no key
	ms    int64
	value []byte
}

func clxValue(cpu, requests float64) []byte {
	return events.AppendValue(nil, &events.Event{CPU: cpu, Requests: requests})
}

func (r clxRec) record() *kgo.Record {
	return &kgo.Record{Topic: brokers.Input, Key: r.key, Value: r.value, Timestamp: time.UnixMilli(r.ms)}
}

// clxEmbedded starts an embedded cluster with one-partition topics; it
// and its client close when the test ends.
func clxEmbedded(ctx context.Context, t *testing.T) ([]string, *kgo.Client) {
	t.Helper()
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(e.Close)
	require.NoError(t, brokers.CreateTopics(ctx, e.Addrs(), 1))
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return e.Addrs(), cl
}

// clxProduce writes recs to the input partition in order, in batches of
// at most per records (one ProduceSync each).
func clxProduce(ctx context.Context, t *testing.T, cl *kgo.Client, recs []clxRec, per int) {
	t.Helper()
	for len(recs) > 0 {
		n := min(per, len(recs))
		krs := make([]*kgo.Record, n)
		for i := range n {
			krs[i] = recs[i].record()
		}
		require.NoError(t, cl.ProduceSync(ctx, krs...).FirstErr())
		recs = recs[n:]
	}
}

// clxRunUntil runs a worker until the input's committed offset reaches
// end, then stops it (between transactions or in one, which it ends) and
// returns its counters.
func clxRunUntil(ctx context.Context, t *testing.T, seeds []string, id string, end int64, edit func(*worker.Config)) worker.Stats {
	t.Helper()
	cfg := worker.Config{Brokers: seeds, ID: id}
	if edit != nil {
		edit(&cfg)
	}
	w, err := worker.New(cfg)
	require.NoError(t, err)
	defer w.Close()
	adm, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	defer adm.Close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		cps, err := worker.ReadCheckpoints(ctx, kadm.NewClient(adm))
		require.NoError(t, err)
		if cps[0].Offset >= end {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("worker %s stopped early (%v); committed %+v, want offset %d", id, err, cps[0], end)
		case <-ctx.Done():
			t.Fatalf("worker %s: committed %+v, want offset %d: %v", id, cps[0], end, ctx.Err())
		case <-tick.C:
		}
	}
	stop()
	require.NoError(t, <-done)
	return w.Stats()
}

// clxOut is one committed output record.
type clxOut struct {
	key     string
	value   []byte
	headers map[string]string
	row     rows.Row
}

// clxReadOutput reads every committed output record (read-committed):
// it appends a marker record of its own, outside any transaction, and
// reads up to it.
func clxReadOutput(ctx context.Context, t *testing.T, seeds []string) []clxOut {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Output),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	end, err := cl.ProduceSync(ctx, &kgo.Record{Topic: brokers.Output, Partition: 0, Key: []byte("clx-end")}).First()
	require.NoError(t, err)
	var out []clxOut
	for done := false; !done; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= end.Offset {
				done = true
				return
			}
			o := clxOut{key: string(r.Key), value: r.Value, headers: map[string]string{}}
			for _, h := range r.Headers {
				o.headers[h.Key] = string(h.Value)
			}
			o.row, err = rows.Decode(r.Value)
			require.NoError(t, err, "%q", r.Value)
			out = append(out, o)
		})
	}
	return out
}

// clxModelRow is a row computed from the README and the package docs of
// rolling and reduce, not from the pipeline.
type clxModelRow struct {
	host                      string
	b                         int64
	n                         int64
	avg, sd, reqAvg, reqSum   float64
	samples                   []float64
	cmin, cmax, curAvg, curSd float64
}

// clxEv is an event the model takes.
type clxEv struct {
	ms            int64
	cpu, requests float64
}

// clxModel applies the README's rules to recs (in offset order) and
// returns the accepted events' rows keyed by (raw host, boundary) and the
// number of records left out.
//
// Left out: a value not 16 bytes or not two finite numbers, a key over
// 256 bytes, a timestamp before 1970 or after 2116 (2^62−1 ns), or
// a timestamp older than the partition's latest accepted one. A row of
// host h at boundary b (a multiple of 200 ms) exists when the partition
// has accepted an event with t ≥ b and h has an event with
// b − 1m ≤ t < b.
func clxModel(recs []clxRec) (map[rows.Key]clxModelRow, int) {
	const maxMs = (1<<62 - 1) / int64(time.Millisecond)
	byHost := map[string][]clxEv{}
	var order []string
	latest, has := int64(0), false
	left := 0
	for _, r := range recs {
		cpu, req, err := events.DecodeValue(r.value)
		switch {
		case err != nil, math.IsNaN(cpu) || math.IsInf(cpu, 0), math.IsNaN(req) || math.IsInf(req, 0),
			len(r.key) > 256, r.ms > maxMs, r.ms < 0, has && r.ms < latest:
			left++
			continue
		}
		latest, has = r.ms, true
		h := string(r.key)
		if _, ok := byHost[h]; !ok {
			order = append(order, h)
		}
		byHost[h] = append(byHost[h], clxEv{r.ms, cpu, req})
	}
	out := map[rows.Key]clxModelRow{}
	if !has {
		return out, left
	}
	const step, long = 200, 60_000
	for _, h := range order {
		evs := byHost[h]
		// Boundaries from just after the first event to the partition's
		// latest time (floor division: times may be negative).
		first := evs[0].ms
		b0 := clxFloorDiv(first, step)*step + step
		for b := b0; b <= latest; b += step {
			var m clxModelRow
			// The accepted events of h are in time order.
			at := func(ms int64) int { return sort.Search(len(evs), func(i int) bool { return evs[i].ms >= ms }) }
			lo, mid, hi := at(b-long), at(b-step), at(b)
			var cs, rs, cur []float64
			for _, e := range evs[lo:hi] {
				cs = append(cs, e.cpu)
				rs = append(rs, e.requests)
			}
			for _, e := range evs[mid:hi] {
				cur = append(cur, e.cpu)
			}
			if len(cs) == 0 {
				if hi == len(evs) {
					break // no event of h left to come into a window
				}
				// Go on at the first boundary after h's next event.
				b = clxFloorDiv(evs[hi].ms, step) * step
				continue
			}
			m.host, m.b, m.n = h, b, int64(len(cs))
			m.avg, m.sd = clxMeanSd(cs)
			m.reqAvg, _ = clxMeanSd(rs)
			for _, x := range rs {
				m.reqSum += x
			}
			m.samples = cur
			m.cmin, m.cmax, m.curAvg, m.curSd = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			if len(cur) > 0 {
				m.cmin, m.cmax = slices.Min(cur), slices.Max(cur)
				m.curAvg, m.curSd = clxMeanSd(cur)
			}
			out[rows.Key{Host: h, BoundaryMs: b}] = m
		}
	}
	return out, left
}

func clxFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// clxMeanSd returns the mean and the population standard deviation.
func clxMeanSd(xs []float64) (float64, float64) {
	var s float64
	for _, x := range xs {
		s += x
	}
	mean := s / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(xs)))
}

// clxClose reports whether got is want within a relative 1e-9 (both
// missing counts as equal).
func clxClose(want, got float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	return math.Abs(want-got) <= 1e-9*math.Max(1, math.Max(math.Abs(want), math.Abs(got)))
}

// clxJSONHost is a host as the row's JSON holds it: each byte that is not
// part of valid UTF-8 reads back as U+FFFD.
func clxJSONHost(h string) string {
	var b []byte
	for i := 0; i < len(h); {
		r, n := utf8.DecodeRuneInString(h[i:])
		b = utf8.AppendRune(b, r) // RuneError for an invalid byte (n = 1)
		i += n
	}
	return string(b)
}

// clxFieldOrder is the README's field order of a row.
var clxFieldOrder = []string{"ts", "host", "cpu_avg", "cpu_sd", "cpu_n", "requests_avg", "requests_sum",
	"requests_n", "cpu_samples", "cpu_min", "cpu_max", "current_avg", "current_sd"}

// clxFieldsInOrder reports whether a row's JSON has exactly the README's
// fields in its order, cpu_samples_left_out after cpu_samples when
// leftOut (the hosts of these tests hold no `":`).
func clxFieldsInOrder(data []byte, leftOut bool) bool {
	order := clxFieldOrder
	if leftOut {
		order = slices.Insert(slices.Clone(order), 9, "cpu_samples_left_out")
	}
	if bytes.Count(data, []byte(`":`)) != len(order) {
		return false
	}
	at := 0
	for _, k := range order {
		i := bytes.Index(data[at:], []byte(`"`+k+`":`))
		if i < 0 {
			return false
		}
		at += i + len(k) + 3
	}
	return data[0] == '{' && data[len(data)-1] == '}'
}

// clxCheckRows compares the committed output with the model: one record
// per (host, boundary), none twice, the documented key, headers, field
// order and values.
func clxCheckRows(t *testing.T, want map[rows.Key]clxModelRow, got []clxOut) {
	t.Helper()
	seen := make(map[rows.Key]bool, len(got))
	for i, o := range got {
		k := rows.Key{Host: o.key, BoundaryMs: o.row.BoundaryMs}
		if seen[k] {
			t.Fatalf("record %d: (%q, %d) written twice", i, k.Host, k.BoundaryMs)
		}
		seen[k] = true
		m, ok := want[k]
		if !ok {
			t.Fatalf("record %d: (%q, %d) is no row of the model: %s", i, k.Host, k.BoundaryMs, o.value)
		}
		r := o.row
		bad := ""
		switch {
		case o.headers[rows.HeaderBoundary] != strconv.FormatInt(m.b, 10) || o.headers[rows.HeaderPartition] != "0" || len(o.headers) != 2:
			bad = fmt.Sprintf("headers %v", o.headers)
		case r.Host != clxJSONHost(m.host):
			bad = fmt.Sprintf("JSON host %q, want %q", r.Host, clxJSONHost(m.host))
		case !clxFieldsInOrder(o.value, false):
			bad = "fields not in the README's order"
		case r.CPUN != m.n || r.RequestsN != m.n:
			bad = fmt.Sprintf("counts %d, %d, want %d", r.CPUN, r.RequestsN, m.n)
		case len(r.CPUSamples) != len(m.samples):
			bad = fmt.Sprintf("samples %v, want %v", r.CPUSamples, m.samples)
		}
		for j := range m.samples {
			if bad == "" && math.Float64bits(m.samples[j]) != math.Float64bits(r.CPUSamples[j]) {
				bad = fmt.Sprintf("samples %v, want %v", r.CPUSamples, m.samples)
			}
		}
		for _, c := range []struct {
			name      string
			want, got float64
		}{
			{"cpu_avg", m.avg, r.CPUAvg}, {"cpu_sd", m.sd, r.CPUSd}, {"requests_avg", m.reqAvg, r.RequestsAvg},
			{"requests_sum", m.reqSum, r.RequestsSum}, {"cpu_min", m.cmin, r.CPUMin}, {"cpu_max", m.cmax, r.CPUMax},
			{"current_avg", m.curAvg, r.CurrentAvg}, {"current_sd", m.curSd, r.CurrentSd},
		} {
			if bad == "" && !clxClose(c.want, c.got) {
				bad = fmt.Sprintf("%s %v, want %v", c.name, c.got, c.want)
			}
		}
		if bad != "" {
			t.Fatalf("record %d (%q, %d): %s: %s", i, k.Host, k.BoundaryMs, bad, o.value)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Fatalf("row (%q, %d) missing", k.Host, k.BoundaryMs)
		}
	}
}

// clxHosts are the keys of the hostile probe: empty, unicode, control
// characters and JSON's specials, bytes that are not UTF-8, and the
// longest key a host may have (256 bytes).
var clxHosts = [][]byte{
	[]byte("host-0000"), {}, nil, []byte("hôte-é-日本"), []byte("ctl\x01\"\\\n\t\x7f"),
	[]byte("bad\xff\xfeutf8"), []byte(strings.Repeat("x", 256)), []byte("host-0001"),
}

// clxHostile returns n input records of a seeded random stream with
// hostile records mixed in: values of every wrong length, NaN and ±Inf,
// late and out-of-range timestamps, duplicates, over-long keys, gaps
// (with gap, one in the middle that lets every host leave), and numbers of every sign and many magnitudes.
func clxHostile(seed uint64, n int, gap bool) []clxRec {
	rng := rand.New(rand.NewPCG(seed, 0xc1c))
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + int64(rng.IntN(1000))
	num := func() float64 {
		switch rng.IntN(8) {
		case 0:
			return math.Copysign(0, -1)
		case 1:
			return -rng.Float64() * 1e6
		case 2:
			return rng.Float64() * 1e-300
		case 3:
			return float64(rng.IntN(5))
		default:
			return rng.Float64()
		}
	}
	var recs []clxRec
	for len(recs) < n {
		switch r := rng.IntN(100); {
		case r < 40:
		case r < 80:
			t += []int64{1, 37, 99, 100, 199, 200, 201}[rng.IntN(7)]
		case r < 83:
			t += 500 + int64(rng.IntN(3000))
		}
		if len(recs) == n/2 && gap {
			t += 61_000 + int64(rng.IntN(10_000)) // every host leaves
		}
		key := clxHosts[rng.IntN(len(clxHosts))]
		rec := clxRec{key: key, ms: t, value: clxValue(num(), num())}
		switch r := rng.IntN(100); {
		case r < 4:
			rec.value = make([]byte, []int{0, 1, 8, 15, 17, 32, 4096}[rng.IntN(7)])
		case r < 6:
			rec.value = nil
		case r < 9:
			bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000000)}[rng.IntN(5)]
			if rng.IntN(2) == 0 {
				rec.value = clxValue(bad, 1)
			} else {
				rec.value = clxValue(0.5, bad)
			}
		case r < 13:
			rec.ms = t - 1 - int64(rng.IntN(70_000)) // late
		case r < 15:
			rec.ms = []int64{5_000_000_000_000, 9_000_000_000_000_000, -5_000_000_000_000}[rng.IntN(3)]
		case r < 17:
			rec.key = []byte(strings.Repeat("k", 257+rng.IntN(2000)))
		case r < 22 && len(recs) > 0:
			rec = recs[len(recs)-1] // the same record again
		}
		recs = append(recs, rec)
	}
	return recs
}

// clxByKey maps the committed output to its record values by key.
func clxByKey(t *testing.T, out []clxOut) map[rows.Key]string {
	t.Helper()
	m := map[rows.Key]string{}
	for _, o := range out {
		k := rows.Key{Host: o.key, BoundaryMs: o.row.BoundaryMs}
		_, dup := m[k]
		require.False(t, dup, "(%q, %d) written twice", k.Host, k.BoundaryMs)
		m[k] = string(o.value)
	}
	return m
}

// clxOneSeries returns the rows one pipeline gives over recs, in one
// push each of per records, as JSON by key (the README's "equal to each
// partition's events in a series of their own"), and what it left out.
func clxOneSeries(t *testing.T, recs []clxRec, per int) (map[rows.Key]string, uint64) {
	t.Helper()
	p, err := worker.NewPipeline()
	require.NoError(t, err)
	m := map[rows.Key]string{}
	var out []rows.Row
	for i, r := range recs {
		p.AddRecord(r.record())
		if (i+1)%per == 0 || i == len(recs)-1 {
			out, err = p.Flush(out[:0])
			require.NoError(t, err)
			for _, row := range out {
				m[row.Key()] = string(row.AppendJSON(nil))
			}
		}
	}
	return m, p.Dropped()
}

// TestClxHostileInputGivesTheDocumentedRows: seeded random input streams
// with hostile records mixed in, fed to workers stopped and replaced at
// random points (each replacement replays), with small random polls (many
// transactions). The committed output is one record per (host,
// boundary) with the README's key, headers, field order and values, equal
// to a model of the README's rules, and byte for byte the rows of one
// in-process pipeline over the same records pushed in other batches;
// every hostile record is counted as left out, once.
func TestClxHostileInputGivesTheDocumentedRows(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			recs := clxHostile(seed, 300, seed%2 == 1)
			want, left := clxModel(recs)
			require.NotZero(t, left)
			require.Greater(t, len(want), 100)
			rng := rand.New(rand.NewPCG(seed, 7))
			oneSeries, dropped := clxOneSeries(t, recs, 1+rng.IntN(50))
			assert.EqualValues(t, left, dropped)

			seeds, cl := clxEmbedded(ctx, t)
			cuts := []int{rng.IntN(len(recs)), rng.IntN(len(recs)), rng.IntN(len(recs)), len(recs)}
			slices.Sort(cuts)
			var leftOut uint64
			from := 0
			for i, c := range cuts {
				if c == from {
					continue
				}
				clxProduce(ctx, t, cl, recs[from:c], 1+rng.IntN(100))
				from = c
				poll := 20 + rng.IntN(100)
				st := clxRunUntil(ctx, t, seeds, "part-"+strconv.Itoa(i), int64(c), func(c *worker.Config) { c.MaxPollRecords = poll })
				leftOut += st.LeftOut
				assert.Zero(t, st.Suppressed)
			}
			assert.EqualValues(t, left, leftOut, "each left-out record counted once over the runs")
			got := clxReadOutput(ctx, t, seeds)
			clxCheckRows(t, want, got)
			assert.Equal(t, oneSeries, clxByKey(t, got), "the same bytes as one series without replays")
		})
	}
}

// clxTwoRuns produces recs[:cut] and runs a worker until it has committed
// them, then produces the rest and runs another one (which replays) until
// it has committed everything; it returns the committed output and the
// events the two left out.
func clxTwoRuns(ctx context.Context, t *testing.T, recs []clxRec, cut int) ([]clxOut, uint64) {
	t.Helper()
	seeds, cl := clxEmbedded(ctx, t)
	clxProduce(ctx, t, cl, recs[:cut], 500)
	a := clxRunUntil(ctx, t, seeds, "a", int64(cut), nil)
	clxProduce(ctx, t, cl, recs[cut:], 500)
	b := clxRunUntil(ctx, t, seeds, "b", int64(len(recs)), nil)
	assert.Zero(t, a.Suppressed+b.Suppressed, "README: rows_suppressed stays 0")
	return clxReadOutput(ctx, t, seeds), a.LeftOut + b.LeftOut
}

// TestClxTimesAtThe2116EdgeAreTaken: the README leaves out a timestamp
// "after 2116" (schema.MaxTime, 2^62 − 1 ns); a stream
// that ends exactly at the last millisecond the series holds gets every
// row up to it, through a replay, and a record one millisecond later, a
// 900 kB value, a record without a value and one without a key but with
// a good value are handled as documented (left out, left out, left out,
// host "").
func TestClxTimesAtThe2116EdgeAreTaken(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const maxMs = (1<<62 - 1) / int64(time.Millisecond)
	var recs []clxRec
	for i := range 900 {
		ms := maxMs - 90_000 + int64(i)*100
		if i == 899 {
			ms = maxMs
		}
		recs = append(recs, clxRec{key: []byte("edge-" + strconv.Itoa(i%3)), ms: ms, value: clxValue(float64(i%11)/10, float64(i%5))})
		switch i {
		case 100:
			recs = append(recs, clxRec{key: []byte("edge-0"), ms: ms, value: make([]byte, 900<<10)})
		case 200:
			recs = append(recs, clxRec{key: []byte("edge-1"), ms: ms})
		case 300:
			recs = append(recs, clxRec{ms: ms, value: clxValue(0.25, 2)})
		case 899:
			recs = append(recs, clxRec{key: []byte("edge-2"), ms: maxMs + 1, value: clxValue(0.5, 1)})
		}
	}
	want, left := clxModel(recs)
	require.Equal(t, 3, left)
	require.Contains(t, want, rows.Key{Host: "", BoundaryMs: clxFloorDiv(maxMs-90_000+30_000, 200)*200 + 200})
	got, leftOut := clxTwoRuns(ctx, t, recs, 600)
	assert.EqualValues(t, left, leftOut)
	clxCheckRows(t, want, got)
	last := got[len(got)-1].row.BoundaryMs
	assert.Equal(t, maxMs/200*200, last, "the last boundary at or before the last event")
}

// TestClxARecordFarAheadPoisonsAsDocumented: the README's limit — one
// record stamped years ahead (within 1970–2116) moves its partition's
// clock there: each of its hosts gets a row at every boundary until its
// windows are empty (300 rows a host), and every later, correct event
// is left out as late; a replay after it gives the same. The worker
// neither stalls on the boundaries skipped nor writes more.
func TestClxARecordFarAheadPoisonsAsDocumented(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	var recs []clxRec
	for i := range 300 {
		for _, h := range []string{"p-a", "p-b", "p-c"} {
			recs = append(recs, clxRec{key: []byte(h), ms: t0 + int64(i)*100, value: clxValue(float64(i%7)/7, 1)})
		}
	}
	ahead := time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	recs = append(recs, clxRec{key: []byte("p-a"), ms: ahead, value: clxValue(0.5, 1)})
	cut := len(recs)
	for i := range 300 {
		recs = append(recs, clxRec{key: []byte("p-b"), ms: t0 + 30_000 + int64(i)*100, value: clxValue(0.5, 1)})
	}
	recs = append(recs, clxRec{key: []byte("p-c"), ms: ahead + 61_000, value: clxValue(0.5, 1)})
	want, left := clxModel(recs)
	require.Equal(t, 300, left)
	perHost := map[string]int{}
	for k := range want {
		if k.BoundaryMs >= t0+30_000 {
			perHost[k.Host]++
		}
	}
	// Each host: the minute after its last event before the jump (its
	// window emptied by the jump); p-a also the minute after the jump,
	// closed by p-c's last record; p-c's own last record closes nothing
	// of p-c's, and p-b's events after the jump are left out.
	require.Equal(t, map[string]int{"p-a": 300 + 300, "p-b": 300, "p-c": 300}, perHost)
	got, leftOut := clxTwoRuns(ctx, t, recs, cut)
	assert.EqualValues(t, left, leftOut)
	clxCheckRows(t, want, got)
}

// TestClxAbortedInputTransactionsAreNotRead: the README's producer
// writes the input in transactions and the workers read it
// read-committed, the replay too. A producer's aborted transactions
// (here every third, with records of their own hosts and of the others)
// give no row and count as nothing, before and after a new owner's
// replay.
func TestClxAbortedInputTransactionsAreNotRead(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seeds, _ := clxEmbedded(ctx, t)
	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.TransactionalID("clx-producer"), kgo.DefaultProduceTopic(brokers.Input))
	require.NoError(t, err)
	defer prod.Close()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	var committed []clxRec
	var ends []int64 // after each committed transaction: the next offset of a record
	for k := range 120 {
		var txn []clxRec
		for h := range 3 {
			txn = append(txn, clxRec{key: []byte("t-" + strconv.Itoa(h)), ms: t0 + int64(k)*500, value: clxValue(float64((k+h)%9)/9, float64(h))})
		}
		abort := k%3 == 1
		if abort {
			txn = append(txn, clxRec{key: []byte("aborted-host"), ms: t0 + int64(k)*500, value: clxValue(99, 99)})
		}
		require.NoError(t, prod.BeginTransaction())
		var last int64
		for _, r := range txn {
			pr, err := prod.ProduceSync(ctx, r.record()).First()
			require.NoError(t, err)
			last = pr.Offset
		}
		require.NoError(t, prod.EndTransaction(ctx, kgo.TransactionEndTry(!abort)))
		if !abort {
			committed = append(committed, txn...)
			ends = append(ends, last+1)
		}
		if k == 59 {
			clxRunUntil(ctx, t, seeds, "a", ends[len(ends)-1], nil)
		}
	}
	st := clxRunUntil(ctx, t, seeds, "b", ends[len(ends)-1], nil)
	assert.Positive(t, st.ReplayedEvents, "the second worker replayed")
	assert.Zero(t, st.LeftOut)
	want, left := clxModel(committed)
	require.Zero(t, left)
	clxCheckRows(t, want, clxReadOutput(ctx, t, seeds))
}

// TestClxPipelineMatchesTheModelAroundAMinute: the worker's pipeline,
// in-process, over seeded random streams whose gaps sit around the
// longest window (a host back after 59.8, 60 or 60.2 s, when the README
// says a host leaves "a minute after its last event"), with duplicates,
// late and bad records, pushed in random batches: its rows are the
// model's, and it counts what the model leaves out.
func TestClxPipelineMatchesTheModelAroundAMinute(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 41))
	for c := range 12 {
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + int64(rng.IntN(400))
		tm := t0
		var recs []clxRec
		hosts := 1 + rng.IntN(4)
		for range 20 + rng.IntN(80) {
			switch rng.IntN(30) {
			case 0:
				tm += []int64{59_800, 59_999, 60_000, 60_001, 60_200}[rng.IntN(5)]
			case 1, 2, 3, 4, 5, 6, 7, 8, 9:
				tm += int64(rng.IntN(400))
			}
			rec := clxRec{key: []byte("h" + strconv.Itoa(rng.IntN(hosts))), ms: tm, value: clxValue(rng.Float64(), float64(rng.IntN(100)))}
			switch rng.IntN(20) {
			case 0:
				rec.ms -= 1 + int64(rng.IntN(61_000))
			case 1:
				rec.value = rec.value[:15]
			case 2:
				if len(recs) > 0 {
					rec = recs[len(recs)-1]
				}
			}
			recs = append(recs, rec)
		}
		want, left := clxModel(recs)
		p, err := worker.NewPipeline()
		require.NoError(t, err)
		var got []rows.Row
		for i, r := range recs {
			p.AddRecord(r.record())
			if rng.IntN(5) == 0 || i == len(recs)-1 {
				got, err = p.Flush(got)
				require.NoError(t, err)
			}
		}
		require.EqualValues(t, left, p.Dropped(), "case %d", c)
		outs := make([]clxOut, len(got))
		for i, r := range got {
			outs[i] = clxOut{key: r.Host, value: r.AppendJSON(nil), row: r, headers: map[string]string{
				rows.HeaderBoundary: strconv.FormatInt(r.BoundaryMs, 10), rows.HeaderPartition: "0"}}
		}
		clxCheckRows(t, want, outs)
	}
}

// clxStartWorker runs a worker until the test ends or its stop is
// called; stop waits for Run to return without error.
func clxStartWorker(ctx context.Context, t *testing.T, seeds []string, id string) (stop func()) {
	t.Helper()
	w, err := worker.New(worker.Config{Brokers: seeds, ID: id})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		require.NoError(t, <-done)
		w.Close()
	}
	t.Cleanup(stop)
	return stop
}

// clxWaitCommitted waits until every input partition's committed offset
// has reached its end.
func clxWaitCommitted(ctx context.Context, t *testing.T, seeds []string, ends map[int32]int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		cps, err := worker.ReadCheckpoints(ctx, adm)
		require.NoError(t, err)
		behind := false
		for p, end := range ends {
			if cps[p].Offset < end {
				behind = true
			}
		}
		if !behind {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("committed %+v, want %v: %v", cps, ends, ctx.Err())
		case <-tick.C:
		}
	}
}

// TestClxPartitionsAndWorkersGiveEachPartitionsRows: three input
// partitions, hosts placed by the client's default partitioner, two
// workers, then one of them stopped and the other taking its partitions
// over (a replay) while the input goes on: every row is the model's rows
// of its own partition's records (a boundary closes when its partition
// sees a later event), carries that partition in pond-partition, and is
// written once.
func TestClxPartitionsAndWorkersGiveEachPartitionsRows(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(e.Close)
	seeds := e.Addrs()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, 3))
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	defer cl.Close()

	rng := rand.New(rand.NewPCG(3, 3))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	byPart := map[int32][]clxRec{}
	ends := map[int32]int64{}
	produce := func(from, to int) {
		var krs []*kgo.Record
		for k := from; k < to; k++ {
			for h := range 9 {
				r := clxRec{key: []byte("ph-" + strconv.Itoa(h)), ms: t0 + int64(k)*100 + int64(rng.IntN(3)), value: clxValue(rng.Float64(), float64(h))}
				if k%50 == 7 && h == 4 {
					r.value = nil // left out
				}
				krs = append(krs, r.record())
			}
		}
		res := cl.ProduceSync(ctx, krs...)
		require.NoError(t, res.FirstErr())
		for _, pr := range res {
			r := pr.Record
			byPart[r.Partition] = append(byPart[r.Partition], clxRec{key: r.Key, ms: r.Timestamp.UnixMilli(), value: r.Value})
			ends[r.Partition] = max(ends[r.Partition], r.Offset+1)
		}
	}
	produce(0, 200)
	stopA := clxStartWorker(ctx, t, seeds, "pa")
	clxStartWorker(ctx, t, seeds, "pb")
	clxWaitCommitted(ctx, t, seeds, ends)
	produce(200, 300)
	stopA()
	produce(300, 400)
	clxWaitCommitted(ctx, t, seeds, ends)
	require.Len(t, ends, 3, "the hosts fill the three partitions")

	// Read every output partition up to a marker of its own.
	rd, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Output),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer rd.Close()
	manual, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer manual.Close()
	marks := map[int32]int64{}
	for p := range int32(3) {
		pr, err := manual.ProduceSync(ctx, &kgo.Record{Topic: brokers.Output, Partition: p, Key: []byte("clx-end")}).First()
		require.NoError(t, err)
		marks[pr.Partition] = pr.Offset
	}
	outByPart := map[string][]clxOut{}
	for len(marks) > 0 {
		fs := rd.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := marks[r.Partition]
			if !ok {
				return
			}
			if r.Offset >= end {
				delete(marks, r.Partition)
				return
			}
			o := clxOut{key: string(r.Key), value: r.Value, headers: map[string]string{}}
			for _, h := range r.Headers {
				o.headers[h.Key] = string(h.Value)
			}
			o.row, err = rows.Decode(r.Value)
			require.NoError(t, err)
			outByPart[o.headers[rows.HeaderPartition]] = append(outByPart[o.headers[rows.HeaderPartition]], o)
		})
	}
	total := 0
	for p, recs := range byPart {
		want, _ := clxModel(recs)
		got := outByPart[strconv.Itoa(int(p))]
		for i := range got {
			got[i].headers[rows.HeaderPartition] = "0" // clxCheckRows checks the partition "0"
		}
		clxCheckRows(t, want, got)
		total += len(got)
	}
	n := 0
	for _, g := range outByPart {
		n += len(g)
	}
	assert.Equal(t, n, total, "every row carries the partition of its host's records")
}
