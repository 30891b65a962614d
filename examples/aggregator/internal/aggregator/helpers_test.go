package aggregator

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/require"
)

// quietLogger drops the aggregator's logs in tests.
var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// serve starts an HTTP server for a and returns its ws:// base URL.
func serve(t *testing.T, a *Aggregator) (wsBase, httpBase string) {
	t.Helper()
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		a.Close()
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http"), srv.URL
}

// wsClient is a test WebSocket client that decodes frames.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

func dial(t *testing.T, url string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, nil)
	require.NoError(t, err)
	conn.SetReadLimit(1 << 30)
	t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: t, conn: conn}
}

// next reads one frame, failing the test after a generous timeout.
func (c *wsClient) next() *wire.Frame {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	typ, data, err := c.conn.Read(ctx)
	require.NoError(c.t, err)
	require.Equal(c.t, websocket.MessageText, typ)
	f, err := wire.Decode(data)
	require.NoError(c.t, err)
	return f
}

// eventually polls cond every 10 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
