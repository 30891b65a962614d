package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/procfs"
)

// minTakenShare is the share of the offered rows a level must take for the
// climb to go on: below it (with nothing dropped) the producer, on the same
// cores, did not offer the load, and a higher level would measure the
// producer rather than the aggregator.
const minTakenShare = 0.95

// Why a climb ended.
const (
	stopDropped   = "dropped"
	stopShort     = "short"
	stopError     = "error"
	stopExhausted = "exhausted"
)

// ceilingRun is one aggregator's climb up the ladder of offered loads.
type ceilingRun struct {
	agg   string
	cmd   string // the aggregator's command, passed-through flags included
	hosts int
	extra []string // flags passed through to the aggregator
	// levels are the levels run, in order; the one that ended the climb
	// (when one did) is last.
	levels []result
	// best indexes the level with the highest rate taken and nothing
	// dropped; -1 when there is none (the first level dropped or failed).
	best int
	// stop says why the climb ended: stopDropped, stopShort, stopError or
	// stopExhausted (every level taken).
	stop string
	// started is when the climbs began; cores the machine's CPU count;
	// load the 1, 5 and 15 minute load averages before and after them.
	started               time.Time
	cores                 int
	loadBefore, loadAfter string
	// aggReady is the aggregator's ready line (it names some settings).
	aggReady string
}

// climber is one aggregator's climb: the levels run so far, the best of
// them, and why it stopped ("" while it goes on).
type climber struct {
	levels []result
	best   int
	stop   string
}

// take records the outcome of the next level and stops the climb at a
// level that failed, dropped a row, or took less than minTakenShare of
// what was offered. best moves to the level when it took the most so far
// with nothing dropped.
func (c *climber) take(hosts, rate int, res result, err error) {
	if err != nil {
		res.hosts, res.rate, res.err = hosts, rate, err.Error()
		c.levels, c.stop = append(c.levels, res), stopError
		return
	}
	c.levels = append(c.levels, res)
	if res.droppedPerSec > 0 {
		c.stop = stopDropped
		return
	}
	if c.best < 0 || res.taken > c.levels[c.best].taken {
		c.best = len(c.levels) - 1
	}
	if res.taken < minTakenShare*float64(hosts*rate) {
		c.stop = stopShort
	}
}

// climbAll climbs n aggregators up the rates, lowest first: at each level
// the aggregators still climbing are measured in turn (measure(i, rate)
// for aggregator i), the order rotating by level so that none is always
// first, and each stops at its own first level that fails, drops or falls
// short. A climb that runs out of rates stops with stopExhausted.
func climbAll(n, hosts int, rates []int, measure func(i, rate int) (result, error)) []climber {
	cs := make([]climber, n)
	for i := range cs {
		cs[i].best = -1
	}
	for l, rate := range rates {
		for k := range n {
			i := (k + l) % n
			if cs[i].stop != "" {
				continue
			}
			res, err := measure(i, rate)
			cs[i].take(hosts, rate, res, err)
		}
	}
	for i := range cs {
		if cs[i].stop == "" {
			cs[i].stop = stopExhausted
		}
	}
	return cs
}

// ceilings climbs the ladder for every aggregator side by side (see
// climbAll), a fresh producer and aggregator per level, printing each
// level's row as it is measured.
func (r *runner) ceilings(aggs []aggSpec, hosts int, rates []int, extra []string) []ceilingRun {
	started, before := time.Now().UTC(), loadAverage()
	cs := climbAll(len(aggs), hosts, rates, func(i, rate int) (result, error) {
		res, err := r.run(aggs[i], hosts, rate, 1)
		if err != nil {
			res = result{agg: aggs[i].name, hosts: hosts, rate: rate, round: 1, err: err.Error()}
		}
		fmt.Println(res.row())
		return res, err
	})
	after := loadAverage()
	runs := make([]ceilingRun, len(aggs))
	for i, c := range cs {
		runs[i] = ceilingRun{
			agg: aggs[i].name, cmd: aggs[i].cmd, hosts: hosts, extra: extra, levels: c.levels, best: c.best, stop: c.stop,
			started: started, cores: runtime.NumCPU(), loadBefore: before, loadAfter: after,
		}
		for _, l := range c.levels {
			if l.aggReady != "" {
				runs[i].aggReady = l.aggReady
				break
			}
		}
	}
	return runs
}

// loadAverage reads the 1, 5 and 15 minute load averages, or says why not.
func loadAverage() string {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	l, err := fs.LoadAvg()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", l.Load1, l.Load5, l.Load15)
}

// markdown writes the climb as a heading, the machine, one table row per
// level and the ceiling.
func (c ceilingRun) markdown(label string) string {
	var b strings.Builder
	if label == "" {
		label = c.started.Format("2006-01-02 15:04 UTC")
	}
	flags := "none"
	if len(c.extra) > 0 {
		flags = "`" + strings.Join(c.extra, " ") + "`"
	}
	fmt.Fprintf(&b, "### Ceiling: %s, %s\n\n", c.agg, label)
	fmt.Fprintf(&b, "- Started %s on %d cores; load average (1 / 5 / 15 min) %s before, %s after.\n",
		c.started.Format("2006-01-02 15:04 UTC"), c.cores, c.loadBefore, c.loadAfter)
	fmt.Fprintf(&b, "- Aggregator flags passed through: %s.\n", flags)
	if c.cmd != "" {
		fmt.Fprintf(&b, "- Aggregator command: `%s`.\n", c.cmd)
	}
	if c.aggReady != "" {
		fmt.Fprintf(&b, "- Aggregator's ready line: `%s`.\n", c.aggReady)
	}
	b.WriteString("\n| Hosts × ev/s | Offered rows/s | Rows/s taken | Dropped/s | Drop bursts (readings rising) | Half-full enqueues | Dropped in warm-up (rows) | batchDone p99 ms | CPU cores | Producer cores |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range c.levels {
		if l.err != "" {
			fmt.Fprintf(&b, "| %d × %d | %s | error: %s | | | | | | | |\n", l.hosts, l.rate, comma(float64(l.hosts*l.rate)), l.err)
			continue
		}
		half := "–"
		if l.halfFull >= 0 {
			half = comma(l.halfFull)
		}
		fmt.Fprintf(&b, "| %d × %d | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", l.hosts, l.rate,
			comma(float64(l.hosts*l.rate)), comma(l.taken), comma(l.droppedPerSec), l.bursts.cell(), half, comma(l.warmDropped), l.p99, l.cores, l.prodCPU)
	}
	b.WriteString("\n" + c.verdict() + "\n")
	return b.String()
}

// verdict is the climb's outcome in one paragraph.
func (c ceilingRun) verdict() string {
	var b strings.Builder
	if c.best < 0 {
		b.WriteString("**Ceiling: none measured** (no level was taken with nothing dropped).")
	} else {
		l := c.levels[c.best]
		fmt.Fprintf(&b, "**Ceiling: %s rows/s taken with nothing dropped** (offered %d × %d), batchDone p99 %.2f ms, %.2f aggregator cores (producer %.2f).",
			comma(l.taken), l.hosts, l.rate, l.p99, l.cores, l.prodCPU)
	}
	last := c.levels[len(c.levels)-1]
	switch c.stop {
	case stopDropped:
		fmt.Fprintf(&b, " Stopped at %d × %d: %s rows/s dropped", last.hosts, last.rate, comma(last.droppedPerSec))
		if last.bursts.readings > 1 {
			fmt.Fprintf(&b, ", in %s", last.bursts.words())
		}
		b.WriteString(".")
	case stopShort:
		fmt.Fprintf(&b, " Stopped at %d × %d: %s of %s rows/s taken with nothing dropped, so the producer did not offer the load.",
			last.hosts, last.rate, comma(last.taken), comma(float64(last.hosts*last.rate)))
	case stopError:
		fmt.Fprintf(&b, " Stopped at %d × %d: %s.", last.hosts, last.rate, last.err)
	case stopExhausted:
		fmt.Fprintf(&b, " Every level was taken; the ceiling is higher (add rates).")
	}
	return b.String()
}
