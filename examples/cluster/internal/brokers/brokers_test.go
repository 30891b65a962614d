package brokers

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTheEmbeddedClusterKeepsOnlyWhatRetainSays: with Retain, a record
// stamped before the horizon leaves the embedded log at the next cleaning
// and a recent one stays; without it kfake kept every record for ever, in
// memory.
func TestTheEmbeddedClusterKeepsOnlyWhatRetainSays(t *testing.T) {
	e, err := StartEmbedded()
	require.NoError(t, err)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, CreateTopics(ctx, e.Addrs(), 1))
	require.NoError(t, e.Retain(ctx, 10*time.Minute))

	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...), kgo.DefaultProduceTopic(Input))
	require.NoError(t, err)
	defer cl.Close()
	// Four old records of 400 kB, over more than one segment, then a
	// recent one.
	now := time.Now()
	old := make([]byte, 400<<10)
	for range 4 {
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: old, Timestamp: now.Add(-20 * time.Minute)}).FirstErr())
	}
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v"), Timestamp: now}).FirstErr())
	e.c.ApplyRetention() // what the minute's cleaning does
	starts, err := kadm.NewClient(cl).ListStartOffsets(ctx, Input)
	require.NoError(t, err)
	start, ok := starts.Lookup(Input, 0)
	require.True(t, ok)
	assert.EqualValues(t, 4, start.Offset, "the records 20 minutes old are gone, the recent one stays")
}
