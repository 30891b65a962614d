package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/producer"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The fixed stream of the golden, chaos and oracle tests: 24 hosts at 10
// events/s for 80 s of event time (longer than the 1m window, so replays
// start from a timestamp, not from the beginning).
const (
	testHosts = 24
	testRate  = 10
	testTicks = 800
)

func testStream(t testing.TB) *events.Stream {
	st, err := events.NewStream(testHosts, testRate, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	return st
}

// startKafka starts an embedded cluster with the topics.
func startKafka(t testing.TB) []string {
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	t.Cleanup(e.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, brokers.CreateTopics(ctx, e.Addrs(), brokers.DefaultPartitions))
	return e.Addrs()
}

func testLogger(t testing.TB) *slog.Logger {
	if os.Getenv("CLUSTER_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// killSwitch is a dialer whose connections can all be cut at once, and
// which refuses new ones after: a process crash, as the brokers see it
// (no LeaveGroup, no EndTxn).
type killSwitch struct {
	mu    sync.Mutex
	dead  bool
	conns []net.Conn
}

func (k *killSwitch) dial(ctx context.Context, network, host string) (net.Conn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return nil, fmt.Errorf("killed")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err == nil {
		k.conns = append(k.conns, c)
	}
	return c, err
}

func (k *killSwitch) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead = true
	for _, c := range k.conns {
		c.Close()
	}
}

// txnTimeout is the workers' transaction timeout in tests: long enough
// for a transaction under -race on a loaded machine (the coordinator
// aborts and fences a slower one), short enough that a crashed worker's
// open transaction stops blocking its partitions soon.
const txnTimeout = 8 * time.Second

// runningWorker is a worker running in the test.
type runningWorker struct {
	w      *worker.Worker
	ks     *killSwitch
	cancel context.CancelFunc
	done   chan error
}

func startWorker(t testing.TB, seeds []string, id string) *runningWorker {
	ks := &killSwitch{}
	w, err := worker.New(worker.Config{
		Brokers: seeds, ID: id, Logger: testLogger(t).With("id", id),
		SessionTimeout: time.Second, RebalanceTimeout: 3 * time.Second, TransactionTimeout: txnTimeout,
		MaxPollRecords: 2000,
		Opts:           []kgo.Opt{kgo.Dialer(ks.dial)},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	rw := &runningWorker{w: w, ks: ks, cancel: cancel, done: make(chan error, 1)}
	go func() { rw.done <- w.Run(ctx) }()
	t.Cleanup(func() { rw.stop(t) })
	return rw
}

// stop leaves the group cleanly (idempotent).
func (rw *runningWorker) stop(t testing.TB) {
	if rw.cancel == nil {
		return
	}
	rw.cancel()
	rw.cancel = nil
	select {
	case err := <-rw.done:
		if err != nil {
			t.Logf("worker: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("worker did not stop")
	}
	rw.w.Close()
}

// crash cuts the worker off without a clean leave.
func (rw *runningWorker) crash(t testing.TB) {
	rw.ks.kill()
	rw.stop(t)
}

// startProducer runs a producer over the test stream as fast as it goes.
func startProducer(t testing.TB, seeds []string, st *events.Stream, ticks int64, ks *killSwitch) (*producer.Producer, func(), chan error) {
	return startProducerWith(t, seeds, st, ticks, ks, false, 0)
}

// startProducerWith runs a producer up to tick ticks (counting what a
// predecessor sent), through ks when it is not nil.
func startProducerWith(t testing.TB, seeds []string, st *events.Stream, ticks int64, ks *killSwitch, paced bool, period time.Duration) (*producer.Producer, func(), chan error) {
	opts := []kgo.Opt{}
	if ks != nil {
		opts = append(opts, kgo.Dialer(ks.dial))
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := producer.New(ctx, producer.Config{Brokers: seeds, Stream: st, Ticks: ticks, TxnID: "pond-producer", Paced: paced, Period: period, Opts: opts})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(cancel)
	return p, cancel, done
}

// waitConsumed waits until the group has committed every input partition
// up to the last event of the stream.
func waitConsumed(t testing.TB, seeds []string, lastMs int64, within time.Duration) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(within)
	var behind []int32
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cps, err := worker.ReadCheckpoints(ctx, adm)
		ends, err2 := adm.ListEndOffsets(ctx, brokers.Input)
		cancel()
		if err == nil && err2 == nil {
			behind = behind[:0]
			ends.Each(func(o kadm.ListedOffset) {
				if o.Offset > 0 && cps[o.Partition].LastEventMs != lastMs {
					behind = append(behind, o.Partition)
				}
			})
			if len(behind) == 0 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("input not consumed within %v; partitions behind: %v", within, behind)
}

// committedRows reads the whole output topic, read-committed, and returns
// its rows by key; a key written twice is a failure. No transaction may
// still be open on the topic (it would hide every row after its own from
// a read-committed reader): one that does not end within a few seconds is
// a failure.
func committedRows(t testing.TB, seeds []string) map[rows.Key]rows.Row {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Output),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	waitOutputSettled(t, kadm.NewClient(cl), 2*time.Second)
	out := map[rows.Key]rows.Row{}
	var dups []rows.Key
	// The topic is read when polls come back empty twice in a row, once
	// it has given records (a slow start, under -race, is not the end).
	started := time.Now()
	for quiet, any := 0, false; quiet < 2; {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			if any || time.Since(started) > 15*time.Second {
				quiet++
			}
			continue
		}
		quiet, any = 0, true
		fs.EachRecord(func(r *kgo.Record) {
			row, err := rows.Decode(r.Value)
			require.NoError(t, err)
			if _, ok := out[row.Key()]; ok {
				dups = append(dups, row.Key())
			}
			out[row.Key()] = row
		})
	}
	require.Empty(t, dups, "rows committed twice")
	return out
}

// waitOutputSettled waits until no transaction is open on the output
// topic: its last stable offset is its end on every partition.
func waitOutputSettled(t testing.TB, adm *kadm.Client, within time.Duration) {
	deadline := time.Now().Add(within)
	var open []int32
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		stable, err := adm.ListCommittedOffsets(ctx, brokers.Output)
		ends, err2 := adm.ListEndOffsets(ctx, brokers.Output)
		cancel()
		if err == nil && err2 == nil {
			open = open[:0]
			ends.Each(func(o kadm.ListedOffset) {
				if s, ok := stable.Lookup(o.Topic, o.Partition); !ok || s.Offset != o.Offset {
					open = append(open, o.Partition)
				}
			})
			if len(open) == 0 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("a transaction is still open on the output within %v; partitions held back: %v", within, open)
}

// digest is a hash of a row set in key order, for the log.
func digest(set map[rows.Key]rows.Row) string {
	keys := make([]rows.Key, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b rows.Key) int {
		if a.BoundaryMs != b.BoundaryMs {
			return int(a.BoundaryMs - b.BoundaryMs)
		}
		return cmpString(a.Host, b.Host)
	})
	h := sha256.New()
	for _, k := range keys {
		r := set[k]
		h.Write(r.AppendJSON(nil))
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
