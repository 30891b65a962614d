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
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/aggregator"
	"github.com/pond-go/pond/examples/aggregator/internal/envflag"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
	"github.com/pond-go/pond/live"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "aggregator:", err)
		os.Exit(1)
	}
}

// run starts everything, prints the ready lines on stdout, and serves
// until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New(flag.NewFlagSet("aggregator", flag.ContinueOnError))
	fs.SetOutput(stderr)
	addr := fs.String("addr", "AGGREGATOR_ADDR", "", "HTTP and WebSocket listen address (default 127.0.0.1:8080, or 127.0.0.1:$AGGREGATOR_PORT)")
	port := fs.Int("port", "AGGREGATOR_PORT", 8080, "HTTP and WebSocket port on 127.0.0.1, when -addr is not given")
	producerURL := fs.String("producer", "PRODUCER_URL", "", "external producer host:port (empty: start one in this process)")
	hosts := fs.Int("hosts", "HOST_COUNT", 8, "embedded producer: number of hosts")
	rate := fs.Float("rate", "EVENTS_PER_SEC", 10, "embedded producer: events per second per host")
	variability := fs.Float("variability", "VARIABILITY", 0.4, "embedded producer: full width of the CPU noise")
	seed := fs.String("seed", "SIMULATOR_SEED", "", "embedded producer: simulator seed (empty: random)")
	grpcPort := fs.Int("grpc-port", "GRPC_PORT", 0, "embedded producer: gRPC port on 127.0.0.1 (0 picks a free one)")
	stride := fs.Int("sample-stride", "SAMPLE_STRIDE", 1, "per-host stride of the rolling input (1 keeps every row)")
	ordering := fs.String("ordering", "ORDERING", "strict", "late-data mode of the raw window: strict, drop or reorder")
	graceMs := fs.Int("grace-ms", "GRACE_WINDOW_MS", 30000, "reorder only: how late a row may be, in ms")
	retentionMs := fs.Int("retention-ms", "RETENTION_MS", 30000, "raw window length, in ms")
	historyMs := fs.Int("history-ms", "HISTORY_MS", 300000, "tick history sent to new /live-agg clients, in ms (0: none)")
	historyRows := fs.Int("history-rows", "HISTORY_MAX_ROWS", 250000, "cap on the host rows the tick history holds")
	thresholds := fs.String("thresholds", "AGGREGATOR_SIGMA_THRESHOLDS", "1,1.5,2,2.5,3", "σ thresholds of the anomaly counts")
	origins := fs.String("origins", "AGGREGATOR_ORIGINS", "", "comma-separated extra origins allowed to open the WebSockets (e.g. localhost:5173)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := fs.Err(); err != nil {
		return err
	}
	if *addr == "" {
		*addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	}
	ord, err := live.ParseOrdering(*ordering)
	if err != nil {
		return err
	}
	th, err := parseFloats(*thresholds)
	if err != nil {
		return fmt.Errorf("thresholds: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	var prod *producer.Producer
	if *producerURL == "" {
		pc := producer.Config{
			GRPCAddr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(*grpcPort)),
			Hosts:        *hosts,
			EventsPerSec: *rate,
			Variability:  *variability,
		}
		if *seed != "" {
			s, err := strconv.ParseUint(*seed, 10, 32)
			if err != nil {
				return fmt.Errorf("seed %q: %w", *seed, err)
			}
			pc.Seed, pc.HasSeed = uint32(s), true
		}
		if prod, err = producer.Start(pc); err != nil {
			return err
		}
		defer prod.Stop()
		*producerURL = prod.GRPCAddr()
		fmt.Fprintf(stdout, "embedded producer on %s (%d hosts × %g events/s)\n", *producerURL, *hosts, *rate)
	}
	history := time.Duration(*historyMs) * time.Millisecond
	if *historyMs <= 0 {
		history = -1
	}
	cfg := aggregator.Config{
		ProducerAddr:   *producerURL,
		Retention:      time.Duration(*retentionMs) * time.Millisecond,
		Ordering:       ord,
		Grace:          time.Duration(*graceMs) * time.Millisecond,
		SampleStride:   max(1, *stride),
		Thresholds:     th,
		History:        history,
		HistoryMaxRows: *historyRows,
		Logger:         logger,
	}
	if *origins != "" {
		cfg.OriginPatterns = strings.Split(*origins, ",")
	}
	agg, err := aggregator.New(cfg)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("%w (choose another with -addr or AGGREGATOR_ADDR, e.g. 127.0.0.1:0)", err)
	}
	srv := &http.Server{Handler: agg.Handler(), ReadHeaderTimeout: 5 * time.Second}
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
	fmt.Fprintf(stdout, "aggregator listening on :%s (producer=%s, sampleStride=%d, ordering=%s)\n", p, *producerURL, cfg.SampleStride, ord)
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

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
