// Package worker is a member of the cluster's consumer group. For each
// input partition it is assigned it keeps one pond-go series (see
// pipeline.go), fed in offset order, and writes every row the series
// emits to the output topic in a transaction that also commits the input
// offsets (franz-go's GroupTransactSession), so each (host, boundary) row
// is committed exactly once.
//
// # Recovery
//
// A committed transaction records, per partition, the last event time and
// the last boundary it covers (see [Checkpoint]). When a partition is
// assigned, the worker rebuilds its series by reading the input from the
// offset of (last event time − longest window) up to the committed offset
// and throws the rows of that replay away: they were committed by the
// transaction that committed the offset. It then goes on from the
// committed offset. On revoke or loss it drops the partition's series,
// and it rebuilds every partition assigned (see Worker.apply); an
// aborted transaction drops and rebuilds every series it touched, since
// the session rewinds their offsets to the last commit. A transaction
// that cannot be ended at all replaces the session (see Worker.Run).
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Config is a worker's settings.
type Config struct {
	Brokers []string
	// ID names the worker; its transactional ID is "pond-worker-" + ID.
	ID string
	// SessionTimeout, RebalanceTimeout and TransactionTimeout default to
	// 10 s, 20 s and 10 s. Tests shorten them to see a crash quickly.
	SessionTimeout, RebalanceTimeout, TransactionTimeout time.Duration
	// MaxPollRecords bounds one transaction's input (default 50,000).
	MaxPollRecords int
	// MaxHosts bounds the hosts each assigned partition's series tracks
	// at once (default DefaultMaxHosts; see NewPipelineWith).
	MaxHosts int
	Logger   *slog.Logger
	// Opts are extra client options for the group client (tests pass a
	// dialer that can cut every connection, as a crash does).
	Opts []kgo.Opt
}

// change is a group callback's news, applied by the poll loop.
type change struct {
	sess     uint64 // the session whose callback it is
	parts    []int32
	assigned bool // else revoked or lost
}

// Worker is one group member.
type Worker struct {
	cfg  Config
	sess *kgo.GroupTransactSession // replaced by restart; swapped under mu
	// sessN numbers the sessions: a group callback of an earlier one is
	// ignored (owned by the poll loop once Run has begun).
	sessN uint64
	adm   *kadm.Client // on its own plain client
	admc  *kgo.Client
	log   *slog.Logger

	closeOnce sync.Once

	mu     sync.Mutex
	closed bool
	// sessClosed: restart closed sess and has not replaced it yet.
	sessClosed bool
	pending    []change
	m          metrics

	parts map[int32]*part // owned by the poll loop
	out   []rows.Row

	// beforeEnd, when set (by tests), runs in each transaction after its
	// rows are produced and before it ends, with their number.
	beforeEnd func(rows int)
}

// part is the state of one assigned input partition.
type part struct {
	id    int32
	pipe  *Pipeline
	ready bool
	cp    Checkpoint // as of the last event processed (committed or not)
	// committedBoundary is the last boundary a committed transaction wrote:
	// rows up to it are never written again.
	committedBoundary int64
	touched           bool // processed in the open transaction
	// marks says where a replay of the partition starts (see replayMarks).
	marks replayMarks
}

// New connects a worker and joins the group.
func New(cfg Config) (*Worker, error) {
	if cfg.ID == "" {
		return nil, errors.New("worker: an ID is required")
	}
	cfg.SessionTimeout = cmp(cfg.SessionTimeout, 10*time.Second)
	cfg.RebalanceTimeout = cmp(cfg.RebalanceTimeout, 20*time.Second)
	cfg.TransactionTimeout = cmp(cfg.TransactionTimeout, 10*time.Second)
	if cfg.MaxPollRecords <= 0 {
		cfg.MaxPollRecords = 50000
	}
	if cfg.MaxHosts <= 0 {
		cfg.MaxHosts = DefaultMaxHosts
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Worker{cfg: cfg, parts: map[int32]*part{}, log: cfg.Logger.With("worker", cfg.ID)}
	w.m.init()
	sess, err := w.newSession(1)
	if err != nil {
		return nil, err
	}
	admc, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...))
	if err != nil {
		sess.Close()
		return nil, err
	}
	w.sess, w.sessN, w.admc, w.adm = sess, 1, admc, kadm.NewClient(admc)
	return w, nil
}

// newSession joins the group with a fresh client whose callbacks are
// tagged n.
func (w *Worker) newSession(n uint64) (*kgo.GroupTransactSession, error) {
	cfg := w.cfg
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(brokers.Group),
		kgo.ConsumeTopics(brokers.Input),
		kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.TransactionalID("pond-worker-" + cfg.ID),
		kgo.TransactionTimeout(cfg.TransactionTimeout),
		kgo.SessionTimeout(cfg.SessionTimeout),
		kgo.HeartbeatInterval(min(cfg.SessionTimeout/5, 3*time.Second)),
		kgo.RebalanceTimeout(cfg.RebalanceTimeout),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DefaultProduceTopic(brokers.Output),
		kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(1 << 20),
		kgo.FetchMaxBytes(64 << 20),
		kgo.FetchMaxPartitionBytes(16 << 20),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			w.note(change{sess: n, parts: m[brokers.Input], assigned: true})
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			w.note(change{sess: n, parts: m[brokers.Input]})
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			w.note(change{sess: n, parts: m[brokers.Input]})
		}),
	}, cfg.Opts...)
	return kgo.NewGroupTransactSession(opts...)
}

func cmp(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (w *Worker) note(c change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, c)
	w.m.rebalances++
	w.m.readyKnown = false
}

// Close leaves the group cleanly (its partitions move at once). It may
// be called more than once.
func (w *Worker) Close() {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		sess, done := w.sess, w.sessClosed
		w.mu.Unlock()
		if !done {
			sess.Close()
		}
		w.admc.Close()
	})
}

// maxRestarts bounds the session restarts in a row without a committed
// transaction between them.
const maxRestarts = 5

// fatal reports whether a transaction's error means another process
// holds the worker's transactional ID or the broker refuses it: a
// restart would fence that process, or fail the same way.
func fatal(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) ||
		errors.Is(err, kerr.TransactionalIDAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed) ||
		errors.Is(err, kerr.GroupAuthorizationFailed)
}

// restart replaces a session whose transaction could not be ended (a
// broker slower than the transaction timeout, a join that never
// answered: franz-go leaves the client in no known state after End
// fails) with a fresh one, as a crash and restart of the process would,
// without stopping the process: the old client leaves the group, the
// new one's producer ID fences the old transaction (the coordinator
// aborts it), and every partition the new session is assigned is
// rebuilt from its checkpoint. It returns the first error again when
// the error is fatal, the worker was closed, or the restarts in a row
// ran out.
func (w *Worker) restart(ctx context.Context, cause error, inARow int) error {
	if fatal(cause) || inARow >= maxRestarts {
		return cause
	}
	w.log.Warn("restarting the worker's session", "err", cause, "restart", inARow+1)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return cause
	}
	old := w.sess
	w.sessClosed = true // Close now leaves old alone
	w.mu.Unlock()
	old.Close()
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(time.Duration(1<<inARow) * 250 * time.Millisecond):
	}
	n := w.sessN + 1
	sess, err := w.newSession(n)
	if err != nil {
		return errors.Join(cause, err)
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		sess.Close()
		return cause
	}
	w.adopt(sess, n)
	w.mu.Unlock()
	clear(w.parts)
	w.listParts()
	return nil
}

// adopt makes sess, numbered n, the worker's session (w.mu held). The
// closed session's news are dropped; the new one's are kept for the poll
// loop's apply: the session joins the group as it is made, so its first
// assignment, or a revoke, may have come already, and a revoke the loop
// never heard of would leave the session's first-revoke flag set (see
// rearm) and every later revoke unheard.
func (w *Worker) adopt(sess *kgo.GroupTransactSession, n uint64) {
	w.sess, w.sessN, w.sessClosed = sess, n, false
	w.pending = slices.DeleteFunc(w.pending, func(c change) bool { return c.sess != n })
	w.m.restarts++
	w.m.readyKnown = false
}

// Run consumes, computes and commits until ctx ends or the session fails
// for good: a transaction that cannot be begun or ended replaces the
// session (up to five times in a row without a commit between), unless
// the producer was fenced or refused (see restart).
func (w *Worker) Run(ctx context.Context) error {
	restarts := 0 // in a row, without a commit between them
	stopOr := func(err error) error {
		if ctx.Err() != nil {
			return nil
		}
		if err = w.restart(ctx, err, restarts); err != nil {
			w.log.Error("worker stops", "err", err)
			w.Close()
			return err
		}
		restarts++
		return nil
	}
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		fs := w.sess.PollRecords(pctx, w.cfg.MaxPollRecords)
		cancel()
		if fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				w.log.Warn("fetch error", "topic", t, "partition", p, "err", err)
			}
		})
		if w.apply() && fs.NumRecords() == 0 {
			if err := w.rearm(ctx); err != nil {
				if err := stopOr(err); err != nil {
					return err
				}
				continue
			}
		}
		if err := w.replayPending(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if fs.NumRecords() == 0 {
			continue
		}
		committed, err := w.transact(ctx, fs)
		if err != nil {
			// The transactional producer is unusable (fenced, timed out
			// by the coordinator, or End gave up): leave the group now,
			// so that the partitions move to a live member instead of
			// staying with a client that still heartbeats, and come
			// back with a fresh session unless another process holds
			// the ID.
			if err := stopOr(err); err != nil {
				return err
			}
			continue
		}
		if committed {
			restarts = 0
		}
	}
	return nil
}

// apply takes the group callbacks' news: new partitions wait for their
// replay, revoked and lost ones are dropped. It reports whether any were
// revoked or lost.
//
// A partition assigned is always rebuilt, even one the worker still
// holds: the session passes on only the first revoke (or loss) between
// two ends of a transaction (see rearm), so a partition taken away
// again before then, worked on by another member and given back, would
// otherwise go on from the series as it was before the other member's
// rows.
func (w *Worker) apply() (dropped bool) {
	w.mu.Lock()
	pending := w.pending
	w.pending = nil
	w.mu.Unlock()
	for _, c := range pending {
		if c.sess != w.sessN {
			continue // a callback of a session restart closed
		}
		for _, p := range c.parts {
			if c.assigned {
				w.parts[p] = &part{id: p}
			} else {
				delete(w.parts, p)
				dropped = true
			}
		}
	}
	w.listParts()
	return dropped
}

// listParts publishes the partitions the worker holds (Stats.Assigned)
// and forgets the metrics of those it no longer holds.
func (w *Worker) listParts() {
	w.mu.Lock()
	w.m.assigned = w.m.assigned[:0]
	for p := range w.parts {
		w.m.assigned = append(w.m.assigned, p)
	}
	slices.Sort(w.m.assigned)
	for p := range w.m.lag {
		if w.parts[p] == nil {
			delete(w.m.lag, p) // another member reports it now
		}
	}
	for p := range w.m.lastReplay {
		if w.parts[p] == nil {
			delete(w.m.lastReplay, p)
		}
	}
	w.mu.Unlock()
}

// rearm ends an empty transaction, after a revoke or loss that came
// while the worker had nothing to process. franz-go's
// GroupTransactSession passes the first revoke (and the first loss) on
// to the worker and keeps the next ones to itself until End, since it
// only needs to know that the open transaction must abort; a worker
// that runs no transaction for a while would then not hear of
// partitions taken from it again, keep their series and go on listing
// them as its own. Nothing was polled since the last commit, so the
// abort's rewind to the committed offsets moves nothing.
func (w *Worker) rearm(ctx context.Context) error {
	if err := w.sess.Begin(); err != nil {
		return fmt.Errorf("worker: begin: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.TransactionTimeout)
	defer cancel()
	if _, err := w.sess.End(ctx, kgo.TryAbort); err != nil {
		return fmt.Errorf("worker: end an empty transaction: %w", err)
	}
	return nil
}

// transact processes one poll's records in one transaction.
//
// A transaction begun is always ended, even when ctx is cancelled (the
// worker told to stop): the session gives up on a cancelled context before
// its EndTxn, and a transaction left open holds back every read-committed
// reader of the output partitions it wrote to, rows committed after it by
// the partitions' next owners included, until the coordinator aborts it
// when its timeout runs out. Its records are produced under the same
// context, so that a stop cannot fail some of them after the choice to
// commit; the wait is bounded by the transaction timeout, past which the
// coordinator aborts the transaction anyway.
func (w *Worker) transact(ctx context.Context, fs kgo.Fetches) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.TransactionTimeout)
	defer cancel()
	if err := w.sess.Begin(); err != nil {
		return false, fmt.Errorf("worker: begin: %w", err)
	}
	var (
		produceErr error
		errMu      sync.Mutex
		nRows      int
		suppressed uint64
		leftOut    uint64 // counted once the transaction commits
		samplesOut uint64 // cpu samples rows left out, the same
		boundaries []int64
	)
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			errMu.Lock()
			produceErr = errors.Join(produceErr, err)
			errMu.Unlock()
		}
	}
	fs.EachPartition(func(fp kgo.FetchTopicPartition) {
		pt := w.parts[fp.Partition]
		if pt == nil || !pt.ready || len(fp.Records) == 0 {
			return // revoked meanwhile: the session aborts this transaction
		}
		pt.touched = true
		dropped := pt.pipe.Dropped()
		for _, r := range fp.Records {
			pt.pipe.AddRecord(r)
			pt.marks.see(r.Offset, r.Timestamp.UnixMilli())
		}
		last := fp.Records[len(fp.Records)-1]
		pt.cp.Offset = last.Offset + 1
		w.mu.Lock()
		w.m.setLag(fp.Partition, fp.HighWatermark-pt.cp.Offset)
		w.mu.Unlock()
		var err error
		w.out, err = pt.pipe.Flush(w.out[:0])
		if err != nil {
			w.log.Error("push rejected", "partition", fp.Partition, "err", err)
		}
		// The replay starts a window before the latest event the series
		// took, not the last record read: that one may have been left out
		// (a timestamp after 2116 put the start past every record, one
		// before 1970 skipped the replay).
		if ms, ok := pt.pipe.LatestMs(); ok {
			pt.cp.LastEventMs = ms
		}
		if d := pt.pipe.Dropped() - dropped; d > 0 {
			w.log.Warn("input events left out: a value not 16 bytes or not finite, a timestamp out of range, older than the partition's latest, or of a new host past -max-hosts",
				"partition", fp.Partition, "events", d, "offsets", fmt.Sprintf("%d-%d", fp.Records[0].Offset, last.Offset))
			leftOut += d
		}
		part := []byte(strconv.Itoa(int(fp.Partition)))
		for i := range w.out {
			row := &w.out[i]
			if row.BoundaryMs <= pt.committedBoundary {
				suppressed++
				continue
			}
			pt.cp.LastBoundaryMs = max(pt.cp.LastBoundaryMs, row.BoundaryMs)
			w.sess.Produce(ctx, &kgo.Record{
				Key:   []byte(row.Host),
				Value: row.AppendJSON(nil),
				Headers: []kgo.RecordHeader{
					{Key: rows.HeaderBoundary, Value: strconv.AppendInt(nil, row.BoundaryMs, 10)},
					{Key: rows.HeaderPartition, Value: part},
				},
			}, promise)
			nRows++
			boundaries = append(boundaries, row.BoundaryMs)
			samplesOut += uint64(row.CPUSamplesLeftOut)
		}
	})
	if w.beforeEnd != nil {
		w.beforeEnd(nRows)
	}
	// A row the broker refuses fails its promise when its produce request
	// is answered, after Produce has returned, and End does not look at
	// promises: flush first, so that the choice to commit sees every row's
	// answer. (A refusal that came after the choice was committed over,
	// with the offsets of the rows it lost.)
	flushErr := w.sess.Client().Flush(ctx)
	errMu.Lock()
	failed := produceErr
	errMu.Unlock()
	commit := kgo.TryCommit
	if failed != nil || flushErr != nil {
		commit = kgo.TryAbort
	}
	committed, err := w.sess.End(kgo.PreTxnCommitFnContext(ctx, w.stampMetadata), commit)
	if failed != nil || flushErr != nil {
		w.log.Warn("produce failed; transaction aborted", "err", errors.Join(failed, flushErr))
	}
	now := time.Now()
	for _, pt := range w.parts {
		if !pt.touched {
			continue
		}
		pt.touched = false
		if committed && err == nil {
			pt.committedBoundary = pt.cp.LastBoundaryMs
		} else {
			// The session rewinds to the last commit: rebuild from there.
			pt.ready, pt.pipe = false, nil
		}
	}
	w.mu.Lock()
	w.m.suppressed += suppressed
	if committed {
		w.m.committedTxns++
		w.m.rowsOut += uint64(nRows)
		w.m.leftOut += leftOut
		w.m.samplesLeftOut += samplesOut
		for _, b := range boundaries {
			w.m.latency.add(float64(now.UnixMilli() - b))
		}
	} else {
		w.m.abortedTxns++
	}
	w.mu.Unlock()
	if errors.Is(err, errStateMismatch) {
		w.log.Error("transaction aborted", "err", err)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("worker: end transaction: %w", err)
	}
	return committed, nil
}

// errStateMismatch aborts a commit whose offsets are not the state the
// worker holds (it never should happen; the partitions are rebuilt).
var errStateMismatch = errors.New("worker: commit does not match the series")

// stampMetadata writes each partition's checkpoint into the offset
// commit. It runs under the client's transaction lock and only edits the
// request.
func (w *Worker) stampMetadata(req *kmsg.TxnOffsetCommitRequest) error {
	for i := range req.Topics {
		t := &req.Topics[i]
		if t.Topic != brokers.Input {
			continue
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			pt := w.parts[p.Partition]
			if pt == nil || !pt.ready || pt.cp.Offset != p.Offset {
				// Not ours to describe: this commit cannot stand for
				// a state we hold, so refuse it (the session aborts).
				return fmt.Errorf("%w: partition %d commits offset %d", errStateMismatch, p.Partition, p.Offset)
			}
			pt.cp.ReplayFrom = -1
			if s, ok := pt.marks.start(pt.cp.LastEventMs - LongestWindow.Milliseconds()); ok {
				pt.cp.ReplayFrom = s
			}
			md := pt.cp.metadata()
			p.Metadata = &md
		}
	}
	return nil
}
