package main

// Checks that the bench's statistics are what README.md ("Racing
// aggregators", "The ceiling") and BENCH.md say, against independent
// computations on synthetic inputs.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bt42Bursts counts, from a series of a counter's readings, the readings
// that rose above the one before and the runs of such readings.
func bt42Bursts(xs []float64) (bursts, rising int) {
	in := false
	for i := 1; i < len(xs); i++ {
		up := xs[i] > xs[i-1]
		if up {
			rising++
			if !in {
				bursts++
			}
		}
		in = up
	}
	return bursts, rising
}

func TestBt42DropBurstsAgainstAnIndependentCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for trial := range 500 {
		n := rng.IntN(40)
		xs := make([]float64, n)
		total := float64(rng.IntN(1000))
		for i := range xs {
			if rng.IntN(3) == 0 {
				total += float64(1 + rng.IntN(500))
			}
			xs[i] = total
		}
		var b dropBursts
		for _, x := range xs {
			b.add(x)
		}
		bursts, rising := bt42Bursts(xs)
		require.Equal(t, bursts, b.n, "trial %d %v", trial, xs)
		require.Equal(t, rising, b.rising, "trial %d", trial)
		require.Equal(t, n, b.readings, "trial %d", trial)
		if n >= 2 {
			require.Equal(t, strconv.Itoa(bursts)+" ("+strconv.Itoa(rising)+" of "+strconv.Itoa(n-1)+")", b.cell())
		} else {
			require.Equal(t, "–", b.cell())
		}
	}
}

// bt42Level is a scripted level outcome.
type bt42Level struct {
	share, dropped float64
	fail           bool
}

// bt42Climb is the stopping rule as the README states it, written
// independently: levels are run lowest first; a climb stops at the first
// level that fails, drops a row in the measured window, or takes under
// 95 % of the offered rows; the ceiling is the level with the most rows
// taken and nothing dropped (the first such, on a tie).
func bt42Climb(hosts int, rates []int, script []bt42Level) (run, best int, stop string) {
	best = -1
	bestTaken := math.Inf(-1)
	for i, l := range script[:len(rates)] {
		run = i + 1
		if l.fail {
			return run, best, stopError
		}
		if l.dropped > 0 {
			return run, best, stopDropped
		}
		offered := float64(hosts * rates[i])
		if taken := l.share * offered; taken > bestTaken {
			best, bestTaken = i, taken
		}
		if l.share*offered < 0.95*offered {
			return run, best, stopShort
		}
	}
	return run, best, stopExhausted
}

func TestBt42CeilingStopsAndPicksAsTheREADMESays(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 2))
	const hosts = 1000
	rates := []int{250, 500, 1000, 2000, 4000, 8000}
	for trial := range 300 {
		nAgg := 1 + rng.IntN(3)
		scripts := make([][]bt42Level, nAgg)
		for i := range scripts {
			for range rates {
				var l bt42Level
				switch rng.IntN(8) {
				case 0:
					l.fail = true
				case 1:
					l.share, l.dropped = 0.99, float64(rng.IntN(3)) // 0 or a drop
				case 2:
					l.share = 0.5 + rng.Float64()/2 // maybe short
				default:
					l.share = 0.95 + rng.Float64()/10
				}
				scripts[i] = append(scripts[i], l)
			}
		}
		next := make([]int, nAgg)
		cs := climbAll(nAgg, hosts, rates, func(i, rate int) (result, error) {
			l := scripts[i][next[i]]
			require.Equal(t, rates[next[i]], rate, "aggregator %d climbs its rates in order", i)
			next[i]++
			if l.fail {
				return result{}, assert.AnError
			}
			return result{hosts: hosts, rate: rate, taken: l.share * float64(hosts*rate), droppedPerSec: l.dropped}, nil
		})
		require.Len(t, cs, nAgg)
		for i, c := range cs {
			run, best, stop := bt42Climb(hosts, rates, scripts[i])
			require.Equal(t, run, next[i], "trial %d agg %d: levels measured", trial, i)
			require.Len(t, c.levels, run)
			require.Equal(t, stop, c.stop, "trial %d agg %d", trial, i)
			require.Equal(t, best, c.best, "trial %d agg %d", trial, i)
			if best >= 0 {
				require.Zero(t, c.levels[best].droppedPerSec, "the ceiling dropped nothing")
				require.Empty(t, c.levels[best].err)
			}
		}
	}
}

// bt42Comma writes x rounded to the nearest integer with a comma every
// three digits from the right.
func bt42Comma(x float64) string {
	s := strconv.FormatFloat(math.Floor(x+0.5), 'f', 0, 64)
	var parts []string
	for len(s) > 3 {
		parts = append([]string{s[len(s)-3:]}, parts...)
		s = s[:len(s)-3]
	}
	return strings.Join(append([]string{s}, parts...), ",")
}

func TestBt42CommaRoundsAndGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 3))
	for range 2000 {
		x := float64(rng.Int64N(1e13)) / 4 // quarters: .5 rounds up
		require.Equal(t, bt42Comma(x), comma(x), "%v", x)
	}
	for _, x := range []float64{0, 0.4, 0.5, 999, 999.5, 1000, 999_999.5, 1e6} {
		assert.Equal(t, bt42Comma(x), comma(x), "%v", x)
	}
}

// The report's rows have as many cells as its headers.
func TestBt42TablesHaveTheirHeadersCellCount(t *testing.T) {
	cells := func(line string) int { return strings.Count(line, "|") - 1 }
	head := strings.Split(header(), "\n")
	require.Len(t, head, 2)
	n := cells(head[0])
	assert.Equal(t, n, cells(head[1]))
	r := result{agg: "a", hosts: 10, rate: 100, round: 1, taken: 999.6, cores: 0.5, prodCPU: 0.2, rssMB: 10, heapMB: 5,
		droppedPerSec: 3, p50: 0.1, p99: 1.25, aggFPS: 5, probeDrops: 2}
	assert.Equal(t, n, cells(r.row()))
	assert.Contains(t, r.row(), "| 1,000 | 1,000 | 0.50 | 0.20 | 10 | 5 | 3 | 0.100 | 1.25 | 5.0 (probe dropped 2×) |")
	r.err = "boom"
	assert.Equal(t, n, cells(r.row()))

	c := ceilingRun{agg: "a", hosts: 10, levels: []result{
		{hosts: 10, rate: 100, taken: 1000, halfFull: 3, bursts: dropBursts{readings: 5}},
		{hosts: 10, rate: 200, err: "x"},
	}, best: 0, stop: stopError}
	var rows []string
	for _, l := range strings.Split(c.markdown("l"), "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	require.Len(t, rows, 4)
	for _, l := range rows {
		assert.Equal(t, cells(rows[0]), cells(l), l)
	}
}

// cpuSeconds is utime+stime in seconds: for this process it lies between
// two getrusage readings taken around it (the kernel's clock ticks of
// 10 ms apart).
func TestBt42CPUSecondsIsUserPlusSystemTime(t *testing.T) {
	burn := 0.0
	for i := range 20_000_000 {
		burn += math.Sqrt(float64(i))
	}
	require.Positive(t, burn)
	read := func() float64 {
		var ru syscall.Rusage
		require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	before := read()
	got, err := cpuSeconds(os.Getpid())
	after := read()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, got, before-0.03)
	assert.LessOrEqual(t, got, after+0.03)
}

// TestMain runs the test binary as bt42FakeChild when BT42_ROLE is set
// (TestBt42RunReportsTheRightReadings starts it so), else the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv("BT42_ROLE"); role != "" {
		bt42FakeChild(role)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// bt42FakeChild is a stand-in child for TestBt42RunReportsTheRightReadings:
// a producer or an aggregator that serves /metrics.json counters which
// advance by one step a request, and writes each step it served to
// stderr.
func bt42FakeChild(role string) {
	port := os.Getenv("AGGREGATOR_PORT")
	if role == "producer" {
		port = os.Getenv("METRICS_PORT")
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	k := 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics.json", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		k++
		fmt.Fprintf(os.Stderr, "served %d\n", k)
		if role == "producer" {
			fmt.Fprintf(w, `{"dropped_rows_total": %d, "queued_half_full_total": %d}`, 7*k, 3*k)
			return
		}
		fmt.Fprintf(w, `{"events": {"ingested": %d}, "latency": {"batchDoneMs": {"p50": %d, "p99": %d}}, "memory": {"heapUsed": %d}}`,
			1000*k, k, 100+k, k<<20)
	})
	fmt.Printf("%s listening on %s\n", role, port)
	_ = http.Serve(l, mux)
}

// bt42Served is the last step a stand-in child served.
func bt42Served(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	last := 0
	for _, line := range strings.Split(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "served "); ok {
			last, err = strconv.Atoi(n)
			require.NoError(t, err)
		}
	}
	return last
}

// run reports each figure from the reading the README names: rows taken
// and rows dropped are the counters' differences over the same window
// (their ratio is the ratio of the differences), the warm-up's drops the
// producer's counter at the window's start, the half-full enqueues its
// difference, batchDone p50/p99 the aggregator's last reading, the heap
// the largest of the readings inside the window, the bursts every
// reading of the drop counter.
func TestBt42RunReportsTheRightReadings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two stand-in children (-short)")
	}
	bin, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	child := func(role string) string {
		return "env BT42_ROLE=" + role + " " + withArgs(bin, []string{"-test.run=^$"})
	}
	r := runner{
		logs: dir, producer: child("producer"), window: 1050 * time.Millisecond,
		aggReady: regexp.MustCompile(`aggregator listening on`), prodReady: regexp.MustCompile(`producer listening on`),
	}
	res, err := r.run(aggSpec{name: "fake", cmd: child("aggregator")}, 10, 100, 1)
	require.NoError(t, err)
	aggSteps := bt42Served(t, filepath.Join(dir, "fake-10x100-r1.stderr"))
	prodSteps := bt42Served(t, filepath.Join(dir, "producer-10x100-r1.stderr"))
	require.GreaterOrEqual(t, aggSteps, 2)
	require.GreaterOrEqual(t, prodSteps, 2)
	// The aggregator's first reading is step 1 (m0), its last step
	// aggSteps (m1); the producer's first step 1 (d0), its last prodSteps.
	dIngested, dDropped := 1000*(aggSteps-1), 7*(prodSteps-1)
	assert.InEpsilon(t, float64(dIngested)/float64(dDropped), res.taken/res.droppedPerSec, 1e-9, "taken ÷ dropped over one window")
	assert.Equal(t, 7.0, res.warmDropped, "the drops before the window")
	assert.Equal(t, float64(3*(prodSteps-1)), res.halfFull)
	assert.Equal(t, float64(aggSteps), res.p50, "p50 of the last reading")
	assert.Equal(t, float64(100+aggSteps), res.p99, "p99 of the last reading")
	if aggSteps > 2 {
		assert.Equal(t, float64(aggSteps-1), res.heapMB, "the largest heap read inside the window, in MiB")
	}
	assert.Equal(t, dropBursts{n: 1, rising: prodSteps - 1, readings: prodSteps, last: float64(7 * prodSteps), dropping: true}, res.bursts)
	assert.Positive(t, res.taken)
}
