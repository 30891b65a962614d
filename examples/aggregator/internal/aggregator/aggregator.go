// Package aggregator is the middle tier of the aggregator example (spec
// §3): it subscribes to a producer over gRPC, pushes each EventBatch into
// a pond-go pipeline with one PushMany, and serves the raw feed (/live),
// the per-host 200 ms ticks (/live-agg), /health, /metrics and the
// dashboard.
//
// # Consistency
//
// One mutex guards the series, the tick assembly, the history and the
// client registry. A batch is pushed, its frames built and enqueued to
// every client under that lock, and a connecting client builds its
// snapshot and registers under the same lock, so each client sees every
// batch exactly once: in its snapshot or as an append after it. Enqueueing
// never blocks: a client whose bounded queue is full is disconnected (it
// reconnects and takes a fresh snapshot); frames are never dropped.
package aggregator

import (
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/backoff"
	"github.com/pond-go/pond/examples/aggregator/internal/wire"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

// Config configures an aggregator. The zero value of a field takes the
// default named on it.
type Config struct {
	// ProducerAddr is the producer's gRPC address (host:port).
	ProducerAddr string
	// Retention is the raw window (default 30 s).
	Retention time.Duration
	// Ordering of the raw series (default strict) and, under reorder, how
	// late a row may be (default 30 s, at most Retention).
	Ordering live.Ordering
	Grace    time.Duration
	// SampleStride thins each host's rolling input to one row in
	// SampleStride (default 1: every row).
	SampleStride int
	// Thresholds are the σ thresholds of the anomaly counts (default
	// wire.DefaultThresholds).
	Thresholds []float64
	// History is how much of the emitted ticks a new /live-agg client gets
	// (default 5 minutes; negative turns it off), HistoryMaxRows caps the
	// host rows it holds (default 250 000, about 50 s at 1000 hosts).
	History        time.Duration
	HistoryMaxRows int
	// ClientQueueFrames and ClientQueueBytes bound each WebSocket client's
	// outbound queue (defaults 1024 frames, 64 MiB); a client that would
	// exceed either is disconnected.
	ClientQueueFrames int
	ClientQueueBytes  int64
	// OriginPatterns are extra origins allowed to open the WebSockets
	// (host patterns of github.com/coder/websocket); the dashboard is
	// served same-origin and needs none.
	OriginPatterns []string
	// Backoff is the reconnect schedule (default backoff.Default).
	Backoff backoff.Policy
	// OnReconnect, when set, is called before each reconnect wait.
	OnReconnect func(attempt int, delay time.Duration, err error)
	// Logger receives the aggregator's logs (default slog.Default()).
	Logger *slog.Logger
}

func (c *Config) fill() error {
	if c.Retention == 0 {
		c.Retention = 30 * time.Second
	}
	if c.Ordering == live.Reorder && c.Grace == 0 {
		c.Grace = min(30*time.Second, c.Retention)
	}
	if c.Ordering != live.Reorder {
		c.Grace = 0
	}
	if c.SampleStride < 1 {
		c.SampleStride = 1
	}
	if c.Thresholds == nil {
		c.Thresholds = wire.DefaultThresholds
	}
	for _, t := range c.Thresholds {
		if !(t > 0) || math.IsInf(t, 0) {
			return fmt.Errorf("aggregator: threshold %v must be a positive number", t)
		}
	}
	if c.History == 0 {
		c.History = 5 * time.Minute
	}
	if c.HistoryMaxRows == 0 {
		c.HistoryMaxRows = 250_000
	}
	if c.ClientQueueFrames <= 0 {
		c.ClientQueueFrames = 1024
	}
	if c.ClientQueueBytes <= 0 {
		c.ClientQueueBytes = 64 << 20
	}
	if c.Backoff == (backoff.Policy{}) {
		c.Backoff = backoff.Default
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Aggregator is the aggregator's state. Its methods are safe for
// concurrent use.
type Aggregator struct {
	cfg   Config
	start time.Time

	mu       sync.Mutex // guards everything below, up to the metrics
	p        *pipeline
	out      []live.Output
	tb       tickBuilder
	filtered *schema.Batch // reorder: the batch without rows past the grace

	requestsTotal  float64
	firstMs        int64
	hasFirst       bool
	lastTickMs     int64
	eventsPerSec   int64
	ticksEmitted   uint64
	rejectedRows   uint64
	rejectedPushes uint64
	hist           history

	liveClients map[*client]struct{}
	aggClients  map[*client]struct{}
	rawBuf      []byte
	projBuf     []*wire.HostTick

	// counters read without the lock
	m counters
}

// New builds an aggregator (it does not connect: see [Aggregator.Run]).
func New(cfg Config) (*Aggregator, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	p, err := newPipeline(pipelineOptions{Retention: cfg.Retention, Ordering: cfg.Ordering, Grace: cfg.Grace, SampleStride: cfg.SampleStride})
	if err != nil {
		return nil, fmt.Errorf("aggregator: %w", err)
	}
	a := &Aggregator{
		cfg:         cfg,
		start:       time.Now(),
		p:           p,
		tb:          tickBuilder{thresholds: cfg.Thresholds},
		liveClients: map[*client]struct{}{},
		aggClients:  map[*client]struct{}{},
		hist:        history{maxAgeMs: cfg.History.Milliseconds(), maxRows: cfg.HistoryMaxRows},
	}
	a.m.init(a)
	return a, nil
}

// Config returns the aggregator's configuration, defaults filled in.
func (a *Aggregator) Config() Config { return a.cfg }

// Push takes one batch: it pushes it into the pipeline with one PushMany,
// builds the /live append and the /live-agg ticks it completes, adds the
// ticks to the history and hands every frame to every client, all under
// the aggregator's lock. started is when the batch arrived (the start of
// its batchDone time). An empty batch is skipped.
func (a *Aggregator) Push(b *schema.Batch, started time.Time) error {
	if b.Len() == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	in := b
	if a.cfg.Ordering == live.Reorder {
		in = a.dropPastGrace(b)
	}
	t0 := time.Now()
	out, err := a.p.s.PushMany(a.out[:0], in)
	pushDur := time.Since(t0)
	if err != nil {
		a.rejectedPushes++
		a.rejectedRows += uint64(b.Len())
		return err
	}
	a.out = out
	a.m.push(in.Len(), pushDur)
	var hostTab, perSecTab *schema.Table
	for _, o := range out {
		switch o.Node {
		case a.p.s.Root():
			a.took(o.Events)
		case a.p.hosts:
			hostTab = o.Events
		case a.p.perSec:
			perSecTab = o.Events
		}
	}
	if perSecTab != nil && perSecTab.Len() > 0 {
		counts := perSecTab.Col(a.p.perSecCol).Numbers()
		a.eventsPerSec = int64(math.Round(counts[len(counts)-1]))
	}
	if hostTab != nil {
		for run := range hostTab.Runs() {
			a.emitTick(hostTab, run)
		}
	}
	a.m.batchDone(time.Since(started))
	return nil
}

// dropPastGrace removes the rows that reorder ordering would refuse (more
// than the grace late), so that one such row does not reject its whole
// batch; they are counted as rejected.
func (a *Aggregator) dropPastGrace(b *schema.Batch) *schema.Batch {
	latest, has := a.p.s.LatestNanos()
	grace := int64(a.cfg.Grace)
	keep := true
	for _, t := range b.Time {
		if has && t < latest {
			if latest-t > grace {
				keep = false
				break
			}
			continue
		}
		latest, has = t, true
	}
	if keep {
		return b
	}
	if a.filtered == nil {
		a.filtered = schema.NewBatch(Schema, b.Len())
	}
	f := a.filtered
	f.Reset()
	latest, has = a.p.s.LatestNanos()
	for i, t := range b.Time {
		if has && t < latest && latest-t > grace {
			a.rejectedRows++
			continue
		}
		if !has || t >= latest {
			latest, has = t, true
		}
		f.Time = append(f.Time, t)
		f.Cols[0].Num = append(f.Cols[0].Num, b.Cols[0].Num[i])
		f.Cols[1].Num = append(f.Cols[1].Num, b.Cols[1].Num[i])
		f.Cols[2].Str = append(f.Cols[2].Str, b.Cols[2].Str[i])
	}
	return f
}

// took handles the rows the series accepted: counters, and the /live
// append frame.
func (a *Aggregator) took(tab *schema.Table) {
	n := tab.Len()
	if n == 0 {
		return
	}
	times := tab.Times()
	if !a.hasFirst {
		a.firstMs, a.hasFirst = times[0]/int64(time.Millisecond), true
	}
	req := tab.Col(2).Numbers()
	for _, r := range req {
		a.requestsTotal += r
	}
	if len(a.liveClients) == 0 {
		return
	}
	b := wire.BeginRaw(a.rawBuf[:0], wire.TypeAppend)
	b = appendRawTable(b, tab, true)
	b = wire.EndRaw(b)
	a.rawBuf = b
	frame := append([]byte(nil), b...)
	for c := range a.liveClients {
		a.send(c, frame, n)
	}
}

// appendRawTable appends the rows of a table of the raw schema as
// positional arrays.
func appendRawTable(b []byte, tab *schema.Table, first bool) []byte {
	times := tab.Times()
	cpu := tab.Col(1).Numbers()
	req := tab.Col(2).Numbers()
	host := tab.Col(3).Strings()
	for i, t := range times {
		if !first || i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendRawRow(b, t/int64(time.Millisecond), cpu[i], req[i], host[i])
	}
	return b
}

// emitTick assembles one boundary's rows into a tick, keeps it in the
// history and sends it to the /live-agg clients.
func (a *Aggregator) emitTick(tab *schema.Table, run schema.Run) {
	tsMs := run.Time / int64(time.Millisecond)
	if a.ticksEmitted > 0 && tsMs <= a.lastTickMs {
		return
	}
	rows := a.tb.build(make([]wire.HostTick, 0, run.Len()), tab, &a.p.cols, run.From, run.To, tsMs, a.firstMs)
	if len(rows) == 0 {
		return
	}
	st := a.p.s.Stats()
	t := tick{rows: rows, globals: wire.GlobalsTick{
		TS: tsMs, EventsIngestedTotal: st.Ingested, EventsPerSec: a.eventsPerSec,
		EvictedTotal: st.Evicted, RequestsIngestedTotal: a.requestsTotal,
	}}
	a.lastTickMs = tsMs
	a.ticksEmitted++
	a.m.lastTickHosts.Store(int64(len(rows)))
	a.hist.add(t)
	var shared []byte
	for c := range a.aggClients {
		if c.proj.N > 0 {
			a.projBuf = c.proj.apply(a.projBuf, t.rows)
			a.send(c, wire.AppendAggregateAppend(nil, a.projBuf, &t.globals), len(a.projBuf))
			continue
		}
		if shared == nil {
			a.projBuf = c.proj.apply(a.projBuf, t.rows)
			shared = wire.AppendAggregateAppend(make([]byte, 0, 64+400*len(t.rows)), a.projBuf, &t.globals)
		}
		a.send(c, shared, len(t.rows))
	}
}

// rawSnapshot builds the /live snapshot: every row the raw window holds,
// read as one columnar snapshot (no row is built). Called with the lock
// held.
func (a *Aggregator) rawSnapshot() []byte {
	snap, err := a.p.s.Snapshot(a.p.s.Root())
	if err != nil {
		// The root always holds rows and the lock excludes a push.
		panic("aggregator: snapshot of the root: " + err.Error())
	}
	b := wire.BeginRaw(make([]byte, 0, 64+48*snap.Len()), wire.TypeSnapshot)
	cpu, _ := snap.Numbers("cpu")
	req, _ := snap.Numbers("requests")
	hosts, _ := snap.Strings("host")
	for i, ns := range snap.Times() {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendRawRow(b, ns/int64(time.Millisecond), cpu[i], req[i], hosts[i])
	}
	return wire.EndRaw(b)
}

// aggSnapshot builds the /live-agg snapshot through the client's
// projection, which carries its hysteresis into the live frames. Called
// with the lock held.
func (a *Aggregator) aggSnapshot(p *projection) []byte {
	var s wire.AggregateSnapshot
	ticks := a.hist.all()
	s.Begin(make([]byte, 0, 256+400*a.hist.rows), a.cfg.Thresholds)
	for i := range ticks {
		a.projBuf = p.apply(a.projBuf, ticks[i].rows)
		for _, r := range a.projBuf {
			s.Row(r)
		}
	}
	for i := range ticks {
		s.Globals(&ticks[i].globals)
	}
	return s.End()
}

// Stats are the aggregator's counters, for tests and the metrics.
type Stats struct {
	Series         live.Stats
	TicksEmitted   uint64
	RejectedRows   uint64
	RejectedPushes uint64
	LiveClients    int
	AggClients     int
	HistoryTicks   int
	LastTickMs     int64
}

// Stats returns the aggregator's counters.
func (a *Aggregator) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Stats{
		Series: a.p.s.Stats(), TicksEmitted: a.ticksEmitted, RejectedRows: a.rejectedRows,
		RejectedPushes: a.rejectedPushes, LiveClients: len(a.liveClients), AggClients: len(a.aggClients),
		HistoryTicks: len(a.hist.all()), LastTickMs: a.lastTickMs,
	}
}
