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
		a.m.upstreamConnected.Store(0)
		if ctx.Err() != nil {
			return
		}
		d := a.cfg.Backoff.Delay(attempt, rand.Float64())
		a.cfg.Logger.Warn("producer stream ended; reconnecting", "producer", a.cfg.ProducerAddr, "attempt", attempt, "delay", d, "err", err)
		if a.cfg.OnReconnect != nil {
			a.cfg.OnReconnect(attempt, d, err)
		}
		attempt++
		a.m.reconnects.Add(1)
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
			a.cfg.Logger.Info("producer stream open", "producer", a.cfg.ProducerAddr)
		}
		if err := decodeBatch(raw.Data, b, hosts); err != nil {
			a.cfg.Logger.Error("bad batch from the producer", "err", err)
			continue
		}
		if err := a.Push(b, started); err != nil {
			a.cfg.Logger.Warn("batch rejected", "rows", b.Len(), "err", err)
		}
	}
}

// decodeBatch decodes an encoded EventBatch into b (reset first). Host
// names are looked up in hosts so that each distinct name is allocated
// once.
func decodeBatch(data []byte, b *schema.Batch, hosts map[string]string) error {
	b.Reset()
	return eventsv1.DecodeEvents(data, func(timeMs int64, cpu float64, requests int64, host []byte) {
		h, ok := hosts[string(host)]
		if !ok {
			h = string(host)
			if len(hosts) < 1<<20 {
				hosts[h] = h
			}
		}
		b.Time = append(b.Time, timeMs*int64(time.Millisecond))
		b.Cols[0].Num = append(b.Cols[0].Num, cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, float64(requests))
		b.Cols[2].Str = append(b.Cols[2].Str, h)
	})
}
