package aggregator

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
)

// rawProducer serves a fixed list of encoded messages on each Subscribe,
// then holds the stream open.
type rawProducer struct {
	eventsv1.UnimplementedProducerServer
	msgs [][]byte
}

func (p rawProducer) Subscribe(_ *eventsv1.SubscribeRequest, st eventsv1.Producer_SubscribeServer) error {
	for _, m := range p.msgs {
		if err := st.SendMsg(&eventsv1.Raw{Data: m}); err != nil {
			return err
		}
	}
	<-st.Context().Done()
	return nil
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMalformedBatchesAreCountedAndTheirLogBounded: a message from the
// producer that is not an EventBatch is left out whole, counted
// (pond_aggregator_batches_malformed_total, stats.malformedBatches) and
// logged at most once a second, and the batches around it are taken.
// (Each was logged at error level, one line per batch, and counted
// nowhere.)
func TestMalformedBatchesAreCountedAndTheirLogBounded(t *testing.T) {
	now := time.Now().UnixMilli()
	good := func(host string) []byte {
		b, err := eventsv1.AppendEvents(nil, []*eventsv1.Event{{TimeMs: now, Cpu: 0.5, Requests: 1, Host: host}})
		require.NoError(t, err)
		return b
	}
	const bad = 100
	msgs := [][]byte{good("a")}
	for range bad {
		msgs = append(msgs, []byte{0x0a, 0x05, 0x08}) // an event cut short
	}
	msgs = append(msgs, good("b"))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(grpc.ForceServerCodecV2(eventsv1.Codec))
	eventsv1.RegisterProducerServer(srv, rawProducer{msgs: msgs})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)

	var logs syncBuffer
	a := newTestAggregator(t, Config{ProducerAddr: lis.Addr().String(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; a.Close() })
	eventually(t, "both good batches taken", func() bool { return a.Stats().Series.Ingested == 2 })

	assert.EqualValues(t, bad, a.Metrics().Stats.MalformedBatches)
	assert.Contains(t, scrape(t, a), "pond_aggregator_batches_malformed_total 100\n")
	assert.LessOrEqual(t, strings.Count(logs.String(), "malformed batch"), 2, "at most once a second")
	assert.Contains(t, logs.String(), "malformed batch")
}
