package brokers_test

import (
	"context"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClxAnInputWithAnotherPartitionCountIsRefused: the README's
// -partitions "(an existing input with another count is an error)":
// creating the topics again with the count they have is fine, with
// another one an error naming the topic and both counts.
func TestClxAnInputWithAnotherPartitionCountIsRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	defer e.Close()
	require.NoError(t, brokers.CreateTopics(ctx, e.Addrs(), 3))
	require.NoError(t, brokers.CreateTopics(ctx, e.Addrs(), 3), "the same count again")
	for _, n := range []int32{1, 4, 12} {
		err := brokers.CreateTopics(ctx, e.Addrs(), n)
		require.Error(t, err, "%d partitions", n)
		assert.Contains(t, err.Error(), `"metrics" has 3 partitions`)
	}
}
