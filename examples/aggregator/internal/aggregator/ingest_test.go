package aggregator

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// A batch the reader decoded into columns of its own, and that the
// series takes whole, becomes the /live append without a copy; any other
// batch is copied, and the append holds exactly the rows taken.
func TestTheLiveAppendKeepsAnOwnedBatchTakenWhole(t *testing.T) {
	future := 50 * 365 * 24 * time.Hour
	cases := []struct {
		name     string
		ordering live.Ordering
		owned    bool
		rows     []row
		shared   bool
		taken    []string // hosts of the rows in the append
	}{
		{"strict, owned, every row taken", live.Strict, true,
			[]row{{time.Second, 0.5, 1, "a"}, {time.Second, 0.6, 2, "b"}}, true, []string{"a", "b"}},
		{"strict, not owned", live.Strict, false,
			[]row{{time.Second, 0.5, 1, "a"}, {time.Second, 0.6, 2, "b"}}, false, []string{"a", "b"}},
		{"strict, owned, a future row refused", live.Strict, true,
			[]row{{time.Second, 0.5, 1, "a"}, {future, 0.6, 2, "b"}}, false, []string{"a"}},
		{"drop, owned, a late row dropped", live.Drop, true,
			[]row{{time.Second, 0.5, 1, "a"}, {0, 0.6, 2, "b"}, {time.Second, 0.7, 3, "c"}}, false, []string{"a", "c"}},
		{"reorder, owned, every row taken", live.Reorder, true,
			[]row{{time.Second, 0.5, 1, "a"}, {500 * time.Millisecond, 0.6, 2, "b"}}, false, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAggregator(t, Config{Logger: quietLogger, Ordering: tc.ordering, Grace: 10 * time.Second})
			var names hostNames
			z := batchOf(row{500 * time.Millisecond, 0.1, 1, "z"})
			require.NoError(t, a.push(z, time.Now(), ownedOf(&names, z)))
			b := batchOf(tc.rows...)
			var own *owned
			if tc.owned {
				own = ownedOf(&names, b)
			}
			require.NoError(t, a.push(b, time.Now(), own))
			// The reader reuses a pushed batch's host column: the chunk
			// must not see it change.
			for i := range b.Cols[2].Str {
				b.Cols[2].Str[i] = "reused"
			}
			chunks := a.raw.all()
			require.Len(t, chunks, 2)
			c := chunks[1]
			assert.Equal(t, tc.taken, chunkHosts(c))
			require.NotEmpty(t, c.times)
			assert.Equal(t, tc.shared, &c.times[0] == &b.Time[0], "times shared with the batch")
			assert.Equal(t, tc.shared, &c.cpu[0] == &b.Cols[0].Num[0], "cpu shared with the batch")
			assert.Equal(t, tc.shared, &c.req[0] == &b.Cols[1].Num[0], "requests shared with the batch")
			if tc.owned {
				assert.Equal(t, tc.shared, &c.host[0] == &own.ids[0], "host indices shared with the reader's")
			}
		})
	}
}

// fakeStream serves encoded batches to the reader, one per RecvMsg, and
// blocks once it has served them all until its context ends.
type fakeStream struct {
	eventsv1.Producer_SubscribeClient
	ctx      context.Context
	data     [][]byte
	received atomic.Int64
}

func (f *fakeStream) RecvMsg(m any) error {
	n := f.received.Load()
	if int(n) >= len(f.data) {
		<-f.ctx.Done()
		return f.ctx.Err()
	}
	m.(*eventsv1.Raw).Data = append(m.(*eventsv1.Raw).Data[:0], f.data[n]...)
	f.received.Add(1)
	return nil
}

// The reader receives and decodes batches while nobody pushes them, up to
// readAhead waiting, each in columns of its own, and stops when its
// context ends.
func TestTheReaderDecodesAheadOfThePusherUpToItsBound(t *testing.T) {
	a := newTestAggregator(t, Config{Logger: quietLogger})
	ctx, cancel := context.WithCancel(context.Background())
	st := &fakeStream{ctx: ctx}
	for i := range 3 * readAhead {
		data, err := proto.Marshal(&eventsv1.EventBatch{Events: []*eventsv1.Event{
			{TimeMs: int64(1000 * i), Cpu: float64(i), Requests: int64(i), Host: "a"},
			{TimeMs: int64(1000 * i), Cpu: float64(i), Requests: int64(i), Host: "b"},
		}})
		require.NoError(t, err)
		st.data = append(st.data, data)
	}
	batches := make(chan decoded, readAhead)
	spare := make(chan []string, 1)
	done := make(chan error, 1)
	go func() { done <- a.read(ctx, st, batches, spare) }()

	// readAhead batches wait, and the reader holds one more, received.
	eventually(t, "the reader to fill its queue", func() bool { return st.received.Load() == readAhead+1 })
	time.Sleep(20 * time.Millisecond)
	assert.EqualValues(t, readAhead+1, st.received.Load(), "the reader stops at its bound")
	require.Len(t, batches, readAhead)

	// A host column handed back is the next batch decoded (the reader
	// holds one decoded already).
	back := make([]string, 0, 8)
	spare <- back
	var got []decoded
	for range readAhead {
		d := <-batches
		require.NoError(t, d.err)
		got = append(got, d)
	}
	for i, d := range got {
		b := d.b
		assert.Equal(t, []int64{int64(i) * int64(time.Second), int64(i) * int64(time.Second)}, b.Time)
		assert.Equal(t, []string{"a", "b"}, b.Cols[2].Str)
		assert.True(t, d.own.indexed)
		assert.Equal(t, []string{"a", "b"}, []string{d.own.names[d.own.ids[0]], d.own.names[d.own.ids[1]]})
		if i > 0 {
			assert.NotSame(t, &got[i-1].b.Time[0], &b.Time[0], "each batch has columns of its own")
			assert.NotSame(t, &got[i-1].own.ids[0], &d.own.ids[0], "and host indices of its own")
		}
	}
	d := <-batches // received before, decoded into a column of its own
	require.NoError(t, d.err)
	d = <-batches
	require.NoError(t, d.err)
	assert.Same(t, &back[:1][0], &d.b.Cols[2].Str[0], "the spare host column is reused")
	assert.Equal(t, []string{"a", "b"}, d.b.Cols[2].Str)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the reader did not stop when its context ended")
	}
}

// ownedOf is what the reader decodes beside b: its hosts' indices in
// names.
func ownedOf(names *hostNames, b *schema.Batch) *owned {
	names.roll()
	own := &owned{indexed: true}
	for _, h := range b.Cols[2].Str {
		own.ids = append(own.ids, names.idOf(h))
	}
	own.names = names.view()
	return own
}

// chunkHosts returns the hosts of a /live chunk's rows.
func chunkHosts(c *rawChunk) []string {
	var hs []string
	for i := range c.host {
		hs = append(hs, c.hostAt(i))
	}
	return hs
}
