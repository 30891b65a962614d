package freezer

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// SmallBuffers wraps lis so that every connection it accepts has socket
// buffers of n bytes each way: a writer to a peer that stops reading then
// blocks after a few times n bytes, whatever the kernel's defaults.
func SmallBuffers(lis net.Listener, n int) net.Listener { return smallLis{lis, n} }

type smallLis struct {
	net.Listener
	n int
}

func (l smallLis) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		shrink(c, l.n)
	}
	return c, err
}

// SmallBufferClient returns an HTTP client (for websocket.DialOptions)
// whose connections have socket buffers of n bytes each way.
func SmallBufferClient(n int) *http.Client {
	d := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err == nil {
				shrink(c, n)
			}
			return c, err
		},
	}}
}

func shrink(c net.Conn, n int) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(n)
		tc.SetWriteBuffer(n)
	}
}

// ReadLate serves h on a test server whose connections have socket
// buffers of 16 KB, dials path there as a WebSocket client with the same
// buffers, and reads nothing for wait: a peer that is there but slow, so
// that a large first message stays unwritten on the server's side. It
// then reads that message whole and keeps reading (CloseRead), so that
// the client answers pings again before the caller decodes it, and
// returns the connection (open) and the message. The test fails if the
// server cut the client first.
func ReadLate(t testing.TB, h http.Handler, path string, wait time.Duration) (*websocket.Conn, []byte) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = SmallBuffers(srv.Listener, 16<<10)
	srv.Start()
	t.Cleanup(srv.Close)
	conn, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(srv.URL, "http")+path,
		&websocket.DialOptions{HTTPClient: SmallBufferClient(16 << 10)})
	require.NoError(t, err)
	t.Cleanup(func() { conn.CloseNow() })
	conn.SetReadLimit(1 << 30)
	time.Sleep(wait)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	require.NoError(t, err, "the client was cut while its first message was written")
	conn.CloseRead(context.Background())
	require.Equal(t, websocket.MessageText, typ)
	return conn, data
}
