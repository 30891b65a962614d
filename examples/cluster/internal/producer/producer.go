// Package producer writes the seed stream to the input topic: one
// transaction per tick holding that tick's events, each a record keyed by
// host with the event time as its timestamp. Ticks are paced in wall time
// (tick k due at start + k·period) or sent as fast as the cluster takes
// them.
//
// Transactions make a tick all or nothing, so a producer killed mid-tick
// leaves no half tick: its successor, with the same transactional ID,
// fences the old one (aborting its open transaction), finds the last
// committed tick and goes on with the next, and the topic holds each
// event exactly once.
package producer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Config is a producer's settings.
type Config struct {
	Brokers []string
	Stream  *events.Stream
	// Ticks is how many ticks to send in all (counting those a
	// predecessor committed); 0 is no end.
	Ticks int64
	// From is the first tick to send at the earliest: a producer goes on
	// after the last tick committed to the input topic, or from here if
	// that is later (or the topic holds none).
	From int64
	// Paced sends tick k at its due wall time: its event time when Period
	// is the stream's own tick (the default), else Period after tick k−1.
	// Otherwise ticks go as fast as the cluster takes them.
	Paced  bool
	Period time.Duration
	// TicksPerTxn groups that many ticks in one transaction (default 1:
	// one produce batch and one transaction per tick). Larger groups fill
	// a topic faster for tests and benchmarks.
	TicksPerTxn int
	// TxnID is the transactional ID; a restarted producer must reuse it.
	TxnID string
	// Opts are extra client options (tests use them to cut connections).
	Opts []kgo.Opt
}

// Stats are a producer's counters.
type Stats struct {
	Ticks, Records, Skipped uint64 // Skipped: paced ticks sent late
	NextTick                int64
}

// Producer is a running producer.
type Producer struct {
	cfg                     Config
	cl                      *kgo.Client
	ticks, records, skipped atomic.Uint64
	next                    atomic.Int64
}

// New connects a producer and finds the tick to start at: the one after
// the last committed tick in the input topic, or Config.From if that is
// later.
func New(ctx context.Context, cfg Config) (*Producer, error) {
	if cfg.Stream == nil || cfg.TxnID == "" {
		return nil, errors.New("producer: a stream and a transactional ID are required")
	}
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.TransactionalID(cfg.TxnID),
		kgo.TransactionTimeout(10 * time.Second),
		kgo.DefaultProduceTopic(brokers.Input),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(0),
		// Loopback or a LAN: compression costs more CPU than it saves,
		// and an uncompressed batch is cheaper to replay.
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.MaxBufferedRecords(1 << 20),
	}, cfg.Opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	cfg.TicksPerTxn = max(1, cfg.TicksPerTxn)
	if cfg.Period <= 0 {
		cfg.Period = time.Duration(cfg.Stream.TickMs) * time.Millisecond
	}
	p := &Producer{cfg: cfg, cl: cl}
	// Taking the producer ID fences a predecessor with the same
	// transactional ID and settles its open transaction, so the tail read
	// next sees every tick that will ever be committed.
	if _, _, err := cl.ProducerID(ctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("producer: init producer ID: %w", err)
	}
	last, err := LastCommittedTime(ctx, cfg.Brokers)
	if err != nil {
		cl.Close()
		return nil, err
	}
	p.next.Store(max(cfg.From, 0))
	if last >= cfg.Stream.T0Ms {
		p.next.Store(max(cfg.From, (last-cfg.Stream.T0Ms)/cfg.Stream.TickMs+1))
	}
	return p, nil
}

// Run sends ticks until ctx ends, the configured count is reached, or an
// error.
func (p *Producer) Run(ctx context.Context) error {
	defer p.cl.Close()
	st := p.cfg.Stream
	first := p.next.Load()
	start := time.Now()
	var evs []events.Event
	var recs []*kgo.Record
	for k := first; p.cfg.Ticks == 0 || k < p.cfg.Ticks; k++ {
		if p.cfg.Paced {
			due := start.Add(time.Duration(k-first) * p.cfg.Period)
			if p.cfg.Period == time.Duration(st.TickMs)*time.Millisecond {
				due = st.Time(k) // event time is wall time
			}
			if d := time.Until(due); d > 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(d):
				}
			} else if d < -p.cfg.Period {
				p.skipped.Add(1)
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if (k-first)%int64(p.cfg.TicksPerTxn) == 0 {
			recs = recs[:0]
		}
		evs = st.Tick(evs[:0], k)
		for i := range evs {
			e := &evs[i]
			recs = append(recs, &kgo.Record{
				Key:       []byte(e.Host),
				Value:     events.AppendValue(make([]byte, 0, events.ValueLen), e),
				Timestamp: time.UnixMilli(e.TimeMs),
			})
		}
		last := k+1 == p.cfg.Ticks
		if (k-first+1)%int64(p.cfg.TicksPerTxn) != 0 && !last {
			continue
		}
		if err := p.sendTick(ctx, recs); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		n := uint64(len(recs) / len(evs))
		p.ticks.Add(n)
		p.records.Add(uint64(len(recs)))
		p.next.Store(k + 1)
	}
	return nil
}

func (p *Producer) sendTick(ctx context.Context, recs []*kgo.Record) error {
	if err := p.cl.BeginTransaction(); err != nil {
		return err
	}
	if err := p.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		_ = p.cl.EndTransaction(context.WithoutCancel(ctx), kgo.TryAbort)
		return fmt.Errorf("producer: produce: %w", err)
	}
	return p.cl.EndTransaction(ctx, kgo.TryCommit)
}

// Stats returns the counters.
func (p *Producer) Stats() Stats {
	return Stats{Ticks: p.ticks.Load(), Records: p.records.Load(), Skipped: p.skipped.Load(), NextTick: p.next.Load()}
}

// Kill closes the client at once, failing the records it buffers, so
// that Run returns (for tests). For the broker to see a crash rather than
// an abort, cut the client's connections first (the chaos test's dialer
// does).
func (p *Producer) Kill() { p.cl.Close() }

// LastCommittedTime returns the largest event time among the committed
// records of the input topic, or -1 if it has none. Each tick is one
// transaction over all partitions, so this is the last committed tick's
// time. Only the tail of each partition is read: after a producer's last
// transaction there is at most its successor's fencing abort.
func LastCommittedTime(ctx context.Context, seeds []string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, brokers.Input)
	if err != nil {
		return 0, err
	}
	const tail = 1 << 14
	starts := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			starts[o.Partition] = kgo.NewOffset().At(max(0, o.Offset-tail))
		}
	})
	last := int64(-1)
	if len(starts) == 0 {
		return last, nil
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{brokers.Input: starts})
	// The tails are local and small: the read is over when a poll finds
	// nothing for a while (the end offsets count transaction markers,
	// which carry no records, so they cannot say when to stop), but only
	// once every partition with records has given one: a first poll that
	// comes back empty because the client is still connecting (a loaded
	// machine) is not an empty topic, and taking it for one would start
	// the stream again from tick 0. A partition whose tail holds no
	// committed record keeps the read going until the deadline.
	waiting := len(starts)
	seen := make(map[int32]bool, len(starts))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			last = max(last, r.Timestamp.UnixMilli())
			if !seen[r.Partition] {
				seen[r.Partition] = true
				waiting--
			}
		})
		if n == 0 && waiting == 0 {
			break
		}
	}
	return last, nil
}
