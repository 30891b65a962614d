package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/examples/internal/wsping"
)

// piecePool holds the buffers snapshots are encoded in, so that churning
// clients do not each allocate one.
var piecePool = sync.Pool{New: func() any { b := wire.PieceBuffer(); return &b }}

// closeGrace is how long a client dropped as slow has to take the frame
// being written and the close frame before its connection is cut.
const closeGrace = 5 * time.Second

// item is one queued frame: a /live append (bytes shared by every client)
// or a /live-agg tick, which the client's writer encodes.
type item struct {
	chunk *rawChunk
	tick  *tick
	size  int64 // bytes it counts for against the queue bound
	at    int64 // when it was queued, unix ns
}

// client is one WebSocket subscriber: a bounded queue drained by one
// writer goroutine, which first streams the client's snapshot.
type client struct {
	agg    bool
	ctx    context.Context // cancelled to cut the connection
	cancel context.CancelFunc
	stop   chan struct{} // closed when the client is dropped
	wake   chan struct{} // a frame was queued

	// What the snapshot is made of, taken at registration under the
	// aggregator's lock and read by the writer only.
	snapTicks []*tick
	snapRaw   []*rawChunk
	snapCut   int64 // ns: the raw rows before it have left the window

	gone bool // dropped (under the aggregator's lock)

	mu           sync.Mutex // guards the fields below
	q            []item
	bytes        int64
	writingSince int64  // unix ns when the current write began, 0 when idle
	reason       string // why it was dropped as slow
	want         *topN  // a set-top-n the writer has not applied yet

	// The writer's own.
	proj    projection
	buf     []byte
	projBuf []*wire.HostTick
}

type topN struct {
	n  int
	by RankKey
}

// send queues a frame for a client without blocking, holding the
// aggregator's lock. A client that is too far behind is dropped instead:
// dropping the frame would break exactly-once delivery.
func (a *Aggregator) send(c *client, it item) {
	if c.gone {
		return
	}
	now := a.cfg.Now().UnixNano()
	it.at = now
	c.mu.Lock()
	oldest := c.writingSince
	if len(c.q) > 0 && (oldest == 0 || c.q[0].at < oldest) {
		oldest = c.q[0].at
	}
	var why string
	switch {
	case len(c.q) >= a.cfg.ClientQueueFrames:
		why = fmt.Sprintf("too slow: %d frames queued", len(c.q))
	case len(c.q) > 0 && c.bytes+it.size > a.cfg.ClientQueueBytes:
		why = fmt.Sprintf("too slow: %d bytes queued", c.bytes)
	case oldest != 0 && now-oldest > int64(a.cfg.ClientMaxLag):
		why = fmt.Sprintf("too slow: %s behind", time.Duration(now-oldest).Round(time.Millisecond))
	default:
		c.q = append(c.q, it)
		c.bytes += it.size
	}
	c.mu.Unlock()
	if why != "" {
		a.drop(c, why)
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// drop unregisters a client, holding the lock. A client dropped for being
// slow (reason not empty) is closed by its writer with 1013 and the
// reason, and cut after closeGrace if it takes not even that; any other is
// cut at once.
func (a *Aggregator) drop(c *client, reason string) {
	if c.gone {
		return
	}
	c.gone = true
	delete(a.liveClients, c)
	delete(a.aggClients, c)
	c.mu.Lock()
	c.reason = reason
	frames, bytes := len(c.q), c.bytes
	c.mu.Unlock()
	close(c.stop)
	if reason == "" {
		c.cancel()
		return
	}
	a.m.slowDisconnects.Add(1)
	a.cfg.Logger.Warn("closing a slow WebSocket client", "reason", reason, "queued_frames", frames, "queued_bytes", bytes)
	time.AfterFunc(a.closeGrace, c.cancel)
}

func (a *Aggregator) dropLocked(c *client) {
	a.mu.Lock()
	a.drop(c, "")
	a.mu.Unlock()
}

func (a *Aggregator) accept(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		http.Error(w, ErrClosed.Error(), http.StatusServiceUnavailable)
		return nil, ErrClosed
	}
	return websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:  a.cfg.OriginPatterns,
		CompressionMode: websocket.CompressionDisabled,
	})
}

// ServeLive serves WS /live: a snapshot of the raw window, streamed in
// pieces, then one append per pushed batch.
func (a *Aggregator) ServeLive(w http.ResponseWriter, r *http.Request) {
	conn, err := a.accept(w, r)
	if err != nil {
		return
	}
	c := a.newClient(r.Context(), false)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		conn.Close(websocket.StatusGoingAway, ErrClosed.Error())
		return
	}
	c.snapRaw, c.snapCut = a.raw.all(), math.MinInt64
	if latest, ok := a.p.s.LatestNanos(); ok {
		c.snapCut = latest - int64(a.cfg.Retention)
	}
	a.liveClients[c] = struct{}{}
	a.mu.Unlock()
	readCtx := conn.CloseRead(c.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-readCtx.Done():
			a.dropLocked(c)
		case <-c.stop:
		}
	}()
	a.serveClient(conn, c)
	<-done
}

// ServeLiveAgg serves WS /live-agg: an aggregate snapshot (thresholds and
// history), then one aggregate-append per tick. The query ?n=5&by=cpu_avg
// and the set-top-n control message select a top-N projection.
func (a *Aggregator) ServeLiveAgg(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	by := RankCPUAvg
	if s := q.Get("by"); s != "" {
		k, ok := ParseRankKey(s)
		if !ok {
			http.Error(w, fmt.Sprintf("unknown by=%q: want cpu_avg, cpu_sd or requests_sum", s), http.StatusBadRequest)
			return
		}
		by = k
	}
	n := 0
	if s := q.Get("n"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			http.Error(w, fmt.Sprintf("n=%q: want a number of hosts", s), http.StatusBadRequest)
			return
		}
		n = a.clampTopN(f)
	}
	conn, err := a.accept(w, r)
	if err != nil {
		return
	}
	conn.SetReadLimit(1 << 16)
	c := a.newClient(r.Context(), true)
	c.proj.set(n, by)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		conn.Close(websocket.StatusGoingAway, ErrClosed.Error())
		return
	}
	c.snapTicks = a.hist.all()
	a.aggClients[c] = struct{}{}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.readControl(conn, c)
	}()
	a.serveClient(conn, c)
	<-done
}

func (a *Aggregator) newClient(parent context.Context, agg bool) *client {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	return &client{ctx: ctx, cancel: cancel, agg: agg, stop: make(chan struct{}), wake: make(chan struct{}, 1)}
}

var errDropped = errors.New("aggregator: client dropped")

// serveClient writes to the client and pings it until its writer stops,
// then stops the pings and returns. The caller keeps a reader on conn:
// pongs are taken in only while something reads.
func (a *Aggregator) serveClient(conn *websocket.Conn, c *client) {
	ctx, stop := context.WithCancel(c.ctx)
	pinged := make(chan struct{})
	go func() {
		defer close(pinged)
		a.ping(ctx, conn, c)
	}()
	a.writeLoop(conn, c)
	stop()
	<-pinged
}

// ping pings the client until ctx ends. A client that leaves a ping
// unanswered is dropped as one that left: its connection is cut, without
// a close frame that nothing would read.
func (a *Aggregator) ping(ctx context.Context, conn *websocket.Conn, c *client) {
	busy := func() bool { return c.writing(a.cfg.Now().UnixNano(), int64(a.cfg.ClientMaxLag)) }
	err := wsping.Loop(ctx, conn, a.cfg.ClientPingInterval, a.cfg.ClientPingTimeout, busy)
	if err == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !c.gone && errors.Is(err, wsping.ErrUnanswered) {
		a.m.pingDisconnects.Add(1)
		a.cfg.Logger.Info("closing a WebSocket client that does not answer pings", "err", err)
	}
	a.drop(c, "")
}

// writeLoop streams the client's snapshot, then writes its queue in order
// until it is dropped or the connection fails.
func (a *Aggregator) writeLoop(conn *websocket.Conn, c *client) {
	defer func() {
		a.dropLocked(c)
		conn.CloseNow()
	}()
	if err := a.writeSnapshot(conn, c); err != nil {
		a.closeDropped(conn, c)
		return
	}
	for {
		select {
		case <-c.stop:
			a.closeDropped(conn, c)
			return
		case <-c.ctx.Done():
			return
		case <-c.wake:
		}
		for {
			select {
			case <-c.stop:
				a.closeDropped(conn, c)
				return
			default:
			}
			it, ok := c.pop()
			if !ok {
				break
			}
			if err := a.writeItem(conn, c, it); err != nil {
				return
			}
		}
	}
}

// closeDropped closes the connection of a client dropped as slow with
// 1013 and the reason.
func (a *Aggregator) closeDropped(conn *websocket.Conn, c *client) {
	c.mu.Lock()
	reason := c.reason
	c.mu.Unlock()
	if reason == "" {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn.Close(websocket.StatusTryAgainLater, reason)
	}()
	select {
	case <-done:
	case <-c.ctx.Done():
	}
}

func (c *client) pop() (item, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.q) == 0 {
		c.q = c.q[:0]
		return item{}, false
	}
	it := c.q[0]
	c.q[0] = item{}
	c.q = c.q[1:]
	c.writingSince = it.at
	return it, true
}

// writing reports whether a frame or the snapshot is being written to
// the client (or the snapshot waits for its turn), and has been for no
// longer than maxLag at now (unix ns): its pings wait meanwhile (see
// wsping.Loop). Past the lag limit they go out again: send checks the
// lag only as it queues a frame, so while none comes a client gone in the
// middle of a write would never be cut.
func (c *client) writing(now, maxLag int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writingSince != 0 && now-c.writingSince <= maxLag
}

func (c *client) written(size int64) {
	c.mu.Lock()
	c.bytes -= size
	c.writingSince = 0
	c.mu.Unlock()
}

// writeItem writes one queued frame.
func (a *Aggregator) writeItem(conn *websocket.Conn, c *client, it item) error {
	defer c.written(it.size)
	var frame []byte
	var rows int
	if it.tick != nil {
		c.applyWant()
		frame, rows = a.encodeTick(c, it.tick)
	} else {
		frame, rows = it.chunk.appendFrame(), len(it.chunk.times)
	}
	if err := conn.Write(c.ctx, websocket.MessageText, frame); err != nil {
		return err
	}
	a.m.fannedOut.Add(uint64(rows))
	a.m.bytesFannedOut.Add(uint64(len(frame)))
	return nil
}

// encodeTick encodes one aggregate-append through the client's
// projection, into the client's buffer.
func (a *Aggregator) encodeTick(c *client, t *tick) ([]byte, int) {
	b := append(c.buf[:0], `{"type":"aggregate-append","rows":[`...)
	var rows int
	b, rows = c.appendTickRows(b, t, true)
	b = append(b, `],"globals":`...)
	b = wire.AppendGlobalsTick(b, &t.globals)
	b = append(b, '}')
	c.buf = b
	return b, rows
}

// appendTickRows appends a tick's rows as the client's projection cuts
// them; first says whether no row has been written yet in the array.
func (c *client) appendTickRows(b []byte, t *tick, first bool) ([]byte, int) {
	if c.proj.N <= 0 {
		if len(t.rows) == 0 {
			return b, 0
		}
		if !first {
			b = append(b, ',')
		}
		return append(b, t.encodedRows()...), len(t.rows)
	}
	c.projBuf = c.proj.applyOrdered(c.projBuf, t.rows, t.rankOrder(c.proj.By))
	for i, r := range c.projBuf {
		if !first || i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendHostTick(b, r)
	}
	return b, len(c.projBuf)
}

func (c *client) applyWant() {
	c.mu.Lock()
	w := c.want
	c.want = nil
	c.mu.Unlock()
	if w != nil {
		c.proj.set(w.n, w.by)
	}
}

// writeSnapshot streams the client's snapshot as one WebSocket message in
// pieces of about wire.PieceBytes. At most SnapshotWorkers snapshots are
// encoded at once; a client that leaves while waiting costs nothing, and
// one that leaves while its snapshot streams stops it at the next piece.
func (a *Aggregator) writeSnapshot(conn *websocket.Conn, c *client) error {
	c.mu.Lock()
	c.writingSince = a.cfg.Now().UnixNano()
	c.mu.Unlock()
	defer c.written(0)
	select {
	case a.snapSem <- struct{}{}:
	case <-c.stop:
		return errDropped
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
	defer func() { <-a.snapSem }()
	w, err := conn.Writer(c.ctx, websocket.MessageText)
	if err != nil {
		return err
	}
	buf := piecePool.Get().(*[]byte)
	defer piecePool.Put(buf)
	pw := wire.Pieces{W: w, Stop: c.stop, AfterPiece: a.afterSnapshotPiece}
	var rows int
	b := (*buf)[:0]
	if c.agg {
		b, rows = a.streamAggSnapshot(&pw, b, c)
	} else {
		b, rows = streamRawSnapshot(&pw, b, c.snapRaw, c.snapCut)
	}
	c.snapTicks, c.snapRaw = nil, nil
	if cap(b) <= 4*wire.PieceBytes {
		*buf = b[:0]
	}
	if err := pw.Err(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	a.m.fannedOut.Add(uint64(rows))
	a.m.bytesFannedOut.Add(uint64(pw.Written()))
	return nil
}

// afterSnapshotPiece runs after each piece of a snapshot is written.
func (a *Aggregator) afterSnapshotPiece() {
	if a.onSnapshotPiece != nil {
		a.onSnapshotPiece()
	}
	// Let ingest run first between pieces: a snapshot can wait, a batch
	// should not.
	runtime.Gosched()
}

// streamRawSnapshot writes the rows of the chunks still in the window
// (time at or after cut), in the order they were taken, building the
// pieces in b; it returns b and the rows written.
func streamRawSnapshot(p *wire.Pieces, b []byte, chunks []*rawChunk, cut int64) ([]byte, int) {
	b = wire.BeginRaw(b, wire.TypeSnapshot)
	rows := 0
	for _, c := range chunks {
		var n int
		b, n = c.appendRows(b, cut, rows == 0)
		rows += n
		if b = p.Flush(b, false); p.Err() != nil {
			return b, 0
		}
	}
	b = wire.EndRaw(b)
	b = p.Flush(b, true)
	return b, rows
}

// streamAggSnapshot writes the aggregate snapshot through the client's
// projection, which carries its hysteresis into the appends, building the
// pieces in b; it returns b and the rows written.
func (a *Aggregator) streamAggSnapshot(p *wire.Pieces, b []byte, c *client) ([]byte, int) {
	b = append(b, `{"type":"aggregate-snapshot","thresholds":[`...)
	for i, t := range a.cfg.Thresholds {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendFloat(b, t)
	}
	b = append(b, `],"rows":[`...)
	rows := 0
	for _, t := range c.snapTicks {
		var n int
		b, n = c.appendTickRows(b, t, rows == 0)
		rows += n
		if b = p.Flush(b, false); p.Err() != nil {
			return b, 0
		}
	}
	b = append(b, `],"globals":[`...)
	for i, t := range c.snapTicks {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendGlobalsTick(b, &t.globals)
		if b = p.Flush(b, false); p.Err() != nil {
			return b, 0
		}
	}
	b = append(b, "]}"...)
	b = p.Flush(b, true)
	return b, rows
}

// readControl reads /live-agg control messages until the connection
// ends, then drops the client.
func (a *Aggregator) readControl(conn *websocket.Conn, c *client) {
	defer a.dropLocked(c)
	for {
		_, data, err := conn.Read(c.ctx)
		if err != nil {
			return
		}
		n, by, ok := a.parseTopN(data)
		if !ok {
			continue // bad JSON or a bad message is ignored
		}
		c.mu.Lock()
		c.want = &topN{n, by}
		c.mu.Unlock()
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

// ErrClosed is the error of a push after [Aggregator.Close].
var ErrClosed = errors.New("aggregator: closed")

// Close disconnects every WebSocket client and closes the series: a
// client that connects after it is refused (503, or closed with 1001 if
// it was accepted meanwhile), and a batch pushed after it, by [Aggregator.Push]
// or received by [Aggregator.Run], is refused with [ErrClosed] and counted
// nowhere. Stop Run first. Close may be called more than once.
func (a *Aggregator) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for c := range a.liveClients {
		a.drop(c, "")
	}
	for c := range a.aggClients {
		a.drop(c, "")
	}
	// The series' workers stop with it; a push after Close fails.
	_ = a.p.s.Close()
}
