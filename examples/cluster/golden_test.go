package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoldenOneWorkerNoFaults: one worker, no faults, the fixed stream →
// one row per host and boundary, each committed once, equal to the rows
// each Kafka partition's events give in one series of their own.
func TestGoldenOneWorkerNoFaults(t *testing.T) {
	seeds := startKafka(t)
	st := testStream(t)
	_, _, produced := startProducer(t, seeds, st, testTicks, nil)
	startWorker(t, seeds, "golden")
	require.NoError(t, <-produced)
	lastMs := st.Time(testTicks - 1).UnixMilli()
	waitConsumed(t, seeds, lastMs, 60*time.Second)
	got := committedRows(t, seeds)
	want := perPartitionOracle(t, seeds)
	t.Logf("golden: %d rows, digest %s", len(got), digest(got))
	assert.Equal(t, expectedKeys(st, testTicks), keySet(got))
	assertSameRows(t, want, got)
}
