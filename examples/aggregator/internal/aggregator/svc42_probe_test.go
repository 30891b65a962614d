package aggregator

// Session 42's probes of the aggregator as a long-running service: hours
// of event time pushed in compressed form with hosts that come and go and
// never return, WebSocket clients that come, go and stall, bad gRPC input
// mixed with good, a producer that reconnects, shutdown mid-push, and the
// -workers and -aligned settings' rows. Every structure must stay bounded
// by the configuration: the counts after N and after 4N of churn are
// compared, never absolute figures. Seeds are fixed; no timing is
// asserted.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/aggregator/internal/backoff"
	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
)

// sv42T0 is a 200 ms boundary well in the past of the wall clock.
var sv42T0 = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).UnixNano()

type sv42Row struct {
	t        int64 // ns
	cpu, req float64
	host     string
}

func sv42Batch(rows []sv42Row) *schema.Batch {
	b := schema.NewBatch(Schema, len(rows))
	for _, r := range rows {
		b.Time = append(b.Time, r.t)
		b.Cols[0].Num = append(b.Cols[0].Num, r.cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, r.req)
		b.Cols[2].Str = append(b.Cols[2].Str, r.host)
	}
	return b
}

func sv42New(t *testing.T, cfg Config) *Aggregator {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	a, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(a.Close)
	return a
}

// sv42Churn is a stream of hosts that each live a while, then leave for
// good, replaced by a host of a new name: one batch a second of event
// time, each live host sending 1 to 3 rows in it.
type sv42Churn struct {
	rng   *rand.Rand
	now   int64 // ns, the start of the next batch's second
	live  []sv42Host
	names int // names handed out
}

type sv42Host struct {
	name  string
	until int64 // ns: its last second
}

func sv42NewChurn(seed uint64, hosts int) *sv42Churn {
	c := &sv42Churn{rng: rand.New(rand.NewPCG(seed, 42)), now: sv42T0}
	for range hosts {
		c.live = append(c.live, c.newHost())
	}
	return c
}

// newHost names a host never seen before, of a varying length, living 20 s
// to 3 min.
func (c *sv42Churn) newHost() sv42Host {
	c.names++
	name := fmt.Sprintf("sv42-%d-%s", c.names, strings.Repeat("x", c.rng.IntN(40)))
	return sv42Host{name: name, until: c.now + int64(20+c.rng.IntN(160))*int64(time.Second)}
}

// next returns the next second's batch, sorted by time.
func (c *sv42Churn) next() []sv42Row {
	var rows []sv42Row
	for i := range c.live {
		if c.live[i].until < c.now {
			c.live[i] = c.newHost()
		}
		h := c.live[i]
		for range 1 + c.rng.IntN(3) {
			rows = append(rows, sv42Row{
				t:   c.now + c.rng.Int64N(int64(time.Second)),
				cpu: c.rng.Float64(), req: float64(c.rng.IntN(100)), host: h.name,
			})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].t < rows[j].t })
	c.now += int64(time.Second)
	return rows
}

// sv42Sizes are the sizes of everything an aggregator holds that could
// grow with time, hosts or names.
type sv42Sizes struct {
	partitions                       int
	partBytes, rollBytes, perSecByts int
	held, length                     int
	histTicks, histRows              int
	rawChunks, rawRows, rawCap       int
	promSeries                       []string
	heap                             uint64
	goroutines                       int
}

func sv42Measure(t *testing.T, a *Aggregator) sv42Sizes {
	t.Helper()
	var s sv42Sizes
	a.mu.Lock()
	parts, err := a.p.s.Partitions(a.p.byHost)
	require.NoError(t, err)
	s.partitions = len(parts)
	s.partBytes, err = a.p.s.NodeBytes(a.p.byHost)
	require.NoError(t, err)
	s.rollBytes, err = a.p.s.NodeBytes(a.p.hosts)
	require.NoError(t, err)
	s.perSecByts, err = a.p.s.NodeBytes(a.p.perSec)
	require.NoError(t, err)
	s.held = a.p.s.HeldBytes()
	s.length = a.p.s.Len()
	s.histTicks, s.histRows = len(a.hist.all()), a.hist.rows
	s.rawChunks, s.rawRows, s.rawCap = len(a.raw.all()), a.raw.rows, cap(a.raw.chunks)
	a.mu.Unlock()
	s.promSeries = sv42PromSeries(t, a)
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.heap = ms.HeapAlloc
	s.goroutines = runtime.NumGoroutine()
	return s
}

// sv42PromSeries scrapes /metrics and returns the names and labels of the
// series it exports, the Go and process collectors' left out (their set
// is the runtime's, not the aggregator's).
func sv42PromSeries(t *testing.T, a *Aggregator) []string {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, 200, rec.Code)
	var out []string
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if line == "" || line[0] == '#' || strings.HasPrefix(line, "go_") || strings.HasPrefix(line, "process_") {
			continue
		}
		out = append(out, line[:strings.LastIndexByte(line, ' ')])
	}
	sort.Strings(out)
	return out
}

// TestSv42ChurningHostsStayBounded pushes 10 minutes of event time in
// which every host lives 20 s to 3 min and is then replaced by one of a
// name never seen, 15 live at once: about 100 distinct names. The
// partitions, every node's state, the root, the history, the raw ring and
// the Prometheus series after 10 minutes must be those after 2.5 (the same
// up to the stream's noise), and the heap must not have grown with the
// names seen. Every row is taken (no bound is reached), and each tick
// carries only hosts with a row in the minute before it.
func TestSv42ChurningHostsStayBounded(t *testing.T) {
	for _, cfg := range []Config{
		{History: time.Minute},
		{History: time.Minute, Aligned: true, Workers: 2, Ordering: live.Drop},
	} {
		t.Run(fmt.Sprintf("aligned=%v,workers=%d,ordering=%v", cfg.Aligned, cfg.Workers, cfg.Ordering), func(t *testing.T) {
			a := sv42New(t, cfg)
			c := sv42NewChurn(7, 15)
			lastRow := map[string]int64{}
			var pushed uint64
			var sizes []sv42Sizes
			var lastTs int64
			for sec := 1; sec <= 10*60; sec++ {
				rows := c.next()
				require.NoError(t, a.Push(sv42Batch(rows), time.Now()))
				pushed += uint64(len(rows))
				for _, r := range rows {
					lastRow[r.host] = r.t
				}
				// The ticks this push emitted: every host in them had a
				// row in the minute (and the tick) before.
				a.mu.Lock()
				ticks := a.hist.all()
				a.mu.Unlock()
				for i := len(ticks) - 1; i >= 0 && ticks[i].globals.TS > lastTs; i-- {
					for _, r := range ticks[i].rows {
						last, ok := lastRow[r.Host]
						require.True(t, ok, "tick %d: host %s never sent", r.TS, r.Host)
						require.GreaterOrEqual(t, last/int64(time.Millisecond), r.TS-60_000-200, "tick %d: host %s quiet since %d", r.TS, r.Host, last)
					}
				}
				if len(ticks) > 0 {
					lastTs = ticks[len(ticks)-1].globals.TS
				}
				if sec == 150 || sec == 10*60 {
					sizes = append(sizes, sv42Measure(t, a))
				}
			}
			st := a.Stats()
			require.Equal(t, pushed, st.Series.Ingested, "every row taken")
			require.Zero(t, st.RejectedRows)
			require.Greater(t, c.names, 80, "names seen")
			n, n4 := sizes[0], sizes[1]
			n.promSeries, n4.promSeries = nil, nil
			t.Logf("after 2.5 min: %+v", n)
			t.Logf("after 10 min: %+v (%d names seen)", n4, c.names)
			require.Equal(t, sv42PromSeries(t, a), sizes[0].promSeries, "no series labelled by host")
			// The live hosts and those quiet for under a minute: the same
			// few dozen at both times.
			require.LessOrEqual(t, n4.partitions, 2*n.partitions+10)
			require.LessOrEqual(t, n4.partBytes, 2*n.partBytes+64<<10)
			require.LessOrEqual(t, n4.rollBytes, 2*n.rollBytes+64<<10)
			require.LessOrEqual(t, n4.perSecByts, 2*n.perSecByts+64<<10)
			require.LessOrEqual(t, n4.held, 2*n.held+64<<10)
			require.LessOrEqual(t, n4.histTicks, n.histTicks+5)
			require.LessOrEqual(t, n4.histRows, 2*n.histRows)
			require.LessOrEqual(t, n4.rawChunks, n.rawChunks+5)
			require.LessOrEqual(t, n4.rawCap, 2*n.rawCap+128)
			require.Less(t, n4.heap, n.heap+n.heap/2+(4<<20), "heap after 10 min against after 2.5")
		})
	}
}

// sv42RandomStream is a stream with gaps (some past the 1m window, so
// every host goes quiet and comes back), batches that jump several 200 ms
// boundaries or stay inside one, hosts joining and leaving, and, when
// late is set, rows earlier than the latest taken.
func sv42RandomStream(seed uint64, batches int, late bool) [][]sv42Row {
	rng := rand.New(rand.NewPCG(seed, 4242))
	now := sv42T0 + rng.Int64N(int64(time.Second))
	hosts := []string{"a", "b", "c"}
	var out [][]sv42Row
	for range batches {
		switch r := rng.IntN(100); {
		case r < 2:
			now += int64(61+rng.IntN(30)) * int64(time.Second) // every host idle
		case r < 10:
			now += rng.Int64N(int64(5 * time.Second))
		default:
			now += rng.Int64N(int64(300 * time.Millisecond))
		}
		if rng.IntN(10) == 0 {
			hosts = append(hosts, fmt.Sprintf("h%d", rng.IntN(1000)))
		}
		if len(hosts) > 3 && rng.IntN(10) == 0 {
			hosts = append(hosts[:0:0], hosts[1:]...)
		}
		var rows []sv42Row
		t := now
		for range 1 + rng.IntN(25) {
			t += rng.Int64N(int64(80 * time.Millisecond))
			r := sv42Row{t: t, cpu: float64(rng.IntN(1000)) / 1000, req: float64(rng.IntN(50)), host: hosts[rng.IntN(len(hosts))]}
			if late && rng.IntN(15) == 0 {
				r.t -= rng.Int64N(int64(2 * time.Second))
			}
			rows = append(rows, r)
		}
		now = t
		out = append(out, rows)
	}
	return out
}

// sv42Emitted returns the frames' bytes of the ticks a holds after ts
// (ms), and the newest tick's ts.
func sv42Emitted(a *Aggregator, ts int64) ([]string, int64) {
	a.mu.Lock()
	ticks := a.hist.all()
	a.mu.Unlock()
	from := len(ticks)
	for from > 0 && ticks[from-1].globals.TS > ts {
		from--
	}
	var out []string
	for _, tk := range ticks[from:] {
		g := wire.AppendGlobalsTick(nil, &tk.globals)
		out = append(out, string(tk.encodedRows())+" | "+string(g))
		ts = tk.globals.TS
	}
	return out, ts
}

// TestSv42WorkersGiveTheSameRows pushes random streams into aggregators
// on 1, 2 and 4 workers, each in the default and the aligned mode, under
// strict and drop ordering: "the frames do not depend on" Workers, so
// every tick's rows and globals must be byte for byte those of one worker.
func TestSv42WorkersGiveTheSameRows(t *testing.T) {
	for seed := range uint64(2) {
		ord := []live.Ordering{live.Strict, live.Drop}[seed%2]
		stream := sv42RandomStream(seed, 200, ord == live.Drop)
		for _, aligned := range []bool{false, true} {
			var aggs []*Aggregator
			for _, w := range []int{1, 2, 4} {
				aggs = append(aggs, sv42New(t, Config{Ordering: ord, Aligned: aligned, Workers: w, History: 10 * time.Minute}))
			}
			cursor := make([]int64, len(aggs))
			ticks := 0
			for i, rows := range stream {
				var want []string
				for k, a := range aggs {
					err := a.Push(sv42Batch(rows), time.Now())
					require.NoError(t, err, "seed %d batch %d", seed, i)
					var got []string
					got, cursor[k] = sv42Emitted(a, cursor[k])
					if k == 0 {
						want = got
						ticks += len(got)
						continue
					}
					require.Equal(t, want, got, "seed %d aligned %v batch %d: workers %d", seed, aligned, i, a.cfg.Workers)
				}
			}
			want := aggs[0].Stats()
			for _, a := range aggs[1:] {
				got := a.Stats()
				require.Equal(t, want.Series, got.Series)
				require.Equal(t, want.Refused, got.Refused)
			}
			require.Greater(t, ticks, 50, "seed %d aligned %v", seed, aligned)
		}
	}
}

// sv42Producer is a gRPC producer whose every Subscribe streams the next
// of its segments and then ends the stream (an error, as a producer
// restarting would), the last one staying open: a producer that keeps
// going away and coming back.
type sv42Producer struct {
	eventsv1.UnimplementedProducerServer
	segs chan sv42Segment
}

type sv42Segment struct {
	msgs [][]byte
	last bool // the stream stays open after it
}

func (p *sv42Producer) Subscribe(_ *eventsv1.SubscribeRequest, st eventsv1.Producer_SubscribeServer) error {
	select {
	case seg := <-p.segs:
		for _, m := range seg.msgs {
			if err := st.SendMsg(&eventsv1.Raw{Data: m}); err != nil {
				return err
			}
		}
		if !seg.last {
			return errors.New("sv42: producer restarting")
		}
	case <-st.Context().Done():
	}
	<-st.Context().Done()
	return nil
}

// sv42Model is what the docs say of the rows sent: bad ones refused and
// counted by reason, late ones (drop ordering) dropped and counted as
// order, the others taken, in the order sent.
type sv42Model struct {
	taken     []wire.RawRow
	latest    int64 // ms
	refused   refusals
	malformed uint64
}

// TestSv42BadGRPCInputAmidGoodOverReconnects streams, over a producer
// that ends its stream after each of 8 segments and comes back with its
// clock moved by up to ±2 s, batches that mix good rows with NaN and
// infinite cpus, times past the skew, time_ms out of range and over-long
// host names, malformed messages and empty batches. Under drop ordering
// every good row not earlier than the latest taken must arrive on /live,
// once and in order, the bad and late ones be counted by reason, every
// malformed message counted, and each stream's end counted as one outage.
func TestSv42BadGRPCInputAmidGoodOverReconnects(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { sv42BadGRPC(t, seed) })
	}
}

func sv42BadGRPC(t *testing.T, seed uint64) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(grpc.ForceServerCodecV2(eventsv1.Codec))
	p := &sv42Producer{segs: make(chan sv42Segment, 16)}
	eventsv1.RegisterProducerServer(srv, p)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)

	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	a := sv42New(t, Config{ProducerAddr: lis.Addr().String(), Ordering: live.Drop, MaxHostLen: 32,
		Backoff: backoff.Policy{Initial: time.Millisecond, Max: 5 * time.Millisecond},
		Now:     func() time.Time { return now }})
	srvHTTP := httptest.NewServer(a.Handler())
	t.Cleanup(srvHTTP.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srvHTTP.URL, "http")+"/live", nil)
	require.NoError(t, err)
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 30)

	rng := rand.New(rand.NewPCG(seed, 7))
	var m sv42Model
	m.latest = math.MinInt64
	clock := now.Add(-time.Hour).UnixMilli()
	const segments = 8
	for s := range segments {
		clock += rng.Int64N(4001) - 2000 // the restarted producer's clock
		var seg [][]byte
		for range 20 + rng.IntN(20) {
			switch k := rng.IntN(20); {
			case k == 0:
				seg = append(seg, []byte{0x0a, 0xff}) // a length past the end
				m.malformed++
				continue
			case k == 1:
				seg = append(seg, nil) // an empty batch
				continue
			}
			var evs []*eventsv1.Event
			for range 1 + rng.IntN(30) {
				clock += rng.Int64N(40)
				e := &eventsv1.Event{TimeMs: clock, Cpu: rng.Float64(), Requests: rng.Int64N(1000), Host: fmt.Sprintf("h%d", rng.IntN(6))}
				switch rng.IntN(25) {
				case 0:
					e.Cpu = math.NaN()
					m.refused.BadValue++
				case 1:
					e.Cpu = math.Inf(1 - 2*rng.IntN(2))
					m.refused.BadValue++
				case 2:
					e.TimeMs = now.Add(time.Duration(6+rng.IntN(3600)) * time.Second).UnixMilli()
					m.refused.Future++
				case 3:
					e.TimeMs = math.MaxInt64 - rng.Int64N(1000)
					if rng.IntN(2) == 0 {
						e.TimeMs = -e.TimeMs
					}
					m.refused.BadTime++
				case 4:
					e.Host = strings.Repeat("L", 33+rng.IntN(100))
					m.refused.HostLen++
				case 5:
					e.TimeMs -= rng.Int64N(3000) // late within the stream
					fallthrough
				default:
					if e.TimeMs < m.latest {
						m.refused.Order++
						break
					}
					m.latest = e.TimeMs
					m.taken = append(m.taken, wire.RawRow{TimeMs: e.TimeMs, CPU: e.Cpu, Requests: float64(e.Requests), Host: e.Host})
				}
				evs = append(evs, e)
			}
			b, err := eventsv1.AppendEvents(nil, evs)
			require.NoError(t, err)
			seg = append(seg, b)
		}
		p.segs <- sv42Segment{msgs: seg, last: s == segments-1}
	}

	done := make(chan struct{})
	runCtx, stopRun := context.WithCancel(context.Background())
	go func() { a.Run(runCtx); close(done) }()
	defer func() { stopRun(); <-done }()

	// The /live client reads the snapshot (empty or not), then appends,
	// until every row the model takes has come.
	var got []wire.RawRow
	for len(got) < len(m.taken) {
		_, data, err := conn.Read(ctx)
		require.NoError(t, err, "%d of %d rows", len(got), len(m.taken))
		f, err := wire.Decode(data)
		require.NoError(t, err)
		got = append(got, f.RawRows...)
	}
	require.Equal(t, m.taken, got)
	// Batches of bad rows only may follow the last good row: wait for
	// their counts (no signal for them: poll).
	want := m.refused
	deadline := time.Now().Add(10 * time.Second)
	st, md := a.Stats(), a.Metrics()
	for time.Now().Before(deadline) {
		want.LastLogged = st.Refused.LastLogged
		if want == st.Refused && md.Stats.MalformedBatches == m.malformed {
			break
		}
		time.Sleep(5 * time.Millisecond)
		st, md = a.Stats(), a.Metrics()
	}
	require.Equal(t, m.malformed, md.Stats.MalformedBatches)
	require.Equal(t, want, st.Refused)
	require.EqualValues(t, len(m.taken), st.Series.Ingested)
	require.EqualValues(t, segments-1, md.Upstream.Reconnects, "one outage per stream that ended")
	require.EqualValues(t, segments-1, md.Upstream.DialAttempts)
	require.True(t, md.Upstream.Connected)
	require.True(t, a.Ready().Ready)
}

// sv42Sub is one WebSocket client of the churn probe: it reads every
// frame (after an optional stall) until its connection ends, keeping the
// /live rows' sequence numbers or the /live-agg ticks' times.
type sv42Sub struct {
	agg    bool
	conn   *websocket.Conn
	resume chan struct{} // closed when a stalled client starts reading
	done   chan struct{}
	mu     sync.Mutex // guards seqs and ticks while the reader runs
	seqs   []int64    // /live: the requests column, the row's number
	ticks  []int64    // /live-agg: the globals' ts, snapshot then appends
	status websocket.StatusCode
	err    error
	left   bool // closed by the test before the end
}

func (s *sv42Sub) read() {
	defer close(s.done)
	<-s.resume
	for {
		_, data, err := s.conn.Read(context.Background())
		if err != nil {
			s.err, s.status = err, websocket.CloseStatus(err)
			return
		}
		f, err := wire.Decode(data)
		if err != nil {
			s.err = err
			return
		}
		s.mu.Lock()
		for _, r := range f.RawRows {
			s.seqs = append(s.seqs, int64(r.Requests))
		}
		for _, g := range f.Globals {
			s.ticks = append(s.ticks, g.TS)
		}
		s.mu.Unlock()
	}
}

// TestSv42ClientChurnIsExactlyOnceOr1013 pushes batches while /live and
// /live-agg clients connect (some with a top-N cut, some sending
// set-top-n), stall for a while, resume, or leave mid-stream, on queues of
// 64 frames. Every client must see each batch and tick exactly once, in
// order, from its snapshot on: either all of them up to the last push, or
// a prefix closed with 1013 (too slow). Once every client has gone the
// registry is empty and the goroutines are back to their count before.
func TestSv42ClientChurnIsExactlyOnceOr1013(t *testing.T) {
	before := runtime.NumGoroutine()
	rng := rand.New(rand.NewPCG(9, 9))
	a := sv42New(t, Config{ClientQueueFrames: 64, History: time.Hour})
	srv := httptest.NewServer(a.Handler())
	ws := "ws" + strings.TrimPrefix(srv.URL, "http")
	var subs []*sv42Sub
	var stalled []*sv42Sub
	seq := 0
	tm := sv42T0
	for step := range 450 {
		switch k := rng.IntN(20); {
		case k < 2 && len(subs) < 40:
			s := &sv42Sub{agg: rng.IntN(2) == 0, resume: make(chan struct{}), done: make(chan struct{})}
			path := "/live"
			if s.agg {
				path = []string{"/live-agg", "/live-agg?n=2&by=requests_sum", "/live-agg?n=1"}[rng.IntN(3)]
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			conn, _, err := websocket.Dial(ctx, ws+path, nil)
			cancel()
			require.NoError(t, err, "step %d", step)
			conn.SetReadLimit(1 << 30)
			s.conn = conn
			go s.read()
			if rng.IntN(4) == 0 {
				stalled = append(stalled, s)
			} else {
				close(s.resume)
			}
			if s.agg && rng.IntN(2) == 0 {
				msg := []string{`{"type":"set-top-n","n":3,"by":"cpu_sd"}`, `{"type":"set-top-n","n":null}`, `{"type":"set-top-n","n":"x"}`}[rng.IntN(3)]
				require.NoError(t, conn.Write(context.Background(), websocket.MessageText, []byte(msg)))
			}
			subs = append(subs, s)
		case k == 2 && len(stalled) > 0:
			close(stalled[0].resume)
			stalled = stalled[1:]
		case k == 3 && len(subs) > 0:
			s := subs[rng.IntN(len(subs))]
			s.left = true
			s.conn.CloseNow() // gone, at any point of its stream
		default:
			var rows []sv42Row
			for range 1 + rng.IntN(6) {
				tm += rng.Int64N(int64(60 * time.Millisecond))
				rows = append(rows, sv42Row{t: tm, cpu: rng.Float64(), req: float64(seq), host: fmt.Sprint("h", rng.IntN(5))})
				seq++
			}
			require.NoError(t, a.Push(sv42Batch(rows), time.Now()))
		}
	}
	for _, s := range stalled {
		close(s.resume)
	}
	a.mu.Lock()
	var all []int64
	for _, tk := range a.hist.all() {
		all = append(all, tk.globals.TS)
	}
	a.mu.Unlock()
	// A client still connected takes every frame; then it is closed, and
	// its stream checked.
	complete := func(s *sv42Sub) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.agg {
			return len(s.ticks) > 0 && s.ticks[len(s.ticks)-1] == all[len(all)-1]
		}
		return len(s.seqs) > 0 && s.seqs[len(s.seqs)-1] == int64(seq-1)
	}
	for _, s := range subs {
		deadline := time.Now().Add(10 * time.Second)
		for !s.left && time.Now().Before(deadline) {
			select {
			case <-s.done:
			default:
				if !complete(s) {
					time.Sleep(5 * time.Millisecond) // no signal for the last frame: poll
					continue
				}
			}
			break
		}
	}
	for _, s := range subs {
		s.conn.CloseNow()
		<-s.done
	}
	tooSlow := 0
	for i, s := range subs {
		closed := s.status == websocket.StatusTryAgainLater
		if closed {
			tooSlow++
		}
		if !closed && !s.left {
			require.True(t, complete(s), "client %d (agg %v): not every frame came: %v", i, s.agg, s.err)
		}
		if !s.agg {
			for j := 1; j < len(s.seqs); j++ {
				require.Equal(t, s.seqs[j-1]+1, s.seqs[j], "client %d: rows out of order or lost", i)
			}
			continue
		}
		if len(s.ticks) == 0 {
			continue
		}
		at := slices.Index(all, s.ticks[0])
		require.GreaterOrEqual(t, at, 0, "client %d: a tick the history never had", i)
		require.Equal(t, all[at:at+len(s.ticks)], s.ticks, "client %d: ticks lost or repeated", i)
	}
	t.Logf("%d clients, %d closed as too slow, %d rows, %d ticks", len(subs), tooSlow, seq, len(all))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st := a.Stats()
		if st.LiveClients+st.AggClients == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	st := a.Stats()
	require.Zero(t, st.LiveClients+st.AggClients, "every client unregistered")
	a.Close()
	srv.Close()
	after := runtime.NumGoroutine()
	for after > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	require.LessOrEqual(t, after, before, "goroutines once every client has gone")
}
