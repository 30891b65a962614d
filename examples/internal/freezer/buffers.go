package freezer

import (
	"context"
	"net"
	"net/http"
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
