package aggregator

import (
	"encoding/json"
	"net/http"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/procfs"
)

// LatencyRing keeps the last 1024 samples of a latency, in milliseconds.
type LatencyRing struct {
	mu    sync.Mutex
	buf   [1024]float64
	n     int
	next  int
	total uint64
}

// Add records one sample.
func (r *LatencyRing) Add(d time.Duration) {
	ms := float64(d) / float64(time.Millisecond)
	r.mu.Lock()
	r.buf[r.next] = ms
	r.next = (r.next + 1) % len(r.buf)
	r.n = min(r.n+1, len(r.buf))
	r.total++
	r.mu.Unlock()
}

// Percentiles are the summary of a latency ring; Count is the number of
// samples it holds (at most 1024).
type Percentiles struct {
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Count int     `json:"count"`
}

// Summary sorts the held samples and returns their percentiles, each the
// sample at index min(n−1, floor(n·p)); nil when there are none.
func (r *LatencyRing) Summary() *Percentiles {
	r.mu.Lock()
	s := slices.Clone(r.buf[:r.n])
	r.mu.Unlock()
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	at := func(p float64) float64 { return s[min(len(s)-1, int(float64(len(s))*p))] }
	return &Percentiles{P50: at(0.50), P95: at(0.95), P99: at(0.99), Count: len(s)}
}

// metrics are the aggregator's counters that are read without its lock.
type counters struct {
	a *Aggregator

	pushCalls, pushEvents, maxBatch  atomic.Uint64
	fannedOut, bytesFannedOut        atomic.Uint64
	slowDisconnects, reconnects      atomic.Uint64
	pingDisconnects                  atomic.Uint64 // clients cut for an unanswered ping
	dialAttempts                     atomic.Uint64
	upstreamConnected, lastTickHosts atomic.Int64
	downSinceMs                      atomic.Int64 // when the producer was last lost, 0 while connected
	badTime                          atomic.Uint64
	malformed                        atomic.Uint64 // batches that are not an EventBatch
	batchDoneMs, pushManyMs          LatencyRing
	batchDoneHist, pushManyHist      prometheus.Histogram
	reg                              *prometheus.Registry
}

func (m *counters) init(a *Aggregator) {
	m.a = a
	buckets := []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}
	m.batchDoneHist = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "pond_aggregator_batch_done_seconds", Help: "Time from a gRPC batch's arrival to all of its work done (push, ticks, frames, history, enqueue).", Buckets: buckets})
	m.pushManyHist = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "pond_aggregator_push_many_seconds", Help: "Time spent in one PushMany.", Buckets: buckets})
	m.reg = prometheus.NewRegistry()
	counter := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f)
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	u := func(x *atomic.Uint64) func() float64 { return func() float64 { return float64(x.Load()) } }
	stats := func(f func(Stats) float64) func() float64 { return func() float64 { return f(a.Stats()) } }
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.batchDoneHist, m.pushManyHist,
		counter("pond_aggregator_events_ingested_total", "Rows taken into the live series.", stats(func(s Stats) float64 { return float64(s.Series.Ingested) })),
		counter("pond_aggregator_events_evicted_total", "Rows evicted from the raw window.", stats(func(s Stats) float64 { return float64(s.Series.Evicted) })),
		counter("pond_aggregator_rows_rejected_total", "Rows refused for any reason.", stats(func(s Stats) float64 { return float64(s.RejectedRows) })),
		refusedVec(a),
		counter("pond_aggregator_batches_malformed_total", "Batches from the producer that are not an EventBatch, left out whole.", u(&m.malformed)),
		counter("pond_aggregator_ticks_emitted_total", "200 ms ticks emitted on /live-agg.", stats(func(s Stats) float64 { return float64(s.TicksEmitted) })),
		counter("pond_aggregator_push_many_calls_total", "PushMany calls.", u(&m.pushCalls)),
		counter("pond_aggregator_rows_fanned_out_total", "Rows handed to WebSocket clients.", u(&m.fannedOut)),
		counter("pond_aggregator_bytes_fanned_out_total", "Bytes handed to WebSocket clients.", u(&m.bytesFannedOut)),
		counter("pond_aggregator_slow_disconnects_total", "WebSocket clients disconnected for a full queue.", u(&m.slowDisconnects)),
		counter("pond_aggregator_unanswered_ping_disconnects_total", "WebSocket clients cut for leaving a ping unanswered.", u(&m.pingDisconnects)),
		counter("pond_aggregator_upstream_outages_total", "Producer outages: a lost stream, or the first failed attempt.", u(&m.reconnects)),
		counter("pond_aggregator_upstream_dial_attempts_total", "Redials of the producer.", u(&m.dialAttempts)),
		gauge("pond_aggregator_live_series_length", "Rows in the raw window.", stats(func(s Stats) float64 { return float64(s.Series.Length) })),
		gauge("pond_aggregator_ws_clients", "Connected WebSocket clients.", stats(func(s Stats) float64 { return float64(s.LiveClients + s.AggClients) })),
		gauge("pond_aggregator_upstream_connected", "1 while the producer stream is open.", func() float64 { return float64(m.upstreamConnected.Load()) }),
	)
}

// refusedVec exports the refused rows by reason.
func refusedVec(a *Aggregator) prometheus.Collector {
	return refusedCollector{a: a, desc: prometheus.NewDesc("pond_aggregator_rows_refused_total",
		"Rows refused, by reason: order (out of order or past the grace), future (beyond the clock skew), bad_time (time_ms out of range), host_limit (a new host past the bound), host_length (an over-long host name), bad_value (a cpu or requests that is not a finite number).",
		[]string{"reason"}, nil)}
}

type refusedCollector struct {
	a    *Aggregator
	desc *prometheus.Desc
}

func (c refusedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c refusedCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.a.Stats().Refused
	for _, kv := range []struct {
		reason string
		n      uint64
	}{{"order", r.Order}, {"future", r.Future}, {"bad_time", r.BadTime}, {"host_limit", r.HostLimit}, {"host_length", r.HostLen}, {"bad_value", r.BadValue}} {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(kv.n), kv.reason)
	}
}

func (m *counters) push(rows int, d time.Duration) {
	m.pushCalls.Add(1)
	m.pushEvents.Add(uint64(rows))
	for {
		old := m.maxBatch.Load()
		if uint64(rows) <= old || m.maxBatch.CompareAndSwap(old, uint64(rows)) {
			break
		}
	}
	m.pushManyMs.Add(d)
	m.pushManyHist.Observe(d.Seconds())
}

func (m *counters) batchDone(d time.Duration) {
	m.batchDoneMs.Add(d)
	m.batchDoneHist.Observe(d.Seconds())
}

// MetricsDoc is the JSON /metrics document, in the shape of the Node
// aggregator, so that one scraper reads every implementation,
// plus pond-go extras (stats, upstream, ticks).
type MetricsDoc struct {
	UptimeSec float64 `json:"uptimeSec"`
	Events    struct {
		Ingested       uint64 `json:"ingested"`
		FannedOut      uint64 `json:"fannedOut"`
		BytesFannedOut uint64 `json:"bytesFannedOut"`
	} `json:"events"`
	PushMany struct {
		Calls        uint64   `json:"calls"`
		TotalEvents  uint64   `json:"totalEvents"`
		AvgBatchSize *float64 `json:"avgBatchSize"`
		MaxBatchSize uint64   `json:"maxBatchSize"`
	} `json:"pushMany"`
	LiveSeriesLength int `json:"liveSeriesLength"`
	Latency          struct {
		BatchDoneMs     *Percentiles `json:"batchDoneMs"`
		PushManyTotalMs *Percentiles `json:"pushManyTotalMs"`
	} `json:"latency"`
	WS struct {
		ClientCount    int     `json:"clientCount"`
		BufferedAmount []int64 `json:"bufferedAmount"`
	} `json:"ws"`
	Memory struct {
		RSS       uint64 `json:"rss"`
		HeapUsed  uint64 `json:"heapUsed"`
		HeapTotal uint64 `json:"heapTotal"`
	} `json:"memory"`
	GC struct {
		Go struct {
			Count   int64   `json:"count"`
			TotalMs float64 `json:"totalMs"`
			MaxMs   float64 `json:"maxMs"`
		} `json:"go"`
	} `json:"gc"`
	Stats struct {
		Ingested   uint64 `json:"ingested"`
		Evicted    uint64 `json:"evicted"`
		Rejected   uint64 `json:"rejected"`
		Length     int    `json:"length"`
		Hosts      int64  `json:"hosts"`
		Ticks      uint64 `json:"ticks"`
		SlowClient uint64 `json:"slowDisconnects"`
		// MalformedBatches counts the producer's messages that are not
		// an EventBatch, left out whole.
		MalformedBatches uint64 `json:"malformedBatches"`
		// Refused breaks Rejected down by reason.
		Refused refusals `json:"refused"`
	} `json:"stats"`
	Upstream struct {
		Producer  string `json:"producer"`
		Connected bool   `json:"connected"`
		// Reconnects counts outages (a lost stream, or the first failed
		// attempt), DialAttempts every redial.
		Reconnects   uint64 `json:"reconnects"`
		DialAttempts uint64 `json:"dialAttempts"`
		// UnreachableSinceMs is when the current outage began (epoch ms),
		// null while connected.
		UnreachableSinceMs *int64 `json:"unreachableSinceMs"`
	} `json:"upstream"`
}

// Metrics returns the /metrics document.
func (a *Aggregator) Metrics() MetricsDoc {
	var d MetricsDoc
	m := &a.m
	d.UptimeSec = time.Since(a.start).Seconds()
	s := a.Stats()
	st := s.Series
	d.Stats.Rejected = s.RejectedRows
	d.Stats.Refused = s.Refused
	d.Stats.Ticks = s.TicksEmitted
	d.WS.BufferedAmount = []int64{}
	a.mu.Lock()
	for _, set := range []map[*client]struct{}{a.liveClients, a.aggClients} {
		for c := range set {
			c.mu.Lock()
			d.WS.BufferedAmount = append(d.WS.BufferedAmount, c.bytes)
			c.mu.Unlock()
		}
	}
	a.mu.Unlock()
	d.WS.ClientCount = len(d.WS.BufferedAmount)
	d.Events.Ingested = st.Ingested
	d.Events.FannedOut = m.fannedOut.Load()
	d.Events.BytesFannedOut = m.bytesFannedOut.Load()
	d.PushMany.Calls = m.pushCalls.Load()
	d.PushMany.TotalEvents = m.pushEvents.Load()
	if d.PushMany.Calls > 0 {
		avg := float64(d.PushMany.TotalEvents) / float64(d.PushMany.Calls)
		d.PushMany.AvgBatchSize = &avg
	}
	d.PushMany.MaxBatchSize = m.maxBatch.Load()
	d.LiveSeriesLength = st.Length
	d.Latency.BatchDoneMs = m.batchDoneMs.Summary()
	d.Latency.PushManyTotalMs = m.pushManyMs.Summary()
	d.Memory.RSS = readRSS()
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
	}
	metrics.Read(samples)
	d.Memory.HeapUsed = samples[0].Value.Uint64()
	d.Memory.HeapTotal = samples[1].Value.Uint64()
	var gc debug.GCStats
	debug.ReadGCStats(&gc)
	d.GC.Go.Count = gc.NumGC
	d.GC.Go.TotalMs = float64(gc.PauseTotal) / float64(time.Millisecond)
	for _, p := range gc.Pause {
		d.GC.Go.MaxMs = max(d.GC.Go.MaxMs, float64(p)/float64(time.Millisecond))
	}
	d.Stats.Ingested, d.Stats.Evicted, d.Stats.Length = st.Ingested, st.Evicted, st.Length
	d.Stats.Hosts = m.lastTickHosts.Load()
	d.Stats.SlowClient = m.slowDisconnects.Load()
	d.Stats.MalformedBatches = m.malformed.Load()
	d.Upstream.Producer = a.cfg.ProducerAddr
	d.Upstream.Connected = m.upstreamConnected.Load() == 1
	d.Upstream.Reconnects = m.reconnects.Load()
	d.Upstream.DialAttempts = m.dialAttempts.Load()
	if ms := m.downSinceMs.Load(); ms != 0 && !d.Upstream.Connected {
		d.Upstream.UnreachableSinceMs = &ms
	}
	return d
}

// readRSS returns the resident set size of this process (0 where /proc
// cannot tell).
func readRSS() uint64 {
	p, err := procfs.Self()
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil {
		return 0
	}
	return uint64(st.ResidentMemory())
}

func (a *Aggregator) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(a.Metrics())
}

func (a *Aggregator) promHandler() http.Handler {
	return promhttp.HandlerFor(a.m.reg, promhttp.HandlerOpts{})
}
