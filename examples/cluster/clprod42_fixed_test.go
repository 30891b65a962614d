package main

// Tests of bugs found by the clprod42 probes, one each (each failed before
// its fix); each says what the docs promise and what happened instead.

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
)

// cp42RunLiveProducer runs the command's producer (startLiveProducer)
// until it has committed n ticks, then stops it.
func cp42RunLiveProducer(t *testing.T, o options, seeds []string, n uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := startLiveProducer(ctx, o, seeds)
	require.NoError(t, err)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(rctx) }()
	for p.Stats().Ticks < n && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	require.NoError(t, <-done)
}

// TestCp42ARestartedCommandProducerGoesOnWithTheNextTick: the README
// (Parts, Producer) says a restarted producer "fences its predecessor,
// finds the last committed tick and goes on with the next one: the
// mulberry32 state is a counter, so any tick is computed directly"
// (and the producer package does so). The command's producer, restarted
// after half a second down, did not: startLiveProducer started a new
// stream at the wall clock, its T0 the restart time, so the ticks of the
// downtime were never written and the values started again from the
// seed's first draws (tick 0's) instead of the next tick's. Fixed: the
// command's ticks lie on the epoch's grid and a restart within a minute
// goes on with the next tick.
func TestCp42ARestartedCommandProducerGoesOnWithTheNextTick(t *testing.T) {
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	defer e.Close()
	seeds := e.Addrs()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, 2))
	o := options{hosts: 2, rate: 10, seed: 42}

	cp42RunLiveProducer(t, o, seeds, 4)
	time.Sleep(500 * time.Millisecond) // the producer is down for five ticks
	cp42RunLiveProducer(t, o, seeds, 3)

	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Input),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	type ev struct {
		ms       int64
		host     string
		cpu, req float64
	}
	var evs []ev
	for ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		pcancel()
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			cpu, req, err := events.DecodeValue(r.Value)
			require.NoError(t, err)
			evs = append(evs, ev{r.Timestamp.UnixMilli(), string(r.Key), cpu, req})
		})
		if n == 0 && len(evs) >= 2*7 {
			break
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.ms != b.ms {
			return int(a.ms - b.ms)
		}
		if a.host < b.host {
			return -1
		}
		return 1
	})
	require.GreaterOrEqual(t, len(evs), 14)
	// The stream the first run started, continued: the command's stream
	// has its ticks on the epoch's grid (tick k at 100k ms), so the first
	// event's tick is its time over 100.
	k0 := evs[0].ms / 100
	st, err := events.NewStream(2, 10, 0, 42)
	require.NoError(t, err)
	for i, got := range evs {
		k := k0 + int64(i/2)
		want := st.Tick(nil, k)[i%2]
		require.Equal(t, want.TimeMs, got.ms, "event %d: tick %d's time, no tick of the downtime left out", i, k)
		assert.Equal(t, want.Host, got.host)
		assert.Equal(t, math.Float64bits(want.CPU), math.Float64bits(got.cpu), "event %d: tick %d's values", i, k)
		assert.Equal(t, want.Requests, got.req)
	}
}

// TestCp42AProducerDownLongerThanAMinuteStartsAtTheWallClock: a restarted
// command producer whose last committed tick is more than a minute old
// starts at the wall clock (the downtime is a gap) instead of sending
// every tick it missed at once.
func TestCp42AProducerDownLongerThanAMinuteStartsAtTheWallClock(t *testing.T) {
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	defer e.Close()
	seeds := e.Addrs()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, 2))
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	defer cl.Close()
	old := time.Now().Add(-5*time.Minute).UnixMilli() / 100 * 100
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: brokers.Input, Key: []byte("host-0000"),
		Timestamp: time.UnixMilli(old), Value: events.AppendValue(nil, &events.Event{CPU: 0.5, Requests: 70})}).FirstErr())

	before := time.Now().UnixMilli() / 100
	p, err := startLiveProducer(ctx, options{hosts: 2, rate: 10, seed: 42}, seeds)
	require.NoError(t, err)
	first := p.Stats().NextTick
	assert.GreaterOrEqual(t, first, before, "starts at the wall clock's tick, not after the tick of five minutes ago (%d)", old/100+1)
	rctx, stop := context.WithCancel(ctx)
	stop()
	require.NoError(t, p.Run(rctx))
}
