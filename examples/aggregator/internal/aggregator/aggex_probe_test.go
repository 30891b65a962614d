package aggregator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
)

// ---------------------------------------------------------------------
// Harness

var agxQuiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// agxT0 is a 200 ms boundary well in the past (so no row is "future").
var agxT0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

type agxRow struct {
	t        int64 // ns
	cpu, req float64
	host     string
}

func agxBatch(rows []agxRow) *schema.Batch {
	b := schema.NewBatch(aggregator.Schema, len(rows))
	for _, r := range rows {
		b.Time = append(b.Time, r.t)
		b.Cols[0].Num = append(b.Cols[0].Num, r.cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, r.req)
		b.Cols[2].Str = append(b.Cols[2].Str, r.host)
	}
	return b
}

// agxServe serves a over a loopback httptest server and returns the ws://
// and http:// bases.
func agxServe(t *testing.T, a *aggregator.Aggregator) (ws, base string) {
	t.Helper()
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		a.Close()
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http"), srv.URL
}

func agxNew(t *testing.T, cfg aggregator.Config) *aggregator.Aggregator {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = agxQuiet
	}
	a, err := aggregator.New(cfg)
	require.NoError(t, err)
	return a
}

// agxFrame is one frame as received: its bytes and its decoding.
type agxFrame struct {
	data []byte
	f    *wire.Frame
}

// agxClient reads every frame of one WebSocket into a channel.
type agxClient struct {
	t      *testing.T
	conn   *websocket.Conn
	frames chan agxFrame
	done   chan error // the read error that ended the reader
}

func agxDial(t *testing.T, url string) *agxClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, nil)
	require.NoError(t, err)
	conn.SetReadLimit(1 << 30)
	c := &agxClient{t: t, conn: conn, frames: make(chan agxFrame, 4096), done: make(chan error, 1)}
	go func() {
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				c.done <- err
				close(c.frames)
				return
			}
			f, derr := wire.Decode(data)
			if derr != nil {
				c.done <- derr
				close(c.frames)
				return
			}
			c.frames <- agxFrame{data: data, f: f}
		}
	}()
	t.Cleanup(func() { conn.CloseNow() })
	return c
}

// next returns the next frame, failing after 5 s.
func (c *agxClient) next() agxFrame {
	c.t.Helper()
	select {
	case fr, ok := <-c.frames:
		if !ok {
			c.t.Fatalf("connection ended: %v", <-c.done)
		}
		return fr
	case <-time.After(5 * time.Second):
		c.t.Fatal("no frame within 5 s")
	}
	return agxFrame{}
}

// ---------------------------------------------------------------------
// The model, from the README ("Frames", "Choices the example's family
// leaves open") and docs/workload.md ("What the answers depend on").

const (
	agxTickNs = int64(200 * time.Millisecond)
	agxMin    = int64(time.Minute)
	agxSec    = int64(time.Second)
)

type agxModel struct {
	retention int64
	aligned   bool // ticks at b hold [b − span, b)
	drop      bool // late rows are dropped
	dropped   int
	hosts     []string            // first-seen order
	rows      map[string][]agxRow // per host
	all       []agxRow            // every row taken, in order
	bucket    int64
	hasBucket bool
	firstMs   int64
	reqTotal  float64
	ticks     []agxTick
}

type agxTick struct {
	ts        int64 // ms
	rows      []wire.HostTick
	samples   [][]float64 // the 200 ms samples of each row
	perSec    int64       // rows of [T − 1 s, T] up to the push's last crossing row
	ingested  uint64      // after the push
	evicted   uint64
	reqTotal  float64
	lastOfPsh bool
}

func agxNewModel(retention time.Duration) *agxModel {
	return &agxModel{retention: int64(retention), rows: map[string][]agxRow{}}
}

func agxFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// push takes a batch (strictly ordered unless the model drops late rows)
// and returns the ticks it emitted.
func (m *agxModel) push(rows []agxRow) []agxTick {
	var out []agxTick
	var perSec int64
	for _, r := range rows {
		if m.drop && len(m.all) > 0 && r.t < m.all[len(m.all)-1].t {
			m.dropped++
			continue
		}
		if len(m.all) == 0 {
			m.firstMs = r.t / int64(time.Millisecond)
		}
		m.all = append(m.all, r)
		m.reqTotal += r.req
		if _, ok := m.rows[r.host]; !ok {
			m.hosts = append(m.hosts, r.host)
		}
		m.rows[r.host] = append(m.rows[r.host], r)
		b := agxFloorDiv(r.t, agxTickNs)
		if !m.hasBucket {
			m.bucket, m.hasBucket = b, true
			continue
		}
		if b <= m.bucket {
			continue
		}
		perSec = 0
		for _, x := range m.all {
			if x.t >= r.t-agxSec {
				perSec++
			}
		}
		if m.aligned {
			// Each boundary closed holds the rows before it.
			for bb := m.bucket + 1; bb <= b; bb++ {
				if tk, ok := m.tick(bb*agxTickNs, bb*agxTickNs, false); ok {
					out = append(out, tk)
				}
			}
		} else if tk, ok := m.tick(b*agxTickNs, r.t, true); ok {
			out = append(out, tk)
		}
		m.bucket = b
	}
	// The totals are read once the push is done.
	var latest int64
	if len(m.all) > 0 {
		latest = m.all[len(m.all)-1].t
	}
	evicted := 0
	for _, x := range m.all {
		if x.t < latest-m.retention {
			evicted++
		}
	}
	for i := range out {
		out[i].ingested = uint64(len(m.all))
		out[i].evicted = uint64(evicted)
		out[i].reqTotal = m.reqTotal
		out[i].perSec = perSec
		out[i].lastOfPsh = i == len(out)-1
	}
	m.ticks = append(m.ticks, out...)
	return out
}

// tick builds the tick keyed at key (ns) over windows ending at end:
// closed ([end − span, end]) or, aligned, open at the end.
func (m *agxModel) tick(key, end int64, closed bool) (agxTick, bool) {
	tk := agxTick{ts: key / int64(time.Millisecond)}
	age := math.Max(0, math.Min(60, float64(tk.ts-m.firstMs)/1000))
	in := func(x agxRow, span int64) bool { return x.t >= end-span && (closed || x.t < end) }
	for _, h := range m.hosts {
		var w1 []agxRow
		var cur []float64
		for _, x := range m.rows[h] {
			if in(x, agxMin) {
				w1 = append(w1, x)
			}
			if in(x, agxTickNs) {
				cur = append(cur, x.cpu)
			}
		}
		if len(w1) == 0 {
			continue
		}
		cpus, reqs := make([]float64, len(w1)), make([]float64, len(w1))
		for i, x := range w1 {
			cpus[i], reqs[i] = x.cpu, x.req
		}
		avg, sd := agxMeanSd(cpus)
		ravg, _ := agxMeanSd(reqs)
		ht := wire.HostTick{
			TS: tk.ts, Host: h, CPUAvg: avg, CPUSd: sd, CPUN: len(w1), NCurrent: len(cur),
			RequestsAvg: ravg, RequestsSum: agxSum(reqs), RequestsN: len(w1), WindowAgeSeconds: age,
			CPUMin: math.NaN(), CPUMax: math.NaN(), CurrentAvg: math.NaN(), CurrentSd: math.NaN(),
		}
		if len(cur) > 0 {
			ht.CPUMin, ht.CPUMax = slices.Min(cur), slices.Max(cur)
			ht.CurrentAvg, ht.CurrentSd = agxMeanSd(cur)
		}
		tk.rows = append(tk.rows, ht)
		tk.samples = append(tk.samples, cur)
	}
	return tk, len(tk.rows) > 0
}

// window returns the raw window: the rows no older than the latest minus
// the retention, in the order taken.
func (m *agxModel) window() []agxRow {
	if len(m.all) == 0 {
		return nil
	}
	latest := m.all[len(m.all)-1].t
	var w []agxRow
	for _, x := range m.all {
		if x.t >= latest-m.retention {
			w = append(w, x)
		}
	}
	return w
}

func agxSum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// agxMeanSd is the mean and the population σ, two-pass.
func agxMeanSd(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	mean := agxSum(xs) / float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(xs)))
}

// agxClose reports whether two numbers agree: both missing, or within a
// relative 1e-9 (the library's sums are compensated, the model's naive).
func agxClose(want, got float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	return math.Abs(want-got) <= 1e-9*math.Max(1, math.Abs(want))
}

// agxCheckRow compares one emitted HostTick with the model's. The anomaly
// counts are recomputed with the documented strict rule from the row's
// own cpu_avg and cpu_sd and the model's 200 ms samples.
func agxCheckRow(t *testing.T, what string, thresholds []float64, want wire.HostTick, samples []float64, got wire.HostTick) {
	t.Helper()
	assert.Equal(t, want.TS, got.TS, "%s: ts", what)
	assert.Equal(t, want.Host, got.Host, "%s: host", what)
	for _, p := range []struct {
		name      string
		want, got float64
	}{
		{"cpu_avg", want.CPUAvg, got.CPUAvg}, {"cpu_sd", want.CPUSd, got.CPUSd},
		{"requests_avg", want.RequestsAvg, got.RequestsAvg}, {"requests_sum", want.RequestsSum, got.RequestsSum},
		{"window_age_seconds", want.WindowAgeSeconds, got.WindowAgeSeconds},
		{"cpu_min", want.CPUMin, got.CPUMin}, {"cpu_max", want.CPUMax, got.CPUMax},
		{"current_avg", want.CurrentAvg, got.CurrentAvg}, {"current_sd", want.CurrentSd, got.CurrentSd},
	} {
		if !agxClose(p.want, p.got) {
			t.Errorf("%s host %q: %s = %v, want %v", what, want.Host, p.name, p.got, p.want)
		}
	}
	assert.Equal(t, want.CPUN, got.CPUN, "%s host %q: cpu_n", what, want.Host)
	assert.Equal(t, want.NCurrent, got.NCurrent, "%s host %q: n_current", what, want.Host)
	assert.Equal(t, want.RequestsN, got.RequestsN, "%s host %q: requests_n", what, want.Host)
	above, below := make([]int, len(thresholds)), make([]int, len(thresholds))
	if !math.IsNaN(got.CPUAvg) && !math.IsNaN(got.CPUSd) {
		for _, v := range samples {
			for i, th := range thresholds {
				switch d := v - got.CPUAvg; {
				case d > th*got.CPUSd:
					above[i]++
				case -d > th*got.CPUSd:
					below[i]++
				}
			}
		}
	}
	assert.Equal(t, above, got.AnomaliesAbove, "%s host %q: anomalies_above", what, want.Host)
	assert.Equal(t, below, got.AnomaliesBelow, "%s host %q: anomalies_below", what, want.Host)
}

// agxKeyOrder returns the keys of the first object found at path
// "rows"[0] and, when present, "globals" of a frame, in order.
func agxKeyOrder(t *testing.T, data []byte) (row, globals []string) {
	t.Helper()
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &top))
	keys := func(raw json.RawMessage) []string {
		dec := json.NewDecoder(bytes.NewReader(raw))
		tok, err := dec.Token()
		require.NoError(t, err)
		if d, ok := tok.(json.Delim); ok && d == '[' {
			if !dec.More() {
				return nil
			}
			tok, err = dec.Token()
			require.NoError(t, err)
		}
		require.Equal(t, json.Delim('{'), tok)
		var ks []string
		for dec.More() {
			k, err := dec.Token()
			require.NoError(t, err)
			ks = append(ks, k.(string))
			var skip json.RawMessage
			require.NoError(t, dec.Decode(&skip))
		}
		return ks
	}
	if r, ok := top["rows"]; ok {
		row = keys(r)
	}
	if g, ok := top["globals"]; ok {
		globals = keys(g)
	}
	return row, globals
}

var agxHostTickKeys = []string{"ts", "host", "cpu_avg", "cpu_sd", "cpu_n", "n_current",
	"anomalies_above", "anomalies_below", "requests_avg", "requests_sum", "requests_n",
	"window_age_seconds", "cpu_min", "cpu_max", "current_avg", "current_sd"}
var agxGlobalsKeys = []string{"ts", "events_ingested_total", "events_per_sec", "evicted_total", "requests_ingested_total"}

// agxRandomStream draws a strictly ordered stream of batches: a few
// hosts (one with an empty name, one unicode), times on a millisecond
// grid moving on by 0 to 260 ms a batch (some batches cross no boundary,
// a few cross two), cpu on a binary grid with repeats, integer requests,
// duplicate rows; with late, some rows up to 3 s late.
func agxRandomStream(rng *rand.Rand, batches int, late bool) [][]agxRow {
	hosts := []string{"api-1", "api-2", "", "höst-ü", "db \"q\"", "a\\b"}[:2+rng.IntN(5)]
	t := agxT0 + int64(rng.IntN(200))*int64(time.Millisecond)
	var out [][]agxRow
	for range batches {
		var b []agxRow
		n := rng.IntN(6)
		for range n {
			switch rng.IntN(10) {
			case 0:
				t += int64(200+rng.IntN(260)) * int64(time.Millisecond)
			case 1, 2, 3:
				t += int64(rng.IntN(120)) * int64(time.Millisecond)
			}
			r := agxRow{t: t, cpu: float64(rng.IntN(1025)) / 1024, req: float64(rng.IntN(200)), host: hosts[rng.IntN(len(hosts))]}
			if rng.IntN(8) == 0 {
				r.cpu = 0.5
			}
			if late && rng.IntN(8) == 0 {
				r.t -= int64(1+rng.IntN(3000)) * int64(time.Millisecond)
			}
			b = append(b, r)
			if rng.IntN(10) == 0 {
				b = append(b, r) // a duplicate row
			}
		}
		out = append(out, b)
	}
	return out
}

// ---------------------------------------------------------------------
// Frames against the model

// TestAgxFramesMatchAnIndependentModel pushes seeded random streams with
// a /live and a /live-agg client connected from the start, and compares
// every frame, the snapshots of clients connecting at the end, the field
// order of the JSON and the counters against a model written from the
// README.
func TestAgxFramesMatchAnIndependentModel(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 41))
		mode := []string{"strict", "drop", "aligned"}[seed%3]
		stream := agxRandomStream(rng, 100, mode == "drop")
		retention := time.Duration(2+rng.IntN(20)) * time.Second
		cfg := aggregator.Config{Retention: retention, Workers: 1 + rng.IntN(3), Aligned: mode == "aligned"}
		if mode == "drop" {
			cfg.Ordering = live.Drop
		}
		a := agxNew(t, cfg)
		ws, _ := agxServe(t, a)
		agg := agxDial(t, ws+"/live-agg")
		raw := agxDial(t, ws+"/live")
		snap := agg.next()
		require.Equal(t, wire.TypeAggregateSnapshot, snap.f.Type)
		assert.Empty(t, snap.f.Rows)
		assert.Equal(t, wire.DefaultThresholds, snap.f.Thresholds)
		rsnap := raw.next()
		require.Equal(t, wire.TypeSnapshot, rsnap.f.Type)
		assert.Empty(t, rsnap.f.RawRows)

		m := agxNewModel(retention)
		m.aligned, m.drop = mode == "aligned", mode == "drop"
		var wantAppends [][]agxRow
		for _, b := range stream {
			require.NoError(t, a.Push(agxBatch(b), time.Now()), "seed %d", seed)
			before := len(m.all)
			m.push(b)
			if len(m.all) > before {
				wantAppends = append(wantAppends, m.all[before:])
			}
		}
		st := a.Stats()
		require.EqualValues(t, len(m.ticks), st.TicksEmitted, "seed %d: ticks", seed)
		assert.EqualValues(t, len(m.all), st.Series.Ingested, "seed %d", seed)
		assert.EqualValues(t, len(m.window()), st.Series.Length, "seed %d", seed)
		assert.EqualValues(t, m.dropped, st.Refused.Order, "seed %d: late rows dropped", seed)
		assert.EqualValues(t, m.dropped, st.RejectedRows, "seed %d", seed)

		for i, tk := range m.ticks {
			fr := agg.next()
			what := mode + " seed " + string(rune('0'+seed)) + " tick"
			require.Equal(t, wire.TypeAggregateAppend, fr.f.Type, what)
			require.Len(t, fr.f.Globals, 1, what)
			g := fr.f.Globals[0]
			assert.Equal(t, tk.ts, g.TS, "%s %d: globals ts", what, i)
			assert.Equal(t, tk.ingested, g.EventsIngestedTotal, "%s %d: events_ingested_total", what, i)
			assert.Equal(t, tk.evicted, g.EvictedTotal, "%s %d: evicted_total", what, i)
			assert.Equal(t, tk.reqTotal, g.RequestsIngestedTotal, "%s %d: requests_ingested_total", what, i)
			if tk.lastOfPsh {
				// events_per_sec of a push crossing two boundaries: see
				// the report; only the last tick of a push is compared.
				assert.Equal(t, tk.perSec, g.EventsPerSec, "%s %d (ts %d): events_per_sec", what, i, tk.ts)
			}
			require.Len(t, fr.f.Rows, len(tk.rows), "%s %d: hosts", what, i)
			for j := range tk.rows {
				agxCheckRow(t, what, wire.DefaultThresholds, tk.rows[j], tk.samples[j], fr.f.Rows[j])
			}
			if i < 3 && len(tk.rows) > 0 {
				rk, gk := agxKeyOrder(t, fr.data)
				assert.Equal(t, agxHostTickKeys, rk)
				assert.Equal(t, agxGlobalsKeys, gk)
			}
		}
		for i, b := range wantAppends {
			fr := raw.next()
			require.Equal(t, wire.TypeAppend, fr.f.Type)
			require.Len(t, fr.f.RawRows, len(b), "seed %d append %d", seed, i)
			for j, r := range b {
				assert.Equal(t, wire.RawRow{TimeMs: r.t / 1e6, CPU: r.cpu, Requests: r.req, Host: r.host}, fr.f.RawRows[j])
			}
		}

		// Late clients: the history and the raw window as snapshots.
		late := agxDial(t, ws+"/live-agg")
		ls := late.next()
		require.Equal(t, wire.TypeAggregateSnapshot, ls.f.Type)
		require.Len(t, ls.f.Globals, len(m.ticks))
		k := 0
		for i, tk := range m.ticks {
			assert.Equal(t, tk.ts, ls.f.Globals[i].TS)
			for j := range tk.rows {
				require.Less(t, k, len(ls.f.Rows))
				agxCheckRow(t, "snapshot", wire.DefaultThresholds, tk.rows[j], tk.samples[j], ls.f.Rows[k])
				k++
			}
		}
		assert.Len(t, ls.f.Rows, k)
		lateRaw := agxDial(t, ws+"/live")
		lr := lateRaw.next()
		require.Equal(t, wire.TypeSnapshot, lr.f.Type)
		w := m.window()
		require.Len(t, lr.f.RawRows, len(w), "seed %d: raw snapshot", seed)
		for j, r := range w {
			assert.Equal(t, wire.RawRow{TimeMs: r.t / 1e6, CPU: r.cpu, Requests: r.req, Host: r.host}, lr.f.RawRows[j])
		}
		a.Close()
	}
}

// agxProject is the documented top-N cut: hosts ranked by the key,
// descending (missing last, ties in emission order), the top n plus the
// hosts of the previous cut ranked n+1.
func agxProject(rows []wire.HostTick, n int, by string, prev map[string]bool) ([]wire.HostTick, map[string]bool) {
	key := func(r wire.HostTick) float64 {
		v := r.CPUAvg
		switch by {
		case "cpu_sd":
			v = r.CPUSd
		case "requests_sum":
			v = r.RequestsSum
		}
		if math.IsNaN(v) {
			return math.Inf(-1)
		}
		return v
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(rows[idx[a]]) > key(rows[idx[b]]) })
	next := map[string]bool{}
	var out []wire.HostTick
	for r, i := range idx {
		if r < n || (r == n && prev[rows[i].Host]) {
			out = append(out, rows[i])
			next[rows[i].Host] = true
		}
	}
	return out, next
}

// TestAgxTopNMatchesTheModel: a /live-agg?n=&by= client connected at the
// start and one at the end get the model's ticks cut to the top n with
// one host of hysteresis, in rank order.
func TestAgxTopNMatchesTheModel(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		by := []string{"cpu_avg", "cpu_sd", "requests_sum"}[seed%3]
		n := 1 + rng.IntN(3)
		hosts := 6
		a := agxNew(t, aggregator.Config{})
		ws, _ := agxServe(t, a)
		url := ws + "/live-agg?n=" + string(rune('0'+n)) + "&by=" + by
		c := agxDial(t, url)
		require.Empty(t, c.next().f.Rows)
		m := agxNewModel(30 * time.Second)
		tm := agxT0
		for range 80 {
			tm += int64(40+rng.IntN(100)) * int64(time.Millisecond)
			var b []agxRow
			for h := range hosts {
				if rng.IntN(3) > 0 {
					b = append(b, agxRow{t: tm, cpu: float64(rng.IntN(64)) / 64, req: float64(rng.IntN(5)), host: "h" + string(rune('a'+h))})
				}
			}
			require.NoError(t, a.Push(agxBatch(b), time.Now()))
			m.push(b)
		}
		var prev map[string]bool
		for i, tk := range m.ticks {
			var want []wire.HostTick
			want, prev = agxProject(tk.rows, n, by, prev)
			fr := c.next()
			var got []string
			for _, r := range fr.f.Rows {
				got = append(got, r.Host)
			}
			var wantHosts []string
			for _, r := range want {
				wantHosts = append(wantHosts, r.Host)
			}
			require.Equal(t, wantHosts, got, "seed %d tick %d (n=%d by=%s)", seed, i, n, by)
		}
		// A late client: the cut applies to the snapshot, hysteresis
		// carried from tick to tick.
		late := agxDial(t, url)
		ls := late.next()
		prev = nil
		var want []string
		for _, tk := range m.ticks {
			var cut []wire.HostTick
			cut, prev = agxProject(tk.rows, n, by, prev)
			for _, r := range cut {
				want = append(want, r.Host)
			}
		}
		var got []string
		for _, r := range ls.f.Rows {
			got = append(got, r.Host)
		}
		assert.Equal(t, want, got, "seed %d: snapshot", seed)
		a.Close()
	}
}

// ---------------------------------------------------------------------
// Hostile batches over gRPC

// agxProducer is a gRPC producer whose Subscribe streams whatever the
// test sends on msgs, and ends the stream when end is closed.
type agxProducer struct {
	eventsv1.UnimplementedProducerServer
	msgs chan []byte
}

func (p *agxProducer) Subscribe(_ *eventsv1.SubscribeRequest, st eventsv1.Producer_SubscribeServer) error {
	for {
		select {
		case m := <-p.msgs:
			if err := st.SendMsg(&eventsv1.Raw{Data: m}); err != nil {
				return err
			}
		case <-st.Context().Done():
			return nil
		}
	}
}

// agxStartProducer serves an agxProducer on a loopback port.
func agxStartProducer(t *testing.T) (*agxProducer, string, *grpc.Server) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(grpc.ForceServerCodecV2(eventsv1.Codec))
	p := &agxProducer{msgs: make(chan []byte, 1024)}
	eventsv1.RegisterProducerServer(srv, p)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return p, lis.Addr().String(), srv
}

// agxRun runs a's ingest until the test ends.
func agxRun(t *testing.T, a *aggregator.Aggregator) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func agxEncode(t *testing.T, evs ...*eventsv1.Event) []byte {
	t.Helper()
	b, err := eventsv1.AppendEvents(nil, evs)
	require.NoError(t, err)
	return b
}

// agxSyncBuffer is a log sink safe for the logger and the test at once.
type agxSyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *agxSyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *agxSyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAgxHostileBatchesOverGRPC sends, between good batches, an empty
// batch, one with NaN and ±Inf values, an empty host name, host names at
// and past the length limit, unknown hosts past the host limit, an
// out-of-order batch, a huge batch, duplicate rows, −0 and extreme
// integers; after each, a marker batch must arrive on /live as it was
// sent (nothing crashed, nothing corrupted), and the refusals must be
// counted by reason.
func TestAgxHostileBatchesOverGRPC(t *testing.T) {
	p, addr, _ := agxStartProducer(t)
	now := time.Now()
	var logs agxSyncBuffer
	a := agxNew(t, aggregator.Config{ProducerAddr: addr, MaxHosts: 4, MaxHostLen: 16,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), Now: func() time.Time { return now }})
	ws, base := agxServe(t, a)
	raw := agxDial(t, ws+"/live")
	require.Equal(t, wire.TypeSnapshot, raw.next().f.Type)
	agxRun(t, a)

	ms := now.Add(-10 * time.Second).UnixMilli()
	step := func() int64 { ms++; return ms }
	// marker sends a good batch of host "m" and waits for its append:
	// the batches before it have all been handled by then.
	marker := func(what string, want ...wire.RawRow) {
		t.Helper()
		tm := step()
		p.msgs <- agxEncode(t, &eventsv1.Event{TimeMs: tm, Cpu: 0.25, Requests: 3, Host: "m"})
		for {
			fr := raw.next()
			require.Equal(t, wire.TypeAppend, fr.f.Type)
			if len(fr.f.RawRows) == 1 && fr.f.RawRows[0].Host == "m" && fr.f.RawRows[0].TimeMs == tm {
				require.Empty(t, want, "%s: the append before the marker never came", what)
				return
			}
			require.NotEmpty(t, want, "%s: an append that should not be: %s", what, fr.data)
			require.Equal(t, want[:len(fr.f.RawRows)], fr.f.RawRows, what)
			want = want[len(fr.f.RawRows):]
		}
	}
	marker("start")

	// An empty batch and a batch of unknown fields only: nothing.
	p.msgs <- nil
	p.msgs <- []byte{0x12, 0x03, 'a', 'b', 'c'} // field 2, unknown
	marker("empty")

	// Non-finite values are refused row by row.
	t1 := step()
	p.msgs <- agxEncode(t,
		&eventsv1.Event{TimeMs: t1, Cpu: math.NaN(), Requests: 1, Host: "m"},
		&eventsv1.Event{TimeMs: t1, Cpu: math.Inf(1), Requests: 1, Host: "m"},
		&eventsv1.Event{TimeMs: t1, Cpu: math.Inf(-1), Requests: 1, Host: "m"},
		&eventsv1.Event{TimeMs: t1, Cpu: math.Copysign(0, -1), Requests: -1 << 62, Host: "m"},
	)
	marker("non-finite", wire.RawRow{TimeMs: t1, CPU: 0, Requests: float64(-1 << 62), Host: "m"})

	// An empty host name is a host like any other; 16 bytes is taken,
	// 17 is refused; a 1 MB name is refused.
	t2 := step()
	p.msgs <- agxEncode(t,
		&eventsv1.Event{TimeMs: t2, Cpu: 0.5, Requests: 1, Host: ""},
		&eventsv1.Event{TimeMs: t2, Cpu: 0.5, Requests: 1, Host: strings.Repeat("x", 16)},
		&eventsv1.Event{TimeMs: t2, Cpu: 0.5, Requests: 1, Host: strings.Repeat("y", 17)},
		&eventsv1.Event{TimeMs: t2, Cpu: 0.5, Requests: 1, Host: strings.Repeat("z", 1<<20)},
	)
	marker("host names",
		wire.RawRow{TimeMs: t2, CPU: 0.5, Requests: 1, Host: ""},
		wire.RawRow{TimeMs: t2, CPU: 0.5, Requests: 1, Host: strings.Repeat("x", 16)})

	// Hosts m, "", xxx… are tracked: one more fits under MaxHosts 4.
	t3 := step()
	p.msgs <- agxEncode(t,
		&eventsv1.Event{TimeMs: t3, Cpu: 0.1, Requests: 1, Host: "n1"},
		&eventsv1.Event{TimeMs: t3, Cpu: 0.2, Requests: 1, Host: "n2"},
		&eventsv1.Event{TimeMs: t3, Cpu: 0.3, Requests: 1, Host: "m"},
		&eventsv1.Event{TimeMs: t3, Cpu: 0.4, Requests: 1, Host: "n3"},
	)
	marker("host limit",
		wire.RawRow{TimeMs: t3, CPU: 0.1, Requests: 1, Host: "n1"},
		wire.RawRow{TimeMs: t3, CPU: 0.3, Requests: 1, Host: "m"})

	// Strict ordering refuses an out-of-order batch whole.
	t4 := step()
	p.msgs <- agxEncode(t,
		&eventsv1.Event{TimeMs: t4, Cpu: 0.5, Requests: 1, Host: "m"},
		&eventsv1.Event{TimeMs: t4 - 5000, Cpu: 0.5, Requests: 1, Host: "m"},
	)
	marker("out of order")

	// Duplicate rows are rows.
	t5 := step()
	dup := &eventsv1.Event{TimeMs: t5, Cpu: 0.75, Requests: 9, Host: "n1"}
	p.msgs <- agxEncode(t, dup, dup, dup)
	d := wire.RawRow{TimeMs: t5, CPU: 0.75, Requests: 9, Host: "n1"}
	marker("duplicates", d, d, d)

	// A huge batch, times repeated.
	t6 := step()
	var huge []*eventsv1.Event
	var hugeRows []wire.RawRow
	for i := range 20000 {
		h := []string{"m", "n1", ""}[i%3]
		huge = append(huge, &eventsv1.Event{TimeMs: t6, Cpu: float64(i%100) / 100, Requests: int64(i), Host: h})
		hugeRows = append(hugeRows, wire.RawRow{TimeMs: t6, CPU: float64(i%100) / 100, Requests: float64(i), Host: h})
	}
	p.msgs <- agxEncode(t, huge...)
	marker("huge", hugeRows...)

	m := a.Metrics()
	r := m.Stats.Refused
	assert.EqualValues(t, 3, r.BadValue, "NaN, +Inf, −Inf")
	assert.EqualValues(t, 2, r.HostLen)
	assert.EqualValues(t, 2, r.HostLimit)
	assert.EqualValues(t, 2, r.Order, "the out-of-order batch's rows")
	assert.EqualValues(t, 1, r.Pushes)
	assert.EqualValues(t, r.BadValue+r.HostLen+r.HostLimit+r.Order+r.Future+r.BadTime, m.Stats.Rejected)
	assert.Zero(t, m.Stats.MalformedBatches)
	assert.NotContains(t, logs.String(), strings.Repeat("z", 100), "a long name is not logged whole")

	// /metrics carries the same counts.
	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, s := range []string{`reason="bad_value"} 3`, `reason="host_length"} 2`, `reason="host_limit"} 2`, `reason="order"} 2`} {
		assert.Contains(t, string(body), "pond_aggregator_rows_refused_total{"+s)
	}
}

// TestAgxBadTimesOverGRPC: rows dated past the skew or out of ±2^62 ns
// are refused and counted, the rest of their batch is taken, and the
// window is not evicted by them.
func TestAgxBadTimesOverGRPC(t *testing.T) {
	p, addr, _ := agxStartProducer(t)
	now := time.Now()
	a := agxNew(t, aggregator.Config{ProducerAddr: addr, Now: func() time.Time { return now }})
	ws, _ := agxServe(t, a)
	raw := agxDial(t, ws+"/live")
	raw.next()
	agxRun(t, a)
	good := now.Add(-time.Second).UnixMilli()
	p.msgs <- agxEncode(t,
		&eventsv1.Event{TimeMs: good, Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: math.MaxInt64, Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: math.MinInt64, Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: now.Add(time.Hour).UnixMilli(), Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: good, Cpu: 0.5, Requests: 2, Host: "b"},
	)
	fr := raw.next()
	require.Equal(t, []wire.RawRow{{TimeMs: good, CPU: 0.5, Requests: 1, Host: "a"}, {TimeMs: good, CPU: 0.5, Requests: 2, Host: "b"}}, fr.f.RawRows)
	st := a.Stats()
	assert.EqualValues(t, 2, st.Refused.BadTime)
	assert.EqualValues(t, 1, st.Refused.Future)
	assert.EqualValues(t, 2, st.Series.Length)
	assert.Zero(t, st.Series.Evicted)
}

// ---------------------------------------------------------------------
// Clients

// TestAgxVanishingClientsDoNotStallIngest: clients that connect and
// vanish (closed mid-snapshot, never reading, dropped without a close
// frame) leave ingest running: every push returns, a reading client gets
// every append once and in order, and the registry empties.
func TestAgxVanishingClientsDoNotStallIngest(t *testing.T) {
	a := agxNew(t, aggregator.Config{ClientQueueFrames: 48})
	ws, _ := agxServe(t, a)
	tm := agxT0
	row := func(i int) []agxRow {
		tm += int64(50 * time.Millisecond)
		var b []agxRow
		for h := range 20 {
			b = append(b, agxRow{t: tm, cpu: float64(i%7) / 7, req: float64(h), host: strings.Repeat("h", 1+h%5) + string(rune('a'+h%26))})
		}
		return b
	}
	for i := range 100 {
		require.NoError(t, a.Push(agxBatch(row(i)), time.Now()))
	}
	reader := agxDial(t, ws+"/live")
	snap := reader.next()
	require.Len(t, snap.f.RawRows, 100*20)
	var silent []*websocket.Conn
	for i := range 6 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, _, err := websocket.Dial(ctx, ws+[]string{"/live", "/live-agg"}[i%2], nil)
		cancel()
		require.NoError(t, err)
		if i < 3 {
			conn.CloseNow() // gone at once, likely before its snapshot is written
		} else {
			silent = append(silent, conn) // never reads
		}
	}
	// Rounds of 40 pushes: the reader drains each round, so it stays
	// within its 48 frames; the silent ones do not read at all.
	for round := range 4 {
		for i := range 40 {
			require.NoError(t, a.Push(agxBatch(row(100+40*round+i)), time.Now()))
		}
		for i := range 40 {
			fr := reader.next()
			require.Equal(t, wire.TypeAppend, fr.f.Type)
			require.Len(t, fr.f.RawRows, 20, "round %d append %d", round, i)
		}
	}
	clients := func() int { st := a.Stats(); return st.LiveClients + st.AggClients }
	deadline := time.Now().Add(5 * time.Second)
	for clients() > 1+len(silent) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // no signal for an unregistration: poll
	}
	assert.LessOrEqual(t, clients(), 1+len(silent), "the clients that closed are gone")
	for _, c := range silent {
		c.CloseNow()
	}
	for clients() > 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.Equal(t, 1, clients(), "only the reader stays")
}

// ---------------------------------------------------------------------
// HTTP endpoints

// TestAgxEndpointsAnswerAsDocumented: /health, /readyz before a stream,
// while one is open and once it is lost, /metrics.json's documented
// fields, and the 400s of /live-agg.
func TestAgxEndpointsAnswerAsDocumented(t *testing.T) {
	p, addr, srv := agxStartProducer(t)
	a := agxNew(t, aggregator.Config{ProducerAddr: addr, Keepalive: time.Second})
	ws, base := agxServe(t, a)
	get := func(path string) (int, string, http.Header) {
		t.Helper()
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.Header
	}
	code, body, h := get("/health")
	assert.Equal(t, 200, code)
	assert.JSONEq(t, `{"ok":true}`, body)
	assert.Equal(t, "application/json", h.Get("Content-Type"))

	code, body, _ = get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code, "no stream yet")
	assert.NotContains(t, body, "unreachableSince", "before the first attempt ends")

	raw := agxDial(t, ws+"/live")
	raw.next()
	agxRun(t, a)
	p.msgs <- agxEncode(t, &eventsv1.Event{TimeMs: time.Now().Add(-time.Second).UnixMilli(), Cpu: 0.5, Requests: 1, Host: "a"})
	raw.next()
	code, body, _ = get("/readyz")
	assert.Equal(t, 200, code)
	var rd map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &rd))
	assert.Equal(t, true, rd["ready"])
	assert.Equal(t, addr, rd["producer"])

	code, body, _ = get("/metrics.json")
	require.Equal(t, 200, code)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	want := map[string][]string{
		"":         {"uptimeSec", "events", "pushMany", "liveSeriesLength", "latency", "ws", "memory", "gc", "stats", "upstream"},
		"events":   {"ingested", "fannedOut", "bytesFannedOut"},
		"pushMany": {"calls", "totalEvents", "avgBatchSize", "maxBatchSize"},
		"latency":  {"batchDoneMs", "pushManyTotalMs"},
		"ws":       {"clientCount", "bufferedAmount"},
		"memory":   {"rss", "heapUsed", "heapTotal"},
		"stats":    {"ingested", "evicted", "rejected", "length", "hosts", "ticks", "slowDisconnects", "malformedBatches", "refused"},
		"upstream": {"producer", "connected", "reconnects", "dialAttempts", "unreachableSinceMs"},
	}
	for sec, keys := range want {
		obj := doc
		if sec != "" {
			obj, _ = doc[sec].(map[string]any)
		}
		for _, k := range keys {
			assert.Contains(t, obj, k, "%s.%s", sec, k)
		}
	}
	refused, _ := doc["stats"].(map[string]any)["refused"].(map[string]any)
	for _, k := range []string{"order", "future", "badTime", "hostLimit", "hostLen", "badValue", "pushes"} {
		assert.Contains(t, refused, k)
	}
	gcgo, _ := doc["gc"].(map[string]any)["go"].(map[string]any)
	for _, k := range []string{"count", "totalMs", "maxMs"} {
		assert.Contains(t, gcgo, k)
	}
	lat := doc["latency"].(map[string]any)["batchDoneMs"].(map[string]any)
	assert.EqualValues(t, 1, lat["count"])
	up := doc["upstream"].(map[string]any)
	assert.Equal(t, true, up["connected"])
	assert.Nil(t, up["unreachableSinceMs"])
	assert.EqualValues(t, 1, doc["ws"].(map[string]any)["clientCount"])

	for _, q := range []string{"?by=requests_avg", "?by=", "?n=abc", "?n=", "?n=5&by=CPU_AVG"} {
		resp, err := http.Get(base + "/live-agg" + q)
		require.NoError(t, err)
		resp.Body.Close()
		if q == "?by=" || q == "?n=" {
			continue // empty is the default
		}
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
	}
	for _, path := range []string{"/nope", "/metrics/prom", "/health/", "/live-agg/x"} {
		code, _, _ := get(path)
		assert.Equal(t, http.StatusNotFound, code, path)
	}

	// The producer gone: /readyz 503 with unreachableSince, the JSON says
	// so too.
	srv.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for a.Ready().Ready && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // no signal for a lost stream: poll
	}
	code, body, _ = get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	require.NoError(t, json.Unmarshal([]byte(body), &rd))
	assert.Equal(t, false, rd["ready"])
	since, _ := rd["unreachableSince"].(string)
	_, err := time.Parse(time.RFC3339, since)
	assert.NoError(t, err, "unreachableSince %q", since)
	md := a.Metrics()
	assert.False(t, md.Upstream.Connected)
	assert.NotNil(t, md.Upstream.UnreachableSinceMs)
	assert.GreaterOrEqual(t, md.Upstream.Reconnects, uint64(1))
}

// TestAgxSetTopNMessages: a set-top-n turns the cut on and off; invalid
// messages are ignored and the client stays.
func TestAgxSetTopNMessages(t *testing.T) {
	a := agxNew(t, aggregator.Config{})
	ws, _ := agxServe(t, a)
	c := agxDial(t, ws+"/live-agg")
	c.next()
	tm := agxT0
	push := func() {
		tm += agxTickNs
		var b []agxRow
		for h := range 5 {
			b = append(b, agxRow{t: tm, cpu: float64(h) / 10, req: 1, host: "h" + string(rune('0'+h))})
		}
		require.NoError(t, a.Push(agxBatch(b), time.Now()))
	}
	push()
	send := func(s string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, c.conn.Write(ctx, websocket.MessageText, []byte(s)))
	}
	for _, bad := range []string{`nope`, `{"type":"set-top-n","n":"2"}`, `{"type":"set-top-n","n":2,"by":"requests_avg"}`, `{"type":"other","n":1}`, `[]`, `{"type":"set-top-n","n":true}`} {
		send(bad)
	}
	// The cut applies from a frame written after the message is read;
	// with no signal for that, the test pushes until it shows.
	send(`{"type":"set-top-n","n":2,"by":"cpu_avg"}`)
	var got []string
	for range 200 {
		push()
		fr := c.next()
		got = got[:0]
		for _, r := range fr.f.Rows {
			got = append(got, r.Host)
		}
		if len(got) <= 3 {
			break
		}
	}
	require.Equal(t, []string{"h4", "h3"}, got, "top 2 by cpu_avg, in rank order")
	send(`{"type":"set-top-n","n":null}`)
	for range 200 {
		push()
		fr := c.next()
		if len(fr.f.Rows) == 5 {
			got = got[:0]
			for _, r := range fr.f.Rows {
				got = append(got, r.Host)
			}
			break
		}
	}
	assert.Equal(t, []string{"h0", "h1", "h2", "h3", "h4"}, got, "n null turns the cut off: every host, emission order")
	assert.Equal(t, 1, a.Stats().AggClients)
}

// TestAgxHistoryIsBoundedByAgeAndRows: a late /live-agg client gets the
// ticks of the last History (ts at or after the newest minus History)
// and at most HistoryMaxRows host rows, the newest tick always; the
// ticks it gets are the model's, oldest first.
func TestAgxHistoryIsBoundedByAgeAndRows(t *testing.T) {
	for _, c := range []struct {
		history time.Duration
		maxRows int
	}{{2 * time.Second, 1000}, {time.Minute, 7}, {time.Minute, 1}, {time.Millisecond, 1000}} {
		a := agxNew(t, aggregator.Config{History: c.history, HistoryMaxRows: c.maxRows})
		ws, _ := agxServe(t, a)
		m := agxNewModel(30 * time.Second)
		tm := agxT0
		for i := range 40 {
			tm += int64(130 * time.Millisecond)
			var b []agxRow
			for h := range 1 + i%3 {
				b = append(b, agxRow{t: tm, cpu: float64(i%5) / 5, req: 1, host: "h" + string(rune('0'+h))})
			}
			require.NoError(t, a.Push(agxBatch(b), time.Now()))
			m.push(b)
		}
		require.NotEmpty(t, m.ticks)
		newest := m.ticks[len(m.ticks)-1].ts
		var want []agxTick
		rows := 0
		for i := len(m.ticks) - 1; i >= 0; i-- {
			tk := m.ticks[i]
			if i < len(m.ticks)-1 && (tk.ts < newest-c.history.Milliseconds() || rows+len(tk.rows) > c.maxRows) {
				break
			}
			rows += len(tk.rows)
			want = append([]agxTick{tk}, want...)
		}
		snap := agxDial(t, ws+"/live-agg").next()
		require.Len(t, snap.f.Globals, len(want), "history %v, %d rows", c.history, c.maxRows)
		k := 0
		for i, tk := range want {
			assert.Equal(t, tk.ts, snap.f.Globals[i].TS)
			for j := range tk.rows {
				agxCheckRow(t, "history", wire.DefaultThresholds, tk.rows[j], tk.samples[j], snap.f.Rows[k])
				k++
			}
		}
		assert.Len(t, snap.f.Rows, k)
		a.Close()
	}
}
