// Command aggregator is pond-go's monitoring example: gRPC in, WebSocket
// out, a live dashboard in the browser.
//
//	go run ./examples/aggregator
//
// With no set-up it starts a synthetic producer in the same process
// (8 hosts at 10 events per second each, over real gRPC on a loopback
// port), the aggregator and its dashboard, and prints the dashboard's URL.
// PRODUCER_URL (or -producer) subscribes to an external producer instead
// (go run ./examples/aggregator/cmd/producer). Every flag can also be set
// by the environment variable named in -help. It listens on 127.0.0.1
// only unless AGGREGATOR_ADDR (or -addr) says otherwise, and stops cleanly
// on SIGINT or SIGTERM.
//
// See README.md beside this file for the endpoints, the frames and how to
// race other aggregators.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/aggregator/internal/envflag"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/examples/internal/wsping"
	"github.com/pond-go/pond/live"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -help: the usage went to stderr, and asking is not a failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "aggregator:", err)
		os.Exit(2)
	}
}

// settings are the command's flags, checked.
type settings struct {
	addr, producerURL string
	hosts             int
	rate, variability float64
	seed              uint32
	hasSeed           bool
	grpcPort          int
	pprof             bool
	cfg               aggregator.Config
}

// parseFlags reads the flags and their environment variables and checks
// every value, with an error that names the flag, quotes the value and
// says what would do.
// defaultWorkers is the number of cores the process may use
// (GOMAXPROCS, which follows CPU quotas), so that -workers defaults to
// every core and to 1 on a one-core machine.
func defaultWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

func parseFlags(args []string, stderr io.Writer) (*settings, error) {
	fs := envflag.New(flag.NewFlagSet("aggregator", flag.ContinueOnError))
	fs.SetOutput(stderr)
	addr := fs.String("addr", "AGGREGATOR_ADDR", "", "HTTP and WebSocket listen address (default 127.0.0.1:8080, or 127.0.0.1:$AGGREGATOR_PORT)")
	port := fs.Int("port", "AGGREGATOR_PORT", 8080, "HTTP and WebSocket port on 127.0.0.1, when -addr is not given")
	producerURL := fs.String("producer", "PRODUCER_URL", "", "external producer host:port (empty: start one in this process)")
	hosts := fs.Int("hosts", "HOST_COUNT", 8, "embedded producer: number of hosts")
	rate := fs.Float("rate", "EVENTS_PER_SEC", 10, "embedded producer: events per second per host")
	variability := fs.Float("variability", "VARIABILITY", 0.4, "embedded producer: full width of the CPU noise")
	seed := fs.String("seed", "SIMULATOR_SEED", "", "embedded producer: simulator seed, 0 to 4294967295 (empty: random)")
	grpcPort := fs.Int("grpc-port", "GRPC_PORT", 0, "embedded producer: gRPC port on 127.0.0.1 (0 picks a free one)")
	stride := fs.Int("sample-stride", "SAMPLE_STRIDE", 1, "per-host stride of the rolling input, at least 1 (1 keeps every row)")
	workers := fs.Int("workers", "AGGREGATOR_WORKERS", defaultWorkers(), "goroutines the per-host windows are spread over (1: the ingest goroutine only); the frames are the same at any count")
	alignedWin := fs.Bool("aligned", "AGGREGATOR_ALIGNED", false, "per-host windows aligned to the 200 ms clock: [b − span, b), closed once no earlier row can arrive")
	ordering := fs.String("ordering", "ORDERING", "strict", "late-data mode of the raw window: strict, drop or reorder")
	grace := fs.Duration("grace", "GRACE_WINDOW_MS", 30*time.Second, "reorder only: how late a row may be")
	retention := fs.Duration("retention", "RETENTION_MS", 30*time.Second, "raw window length")
	history := fs.Duration("history", "HISTORY_MS", 5*time.Minute, "tick history sent to new /live-agg clients (0: none)")
	historyRows := fs.Int("history-rows", "HISTORY_MAX_ROWS", 250000, "cap on the host rows the tick history holds")
	thresholds := fs.String("thresholds", "AGGREGATOR_SIGMA_THRESHOLDS", "1,1.5,2,2.5,3", "σ thresholds of the anomaly counts, comma-separated")
	maxSkew := fs.Duration("max-skew", "AGGREGATOR_MAX_SKEW", 5*time.Second, "refuse rows dated further ahead of this machine's clock")
	maxHosts := fs.Int("max-hosts", "AGGREGATOR_MAX_HOSTS", 10000, "hosts tracked at once; rows of further new hosts are refused")
	maxHostLen := fs.Int("max-host-len", "AGGREGATOR_MAX_HOST_LEN", 256, "longest host name taken, in bytes")
	maxLag := fs.Duration("client-max-lag", "AGGREGATOR_CLIENT_MAX_LAG", 10*time.Second, "close a WebSocket client (1013) whose oldest unwritten frame is this old")
	pingEvery := fs.Duration("ping-interval", "AGGREGATOR_PING_INTERVAL", wsping.DefaultInterval, "ping each WebSocket client this long after its last pong (not while a frame is being written to it)")
	pingWait := fs.Duration("ping-timeout", "AGGREGATOR_PING_TIMEOUT", wsping.DefaultTimeout, "cut a WebSocket client whose pong takes longer than this")
	pprofOn := fs.Bool("pprof", "AGGREGATOR_PPROF", false, "serve the Go runtime's profiles at /debug/pprof/ on the HTTP address (for measuring; keep the address private)")
	origins := fs.String("origins", "AGGREGATOR_ORIGINS", "", "comma-separated extra origins allowed to open the WebSockets (e.g. localhost:5173)")
	// The millisecond flags of earlier versions still work.
	graceMs := fs.Int("grace-ms", "", 0, "deprecated: -grace in milliseconds")
	retentionMs := fs.Int("retention-ms", "", 0, "deprecated: -retention in milliseconds")
	historyMs := fs.Int("history-ms", "", 0, "deprecated: -history in milliseconds")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	for name, ms := range map[string]struct {
		v   *int
		dst *time.Duration
	}{"grace-ms": {graceMs, grace}, "retention-ms": {retentionMs, retention}, "history-ms": {historyMs, history}} {
		if fs.IsSet(name) {
			d, ok := envflag.Millis(int64(*ms.v))
			if !ok {
				return nil, fmt.Errorf("-%s %d: beyond a duration's range (want milliseconds up to about 292 years)", name, *ms.v)
			}
			*ms.dst = d
		}
	}
	st := &settings{addr: *addr, producerURL: *producerURL, hosts: *hosts, rate: *rate, variability: *variability, grpcPort: *grpcPort}
	if st.addr == "" {
		if *port < 0 || *port > 65535 {
			return nil, fmt.Errorf("-port %d: want 0 to 65535", *port)
		}
		st.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	} else if _, _, err := net.SplitHostPort(st.addr); err != nil {
		return nil, fmt.Errorf("-addr %q: want host:port, e.g. 127.0.0.1:8080", st.addr)
	}
	if st.producerURL != "" {
		h, p, err := net.SplitHostPort(st.producerURL)
		if n, perr := strconv.Atoi(p); err != nil || h == "" || perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("-producer %q: want host:port with a port number, e.g. 127.0.0.1:50051", st.producerURL)
		}
	} else {
		if st.hosts < 1 {
			return nil, fmt.Errorf("-hosts %d: want at least 1", st.hosts)
		}
		if !(st.rate >= producer.MinEventsPerSec && st.rate <= producer.MaxEventsPerSec) {
			return nil, fmt.Errorf("-rate %v: want events per second per host from %g to %g", st.rate, producer.MinEventsPerSec, producer.MaxEventsPerSec)
		}
		if math.IsNaN(st.variability) || math.IsInf(st.variability, 0) {
			return nil, fmt.Errorf("-variability %v: want a finite width such as 0.4", st.variability)
		}
		if *seed != "" {
			s, err := strconv.ParseUint(*seed, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("-seed %q: want an integer from 0 to 4294967295", *seed)
			}
			st.seed, st.hasSeed = uint32(s), true
		}
	}
	ord, err := live.ParseOrdering(*ordering)
	if err != nil {
		return nil, fmt.Errorf("-ordering %q: want strict, drop or reorder", *ordering)
	}
	th, err := parseThresholds(*thresholds)
	if err != nil {
		return nil, err
	}
	positive := []struct {
		name string
		v    time.Duration
	}{{"-retention", *retention}, {"-max-skew", *maxSkew}, {"-client-max-lag", *maxLag}, {"-ping-interval", *pingEvery}, {"-ping-timeout", *pingWait}}
	if ord == live.Reorder {
		positive = append(positive, struct {
			name string
			v    time.Duration
		}{"-grace", *grace})
	}
	for _, d := range positive {
		if d.v <= 0 {
			return nil, fmt.Errorf("%s %v: want a positive duration, e.g. 30s", d.name, d.v)
		}
	}
	if ord == live.Reorder && *grace > *retention {
		return nil, fmt.Errorf("-grace %v: want at most -retention (%v)", *grace, *retention)
	}
	// The history is kept in whole milliseconds: a positive -history under
	// 1 ms held nothing, as 0 does, without saying so.
	if *history < 0 || (*history > 0 && *history < time.Millisecond) {
		return nil, fmt.Errorf("-history %v: want 0 (none) or at least 1ms, e.g. 5m", *history)
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"-sample-stride", *stride}, {"-history-rows", *historyRows}, {"-max-hosts", *maxHosts}, {"-max-host-len", *maxHostLen}, {"-workers", *workers}} {
		if n.v < 1 {
			return nil, fmt.Errorf("%s %d: want at least 1", n.name, n.v)
		}
	}
	if *workers > live.MaxWorkers {
		return nil, fmt.Errorf("-workers %d: want at most %d", *workers, live.MaxWorkers)
	}
	hist := *history
	if hist == 0 {
		hist = -1 // the Config's "none"
	}
	st.cfg = aggregator.Config{
		ProducerAddr: st.producerURL, Retention: *retention, Ordering: ord, Grace: *grace,
		SampleStride: *stride, Thresholds: th, History: hist, HistoryMaxRows: *historyRows,
		MaxSkew: *maxSkew, MaxHosts: *maxHosts, MaxHostLen: *maxHostLen, ClientMaxLag: *maxLag,
		Aligned: *alignedWin, Workers: *workers, ClientPingInterval: *pingEvery, ClientPingTimeout: *pingWait,
	}
	st.pprof = *pprofOn
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			st.cfg.OriginPatterns = append(st.cfg.OriginPatterns, o)
		}
	}
	return st, nil
}

// run starts everything, prints the ready lines on stdout, and serves
// until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	st, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	if st.producerURL == "" {
		pc := producer.Config{
			GRPCAddr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(st.grpcPort)),
			Hosts:        st.hosts,
			EventsPerSec: st.rate,
			Variability:  st.variability,
			Seed:         st.seed,
			HasSeed:      st.hasSeed,
		}
		prod, err := producer.Start(pc)
		if err != nil {
			return fmt.Errorf("embedded %w (choose another -grpc-port, or 0 for a free one)", err)
		}
		defer prod.Stop()
		st.producerURL = prod.GRPCAddr()
		st.cfg.ProducerAddr = st.producerURL
		fmt.Fprintf(stdout, "embedded producer on %s (%d hosts × %g events/s)\n", st.producerURL, st.hosts, st.rate)
	}
	cfg := st.cfg
	cfg.Logger = logger
	agg, err := aggregator.New(cfg)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", st.addr)
	if err != nil {
		return fmt.Errorf("%w (choose another with -addr or AGGREGATOR_ADDR, e.g. 127.0.0.1:0)", err)
	}
	handler := agg.Handler()
	if st.pprof {
		handler = withProfiles(handler)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	ingestCtx, stopIngest := context.WithCancel(ctx)
	ingested := make(chan struct{})
	go func() {
		agg.Run(ingestCtx)
		close(ingested)
	}()

	_, p, _ := net.SplitHostPort(lis.Addr().String())
	host := lis.Addr().(*net.TCPAddr).IP
	urlHost := "127.0.0.1"
	if !host.IsUnspecified() {
		urlHost = host.String()
	}
	fmt.Fprintf(stdout, "aggregator listening on :%s (producer=%s, sampleStride=%d, ordering=%s)\n", p, st.producerURL, cfg.SampleStride, cfg.Ordering)
	fmt.Fprintf(stdout, "dashboard: http://%s/\n", net.JoinHostPort(urlHost, p))

	select {
	case <-ctx.Done():
	case err = <-served:
	}
	stopIngest()
	<-ingested
	agg.Close()
	shutCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(shutCtx)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stdout, "aggregator stopped")
	return nil
}

// parseThresholds reads the σ thresholds: comma-separated positive
// numbers.
func parseThresholds(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("-thresholds %q: %q is not a positive number; want comma-separated σ values such as 1,1.5,2", s, f)
		}
		out = append(out, x)
	}
	return out, nil
}

// withProfiles serves the runtime's profiles (net/http/pprof) under
// /debug/pprof/ beside h.
func withProfiles(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/", h)
	return mux
}
