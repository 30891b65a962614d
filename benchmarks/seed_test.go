package benchmarks

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

var allAnswers = flag.Bool("all-answers", false, "also check the three large seed configurations (slow)")

// SeedAnswer is pond-ts's checksum of the seed workload for one
// configuration (docs/workload.md).
type SeedAnswer struct {
	P, N, Secs     int
	Rows           int
	CPUAvgSum      float64
	CPUAvgSumR6    int64
	CPUNSum        int64
	RequestsSumSum int64
	SamplesLenSum  int64
	CPUMaxSumR6    int64
	CPUSdSumR6     int64
	PerSecRows     int
	PerSecCountSum int64
	Ingested       uint64
	Evicted        uint64
}

// SeedAnswers are the five configurations of docs/workload.md.
var SeedAnswers = []SeedAnswer{
	{10, 1000, 70, 3490, 1757.724008983987, 1757724021, 119700349, 11971485286, 698349, 3179551583, 374223585, 349, 3470349, 700000, 399990},
	{1000, 10, 70, 349000, 175772.35563767992, 175772355469, 119700349, 11971485286, 698349, 196577159544, 37115051685, 349, 3470349, 700000, 399000},
	{100, 1000, 70, 34900, 17586.79844534201, 17586798447, 1197000349, 119704241995, 6980349, 31760685871, 3744425917, 349, 34700349, 7000000, 3999900},
	{1000, 100, 70, 349000, 175867.98292267657, 175867982776, 1197000349, 119704241995, 6980349, 253167909736, 37416484844, 349, 34700349, 7000000, 3999000},
	{1000, 1000, 8, 39000, 19653.55050209651, 19653550460, 156000039, 15600462276, 7800039, 35481425224, 4182939231, 39, 37000039, 8000000, 0},
}

// r6 is JavaScript's Math.round(x·1e6): halves round up.
func r6(x float64) int64 { return int64(math.Floor(x*1e6 + 0.5)) }

// SeedChecksum accumulates the checksums of a run.
type SeedChecksum struct {
	SeedAnswer
	samples schema.Ref // cpu_samples, resolved at the first output
	xs      []float64  // scratch for the samples of one row
}

// Add folds one push's outputs into the checksum.
func (c *SeedChecksum) Add(p *SeedPipeline, out []live.Output) {
	for _, o := range out {
		switch o.Node {
		case p.Hosts:
			t := o.Events
			c.Rows += t.Len()
			avg, _ := t.Numbers("cpu_avg")
			n, _ := t.Numbers("cpu_n")
			rs, _ := t.Numbers("requests_sum")
			mx, _ := t.Numbers("cpu_max")
			sd, _ := t.Numbers("cpu_sd")
			if c.samples == (schema.Ref{}) {
				ref, err := t.Schema().Ref("cpu_samples", schema.Array)
				if err != nil {
					panic(err)
				}
				c.samples = ref
			}
			for i := range t.Len() {
				if avg[i] == avg[i] {
					c.CPUAvgSum += avg[i]
					c.CPUAvgSumR6 += r6(avg[i])
				}
				c.CPUNSum += int64(n[i])
				c.RequestsSumSum += int64(rs[i])
				if mx[i] == mx[i] {
					c.CPUMaxSumR6 += r6(mx[i])
				}
				if sd[i] == sd[i] {
					c.CPUSdSumR6 += r6(sd[i])
				}
				c.xs, _ = t.AppendNums(c.xs[:0], c.samples, i)
				c.SamplesLenSum += int64(len(c.xs))
			}
		case p.PerSec:
			c.PerSecRows += o.Events.Len()
			eps, _ := o.Events.Numbers("events_per_sec")
			for _, x := range eps {
				c.PerSecCountSum += int64(x)
			}
		}
	}
}

// RunSeed runs the seed pipeline over the stream and returns its checksum.
func RunSeed(st *SeedStream) (SeedChecksum, error) {
	p, err := NewSeedPipeline()
	if err != nil {
		return SeedChecksum{}, err
	}
	var c SeedChecksum
	var out []live.Output
	for _, b := range st.Batches {
		if out, err = p.Series.PushMany(out[:0], b); err != nil {
			return c, err
		}
		c.Add(p, out)
	}
	stats := p.Series.Stats()
	c.Ingested, c.Evicted = stats.Ingested, stats.Evicted
	return c, nil
}

func TestSeedAnswers(t *testing.T) {
	for _, want := range SeedAnswers {
		name := fmt.Sprintf("P=%d/N=%d/secs=%d", want.P, want.N, want.Secs)
		t.Run(name, func(t *testing.T) {
			if want.P*want.N > 10_000 && !*allAnswers {
				t.Skip("large configuration: run with -all-answers")
			}
			got, err := RunSeed(NewSeedStream(want.P, want.N, want.Secs))
			require.NoError(t, err)
			assert.Equal(t, want.Rows, got.Rows, "rows emitted")
			assert.InDelta(t, want.CPUAvgSum, got.CPUAvgSum, math.Abs(want.CPUAvgSum)*1e-9, "cpu_avg_sum")
			assert.InDelta(t, want.CPUAvgSumR6, got.CPUAvgSumR6, 2, "cpu_avg_sum_r6")
			assert.Equal(t, want.CPUNSum, got.CPUNSum, "cpu_n_sum")
			assert.Equal(t, want.RequestsSumSum, got.RequestsSumSum, "requests_sum_sum")
			assert.Equal(t, want.SamplesLenSum, got.SamplesLenSum, "samples_len_sum")
			assert.InDelta(t, want.CPUMaxSumR6, got.CPUMaxSumR6, 2, "cpu_max_sum_r6")
			assert.InDelta(t, want.CPUSdSumR6, got.CPUSdSumR6, 2, "cpu_sd_sum_r6")
			assert.Equal(t, want.PerSecRows, got.PerSecRows, "persec rows")
			assert.Equal(t, want.PerSecCountSum, got.PerSecCountSum, "persec_count_sum")
			assert.Equal(t, want.Ingested, got.Ingested, "ingested")
			assert.Equal(t, want.Evicted, got.Evicted, "evicted")
		})
	}
}

// TestSeedSteadyDoesNotAllocate guards the zero-allocation claim of the
// seed pipeline: once the 1m windows are full and evicting and every
// buffer has reached its high-water mark, pushes (and the ticks they
// fire) allocate nothing, counted exactly over a minute of stream, on
// small configurations. A minute covers several turns of every deque
// block (256 rows per partition) and of the root's chunks.
func TestSeedSteadyDoesNotAllocate(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, c := range []struct{ P, N int }{{20, 100}, {50, 10}} {
			n := steadyAllocs(t, NewSeedStream(c.P, c.N, 210), 150, false, workers)
			assert.Zero(t, n, "P=%d N=%d, %d workers: allocations over a minute of pushes in steady state", c.P, c.N, workers)
		}
	}
	// Two workers with every push's rows handed over between ticks (these
	// pushes are smaller than the default hand-over).
	defer engine.SetHandOffRows(engine.SetHandOffRows(1))
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	for _, c := range []struct{ P, N int }{{20, 100}, {50, 10}} {
		n := steadyAllocs(t, NewSeedStream(c.P, c.N, 210), 150, false, 2)
		assert.Zero(t, n, "P=%d N=%d, 2 workers, every push handed over: allocations in steady state", c.P, c.N)
	}
}

// waitSome has goroutines wait for a lock and a channel a few times. The
// runtime keeps what a waiting goroutine needs (a sudog) in a cache per
// processor, and makes new ones only while the cache is short; the first
// waits after [allocs.Count] sets one processor would otherwise count
// them, as the pushes' own allocations.
func waitSome() {
	var mu sync.Mutex
	ch := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			//lint:ignore SA2001 the wait for the lock is the point
			mu.Unlock()
			<-ch
		}()
	}
	mu.Lock()
	runtime.Gosched()
	mu.Unlock()
	close(ch)
	wg.Wait()
}

// TestWorkersTakingPartLateDoNotAllocate: a second worker whose core was
// busy through the whole warm-up (the pushing goroutine did every tick
// and closing alone) takes part for the first time in the steady phase,
// in every tick and split closing: nothing allocates, as its scratch was
// readied with the first tick or closing split for two, whoever did it.
func TestWorkersTakingPartLateDoNotAllocate(t *testing.T) {
	defer aligned.SetCloseSplitRows(aligned.SetCloseSplitRows(1 << 30))
	defer workers.SetGateForce(workers.SetGateForce(1))
	defer workers.SetEveryPart(workers.SetEveryPart(false))
	defer workers.SetAlone(workers.SetAlone(true))
	for _, al := range []bool{false, true} {
		for _, c := range []struct{ P, N int }{{20, 100}, {50, 10}} {
			workers.SetAlone(true)
			workers.SetEveryPart(false)
			n := steadyAllocsThen(t, NewSeedStream(c.P, c.N, 140), 75, al, 2, func() {
				workers.SetAlone(false)
				workers.SetEveryPart(true)
			})
			assert.Zero(t, n, "P=%d N=%d, aligned %v: allocations once the second worker takes part", c.P, c.N, al)
		}
	}
}

// steadyAllocs pushes the first warmSecs of st into a fresh seed pipeline
// (aligned or not, on the given number of workers), then counts exactly
// the allocations of the remaining pushes.
func steadyAllocs(t *testing.T, st *SeedStream, warmSecs int, aligned bool, workers int) uint64 {
	t.Helper()
	return steadyAllocsThen(t, st, warmSecs, aligned, workers, func() {})
}

// steadyAllocsThen is steadyAllocs calling then just before the first
// push it counts.
func steadyAllocsThen(t *testing.T, st *SeedStream, warmSecs int, aligned bool, workers int, then func()) uint64 {
	t.Helper()
	warm := warmSecs * st.N
	p, out := warmed(t, func() (*SeedPipeline, error) { return NewSeedPipelineWith(aligned, workers) }, st.Batches[:warm], nil)
	defer p.Series.Close()
	next := warm
	calls := 0
	return allocs.Count(len(st.Batches)-warm-1, func() {
		switch calls++; calls {
		case 1: // Count's first call, not counted
			waitSome()
		case 2: // the first push counted
			then()
		}
		out, _ = p.Series.PushMany(out[:0], st.Batches[next])
		next++
	})
}

// TestSeedAlignedAnswers checks the aligned seed pipeline against counts
// that follow from the stream's shape: each host emits at every closed
// boundary b = 200 ms·k (k = 1 … 349 over 70 s), its 1m window holding
// exactly the N·min(b, 60 s) rows of [b − 1m, b) and its 200ms window
// N/5 rows; the unpartitioned 1s count holds P·N·min(b, 1 s) rows.
func TestSeedAlignedAnswers(t *testing.T) {
	for _, c := range []struct{ P, N int }{{10, 100}, {30, 10}} {
		st := NewSeedStream(c.P, c.N, 70)
		p, err := NewSeedAlignedPipeline()
		require.NoError(t, err)
		var out []live.Output
		rows, nSum, samples, perSecRows, perSecSum := 0, 0.0, 0, 0, 0.0
		for _, b := range st.Batches {
			out, err = p.Series.PushMany(out[:0], b)
			require.NoError(t, err)
			for _, o := range out {
				if o.Node == p.PerSec {
					perSecRows += o.Events.Len()
					xs, _ := o.Events.Numbers("events_per_sec")
					for _, x := range xs {
						perSecSum += x
					}
					continue
				}
				rows += o.Events.Len()
				ns, _ := o.Events.Numbers("cpu_n")
				for _, x := range ns {
					nSum += x
				}
				ref, err := o.Events.Schema().Ref("cpu_samples", schema.Array)
				require.NoError(t, err)
				var xs []float64
				for i := range o.Events.Len() {
					xs, _ = o.Events.AppendNums(xs[:0], ref, i)
					samples += len(xs)
				}
			}
		}
		wantN, wantPerSec := 0.0, 0.0
		for k := 1; k <= 349; k++ {
			ms := 200 * k
			wantN += float64(c.N * min(ms, 60000) / 1000)
			wantPerSec += float64(c.P * c.N * min(ms, 1000) / 1000)
		}
		assert.Equal(t, c.P*349, rows, "rows emitted")
		assert.Equal(t, float64(c.P)*wantN, nSum, "cpu_n summed")
		assert.Equal(t, c.P*349*c.N/5, samples, "samples")
		assert.Equal(t, 349, perSecRows, "per-second rows")
		assert.Equal(t, wantPerSec, perSecSum, "per-second counts")
	}
}

// TestSeedAlignedSteadyDoesNotAllocate is TestSeedSteadyDoesNotAllocate
// for the aligned pipeline: once the panes' rings, the raw rows of the
// 200ms window and the output tables have reached their sizes, pushes
// allocate nothing, counted exactly over a minute of pushes.
func TestSeedAlignedSteadyDoesNotAllocate(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, c := range []struct{ P, N int }{{20, 100}, {50, 10}} {
			n := steadyAllocs(t, NewSeedStream(c.P, c.N, 140), 75, true, workers)
			assert.Zero(t, n, "P=%d N=%d, %d workers: allocations over a minute of aligned pushes in steady state", c.P, c.N, workers)
		}
	}
	// Two workers splitting every other closing and closing the others
	// alone (by default, only closings after fewer than eight rows a
	// partition may be split: here at N=10, not at N=100, and then as the
	// workers' gate finds pays): neither way nor a switch allocates.
	defer aligned.SetCloseSplitRows(aligned.SetCloseSplitRows(1 << 30))
	defer workers.SetGateForce(workers.SetGateForce(2))
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	for _, c := range []struct{ P, N int }{{20, 100}, {50, 10}} {
		n := steadyAllocs(t, NewSeedStream(c.P, c.N, 140), 75, true, 2)
		assert.Zero(t, n, "P=%d N=%d, 2 workers, every closing split: allocations over a minute of aligned pushes in steady state", c.P, c.N)
	}
}

// TestWorkersHandOverHoldNoSpareBlock: rows handed to a worker between
// ticks enter their deques before the tick evicts for them, so a deque
// holds up to a step of rows beside its 1m window. Deques filling their
// windows make room for those rows when their last block is cut; before
// they did, a ring that outgrew its block while wrapped took a full
// block of 1,024 rows (24 KB at 24 bytes a row) for the step's few rows,
// at 200 hosts × 100 events a second and at 100 × 200. Two workers,
// every push's rows handed over, now hold what one worker holds plus the
// buffers of a tick's rows (1.7 and 3.3 KB a partition here) and the
// step's rows in the rings, well under a full block.
func TestWorkersHandOverHoldNoSpareBlock(t *testing.T) {
	defer engine.SetHandOffRows(engine.SetHandOffRows(1))
	for _, c := range []struct{ P, N int }{{200, 100}, {100, 200}} {
		st := NewSeedStream(c.P, c.N, 70)
		held := func(workers int) float64 {
			p, _ := warmed(t, func() (*SeedPipeline, error) { return NewSeedPipelineWith(false, workers) }, st.Batches, nil)
			defer p.Series.Close()
			n, err := p.Series.NodeBytes(p.Hosts)
			require.NoError(t, err)
			return float64(n) / float64(st.P)
		}
		one, two := held(1), held(2)
		assert.Less(t, two-one, 8192.0, "P=%d N=%d: bytes a partition, two workers (every push handed over) %.0f, one worker %.0f", c.P, c.N, two, one)
	}
}
