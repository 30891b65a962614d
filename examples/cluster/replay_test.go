package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/producer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplayOfABusyPartitionRebuildsTheLastMinute: one input partition
// holding 100 hosts × 100 events/s for 70 s of event time; a worker
// commits all of it and leaves; the next one to take the partition
// rebuilds its windows from the last minute (600,000 events, up to the
// start-point search's slack more) and reports how long that took. The
// time is a measurement, not asserted here (it depends on the machine
// and its load): BenchmarkReplayOfABusyPartition reports it, and .ci/run
// prints it.
func TestReplayOfABusyPartitionRebuildsTheLastMinute(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills a partition with up to 700,000 events")
	}
	hosts := 100
	if raceEnabled {
		// Under the race detector, beside the other packages' tests, the
		// first worker cannot take 700,000 events in time; .ci/run runs
		// this test once more at full size without it.
		hosts = 20
	}
	took, n := replayBusyPartition(t, hosts)
	if load := loadPerCPU(); load > 0 {
		t.Logf("load average %.1f per CPU", load)
	}
	t.Logf("replayed %d events (%d hosts × 100 events/s, last %v) in %.3f s: %.0f events/s",
		n, hosts, time.Minute, took, float64(n)/took)
	// From the last minute's first event, or up to the bisection's
	// slack before it.
	assert.GreaterOrEqual(t, n, uint64(hosts*100*60))
	assert.LessOrEqual(t, n, uint64(hosts*100*60+25000))
	assert.Greater(t, took, 0.0)
}

// BenchmarkReplayOfABusyPartition is the test's replay at full size
// (100 hosts × 100 events/s, the last minute of 70 s): replay-s is the
// seconds the new owner took to rebuild the partition's windows, as its
// pond_cluster_replay_seconds reports them. One op is one whole run
// (filling the partition, the first worker, the replay).
func BenchmarkReplayOfABusyPartition(b *testing.B) {
	var took float64
	var n uint64
	for b.Loop() {
		t, k := replayBusyPartition(b, 100)
		took += t
		n += k
	}
	b.ReportMetric(took/float64(b.N), "replay-s")
	b.ReportMetric(float64(n)/took, "events/s")
}

// replayBusyPartition fills one input partition with hosts × 100
// events/s for 70 s of event time, lets a first worker commit it all and
// leave, starts a second and returns how long its replay took and how
// many events it replayed.
func replayBusyPartition(t testing.TB, hosts int) (took float64, n uint64) {
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	defer e.Close()
	seeds := e.Addrs()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, 1))

	const rate, secs = 100, 70
	st, err := events.NewStream(hosts, rate, benchmarks.T0.UnixMilli(), 42)
	require.NoError(t, err)
	ticks := int64(rate * secs)
	p, err := producer.New(ctx, producer.Config{Brokers: seeds, Stream: st, Ticks: ticks, TxnID: "pond-producer", TicksPerTxn: 10})
	require.NoError(t, err)
	require.NoError(t, p.Run(context.Background()))

	first := startWorker(t, seeds, "first")
	waitConsumed(t, seeds, st.Time(ticks-1).UnixMilli(), 120*time.Second)
	first.stop(t)

	second := startWorker(t, seeds, "second")
	defer second.stop(t)
	deadline := time.Now().Add(60 * time.Second)
	for !second.w.Ready() || second.w.Stats().Replays == 0 {
		require.True(t, time.Now().Before(deadline), "no replay within 60 s")
		time.Sleep(20 * time.Millisecond)
	}
	s := second.w.Stats()
	return s.LastReplaySeconds[0], s.LastReplayEvents[0]
}

// loadPerCPU is the 1-minute load average over the CPUs, or 0.
func loadPerCPU() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return 0
	}
	return l / float64(runtime.NumCPU())
}
