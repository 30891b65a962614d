package worker

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLeftOutEventsAreCountedNotLoggedOneByOne: every kind of input event
// the series cannot take (a value that is not 16 bytes, a value that is
// not finite, a timestamp after 2116, one older than the partition's
// latest) is counted in pond_cluster_input_events_left_out_total, and a
// poll's left-out events make one log line, not one each. (A value of the
// wrong length was logged once per record and counted nowhere.)
func TestLeftOutEventsAreCountedNotLoggedOneByOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seeds, cl := onEmbedded(ctx, t)

	st := threeHosts(t)
	var recs []*kgo.Record
	add := func(host string, ms int64, value []byte) { recs = append(recs, inputRecord(host, ms, value)) }
	const badPerKind = 50
	for k := range int64(30) {
		for _, e := range st.Tick(nil, k) {
			add(e.Host, e.TimeMs, events.AppendValue(nil, &e))
		}
		if k >= 5 && k < 5+badPerKind/10 {
			t0 := st.Time(k).UnixMilli()
			for range 10 {
				add("host-0000", t0, []byte{1, 2, 3})
				add("host-0000", t0, events.AppendValue(nil, &events.Event{CPU: math.NaN(), Requests: 1}))
				add("host-0000", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), events.AppendValue(nil, &events.Event{CPU: 0.5, Requests: 1}))
				add("host-0000", t0-1000, events.AppendValue(nil, &events.Event{CPU: 0.5, Requests: 1}))
			}
		}
	}
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())

	var lines atomic.Int64
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), "level=WARN") {
			lines.Add(1)
		}
		return len(p), nil
	}), nil))
	stats := runUntilCommitted(ctx, t, seeds, kadm.NewClient(cl), "counting", int64(len(recs)),
		func(c *Config) { c.Logger = logger })
	assert.Equal(t, uint64(4*badPerKind), stats.LeftOut)
	assert.LessOrEqual(t, lines.Load(), int64(10), "one line per poll and partition at most")
	var fams strings.Builder
	for _, f := range Families([]*Worker{{m: metrics{leftOut: stats.LeftOut}}}) {
		if f.Name == "pond_cluster_input_events_left_out_total" {
			fams.WriteString(f.Name)
			assert.Equal(t, float64(4*badPerKind), f.Samples[0].Value)
		}
	}
	assert.NotEmpty(t, fams.String(), "the metric is exported")

	want := oneSeriesRows(t, st, 30)
	got := readOutput(ctx, t, seeds)
	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.Equal(t, string(want[i].AppendJSON(nil)), string(got[i].AppendJSON(nil)), "row %d", i)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
