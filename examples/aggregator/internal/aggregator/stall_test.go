package aggregator

import (
	"testing"
	"time"

	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAStalledSnapshotLeavesIngestRunning stops a client's snapshot after
// its first piece, in the middle of five minutes of tick history (or of
// the raw window), and pushes 40 batches while it waits: every push
// returns, because a snapshot is streamed outside the aggregator's lock.
// Then the snapshot goes on, and the client gets every tick (or batch)
// pushed while it waited, once and in order, after it. A lock held
// through the snapshot would stop the pushes for as long as the snapshot
// takes; this test does not measure how long pushes take, it holds the
// snapshot and sees whether they return at all.
func TestAStalledSnapshotLeavesIngestRunning(t *testing.T) {
	const hosts, history, during = 50, 1500, 40
	for _, path := range []string{"/live", "/live-agg"} {
		t.Run(path[1:], func(t *testing.T) {
			// The client waits through the stall, reading nothing (nor
			// its pings): under a loaded -race run that took longer than
			// the default 10 s of lag and of ping timeout, and the client
			// was dropped, which is not what this test is about.
			a := newTestAggregator(t, Config{Logger: quietLogger, ClientMaxLag: 2 * time.Minute,
				ClientPingInterval: 2 * time.Minute, ClientPingTimeout: 2 * time.Minute})
			stalled, release := make(chan struct{}), make(chan struct{})
			pieces := 0
			a.onSnapshotPiece = func() {
				if pieces++; pieces == 1 {
					close(stalled)
					<-release
				}
			}
			ws, _ := serve(t, a)
			base := time.Now().Add(-time.Second).Truncate(TickEvery).Add(-(history + during) * TickEvery)
			push := func(k int) {
				b := batchOf(hostRows(0, hosts)...)
				for i := range b.Time {
					b.Time[i] = base.Add(time.Duration(k) * TickEvery).UnixNano()
				}
				require.NoError(t, a.Push(b, time.Now()))
			}
			for k := range history {
				push(k)
			}

			c := dial(t, ws+path)
			select {
			case <-stalled:
			case <-time.After(30 * time.Second):
				t.Fatal("the snapshot's first piece was never written")
			}
			pushed := make(chan struct{})
			go func() {
				defer close(pushed)
				for k := history; k < history+during; k++ {
					push(k)
				}
			}()
			select {
			case <-pushed:
			case <-time.After(30 * time.Second):
				close(release)
				t.Fatal("pushes waited on a snapshot held after its first piece")
			}
			close(release)

			// A frame's rows and their time: a raw frame's first row's,
			// an aggregate frame's tick's.
			raw := path == "/live"
			rowsOf := func(f *wire.Frame) (n int, ms int64) {
				if raw {
					if len(f.RawRows) == 0 {
						return 0, 0
					}
					return len(f.RawRows), f.RawRows[len(f.RawRows)-1].TimeMs
				}
				if len(f.Rows) == 0 {
					return 0, 0
				}
				return len(f.Rows), f.Rows[len(f.Rows)-1].TS
			}
			snapType, appendType := wire.TypeSnapshot, wire.TypeAppend
			if !raw {
				snapType, appendType = wire.TypeAggregateSnapshot, wire.TypeAggregateAppend
			}
			snap := c.next()
			assert.Greater(t, pieces, 1, "the snapshot took more than one piece")
			require.Equal(t, snapType, snap.Type)
			n, prev := rowsOf(snap)
			require.NotZero(t, n)
			// Each push is a batch of its own and, crossing a boundary,
			// emits the tick before it.
			for range during {
				f := c.next()
				require.Equal(t, appendType, f.Type)
				n, ms := rowsOf(f)
				require.Equal(t, hosts, n)
				require.Equal(t, prev+TickEvery.Milliseconds(), ms, "the next batch or tick, once")
				prev = ms
			}
			assert.Equal(t, base.Add((history+during-1)*TickEvery).UnixMilli(), prev, "the last push's")
			st := a.Stats()
			assert.Equal(t, 1, st.LiveClients+st.AggClients, "the client is still served")
		})
	}
}
