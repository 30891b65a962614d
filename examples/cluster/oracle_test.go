package main

import (
	"testing"

	"github.com/pond-go/pond/examples/cluster/internal/worker"
)

// needsAligned is the skip message of the tests that hold only with
// aligned windows.
const needsAligned = "needs aligned windows (rolling.Options.Aligned), not on this branch yet"

// TestOracleOneSeriesGivesTheGoldenRows: the golden run's committed rows
// equal those of one in-process series fed every event of the stream, one
// batch per tick: the library is the oracle of the cluster. Only aligned
// windows make a row independent of the other hosts in its series, so
// only they make the split over Kafka partitions invisible.
func TestOracleOneSeriesGivesTheGoldenRows(t *testing.T) {
	if !worker.AlignedWindows() {
		t.Skip(needsAligned)
	}
	st := testStream(t)
	want := oneSeriesOracle(t, st, testTicks)
	got := goldenRows(t)
	t.Logf("oracle: %d rows, digest %s; golden %s", len(want), digest(want), digest(got))
	assertSameRows(t, want, got)
}
