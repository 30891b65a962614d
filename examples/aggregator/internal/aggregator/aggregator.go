// Package aggregator is the middle tier of the aggregator example: it
// subscribes to a producer over gRPC, pushes each EventBatch into a
// pond-go pipeline with one PushMany, and serves the raw feed (/live), the
// per-host 200 ms ticks (/live-agg), /health, /readyz, /metrics
// (Prometheus), /metrics.json and the dashboard.
//
// # Consistency
//
// One mutex guards the series, the tick assembly, the history and the
// client registry, and it is held only for short work. A batch is pushed,
// its frames built and queued to every client under that lock. A
// connecting client takes, under the same lock, a reference to what its
// snapshot is made of (the tick history, which is copy-on-write, or one
// columnar copy of the raw window) and registers; its own writer encodes
// and streams the snapshot afterwards, without the lock, and then the
// appends queued meanwhile. So each client sees every batch exactly once,
// in its snapshot or as an append after it, and a connect never holds
// ingest for longer than taking that reference.
//
// # Slow clients
//
// Queuing never blocks: a client more than ClientMaxLag behind (the
// oldest frame not yet written to its socket), or whose queue exceeds
// ClientQueueFrames or ClientQueueBytes, is closed with status 1013 (try
// again later) and a reason; frames are never dropped.
//
// # Silent clients
//
// Each client is pinged every ClientPingInterval; one whose pong does not
// come back within ClientPingTimeout (its machine or network gone without
// closing the connection) is unregistered and its connection cut, as when
// a client leaves. Without pings, such a client was found only by
// ClientMaxLag while frames flowed, and by the kernel's TCP keepalive,
// minutes later, while none did. Pongs are taken in by the reader each
// client has anyway (CloseRead on /live, the control messages on
// /live-agg).
package aggregator

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/backoff"
	"github.com/pond-go/pond/examples/internal/hostlimit"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/examples/internal/wsping"
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
	// Aligned runs the per-host rolling with aligned windows: each tick at
	// boundary b holds a host's rows with b − span ≤ t < b, emitted once no
	// earlier row can arrive, so a host's rows depend only on its own
	// events and its 1m window keeps one partial state per 200 ms pane
	// instead of every row. The frames are the same shape.
	Aligned bool
	// Workers spreads the per-host rolling's ticks over this many
	// goroutines (live.Options.Workers; 0 or 1: the pushing goroutine
	// only). The frames do not depend on it.
	Workers int
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
	// LiveSnapshotRows caps the rows of a /live snapshot (default
	// 4 000 000, the whole 30 s window up to 133 000 rows/s); above it a
	// snapshot carries the newest rows of the window. The aggregator keeps
	// a copy of those rows for snapshots, about 40 bytes each.
	LiveSnapshotRows int
	// MaxSkew is how far ahead of the aggregator's clock a row's time may
	// be (default 5 s); later rows are refused, counted and logged.
	MaxSkew time.Duration
	// MaxHosts bounds the hosts tracked at once (default 10 000); rows of
	// a new host beyond it are refused and counted. A host quiet for a
	// minute of event time frees its place. MaxHostLen bounds the length of
	// a host name in bytes (default 256); longer rows are refused.
	MaxHosts   int
	MaxHostLen int
	// ClientQueueFrames and ClientQueueBytes bound each WebSocket client's
	// outbound queue (defaults 1024 frames, 64 MiB), and ClientMaxLag how
	// long its oldest unwritten frame may wait (default 10 s); a client
	// past any of them is closed with status 1013.
	ClientQueueFrames int
	ClientQueueBytes  int64
	ClientMaxLag      time.Duration
	// ClientPingInterval is how often each WebSocket client is pinged
	// (default 10 s), counted from its last pong, and ClientPingTimeout
	// how long the pong may take (default 10 s). A client that does not
	// answer in time (its machine or network gone without closing the
	// connection) is cut as if it had left.
	ClientPingInterval time.Duration
	ClientPingTimeout  time.Duration
	// SnapshotWorkers bounds how many snapshots are encoded at once
	// (default 2); a connecting client waits its turn. A client that
	// stops reading during its snapshot holds its slot until it is cut
	// as too slow (ClientMaxLag behind, then the close frame's grace):
	// with as many such clients as slots, a new one waits about that
	// long.
	SnapshotWorkers int
	// OriginPatterns are extra origins allowed to open the WebSockets
	// (host patterns of github.com/coder/websocket); the dashboard is
	// served same-origin and needs none.
	OriginPatterns []string
	// Backoff is the reconnect schedule (default backoff.Default).
	Backoff backoff.Policy
	// Keepalive is how long the producer's stream may deliver nothing
	// before the aggregator pings the producer, and how long the ping may
	// go unanswered before the stream counts as lost and is dialled afresh
	// (default 30 s; gRPC waits at least 10 s before a ping). A producer
	// must allow a ping this often (the example's allows one every 5 s).
	Keepalive time.Duration
	// OnReconnect, when set, is called before each reconnect wait.
	OnReconnect func(attempt int, delay time.Duration, err error)
	// Logger receives the aggregator's logs (default slog.Default()).
	Logger *slog.Logger
	// Now is the wall clock (default time.Now); tests replace it.
	Now func() time.Time
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
	if c.LiveSnapshotRows <= 0 {
		c.LiveSnapshotRows = 4_000_000
	}
	if c.MaxSkew <= 0 {
		c.MaxSkew = 5 * time.Second
	}
	if c.MaxHosts <= 0 {
		c.MaxHosts = 10_000
	}
	if c.MaxHostLen <= 0 {
		c.MaxHostLen = 256
	}
	if c.ClientQueueFrames <= 0 {
		c.ClientQueueFrames = 1024
	}
	if c.ClientQueueBytes <= 0 {
		c.ClientQueueBytes = 64 << 20
	}
	if c.ClientMaxLag <= 0 {
		c.ClientMaxLag = 10 * time.Second
	}
	if c.ClientPingInterval <= 0 {
		c.ClientPingInterval = wsping.DefaultInterval
	}
	if c.ClientPingTimeout <= 0 {
		c.ClientPingTimeout = wsping.DefaultTimeout
	}
	if c.SnapshotWorkers <= 0 {
		c.SnapshotWorkers = 2
	}
	if c.Keepalive <= 0 {
		c.Keepalive = 30 * time.Second
	}
	if c.Backoff == (backoff.Policy{}) {
		c.Backoff = backoff.Default
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Aggregator is the aggregator's state. Its methods are safe for
// concurrent use.
type Aggregator struct {
	cfg     Config
	start   time.Time
	snapSem chan struct{} // one slot per snapshot being encoded

	mu       sync.Mutex // guards everything below, up to the metrics
	closed   bool       // Close was called: pushes and new clients are refused
	p        *pipeline
	out      []live.Output
	tb       tickBuilder
	admitted *schema.Batch // the batch without refused rows
	filtered *schema.Batch // reorder: the batch without rows past the grace

	requestsTotal float64
	firstMs       int64
	hasFirst      bool
	lastTickMs    int64
	eventsPerSec  int64
	ticksEmitted  uint64
	raw           rawRing
	rawNames      hostNames // the hosts of /live chunks copied out of the series
	hist          history
	refused       refusals

	liveClients map[*client]struct{}
	aggClients  map[*client]struct{}

	// counters read without the lock
	m counters
	// onBatchDone, when set before Run, sees every batchDone time (tests).
	onBatchDone func(time.Duration)
	// onSnapshotPiece, when set before clients connect, runs after each
	// piece of a snapshot is written, outside every lock (tests).
	onSnapshotPiece func()
	// closeGrace is how long a client dropped as slow has to take its
	// close frame (the constant closeGrace; tests on a loaded machine
	// set it longer before clients connect).
	closeGrace time.Duration
}

// refusals count the rows the aggregator refused, by reason.
type refusals struct {
	Order      uint64    `json:"order"`     // out of order (dropped under drop ordering) or past the grace
	Future     uint64    `json:"future"`    // dated further ahead than MaxSkew
	BadTime    uint64    `json:"badTime"`   // a time_ms outside the range the series holds
	HostLimit  uint64    `json:"hostLimit"` // a new host past MaxHosts
	HostLen    uint64    `json:"hostLen"`   // a host name longer than MaxHostLen
	BadValue   uint64    `json:"badValue"`  // a cpu or requests that is not a finite number
	Pushes     uint64    `json:"pushes"`    // whole batches refused by the series
	LastLogged time.Time `json:"-"`
}

// New builds an aggregator (it does not connect: see [Aggregator.Run]).
func New(cfg Config) (*Aggregator, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	p, err := newPipeline(pipelineOptions{Retention: cfg.Retention, Ordering: cfg.Ordering, Grace: cfg.Grace,
		SampleStride: cfg.SampleStride, MaxHosts: cfg.MaxHosts, Aligned: cfg.Aligned, Workers: cfg.Workers})
	if err != nil {
		return nil, fmt.Errorf("aggregator: %w", err)
	}
	a := &Aggregator{
		cfg:         cfg,
		start:       cfg.Now(),
		snapSem:     make(chan struct{}, cfg.SnapshotWorkers),
		p:           p,
		tb:          tickBuilder{thresholds: cfg.Thresholds},
		liveClients: map[*client]struct{}{},
		aggClients:  map[*client]struct{}{},
		hist:        history{maxAgeMs: cfg.History.Milliseconds(), maxRows: cfg.HistoryMaxRows},
		raw:         rawRing{maxAge: int64(cfg.Retention), maxRows: cfg.LiveSnapshotRows},
		closeGrace:  closeGrace,
	}
	a.m.init(a)
	return a, nil
}

// Config returns the aggregator's configuration, defaults filled in.
func (a *Aggregator) Config() Config { return a.cfg }

// Push takes one batch: it refuses the rows it must (see [Config]),
// pushes the rest into the pipeline with one PushMany, builds the /live
// append and the /live-agg ticks it completes, adds the ticks to the
// history and queues every frame to every client, all under the
// aggregator's lock. started is when the batch arrived (the start of its
// batchDone time). An empty batch is skipped.
func (a *Aggregator) Push(b *schema.Batch, started time.Time) error {
	return a.push(b, started, nil)
}

// owned is what the reader decoded beside a batch: its hosts as indices
// into names (indexed: every one of them; a host too long for the table
// has none).
type owned struct {
	ids     []uint32
	names   []string
	indexed bool
}

// push is [Aggregator.Push]. A non-nil own says that b's time, cpu and
// requests columns are b's alone and never written again, and gives its
// hosts as indices: when the series takes every row of b as it is, the
// /live append keeps those columns instead of a copy.
func (a *Aggregator) push(b *schema.Batch, started time.Time, own *owned) error {
	if b.Len() == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrClosed
	}
	// Every batch is a batchDone sample, its rows taken or refused (the
	// deferred calls run last first: the sample, then the unlock).
	defer a.batchDone(started)
	in := a.admit(b)
	if a.cfg.Ordering == live.Reorder {
		in = a.dropPastGrace(in)
	}
	if in.Len() == 0 {
		return nil
	}
	t0 := time.Now()
	out, refused, err := hostlimit.Push(a.p.s, a.p.byHost, a.cfg.MaxHosts, HostIdleTTL, a.cfg.Ordering, a.out[:0], in)
	if refused > 0 {
		a.refused.HostLimit += refused
		a.logRefusal("rows of new hosts refused: host limit reached", "rows", refused, "max_hosts", a.cfg.MaxHosts)
	}
	pushDur := time.Since(t0)
	if err != nil {
		a.refused.Pushes++
		if errors.Is(err, live.ErrOutOfOrder) || errors.Is(err, live.ErrLate) {
			a.refused.Order += uint64(in.Len())
		}
		return err
	}
	a.out = out
	a.m.push(in.Len(), pushDur)
	var hostTab, perSecTab *schema.Table
	for _, o := range out {
		switch o.Node {
		case a.p.s.Root():
			// Without reorder the series takes the rows it keeps in
			// the order pushed, so as many rows as b has are b's.
			if !(own != nil && own.indexed && in == b && a.cfg.Ordering != live.Reorder && o.Events.Len() == b.Len()) {
				own = nil
			}
			a.took(o.Events, b, own)
		case a.p.hosts:
			hostTab = o.Events
		case a.p.perSec:
			perSecTab = o.Events
		}
	}
	// A push that crosses several boundaries emits a tick for each, and
	// each carries the per-second count of its own boundary: both
	// rollings run on one clock, so their rows come in the same order of
	// time.
	j := 0
	if hostTab != nil {
		for run := range hostTab.Runs() {
			j = a.perSecAt(perSecTab, j, run.Time)
			a.emitTick(hostTab, run)
		}
	}
	if perSecTab != nil && perSecTab.Len() > 0 {
		a.perSecAt(perSecTab, perSecTab.Len()-1, perSecTab.TimeNanos(perSecTab.Len()-1))
	}
	return nil
}

// perSecAt sets eventsPerSec from the row of the per-second rolling's
// output tab at time t, looking from row j on, and returns the index of
// the first row not before t; without a row at t it leaves eventsPerSec as
// it was.
func (a *Aggregator) perSecAt(tab *schema.Table, j int, t int64) int {
	if tab == nil {
		return j
	}
	for j < tab.Len() && tab.TimeNanos(j) < t {
		j++
	}
	if j < tab.Len() && tab.TimeNanos(j) == t {
		count, _ := tab.Num(a.p.perSecCol, j)
		a.eventsPerSec = int64(math.Round(count))
	}
	return j
}

// batchDone records the time from a batch's arrival to the end of its
// work, holding the lock.
func (a *Aggregator) batchDone(started time.Time) {
	d := time.Since(started)
	a.m.batchDone(d)
	if a.onBatchDone != nil {
		a.onBatchDone(d)
	}
}

// admit returns b without the rows dated more than MaxSkew ahead of the
// wall clock, the rows whose host name is longer than MaxHostLen and the
// rows whose cpu or requests is not a finite number; they are counted and
// logged. One bad row must not poison the stream: a row from the far
// future would evict the whole raw window and, under strict ordering, make
// every later batch out of order, and the series rejects a batch with a
// NaN or an infinity whole.
func (a *Aggregator) admit(b *schema.Batch) *schema.Batch {
	// Past the year 2262 the nanoseconds would overflow: such a skew
	// refuses nothing.
	now := a.cfg.Now().UnixNano()
	limit := int64(math.MaxInt64)
	if a.cfg.MaxSkew < time.Duration(math.MaxInt64-now) {
		limit = now + int64(a.cfg.MaxSkew)
	}
	hosts := b.Cols[2].Str
	cpu, req := b.Cols[0].Num, b.Cols[1].Num
	bad := false
	for i, t := range b.Time {
		if t > limit || len(hosts[i]) > a.cfg.MaxHostLen || !finite(cpu[i]) || !finite(req[i]) {
			bad = true
			break
		}
	}
	if !bad {
		return b
	}
	var future, long, value uint64
	var example string
	a.admitted = hostlimit.Filter(a.admitted, b, func(i int) bool {
		switch {
		case b.Time[i] > limit:
			future++
			if example == "" {
				example = "time " + time.Unix(0, b.Time[i]).UTC().Format(time.RFC3339)
			}
			return false
		case len(hosts[i]) > a.cfg.MaxHostLen:
			long++
			if example == "" {
				example = fmt.Sprintf("host of %d bytes", len(hosts[i]))
			}
			return false
		case !finite(cpu[i]) || !finite(req[i]):
			value++
			if example == "" {
				example = fmt.Sprintf("cpu %v, requests %v", cpu[i], req[i])
			}
			return false
		}
		return true
	})
	a.refused.Future += future
	a.refused.HostLen += long
	a.refused.BadValue += value
	a.logRefusal("rows refused", "future", future, "host_too_long", long, "not_finite", value, "max_skew", a.cfg.MaxSkew, "max_host_len", a.cfg.MaxHostLen, "example", example)
	return a.admitted
}

// finite reports whether x is a number the series takes.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// logRefusal logs refused rows at most once a second, so a flood of bad
// rows does not become a flood of logs; the counters have every row.
func (a *Aggregator) logRefusal(msg string, args ...any) {
	now := a.cfg.Now()
	if now.Sub(a.refused.LastLogged) < time.Second {
		return
	}
	a.refused.LastLogged = now
	a.cfg.Logger.Warn(msg, args...)
}

// dropPastGrace removes the rows that reorder ordering would refuse (more
// than the grace late), so that one such row does not reject its whole
// batch; they are counted as refused.
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
	latest, has = a.p.s.LatestNanos()
	a.filtered = hostlimit.Filter(a.filtered, b, func(i int) bool {
		t := b.Time[i]
		if has && t < latest && latest-t > grace {
			a.refused.Order++
			return false
		}
		if !has || t >= latest {
			latest, has = t, true
		}
		return true
	})
	return a.filtered
}

// took handles the rows the series accepted: counters, and the /live
// append frame.
//
// When own is set, tab's rows are exactly b's, b's number and time
// columns are never written again and own holds its hosts' indices: the
// append frame's chunk keeps them, uncopied.
func (a *Aggregator) took(tab *schema.Table, b *schema.Batch, own *owned) {
	n := tab.Len()
	if n == 0 {
		return
	}
	times := tab.Times()
	if !a.hasFirst {
		a.firstMs, a.hasFirst = times[0]/int64(time.Millisecond), true
	}
	req, _ := tab.Numbers("requests")
	for _, r := range req {
		a.requestsTotal += r
	}
	var chunk *rawChunk
	if own != nil {
		chunk = &rawChunk{times: b.Time, cpu: b.Cols[0].Num, req: b.Cols[1].Num, host: own.ids, names: own.names}
	} else {
		chunk = newRawChunk(tab, &a.rawNames)
	}
	a.raw.add(chunk)
	for c := range a.liveClients {
		a.send(c, item{chunk: chunk, size: int64(48 * n)})
	}
}

// emitTick assembles one boundary's rows into a tick, keeps it in the
// history and queues it to the /live-agg clients, whose writers encode it
// (each through its own top-N projection).
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
	t := &tick{rows: rows, globals: wire.GlobalsTick{
		TS: tsMs, EventsIngestedTotal: st.Ingested, EventsPerSec: a.eventsPerSec,
		EvictedTotal: st.Evicted, RequestsIngestedTotal: a.requestsTotal,
	}}
	a.lastTickMs = tsMs
	a.ticksEmitted++
	a.m.lastTickHosts.Store(int64(len(rows)))
	a.hist.add(t)
	size := int64(400 * len(rows))
	for c := range a.aggClients {
		a.send(c, item{tick: t, size: size})
	}
}

// Stats are the aggregator's counters, for tests and the metrics.
type Stats struct {
	Series         live.Stats
	TicksEmitted   uint64
	Refused        refusals
	RejectedRows   uint64 // every refused row, whatever the reason
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
	r := a.refused
	r.BadTime = a.m.badTime.Load()
	series := a.p.s.Stats()
	r.Order += series.Rejected // the late rows the series drops under Drop ordering
	return Stats{
		Series: series, TicksEmitted: a.ticksEmitted, Refused: r,
		RejectedRows:   r.Order + r.Future + r.BadTime + r.HostLimit + r.HostLen + r.BadValue,
		RejectedPushes: r.Pushes, LiveClients: len(a.liveClients), AggClients: len(a.aggClients),
		HistoryTicks: len(a.hist.all()), LastTickMs: a.lastTickMs,
	}
}
