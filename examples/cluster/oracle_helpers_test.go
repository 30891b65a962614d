package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// perPartitionOracle reads the committed input and runs each Kafka
// partition's events, in offset order, through a series of its own: the
// rows a cluster that never failed must commit.
func perPartitionOracle(t testing.TB, seeds []string) map[rows.Key]rows.Row {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Input),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	pipes := map[int32]*worker.Pipeline{}
	out := map[rows.Key]rows.Row{}
	var buf []rows.Row
	// The topic is read when polls come back empty twice in a row, once
	// it has given records (a slow start, under -race, is not the end).
	started := time.Now()
	for quiet, any := 0, false; quiet < 2; {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			if any || time.Since(started) > 15*time.Second {
				quiet++
			}
			continue
		}
		quiet, any = 0, true
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			p := pipes[fp.Partition]
			if p == nil {
				p, err = worker.NewPipeline()
				require.NoError(t, err)
				pipes[fp.Partition] = p
			}
			for _, r := range fp.Records {
				cpu, req, err := events.DecodeValue(r.Value)
				require.NoError(t, err)
				p.Add(r.Timestamp.UnixMilli(), cpu, req, string(r.Key))
			}
			buf, err = p.Flush(buf[:0])
			require.NoError(t, err)
			for _, r := range buf {
				out[r.Key()] = r
			}
		})
	}
	return out
}

// oneSeriesOracle runs every event of the stream's first ticks through one
// series, one batch per tick: the library's answer with no Kafka at all.
func oneSeriesOracle(t testing.TB, st *events.Stream, ticks int64) map[rows.Key]rows.Row {
	p, err := worker.NewPipeline()
	require.NoError(t, err)
	out := map[rows.Key]rows.Row{}
	var evs []events.Event
	var buf []rows.Row
	for k := range ticks {
		evs = st.Tick(evs[:0], k)
		for _, e := range evs {
			p.Add(e.TimeMs, e.CPU, e.Requests, e.Host)
		}
		buf, err = p.Flush(buf[:0])
		require.NoError(t, err)
		for _, r := range buf {
			out[r.Key()] = r
		}
	}
	return out
}

// expectedKeys are every host at every boundary the stream's first ticks
// cross: T0+200 ms up to the last boundary at or before the last tick.
func expectedKeys(st *events.Stream, ticks int64) map[rows.Key]bool {
	keys := map[rows.Key]bool{}
	last := st.T0Ms + (ticks-1)*st.TickMs
	step := worker.TickEvery.Milliseconds()
	for b := st.T0Ms + step; b <= last; b += step {
		for _, h := range st.Hosts {
			keys[rows.Key{Host: h, BoundaryMs: b}] = true
		}
	}
	return keys
}

func keySet(m map[rows.Key]rows.Row) map[rows.Key]bool {
	out := make(map[rows.Key]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// assertSameRows checks two row sets are equal key for key and bit for bit
// (the JSON writes every number in its shortest round-trip form).
func assertSameRows(t testing.TB, want, got map[rows.Key]rows.Row) bool {
	t.Helper()
	var missing, extra, differ int
	var examples []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			missing++
		case !bytes.Equal(w.AppendJSON(nil), g.AppendJSON(nil)):
			differ++
			if len(examples) < 3 {
				examples = append(examples, "want "+string(w.AppendJSON(nil))+"\n got "+string(g.AppendJSON(nil)))
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			extra++
		}
	}
	if missing+extra+differ > 0 {
		t.Errorf("row sets differ: %d missing, %d extra, %d different of %d\n%v", missing, extra, differ, len(want), examples)
		return false
	}
	return true
}
