package worker

import (
	"context"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TestALeftOutLastEventDoesNotMoveTheCheckpoint: when the last record a
// worker commits is one the series left out (a timestamp before 1970 or
// after 2116, which the checkpoint once took as the partition's last
// event time), the next owner still replays the last minute and writes
// the rows one series over the good events gives. (A checkpoint of the
// year 3000 made the replay start past every record, one of −1 skipped
// the replay: either way the next owner began with empty windows.)
func TestALeftOutLastEventDoesNotMoveTheCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		ms   int64
	}{
		{"a timestamp after 2116", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()},
		{"a timestamp before 1970", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			seeds, cl := onEmbedded(ctx, t)
			adm := kadm.NewClient(cl)

			st := threeHosts(t)
			recs := appendTicks(nil, st, 0, 30)
			bad := &events.Event{CPU: 0.5, Requests: 1}
			recs = append(recs, inputRecord("host-0000", tc.ms, events.AppendValue(nil, bad)))
			require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
			firstEnd := int64(len(recs))
			first := runUntilCommitted(ctx, t, seeds, adm, "first", firstEnd)
			assert.Equal(t, []int32{0}, first.Assigned, "the one input partition it held")

			recs = appendTicks(recs[:0], st, 30, 60)
			require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
			runUntilCommitted(ctx, t, seeds, adm, "second", firstEnd+int64(len(recs)))

			want := oneSeriesRows(t, st, 60)
			got := readOutput(ctx, t, seeds)
			require.Equal(t, len(want), len(got))
			for i := range want {
				assert.Equal(t, string(want[i].AppendJSON(nil)), string(got[i].AppendJSON(nil)), "row %d", i)
			}
		})
	}
}

// runUntilCommitted runs a worker until the input's committed offset is
// at least end, then stops it and returns its counters.
func runUntilCommitted(ctx context.Context, t *testing.T, seeds []string, adm *kadm.Client, id string, end int64, opts ...func(*Config)) Stats {
	t.Helper()
	cfg := Config{Brokers: seeds, ID: id, SessionTimeout: time.Second, RebalanceTimeout: 3 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	w, err := New(cfg)
	require.NoError(t, err)
	defer w.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	for {
		cps, err := ReadCheckpoints(ctx, adm)
		require.NoError(t, err)
		if cps[0].Offset >= end {
			break
		}
		require.NoError(t, ctx.Err(), "worker %s: committed %+v, want offset %d", id, cps[0], end)
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	require.NoError(t, <-done)
	return w.Stats()
}

// oneSeriesRows returns the rows of one pipeline over the first ticks of
// st.
func oneSeriesRows(t *testing.T, st *events.Stream, ticks int64) []rows.Row {
	p, err := NewPipeline()
	require.NoError(t, err)
	var out []rows.Row
	for k := range ticks {
		for _, e := range st.Tick(nil, k) {
			p.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
		}
		out, err = p.Flush(out)
		require.NoError(t, err)
	}
	return out
}
