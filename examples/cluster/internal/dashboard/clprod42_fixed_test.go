package dashboard

// Tests of bugs found by clprod42_probe_test.go's probing, one each (each
// failed before its fix); each says what the docs promise and what
// happened instead.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCp42ADuplicateRowIsShownOnce: the README promises one record per
// (host, boundary) in metrics-agg and a dashboard showing each row; the
// tier takes a record it has already taken (an outside writer, a row
// written twice) as one more host row of its boundary: the frame holds
// the host twice and events_ingested_total / events_per_sec count its
// samples twice. (take appended to the boundary's pending rows without
// looking for the host; it leaves such a row out now, and counts it.)
func TestCp42ADuplicateRowIsShownOnce(t *testing.T) {
	tr := newTier()
	now := time.Unix(1735689600, 0)
	tr.now = func() time.Time { return now }
	tr.take(record(0, 1735689600200, "a"))
	tr.take(record(0, 1735689600200, "a")) // the same row again
	tr.take(record(1, 1735689600200, "b"))
	tr.flush(now.Add(2 * maxWait))
	require.Len(t, tr.history, 1)
	assert.Len(t, tr.history[0].rows, 2, "hosts a and b, once each")
	assert.EqualValues(t, 2, tr.history[0].globals.EventsIngestedTotal, "one sample per row")
	assert.EqualValues(t, 1, tr.dupRows, "the row taken again is counted")
}

// TestCp42ARowStampedFarAheadDoesNotHideTheOtherPartitionsRows: the
// README (Limits) says a record stamped far ahead "poisons its partition
// until time catches up": that partition's worker writes rows at
// boundaries years ahead, then drops its partition's later events. The
// other partitions go on. But the tier sends the far boundary after its
// second of waiting, and from then on every row of every partition is at
// or below the last boundary sent: each is counted late and never shown;
// the dashboard shows nothing more, for any host, until the wall clock
// reaches the bad stamp; and the history a new page gets loses every
// tick before it (cut as older than History before the far boundary).
// (flush sent a boundary after maxWait whatever its distance from the
// others, and take drops any row at or below the last boundary sent.
// Fixed: a row more than a minute past the wall clock is left out and
// counted.)
func TestCp42ARowStampedFarAheadDoesNotHideTheOtherPartitionsRows(t *testing.T) {
	tr := newTier()
	now := time.Unix(1735689600, 0)
	tr.now = func() time.Time { return now }
	b := int64(1735689600000)
	far := b + 75*365*24*3600*1000 // 75 years ahead, within the series' range
	for k := range 20 {
		b += 200
		for p := range 3 {
			tr.take(record(p, b, fmt.Sprintf("h%d", p)))
		}
		if k == 5 {
			// Partition 2 gets an event stamped far ahead: its worker
			// writes that host's row at a far boundary.
			tr.take(record(2, far, "h2"))
		}
		now = now.Add(200 * time.Millisecond)
		tr.flush(now)
	}
	now = now.Add(2 * maxWait)
	tr.flush(now)
	shown := 0
	for _, tk := range tr.history {
		if tk.globals.TS < far {
			shown++
		}
	}
	// Partitions 0 and 1 sent 20 boundaries of rows; the test tier's
	// history keeps the last 10 ticks.
	assert.GreaterOrEqual(t, shown, 9, "the healthy partitions' boundaries keep being shown")
	assert.LessOrEqual(t, tr.lateRows, uint64(3), "at most the poisoned partition's own rows are late, not every partition's")
	assert.EqualValues(t, 1, tr.aheadRows, "the far row is left out and counted")
}
