package aggregator

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/backoff"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/internal/freezer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASlowClientIsDroppedWhileOthersKeepUp connects a /live client that
// never reads and one that does, pushes far more than the slow one's queue
// and socket buffers hold, and checks that the slow one is disconnected
// while ingest goes on and the good one gets every batch.
func TestASlowClientIsDroppedWhileOthersKeepUp(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger, ClientQueueFrames: 32, ClientQueueBytes: 1 << 20})
	base, _ := serve(t, a)
	slow := dial(t, base+"/live")
	good := dial(t, base+"/live")
	eventually(t, "two clients", func() bool { return a.Stats().LiveClients == 2 })

	// 1500 frames of about 22 KB: far more than the slow client's queue
	// (1 MiB) and the loopback socket buffers (a few MiB) hold.
	const batches, hosts = 1500, 500
	var got atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for got.Load() < batches*hosts {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, data, err := good.conn.Read(ctx)
			cancel()
			if err != nil {
				return
			}
			if n := bytes.Count(data, []byte("],[")); bytes.HasPrefix(data, []byte(`{"type":"append"`)) {
				got.Add(int64(n + 1))
			}
		}
	}()
	rows := make([]row, hosts)
	for k := range batches {
		for h := range rows {
			rows[h] = row{time.Duration(k) * time.Millisecond, 0.5, 100, fmt.Sprintf("api-%d", h+1)}
		}
		require.NoError(t, a.Push(batchOf(rows...), time.Now()))
		// A client that keeps up: never more than a few frames behind.
		eventually(t, "the reading client to keep up", func() bool { return got.Load() >= int64(k-4)*hosts })
	}
	wg.Wait()
	assert.EqualValues(t, batches*hosts, got.Load(), "the reading client got every row")
	assert.EqualValues(t, 1, a.m.slowDisconnects.Load(), "the client that never reads was disconnected")
	assert.Equal(t, 1, a.Stats().LiveClients)
	assert.EqualValues(t, batches*hosts, a.Stats().Series.Ingested, "ingest never waited for the slow client")

	// The slow client finds its connection closed once it reads what was
	// buffered.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, _, err := slow.conn.Read(ctx); err != nil {
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			break
		}
	}
}

// TestReconnectsWithBackoffWhenTheProducerComesBack stops the producer,
// checks the redials follow the backoff schedule, starts a producer again
// on the same address and checks that ingest carries on and that the
// attempt count starts over after the first batch of the new stream.
func TestReconnectsWithBackoffWhenTheProducerComesBack(t *testing.T) {
	p1, err := producer.Start(producer.Config{GRPCAddr: "127.0.0.1:0", Hosts: 4, EventsPerSec: 50, Variability: 0.4, HasSeed: true, Seed: 1})
	require.NoError(t, err)
	addr := p1.GRPCAddr()

	var mu sync.Mutex
	type retry struct {
		attempt int
		delay   time.Duration
	}
	var retries []retry
	a := newTestAggregator(t, Config{
		Logger:       quietLogger,
		ProducerAddr: addr,
		Backoff:      backoff.Policy{Initial: 50 * time.Millisecond, Max: 200 * time.Millisecond, Jitter: 0},
		OnReconnect: func(attempt int, d time.Duration, _ error) {
			mu.Lock()
			retries = append(retries, retry{attempt, d})
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan struct{})
	go func() { a.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()

	ingested := func() uint64 { return a.Stats().Series.Ingested }
	eventually(t, "rows from the first producer", func() bool { return ingested() > 0 })
	p1.Stop()
	nRetries := func() int { mu.Lock(); defer mu.Unlock(); return len(retries) }
	eventually(t, "four redials", func() bool { return nRetries() >= 4 })
	mu.Lock()
	assert.Equal(t, []retry{{0, 50 * time.Millisecond}, {1, 100 * time.Millisecond}, {2, 200 * time.Millisecond}, {3, 200 * time.Millisecond}},
		retries[:4], "1×, 2×, 4× the initial delay, capped")
	mu.Unlock()
	m := a.Metrics()
	assert.False(t, m.Upstream.Connected)
	assert.EqualValues(t, 1, m.Upstream.Reconnects, "one outage, however many redials")
	assert.GreaterOrEqual(t, m.Upstream.DialAttempts, uint64(4))
	require.NotNil(t, m.Upstream.UnreachableSinceMs)
	r := a.Ready()
	assert.False(t, r.Ready, "not ready while the producer is away")
	assert.NotEmpty(t, r.UnreachableSince)

	p2, err := producer.Start(producer.Config{GRPCAddr: addr, Hosts: 4, EventsPerSec: 50, Variability: 0.4})
	require.NoError(t, err)
	before := ingested()
	eventually(t, "rows from the second producer", func() bool { return ingested() > before+40 })
	assert.True(t, a.Metrics().Upstream.Connected)
	assert.True(t, a.Ready().Ready)
	assert.Nil(t, a.Metrics().Upstream.UnreachableSinceMs)
	n := nRetries()
	p2.Stop()
	eventually(t, "a redial after the second stop", func() bool { return nRetries() > n })
	mu.Lock()
	assert.Equal(t, retry{0, 50 * time.Millisecond}, retries[n], "the first batch of a stream resets the attempts")
	mu.Unlock()
	assert.EqualValues(t, 2, a.Metrics().Upstream.Reconnects, "the second outage")
}

// TestAProducerGoneSilentIsDialledAfresh: a producer whose connection
// goes silent without closing is pinged once its stream has delivered
// nothing for Keepalive, and the stream counts as lost when the ping goes
// unanswered: /readyz says so and the aggregator redials. Without pings
// the stream stayed open, ready and empty, until the kernel's TCP
// keepalive gave up, two hours later.
func TestAProducerGoneSilentIsDialledAfresh(t *testing.T) {
	p, err := producer.Start(producer.Config{GRPCAddr: "127.0.0.1:0", Hosts: 4, EventsPerSec: 50, Variability: 0.4, HasSeed: true, Seed: 1})
	require.NoError(t, err)
	defer p.Stop()
	f := freezer.Start(t, p.GRPCAddr())
	a := newTestAggregator(t, Config{Logger: quietLogger, ProducerAddr: f.Addr(), Keepalive: 10 * time.Second,
		Backoff: backoff.Policy{Initial: time.Hour, Max: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { a.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()
	eventually(t, "rows from the producer", func() bool { return a.Stats().Series.Ingested > 0 })
	require.True(t, a.Ready().Ready)

	f.Freeze()
	// Ten seconds without a batch, then ten for the ping's answer.
	deadline := time.Now().Add(40 * time.Second)
	for a.Ready().Ready {
		require.True(t, time.Now().Before(deadline), "the silent producer's stream is still taken as open")
		time.Sleep(100 * time.Millisecond)
	}
	assert.EqualValues(t, 1, a.Metrics().Upstream.Reconnects, "one outage")
}
