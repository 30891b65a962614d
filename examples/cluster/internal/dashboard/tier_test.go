package dashboard

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

func record(part int, b int64, host string) *kgo.Record {
	r := rows.Row{BoundaryMs: b, Host: host, CPUN: 1, CPUSamples: []float64{0.5}, CPUAvg: 0.5, CPUSd: 0}
	return &kgo.Record{Value: r.AppendJSON(nil), Headers: []kgo.RecordHeader{
		{Key: rows.HeaderPartition, Value: []byte(strconv.Itoa(part))},
	}}
}

func newTier() *Tier {
	return newTierWith(Config{History: time.Minute, HistoryTicks: 10})
}

// newTierWith is a tier with cfg and no consumer.
func newTierWith(cfg Config) *Tier {
	cfg.fill()
	return &Tier{cfg: cfg, pending: map[int64]*pending{},
		latest: map[string]seen{}, sent: -1, firstTS: -1, clients: map[*client]struct{}{}}
}

func TestABoundaryIsSentOnceEveryPartitionHasPassedIt(t *testing.T) {
	tr := newTier()
	now := time.Now()
	tr.take(record(0, 200, "a"))
	tr.take(record(1, 200, "b"))
	tr.take(record(0, 400, "a"))
	tr.flush(now)
	assert.Empty(t, tr.history, "partition 1 has not passed 200 yet")
	tr.take(record(1, 400, "b"))
	tr.flush(now)
	if assert.Len(t, tr.history, 1) {
		assert.Equal(t, int64(200), tr.history[0].globals.TS)
		assert.Len(t, tr.history[0].rows, 2)
	}
}

func TestABoundaryWaitingOverASecondIsSentAndLaterRowsAreCounted(t *testing.T) {
	tr := newTier()
	tr.take(record(0, 200, "a"))
	tr.flush(time.Now().Add(2 * time.Second))
	assert.Len(t, tr.history, 1)
	tr.take(record(1, 200, "b"))
	assert.Equal(t, uint64(1), tr.lateRows)
}

// TestARowsLeftOutSamplesCountInItsSlice: a row that carries
// rows.MaxSamples samples and left some out shows the slice's whole count
// (n_current, and so events_per_sec), not the samples it carries.
func TestARowsLeftOutSamplesCountInItsSlice(t *testing.T) {
	r := rows.Row{BoundaryMs: 200, Host: "a", CPUN: 12, CPUSamples: []float64{0.5, 0.5}, CPUSamplesLeftOut: 10, CPUAvg: 0.5}
	h := hostTick(&r, 0)
	assert.Equal(t, 12, h.NCurrent)
}

// blockedWriter is a page that takes nothing: its first Write says it
// has begun and waits until it is let go.
type blockedWriter struct {
	begun, release chan struct{}
	once           sync.Once
	buf            bytes.Buffer
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	w.once.Do(func() {
		close(w.begun)
		<-w.release
	})
	return w.buf.Write(p)
}

// TestASnapshotToASlowPageDoesNotHoldUpIngestion: while a page's snapshot
// is being written (its writer blocked in the middle of it), the tier
// takes rows and sends ticks, to that page's queue too; the snapshot then
// ends with the ticks as they were when the page came. (The snapshot, up
// to 300 ticks × every host, was encoded under the tier's lock, which
// stopped ingestion for as long as that took, for every page.)
func TestASnapshotToASlowPageDoesNotHoldUpIngestion(t *testing.T) {
	tr := newTier()
	for b := int64(200); b <= 1000; b += 200 {
		for h := range 2000 { // more than a piece of the snapshot
			tr.take(record(0, b, fmt.Sprintf("host-%04d", h)))
		}
	}
	tr.flush(time.Now().Add(time.Hour))
	require.Equal(t, 5, len(tr.history))

	c := &client{q: make(chan []byte, 8), done: make(chan struct{})}
	snap := tr.register(c)
	w := &blockedWriter{begun: make(chan struct{}), release: make(chan struct{})}
	written := make(chan error, 1)
	go func() { written <- writeSnapshot(w, snap, c.done) }()
	<-w.begun

	// Ingestion, as Run does it, while the snapshot is held up.
	tr.mu.Lock()
	tr.take(record(0, 1200, "host-0000"))
	tr.flush(time.Now().Add(time.Hour))
	tr.mu.Unlock()
	require.Len(t, c.q, 1, "the tick sent meanwhile is queued to the page")
	assert.Contains(t, string(<-c.q), `"ts":1200`)

	close(w.release)
	require.NoError(t, <-written)
	f, err := wire.Decode(w.buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, wire.TypeAggregateSnapshot, f.Type)
	assert.Equal(t, 5*2000, len(f.Rows))
	assert.Equal(t, 5, len(f.Globals))
}

// A page dropped while its snapshot is written stops it at the next
// piece.
func TestASnapshotStopsWhenItsPageIsDropped(t *testing.T) {
	tr := newTier()
	for h := range 2000 {
		tr.take(record(0, 200, fmt.Sprintf("host-%04d", h)))
	}
	tr.flush(time.Now().Add(2 * time.Second))
	stop := make(chan struct{})
	close(stop)
	var buf bytes.Buffer
	assert.ErrorIs(t, writeSnapshot(&buf, slices.Clone(tr.history), stop), wire.ErrStopped)
	assert.Zero(t, buf.Len())
}

// A page gets the snapshot, streamed in pieces as one message, then the
// ticks sent after it came.
func TestAPageGetsTheSnapshotThenTheAppends(t *testing.T) {
	tr := newTier()
	for h := range 2000 {
		tr.take(record(0, 200, fmt.Sprintf("host-%04d", h)))
	}
	tr.flush(time.Now().Add(time.Hour))
	srv := httptest.NewServer(http.HandlerFunc(tr.serveLiveAgg))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	require.NoError(t, err)
	defer conn.CloseNow()
	conn.SetReadLimit(-1)
	_, data, err := conn.Read(ctx)
	require.NoError(t, err)
	f, err := wire.Decode(data)
	require.NoError(t, err)
	assert.Equal(t, wire.TypeAggregateSnapshot, f.Type)
	assert.Equal(t, 2000, len(f.Rows))

	tr.mu.Lock()
	tr.take(record(0, 400, "host-0000"))
	tr.flush(time.Now().Add(time.Hour))
	tr.mu.Unlock()
	_, data, err = conn.Read(ctx)
	require.NoError(t, err)
	f, err = wire.Decode(data)
	require.NoError(t, err)
	assert.Equal(t, wire.TypeAggregateAppend, f.Type)
	assert.Equal(t, 1, len(f.Rows))
}

// TestAPartitionGoneQuietHoldsNoBoundaryBack: once every host of a
// partition has gone, each boundary the partitions still sending have
// passed is sent at the next poll again (from forgetAfter on), not a second
// late for good; and the quiet partitions leave the table.
func TestAPartitionGoneQuietHoldsNoBoundaryBack(t *testing.T) {
	tr := newTier()
	now := time.Now()
	tr.now = func() time.Time { return now }
	for p := range 12 {
		tr.take(record(p, 200, fmt.Sprintf("h%d", p)))
	}
	// Partitions 6 to 11 lose their hosts; 0 to 5 go on, a boundary every
	// 200 ms, each polled 100 ms after its rows: long before a boundary
	// has waited maxWait.
	b := int64(200)
	for k := range 60 {
		now = now.Add(200 * time.Millisecond)
		b += 200
		for p := range 6 {
			tr.take(record(p, b, fmt.Sprintf("h%d", p)))
		}
		tr.flush(now.Add(100 * time.Millisecond))
		if time.Duration(k+1)*200*time.Millisecond > forgetAfter {
			require.NotEmpty(t, tr.history)
			assert.Equal(t, b-200, tr.history[len(tr.history)-1].globals.TS, "poll %d: the boundary the partitions still sending have passed is sent", k)
		}
	}
	assert.Len(t, tr.latest, 6, "the quiet partitions are forgotten")
}
