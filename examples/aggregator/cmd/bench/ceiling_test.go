package main

import (
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// level is what a scripted measure returns for one rate.
type level struct {
	takenShare float64 // of the offered rows
	dropped    float64 // rows/s
	err        error
}

func TestClimbStopsAtTheFirstLevelThatDropsOrFalls(t *testing.T) {
	const hosts = 10
	rates := []int{1, 2, 4, 8}
	ok := level{takenShare: 1}
	cases := []struct {
		name     string
		script   []level
		measured int // levels run, the stopping one included
		best     int
		stop     string
	}{
		{"every level taken", []level{ok, ok, ok, ok}, 4, 3, stopExhausted},
		{"the third drops", []level{ok, ok, {takenShare: 0.8, dropped: 5}, ok}, 3, 1, stopDropped},
		{"the first drops", []level{{takenShare: 1, dropped: 1}, ok, ok, ok}, 1, -1, stopDropped},
		{"the second falls short of the offer", []level{ok, {takenShare: 0.9}, ok, ok}, 2, 1, stopShort},
		{"a short level below the previous one's rate", []level{ok, {takenShare: 0.4}, ok, ok}, 2, 0, stopShort},
		{"the second fails", []level{ok, {err: errors.New("no ready line")}, ok, ok}, 2, 0, stopError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []int
			cs := climbAll(1, hosts, rates, func(_, rate int) (result, error) {
				asked = append(asked, rate)
				l := c.script[len(asked)-1]
				if l.err != nil {
					return result{}, l.err
				}
				return result{hosts: hosts, rate: rate, taken: l.takenShare * float64(hosts*rate), droppedPerSec: l.dropped}, nil
			})
			require.Len(t, cs, 1)
			levels, best, stop := cs[0].levels, cs[0].best, cs[0].stop
			assert.Equal(t, rates[:c.measured], asked, "nothing is measured past the stopping level")
			require.Len(t, levels, c.measured)
			assert.Equal(t, c.best, best)
			assert.Equal(t, c.stop, stop)
			for i, l := range levels {
				assert.Equal(t, rates[i], l.rate)
				assert.Equal(t, hosts, l.hosts)
			}
			if c.stop == stopError {
				assert.Equal(t, "no ready line", levels[len(levels)-1].err)
			}
		})
	}
}

// TestClimbsRunSideBySide climbs two aggregators: at each level the ones
// still climbing run in turn, the first of them alternating, and one that
// stops is not measured again while the other goes on.
func TestClimbsRunSideBySide(t *testing.T) {
	type call struct{ agg, rate int }
	var calls []call
	cs := climbAll(2, 10, []int{1, 2, 4, 8}, func(i, rate int) (result, error) {
		calls = append(calls, call{i, rate})
		res := result{hosts: 10, rate: rate, taken: float64(10 * rate)}
		if i == 0 && rate == 2 {
			res.droppedPerSec = 3
		}
		return res, nil
	})
	assert.Equal(t, []call{{0, 1}, {1, 1}, {1, 2}, {0, 2}, {1, 4}, {1, 8}}, calls)
	require.Len(t, cs, 2)
	assert.Equal(t, stopDropped, cs[0].stop)
	assert.Equal(t, 0, cs[0].best)
	assert.Len(t, cs[0].levels, 2)
	assert.Equal(t, stopExhausted, cs[1].stop)
	assert.Equal(t, 3, cs[1].best)
	assert.Len(t, cs[1].levels, 4)
}

func TestTheCeilingReportNamesTheCeilingAndWhyItStopped(t *testing.T) {
	c := ceilingRun{
		agg: "pond-go", cmd: "/tmp/aggregator '-workers' '2'", hosts: 1000, extra: []string{"-workers", "2"},
		started: time.Date(2026, 12, 1, 23, 30, 0, 0, time.UTC), cores: 2,
		loadBefore: "1.00 / 2.00 / 3.00", loadAfter: "4.00 / 5.00 / 6.00",
		aggReady: "aggregator listening on :1 (producer=x, sampleStride=1, ordering=strict)",
		levels: []result{
			{hosts: 1000, rate: 1000, taken: 1_000_010, p99: 0.98, cores: 0.61, prodCPU: 0.2},
			{hosts: 1000, rate: 2000, taken: 1_999_000, warmDropped: 120_000, p99: 1.5, cores: 1.2, prodCPU: 0.4, halfFull: 1234},
			{hosts: 1000, rate: 4000, taken: 2_500_000, droppedPerSec: 1_500_000, p99: 30, cores: 1.4, prodCPU: 0.6,
				bursts: dropBursts{n: 1, rising: 299, readings: 301}, halfFull: -1},
		},
		best: 1, stop: stopDropped,
	}
	md := c.markdown("")
	for _, want := range []string{
		"### Ceiling: pond-go, 2026-12-01 23:30 UTC",
		"on 2 cores; load average (1 / 5 / 15 min) 1.00 / 2.00 / 3.00 before, 4.00 / 5.00 / 6.00 after",
		"flags passed through: `-workers 2`",
		"- Aggregator command: `/tmp/aggregator '-workers' '2'`.",
		"`aggregator listening on :1 (producer=x, sampleStride=1, ordering=strict)`",
		"| 1000 × 1000 | 1,000,000 | 1,000,010 | 0 | – | 0 | 0 | 0.98 | 0.61 | 0.20 |",
		"| 1000 × 2000 | 2,000,000 | 1,999,000 | 0 | – | 1,234 | 120,000 | 1.50 | 1.20 | 0.40 |",
		"| 1000 × 4000 | 4,000,000 | 2,500,000 | 1,500,000 | 1 (299 of 300) | – | 0 | 30.00 | 1.40 | 0.60 |",
		"**Ceiling: 1,999,000 rows/s taken with nothing dropped** (offered 1000 × 2000), batchDone p99 1.50 ms, 1.20 aggregator cores (producer 0.40).",
		"Stopped at 1000 × 4000: 1,500,000 rows/s dropped, in 1 burst (299 of 300 readings 100ms apart rising).",
	} {
		assert.Contains(t, md, want)
	}

	c.levels, c.best, c.stop = c.levels[:1], -1, stopDropped
	c.levels[0].droppedPerSec = 7
	assert.Contains(t, c.markdown("a label"), "### Ceiling: pond-go, a label")
	assert.Contains(t, c.verdict(), "**Ceiling: none measured**")
	assert.Contains(t, c.verdict(), "Stopped at 1000 × 1000: 7 rows/s dropped.")

	c.levels, c.best, c.stop = []result{{hosts: 5, rate: 10, err: "no ready line"}}, -1, stopError
	assert.Contains(t, c.markdown(""), "| 5 × 10 | 50 | error: no ready line | | | | | | | |")
	assert.Contains(t, c.verdict(), "Stopped at 5 × 10: no ready line.")
}

func TestCeilingDefaultsFillOnlyTheFlagsNotGiven(t *testing.T) {
	hosts, rates, warmup := "10,100,1000", "1,10,100,1000", 5*time.Second
	require.NoError(t, ceilingDefaults(map[string]bool{}, &hosts, &rates, &warmup, 1))
	assert.Equal(t, "1000", hosts)
	assert.Equal(t, "1000,2000,4000,8000", rates)
	assert.Equal(t, 65*time.Second, warmup)

	hosts, rates, warmup = "100", "5,50", 2*time.Second
	require.NoError(t, ceilingDefaults(map[string]bool{"hosts": true, "rates": true, "warmup": true}, &hosts, &rates, &warmup, 1))
	assert.Equal(t, "100", hosts)
	assert.Equal(t, "5,50", rates)
	assert.Equal(t, 2*time.Second, warmup)

	assert.ErrorContains(t, ceilingDefaults(map[string]bool{}, &hosts, &rates, &warmup, 2), "-rounds 2")
}

func TestCheckLadderWantsOneHostCountAndRisingRates(t *testing.T) {
	assert.NoError(t, checkLadder([]int{1000}, []int{1000, 2000, 4000}))
	assert.NoError(t, checkLadder([]int{1000}, []int{1000}))
	assert.ErrorContains(t, checkLadder([]int{10, 100}, []int{1, 2}), "one host count")
	assert.ErrorContains(t, checkLadder([]int{10}, []int{1, 4, 2}), "2 follows 4")
	assert.ErrorContains(t, checkLadder([]int{10}, []int{2, 2}), "2 follows 2")
}

// TestWithArgsPassesEachArgumentThroughTheShell runs the command the way
// the bench starts a child and reads back the arguments it got.
func TestWithArgsPassesEachArgumentThroughTheShell(t *testing.T) {
	args := []string{"-workers", "2", "it's", "a b", "$HOME", ""}
	out, err := exec.Command("sh", "-c", "exec "+withArgs(`printf '[%s]\n'`, args)).Output()
	require.NoError(t, err)
	assert.Equal(t, "[-workers]\n[2]\n[it's]\n[a b]\n[$HOME]\n[]\n", string(out))
	assert.Equal(t, "cmd", withArgs("cmd", nil))
}

// TestCeilingAtATinyScale climbs this example's producer and aggregator
// through two small levels, passing a flag through to the aggregator, and
// checks what the report holds. The outcome of a level is the machine's;
// what is checked is that every field is measured and written.
func TestCeilingAtATinyScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the producer and the aggregator (-short)")
	}
	dir := t.TempDir()
	agg, prod := filepath.Join(dir, "aggregator"), filepath.Join(dir, "producer")
	require.NoError(t, build(agg, aggregatorPkg, false))
	require.NoError(t, build(prod, producerPkg, false))
	r := runner{
		logs: dir, producer: prod, warmup: time.Second, window: 2 * time.Second,
		probes: []string{"/live", "/live-agg"}, aggReady: regexp.MustCompile(`aggregator listening on`),
		prodReady: regexp.MustCompile(`producer listening on`),
	}
	extra := []string{"-sample-stride", "2"}
	runs := r.ceilings([]aggSpec{{"pond-go", withArgs(agg, extra)}}, 3, []int{50, 100}, extra)
	require.Len(t, runs, 1)
	c := runs[0]

	require.NotEmpty(t, c.levels)
	for _, l := range c.levels {
		require.Empty(t, l.err)
		assert.Positive(t, l.taken, "%d × %d", l.hosts, l.rate)
		assert.Positive(t, l.p99, "%d × %d", l.hosts, l.rate)
		// The producer's drops were read through the 2 s window, not only
		// at its ends.
		assert.GreaterOrEqual(t, l.bursts.readings, 10, "%d × %d", l.hosts, l.rate)
		assert.GreaterOrEqual(t, l.halfFull, 0.0, "this example's producer counts its half-full enqueues")
	}
	assert.NotEqual(t, stopError, c.stop)
	if c.stop == stopExhausted {
		assert.Len(t, c.levels, 2)
		assert.Equal(t, 1, c.best)
	}
	assert.Contains(t, c.aggReady, "sampleStride=2", "the flag reached the aggregator")
	assert.Equal(t, 2, len(strings.Split(c.loadBefore, " / "))-1, c.loadBefore)
	md := c.markdown("")
	assert.Contains(t, md, "| 3 × 50 | 150 | ")
	assert.Contains(t, md, "| Dropped in warm-up (rows) |")
	assert.Contains(t, md, "flags passed through: `-sample-stride 2`")
	assert.Contains(t, md, c.verdict())
	if c.best >= 0 {
		assert.Contains(t, md, "**Ceiling: ")
	}
}

func TestDropBurstsTellStallsFromOverload(t *testing.T) {
	var b dropBursts
	for _, total := range []float64{120, 120, 180, 240, 240, 240, 300, 300} {
		b.add(total)
	}
	// 120 before the window; rising 180, 240 (one burst) and 300 (another).
	assert.Equal(t, dropBursts{n: 2, rising: 3, readings: 8, last: 300}, b)
	assert.Equal(t, "2 (3 of 7)", b.cell())
	assert.Equal(t, "2 bursts (3 of 7 readings 100ms apart rising)", b.words())

	var none dropBursts
	for range 5 {
		none.add(7)
	}
	assert.Equal(t, "0 (0 of 4)", none.cell())
	assert.Equal(t, "–", dropBursts{}.cell())
}

// A measured window or a number of rounds the run cannot use is refused,
// with the flag's name: 0 or negative seconds measured nothing, 0 rounds
// ran nothing.
func TestRunFlagsOutOfRangeAreRefusedByName(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		rounds  int
		want    string
	}{
		{0, 1, "-seconds 0: want measured seconds per cell above 0"},
		{-5, 1, "-seconds -5: want"},
		{math.NaN(), 1, "-seconds NaN: want"},
		{math.Inf(1), 1, "-seconds +Inf: want"},
		{1e300, 1, "-seconds 1e+300: want"},
		{30, 0, "-rounds 0: want at least 1"},
		{30, -2, "-rounds -2: want at least 1"},
	} {
		assert.ErrorContains(t, checkRun(c.seconds, c.rounds), c.want)
	}
	assert.NoError(t, checkRun(0.5, 1))
}
