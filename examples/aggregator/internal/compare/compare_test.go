package compare

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tick(ts int64, host string, avg float64) wire.HostTick {
	return wire.HostTick{TS: ts, Host: host, CPUAvg: avg, CPUSd: 0.1, CPUN: 3, NCurrent: 1,
		AnomaliesAbove: []int{0}, AnomaliesBelow: []int{0}, RequestsAvg: math.NaN(), CPUMin: 0.5}
}

func TestCompareMatchesRowsByTimeAndHostWithinTolerance(t *testing.T) {
	var a, b Rows
	a.Add([]wire.HostTick{tick(1, "x", 0.5), tick(2, "x", 0.5), tick(3, "x", 0.5), tick(3, "y", 0.5), tick(4, "x", 0.5)})
	b.Add([]wire.HostTick{tick(2, "x", 0.7), tick(3, "x", 0.5+1e-13), tick(3, "y", 0.5), tick(4, "x", 0.9)})
	rep := Compare(&a, &b, 1, 1e-9)
	assert.True(t, rep.OK(), rep.String())
	assert.Equal(t, 2, rep.Compared, "tick 2 skipped, tick 4 (the last common one) left out")
	assert.Equal(t, int64(3), rep.FirstTick)

	b.Add([]wire.HostTick{tick(3, "y", 0.6)})
	rep = Compare(&a, &b, 1, 1e-9)
	assert.False(t, rep.OK())
	assert.Contains(t, rep.String(), "3 y: cpu_avg 0.5 vs 0.6")
}

// TestTwoAggregatorsOnOneProducerAgree is the example's parity test: two
// aggregators subscribe to the same producer before it starts ticking, so
// both see the same batches, and every row of every tick they both sent
// agrees. One runs on one worker and the other on two: the frames do not
// depend on the number of workers.
func TestTwoAggregatorsOnOneProducerAgree(t *testing.T) {
	p, err := producer.Start(producer.Config{GRPCAddr: "127.0.0.1:0", Hosts: 5, EventsPerSec: 50, Variability: 0.4, HasSeed: true, Seed: 2})
	require.NoError(t, err)
	defer p.Stop()
	p.Pause(true)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var urls []string
	for i := range 2 {
		a, err := aggregator.New(aggregator.Config{ProducerAddr: p.GRPCAddr(), Logger: quiet, Workers: 1 + i})
		require.NoError(t, err)
		done := make(chan struct{})
		go func() { a.Run(ctx); close(done) }()
		defer func() { cancel(); <-done }()
		srv := httptest.NewServer(a.Handler())
		defer srv.Close()
		defer a.Close()
		urls = append(urls, "ws"+strings.TrimPrefix(srv.URL, "http")+"/live-agg")
	}
	deadline := time.Now().Add(30 * time.Second)
	for p.Metrics().Subscribers < 2 {
		require.True(t, time.Now().Before(deadline), "both aggregators subscribe")
		time.Sleep(10 * time.Millisecond)
	}
	var ra, rb Rows
	// The subscriptions end once both have seen enough ticks (or at the
	// deadline): a fixed duration compares too few rows on a loaded machine.
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	defer scancel()
	errs := make(chan error, 2)
	go func() { errs <- Subscribe(sctx, urls[0], &ra) }()
	go func() { errs <- Subscribe(sctx, urls[1], &rb) }()
	for ra.Frames() == 0 || rb.Frames() == 0 {
		require.True(t, time.Now().Before(deadline), "both WebSockets open")
		time.Sleep(10 * time.Millisecond)
	}
	p.Pause(false)
	for ra.Frames() < 12 || rb.Frames() < 12 {
		require.True(t, time.Now().Before(deadline.Add(30*time.Second)), "both WebSockets receive ticks")
		time.Sleep(10 * time.Millisecond)
	}
	scancel()
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	rep := Compare(&ra, &rb, 0, 1e-12)
	t.Log(rep.String())
	assert.True(t, rep.OK(), rep.String())
	assert.Greater(t, rep.Compared, 20)
}
