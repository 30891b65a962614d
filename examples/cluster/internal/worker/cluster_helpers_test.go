package worker

import (
	"context"
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// onEmbedded starts an embedded cluster with one-partition input and
// output topics and returns its addresses and a client on it; both close
// when the test ends.
func onEmbedded(ctx context.Context, t *testing.T) ([]string, *kgo.Client) {
	t.Helper()
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e.Addrs(), clientOn(ctx, t, e.Addrs())
}

// clientOn creates one-partition input and output topics on the cluster
// at seeds and returns a client on it, closed when the test ends.
func clientOn(ctx context.Context, t *testing.T, seeds []string) *kgo.Client {
	t.Helper()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, 1))
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// threeHosts is the stream the worker's tests produce: three hosts at ten
// events a second.
func threeHosts(t *testing.T) *events.Stream {
	t.Helper()
	st, err := events.NewStream(3, 10, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	return st
}

// inputRecord is an input record as the producer writes it: the host as
// its key, the event time (ms) as its timestamp.
func inputRecord(host string, ms int64, value []byte) *kgo.Record {
	return &kgo.Record{Topic: brokers.Input, Key: []byte(host), Value: value, Timestamp: time.UnixMilli(ms)}
}

// appendTicks appends the input records of ticks [from, to) of st.
func appendTicks(recs []*kgo.Record, st *events.Stream, from, to int64) []*kgo.Record {
	for k := from; k < to; k++ {
		for _, e := range st.Tick(nil, k) {
			recs = append(recs, inputRecord(e.Host, e.TimeMs, events.AppendValue(nil, &e)))
		}
	}
	return recs
}
