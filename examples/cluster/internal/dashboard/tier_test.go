package dashboard

import (
	"strconv"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kgo"
)

func record(part int, b int64, host string) *kgo.Record {
	r := rows.Row{BoundaryMs: b, Host: host, CPUN: 1, CPUSamples: []float64{0.5}, CPUAvg: 0.5, CPUSd: 0}
	return &kgo.Record{Value: r.AppendJSON(nil), Headers: []kgo.RecordHeader{
		{Key: rows.HeaderPartition, Value: []byte(strconv.Itoa(part))},
	}}
}

func newTier() *Tier {
	return &Tier{cfg: Config{History: time.Minute, HistoryTicks: 10}, pending: map[int64]*pending{},
		latest: map[string]int64{}, sent: -1, firstTS: -1, clients: map[*client]struct{}{}}
}

func TestABoundaryIsSentOnceEveryPartitionHasPassedIt(t *testing.T) {
	tr := newTier()
	now := time.Now()
	tr.take(record(0, 200, "a"))
	tr.take(record(1, 200, "b"))
	tr.take(record(0, 400, "a"))
	tr.flush(now)
	assert.Empty(t, tr.history, "partition 1 has not passed 200 yet")
	tr.take(record(1, 400, "b"))
	tr.flush(now)
	if assert.Len(t, tr.history, 1) {
		assert.Equal(t, int64(200), tr.history[0].globals.TS)
		assert.Len(t, tr.history[0].rows, 2)
	}
}

func TestABoundaryWaitingOverASecondIsSentAndLaterRowsAreCounted(t *testing.T) {
	tr := newTier()
	tr.take(record(0, 200, "a"))
	tr.flush(time.Now().Add(2 * time.Second))
	assert.Len(t, tr.history, 1)
	tr.take(record(1, 200, "b"))
	assert.Equal(t, uint64(1), tr.lateRows)
}

// TestARowsLeftOutSamplesCountInItsSlice: a row that carries
// rows.MaxSamples samples and left some out shows the slice's whole count
// (n_current, and so events_per_sec), not the samples it carries.
func TestARowsLeftOutSamplesCountInItsSlice(t *testing.T) {
	r := rows.Row{BoundaryMs: 200, Host: "a", CPUN: 12, CPUSamples: []float64{0.5, 0.5}, CPUSamplesLeftOut: 10, CPUAvg: 0.5}
	h := hostTick(&r, 0)
	assert.Equal(t, 12, h.NCurrent)
}
