package aggregator

// The load-and-fault suite: WebSocket churn, a late /live client at
// 1000 × 100, slow clients, bad timestamps and a host flood, each
// bounded in time and on loopback only. Under -race the churn and the
// late client run smaller than the full scale; POND_FULL_SCALE=1 runs them
// at the scale of the issue they reproduce (without -race; see README).

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

func fullScale() bool { return os.Getenv("POND_FULL_SCALE") == "1" }

// scale picks the test's figure or, with POND_FULL_SCALE=1, the issue's.
func scale[T any](test, full T) T {
	if fullScale() {
		return full
	}
	return test
}

// hostRows returns one row per host at time at (after t0).
func hostRows(at time.Duration, hosts int) []row {
	rows := make([]row, hosts)
	for h := range rows {
		rows[h] = row{at, 0.4 + 0.01*float64(h%40), float64(h % 200), producer.HostName(h)}
	}
	return rows
}

// p99 is the sample at index min(n−1, ⌊0.99·n⌋) of the sorted samples.
func p99(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*99/100)]
}

// TestChurnLeavesIngestUntouched fills five minutes of tick history, then
// has clients connect to /live-agg and leave (some at once, some after a
// piece of their snapshot, half with a top-N cut) while a real producer
// streams over gRPC. Ingest must not notice: no batch dropped by the
// producer, and goroutines and heap back to their baseline (after one
// client of each kind) within 5 s of the end. The batch-done p99 during
// the churn and without clients (measured first, for as long) are logged,
// not bounded: how long a batch takes is the machine's, and a test that
// bounds it fails on a loaded one. That ingest never waits on a snapshot
// is TestAStalledSnapshotLeavesIngestRunning's.
func TestChurnLeavesIngestUntouched(t *testing.T) {
	hosts := scale(50, 100)
	clients := scale(40, 200)
	if raceEnabled && !fullScale() {
		clients = 8 // the clients share this process's two cores
	}
	if v := os.Getenv("POND_CHURN_CLIENTS"); v != "" {
		fmt.Sscan(v, &clients)
	}
	churnFor := scale(8*time.Second, 60*time.Second)

	p, err := producer.Start(producer.Config{GRPCAddr: "127.0.0.1:0", Hosts: hosts, EventsPerSec: 50, Variability: 0.4, HasSeed: true, Seed: 5})
	require.NoError(t, err)
	t.Cleanup(p.Stop)
	a := newTestAggregator(t, Config{Logger: quietLogger, ProducerAddr: p.GRPCAddr()})

	// Five minutes of ticks, ending just before the producer's clock.
	now := time.Now().Add(-time.Second).Truncate(TickEvery)
	for k := 1500; k > 0; k-- {
		b := batchOf(hostRows(0, hosts)...)
		for i := range b.Time {
			b.Time[i] = now.Add(-time.Duration(k) * TickEvery).UnixNano()
		}
		require.NoError(t, a.Push(b, time.Now()))
	}
	require.GreaterOrEqual(t, a.Stats().HistoryTicks, 1400)

	// batch-done times go to the phase the test is in: 1 the reference
	// (streaming, no client), 2 the churn.
	var mu sync.Mutex
	var quiet, during []time.Duration
	var phase atomic.Int32
	a.onBatchDone = func(d time.Duration) {
		switch phase.Load() {
		case 1:
			mu.Lock()
			quiet = append(quiet, d)
			mu.Unlock()
		case 2:
			mu.Lock()
			during = append(during, d)
			mu.Unlock()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { a.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran })
	ws, _ := serve(t, a)
	eventually(t, "the stream", func() bool { return a.Metrics().Upstream.Connected })
	time.Sleep(500 * time.Millisecond)

	// The steady state a first client leaves: each tick's encoded rows and
	// rank order are built once and kept with it.
	for _, q := range []string{"", "?n=10&by=cpu_avg"} {
		c := dial(t, ws+"/live-agg"+q)
		_, data, err := c.conn.Read(context.Background())
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(data, []byte(`{"type":"aggregate-snapshot"`)))
		c.conn.CloseNow()
	}
	eventually(t, "the warm-up clients to leave", func() bool { return a.Stats().AggClients == 0 })
	baseG := runtime.NumGoroutine()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseHeap := ms.HeapAlloc
	dropped0 := p.Metrics().DroppedBatchesTotal

	// The reference: the same stream, the same process, no client, for
	// as long as the churn will last.
	phase.Store(1)
	time.Sleep(churnFor)
	phase.Store(2)
	deadline := time.Now().Add(churnFor)
	var wg sync.WaitGroup
	var connects atomic.Int64
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := ws + "/live-agg"
			if i%2 == 1 {
				url += "?n=10&by=cpu_avg"
			}
			for k := 0; time.Now().Before(deadline) && k < 10_000; k++ {
				dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
				conn, _, err := websocket.Dial(dctx, url, nil)
				if err == nil {
					connects.Add(1)
					if k%2 == 1 { // read a piece of the snapshot, then leave
						conn.SetReadLimit(-1)
						if _, r, err := conn.Reader(dctx); err == nil {
							r.Read(make([]byte, 4096))
						}
					}
					conn.CloseNow()
				}
				dcancel()
			}
		}()
	}
	wg.Wait()
	phase.Store(0)
	mu.Lock()
	ref, samples := slices.Clone(quiet), slices.Clone(during)
	mu.Unlock()

	require.NotEmpty(t, ref)
	require.NotEmpty(t, samples)
	base, got := p99(ref), p99(samples)
	t.Logf("%d clients, %d connects in %v at %d hosts × 50/s over %d history ticks: batch-done p99 %v over %d batches, %v over %d without clients",
		clients, connects.Load(), churnFor, hosts, a.Stats().HistoryTicks, got, len(samples), base, len(ref))
	assert.EqualValues(t, dropped0, p.Metrics().DroppedBatchesTotal, "no batch dropped by the producer")

	settled := time.Now().Add(5 * time.Second)
	var g int
	var heap uint64
	for {
		g = runtime.NumGoroutine()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		if (g <= baseG+2 && heap <= baseHeap+baseHeap/2+8<<20) || time.Now().After(settled) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("goroutines %d (baseline %d), heap %d MB (baseline %d MB)", g, baseG, heap>>20, baseHeap>>20)
	assert.LessOrEqual(t, g, baseG+2, "goroutines back to baseline within 5 s")
	assert.LessOrEqual(t, heap, baseHeap+baseHeap/2+8<<20, "heap back to baseline within 5 s")
	assert.Equal(t, 0, a.Stats().AggClients)
}

// TestALateLiveClientAt1000x100GetsItsSnapshotThenAppends fills the raw
// window at 1000 hosts × 100 events/s of event time, connects a /live
// client while pushes go on, and checks that it receives the whole window
// as its snapshot (streamed in pieces), then the appends that follow it
// with no gap and no duplicate, and is not dropped.
func TestALateLiveClientAt1000x100GetsItsSnapshotThenAppends(t *testing.T) {
	const hosts, step = 1000, 10 * time.Millisecond // 100 events/s per host
	retention := scale(3*time.Second, 30*time.Second)
	a := newTestAggregator(t, Config{Logger: quietLogger, Retention: retention})
	ws, _ := serve(t, a)
	rows := hostRows(0, hosts)
	var k atomic.Int64
	push := func() {
		at := time.Duration(k.Add(1)) * step
		for h := range rows {
			rows[h].at = at
		}
		require.NoError(t, a.Push(batchOf(rows...), time.Now()))
	}
	for k.Load() < int64(retention/step)+10 {
		push()
	}
	stop := make(chan struct{})
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		for n := 0; n < 100_000; n++ {
			select {
			case <-stop:
				return
			default:
			}
			push()
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() { close(stop); <-pushed }()

	c := dial(t, ws+"/live")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, data, err := c.conn.Read(ctx)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte(`{"type":"snapshot","rows":[[`)))
	n := bytes.Count(data, []byte("],[")) + 1
	lastRow := data[bytes.LastIndex(data, []byte("],["))+2 : len(data)-2]
	var last struct{ ms int64 }
	_, err = fmt.Sscanf(string(lastRow), "[%d,", &last.ms)
	require.NoError(t, err)
	wantRows := int(retention/step+1) * hosts
	t.Logf("snapshot: %d rows, %d MB", n, len(data)>>20)
	assert.InDelta(t, wantRows, n, float64(hosts), "the whole window (%v of 1000 × 100)", retention)
	assert.Zero(t, n%hosts, "whole batches")

	prev := last.ms
	for range 20 {
		f := c.next()
		require.Equal(t, wire.TypeAppend, f.Type)
		require.Len(t, f.RawRows, hosts)
		assert.Equal(t, prev+step.Milliseconds(), f.RawRows[0].TimeMs, "the next batch after the snapshot's last, once")
		prev = f.RawRows[0].TimeMs
	}
	assert.EqualValues(t, 0, a.m.slowDisconnects.Load())
}

// TestASlowClientIsClosedWith1013 holds three /live-agg clients that never
// read and one that pauses, beside one that keeps up: past ClientMaxLag
// behind, each slow one is unregistered at the next frame and closed with
// 1013 and a reason (the paused one reads it when it resumes), while the
// reader gets every tick.
func TestASlowClientIsClosedWith1013(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger, ClientMaxLag: 500 * time.Millisecond, History: -1})
	// The paused client reads its close once the pushes are done: seconds
	// on a loaded machine, more than the 5 s a client is given.
	a.closeGrace = 30 * time.Second
	ws, _ := serve(t, a)
	var stalled []*wsClient
	for range 3 {
		stalled = append(stalled, dial(t, ws+"/live-agg"))
	}
	paused := dial(t, ws+"/live-agg")
	good := dial(t, ws+"/live-agg")
	eventually(t, "five clients", func() bool { return a.Stats().AggClients == 5 })

	var ticks atomic.Int64
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, data, err := good.conn.Read(ctx)
			cancel()
			if err != nil {
				return
			}
			if bytes.HasPrefix(data, []byte(`{"type":"aggregate-append"`)) {
				ticks.Add(1)
			}
		}
	}()
	// 200 hosts' ticks of about 80 KB, one every 10 ms: far more than a
	// socket buffers in the 500 ms a client may fall behind.
	const batches, hosts = 300, 200
	start := time.Now()
	for k := range batches {
		require.NoError(t, a.Push(batchOf(hostRows(time.Duration(k)*TickEvery, hosts)...), time.Now()))
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start)
	eventually(t, "the reader to get every tick", func() bool { return ticks.Load() >= batches-1 })
	assert.EqualValues(t, 4, a.m.slowDisconnects.Load(), "three stalled clients and the paused one")
	assert.Equal(t, 1, a.Stats().AggClients)
	t.Logf("%d ticks in %v; the four slow clients were cut", batches, elapsed)

	// The paused client resumes within the close grace: it drains what
	// its socket holds, then reads the close.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, _, err := paused.conn.Read(ctx)
		if err != nil {
			require.Equal(t, websocket.StatusTryAgainLater, websocket.CloseStatus(err), "closed with 1013: %v", err)
			var ce websocket.CloseError
			require.ErrorAs(t, err, &ce)
			assert.Contains(t, ce.Reason, "too slow")
			break
		}
	}
	// The stalled ones are cut at the end of the grace; reading finds the
	// connection closed rather than waiting forever.
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, s := range stalled {
		for {
			if _, _, err := s.conn.Read(ctx); err != nil {
				assert.NotErrorIs(t, err, context.DeadlineExceeded)
				break
			}
		}
	}
	good.conn.CloseNow()
	<-readDone
}

// TestBadTimesAreRefusedWhileIngestGoesOn sends a row dated 2100 and a
// time_ms of about the year 586,000 among good rows: both are refused and
// counted, the good rows are taken, the raw window keeps its rows, and
// strict ordering goes on accepting the next batches.
func TestBadTimesAreRefusedWhileIngestGoesOn(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	a := newTestAggregator(t, Config{Logger: quietLogger, Now: func() time.Time { return now }, MaxSkew: 2 * time.Second})
	at := func(d time.Duration) int64 { return now.Add(d).UnixMilli() }
	encode := func(evs ...*eventsv1.Event) []byte {
		data, err := proto.Marshal(&eventsv1.EventBatch{Events: evs})
		require.NoError(t, err)
		return data
	}
	b := schema.NewBatch(Schema, 8)
	dec := decoder{maxLen: 256}
	ingest := func(data []byte) {
		t.Helper()
		_, bad, err := dec.decode(data, b, nil)
		require.NoError(t, err)
		a.m.badTime.Add(uint64(bad))
		require.NoError(t, a.Push(b, time.Now()))
	}
	ingest(encode(
		&eventsv1.Event{TimeMs: at(-10 * time.Second), Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: at(-10 * time.Second), Cpu: 0.5, Requests: 1, Host: "b"},
	))
	year2100 := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	ingest(encode(
		&eventsv1.Event{TimeMs: at(-9 * time.Second), Cpu: 0.5, Requests: 1, Host: "a"},
		&eventsv1.Event{TimeMs: year2100, Cpu: 0.9, Requests: 1, Host: "b"},
		&eventsv1.Event{TimeMs: 586_000 * 365 * 86_400_000, Cpu: 0.9, Requests: 1, Host: "b"},
		&eventsv1.Event{TimeMs: math.MaxInt64, Cpu: 0.9, Requests: 1, Host: "b"},
		&eventsv1.Event{TimeMs: at(3 * time.Second), Cpu: 0.9, Requests: 1, Host: "b"}, // past the 2 s skew
		&eventsv1.Event{TimeMs: at(1 * time.Second), Cpu: 0.5, Requests: 1, Host: "b"}, // within it
	))
	for k := range 5 {
		ingest(encode(&eventsv1.Event{TimeMs: at(time.Second + time.Duration(k)*200*time.Millisecond), Cpu: 0.5, Requests: 1, Host: "a"}))
	}
	st := a.Stats()
	assert.EqualValues(t, 2, st.Refused.Future, "the row of 2100 and the one 3 s ahead")
	assert.EqualValues(t, 2, st.Refused.BadTime, "the time_ms past what nanoseconds hold")
	assert.EqualValues(t, 0, st.RejectedPushes, "no batch refused whole: strict ordering goes on")
	assert.EqualValues(t, 2+2+5, st.Series.Ingested)
	assert.Equal(t, 9, st.Series.Length, "the raw window was not evicted by a far-future row")
}

// TestNonFiniteValuesAreRefusedWhileIngestGoesOn: a producer may send a
// cpu of NaN or ±Inf (a protobuf double holds them), which the series
// would reject with the rest of its batch; such a row is refused alone
// and counted (bad_value), and the batch's other rows are taken.
func TestNonFiniteValuesAreRefusedWhileIngestGoesOn(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger})
	require.NoError(t, a.Push(batchOf(hostRows(0, 3)...), time.Now()))
	rows := hostRows(100*time.Millisecond, 3)
	rows = append(rows,
		row{100 * time.Millisecond, math.NaN(), 1, "host-0"},
		row{100 * time.Millisecond, math.Inf(1), 1, "host-1"},
		row{100 * time.Millisecond, math.Inf(-1), 1, "host-2"})
	require.NoError(t, a.Push(batchOf(rows...), time.Now()))
	st := a.Stats()
	assert.EqualValues(t, 3, st.Refused.BadValue)
	assert.EqualValues(t, 0, st.RejectedPushes, "no batch refused whole")
	assert.EqualValues(t, 3+3, st.Series.Ingested)
	assert.EqualValues(t, 3, st.RejectedRows)
}

// TestAHostFloodIsBounded sends 100,000 new hosts in one batch beside the
// known ones, then a 10 MB host name: the known hosts' rows are taken, new
// hosts fill the room left under MaxHosts and the rest are refused and
// counted; a host name over MaxHostLen never reaches a frame; hosts quiet
// for a minute free their places for new names.
func TestAHostFloodIsBounded(t *testing.T) {
	const maxHosts = 1000
	a := newTestAggregator(t, Config{Logger: quietLogger, MaxHosts: maxHosts, MaxHostLen: 64})
	known := hostRows(0, 10)
	require.NoError(t, a.Push(batchOf(known...), time.Now()))

	flood := hostRows(100*time.Millisecond, 10)
	for i := range 100_000 {
		flood = append(flood, row{100 * time.Millisecond, 0.5, 1, fmt.Sprintf("flood-%d", i)})
	}
	require.NoError(t, a.Push(batchOf(flood...), time.Now()))
	st := a.Stats()
	assert.EqualValues(t, 10+10+(maxHosts-10), st.Series.Ingested, "the known hosts and as many new ones as fit")
	assert.EqualValues(t, 100_000-(maxHosts-10), st.Refused.HostLimit)

	long := strings.Repeat("x", 10<<20)
	require.NoError(t, a.Push(batchOf(row{300 * time.Millisecond, 0.5, 1, long}, row{300 * time.Millisecond, 0.5, 1, "api-1"}), time.Now()))
	assert.EqualValues(t, 1, a.Stats().Refused.HostLen)
	for _, tk := range a.hist.all() {
		assert.LessOrEqual(t, len(tk.rows), maxHosts)
		for _, r := range tk.rows {
			assert.LessOrEqual(t, len(r.Host), 64)
		}
	}

	// A minute of event time with the known hosts only: the flood's hosts
	// leave, and new names take their places.
	for s := 1; s <= 62; s++ {
		require.NoError(t, a.Push(batchOf(hostRows(time.Duration(s)*time.Second, 10)...), time.Now()))
	}
	var renamed []row
	for i := range 500 {
		renamed = append(renamed, row{63 * time.Second, 0.5, 1, fmt.Sprintf("renamed-%d", i)})
	}
	before := a.Stats()
	require.NoError(t, a.Push(batchOf(renamed...), time.Now()))
	after := a.Stats()
	assert.EqualValues(t, 500, after.Series.Ingested-before.Series.Ingested, "idle hosts freed their places")
	assert.Equal(t, before.Refused.HostLimit, after.Refused.HostLimit)
}

// TestHostsThatAllGoQuietFreeTheirPlaces runs a stream whose hosts all
// change every minute (containers renamed at each deploy), 60 a minute
// under a bound of 100: each minute's hosts take the places the hosts
// quiet for a minute leave, and only what the bound cannot hold is
// refused. Counting the quiet hosts as taken, the aggregator refused every
// row from the fourth minute on, for good: no push moved time on, so the
// quiet hosts were never removed.
func TestHostsThatAllGoQuietFreeTheirPlaces(t *testing.T) {
	const maxHosts, perMinute = 100, 60
	a := newTestAggregator(t, Config{Logger: quietLogger, MaxHosts: maxHosts})
	// Minute 0 takes its 60 hosts; minute 1 the 40 that fit beside them;
	// minute 2 all 60 (minute 0's hosts have been quiet for a minute, and
	// minute 1's 40 remain); minute 3 the 40 beside minute 2's, and so on.
	wantPerBatch := []uint64{60, 40, 60, 40, 60}
	for m, want := range wantPerBatch {
		before := a.Stats()
		for s := range 60 {
			rows := make([]row, perMinute)
			for h := range rows {
				rows[h] = row{time.Duration(60*m+s) * time.Second, 0.5, 1, fmt.Sprintf("m%d-h%d", m, h)}
			}
			require.NoError(t, a.Push(batchOf(rows...), time.Now()))
		}
		after := a.Stats()
		assert.Equal(t, 60*want, after.Series.Ingested-before.Series.Ingested, "rows taken in minute %d", m)
		assert.Equal(t, 60*(perMinute-want), after.Refused.HostLimit-before.Refused.HostLimit, "rows refused in minute %d", m)
	}
}
