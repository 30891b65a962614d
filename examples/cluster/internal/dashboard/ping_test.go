package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// pingedTier serves a tier that pings every 50 ms, with a pong timeout
// of timeout, behind a freezer proxy. It returns the tier, the proxy and
// how many /live-agg handlers are running: a handler returns only once
// the goroutines it started have ended.
func pingedTier(t *testing.T, timeout time.Duration) (*Tier, *freezer.Proxy, *atomic.Int64) {
	t.Helper()
	tr := newTierWith(Config{History: time.Minute, HistoryTicks: 10, PingInterval: 50 * time.Millisecond, PingTimeout: timeout})
	tr.take(record(0, 200, "a"))
	tr.flush(time.Now().Add(time.Hour))
	var running atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		running.Add(1)
		defer running.Add(-1)
		tr.serveLiveAgg(w, r)
	}))
	t.Cleanup(srv.Close)
	return tr, freezer.Start(t, strings.TrimPrefix(srv.URL, "http://")), &running
}

// dialPage connects a page through the proxy, reads its snapshot and
// leaves a reader on the socket, as a browser does: it answers pings.
func dialPage(t *testing.T, p *freezer.Proxy) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws://"+p.Addr(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { conn.CloseNow() })
	_, data, err := conn.Read(ctx)
	require.NoError(t, err)
	f, err := wire.Decode(data)
	require.NoError(t, err)
	require.Equal(t, wire.TypeAggregateSnapshot, f.Type)
	conn.CloseRead(context.Background())
	return conn
}

func (t *Tier) pages() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.clients)
}

// TestAPageThatStopsAnsweringPingsIsCut: a page whose network goes
// silent without closing (the proxy frozen), while no tick flows, is cut
// once a ping goes unanswered: it leaves the tier's pages, and its
// handler returns with every goroutine it started. Without pings only the
// kernel's TCP keepalive found it, minutes later.
func TestAPageThatStopsAnsweringPingsIsCut(t *testing.T) {
	tr, proxy, running := pingedTier(t, 100*time.Millisecond)
	dialPage(t, proxy)
	require.Equal(t, 1, tr.pages())
	proxy.Freeze()
	require.Eventually(t, func() bool { return tr.pages() == 0 }, 5*time.Second, 10*time.Millisecond,
		"the silent page is still served")
	require.Eventually(t, func() bool { return running.Load() == 0 }, 5*time.Second, 10*time.Millisecond,
		"the silent page's handler has not returned")
	assert.Equal(t, 1.0, metric(tr, "pond_dashboard_unanswered_ping_disconnects_total"), "counted as cut for an unanswered ping")
}

// metric returns the value of the tier's metric name.
func metric(tr *Tier, name string) float64 {
	for _, f := range tr.Families() {
		if f.Name == name {
			return f.Samples[0].Value
		}
	}
	return -1
}

// TestAPageIsNotPingedWhileItsSnapshotIsWritten: a page that is slow to
// take a large snapshot, but there, is not cut because a ping waited
// behind the snapshot's frames: the tier does not ping a page while it
// writes to it (the snapshot's own timeout bounds that). The page reads
// nothing for three seconds, sixty intervals and three pong timeouts,
// while the snapshot (300 ticks of 30 hosts, about 2 MB) fills the
// sockets' buffers (16 KB each). (The pong timeout is a second so that a
// loaded machine, under -race, answers in time once the page reads.)
func TestAPageIsNotPingedWhileItsSnapshotIsWritten(t *testing.T) {
	tr := newTierWith(Config{History: time.Hour, PingInterval: 50 * time.Millisecond, PingTimeout: time.Second})
	for b := int64(200); b <= 300*200; b += 200 {
		for h := range 30 {
			tr.take(record(0, b, "host-"+strconv.Itoa(h)))
		}
		tr.flush(time.Now().Add(time.Hour))
	}
	conn, data := freezer.ReadLate(t, http.HandlerFunc(tr.serveLiveAgg), "", 3*time.Second)
	f, err := wire.Decode(data)
	require.NoError(t, err)
	require.Equal(t, wire.TypeAggregateSnapshot, f.Type)
	assert.Equal(t, 1, tr.pages(), "the page is still served")
	assert.Zero(t, metric(tr, "pond_dashboard_unanswered_ping_disconnects_total"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.NoError(t, conn.Ping(ctx), "the socket is open both ways")
}

// TestAnIdlePageThatAnswersPingsStays: a page that answers, while no tick
// flows, is pinged every interval and kept across many of them, and
// several pong timeouts: the tier takes the pongs in.
func TestAnIdlePageThatAnswersPingsStays(t *testing.T) {
	tr, proxy, _ := pingedTier(t, 500*time.Millisecond)
	conn := dialPage(t, proxy)
	toTier0, toPage0 := proxy.Passed()
	time.Sleep(1500 * time.Millisecond) // 30 intervals, 3 pong timeouts
	toTier, toPage := proxy.Passed()
	assert.Greater(t, toPage, toPage0, "the tier pinged")
	assert.Greater(t, toTier, toTier0, "the page answered")
	assert.Equal(t, 1, tr.pages(), "the page is still served")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.NoError(t, conn.Ping(ctx), "the socket is open both ways")
}
