// Package wsping finds a WebSocket peer that has gone silent: one whose
// machine or network went away without closing the connection (a laptop
// lid closed, a NAT mapping dropped). While the kernel keeps such a socket
// open, a server's writes are buffered and its reads wait: with no frame
// flowing, only TCP keepalive notices, minutes later.
//
// # Pongs need a reader
//
// github.com/coder/websocket takes a pong in only while something reads
// the connection (Conn.Read, Conn.Reader or Conn.CloseRead). A server that
// pings a connection must keep a reader on it, or every ping times out
// and every peer is cut.
package wsping

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"
)

// The examples' servers ping each client every DefaultInterval and cut
// it when a pong takes longer than DefaultTimeout.
const (
	DefaultInterval = 10 * time.Second
	DefaultTimeout  = 10 * time.Second
)

// ErrUnanswered is returned by Loop when a ping's pong did not come back
// in time.
var ErrUnanswered = errors.New("wsping: ping unanswered")

// Loop pings conn every interval, counted from the previous pong, until
// ctx ends (it then returns nil) or a ping fails: a pong not back within
// timeout (an error that wraps ErrUnanswered) or the connection closed.
// The caller then closes the connection as for a peer that left.
//
// A ping due while busy reports true (nil: never) waits another interval:
// busy says a frame is being written, and a ping written after it would
// count the rest of that write against its pong's timeout, cutting a
// client that is only slow. The caller bounds its writes otherwise (a
// write timeout, a lag limit), so a peer gone in the middle of one is
// still cut.
func Loop(ctx context.Context, conn *websocket.Conn, interval, timeout time.Duration, busy func() bool) error {
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if busy != nil && busy() {
			t.Reset(interval)
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, timeout)
		err := conn.Ping(pctx)
		cancel()
		switch {
		case err == nil:
			t.Reset(interval)
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("%w within %v: %w", ErrUnanswered, timeout, err)
		default:
			return err
		}
	}
}
