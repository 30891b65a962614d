package producer

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/examples/internal/freezer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

func TestSimulatorIsReproducibleWithASeed(t *testing.T) {
	a := NewSimulator(12, 0.4, benchmarks.NewMulberry32(9).Next)
	b := NewSimulator(12, 0.4, benchmarks.NewMulberry32(9).Next)
	for k := range 50 {
		now := int64(1714000000000 + 250*k)
		assert.True(t, proto.Equal(a.Tick(now), b.Tick(now)), "tick %d", k)
	}
}

func TestSimulatorEmitsOneEventPerHostInOrder(t *testing.T) {
	s := NewSimulator(10, 0.4, benchmarks.NewMulberry32(1).Next)
	for k := range 400 {
		now := int64(1714000000000 + 100*k)
		b := s.Tick(now)
		require.Len(t, b.Events, 10)
		for i, e := range b.Events {
			assert.Equal(t, HostName(i), e.Host)
			assert.Equal(t, now, e.TimeMs, "every event of a tick shares its time")
			assert.GreaterOrEqual(t, e.Cpu, 0.0)
			assert.LessOrEqual(t, e.Cpu, 1.0)
			assert.GreaterOrEqual(t, e.Requests, int64(0))
			assert.Less(t, e.Requests, int64(200))
		}
		for i := range 10 {
			assert.GreaterOrEqual(t, s.Mean(i), 0.15)
			assert.LessOrEqual(t, s.Mean(i), 0.9)
		}
	}
	assert.Equal(t, "api-9", HostName(8), "names go on past the canonical eight")
}

// fixed returns a uniform source that replays vals, then 0.5 forever.
func fixed(vals ...float64) func() float64 {
	return func() float64 {
		if len(vals) == 0 {
			return 0.5
		}
		v := vals[0]
		vals = vals[1:]
		return v
	}
}

func TestBurstsLiftCPUForFourSeconds(t *testing.T) {
	// Tick 0 at 0 ms: no walk, one draw each for the noise and the
	// requests. Tick at 1000 ms: the walk draws two uniforms for the
	// triangular noise (0.5, 0.5: none) and one for the burst (0: starts).
	s := NewSimulator(1, 0, fixed(0.5, 0.5, 0.5, 0.5, 0))
	assert.InDelta(t, 0.55, s.Tick(0).Events[0].Cpu, 1e-12)
	assert.InDelta(t, 0.55+BurstLift, s.Tick(1000).Events[0].Cpu, 1e-12)
	assert.True(t, s.InBurst(0, 4999))
	assert.False(t, s.InBurst(0, 5000), "a burst lasts 4000 ms")
}

// countingPool is a mem.BufferPool that counts the buffers given back.
type countingPool struct{ put atomic.Int64 }

func (c *countingPool) Get(n int) *[]byte { b := make([]byte, n); return &b }
func (c *countingPool) Put(*[]byte)       { c.put.Add(1) }

// pooled returns a batch of 2 KB (pooled buffers start at 1 KB) whose
// first byte is first, from pool, with one reference: the caller's.
func pooled(pool *countingPool, first byte) mem.Buffer {
	b := pool.Get(2048)
	(*b)[0] = first
	return mem.NewBuffer(b, pool)
}

func TestQueueDropsTheOldestAndCountsIt(t *testing.T) {
	s := &subscriber{wake: make(chan struct{}, 1)}
	var pool countingPool
	var dropped int
	for i := range QueueBatches + 6 {
		b := pooled(&pool, byte(i))
		d, ahead := s.enqueue(b, 10)
		dropped += d
		assert.Equal(t, min(i, QueueBatches-1), ahead, "batch %d waits behind the rest of a queue at most full", i)
		b.Free() // the ticker's reference; the queue keeps its own
	}
	assert.Equal(t, 60, dropped, "six batches of ten rows")
	assert.EqualValues(t, 6, s.dropped)
	assert.EqualValues(t, 6, pool.put.Load(), "a dropped batch goes back to the pool")
	assert.Equal(t, QueueBatches, s.depth())
	b, rows, ok := s.pop()
	require.True(t, ok)
	assert.Equal(t, byte(6), b.ReadOnlyData()[0], "the oldest six went")
	assert.Equal(t, 10, rows)
	assert.EqualValues(t, 6, pool.put.Load(), "a popped batch is the caller's until it lets go")
	b.Free()
	assert.EqualValues(t, 7, pool.put.Load())
	s.drain()
	assert.EqualValues(t, QueueBatches+6, pool.put.Load(), "a stream's end gives back what its queue held")
	assert.Zero(t, s.depth())
}

// TestABatchGoesBackOnceEverySubscriberLetGo fans one batch out to two
// queues: it is recycled only when the second lets go, whether by
// sending it or by dropping it.
func TestABatchGoesBackOnceEverySubscriberLetGo(t *testing.T) {
	a := &subscriber{wake: make(chan struct{}, 1)}
	z := &subscriber{wake: make(chan struct{}, 1)}
	var pool countingPool
	b := pooled(&pool, 1)
	a.enqueue(b, 5)
	z.enqueue(b, 5)
	b.Free()
	got, _, _ := a.pop()
	got.Free() // a sent it
	assert.Zero(t, pool.put.Load(), "z still holds it")
	for i := range QueueBatches {
		o := pooled(&pool, byte(2+i))
		z.enqueue(o, 5) // the last one pushes b out of z's queue
		o.Free()
	}
	assert.EqualValues(t, 1, pool.put.Load(), "dropped by z, the last holder")
}

// TestTickingAllocatesNothing: a tick reuses an encoded batch's buffer
// that its subscribers let go of, so a producer at millions of rows a
// second makes no garbage (before, a buffer a tick: about 60 MB/s at 1000
// hosts × 2000 ticks a second, a collection every 40 ms).
func TestTickingAllocatesNothing(t *testing.T) {
	p := &Producer{
		cfg:  Config{Hosts: 1000},
		sim:  NewSimulator(1000, 0.4, benchmarks.NewMulberry32(3).Next),
		subs: map[*subscriber]struct{}{},
	}
	s := &subscriber{wake: make(chan struct{}, 1)}
	p.subs[s] = struct{}{}
	now := int64(1714000000000)
	tick := func() {
		now++
		p.emit(now)
		b, rows, ok := s.pop()
		if !ok || rows != 1000 {
			t.Fatalf("popped %v, %d rows", ok, rows) // no boxing on the counted path
		}
		b.Free()
	}
	tick()
	allocs := testing.AllocsPerRun(200, tick)
	if raceEnabled {
		// sync.Pool drops a share of what it is given under -race, at
		// random: some ticks make their buffer (a buffer and a Raw a
		// tick before).
		assert.Less(t, allocs, 1.0)
		return
	}
	assert.Zero(t, allocs)
}

// TestRecycledBatchesArriveWhole reads a fast producer's stream and
// checks every batch that arrives: whole, one event per host in order, at
// one time, later than the batch before. A buffer recycled while gRPC was
// still writing it would show as a batch of two ticks (and, under -race,
// as a race).
func TestRecycledBatchesArriveWhole(t *testing.T) {
	p, err := Start(Config{GRPCAddr: "127.0.0.1:0", Hosts: 60, EventsPerSec: 2000, Variability: 0.4})
	require.NoError(t, err)
	defer p.Stop()
	conn, err := grpc.NewClient(p.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(eventsv1.Codec)))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := eventsv1.NewProducerClient(conn).Subscribe(ctx, &eventsv1.SubscribeRequest{})
	require.NoError(t, err)
	var raw eventsv1.Raw
	last := int64(-1)
	for batch := range 1000 {
		require.NoError(t, stream.RecvMsg(&raw))
		n, at := 0, int64(-1)
		require.NoError(t, eventsv1.DecodeEvents(raw.Data, func(timeMs int64, _ float64, _ int64, host []byte) {
			if n == 0 {
				at = timeMs
			}
			assert.Equal(t, HostName(n), string(host), "batch %d", batch)
			assert.Equal(t, at, timeMs, "batch %d: one tick's time", batch)
			n++
		}))
		require.Equal(t, 60, n, "batch %d", batch)
		assert.GreaterOrEqual(t, at, last, "batch %d", batch)
		last = at
	}
}

// TestAPausedSubscriberLosesBatchesNotMemory subscribes twice: one stream
// is never read, the other reads. The paused one's queue overflows and is
// counted; the reading one keeps up.
func TestAPausedSubscriberLosesBatchesNotMemory(t *testing.T) {
	p, err := Start(Config{GRPCAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", Hosts: 50, EventsPerSec: 200, Variability: 0.4})
	require.NoError(t, err)
	defer p.Stop()
	dialSmall := func() eventsv1.ProducerClient {
		// Small HTTP/2 windows so the paused stream blocks soon.
		conn, err := grpc.NewClient(p.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(eventsv1.Codec)))
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		return eventsv1.NewProducerClient(conn)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = dialSmall().Subscribe(ctx, &eventsv1.SubscribeRequest{})
	require.NoError(t, err)
	reader, err := dialSmall().Subscribe(ctx, &eventsv1.SubscribeRequest{})
	require.NoError(t, err)
	var read atomic.Int64
	go func() {
		var raw eventsv1.Raw
		for reader.RecvMsg(&raw) == nil {
			read.Add(1)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for p.Metrics().DroppedBatchesTotal < 100 {
		require.True(t, time.Now().Before(deadline), "the paused subscriber's queue never overflowed")
		time.Sleep(20 * time.Millisecond)
	}
	var m Metrics
	resp, err := http.Get("http://" + p.MetricsAddr() + "/metrics.json")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	resp.Body.Close()
	resp, err = http.Get("http://" + p.MetricsAddr() + "/metrics")
	require.NoError(t, err)
	prom, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(prom), "pond_producer_dropped_rows_total ")
	assert.Contains(t, string(prom), "process_cpu_seconds_total")
	assert.Equal(t, 2, m.Subscribers)
	assert.Equal(t, m.DroppedBatchesTotal*50, m.DroppedRowsTotal)
	assert.Contains(t, m.QueueDepth, QueueBatches, "the paused queue stays full, no larger")
	// Every batch the paused queue took while at least half full counts
	// as queued behind half a queue: the drops and more.
	assert.GreaterOrEqual(t, m.HalfFullTotal, m.DroppedBatchesTotal)
	assert.Contains(t, string(prom), "pond_producer_queued_half_full_total ")
	// The reader lost at most a few batches in flight.
	assert.Greater(t, float64(read.Load()), 0.9*float64(m.TicksEmittedTotal)-float64(QueueBatches))
}

// TestARateWithoutATickPeriodIsRefused: a rate whose tick period is not a
// whole number of nanoseconds from 1 ns up (above 1e9 per second the
// period was 0, and the tick loop divided by it once a second behind and
// crashed the process; below about 1e-10 it overflowed to a negative
// period) is refused by Start; the bounds themselves are taken.
func TestARateWithoutATickPeriodIsRefused(t *testing.T) {
	for _, rate := range []float64{5e9, 1e-11, 0, -1} {
		_, err := Start(Config{GRPCAddr: "127.0.0.1:0", Hosts: 1, EventsPerSec: rate})
		assert.Error(t, err, "rate %v", rate)
	}
	for _, rate := range []float64{MinEventsPerSec, MaxEventsPerSec} {
		p, err := Start(Config{GRPCAddr: "127.0.0.1:0", Hosts: 1, EventsPerSec: rate})
		require.NoError(t, err, "rate %v", rate)
		p.Pause(true)
		p.Stop()
	}
}

// TestAVariabilityThatIsNotANumberIsRefused: a NaN or infinite noise width
// is refused by Start (NaN made every cpu NaN, and the aggregator refused
// every row the producer sent).
func TestAVariabilityThatIsNotANumberIsRefused(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := Start(Config{GRPCAddr: "127.0.0.1:0", Hosts: 1, EventsPerSec: 1, Variability: v})
		assert.Error(t, err, "variability %v", v)
	}
}

// TestAVanishedSubscriberIsCut: a subscriber whose connection goes silent
// without closing (a machine gone, a hung process) is pinged once it has
// sent nothing for Keepalive, and cut when it does not answer; its stream,
// goroutine and queue go. Without keepalive the producer held it for as
// long as TCP kept the connection: for ever, when the peer's kernel still
// acknowledges.
func TestAVanishedSubscriberIsCut(t *testing.T) {
	p, err := Start(Config{GRPCAddr: "127.0.0.1:0", Hosts: 5, EventsPerSec: 50, Variability: 0.4, Keepalive: time.Second})
	require.NoError(t, err)
	defer p.Stop()
	f := freezer.Start(t, p.GRPCAddr())
	conn, err := grpc.NewClient(f.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(eventsv1.Codec)))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := eventsv1.NewProducerClient(conn).Subscribe(ctx, &eventsv1.SubscribeRequest{})
	require.NoError(t, err)
	var raw eventsv1.Raw
	for range 3 {
		require.NoError(t, st.RecvMsg(&raw))
	}
	require.Equal(t, 1, p.Metrics().Subscribers)
	f.Freeze()
	// Pinged after a second of silence, cut a second later; a poll of the
	// proxy's reads may take up to a batch to notice the freeze.
	deadline := time.Now().Add(10 * time.Second)
	for p.Metrics().Subscribers != 0 {
		require.True(t, time.Now().Before(deadline), "the vanished subscriber is still held")
		time.Sleep(50 * time.Millisecond)
	}
}
