package aggregator_test

// Probes of the /live-agg and /live streams a client sees: the snapshot,
// then the appends, with batches pushed while clients connect.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wf42T0 is a 200 ms boundary well in the past.
var wf42T0 = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

type wf42Row struct {
	at       time.Duration // after wf42T0
	cpu, req float64
	host     string
}

func wf42Batch(rows []wf42Row) *schema.Batch {
	b := schema.NewBatch(aggregator.Schema, len(rows))
	for _, r := range rows {
		b.Time = append(b.Time, wf42T0.Add(r.at).UnixNano())
		b.Cols[0].Num = append(b.Cols[0].Num, r.cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, r.req)
		b.Cols[2].Str = append(b.Cols[2].Str, r.host)
	}
	return b
}

func wf42Serve(t *testing.T, cfg aggregator.Config) (*aggregator.Aggregator, string) {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := aggregator.New(cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		a.Close()
		srv.Close()
	})
	return a, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func wf42Dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, nil)
	require.NoError(t, err)
	conn.SetReadLimit(1 << 30)
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

// wf42Read reads one frame (failing after a generous timeout, never
// asserting on time).
func wf42Read(conn *websocket.Conn) (*wire.Frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageText {
		return nil, fmt.Errorf("a %v frame", typ)
	}
	return wire.Decode(data)
}

// wf42Tick is one tick as a client sees it: its rows in frame order and
// its globals.
type wf42Tick struct {
	ts      int64
	rows    []wire.HostTick
	globals wire.GlobalsTick
}

// wf42Ticks groups a client's frames into ticks: the snapshot's rows by
// ts (its globals, one per tick, in the same order), then one tick per
// append. It checks the shapes the README gives: a snapshot first and
// only first, increasing ts, the snapshot's globals one per tick.
func wf42Ticks(t *testing.T, frames []*wire.Frame) []wf42Tick {
	t.Helper()
	require.NotEmpty(t, frames)
	require.Equal(t, wire.TypeAggregateSnapshot, frames[0].Type, "a snapshot first")
	var out []wf42Tick
	for _, r := range frames[0].Rows {
		if n := len(out); n == 0 || out[n-1].ts != r.TS {
			if n > 0 {
				require.Greater(t, r.TS, out[n-1].ts, "the snapshot's rows in increasing ts")
			}
			out = append(out, wf42Tick{ts: r.TS})
		}
		out[len(out)-1].rows = append(out[len(out)-1].rows, r)
	}
	require.Len(t, frames[0].Globals, len(out), "the snapshot's globals: one per tick of its rows")
	for i := range out {
		require.Equal(t, out[i].ts, frames[0].Globals[i].TS, "snapshot globals %d", i)
		out[i].globals = frames[0].Globals[i]
	}
	for _, f := range frames[1:] {
		require.Equal(t, wire.TypeAggregateAppend, f.Type)
		require.Len(t, f.Globals, 1)
		tk := wf42Tick{ts: f.Globals[0].TS, globals: f.Globals[0], rows: f.Rows}
		for _, r := range f.Rows {
			require.Equal(t, tk.ts, r.TS, "an append's rows are of its tick")
		}
		if n := len(out); n > 0 {
			require.Greater(t, tk.ts, out[n-1].ts, "each tick once, in increasing ts")
		}
		out = append(out, tk)
	}
	return out
}

// wf42Rank is the README's rank value: the key's value, a missing one
// last.
func wf42Rank(r *wire.HostTick, by string) float64 {
	v := map[string]float64{"cpu_avg": r.CPUAvg, "cpu_sd": r.CPUSd, "requests_sum": r.RequestsSum}[by]
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

// wf42Cut is the top-N cut of one tick: hosts in rank order (descending,
// missing last, ties in emission order), the strict top n plus the hosts
// of the previous cut ranked n+1 ("one host of hysteresis").
func wf42Cut(rows []wire.HostTick, n int, by string, prev map[string]bool) ([]string, map[string]bool) {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, vb := wf42Rank(&rows[a], by), wf42Rank(&rows[b], by)
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	var hosts []string
	next := map[string]bool{}
	for r, i := range idx {
		if r >= n+1 {
			break
		}
		if h := rows[i].Host; r < n || prev[h] {
			hosts = append(hosts, h)
			next[h] = true
		}
	}
	return hosts, next
}

// TestWf42TopNClientsConnectingMidStreamSeeEveryTickOnceThroughTheirCut
// pushes seeded random batches while /live-agg clients with and without a
// top-N cut connect, and checks each client's stream against an uncut
// client connected before the first push: from the first tick of its
// snapshot on, every tick once, in order, with its globals; the rows of
// an uncut client the reference's; the rows of a cut client the model's
// cut with hysteresis, carried from the snapshot into the appends ("the
// cut applies to the snapshot too, with one host of hysteresis").
func TestWf42TopNClientsConnectingMidStreamSeeEveryTickOnceThroughTheirCut(t *testing.T) {
	a, ws := wf42Serve(t, aggregator.Config{})
	rng := rand.New(rand.NewPCG(42, 7))
	const batches = 601 // the last batch is on a boundary: its tick is the last
	hosts := make([]string, 14)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%02d\u2028", i)
	}
	var stream [][]wf42Row
	for k := range batches {
		var b []wf42Row
		for _, h := range hosts {
			if rng.IntN(3) == 0 && k%4 != 0 {
				continue
			}
			// Coarse values: ties in every rank key.
			b = append(b, wf42Row{at: time.Duration(k) * 50 * time.Millisecond, cpu: float64(rng.IntN(5)) / 4, req: float64(rng.IntN(4)), host: h})
		}
		stream = append(stream, b)
	}
	lastTick := wf42T0.Add(time.Duration(batches-1) * 50 * time.Millisecond).UnixMilli()

	type clientRun struct {
		query  string
		frames []*wire.Frame
		err    error
	}
	read := func(conn *websocket.Conn, run *clientRun) {
		for {
			f, err := wf42Read(conn)
			if err != nil {
				run.err = err
				return
			}
			run.frames = append(run.frames, f)
			if f.Type == wire.TypeAggregateAppend && f.Globals[0].TS >= lastTick ||
				f.Type == wire.TypeAggregateSnapshot && len(f.Globals) > 0 && f.Globals[len(f.Globals)-1].TS >= lastTick {
				return
			}
		}
	}
	ref := &clientRun{query: ""}
	refConn := wf42Dial(t, ws+"/live-agg")
	f, err := wf42Read(refConn)
	require.NoError(t, err)
	require.Equal(t, wire.TypeAggregateSnapshot, f.Type)
	require.Empty(t, f.Rows, "nothing pushed yet")
	ref.frames = append(ref.frames, f)
	var wg sync.WaitGroup
	wg.Go(func() { read(refConn, ref) })

	queries := []string{"?n=3&by=cpu_avg", "?n=1&by=requests_sum", "", "?n=5&by=cpu_sd", "?n=2", "?n=13.9&by=cpu_sd", "?n=0&by=cpu_avg"}
	connectAt := []int{0, 37, 150, 151, 333, 477, 598}
	var runs []*clientRun
	next := 0
	for k, b := range stream {
		for next < len(connectAt) && connectAt[next] == k {
			// The server registers the client after the handshake, racing
			// the pushes that follow.
			conn := wf42Dial(t, ws+"/live-agg"+queries[next])
			run := &clientRun{query: queries[next]}
			runs = append(runs, run)
			wg.Go(func() { read(conn, run) })
			next++
		}
		require.NoError(t, a.Push(wf42Batch(b), time.Now()))
	}
	wg.Wait()

	require.NoError(t, ref.err)
	refTicks := wf42Ticks(t, ref.frames)
	require.Equal(t, lastTick, refTicks[len(refTicks)-1].ts)
	byTS := map[int64]int{}
	for i, tk := range refTicks {
		byTS[tk.ts] = i
	}
	for _, run := range runs {
		require.NoError(t, run.err, run.query)
		got := wf42Ticks(t, run.frames)
		require.NotEmpty(t, got, run.query)
		from, ok := byTS[got[0].ts]
		require.True(t, ok, "%s: its first tick %d is one the reference saw", run.query, got[0].ts)
		want := refTicks[from:]
		require.Len(t, got, len(want), "%s: every tick from its first on, once (%d ticks in its snapshot)", run.query, len(run.frames[0].Globals))
		n, by := 0, "cpu_avg"
		if run.query != "" {
			var nf float64
			_, _ = fmt.Sscanf(strings.TrimPrefix(strings.SplitN(run.query, "&", 2)[0], "?n="), "%g", &nf)
			n = max(1, int(math.Floor(nf)))
			if i := strings.Index(run.query, "by="); i >= 0 {
				by = run.query[i+3:]
			}
		}
		var prev map[string]bool
		for i := range want {
			assert.Equal(t, want[i].globals, got[i].globals, "%s tick %d: globals", run.query, want[i].ts)
			var gotHosts []string
			for _, r := range got[i].rows {
				gotHosts = append(gotHosts, r.Host)
			}
			var wantHosts []string
			if run.query == "" {
				for _, r := range want[i].rows {
					wantHosts = append(wantHosts, r.Host)
				}
				assert.Equal(t, want[i].rows, got[i].rows, "%s tick %d: every host's row", run.query, want[i].ts)
			} else {
				wantHosts, prev = wf42Cut(want[i].rows, n, by, prev)
			}
			require.Equal(t, wantHosts, gotHosts, "%s tick %d (%d of %d, the snapshot's %d): the cut", run.query, want[i].ts, i, len(want), len(run.frames[0].Globals))
		}
	}
}
