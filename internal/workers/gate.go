package workers

import (
	"sync/atomic"
	"time"
)

// Gate decides, task by task, whether a kind of task is split over the
// workers or done by the caller alone, from what the tasks of that kind
// took each way on this machine. Whether a split pays depends on the
// machine more than on the task: on a virtual machine whose two
// processors share a core, or whose other processor is busy, a split
// tick waits for a worker that joins late and reads lines the other
// core wrote, and costs more than it saves. So a Gate measures: the
// first task runs alone, the second split, and from then on each task
// runs the way whose smoothed cost per item is lower (split, unless
// alone is clearly the cheaper: see splits), but now and then
// one runs the other way (a probe: one task in 16 to one in 256, the
// longer while the probes find it dearer), so that a change (the other
// processor freed, the tasks grown) is seen.
//
// The choice never shows in what a task produces (a split task's chunks
// are joined in chunk order; see [Split]), only in how long it takes. A
// Gate is used by one goroutine, the caller's.
type Gate struct {
	cost  [2]float64 // smoothed ns per item alone, split; 0: not measured yet
	tasks uint32     // tasks decided
	split bool       // the last decision
	probe bool       // and it was not the cheaper way
	way   bool       // the cheaper way, as last found
	every uint32     // tasks between probes: gateProbe, doubled while probes find the other way dearer
	next  uint32     // the task of the next probe
	start time.Time  // when the task being timed started
	items int        // its items
}

// gateProbe is how often, at the most, a task runs the way that is not
// the cheaper (a probe): one task in gateProbe; gateProbeMax at the least
// (at five ticks a second, about once a minute).
const gateProbe, gateProbeMax = 16, 256

// gateSmooth is the weight of the latest task in the smoothed cost: one
// gateSmooth-th.
const gateSmooth = 8

// Begin decides whether the task about to run, of items items (rows,
// partitions: anything its cost grows with), is split, and starts timing
// it.
func (g *Gate) Begin(items int) (split bool) {
	probe := false
	g.tasks++
	switch f := gateForce.Load(); {
	case f == 1:
		split = true
	case f == 2:
		split = g.tasks%2 == 0
	case f < 0:
		split = false
	case g.cost[0] == 0:
		split = false
	case g.cost[1] == 0:
		split = true
	default:
		split = g.splits()
		if g.every == 0 || split != g.way {
			// The first choice, or the cheaper way changed: the other
			// is probed soon.
			g.way, g.every, g.next = split, gateProbe, g.tasks+gateProbe
		}
		if g.tasks == g.next {
			split, probe = !split, true
		}
	}
	g.split, g.probe, g.items, g.start = split, probe, items, time.Now()
	return split
}

// End records the cost of the task Begin started.
func (g *Gate) End() {
	g.record(g.split, g.items, time.Since(g.start))
}

// record folds a task of items items that took d, split or alone, into
// that way's smoothed cost: by a gateSmooth-th for the way chosen as the
// cheaper, which runs every task but the probes, and at most twice the
// smoothed cost, so that slow tasks (the machine busy for a moment) do not
// turn the gate; a probe's cost is taken as it is, so that a way that
// became the cheaper is taken at once (and should the probe have been
// lucky, the tasks that follow it soon show it). It then sets the next
// probe.
func (g *Gate) record(split bool, items int, d time.Duration) {
	i := 0
	if split {
		i = 1
	}
	c := float64(max(d, 1)) / float64(max(items, 1))
	if g.cost[i] == 0 {
		g.cost[i] = c
		return
	}
	if !g.probe {
		// A task that took more than twice the smoothed cost counts
		// twice it: a machine that took the processor away for a
		// moment (another process, the collector) says little of
		// the way, and a few such moments together would turn it.
		g.cost[i] += (min(c, 2*g.cost[i]) - g.cost[i]) / gateSmooth
		return
	}
	g.cost[i] = c
	// A probe that finds the other way still dearer waits twice as long
	// for the next (a split five times as dear, probed every 16th task,
	// cost a quarter more time than running alone); one that finds it
	// cheaper turns to it, and probes soon again.
	if g.splits() == g.way {
		g.every = min(2*g.every, gateProbeMax)
	} else {
		g.every = gateProbe
	}
	g.next = g.tasks + g.every
}

// splits reports whether, by the smoothed costs, tasks are split: unless
// running alone is the cheaper by a fifth or more. A split pays off only
// where workers have processors to run on, which a caller that asked for
// workers says it has; and where the two ways cost about the same, the
// timings of single tasks, noisy on a shared machine, would turn the
// gate one way then the other and have it probe more.
func (g *Gate) splits() bool { return 5*g.cost[0] > 4*g.cost[1] }

// SetGateForce makes every Gate of the process split every task (1), none
// (−1), every other one (2), or decide from their costs (0), and returns
// the setting before. For the tests, which check that the rows do not
// depend on the choice.
func SetGateForce(f int) int {
	return int(gateForce.Swap(int32(f)))
}

// gateForce is SetGateForce's setting.
var gateForce atomic.Int32
