package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/twmb/franz-go/pkg/kgo"
)

// maxParallelReplays bounds the replays run at once.
const maxParallelReplays = 4

// replayPending rebuilds every assigned partition that is not ready.
func (w *Worker) replayPending(ctx context.Context) error {
	var todo []*part
	for _, pt := range w.parts {
		if !pt.ready {
			todo = append(todo, pt)
		}
	}
	if len(todo) == 0 {
		w.mu.Lock()
		w.m.readyKnown = len(w.pending) == 0
		w.mu.Unlock()
		return nil
	}
	cps, err := ReadCheckpoints(ctx, w.adm)
	if err != nil {
		return err
	}
	errs := make([]error, len(todo))
	sem := make(chan struct{}, maxParallelReplays)
	var wg sync.WaitGroup
	for i, pt := range todo {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			cp, ok := cps[pt.id]
			if !ok {
				cp = Checkpoint{Offset: 0, LastEventMs: -1, LastBoundaryMs: -1, ReplayFrom: -1}
			}
			errs[i] = w.rebuild(ctx, pt, cp)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rebuild gives pt a fresh series holding the windows as of checkpoint
// cp, by replaying the input from (cp.LastEventMs − LongestWindow) up to
// cp.Offset. The rows of the replay are dropped: the transaction that
// committed cp wrote them.
func (w *Worker) rebuild(ctx context.Context, pt *part, cp Checkpoint) error {
	started := time.Now()
	pipe, err := NewPipelineWith(w.cfg.MaxHosts)
	if err != nil {
		return err
	}
	var n uint64
	pt.marks = replayMarks{}
	if cp.Offset > 0 && cp.LastEventMs >= 0 {
		if n, err = w.replay(ctx, pt.id, pipe, cp, &pt.marks); err != nil {
			return err
		}
	}
	pt.pipe, pt.cp, pt.committedBoundary, pt.ready = pipe, cp, cp.LastBoundaryMs, true
	d := time.Since(started)
	w.mu.Lock()
	w.m.replays++
	w.m.replayedEvents += n
	w.m.lastReplay[pt.id] = replayStat{Events: n, Seconds: d.Seconds()}
	w.mu.Unlock()
	w.log.Info("partition ready", "partition", pt.id, "offset", cp.Offset, "replayed", n, "took", d)
	return nil
}

// replay feeds pipe the committed input of partition p with event times
// from cp.LastEventMs − LongestWindow and offsets below cp.Offset, from
// cp.ReplayFrom, or, for a checkpoint without it, from an offset found by
// timestamp; marks gets the replay's (see replayMarks).
func (w *Worker) replay(ctx context.Context, p int32, pipe *Pipeline, cp Checkpoint, marks *replayMarks) (uint64, error) {
	from := cp.LastEventMs - LongestWindow.Milliseconds()
	start := cp.ReplayFrom
	if start < 0 {
		var err error
		if start, err = w.replayStart(ctx, p, cp, from); err != nil {
			return 0, err
		}
	}
	if start >= cp.Offset {
		return 0, nil
	}
	// Records the topic's retention deleted cannot be read: start at the
	// first kept, or replay nothing when none of the range is kept (a
	// partition quiet for longer than the retention). Else the replay
	// would wait for a record that is gone until its timeout, and stop
	// the worker.
	starts, err := w.adm.ListStartOffsets(ctx, brokers.Input)
	if err != nil {
		return 0, fmt.Errorf("worker: replay partition %d: start offsets: %w", p, err)
	}
	ls, ok := starts.Lookup(brokers.Input, p)
	if !ok || ls.Err != nil {
		return 0, fmt.Errorf("worker: replay partition %d: no start offset: %v", p, ls.Err)
	}
	if ls.Offset > start {
		w.log.Warn("replay: the topic's retention deleted part of the range; the partition's windows start without those events",
			"partition", p, "from", start, "kept_from", ls.Offset, "to", cp.Offset)
		w.mu.Lock()
		w.m.replayExpired += uint64(min(ls.Offset, cp.Offset) - start)
		w.mu.Unlock()
		start = ls.Offset
		if start >= cp.Offset {
			return 0, nil
		}
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(w.cfg.Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{brokers.Input: {p: kgo.NewOffset().At(start)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxBytes(64<<20),
		kgo.FetchMaxPartitionBytes(64<<20),
	)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	w.log.Debug("replay", "partition", p, "from_ms", from, "start", start, "to", cp.Offset)
	var n uint64
	for done := false; !done; {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("worker: replay partition %d: %w", p, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if done || r.Offset >= cp.Offset {
				done = true
				return
			}
			pipe.AddRecord(r)
			marks.see(r.Offset, r.Timestamp.UnixMilli())
			n++
			if r.Offset == cp.Offset-1 {
				done = true
			}
		})
		// The replay's rows were committed with cp: drop them.
		if err := pipe.Discard(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// replayStart finds where a replay from event time from starts for a
// checkpoint that does not say (an earlier version's): the offset the
// broker gives for the time, narrowed by bisecting on the records, which
// assumes their timestamps do not decrease with the offset.
func (w *Worker) replayStart(ctx context.Context, p int32, cp Checkpoint, from int64) (int64, error) {
	listed, err := w.adm.ListOffsetsAfterMilli(ctx, from, brokers.Input)
	if err != nil {
		return 0, fmt.Errorf("worker: offsets after %d: %w", from, err)
	}
	lo, ok := listed.Lookup(brokers.Input, p)
	if !ok || lo.Err != nil {
		return 0, fmt.Errorf("worker: no offset after %d for partition %d: %v", from, p, lo.Err)
	}
	start := lo.Offset
	if start >= cp.Offset {
		return start, nil
	}
	// Brokers search timestamps by the running maximum of batch
	// timestamps, and transaction markers carry the broker's wall clock:
	// on a stream whose event time lags the wall clock (a replayed or
	// back-filled one) the answer can be far too early. It is a safe lower
	// bound; narrow it by bisecting on the records themselves.
	return w.bisectTime(ctx, p, start, cp.Offset, from)
}

// bisectEnough is the range below which reading beats probing.
const bisectEnough = 20000

// bisectTime returns an offset at most bisectEnough before the
// first record with a timestamp >= ms, assuming timestamps do not decrease with the offset,
// reading one small fetch per probe.
func (w *Worker) bisectTime(ctx context.Context, p int32, lo, hi, ms int64) (int64, error) {
	if hi-lo <= bisectEnough {
		return lo, nil
	}
	// Fetches of one byte return one batch: a probe reads little.
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(w.cfg.Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{brokers.Input: {p: kgo.NewOffset().At(lo)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxBytes(1), kgo.FetchMaxPartitionBytes(1),
	)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	for probes := 0; hi-lo > bisectEnough && probes < 64; probes++ {
		mid := lo + (hi-lo)/2
		ts, off, err := firstAt(ctx, cl, p, mid)
		if err != nil {
			return 0, err
		}
		if off < 0 || ts >= ms {
			hi = mid
		} else {
			lo = off + 1
		}
	}
	return lo, nil
}

// firstAt returns the timestamp and offset of the first committed record
// at or after offset at, or offset -1 when there is none.
func firstAt(ctx context.Context, cl *kgo.Client, p int32, at int64) (int64, int64, error) {
	cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{brokers.Input: {p: {Epoch: -1, Offset: at}}})
	for range 100 {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollRecords(pctx, 1)
		cancel()
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		for _, r := range fs.Records() {
			if r.Offset >= at {
				return r.Timestamp.UnixMilli(), r.Offset, nil
			}
		}
		if fs.NumRecords() == 0 {
			return 0, -1, nil
		}
	}
	return 0, -1, nil
}
