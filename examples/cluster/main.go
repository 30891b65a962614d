// Command cluster is pond-go's monitoring example scaled out on Kafka:
// a producer writes the seed stream to the topic metrics, workers in one
// consumer group keep one pond-go series per input partition and write
// each row to metrics-agg exactly once (transactions that also commit the
// input offsets), and a dashboard tier reads the committed rows and
// serves the aggregator's dashboard.
//
//	go run ./examples/cluster
//
// With no set-up it starts an embedded Kafka (franz-go's kfake) on a
// loopback port, creates the topics, and runs the producer, three workers
// and the dashboard in this process, then prints the dashboard's URL.
// -brokers host:port,… points every part at a real cluster; -role runs
// one part (worker, producer or dashboard) per process. It listens on
// 127.0.0.1 only unless -addr says otherwise, and stops on SIGINT or
// SIGTERM (workers leave the group cleanly).
//
// See README.md beside this file.
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
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/dashboard"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/producer"
	"github.com/pond-go/pond/examples/cluster/internal/telemetry"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/pond-go/pond/examples/internal/wsping"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -help: the usage went to stderr, and asking is not a failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

// embeddedRetention is how long the embedded Kafka keeps records: it
// holds them in memory, and a replay needs a minute before a checkpoint,
// the dashboard two minutes of rows.
const embeddedRetention = 10 * time.Minute

// options are the command's flags.
type options struct {
	brokers    string
	seeds      []string // -brokers, one address each (none: embedded)
	role       string
	addr       string
	hosts      int
	rate       int
	partitions int
	workers    int
	id         string
	seed       uint
	// dashboard: how often a page is pinged, and how long its pong may
	// take before it is cut
	pingEvery, pingWait time.Duration
	maxHosts            int // worker: hosts each partition's series tracks
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.brokers, "brokers", "", "seed brokers host:port,… of a real cluster (empty: start an embedded one)")
	fs.StringVar(&o.role, "role", "all", "what this process runs: all, worker, producer or dashboard")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "HTTP listen address: the dashboard, /metrics, /metrics.json, /healthz, /readyz")
	fs.IntVar(&o.hosts, "hosts", 8, "producer: number of hosts")
	fs.IntVar(&o.rate, "rate", 10, "producer: events per second per host (must divide 1000)")
	fs.IntVar(&o.partitions, "partitions", brokers.DefaultPartitions, "partitions of the topics when they are created")
	fs.IntVar(&o.workers, "workers", 0, "workers in this process (default 3 with -role all, 1 with -role worker)")
	fs.StringVar(&o.id, "id", "", "worker ID prefix (default: the host name and process ID); transactional IDs derive from it")
	fs.UintVar(&o.seed, "seed", 42, "producer: the stream's mulberry32 seed")
	fs.IntVar(&o.maxHosts, "max-hosts", worker.DefaultMaxHosts, "worker: hosts each input partition's series tracks at once; events of new hosts past it are dropped and counted")
	fs.DurationVar(&o.pingEvery, "ping-interval", wsping.DefaultInterval, "dashboard: ping each page this long after its last pong (not while a frame is being written to it)")
	fs.DurationVar(&o.pingWait, "ping-timeout", wsping.DefaultTimeout, "dashboard: cut a page whose pong takes longer than this")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	switch o.role {
	case "all", "worker", "producer", "dashboard":
	default:
		return o, fmt.Errorf("-role %q: want all, worker, producer or dashboard", o.role)
	}
	for _, b := range strings.Split(o.brokers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			o.seeds = append(o.seeds, b)
		}
	}
	if o.workers < 0 {
		return o, fmt.Errorf("-workers %d: want at least 1 (0: the default)", o.workers)
	}
	if o.partitions < 1 || o.partitions > math.MaxInt32 {
		return o, fmt.Errorf("-partitions %d: want 1 to %d", o.partitions, math.MaxInt32)
	}
	if o.maxHosts < 1 {
		return o, fmt.Errorf("-max-hosts %d: want at least 1", o.maxHosts)
	}
	if o.pingEvery <= 0 || o.pingWait <= 0 {
		return o, fmt.Errorf("-ping-interval %v, -ping-timeout %v: want positive durations, e.g. 10s", o.pingEvery, o.pingWait)
	}
	if o.seed > math.MaxUint32 {
		return o, fmt.Errorf("-seed %d: want 0 to %d", o.seed, uint64(math.MaxUint32))
	}
	if o.role == "all" || o.role == "producer" {
		if o.hosts < 1 {
			return o, fmt.Errorf("-hosts %d: want at least 1", o.hosts)
		}
		if o.rate <= 0 || 1000%o.rate != 0 {
			return o, fmt.Errorf("-rate %d: want events per second per host that divide 1000 (1, 2, 4, 5, 8, 10, …)", o.rate)
		}
	}
	if o.workers == 0 {
		o.workers = map[string]int{"all": 3, "worker": 1}[o.role]
	}
	if o.id == "" {
		h, _ := os.Hostname()
		o.id = h + "-" + strconv.Itoa(os.Getpid())
	}
	return o, nil
}

// run starts the parts, prints the ready lines on stdout and serves until
// ctx ends. Whatever it returns, it returns once the parts it started have
// stopped.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	seeds := o.seeds
	var embedded *brokers.Embedded
	if len(seeds) == 0 {
		e, err := brokers.StartEmbedded()
		if err != nil {
			return err
		}
		defer e.Close()
		embedded, seeds = e, e.Addrs()
		fmt.Fprintf(stdout, "embedded kafka on %s\n", strings.Join(seeds, ","))
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = brokers.CreateTopics(cctx, seeds, int32(o.partitions))
	if err == nil && embedded != nil {
		err = embedded.Retain(cctx, embeddedRetention)
	}
	cancel()
	if err != nil {
		return err
	}

	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
		fams     []func() []telemetry.Family
		ready    = func() bool { return true }
	)
	ctx, stop := context.WithCancel(ctx)
	// Every return stops the parts started and waits for them, a failed
	// start (a taken -addr, a worker that cannot connect) included: run
	// used to return with the producer, workers and tier still running.
	// (Deferred before tier.Close and after the embedded Kafka's Close, so
	// the tier's client is closed first and Kafka last.)
	defer func() {
		stop()
		wg.Wait()
	}()
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil && err != nil {
			firstErr = err
			stop()
		}
		errMu.Unlock()
	}
	mux := http.NewServeMux()

	if o.role == "all" || o.role == "producer" {
		p, err := startLiveProducer(ctx, o, seeds)
		if err != nil {
			return err
		}
		wg.Go(func() { fail(p.Run(ctx)) })
		fams = append(fams, func() []telemetry.Family { return producerFamilies(p.Stats()) })
		fmt.Fprintf(stdout, "producer: %d hosts × %d events/s into %q\n", o.hosts, o.rate, brokers.Input)
	}
	if o.role == "all" || o.role == "worker" {
		var ws []*worker.Worker
		for i := range o.workers {
			w, err := worker.New(worker.Config{Brokers: seeds, ID: o.id + "-" + strconv.Itoa(i), Logger: logger, MaxHosts: o.maxHosts})
			if err != nil {
				return err
			}
			ws = append(ws, w)
			wg.Go(func() {
				fail(w.Run(ctx))
				w.Close()
			})
		}
		fams = append(fams, func() []telemetry.Family { return worker.Families(ws) })
		ready = func() bool {
			for _, w := range ws {
				if !w.Ready() {
					return false
				}
			}
			return true
		}
		fmt.Fprintf(stdout, "workers: %d in group %q\n", len(ws), brokers.Group)
	}
	if o.role == "all" || o.role == "dashboard" {
		tier, err := dashboard.New(dashboard.Config{Brokers: seeds, Logger: logger, PingInterval: o.pingEvery, PingTimeout: o.pingWait})
		if err != nil {
			return err
		}
		defer tier.Close()
		wg.Go(func() { tier.Run(ctx) })
		fams = append(fams, tier.Families)
		mux.Handle("/", tier.Handler())
	}
	telemetry.Handle(mux, func() []telemetry.Family {
		var all []telemetry.Family
		for _, f := range fams {
			all = append(all, f()...)
		}
		return all
	}, ready)

	lis, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("%w (choose another with -addr, e.g. 127.0.0.1:0)", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	url := "http://" + lis.Addr().String() + "/"
	if o.role == "all" || o.role == "dashboard" {
		fmt.Fprintf(stdout, "dashboard: %s\n", url)
	} else {
		fmt.Fprintf(stdout, "metrics: %smetrics\n", url)
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		fail(err)
	}
	stop()
	wg.Wait()
	shut, cancelShut := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancelShut()
	_ = srv.Shutdown(shut)
	if firstErr != nil && !errors.Is(firstErr, http.ErrServerClosed) {
		return firstErr
	}
	fmt.Fprintln(stdout, "cluster stopped")
	return nil
}

// maxCatchUp is how far behind the wall clock a restarted producer's
// last committed tick may be for it to go on with the next tick; past it,
// the producer starts at the wall clock and the downtime is a gap.
const maxCatchUp = time.Minute

// startLiveProducer starts the paced producer. Its stream has its ticks
// on the epoch's grid (tick k at k·1000/rate ms), so every tick's events
// are a function of its time. A new topic starts at the wall clock's
// tick; a restarted producer goes on with the tick after the last one
// committed, sending the ticks of its downtime at once (counted late),
// unless that tick is more than maxCatchUp behind the wall clock: then
// it starts at the wall clock, and the ticks between are never written.
func startLiveProducer(ctx context.Context, o options, seeds []string) (*producer.Producer, error) {
	st, err := events.NewStream(o.hosts, o.rate, 0, uint32(o.seed))
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli() / st.TickMs
	from := now
	last, err := producer.LastCommittedTime(ctx, seeds)
	if err != nil {
		return nil, err
	}
	if next := last/st.TickMs + 1; last >= 0 && next >= now-maxCatchUp.Milliseconds()/st.TickMs {
		from = next
	}
	return producer.New(ctx, producer.Config{Brokers: seeds, Stream: st, From: from, Paced: true, TxnID: "pond-producer"})
}

func producerFamilies(s producer.Stats) []telemetry.Family {
	return []telemetry.Family{
		telemetry.One("pond_producer_ticks_total", "counter", "Ticks committed to the input topic.", float64(s.Ticks)),
		telemetry.One("pond_producer_records_total", "counter", "Events committed to the input topic.", float64(s.Records)),
		telemetry.One("pond_producer_late_ticks_total", "counter", "Ticks sent more than a period after they were due.", float64(s.Skipped)),
	}
}
