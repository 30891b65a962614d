package aggregator

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/wire"
)

// client is one WebSocket subscriber: an ordered, bounded outbound queue
// drained by one writer goroutine.
type client struct {
	q       chan []byte
	pending atomic.Int64 // bytes queued, not yet written
	ctx     context.Context
	cancel  context.CancelFunc
	gone    bool // dropped or disconnected (under the aggregator's lock)
	slow    bool // dropped for being slow
	proj    projection
	agg     bool
}

// send hands a frame to a client without blocking, holding the lock. A
// client whose queue would overflow is disconnected instead: dropping the
// frame would break exactly-once delivery. rows is how many rows the frame
// carries, for the fan-out counters.
func (a *Aggregator) send(c *client, frame []byte, rows int) {
	if c.gone {
		return
	}
	p := c.pending.Load()
	if len(c.q) == cap(c.q) || (p > 0 && p+int64(len(frame)) > a.cfg.ClientQueueBytes) {
		a.drop(c, true)
		return
	}
	c.pending.Add(int64(len(frame)))
	c.q <- frame
	a.m.fannedOut.Add(uint64(rows))
	a.m.bytesFannedOut.Add(uint64(len(frame)))
}

// drop unregisters a client, holding the lock; its writer sees the
// cancelled context and closes the connection.
func (a *Aggregator) drop(c *client, slow bool) {
	if c.gone {
		return
	}
	c.gone, c.slow = true, slow
	delete(a.liveClients, c)
	delete(a.aggClients, c)
	if slow {
		a.m.slowDisconnects.Add(1)
		a.cfg.Logger.Warn("disconnecting a slow WebSocket client", "queued_frames", len(c.q), "queued_bytes", c.pending.Load())
	}
	c.cancel()
}

func (a *Aggregator) accept(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	return websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:  a.cfg.OriginPatterns,
		CompressionMode: websocket.CompressionDisabled,
	})
}

// ServeLive serves WS /live: a snapshot of the raw window, then one
// append per pushed batch.
func (a *Aggregator) ServeLive(w http.ResponseWriter, r *http.Request) {
	conn, err := a.accept(w, r)
	if err != nil {
		return
	}
	c := a.newClient(r.Context(), false)
	a.mu.Lock()
	snap := a.rawSnapshot()
	a.send(c, snap, a.p.s.Len())
	a.liveClients[c] = struct{}{}
	a.mu.Unlock()
	readCtx := conn.CloseRead(c.ctx)
	a.serveClient(conn, c, readCtx)
}

// ServeLiveAgg serves WS /live-agg: an aggregate snapshot (thresholds and
// history), then one aggregate-append per tick. The query ?n=5&by=cpu_avg
// and the set-top-n control message select a top-N projection.
func (a *Aggregator) ServeLiveAgg(w http.ResponseWriter, r *http.Request) {
	conn, err := a.accept(w, r)
	if err != nil {
		return
	}
	conn.SetReadLimit(1 << 16)
	c := a.newClient(r.Context(), true)
	q := r.URL.Query()
	by, ok := ParseRankKey(q.Get("by"))
	if !ok {
		by = RankCPUAvg
	}
	n := 0
	if s := q.Get("n"); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			n = a.clampTopN(f)
		}
	}
	c.proj.set(n, by)
	a.mu.Lock()
	snap := a.aggSnapshot(&c.proj)
	a.send(c, snap, a.hist.rows)
	a.aggClients[c] = struct{}{}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.readControl(conn, c)
	}()
	a.serveClient(conn, c, c.ctx)
	<-done
}

func (a *Aggregator) newClient(parent context.Context, agg bool) *client {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	return &client{q: make(chan []byte, a.cfg.ClientQueueFrames), ctx: ctx, cancel: cancel, agg: agg}
}

// serveClient writes the client's queue until it is dropped or the
// connection fails.
func (a *Aggregator) serveClient(conn *websocket.Conn, c *client, readCtx context.Context) {
	defer func() {
		a.mu.Lock()
		a.drop(c, false)
		a.mu.Unlock()
	}()
	for {
		select {
		case <-c.ctx.Done():
			a.mu.Lock()
			slow := c.slow
			a.mu.Unlock()
			if slow {
				closeWithin(conn, websocket.StatusTryAgainLater, "too slow: outbound queue full")
			} else {
				conn.CloseNow()
			}
			return
		case <-readCtx.Done():
			conn.CloseNow()
			return
		case f := <-c.q:
			err := conn.Write(c.ctx, websocket.MessageText, f)
			c.pending.Add(-int64(len(f)))
			if err != nil {
				conn.CloseNow()
				return
			}
		}
	}
}

// closeWithin tries a clean close but gives up quickly: a slow client may
// never answer the close handshake.
func closeWithin(conn *websocket.Conn, code websocket.StatusCode, reason string) {
	done := make(chan struct{})
	go func() {
		conn.Close(code, reason)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		conn.CloseNow()
	}
}

// readControl reads /live-agg control messages until the connection
// ends, then drops the client.
func (a *Aggregator) readControl(conn *websocket.Conn, c *client) {
	defer func() {
		a.mu.Lock()
		a.drop(c, false)
		a.mu.Unlock()
	}()
	for {
		_, data, err := conn.Read(c.ctx)
		if err != nil {
			return
		}
		n, by, ok := a.parseTopN(data)
		if !ok {
			continue // bad JSON or a bad message is ignored
		}
		a.mu.Lock()
		c.proj.set(n, by)
		a.mu.Unlock()
	}
}

// parseTopN reads a set-top-n message: n null turns the cut off, a number
// is floored and clamped to [1, max(hosts, 1000)]; by must be one of the
// rank keys (absent keeps the default, cpu_avg). Anything invalid rejects
// the whole message.
func (a *Aggregator) parseTopN(data []byte) (int, RankKey, bool) {
	var m wire.TopNRequest
	if err := json.Unmarshal(data, &m); err != nil || m.Type != "set-top-n" {
		return 0, "", false
	}
	by := RankCPUAvg
	if m.By != nil {
		k, ok := ParseRankKey(*m.By)
		if !ok {
			return 0, "", false
		}
		by = k
	}
	if m.N == nil {
		return 0, by, true
	}
	return a.clampTopN(*m.N), by, true
}

func (a *Aggregator) clampTopN(f float64) int {
	if f != f {
		return 0
	}
	limit := max(1000, a.hostCount())
	return int(math.Max(1, math.Min(float64(limit), math.Floor(f))))
}

// hostCount is how many hosts the last tick carried.
func (a *Aggregator) hostCount() int {
	return int(a.m.lastTickHosts.Load())
}

// Close disconnects every WebSocket client.
func (a *Aggregator) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for c := range a.liveClients {
		a.drop(c, false)
	}
	for c := range a.aggClients {
		a.drop(c, false)
	}
}
