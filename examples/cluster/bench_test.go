package main

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/producer"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// TestBenchEndToEnd is the end-to-end measurement of BENCH.md, run only
// with CLUSTER_BENCH=1: the producer paced at wall time (CLUSTER_HOSTS ×
// CLUSTER_RATE events/s for CLUSTER_SECS s), the embedded cluster and
// CLUSTER_WORKERS workers in this process. It reports the events and rows
// committed per second, the ticks the producer sent late, the lag left
// when the producer stops, and the wall time from a row's boundary to its
// commit.
func TestBenchEndToEnd(t *testing.T) {
	if os.Getenv("CLUSTER_BENCH") == "" {
		t.Skip("set CLUSTER_BENCH=1 (and CLUSTER_HOSTS, CLUSTER_RATE, CLUSTER_SECS, CLUSTER_WORKERS)")
	}
	hosts, rate := envInt("CLUSTER_HOSTS", 1000), envInt("CLUSTER_RATE", 100)
	secs, nw := envInt("CLUSTER_SECS", 20), envInt("CLUSTER_WORKERS", 3)
	seeds := startKafka(t)
	var ws []*worker.Worker
	for i := range nw {
		ws = append(ws, startWorker(t, seeds, "bench"+strconv.Itoa(i)).w)
	}
	time.Sleep(2 * time.Second) // let the group settle before the clock starts
	// The first tick is due 2 s from now, which leaves the producer time
	// to connect: event time then is wall time.
	tick := int64(1000 / rate)
	st, err := events.NewStream(hosts, rate, time.Now().UnixMilli()/tick*tick+2000, 42)
	require.NoError(t, err)
	ticks := int64(secs * rate)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs+30)*time.Second)
	defer cancel()
	p, err := producer.New(ctx, producer.Config{Brokers: seeds, Stream: st, Ticks: ticks, Paced: true, TxnID: "pond-producer"})
	require.NoError(t, err)
	start := st.Time(0)
	require.NoError(t, p.Run(ctx))
	produced := time.Since(start)
	lagAtEnd := totalLag(t, seeds)
	waitConsumed(t, seeds, st.Time(ticks-1).UnixMilli(), 120*time.Second)
	all := time.Since(start)
	var rowsOut, txns uint64
	var lat worker.Samples
	for _, w := range ws {
		s := w.Stats()
		rowsOut += s.RowsOut
		txns += s.CommittedTxns
		lat.Merge(&s.LatencyMs)
	}
	ps := p.Stats()
	t.Logf("%d hosts × %d events/s, %d s, %d workers: %d events in %.1f s produced (%.0f events/s offered), %d ticks late;"+
		" all committed after %.1f s (%.0f events/s); lag when the producer stopped %d;"+
		" %d rows in %d transactions (%.0f rows/s); boundary→commit p50 %.0f ms, p99 %.0f ms (%d samples)",
		hosts, rate, secs, nw, ps.Records, produced.Seconds(), float64(ps.Records)/produced.Seconds(), ps.Skipped,
		all.Seconds(), float64(ps.Records)/all.Seconds(), lagAtEnd,
		rowsOut, txns, float64(rowsOut)/all.Seconds(), lat.Quantile(0.5), lat.Quantile(0.99), lat.Len())
}

// totalLag is the input records not yet committed by the group (end
// offsets count transaction markers, so it is an upper bound).
func totalLag(t testing.TB, seeds []string) int64 {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := adm.ListEndOffsets(ctx, brokers.Input)
	require.NoError(t, err)
	cps, err := worker.ReadCheckpoints(ctx, adm)
	require.NoError(t, err)
	var lag int64
	ends.Each(func(o kadm.ListedOffset) { lag += max(0, o.Offset-cps[o.Partition].Offset) })
	return lag
}
