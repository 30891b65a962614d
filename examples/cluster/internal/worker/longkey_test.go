package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestAnOverlongHostIsLeftOut: an event whose key (its host) is longer
// than maxHostLen is left out and counted, and the partition goes on with
// the rest. (A key of 600 kB made every row of that host larger than a
// record may be: each transaction holding one aborted, the partition was
// rebuilt and the same poll failed again, for ever.)
func TestAnOverlongHostIsLeftOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seeds, cl := onEmbedded(ctx, t)

	st := threeHosts(t)
	var recs []*kgo.Record
	for k := range int64(30) {
		recs = appendTicks(recs, st, k, k+1)
		if k == 10 {
			for _, n := range []int{maxHostLen + 1, 600 << 10} {
				recs = append(recs, inputRecord(strings.Repeat("h", n), st.Time(k).UnixMilli(),
					events.AppendValue(nil, &events.Event{CPU: 0.5, Requests: 1})))
			}
		}
	}
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())

	stats := runUntilCommitted(ctx, t, seeds, kadm.NewClient(cl), "long", int64(len(recs)))
	assert.EqualValues(t, 2, stats.LeftOut)
	want := oneSeriesRows(t, st, 30)
	got := readOutput(ctx, t, seeds)
	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.Equal(t, string(want[i].AppendJSON(nil)), string(got[i].AppendJSON(nil)), "row %d", i)
	}
}
