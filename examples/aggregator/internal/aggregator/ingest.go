package aggregator

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/schema"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
)

// Run subscribes to the producer and pushes every batch until ctx ends,
// reconnecting with the schedule of package backoff: after a stream ends or
// fails it waits Backoff.Delay(attempt) and counts the attempt; the count
// goes back to zero on the first batch of a new stream (not on every
// batch, so a stream that keeps opening and dropping does not look
// healthy). Each attempt dials afresh, so the schedule is this one and not
// grpc-go's own.
func (a *Aggregator) Run(ctx context.Context) {
	attempt := 0
	for ctx.Err() == nil {
		err := a.stream(ctx, &attempt)
		a.lostUpstream()
		if ctx.Err() != nil {
			return
		}
		d := a.cfg.Backoff.Delay(attempt, rand.Float64())
		a.cfg.Logger.Warn("producer stream ended; reconnecting", "producer", a.cfg.ProducerAddr, "attempt", attempt, "delay", d, "err", err)
		if a.cfg.OnReconnect != nil {
			a.cfg.OnReconnect(attempt, d, err)
		}
		attempt++
		a.m.dialAttempts.Add(1)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// stream runs one Subscribe stream to its end.
func (a *Aggregator) stream(ctx context.Context, attempt *int) error {
	conn, err := grpc.NewClient(a.cfg.ProducerAddr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(eventsv1.Codec), grpc.MaxCallRecvMsgSize(256<<20)),
		grpc.WithInitialWindowSize(flowWindow), grpc.WithInitialConnWindowSize(flowWindow),
		// Without pings a producer gone without closing the connection
		// (its machine lost, the network cut, the process hung) was
		// noticed only by the kernel's TCP keepalive, after two hours:
		// meanwhile /readyz said ready and nothing came.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: a.cfg.Keepalive, Timeout: a.cfg.Keepalive}),
	)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := eventsv1.NewProducerClient(conn).Subscribe(ctx, &eventsv1.SubscribeRequest{})
	if err != nil {
		return err
	}
	// A reader receives and decodes while the batch before is pushed:
	// the two take turns on one goroutine otherwise, and at 2,000
	// batches a second their sum nears the time between batches. The
	// reader decodes each batch into columns of its own, which the
	// /live append then keeps without copying them.
	batches := make(chan decoded, readAhead)
	spare := make(chan []string, readAhead+2)
	readErr := make(chan error, 1)
	go func() {
		defer close(batches)
		readErr <- a.read(ctx, st, batches, spare)
	}()
	first := true
	for d := range batches {
		if first {
			first = false
			*attempt = 0
			a.m.upstreamConnected.Store(1)
			a.m.downSinceMs.Store(0)
			a.cfg.Logger.Info("producer stream open", "producer", a.cfg.ProducerAddr)
		}
		if d.err != nil {
			// Not an EventBatch: left out whole, as a proto decoder
			// would refuse it, counted, and logged at most once a
			// second so that a broken producer does not flood the log.
			a.m.malformed.Add(1)
			a.mu.Lock()
			a.logRefusal("malformed batch from the producer left out", "batches_since_start", a.m.malformed.Load(), "err", d.err)
			a.mu.Unlock()
			continue
		}
		if d.bad > 0 {
			// Logged at most once a second, as every refusal is.
			a.m.badTime.Add(uint64(d.bad))
			a.mu.Lock()
			a.logRefusal("rows refused: time_ms out of range", "rows", d.bad, "max_ms", maxTimeMs)
			if d.b.Len() == 0 {
				// Every row refused while decoding: push skips an
				// empty batch, but a batch with rows is a sample.
				a.batchDone(d.started)
			}
			a.mu.Unlock()
		}
		if err := a.push(d.b, d.started, &d.own); err != nil {
			a.cfg.Logger.Warn("batch rejected", "rows", d.b.Len(), "err", err)
		}
		// The series keeps no reference to a batch once its push has
		// returned, and the /live chunk keeps the hosts as indices: the
		// host column goes back to the reader for a later batch.
		select {
		case spare <- d.b.Cols[2].Str[:0]:
		default:
		}
	}
	return <-readErr
}

// flowWindow is the HTTP/2 flow-control window of the producer's stream
// and of its connection: how many bytes the producer may send ahead of
// what the reader has received, about a second of batches at 2 M rows/s.
// gRPC's own window starts at 64 KB and follows its estimate of the
// bandwidth-delay product, small between two processes of one machine,
// so the producer's sends wait on the reader's window updates, which
// gRPC's goroutines send only once they get a processor: with the
// producer, the pusher and the collector on two vCPUs, a trace showed
// those goroutines waiting for one, and at 2 M rows/s the larger window
// cut the producer's drops and CPU (examples/aggregator/BENCH.md). A
// static window turns the estimate off; both are set, or the other would
// stay at 64 KB.
const flowWindow = 64 << 20

// readAhead is how many decoded batches may wait for the pusher: 32 ms
// at 2,000 batches a second (1000 hosts at 2,000 events/s), as much again
// as the producer's queue, to ride out a push slower than the rest (a
// tick, a collection); the producer's bounded queue stays the place where
// a lagging aggregator loses rows, and is counted there.
const readAhead = 64

// decoded is one received batch, decoded.
type decoded struct {
	b       *schema.Batch // time, cpu and requests in columns of their own
	own     owned         // the hosts as indices, for the /live chunk
	started time.Time     // when it was received: the start of batchDone
	bad     int           // rows left out for a time_ms out of range
	err     error         // the batch could not be decoded
}

// read receives batches until the stream ends and hands each one,
// decoded, to batches. A batch's host column comes from spare, where the
// pusher returns them, when one waits there. It returns why the stream
// ended.
func (a *Aggregator) read(ctx context.Context, st eventsv1.Producer_SubscribeClient, batches chan<- decoded, spare <-chan []string) error {
	var raw eventsv1.Raw
	dec := decoder{maxLen: a.cfg.MaxHostLen}
	size := 1024
	for {
		if err := st.RecvMsg(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("producer closed the stream")
			}
			return err
		}
		d := decoded{b: &schema.Batch{
			Time: make([]int64, 0, size),
			Cols: []schema.Vec{{Num: make([]float64, 0, size)}, {Num: make([]float64, 0, size)}, {}},
		}, started: time.Now()}
		select {
		case d.b.Cols[2].Str = <-spare:
		default:
			d.b.Cols[2].Str = make([]string, 0, size)
		}
		d.own.ids = make([]uint32, 0, size)
		d.own.ids, d.bad, d.err = dec.decode(raw.Data, d.b, d.own.ids)
		d.own.names, d.own.indexed = dec.names.view(), dec.indexed
		size = max(d.b.Len(), 16)
		select {
		case batches <- d:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// lostUpstream records the end of a stream, or a failure to open one. The
// first of a run of failures starts an outage: reconnects counts outages,
// however many dials each one takes.
func (a *Aggregator) lostUpstream() {
	wasUp := a.m.upstreamConnected.Swap(0) == 1
	if wasUp || a.m.downSinceMs.Load() == 0 {
		a.m.downSinceMs.Store(a.cfg.Now().UnixMilli())
		a.m.reconnects.Add(1)
	}
}

// maxTimeMs is the largest time_ms taken, either way from 1970: the series
// holds times within ±2^62 ns (the years 1823 to 2116), and a
// time_ms past about ±9.2e12 would overflow an int64 of nanoseconds.
const maxTimeMs = (1 << 62) / int64(time.Millisecond)

// decoder decodes encoded EventBatches into batches, keeping a table of
// the host names it has seen.
type decoder struct {
	names   hostNames
	maxLen  int  // longest name the table takes (Config.MaxHostLen)
	indexed bool // every host of the last batch has an index
}

// noName is the index of a host the table does not take (longer than
// maxLen: the aggregator refuses its row).
const noName = ^uint32(0)

// decode decodes an encoded EventBatch into b (reset first), appends each
// row's host index to ids and returns them, with how many rows it left
// out for a time_ms beyond ±maxTimeMs. Host names come from the table, so
// each distinct name is allocated once.
func (d *decoder) decode(data []byte, b *schema.Batch, ids []uint32) (_ []uint32, bad int, err error) {
	b.Reset()
	d.names.roll()
	d.indexed = true
	err = eventsv1.DecodeEvents(data, func(timeMs int64, cpu float64, requests int64, host []byte) {
		if timeMs > maxTimeMs || timeMs < -maxTimeMs {
			bad++
			return
		}
		var h string
		k := noName
		if len(host) <= d.maxLen {
			k = d.names.id(len(ids), host)
			h = d.names.list[k]
		} else {
			h = string(host)
			d.indexed = false
		}
		ids = append(ids, k)
		b.Time = append(b.Time, timeMs*int64(time.Millisecond))
		b.Cols[0].Num = append(b.Cols[0].Num, cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, float64(requests))
		b.Cols[2].Str = append(b.Cols[2].Str, h)
	})
	return ids, bad, err
}
