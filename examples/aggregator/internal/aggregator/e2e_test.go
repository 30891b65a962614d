package aggregator

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/aggregator/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startStack runs a producer and an aggregator subscribed to it over real
// gRPC, served over HTTP.
func startStack(t *testing.T, pc producer.Config, cfg Config) (a *Aggregator, wsBase, httpBase string) {
	t.Helper()
	if pc.GRPCAddr == "" {
		pc.GRPCAddr = "127.0.0.1:0"
	}
	p, err := producer.Start(pc)
	require.NoError(t, err)
	t.Cleanup(p.Stop)
	cfg.ProducerAddr = p.GRPCAddr()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	a = newTestAggregator(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { a.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran })
	wsBase, httpBase = serve(t, a)
	return a, wsBase, httpBase
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

func TestEndToEndOverGRPCAndWebSockets(t *testing.T) {
	a, ws, base := startStack(t,
		producer.Config{Hosts: 6, EventsPerSec: 50, Variability: 0.4, HasSeed: true, Seed: 7},
		Config{})
	eventually(t, "a few ticks", func() bool { return a.Stats().TicksEmitted >= 5 })

	agg := dial(t, ws+"/live-agg")
	snap := agg.next()
	require.Equal(t, wire.TypeAggregateSnapshot, snap.Type)
	assert.Equal(t, wire.DefaultThresholds, snap.Thresholds)
	assert.NotEmpty(t, snap.Rows, "history starts the charts full")
	assert.NotEmpty(t, snap.Globals)
	lastTS := snap.Globals[len(snap.Globals)-1].TS
	for range 5 {
		f := agg.next()
		require.Equal(t, wire.TypeAggregateAppend, f.Type)
		require.Len(t, f.Globals, 1)
		g := f.Globals[0]
		assert.Greater(t, g.TS, lastTS, "ticks come in increasing ts")
		lastTS = g.TS
		require.Len(t, f.Rows, 6, "every host in every tick")
		for i, r := range f.Rows {
			assert.Equal(t, g.TS, r.TS)
			assert.Equal(t, producer.HostName(i), r.Host, "rows in partition creation order")
			assert.Len(t, r.AnomaliesAbove, 5)
			assert.Greater(t, r.CPUN, 0)
			assert.LessOrEqual(t, r.WindowAgeSeconds, 60.0)
		}
		assert.Greater(t, g.EventsIngestedTotal, uint64(0))
		assert.Greater(t, g.EventsPerSec, int64(0))
	}

	raw := dial(t, ws+"/live")
	rs := raw.next()
	require.Equal(t, wire.TypeSnapshot, rs.Type)
	assert.NotEmpty(t, rs.RawRows)
	app := raw.next()
	require.Equal(t, wire.TypeAppend, app.Type)
	require.Len(t, app.RawRows, 6, "one append per producer batch")
	for i, r := range app.RawRows {
		assert.Equal(t, producer.HostName(i), r.Host)
		assert.Equal(t, app.RawRows[0].TimeMs, r.TimeMs, "a batch shares one time")
	}

	var health map[string]bool
	getJSON(t, base+"/health", &health)
	assert.Equal(t, map[string]bool{"ok": true}, health)

	var m map[string]any
	getJSON(t, base+"/metrics.json", &m)
	for _, k := range []string{"uptimeSec", "events", "pushMany", "liveSeriesLength", "latency", "ws", "memory", "gc"} {
		assert.Contains(t, m, k)
	}
	lat := m["latency"].(map[string]any)["batchDoneMs"].(map[string]any)
	for _, k := range []string{"p50", "p95", "p99", "count"} {
		assert.Contains(t, lat, k)
	}
	assert.EqualValues(t, 2, m["ws"].(map[string]any)["clientCount"])

	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), "pond_aggregator_events_ingested_total")
	assert.Contains(t, string(body), "pond_aggregator_batch_done_seconds_bucket")
	assert.Contains(t, string(body), `pond_aggregator_rows_refused_total{reason="future"} 0`)
	assert.Contains(t, string(body), "process_resident_memory_bytes")

	var ready Readiness
	getJSON(t, base+"/readyz", &ready)
	assert.True(t, ready.Ready)

	for _, path := range []string{"/nope", "/live/x", "/static/missing.js"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	resp, err = http.Get(base + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(page), "/static/app.js")
}

func TestTopNProjectionOverTheSocket(t *testing.T) {
	a, ws, _ := startStack(t,
		producer.Config{Hosts: 8, EventsPerSec: 50, Variability: 0.4, HasSeed: true, Seed: 3},
		Config{})
	eventually(t, "a few ticks", func() bool { return a.Stats().TicksEmitted >= 3 })
	c := dial(t, ws+"/live-agg?n=2&by=requests_sum")
	snap := c.next()
	perTick := map[int64]int{}
	for _, r := range snap.Rows {
		perTick[r.TS]++
	}
	for ts, n := range perTick {
		assert.LessOrEqual(t, n, 3, "snapshot tick %d: the top 2 plus at most one kept by hysteresis", ts)
	}
	f := c.next()
	require.GreaterOrEqual(t, len(f.Rows), 2)
	require.LessOrEqual(t, len(f.Rows), 3)
	for i := 1; i < len(f.Rows); i++ {
		assert.GreaterOrEqual(t, f.Rows[i-1].RequestsSum, f.Rows[i].RequestsSum, "rank order")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.conn.Write(ctx, websocket.MessageText, []byte(`not json`)))
	require.NoError(t, c.conn.Write(ctx, websocket.MessageText, []byte(`{"type":"set-top-n","n":1,"by":"bogus"}`)))
	require.NoError(t, c.conn.Write(ctx, websocket.MessageText, []byte(`{"type":"set-top-n","n":null}`)))
	eventually(t, "the cut turned off", func() bool { return len(c.next().Rows) == 8 })
}

func TestParseTopN(t *testing.T) {
	a := newTestAggregator(t, Config{})
	cases := []struct {
		msg string
		n   int
		by  RankKey
		ok  bool
	}{
		{`{"type":"set-top-n","n":5,"by":"cpu_sd"}`, 5, RankCPUSd, true},
		{`{"type":"set-top-n","n":2.9,"by":"requests_sum"}`, 2, RankRequestsSum, true},
		{`{"type":"set-top-n","n":0}`, 1, RankCPUAvg, true},
		{`{"type":"set-top-n","n":1e9}`, 1000, RankCPUAvg, true},
		{`{"type":"set-top-n","n":null,"by":"cpu_avg"}`, 0, RankCPUAvg, true},
		{`{"type":"set-top-n","n":3,"by":"requests_avg"}`, 0, "", false},
		{`{"type":"other","n":3}`, 0, "", false},
		{`{`, 0, "", false},
	}
	for _, c := range cases {
		n, by, ok := a.parseTopN([]byte(c.msg))
		assert.Equal(t, c.ok, ok, c.msg)
		if ok {
			assert.Equal(t, c.n, n, c.msg)
			assert.Equal(t, c.by, by, c.msg)
		}
	}
}

func TestProjectionKeepsTheTopNWithOneHostOfHysteresis(t *testing.T) {
	tick := func(vals ...float64) []wire.HostTick {
		rows := make([]wire.HostTick, len(vals))
		for i, v := range vals {
			rows[i] = wire.HostTick{Host: string(rune('a' + i)), CPUAvg: v}
		}
		return rows
	}
	names := func(rs []*wire.HostTick) string {
		var b strings.Builder
		for _, r := range rs {
			b.WriteString(r.Host)
		}
		return b.String()
	}
	var p projection
	p.set(2, RankCPUAvg)
	assert.Equal(t, "cb", names(p.apply(nil, tick(0.1, 0.5, 0.9, 0.3))))
	assert.Equal(t, "cdb", names(p.apply(nil, tick(0.1, 0.5, 0.9, 0.6))), "b fell to 3rd: kept by the margin")
	assert.Equal(t, "acd", names(p.apply(nil, tick(0.95, 0.5, 0.9, 0.6))), "b fell to 4th: out")
	p.set(2, RankCPUAvg)
	assert.Equal(t, "ad", names(p.apply(nil, tick(0.95, 0.5, 0.4, 0.6))), "a change resets the hysteresis")
	var off projection
	assert.Equal(t, "abcd", names(off.apply(nil, tick(0.1, 0.5, 0.9, 0.3))), "no cut: emission order")
}

func TestAnUnknownRankKeyOrNIsRejected(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger})
	_, base := serve(t, a)
	for q, want := range map[string]string{
		"?by=requests_avg": `unknown by="requests_avg": want cpu_avg, cpu_sd or requests_sum`,
		"?n=ten":           `n="ten": want a number of hosts`,
	} {
		resp, err := http.Get(base + "/live-agg" + q)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
		assert.Contains(t, string(body), want)
	}
}
