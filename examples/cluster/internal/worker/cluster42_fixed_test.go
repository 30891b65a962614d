package worker_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TestCl42APartitionRevokedTwiceWhileIdleIsRebuiltWhenItComesBack: the
// README promises that "Revoke or loss drops the partition's series" and
// that a partition's new owner replays from the last commit, so the rows
// of a run are those of one series per partition fed every event once,
// whatever the group does. Here worker A owns all four partitions and its
// input is quiet while B joins (A's partitions 2 of 4 revoked), leaves
// (they come back, replayed) and C joins (two revoked again). C then
// processes its two partitions' next ten seconds, leaves, and A gets them
// back. A never replays them: it feeds their next records to the series
// it held before C took them, and writes again, with other values, rows
// C had committed (and rows missing C's events).
//
// Cause (a guess): kgo's GroupTransactSession wraps OnPartitionsRevoked
// and OnPartitionsLost and returns early, without calling the user's
// callback, when its revoked (or lost) flag is already set; the flag is
// reset only by End. The worker runs no transaction while its input is
// quiet, so the second revoke never reaches Worker.note, the partitions
// stay in w.parts, and apply (worker.go, "if _, ok := w.parts[p]; !ok")
// keeps the stale, ready series when they are assigned again.
func TestCl42APartitionRevokedTwiceWhileIdleIsRebuiltWhenItComesBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	e := cl42Start(ctx, t, 4)
	rng := rand.New(rand.NewPCG(42, 1))
	e.produce(ctx, t, cl42Stream(rng, 4, 8, cl42T0, cl42T0+10_000, 100))
	a := cl42Run(t, e, "a", nil)
	e.waitCommitted(ctx, t, 20*time.Second)
	cl42WaitGroup(ctx, t, e, []*cl42Worker{a}, 1, 10*time.Second)

	b := cl42Run(t, e, "b", nil)
	cl42WaitGroup(ctx, t, e, []*cl42Worker{a, b}, 2, 10*time.Second)
	require.NoError(t, b.stop(t))
	cl42WaitGroup(ctx, t, e, []*cl42Worker{a}, 1, 10*time.Second)
	c := cl42Run(t, e, "c", nil)
	cl42WaitGroup(ctx, t, e, []*cl42Worker{a, c}, 2, 10*time.Second)
	held, taken := a.w.Stats().Assigned, c.w.Stats().Assigned
	for _, p := range taken {
		assert.NotContains(t, held, p, "A still holds a partition C was given (A %v, C %v)", held, taken)
	}

	e.produce(ctx, t, cl42Stream(rng, 4, 8, cl42T0+10_000, cl42T0+20_000, 100))
	e.waitCommitted(ctx, t, 20*time.Second)
	require.NoError(t, c.stop(t))
	cl42WaitGroup(ctx, t, e, []*cl42Worker{a}, 1, 10*time.Second)
	e.produce(ctx, t, cl42Stream(rng, 4, 8, cl42T0+20_000, cl42T0+30_000, 100))
	e.waitCommitted(ctx, t, 20*time.Second)
	require.NoError(t, a.stop(t))
	st := a.w.Stats()
	t.Logf("A: %d replays, %d rows suppressed, %d aborted", st.Replays, st.Suppressed, st.AbortedTxns)
	cl42Check(t, e, e.readOutput(ctx, t, 4))
}

// TestCl42AReplayWhoseRecordsHaveAllExpiredDoesNotStall: the README has
// the embedded cluster keep ten minutes of records ("enough for a
// replay"), and a real cluster's retention is its own; it promises that
// bad input gets an error or is counted, "never a stall". A partition
// whose every record has expired (a producer quiet for longer than the
// retention: brokers roll and delete the active segment too, so the log
// start offset reaches the end) is assigned to a new worker: its
// checkpoint's replay range [s, offset) holds no record any more. The
// replay (replay.go, worker.replay) polls until it sees the record at
// offset − 1, which will never come, blocks for its one-minute timeout
// (every other partition of the worker with it: Run polls nothing
// meanwhile, /readyz stays 503), then Run returns
// "worker: replay partition 0: context deadline exceeded" and the worker
// stops; the next owner does the same. Expected: the worker gets ready
// at once (nothing is left to replay) and goes on with the next records.
func TestCl42AReplayWhoseRecordsHaveAllExpiredDoesNotStall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	e := cl42Start(ctx, t, 1)
	rng := rand.New(rand.NewPCG(42, 2))
	e.produce(ctx, t, cl42Stream(rng, 1, 3, cl42T0, cl42T0+5_000, 100))
	a := cl42Run(t, e, "a", nil)
	e.waitCommitted(ctx, t, 20*time.Second)
	require.NoError(t, a.stop(t))

	// Every record is older than the retention (their event times are in
	// 2025): the log is emptied.
	ms := "60000"
	resps, err := e.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &ms}}, brokers.Input)
	require.NoError(t, err)
	require.NoError(t, resps[0].Err)
	e.c.ApplyRetention()
	starts, err := e.adm.ListStartOffsets(ctx, brokers.Input)
	require.NoError(t, err)
	s, _ := starts.Lookup(brokers.Input, 0)
	require.Equal(t, e.ends[0], s.Offset, "the log is empty")

	b := cl42Run(t, e, "b", nil)
	deadline := time.Now().Add(5 * time.Second)
	for !b.w.Ready() {
		select {
		case err := <-b.done:
			b.done <- err
			t.Fatalf("the worker stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s the worker is not ready: %+v", b.w.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	assert.Positive(t, b.w.Stats().ReplayExpired, "the deleted range is counted")
	now := time.Now().UnixMilli()
	e.produce(ctx, t, cl42Stream(rng, 1, 3, now, now+2_000, 100))
	e.waitCommitted(ctx, t, 10*time.Second)
}
