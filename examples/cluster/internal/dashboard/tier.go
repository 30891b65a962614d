// Package dashboard is the cluster's dashboard tier: it reads the output
// topic with read-committed isolation, groups the rows by boundary into
// the aggregator's /live-agg frames and serves the aggregator's dashboard
// page (examples/internal/dashboard), which reads them over a WebSocket.
//
// Rows of one boundary come from every input partition, committed by
// different workers at different moments. A boundary is sent once every
// input partition still sending has sent a later one, or a second after
// its first row, whichever comes first; a row that arrives after its
// boundary was sent is counted (late_rows) and not shown. A partition
// quiet for forgetAfter (its hosts gone, or its worker down) is forgotten
// until it sends again, so it holds no boundary back.
//
// Each page is pinged every PingInterval, and cut as if it had left when
// its pong does not come back within PingTimeout: a page whose machine or
// network went away without closing the socket was otherwise held, its
// queue filling, until the queue overflowed or the kernel's TCP keepalive
// gave up. The pongs are taken in by the reader that discards what the
// page sends.
package dashboard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/cluster/internal/telemetry"
	page "github.com/pond-go/pond/examples/internal/dashboard"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/examples/internal/wsping"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Config is the tier's settings.
type Config struct {
	Brokers []string
	// History is how much of the output a new page gets, and how far back
	// the tier starts reading (default 2 minutes).
	History time.Duration
	// HistoryTicks caps the ticks a new page gets (default 300).
	HistoryTicks int
	// PingInterval is how often each page is pinged, counted from its last
	// pong (default 10 s), and PingTimeout how long the pong may take
	// (default 10 s); a page that does not answer in time is cut.
	PingInterval time.Duration
	PingTimeout  time.Duration
	Logger       *slog.Logger
}

// fill puts the defaults in the fields left zero.
func (c *Config) fill() {
	if c.History <= 0 {
		c.History = 2 * time.Minute
	}
	if c.HistoryTicks <= 0 {
		c.HistoryTicks = 300
	}
	if c.PingInterval <= 0 {
		c.PingInterval = wsping.DefaultInterval
	}
	if c.PingTimeout <= 0 {
		c.PingTimeout = wsping.DefaultTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// tick is one sent boundary.
type tick struct {
	rows    []*wire.HostTick
	globals wire.GlobalsTick
}

// seen is what an input partition last sent: its latest boundary, and
// when a row of it last came.
type seen struct {
	boundary int64
	at       time.Time
}

// maxWait is how long a boundary waits for its rows from every partition.
const maxWait = time.Second

// forgetAfter is how long a partition may be quiet before flush forgets
// it: longer than a worker's usual gap between commits, so that a partition
// still sending is waited for as before.
const forgetAfter = 5 * time.Second

// maxAhead is how far past the wall clock a row's boundary may be: the
// rows of a partition poisoned by a record stamped far ahead (see the
// README's Limits) are left out and counted, or the tier would send
// their boundary after maxWait, and every row of every partition after
// it would come late, until the wall clock caught up.
const maxAhead = time.Minute

// pending is a boundary still gathering rows.
type pending struct {
	rows  []*wire.HostTick
	hosts map[string]struct{} // the hosts of rows, a row taken again left out
	since time.Time
}

// Tier is the dashboard tier.
type Tier struct {
	cfg Config
	cl  *kgo.Client
	now func() time.Time // the wall clock (time.Now when nil); tests replace it

	mu        sync.Mutex
	pending   map[int64]*pending
	latest    map[string]seen // input partition → its latest boundary, while it sends
	sent      int64           // last boundary sent
	firstTS   int64
	history   []tick
	clients   map[*client]struct{}
	ingested  uint64
	rowsIn    uint64
	lateRows  uint64
	aheadRows uint64 // rows past the wall clock by more than maxAhead
	dupRows   uint64 // rows of a host its boundary had already
	framesOut uint64
	pingCuts  uint64 // pages cut for a ping left unanswered
}

// New connects the tier's consumer.
func New(cfg Config) (*Tier, error) {
	cfg.fill()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumeTopics(brokers.Output),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(time.Now().Add(-cfg.History).UnixMilli())),
	)
	if err != nil {
		return nil, err
	}
	return &Tier{cfg: cfg, cl: cl, pending: map[int64]*pending{}, latest: map[string]seen{}, sent: -1, firstTS: -1, clients: map[*client]struct{}{}}, nil
}

// Close stops the consumer and disconnects every page.
func (t *Tier) Close() {
	t.cl.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.clients {
		c.close()
	}
}

// Run reads the output topic until ctx ends.
func (t *Tier) Run(ctx context.Context) {
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		fs := t.cl.PollFetches(pctx)
		cancel()
		if fs.IsClientClosed() {
			return
		}
		t.mu.Lock()
		fs.EachRecord(func(r *kgo.Record) { t.take(r) })
		t.flush(time.Now())
		t.mu.Unlock()
	}
}

// take adds one output record to its boundary.
func (t *Tier) take(r *kgo.Record) {
	row, err := rows.Decode(r.Value)
	if err != nil {
		t.cfg.Logger.Warn("bad output record", "offset", r.Offset, "err", err)
		return
	}
	t.rowsIn++
	if row.BoundaryMs > t.clock().Add(maxAhead).UnixMilli() {
		// Not heard either: a partition sending only such rows is
		// forgotten after forgetAfter, so it holds no boundary back.
		t.aheadRows++
		return
	}
	part := ""
	for _, h := range r.Headers {
		if h.Key == rows.HeaderPartition {
			part = string(h.Value)
		}
	}
	s, ok := t.latest[part]
	if !ok || row.BoundaryMs > s.boundary {
		s.boundary = row.BoundaryMs
	}
	s.at = t.clock()
	t.latest[part] = s
	if row.BoundaryMs <= t.sent {
		t.lateRows++
		return
	}
	if t.firstTS < 0 {
		t.firstTS = row.BoundaryMs - 200
	}
	p := t.pending[row.BoundaryMs]
	if p == nil {
		p = &pending{since: t.clock(), hosts: map[string]struct{}{}}
		t.pending[row.BoundaryMs] = p
	}
	if _, dup := p.hosts[row.Host]; dup {
		// One row a host and boundary: the workers commit each once,
		// so this is another writer's or a record read twice.
		t.dupRows++
		return
	}
	p.hosts[row.Host] = struct{}{}
	p.rows = append(p.rows, hostTick(&row, t.firstTS))
}

// flush sends, in order, every boundary that is complete or has waited a
// second. A partition quiet for forgetAfter is forgotten: kept, it held
// every later boundary back for the whole second once its hosts had gone,
// for good, and the table grew with every partition header ever read.
func (t *Tier) flush(now time.Time) {
	low := int64(-1) // the boundary every partition still sending has passed
	for part, s := range t.latest {
		if now.Sub(s.at) > forgetAfter {
			delete(t.latest, part)
			continue
		}
		if low < 0 || s.boundary < low {
			low = s.boundary
		}
	}
	if len(t.pending) == 0 {
		return
	}
	bs := make([]int64, 0, len(t.pending))
	for b := range t.pending {
		bs = append(bs, b)
	}
	slices.Sort(bs)
	ready := -1
	for i, b := range bs {
		if b < low || now.Sub(t.pending[b].since) > maxWait {
			ready = i
		}
	}
	for _, b := range bs[:ready+1] {
		t.send(b, t.pending[b].rows)
		delete(t.pending, b)
	}
}

// send appends a boundary's frame to the history and every page.
func (t *Tier) send(b int64, hs []*wire.HostTick) {
	slices.SortFunc(hs, func(x, y *wire.HostTick) int {
		switch {
		case x.Host < y.Host:
			return -1
		case x.Host > y.Host:
			return 1
		}
		return 0
	})
	var n uint64
	for _, h := range hs {
		n += uint64(h.NCurrent)
	}
	t.ingested += n
	tk := tick{rows: hs, globals: wire.GlobalsTick{
		TS: b, EventsIngestedTotal: t.ingested, EventsPerSec: int64(n) * 5,
	}}
	t.sent = b
	t.history = append(t.history, tk)
	cut := 0
	for cut < len(t.history) && (len(t.history)-cut > t.cfg.HistoryTicks || t.history[cut].globals.TS < b-t.cfg.History.Milliseconds()) {
		cut++
	}
	t.history = slices.Delete(t.history, 0, cut)
	frame := wire.AppendAggregateAppend(nil, tk.rows, &tk.globals)
	for c := range t.clients {
		t.framesOut++
		if !c.enqueue(frame) {
			delete(t.clients, c)
		}
	}
}

// clock returns the wall time.
func (t *Tier) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}

// hostTick is a row as the dashboard draws it.
func hostTick(r *rows.Row, firstTS int64) *wire.HostTick {
	k := len(wire.DefaultThresholds)
	h := &wire.HostTick{
		TS: r.BoundaryMs, Host: r.Host,
		CPUAvg: r.CPUAvg, CPUSd: r.CPUSd, CPUN: int(r.CPUN),
		NCurrent: len(r.CPUSamples) + int(r.CPUSamplesLeftOut), AnomaliesAbove: make([]int, k), AnomaliesBelow: make([]int, k),
		RequestsAvg: r.RequestsAvg, RequestsSum: r.RequestsSum, RequestsN: int(r.RequestsN),
		WindowAgeSeconds: min(60, max(0, float64(r.BoundaryMs-firstTS)/1000)),
		CPUMin:           r.CPUMin, CPUMax: r.CPUMax, CurrentAvg: r.CurrentAvg, CurrentSd: r.CurrentSd,
	}
	if h.RequestsSum != h.RequestsSum {
		h.RequestsSum = 0
	}
	// The anomalies are counted over the samples the row carries: past
	// rows.MaxSamples, over the first of the slice.
	countAnomalies(r.CPUSamples, r.CPUAvg, r.CPUSd, wire.DefaultThresholds, h.AnomaliesAbove, h.AnomaliesBelow)
	return h
}

// countAnomalies is the aggregator's CountAnomalies (in
// examples/aggregator/internal/aggregator, which this package may not
// import): samples beyond each σ threshold of the 1m baseline, strictly.
func countAnomalies(samples []float64, avg, sd float64, thresholds []float64, above, below []int) {
	if avg != avg || sd != sd || len(samples) == 0 {
		return
	}
	for _, v := range samples {
		diff := v - avg
		for i, th := range thresholds {
			cut := th * sd
			if diff > cut {
				above[i]++
			} else if -diff > cut {
				below[i]++
			}
		}
	}
}

// Handler serves the page, /live-agg, and the tier's metrics.
func (t *Tier) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /live-agg", t.serveLiveAgg)
	telemetry.Handle(mux, t.Families, func() bool { return true })
	// The rows carry no per-tick request count, so the frames' request
	// total stays zero and the page leaves the totals off.
	mux.Handle("/", page.Handler(page.Page{Title: "pond-go cluster"}))
	return mux
}

// Families are the tier's metrics.
func (t *Tier) Families() []telemetry.Family {
	t.mu.Lock()
	defer t.mu.Unlock()
	return []telemetry.Family{
		telemetry.One("pond_dashboard_rows_in_total", "counter", "Committed rows read from the output topic.", float64(t.rowsIn)),
		telemetry.One("pond_dashboard_late_rows_total", "counter", "Rows that came after their boundary was sent.", float64(t.lateRows)),
		telemetry.One("pond_dashboard_ahead_rows_total", "counter", "Rows left out: their boundary is more than a minute past the wall clock (a partition poisoned by a record stamped far ahead).", float64(t.aheadRows)),
		telemetry.One("pond_dashboard_duplicate_rows_total", "counter", "Rows left out: their host's row of the boundary was taken already.", float64(t.dupRows)),
		telemetry.One("pond_dashboard_frames_out_total", "counter", "aggregate-append frames queued to pages.", float64(t.framesOut)),
		telemetry.One("pond_dashboard_clients", "gauge", "Open /live-agg sockets.", float64(len(t.clients))),
		telemetry.One("pond_dashboard_unanswered_ping_disconnects_total", "counter", "Pages cut because a ping went unanswered.", float64(t.pingCuts)),
		telemetry.One("pond_dashboard_last_boundary_ms", "gauge", "The last boundary sent.", float64(t.sent)),
	}
}

// client is one /live-agg socket with its bounded queue.
type client struct {
	q    chan []byte
	once sync.Once
	done chan struct{}
	// writing: a frame or the snapshot is being written; pings wait
	// (see wsping.Loop), the writes' own timeouts bound it.
	writing atomic.Bool
}

func (c *client) enqueue(f []byte) bool {
	select {
	case c.q <- f:
		return true
	default:
		c.close() // too slow: dropped, never waited for
		return false
	}
}

func (c *client) close() { c.once.Do(func() { close(c.done) }) }

func (t *Tier) serveLiveAgg(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	// The goroutines below end once ctx is cancelled and the socket closed
	// (the defers run last first).
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// Read and ignore what the page sends (set-top-n: every host is sent);
	// CloseRead would close the socket on the first such message. The
	// reads take the pongs in.
	wg.Go(func() {
		defer cancel()
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				return
			}
		}
	})
	c := &client{q: make(chan []byte, 1024), done: make(chan struct{})}
	c.writing.Store(true) // the snapshot, first
	wg.Go(func() { t.ping(ctx, conn, cancel, c.writing.Load) })
	snap := t.register(c)
	defer func() {
		t.mu.Lock()
		delete(t.clients, c)
		t.mu.Unlock()
		conn.CloseNow()
	}()
	if err := streamSnapshot(ctx, conn, snap, c.done); err != nil {
		if errors.Is(err, wire.ErrStopped) {
			conn.Close(websocket.StatusTryAgainLater, "too slow")
		}
		return
	}
	c.writing.Store(false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.done:
			conn.Close(websocket.StatusTryAgainLater, "too slow")
			return
		case f := <-c.q:
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			c.writing.Store(true)
			err := conn.Write(wctx, websocket.MessageText, f)
			c.writing.Store(false)
			cancel()
			if err != nil {
				return
			}
		}
	}
}

// ping pings the page until ctx ends, but while busy (a write in
// flight); a page that leaves a ping unanswered is cut as one that left:
// cancel ends its handler.
func (t *Tier) ping(ctx context.Context, conn *websocket.Conn, cancel context.CancelFunc, busy func() bool) {
	err := wsping.Loop(ctx, conn, t.cfg.PingInterval, t.cfg.PingTimeout, busy)
	if err == nil {
		return
	}
	if errors.Is(err, wsping.ErrUnanswered) {
		t.mu.Lock()
		t.pingCuts++
		t.mu.Unlock()
		t.cfg.Logger.Info("closing a page that does not answer pings", "err", err)
	}
	cancel()
}

// register adds a page and returns the ticks of its snapshot. Only the
// ticks are copied under the lock (their rows are never changed once
// sent), so the snapshot, up to 300 ticks × every host, is encoded and
// written by the page's own goroutine while ingestion goes on: it was
// encoded under the lock, and ingestion stopped for as long as that took
// (seconds at 1000 hosts), for every page that connected. Every tick sent
// after the copy is queued to the page, so it gets each tick once, in
// order.
func (t *Tier) register(c *client) []tick {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clients[c] = struct{}{}
	return slices.Clone(t.history)
}

// snapshotTimeout bounds the writing of a snapshot to one page.
const snapshotTimeout = time.Minute

// streamSnapshot writes the aggregate-snapshot of ticks to the page as
// one WebSocket message, in pieces.
func streamSnapshot(ctx context.Context, conn *websocket.Conn, ticks []tick, stop <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	w, err := conn.Writer(ctx, websocket.MessageText)
	if err != nil {
		return err
	}
	if err := writeSnapshot(w, ticks, stop); err != nil {
		return err
	}
	return w.Close()
}

// writeSnapshot writes the aggregate-snapshot of ticks to w in pieces of
// about wire.PieceBytes (as the aggregator writes its snapshots); once
// stop is closed (the page dropped) it stops at the next piece, with
// wire.ErrStopped.
func writeSnapshot(w io.Writer, ticks []tick, stop <-chan struct{}) error {
	var snap wire.AggregateSnapshot
	snap.Begin(wire.PieceBuffer(), wire.DefaultThresholds)
	pw := wire.Pieces{W: w, Stop: stop}
	for i := range ticks {
		for _, h := range ticks[i].rows {
			snap.Row(h)
			if err := snap.Flush(&pw, false); err != nil {
				return err
			}
		}
	}
	for i := range ticks {
		snap.Globals(&ticks[i].globals)
		if err := snap.Flush(&pw, false); err != nil {
			return err
		}
	}
	if err := snap.Flush(&pw, true); err != nil {
		return err
	}
	_, err := w.Write(snap.End())
	return err
}
