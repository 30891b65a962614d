// Command producer runs the aggregator example's synthetic gRPC producer on
// its own: one EventBatch per tick with one event per host,
// streamed to every subscriber of /pond.experiment.v1.Producer/Subscribe,
// with Prometheus /metrics, JSON /metrics.json and /health on a second
// port.
//
//	go run ./examples/aggregator/cmd/producer -hosts 1000 -rate 100
//
// Every flag can also be set by its environment variable (GRPC_PORT,
// HOST_COUNT, EVENTS_PER_SEC, …). It listens on 127.0.0.1 unless
// PRODUCER_BIND says otherwise, prints
// "producer listening on :PORT (events=…/s, hosts=…, variability=±…)"
// when ready, and stops cleanly on SIGINT or SIGTERM.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/pond-go/pond/examples/aggregator/internal/envflag"
	"github.com/pond-go/pond/examples/aggregator/internal/producer"
)

func main() {
	err := run(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return // -help: the usage went to stderr, and asking is not a failure
	}
	if err != nil {
		// The producer package prefixes its own errors.
		msg := strings.TrimPrefix(err.Error(), "producer: ")
		if errors.Is(err, syscall.EADDRINUSE) {
			msg += " (is another producer running? choose another -port or -metrics-port, or 0 for a free one)"
		}
		fmt.Fprintln(os.Stderr, "producer:", msg)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := envflag.New(flag.NewFlagSet("producer", flag.ContinueOnError))
	bind := fs.String("bind", "PRODUCER_BIND", "127.0.0.1", "address to listen on (0.0.0.0 for every interface)")
	port := fs.Int("port", "GRPC_PORT", 50051, "gRPC port (0 picks a free one)")
	metricsPort := fs.Int("metrics-port", "METRICS_PORT", 50052, "HTTP port of /metrics and /health (-1 for none, 0 picks a free one)")
	hosts := fs.Int("hosts", "HOST_COUNT", 4, "number of hosts")
	rate := fs.Float("rate", "EVENTS_PER_SEC", 2, "events per second per host (ticks per second)")
	variability := fs.Float("variability", "VARIABILITY", 0.4, "full width of the uniform per-event CPU noise")
	seed := fs.String("seed", "SIMULATOR_SEED", "", "seed of the simulator (empty: random)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	if err := fs.Err(); err != nil {
		return err
	}
	cfg := producer.Config{
		GRPCAddr:     net.JoinHostPort(*bind, strconv.Itoa(*port)),
		Hosts:        *hosts,
		EventsPerSec: *rate,
		Variability:  *variability,
	}
	if *metricsPort >= 0 {
		cfg.MetricsAddr = net.JoinHostPort(*bind, strconv.Itoa(*metricsPort))
	}
	if *seed != "" {
		s, err := strconv.ParseUint(*seed, 10, 32)
		if err != nil {
			return fmt.Errorf("-seed %q: want an integer from 0 to 4294967295", *seed)
		}
		cfg.Seed, cfg.HasSeed = uint32(s), true
	}
	p, err := producer.Start(cfg)
	if err != nil {
		return err
	}
	_, gport, _ := net.SplitHostPort(p.GRPCAddr())
	fmt.Printf("producer listening on :%s (events=%g/s, hosts=%d, variability=±%g)\n", gport, (*rate)*float64(*hosts), *hosts, *variability/2)
	if m := p.MetricsAddr(); m != "" {
		fmt.Printf("producer metrics on http://%s/metrics\n", m)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	p.Stop()
	return nil
}
