// Command compare subscribes to two aggregators' /live-agg streams for a
// while and compares their rows by (ts, host) with a tolerance. Point both aggregators at one producer; an aggregator that
// subscribed later differs in the first ticks (-skip), and running sums
// that started at different points agree only to about 1e-12 (-tol).
//
//	go run ./examples/aggregator/cmd/compare -a ws://127.0.0.1:8080/live-agg -b ws://127.0.0.1:8081/live-agg -seconds 30
//
// It exits 1 when a compared row differs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pond-go/pond/examples/aggregator/internal/compare"
)

func main() {
	a := flag.String("a", "ws://127.0.0.1:8080/live-agg", "first aggregator's /live-agg URL")
	b := flag.String("b", "ws://127.0.0.1:8081/live-agg", "second aggregator's /live-agg URL")
	seconds := flag.Float64("seconds", 30, "how long to record")
	skip := flag.Int("skip", 2, "common ticks to skip at the start")
	tol := flag.Float64("tol", 1e-9, "absolute or relative tolerance on numbers")
	flag.Parse()
	if err := checkSeconds(*seconds); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*seconds*float64(time.Second)))
	defer cancel()
	var ra, rb compare.Rows
	errs := make(chan error, 2)
	go func() { errs <- compare.Subscribe(ctx, *a, &ra) }()
	go func() { errs <- compare.Subscribe(ctx, *b, &rb) }()
	for range 2 {
		if err := <-errs; err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(2)
		}
	}
	rep := compare.Compare(&ra, &rb, *skip, *tol)
	fmt.Printf("A %s: %d rows; B %s: %d rows\n%s\n", *a, ra.Len(), *b, rb.Len(), rep)
	if !rep.OK() {
		fmt.Fprintln(os.Stderr, "compare:", rep.Problem())
		os.Exit(1)
	}
}

// checkSeconds refuses a recording time the tool cannot use: 0 or fewer
// seconds recorded nothing and reported the failure of a timed-out
// subscription, not the flag.
func checkSeconds(seconds float64) error {
	if !(seconds > 0) || seconds > maxSeconds {
		return fmt.Errorf("-seconds %v: want seconds to record above 0, at most %g", seconds, float64(maxSeconds))
	}
	return nil
}

// maxSeconds is the longest -seconds taken: a year, far below where the
// recording time's nanoseconds would overflow.
const maxSeconds = 365 * 24 * 3600
