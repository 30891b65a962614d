package benchmarks

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
)

// BenchmarkSeedTwoSeries measures what two cores can give the seed
// pipeline when the two share nothing: two series of one worker each, on
// two goroutines, each pushed a stream of half the hosts (P/2 hosts, N
// events a second; its hosts' rows are the same work as half of the P
// hosts'), against one series pushed the whole stream (series=1, which is
// BenchmarkSeed's steady phase). It is the ceiling of any split of a
// series over two workers by partition on this machine: nothing in it is
// serial but the Go runtime's own.
//
// With sync=push the two goroutines meet after every push, as a series
// whose PushMany returns only when both halves have taken the push must;
// they meet by spinning on a shared counter, so that neither waits to be
// woken. With sync=none each pushes its half as fast as it goes.
//
// rows/s counts the rows of both halves over the wall time of the timed
// pushes (from 63 s of stream on); compare series=2 with series=1 of the
// same run.
func BenchmarkSeedTwoSeries(b *testing.B) {
	for _, c := range []struct{ P, N int }{{1000, 100}, {100, 1000}, {1000, 10}} {
		secs := steadySecs(c.P, c.N, 70)
		name := fmt.Sprintf("P=%d/N=%d", c.P, c.N)
		b.Run(name+"/series=1", func(b *testing.B) { benchSeed(b, stream(c.P, c.N, secs), 63) })
		for _, meet := range []bool{true, false} {
			how := "none"
			if meet {
				how = "push"
			}
			b.Run(name+"/series=2/sync="+how, func(b *testing.B) {
				benchTwoSeries(b, stream(c.P/2, c.N, secs), 63, meet)
			})
		}
	}
}

func benchTwoSeries(b *testing.B, half *SeedStream, warmSecs int, meet bool) {
	warm := warmSecs * half.N
	rows := 2 * (len(half.Batches) - warm) * half.P
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		var ps [2]*SeedPipeline
		for i := range ps {
			ps[i], _ = warmed(b, NewSeedPipeline, half.Batches[:warm], nil)
		}
		runtime.GC()
		var pushed atomic.Int64 // pushes both halves have finished
		var errs [2]error
		var wg sync.WaitGroup
		wg.Add(1)
		start := time.Now()
		b.StartTimer()
		go func() {
			defer wg.Done()
			errs[1] = pushHalf(ps[1], half.Feed(warm), &pushed, meet)
		}()
		errs[0] = pushHalf(ps[0], half.Feed(warm), &pushed, meet)
		wg.Wait()
		b.StopTimer()
		total += time.Since(start)
		for i, p := range ps {
			p.Series.Close()
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/total.Seconds(), "rows/s")
}

// pushHalf pushes a half's timed batches; with meet, after each push it
// waits, spinning, until the other half has pushed as many.
func pushHalf(p *SeedPipeline, feed *Feed, pushed *atomic.Int64, meet bool) error {
	var out []live.Output
	var err error
	for i := int64(1); ; i++ {
		x, ok := feed.Next()
		if !ok {
			return nil
		}
		if out, err = p.Series.PushMany(out[:0], x); err != nil {
			// Let the other half go on alone rather than wait for ever.
			pushed.Add(1 << 40)
			return err
		}
		pushed.Add(1)
		for spins := 0; meet && pushed.Load() < 2*i; spins++ {
			if spins%1024 == 1023 {
				runtime.Gosched()
			}
		}
	}
}
