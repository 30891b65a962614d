package producer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"
)

// QueueBatches is the capacity of each subscriber's queue.
const QueueBatches = 64

// DefaultKeepalive is Config.Keepalive's default.
const DefaultKeepalive = 20 * time.Second

// MinEventsPerSec and MaxEventsPerSec bound Config.EventsPerSec, so that
// the tick period is from 1 ns to 1e18 ns (about 32 years): above 1e9 a
// second it would be 0, below about 1e-10 it would overflow.
const (
	MinEventsPerSec = 1e-9
	MaxEventsPerSec = 1e9
)

// Config configures a producer.
type Config struct {
	// GRPCAddr is the gRPC listen address ("127.0.0.1:50051"; port 0
	// picks one).
	GRPCAddr string
	// MetricsAddr is the HTTP listen address of /metrics (Prometheus),
	// /metrics.json and /health; empty
	// serves none.
	MetricsAddr  string
	Hosts        int     // number of hosts
	EventsPerSec float64 // ticks per second (one event per host per tick), from MinEventsPerSec to MaxEventsPerSec
	Variability  float64 // full width of the uniform per-event noise
	// Seed seeds the simulator when HasSeed is set; otherwise the seed is
	// random.
	Seed    uint32
	HasSeed bool
	// Keepalive is how long a subscriber's connection may send nothing
	// (not a window update, not a ping's answer) before the producer pings
	// it, and how long it then has to answer before it is cut (default
	// 20 s, at least 1 s): a subscriber that vanished without closing, or
	// hangs, goes with its stream, its goroutine and its queue within
	// twice this.
	Keepalive time.Duration
	// Now is the wall clock (time.Now when nil); tests replace it.
	Now func() time.Time
}

// Producer is a running producer.
type Producer struct {
	cfg     Config
	sim     *Simulator
	grpcLis net.Listener
	httpLis net.Listener
	srv     *grpc.Server
	httpSrv *http.Server
	start   time.Time
	startMs int64

	mu   sync.Mutex
	subs map[*subscriber]struct{}

	ticks, skipped, batches, rows, droppedBatches, droppedRows atomic.Uint64
	// halfFull counts batches queued behind at least half a queue: a
	// subscriber that far behind is one stall of that length from
	// dropping, so the count shows how near a run came to a drop.
	halfFull atomic.Uint64
	lastSize int // bytes of the last tick, for the next one's buffer (tick loop only)
	// bufs recycles the ticks' encoded batches: a batch's buffer comes
	// back once every subscriber has sent or dropped it, so that ticking
	// allocates nothing (at 2,000 ticks a second of 1,000 hosts, a new
	// buffer a tick was about 60 MB/s of garbage and a collection every
	// 40 ms).
	bufs batchPool

	stopOnce  sync.Once
	stopTicks chan struct{}
	tickDone  chan struct{}
	paused    atomic.Bool
}

// batchPool is the [mem.BufferPool] of the producer's encoded batches,
// sized to the batch: gRPC's default pool rounds up to its tiers, and a
// batch just over 32 KB (a little over 1,000 hosts) would take 1 MB
// buffers there, 64 of them a subscriber's queue.
type batchPool struct{ pool sync.Pool }

// Get returns a buffer of n bytes, a recycled one when it has room. A new
// one has a quarter more room: the next tick's batch, a few bytes longer
// or shorter, fits in it.
func (p *batchPool) Get(n int) *[]byte {
	if b, _ := p.pool.Get().(*[]byte); b != nil && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, n+n/4)
	return &b
}

// Put takes a buffer back.
func (p *batchPool) Put(b *[]byte) { p.pool.Put(b) }

// subscriber is one Subscribe stream and its bounded queue. The queue
// holds a reference to each batch in it.
type subscriber struct {
	mu      sync.Mutex
	ring    [QueueBatches]mem.Buffer
	rows    [QueueBatches]int
	head, n int
	wake    chan struct{}
	dropped uint64
}

// enqueue adds a batch (taking a reference to it), dropping the oldest
// (and its reference) when the queue is full. It reports the rows
// dropped and how many batches the new one waits behind.
func (s *subscriber) enqueue(b mem.Buffer, rows int) (droppedRows, ahead int) {
	b.Ref()
	s.mu.Lock()
	if s.n == QueueBatches {
		droppedRows = s.rows[s.head]
		s.ring[s.head].Free()
		s.ring[s.head] = nil
		s.head = (s.head + 1) % QueueBatches
		s.n--
		s.dropped++
	}
	i := (s.head + s.n) % QueueBatches
	s.ring[i], s.rows[i] = b, rows
	ahead = s.n
	s.n++
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return droppedRows, ahead
}

// pop takes the oldest batch out, with the queue's reference to it, which
// the caller releases.
func (s *subscriber) pop() (mem.Buffer, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return nil, 0, false
	}
	b, rows := s.ring[s.head], s.rows[s.head]
	s.ring[s.head] = nil
	s.head = (s.head + 1) % QueueBatches
	s.n--
	return b, rows, true
}

// drain releases the batches left in the queue of a stream that ended.
func (s *subscriber) drain() {
	for {
		b, _, ok := s.pop()
		if !ok {
			return
		}
		b.Free()
	}
}

func (s *subscriber) depth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Start listens and starts ticking. Stop it with [Producer.Stop].
func Start(cfg Config) (*Producer, error) {
	if cfg.Hosts < 1 {
		return nil, fmt.Errorf("producer: hosts %d must be at least 1", cfg.Hosts)
	}
	if !(cfg.EventsPerSec >= MinEventsPerSec && cfg.EventsPerSec <= MaxEventsPerSec) {
		return nil, fmt.Errorf("producer: events per second %v: want %g to %g", cfg.EventsPerSec, MinEventsPerSec, MaxEventsPerSec)
	}
	if math.IsNaN(cfg.Variability) || math.IsInf(cfg.Variability, 0) {
		return nil, fmt.Errorf("producer: variability %v: want a finite width such as 0.4", cfg.Variability)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Keepalive <= 0 {
		cfg.Keepalive = DefaultKeepalive
	}
	cfg.Keepalive = max(cfg.Keepalive, time.Second)
	seed := cfg.Seed
	if !cfg.HasSeed {
		seed = rand.Uint32()
	}
	p := &Producer{
		cfg:       cfg,
		sim:       NewSimulator(cfg.Hosts, cfg.Variability, benchmarks.NewMulberry32(seed).Next),
		subs:      map[*subscriber]struct{}{},
		stopTicks: make(chan struct{}),
		tickDone:  make(chan struct{}),
	}
	var err error
	if p.grpcLis, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	if cfg.MetricsAddr != "" {
		if p.httpLis, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			p.grpcLis.Close()
			return nil, fmt.Errorf("producer: %w", err)
		}
	}
	// Without keepalive a subscriber that vanished was held until TCP gave
	// up on the unacknowledged batches (about 15 minutes), and a hung one,
	// whose kernel still acknowledges, for ever.
	p.srv = grpc.NewServer(grpc.ForceServerCodecV2(eventsv1.Codec),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: cfg.Keepalive, Timeout: cfg.Keepalive}),
		// A subscriber pings a stream that delivers nothing for a while
		// (the aggregator after 30 s): allow it, or gRPC would end the
		// connection of a slow stream after the third ping.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}))
	eventsv1.RegisterProducerServer(p.srv, service{p: p})
	go p.srv.Serve(p.grpcLis)
	if p.httpLis != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", p.promHandler())
		mux.HandleFunc("GET /metrics.json", p.serveMetrics)
		mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"ok":true}`))
		})
		p.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go p.httpSrv.Serve(p.httpLis)
	}
	p.start = cfg.Now()
	p.startMs = p.start.UnixMilli()
	go p.tickLoop()
	return p, nil
}

// GRPCAddr returns the address the gRPC server listens on.
func (p *Producer) GRPCAddr() string { return p.grpcLis.Addr().String() }

// MetricsAddr returns the address of /metrics, or "" when there is none.
func (p *Producer) MetricsAddr() string {
	if p.httpLis == nil {
		return ""
	}
	return p.httpLis.Addr().String()
}

// Pause stops emitting ticks (true) or resumes (false); for tests.
func (p *Producer) Pause(on bool) { p.paused.Store(on) }

// tickLoop emits one batch per tick, scheduled from deadlines: tick k is
// due at start + k·period, so the average rate is exact even when the
// timer is coarse. A loop more than a second behind skips the missed ticks
// and counts them.
func (p *Producer) tickLoop() {
	defer close(p.tickDone)
	period := time.Duration(float64(time.Second) / p.cfg.EventsPerSec)
	next := p.cfg.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		now := p.cfg.Now()
		if d := next.Sub(now); d > 0 {
			timer.Reset(d)
			select {
			case <-p.stopTicks:
				return
			case <-timer.C:
			}
			now = p.cfg.Now()
		} else {
			select {
			case <-p.stopTicks:
				return
			default:
			}
		}
		if behind := now.Sub(next); behind > time.Second {
			missed := uint64(behind / period)
			p.skipped.Add(missed)
			next = next.Add(time.Duration(missed) * period)
		}
		next = next.Add(period)
		if p.paused.Load() {
			continue
		}
		// Milliseconds from the monotonic clock, so event times never go
		// back when the wall clock is stepped.
		p.emit(p.startMs + now.Sub(p.start).Milliseconds())
	}
}

// emit builds, encodes and fans out one tick.
func (p *Producer) emit(nowMs int64) {
	b := p.sim.Tick(nowMs)
	// A buffer of its own per tick, which subscribers' queues hold: a
	// recycled one, back in the pool once the last of them let go.
	buf := p.bufs.Get(p.lastSize)
	data, err := eventsv1.AppendEvents((*buf)[:0], b.Events)
	if err != nil {
		panic(err) // the simulator's host names are ASCII
	}
	*buf = data
	p.lastSize = len(data)
	batch := mem.NewBuffer(buf, &p.bufs)
	rows := len(b.Events)
	p.ticks.Add(1)
	p.mu.Lock()
	for s := range p.subs {
		d, ahead := s.enqueue(batch, rows)
		if d > 0 {
			p.droppedBatches.Add(1)
			p.droppedRows.Add(uint64(d))
		}
		if ahead >= QueueBatches/2 {
			p.halfFull.Add(1)
		}
	}
	p.mu.Unlock()
	batch.Free()
}

type service struct {
	eventsv1.UnimplementedProducerServer
	p *Producer
}

// Subscribe streams the subscriber's queue until the stream ends.
func (s service) Subscribe(_ *eventsv1.SubscribeRequest, stream eventsv1.Producer_SubscribeServer) error {
	p := s.p
	sub := &subscriber{wake: make(chan struct{}, 1)}
	p.mu.Lock()
	p.subs[sub] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.subs, sub)
		p.mu.Unlock()
		// No tick enqueues here any more.
		sub.drain()
	}()
	ctx := stream.Context()
	var msg eventsv1.Raw
	for {
		b, rows, ok := sub.pop()
		if !ok {
			select {
			case <-ctx.Done():
				return nil
			case <-sub.wake:
				continue
			}
		}
		// The send holds its own reference until the bytes are written.
		msg.Buf = b
		err := stream.SendMsg(&msg)
		msg.Buf = nil
		b.Free()
		if err != nil {
			return err
		}
		p.batches.Add(1)
		p.rows.Add(uint64(rows))
	}
}

// Metrics is the producer's /metrics.json document.
type Metrics struct {
	UptimeSec           float64 `json:"uptimeSec"`
	Hosts               int     `json:"hosts"`
	EventsPerSecPerHost float64 `json:"eventsPerSecPerHost"`
	TicksEmittedTotal   uint64  `json:"ticks_emitted_total"`
	TicksSkippedTotal   uint64  `json:"ticks_skipped_total"`
	EventsEmittedTotal  uint64  `json:"events_emitted_total"`
	BatchesSentTotal    uint64  `json:"batches_sent_total"`
	RowsSentTotal       uint64  `json:"rows_sent_total"`
	DroppedBatchesTotal uint64  `json:"dropped_batches_total"`
	DroppedRowsTotal    uint64  `json:"dropped_rows_total"`
	// HalfFullTotal counts batches queued behind at least half of a
	// subscriber's queue (32 of its 64 batches): how near the queues came
	// to dropping.
	HalfFullTotal uint64 `json:"queued_half_full_total"`
	Subscribers   int    `json:"subscribers"`
	QueueDepth    []int  `json:"queue_depth"`
}

// Metrics returns the producer's counters.
func (p *Producer) Metrics() Metrics {
	m := Metrics{
		UptimeSec:           p.cfg.Now().Sub(p.start).Seconds(),
		Hosts:               p.cfg.Hosts,
		EventsPerSecPerHost: p.cfg.EventsPerSec,
		TicksEmittedTotal:   p.ticks.Load(),
		TicksSkippedTotal:   p.skipped.Load(),
		BatchesSentTotal:    p.batches.Load(),
		RowsSentTotal:       p.rows.Load(),
		DroppedBatchesTotal: p.droppedBatches.Load(),
		DroppedRowsTotal:    p.droppedRows.Load(),
		HalfFullTotal:       p.halfFull.Load(),
		QueueDepth:          []int{},
	}
	m.EventsEmittedTotal = m.TicksEmittedTotal * uint64(p.cfg.Hosts)
	p.mu.Lock()
	for s := range p.subs {
		m.QueueDepth = append(m.QueueDepth, s.depth())
	}
	p.mu.Unlock()
	m.Subscribers = len(m.QueueDepth)
	return m
}

// promHandler serves the producer's counters as Prometheus text, with the
// Go and process collectors.
func (p *Producer) promHandler() http.Handler {
	reg := prometheus.NewRegistry()
	counter := func(name, help string, f func(Metrics) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "pond_producer_" + name, Help: help},
			func() float64 { return float64(f(p.Metrics())) })
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		counter("ticks_emitted_total", "Ticks emitted (one batch each).", func(m Metrics) uint64 { return m.TicksEmittedTotal }),
		counter("ticks_skipped_total", "Ticks skipped by a loop more than a second behind.", func(m Metrics) uint64 { return m.TicksSkippedTotal }),
		counter("events_emitted_total", "Events emitted.", func(m Metrics) uint64 { return m.EventsEmittedTotal }),
		counter("batches_sent_total", "Batches sent to subscribers.", func(m Metrics) uint64 { return m.BatchesSentTotal }),
		counter("rows_sent_total", "Rows sent to subscribers.", func(m Metrics) uint64 { return m.RowsSentTotal }),
		counter("dropped_batches_total", "Batches dropped from full subscriber queues.", func(m Metrics) uint64 { return m.DroppedBatchesTotal }),
		counter("dropped_rows_total", "Rows dropped from full subscriber queues.", func(m Metrics) uint64 { return m.DroppedRowsTotal }),
		counter("queued_half_full_total", "Batches queued behind at least half of a subscriber's queue.", func(m Metrics) uint64 { return m.HalfFullTotal }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "pond_producer_subscribers", Help: "Open Subscribe streams."},
			func() float64 { return float64(p.Metrics().Subscribers) }),
	)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

func (p *Producer) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(p.Metrics())
}

// Stop shuts the producer down: it stops the simulator, gives the writers
// 200 ms to flush, then stops gracefully, forcing the stop after 500 ms (an
// open Subscribe stream would otherwise hold a graceful stop forever).
func (p *Producer) Stop() { p.stopOnce.Do(p.stop) }

func (p *Producer) stop() {
	close(p.stopTicks)
	<-p.tickDone
	time.Sleep(200 * time.Millisecond)
	done := make(chan struct{})
	go func() { p.srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(500 * time.Millisecond):
		p.srv.Stop()
		<-done
	}
	if p.httpSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if err := p.httpSrv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			p.httpSrv.Close()
		}
	}
}
