package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/internal/freezer"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pingedAggregator serves an aggregator that pings every 50 ms, with a
// pong timeout of timeout, behind a freezer proxy. It returns the
// aggregator, the proxy and how many requests are being served: a
// WebSocket handler returns only once the goroutines it started have
// ended.
func pingedAggregator(t *testing.T, timeout time.Duration) (*Aggregator, *freezer.Proxy, *atomic.Int64) {
	t.Helper()
	a := newTestAggregator(t, Config{Logger: quietLogger, ClientPingInterval: 50 * time.Millisecond, ClientPingTimeout: timeout})
	require.NoError(t, a.Push(batchOf(hostRows(0, 3)...), time.Now()))
	h, running := counted(a.Handler())
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		a.Close()
		srv.Close()
	})
	return a, freezer.Start(t, strings.TrimPrefix(srv.URL, "http://")), running
}

// counted wraps h and returns how many of its requests are being served.
func counted(h http.Handler) (http.Handler, *atomic.Int64) {
	var running atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		running.Add(1)
		defer running.Add(-1)
		h.ServeHTTP(w, r)
	}), &running
}

// holdSnapshotRows pushes 50 batches of 1,000 hosts into a: a /live
// snapshot of about 2 MB, more than 16 KB socket buffers hold.
func holdSnapshotRows(t *testing.T, a *Aggregator) {
	t.Helper()
	now := time.Now()
	for i := range 50 {
		require.NoError(t, a.Push(batchOf(hostRows(time.Duration(i)*10*time.Millisecond, 1000)...), now))
	}
}

// dialPinged connects a client to path through the proxy, reads its
// snapshot and leaves a reader on the socket, as a browser does: it
// answers pings.
func dialPinged(t *testing.T, p *freezer.Proxy, path string) *wsClient {
	t.Helper()
	c := dial(t, "ws://"+p.Addr()+path)
	want := wire.TypeSnapshot
	if path == "/live-agg" {
		want = wire.TypeAggregateSnapshot
	}
	require.Equal(t, want, c.next().Type)
	c.conn.CloseRead(context.Background())
	return c
}

func clientsOf(a *Aggregator) int {
	st := a.Stats()
	return st.LiveClients + st.AggClients
}

// TestAClientThatStopsAnsweringPingsIsDropped: a client whose network
// goes silent without closing (the proxy frozen), while no frame flows,
// is dropped once a ping goes unanswered: it leaves the registry, and its
// handler returns with every goroutine it started. Without pings, with
// nothing to send it, only the kernel's TCP keepalive found it, minutes
// later.
func TestAClientThatStopsAnsweringPingsIsDropped(t *testing.T) {
	for _, path := range []string{"/live", "/live-agg"} {
		t.Run(path[1:], func(t *testing.T) {
			a, proxy, running := pingedAggregator(t, 100*time.Millisecond)
			dialPinged(t, proxy, path)
			require.Equal(t, 1, clientsOf(a))
			proxy.Freeze()
			require.Eventually(t, func() bool { return clientsOf(a) == 0 }, 5*time.Second, 10*time.Millisecond,
				"the silent client is still registered")
			require.Eventually(t, func() bool { return running.Load() == 0 }, 5*time.Second, 10*time.Millisecond,
				"the silent client's handler has not returned")
			assert.Zero(t, a.m.slowDisconnects.Load(), "not counted as slow")
			assert.EqualValues(t, 1, a.m.pingDisconnects.Load(), "counted as cut for an unanswered ping")
		})
	}
}

// TestAnIdleClientThatAnswersPingsStays: a client that answers, while no
// frame flows, is pinged every interval and kept across many of them, and
// several pong timeouts: the server's reader (CloseRead on /live, the
// control reader on /live-agg) takes the pongs in.
func TestAnIdleClientThatAnswersPingsStays(t *testing.T) {
	for _, path := range []string{"/live", "/live-agg"} {
		t.Run(path[1:], func(t *testing.T) {
			a, proxy, _ := pingedAggregator(t, 500*time.Millisecond)
			c := dialPinged(t, proxy, path)
			toServer0, toClient0 := proxy.Passed()
			time.Sleep(1500 * time.Millisecond) // 30 intervals, 3 pong timeouts
			toServer, toClient := proxy.Passed()
			assert.Greater(t, toClient, toClient0, "the server pinged")
			assert.Greater(t, toServer, toServer0, "the client answered")
			assert.Equal(t, 1, clientsOf(a), "the client is still registered")
			assert.Zero(t, a.m.pingDisconnects.Load(), "no client cut for an unanswered ping")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			assert.NoError(t, c.conn.Ping(ctx), "the socket is open both ways")
		})
	}
}

// TestAClientIsNotPingedWhileItsSnapshotIsWritten: a /live client that is
// slow to take a large snapshot, but there, is not cut because a ping
// waited behind the snapshot's frames: the aggregator does not ping a
// client while it writes to it (the lag limit bounds that instead). The
// client reads nothing for three seconds, sixty intervals and three pong
// timeouts, while its snapshot (50,000 rows, about 2 MB) fills the
// sockets' buffers (16 KB each). (The pong timeout is a second so that a
// loaded machine, under -race, answers in time once the client reads.)
func TestAClientIsNotPingedWhileItsSnapshotIsWritten(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger, MaxHosts: 1000,
		ClientPingInterval: 50 * time.Millisecond, ClientPingTimeout: time.Second})
	holdSnapshotRows(t, a)
	t.Cleanup(a.Close)
	conn, data := freezer.ReadLate(t, a.Handler(), "/live", 3*time.Second)
	f, err := wire.Decode(data)
	require.NoError(t, err)
	require.Equal(t, wire.TypeSnapshot, f.Type)
	assert.Equal(t, 1, clientsOf(a), "the client is still registered")
	assert.Zero(t, a.m.pingDisconnects.Load(), "no client cut for an unanswered ping")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.NoError(t, conn.Ping(ctx), "the socket is open both ways")
}

// TestAClientGoneInTheMiddleOfItsSnapshotIsCutWhileNoFrameFlows: a /live
// client that stops reading in the middle of its snapshot (its network
// gone: it takes nothing and answers nothing), while no batch comes that
// would queue a frame and check its lag, is pinged again once the
// snapshot's write is older than the lag limit, and cut when the ping
// goes unanswered: it leaves the registry, and its handler returns. (Its
// pings waited for the write, for good: the client, its goroutines and
// its place among the snapshots being written were kept until the
// kernel gave the socket up.)
func TestAClientGoneInTheMiddleOfItsSnapshotIsCutWhileNoFrameFlows(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger, MaxHosts: 1000, ClientMaxLag: 300 * time.Millisecond,
		ClientPingInterval: 50 * time.Millisecond, ClientPingTimeout: 200 * time.Millisecond})
	holdSnapshotRows(t, a)
	h, running := counted(a.Handler())
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = freezer.SmallBuffers(srv.Listener, 16<<10)
	srv.Start()
	t.Cleanup(func() {
		a.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/live",
		&websocket.DialOptions{HTTPClient: freezer.SmallBufferClient(16 << 10)})
	require.NoError(t, err)
	defer conn.CloseNow()
	require.Eventually(t, func() bool { return clientsOf(a) == 1 }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return clientsOf(a) == 0 }, 10*time.Second, 10*time.Millisecond,
		"the client gone in the middle of its snapshot is still registered")
	require.Eventually(t, func() bool { return running.Load() == 0 }, 5*time.Second, 10*time.Millisecond,
		"its handler has not returned")
	assert.EqualValues(t, 1, a.m.pingDisconnects.Load(), "counted as cut for an unanswered ping")
}
