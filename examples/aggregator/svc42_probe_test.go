package main

// Session 42's probes of the one command as a service: stopping it while
// WebSocket clients stall and batches keep coming leaves nothing running.

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/require"
)

// sv42Goroutines counts the goroutines once the count has settled.
func sv42Goroutines() int {
	n := runtime.NumGoroutine()
	for range 20 {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// TestSv42StoppingWithStalledClientsLeavesNoGoroutine runs the command on
// two workers with an embedded producer, connects clients that never read
// (on /live and /live-agg), one that reads, and one that connects and
// leaves, waits for appends to flow, then stops the command while batches
// arrive: it returns, and the goroutines come back to what they were
// before it started (the embedded producer's, gRPC's, the workers', every
// client's writer, reader and pinger).
func TestSv42StoppingWithStalledClientsLeavesNoGoroutine(t *testing.T) {
	before := sv42Goroutines()
	url, _, stop := started(t, "-addr", "127.0.0.1:0", "-hosts", "40", "-rate", "200", "-seed", "3", "-workers", "2", "-history", "20s")
	ws := "ws" + strings.TrimPrefix(url, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var conns []*websocket.Conn
	dial := func(path string) *websocket.Conn {
		c, _, err := websocket.Dial(ctx, ws+path, nil)
		require.NoError(t, err)
		c.SetReadLimit(1 << 30)
		conns = append(conns, c)
		return c
	}
	reader := dial("live-agg")
	for range 3 {
		dial("live")
		dial("live-agg?n=5&by=cpu_sd")
	}
	dial("live").CloseNow()
	appends := 0
	for appends < 10 {
		_, data, err := reader.Read(ctx)
		require.NoError(t, err)
		f, err := wire.Decode(data)
		require.NoError(t, err)
		if f.Type == wire.TypeAggregateAppend {
			appends++
		}
	}
	require.Contains(t, stop(), "aggregator stopped")
	for _, c := range conns {
		c.CloseNow()
	}
	deadline := time.Now().Add(10 * time.Second)
	after := sv42Goroutines()
	for after > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		after = sv42Goroutines()
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Logf("%s", buf[:runtime.Stack(buf, true)])
	}
	require.LessOrEqual(t, after, before, "goroutines after the command stopped")
}
