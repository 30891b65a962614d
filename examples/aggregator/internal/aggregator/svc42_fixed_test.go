package aggregator

// Session 42's bugs in the aggregator as a service, one test each (each
// failed before its fix).

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSv42CloseAlsoEndsAClientThatConnectsAfterIt: Close "disconnects
// every WebSocket client" (its doc), and the command calls it at shutdown
// before http.Server.Shutdown, which neither closes nor waits for hijacked
// connections such as WebSockets (main.go: agg.Close(), then
// srv.Shutdown). A client that connects after Close (a dashboard
// reconnecting in that window, or any client of a process that goes on
// after Close) is instead registered, sent its snapshot, and served
// forever: its writer, reader and pinger never end, and it is never
// disconnected (seen: LiveClients 1, the socket open, 2 s after Close).
// Expected: a connect after Close is refused or closed at once.
func TestSv42CloseAlsoEndsAClientThatConnectsAfterIt(t *testing.T) {
	a := sv42New(t, Config{})
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	ws := "ws" + strings.TrimPrefix(srv.URL, "http")
	require.NoError(t, a.Push(sv42Batch([]sv42Row{{t: sv42T0, cpu: 0.5, req: 1, host: "a"}}), time.Now()))
	a.Close()

	for _, path := range []string{"/live", "/live-agg"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, _, err := websocket.Dial(ctx, ws+path, nil)
		if err != nil {
			cancel()
			continue // refused: as it should be
		}
		// Whatever it is sent first, its connection must end, not wait
		// for frames that never come.
		var rerr error
		for rerr == nil {
			_, _, rerr = conn.Read(ctx)
		}
		cancel()
		conn.CloseNow()
		assert.False(t, errors.Is(rerr, context.DeadlineExceeded), "%s: a client connected after Close is still served 2 s later", path)
	}
	st := a.Stats()
	assert.Zero(t, st.LiveClients+st.AggClients, "clients registered after Close")
}

// TestSv42ABatchRefusedAfterCloseIsNotCountedAsOutOfOrder: the docs
// define the `order` refusals as "the late rows -ordering drop drops as
// well as the rows of the batches strict ordering refuses" (README,
// /metrics.json) and "out of order or past the grace" (the Prometheus
// help). Close closes the series (its doc says only that it disconnects
// the clients), so every later batch, pushed or received by Run, is
// refused with live.ErrClosed: push counts its rows as `order` refusals
// and the batch in `pushes` (aggregator.go, the err branch after
// hostlimit.Push), so /metrics reports an in-order stream as out of order.
func TestSv42ABatchRefusedAfterCloseIsNotCountedAsOutOfOrder(t *testing.T) {
	a := sv42New(t, Config{})
	require.NoError(t, a.Push(sv42Batch([]sv42Row{{t: sv42T0, cpu: 0.5, req: 1, host: "a"}}), time.Now()))
	a.Close()
	err := a.Push(sv42Batch([]sv42Row{
		{t: sv42T0 + int64(time.Second), cpu: 0.5, req: 1, host: "a"},
		{t: sv42T0 + int64(2*time.Second), cpu: 0.5, req: 1, host: "b"},
	}), time.Now())
	require.Error(t, err, "the series is closed")
	st := a.Stats()
	assert.Zero(t, st.Refused.Order, "rows in order, refused because the aggregator was closed, counted as out of order")
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var line string
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(l, `pond_aggregator_rows_refused_total{reason="order"}`) {
			line = l
		}
	}
	assert.Equal(t, `pond_aggregator_rows_refused_total{reason="order"} 0`, line)
}
