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
)

// Run subscribes to the producer and pushes every batch until ctx ends,
// reconnecting with the backoff of spec §3.2: after a stream ends or
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
	var (
		raw   eventsv1.Raw
		b     = schema.NewBatch(Schema, 1024)
		hosts = map[string]string{}
		first = true
	)
	for {
		if err := st.RecvMsg(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("producer closed the stream")
			}
			return err
		}
		started := time.Now()
		if first {
			first = false
			*attempt = 0
			a.m.upstreamConnected.Store(1)
			a.m.downSinceMs.Store(0)
			a.cfg.Logger.Info("producer stream open", "producer", a.cfg.ProducerAddr)
		}
		bad, err := decodeBatch(raw.Data, b, hosts)
		if err != nil {
			a.cfg.Logger.Error("bad batch from the producer", "err", err)
			continue
		}
		if bad > 0 {
			a.m.badTime.Add(uint64(bad))
			a.cfg.Logger.Warn("rows refused: time_ms out of range", "rows", bad, "max_ms", maxTimeMs)
		}
		if err := a.Push(b, started); err != nil {
			a.cfg.Logger.Warn("batch rejected", "rows", b.Len(), "err", err)
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
// holds times within ±2^62 ns (about the years 1824 to 2116), and a
// time_ms past about ±9.2e12 would overflow an int64 of nanoseconds.
const maxTimeMs = (1 << 62) / int64(time.Millisecond)

// decodeBatch decodes an encoded EventBatch into b (reset first) and
// returns how many rows it left out for a time_ms beyond ±maxTimeMs. Host
// names are looked up in hosts so that each distinct name is allocated
// once.
func decodeBatch(data []byte, b *schema.Batch, hosts map[string]string) (bad int, err error) {
	b.Reset()
	err = eventsv1.DecodeEvents(data, func(timeMs int64, cpu float64, requests int64, host []byte) {
		if timeMs > maxTimeMs || timeMs < -maxTimeMs {
			bad++
			return
		}
		h, ok := hosts[string(host)]
		if !ok {
			h = string(host)
			if len(hosts) >= 1<<16 {
				clear(hosts) // a flood of names: start over rather than grow
			}
			if len(h) <= 256 {
				hosts[h] = h
			}
		}
		b.Time = append(b.Time, timeMs*int64(time.Millisecond))
		b.Cols[0].Num = append(b.Cols[0].Num, cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, float64(requests))
		b.Cols[2].Str = append(b.Cols[2].Str, h)
	})
	return bad, err
}
