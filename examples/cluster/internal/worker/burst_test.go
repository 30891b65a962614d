package worker

import (
	"context"
	"testing"
	"time"

	"github.com/pond-go/pond/benchmarks"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestABurstOfOneHostDoesNotStallItsPartition: 60,000 events of one host
// in one 200 ms slice are committed, with a row that carries
// rows.MaxSamples samples and counts the rest, in the row and in the
// metric. (The row carried every sample, 1.2 MB, more than a record may
// be: each transaction holding it aborted, and the same poll was retried
// for ever.)
func TestABurstOfOneHostDoesNotStallItsPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("commits 60,000 events on the embedded cluster")
	}
	const burst = 60000
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seeds, cl := onEmbedded(ctx, t)

	t0 := benchmarks.T0.UnixMilli()
	recs := make([]*kgo.Record, 0, burst+1)
	for i := range burst + 1 { // the last one, at t0+200, closes the slice
		// 20 digits a sample: the row's samples take 1.2 MB uncapped.
		cpu := 0.123456789012345678 + float64(i)*1e-9
		recs = append(recs, inputRecord("host-0000", t0+int64(i)*200/burst,
			events.AppendValue(nil, &events.Event{CPU: cpu, Requests: 1})))
	}
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())

	stats := runUntilCommitted(ctx, t, seeds, kadm.NewClient(cl), "burst", int64(len(recs)))
	assert.EqualValues(t, burst-rows.MaxSamples, stats.SamplesLeftOut)
	got := readOutput(ctx, t, seeds)
	require.Len(t, got, 1)
	assert.EqualValues(t, burst, got[0].CPUN)
	assert.Len(t, got[0].CPUSamples, rows.MaxSamples)
	assert.EqualValues(t, burst-rows.MaxSamples, got[0].CPUSamplesLeftOut)
}
