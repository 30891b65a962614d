package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
)

// clxSteady returns n records of one host, one every every ms from t0.
func clxSteady(host string, t0 int64, every int64, n int, cpu func(i int) float64) []clxRec {
	recs := make([]clxRec, n)
	for i := range n {
		recs[i] = clxRec{key: []byte(host), ms: t0 + int64(i)*every, value: clxValue(cpu(i), float64(i%7))}
	}
	return recs
}

// TestClxEventsBefore1970AreLeftOutAndCounted: a Kafka record's
// timestamp cannot be before 1970 (brokers refuse negative ones; the
// embedded one takes them), and the checkpoint's -1 means "no event" and
// "no row": events stamped before 1970 are left out and counted, as the
// README says, with a stream of good events after them taken as usual.
// (They were taken, and every row they made counted as suppressed, the
// -1 of a partition never committed read as a boundary already written;
// a replay of them was skipped for the same reason.)
func TestClxEventsBefore1970AreLeftOutAndCounted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seeds, cl := clxEmbedded(ctx, t)
	t0 := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	recs := clxSteady("host-1960", t0, 100, 30, func(i int) float64 { return 0.25 + float64(i%4)/8 })
	recs = append(recs, clxSteady("host-1970", 0, 100, 30, func(i int) float64 { return 0.5 })...)
	clxProduce(ctx, t, cl, recs, 1000)

	stats := clxRunUntil(ctx, t, seeds, "pre1970", int64(len(recs)), nil)
	want, left := clxModel(recs)
	require.Equal(t, 30, left, "the model leaves out the 1960 events")
	require.NotEmpty(t, want)
	assert.EqualValues(t, 30, stats.LeftOut)
	assert.Zero(t, stats.Suppressed, "README: pond_cluster_rows_suppressed_total stays 0")
	clxCheckRows(t, want, clxReadOutput(ctx, t, seeds))
}

// TestClxStaleRecordsDoNotShortenAReplay: the README promises that a
// partition's new owner "replays the last minute and goes on; no row
// lost or repeated", and that an input record older than the partition's
// latest is only left out and counted. When the partition holds more than
// 20,000 records between the broker's answer to ListOffsetsAfterMilli and
// the checkpoint, replay.go's bisectTime probes single records and takes
// one stamped before the replay's start time for "the start is after it"
// (lo = off + 1, replay.go:151); a stale record there (a producer
// re-sending old data, a host whose clock is minutes behind) makes it
// skip the in-window records before it. Here: one host, an event every
// 12 ms for 60 s, with 36,000 records of another host stamped two minutes
// back after its first 30 s; a worker commits all of it, the next owner
// starts its replay inside the stale block, misses the events of 0–30 s,
// and the rows of the next second (whose 1m windows hold them) come out
// with too small counts.
func TestClxStaleRecordsDoNotShortenAReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seeds, cl := clxEmbedded(ctx, t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	cpu := func(i int) float64 { return float64(i%10) / 10 }
	good := clxSteady("host-good", t0, 12, 5100, cpu) // 61.2 s
	stale := clxSteady("host-stale", t0+30_000-120_000, 0, 36_000, cpu)
	var first []clxRec
	first = append(first, good[:2500]...) // 0–30 s
	first = append(first, stale...)
	first = append(first, good[2500:5000]...) // 30–60 s
	clxProduce(ctx, t, cl, first, 6000)
	clxRunUntil(ctx, t, seeds, "first", int64(len(first)), nil)

	second := good[5000:] // 60–61.2 s
	clxProduce(ctx, t, cl, second, 6000)
	stats := clxRunUntil(ctx, t, seeds, "second", int64(len(first)+len(second)), nil)
	t.Logf("replayed %d events", stats.ReplayedEvents)

	all := append(append([]clxRec(nil), first...), second...)
	want, left := clxModel(all)
	require.Equal(t, len(stale), left)
	clxCheckRows(t, want, clxReadOutput(ctx, t, seeds))
}

// TestClxAnOffsetCommittedWithoutACheckpointDoesNotStallTheWorker: an
// operator resets the group's input offset with the usual tools
// (kafka-consumer-groups --reset-offsets, kadm CommitOffsets), which
// commit no metadata, or with metadata of their own. The worker then
// neither goes on nor says why: ReadCheckpoints (checkpoint.go) treats
// the parse error of the metadata like a pending commit and asks again
// until its context ends, so replayPending never returns, Run never polls
// again (the group still sees a live member, so no one else takes the
// partitions, the valid ones included), /readyz stays 503, and nothing
// is logged. Expected: within a few seconds either Run returns an error
// naming the offset metadata, or the worker goes on from the committed
// offset.
func TestClxAnOffsetCommittedWithoutACheckpointDoesNotStallTheWorker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seeds, cl := clxEmbedded(ctx, t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	recs := clxSteady("host-reset", t0, 100, 100, func(i int) float64 { return 0.5 })
	clxProduce(ctx, t, cl, recs, 100)
	var offs kadm.Offsets
	offs.Add(kadm.Offset{Topic: brokers.Input, Partition: 0, At: 50, LeaderEpoch: -1})
	resp, err := kadm.NewClient(cl).CommitOffsets(ctx, brokers.Group, offs)
	require.NoError(t, err)
	require.NoError(t, resp.Error())

	w, err := worker.New(worker.Config{Brokers: seeds, ID: "after-reset"})
	require.NoError(t, err)
	defer w.Close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	adm := kadm.NewClient(cl)
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			require.Error(t, err, "Run returned without an error")
			assert.Contains(t, err.Error(), "metadata")
			return
		case <-tick.C:
			o, err := adm.FetchOffsets(ctx, brokers.Group)
			require.NoError(t, err)
			if r, ok := o.Lookup(brokers.Input, 0); ok && r.At >= int64(len(recs)) {
				return // it went on from the reset offset
			}
		case <-deadline.C:
			stop()
			<-done
			t.Fatalf("after 5 s the worker neither went on nor failed: %+v", w.Stats())
		}
	}
}
