// Package freezer is a TCP proxy for the examples' tests that, once
// frozen, passes nothing either way and closes nothing: to either end, a
// peer whose machine is gone or whose process hangs while its kernel
// keeps the connection open.
package freezer

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Proxy forwards every connection made to Addr to its target until
// Freeze; it lets go of them when the test ends.
type Proxy struct {
	lis     net.Listener
	frozen  chan struct{}
	freeze  sync.Once
	release chan struct{}
	// the bytes passed each way
	toTarget, fromTarget atomic.Int64
}

// Start listens on a free local port and forwards to target.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &Proxy{lis: lis, frozen: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(p.release); lis.Close() })
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go p.pipe(u, c, &p.toTarget)
			go p.pipe(c, u, &p.fromTarget)
		}
	}()
	return p
}

// Addr is the address to connect to instead of the target.
func (p *Proxy) Addr() string { return p.lis.Addr().String() }

// Passed returns the bytes passed so far, over every connection, from the
// clients to the target and from the target to the clients.
func (p *Proxy) Passed() (toTarget, fromTarget int64) {
	return p.toTarget.Load(), p.fromTarget.Load()
}

// Freeze stops every connection passing bytes, without closing any.
func (p *Proxy) Freeze() { p.freeze.Do(func() { close(p.frozen) }) }

// pipe copies from src to dst until frozen, counting the bytes in passed,
// then passes nothing more until released, and closes both.
func (p *Proxy) pipe(dst, src net.Conn, passed *atomic.Int64) {
	defer func() {
		<-p.release
		dst.Close()
		src.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-p.frozen:
			return
		default:
		}
		if n > 0 {
			// Counted before it is written: the answer to it could
			// come back before an Add after the Write.
			passed.Add(int64(n))
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
