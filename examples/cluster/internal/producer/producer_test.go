package producer

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
)

// TestARestartedProducerResumesAfterASlowFirstFetch: a producer restarted
// on a loaded machine, whose first fetch of the input's tails comes back
// after the poll's timeout, still finds the last committed tick and goes on
// from the one after it, rather than taking the slow poll for an empty
// topic and sending the stream again from tick 0 (which the workers reject
// as rows out of order).
func TestARestartedProducerResumesAfterASlowFirstFetch(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, brokers.Input))
	require.NoError(t, err)
	defer c.Close()
	seeds := c.ListenAddrs()
	st, err := events.NewStream(8, 10, 1735689600000, 42)
	require.NoError(t, err)
	ctx := context.Background()

	first, err := New(ctx, Config{Brokers: seeds, Stream: st, Ticks: 5, TxnID: "p"})
	require.NoError(t, err)
	require.NoError(t, first.Run(ctx))

	// The next fetch is held for longer than a poll waits.
	var held atomic.Int32
	c.ControlKey(kmsg.Fetch.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		if held.Add(1) == 1 {
			c.SleepControl(func() { time.Sleep(1500 * time.Millisecond) })
		}
		c.DropControl()
		return nil, nil, false
	})
	last, err := LastCommittedTime(ctx, seeds)
	require.NoError(t, err)
	assert.Equal(t, st.Time(4).UnixMilli(), last, "the last committed tick's time")
	assert.Positive(t, held.Load(), "the fetch was held")

	again, err := New(ctx, Config{Brokers: seeds, Stream: st, Ticks: 5, TxnID: "p"})
	require.NoError(t, err)
	assert.Equal(t, int64(5), again.Stats().NextTick, "it goes on after the last committed tick")
}
