package worker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestARowTheBrokerRefusesAbortsItsTransaction: when the broker refuses
// an output row after the worker has produced it (its answer comes once
// the rows are handed over), the transaction is aborted and the poll done
// again, so every row is committed once. (The choice to commit was made
// before the rows were flushed, on the failures seen so far: a refusal
// that came later was committed over, and its rows were lost.)
func TestARowTheBrokerRefusesAbortsItsTransaction(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.GroupMinSessionTimeout(200*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	seeds := c.ListenAddrs()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := clientOn(ctx, t, seeds)
	st := threeHosts(t)
	recs := appendTicks(nil, st, 0, 30)
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())

	// The worker's first produce request is refused, a little late.
	var refused atomic.Bool
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		if refused.Swap(true) {
			return nil, nil, false
		}
		c.SleepControl(func() { time.Sleep(200 * time.Millisecond) })
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.InvalidRecord.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	stats := runUntilCommitted(ctx, t, seeds, kadm.NewClient(cl), "refused", int64(len(recs)))
	require.True(t, refused.Load(), "the control ran")
	assert.NotZero(t, stats.AbortedTxns, "the refused rows' transaction")

	want := oneSeriesRows(t, st, 30)
	got := readOutput(ctx, t, seeds)
	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.Equal(t, string(want[i].AppendJSON(nil)), string(got[i].AppendJSON(nil)), "row %d", i)
	}
}
