package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestAStopDuringATransactionEndsIt: a worker told to stop after a
// transaction's rows are produced, before it ends, still ends it, so no
// transaction holds back read-committed readers of the output (until the
// coordinator's timeout, a minute here), and the rows it committed are the
// ones its checkpoint covers.
func TestAStopDuringATransactionEndsIt(t *testing.T) {
	ctx, cancelSetup := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancelSetup()
	seeds, cl := onEmbedded(ctx, t)
	adm := kadm.NewClient(cl)
	produceTicks(ctx, t, cl, 30)

	w, err := New(Config{
		Brokers: seeds, ID: "stopped",
		SessionTimeout: time.Second, RebalanceTimeout: 3 * time.Second, TransactionTimeout: time.Minute,
	})
	require.NoError(t, err)
	t.Cleanup(w.Close)
	runCtx, stop := context.WithCancel(context.Background())
	defer stop()
	var once sync.Once
	w.beforeEnd = func(n int) {
		if n == 0 {
			return
		}
		once.Do(func() {
			// The rows are on the broker, in the open transaction.
			require.NoError(t, w.sess.Client().Flush(ctx))
			stop()
		})
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop")
	}
	w.Close()

	stable, err := adm.ListCommittedOffsets(ctx, brokers.Output)
	require.NoError(t, err)
	end, err := adm.ListEndOffsets(ctx, brokers.Output)
	require.NoError(t, err)
	require.NoError(t, end.Error())
	end.Each(func(o kadm.ListedOffset) {
		s, _ := stable.Lookup(o.Topic, o.Partition)
		assert.Equal(t, o.Offset, s.Offset, "partition %d: last stable offset below the end (a transaction is open)", o.Partition)
	})
	cps, err := ReadCheckpoints(ctx, adm)
	require.NoError(t, err)
	got := readOutput(ctx, t, seeds)
	require.NotEmpty(t, got, "the stopped transaction's rows")
	assert.Equal(t, cps[0].LastBoundaryMs, got[len(got)-1].BoundaryMs)
}

// produceTicks writes the first ticks of a three-host stream into the
// input, as the producer does (key = host, timestamp = event time).
func produceTicks(ctx context.Context, t *testing.T, cl *kgo.Client, ticks int64) {
	require.NoError(t, cl.ProduceSync(ctx, appendTicks(nil, threeHosts(t), 0, ticks)...).FirstErr())
}

// readOutput reads the output topic read-committed up to its last stable
// offset.
func readOutput(ctx context.Context, t *testing.T, seeds []string) []rows.Row {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Output),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	stable, err := kadm.NewClient(cl).ListCommittedOffsets(ctx, brokers.Output)
	require.NoError(t, err)
	s, _ := stable.Lookup(brokers.Output, 0)
	var out []rows.Row
	for next := int64(0); next < s.Offset; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			next = max(next, p.LastStableOffset)
			for _, r := range p.Records {
				row, err := rows.Decode(r.Value)
				require.NoError(t, err)
				out = append(out, row)
			}
		})
	}
	return out
}
