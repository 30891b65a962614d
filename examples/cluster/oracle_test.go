package main

import "testing"

// TestOracleOneSeriesGivesTheGoldenRows: the golden run's committed rows
// equal those of one in-process series fed every event of the stream, one
// batch per tick: the library is the oracle of the cluster. Only aligned
// windows make a row independent of the other hosts in its series, so
// only they make the split over Kafka partitions invisible.
func TestOracleOneSeriesGivesTheGoldenRows(t *testing.T) {
	st := testStream(t)
	want := oneSeriesOracle(t, st, testTicks)
	got := goldenRows(t)
	t.Logf("oracle: %d rows, digest %s; golden %s", len(want), digest(want), digest(got))
	assertSameRows(t, want, got)
}
