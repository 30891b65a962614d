package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/rows"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoldenOneWorkerNoFaults: one worker, no faults, the fixed stream →
// one row per host and boundary, each committed once, equal to the rows
// each Kafka partition's events give in one series of their own.
func TestGoldenOneWorkerNoFaults(t *testing.T) {
	got, want := runGolden(t)
	t.Logf("golden: %d rows, digest %s", len(got), digest(got))
	assert.Equal(t, expectedKeys(testStream(t), testTicks), keySet(got))
	assertSameRows(t, want, got)
}

// golden caches the golden run's rows for the tests that compare with
// them.
var golden struct {
	mu   sync.Mutex
	rows map[rows.Key]rows.Row
}

// goldenRows returns the golden run's committed rows, running it if no
// test has yet.
func goldenRows(t testing.TB) map[rows.Key]rows.Row {
	golden.mu.Lock()
	g := golden.rows
	golden.mu.Unlock()
	if g == nil {
		g, _ = runGolden(t)
	}
	require.NotEmpty(t, g, "the golden run failed")
	return g
}

// runGolden runs one worker over the fixed stream on a cluster of its own
// and returns the committed rows and those of the per-partition oracle.
func runGolden(t testing.TB) (got, oracle map[rows.Key]rows.Row) {
	e, err := brokers.StartEmbedded()
	require.NoError(t, err)
	defer e.Close()
	seeds := e.Addrs()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, brokers.DefaultPartitions))
	st := testStream(t)
	_, stopProd, produced := startProducer(t, seeds, st, testTicks, nil)
	defer stopProd()
	w := startWorker(t, seeds, "golden")
	defer w.stop(t)
	require.NoError(t, <-produced)
	waitConsumed(t, seeds, st.Time(testTicks-1).UnixMilli(), 60*time.Second)
	got = committedRows(t, seeds)
	golden.mu.Lock()
	golden.rows = got
	golden.mu.Unlock()
	return got, perPartitionOracle(t, seeds)
}
