package workers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// runGate decides tasks tasks of items items on g, each costing the
// given ns an item alone or split, and returns the indices (from 0) of
// those split.
func runGate(g *Gate, tasks, items int, alone, split time.Duration) []int {
	var out []int
	for k := range tasks {
		s := g.Begin(items)
		cost := alone
		if s {
			cost = split
			out = append(out, k)
		}
		g.record(s, items, cost*time.Duration(items))
	}
	return out
}

// others returns the indices below n not in xs.
func others(xs []int, n int) []int {
	var out []int
	for k := range n {
		if len(xs) == 0 || xs[0] != k {
			out = append(out, k)
			continue
		}
		xs = xs[1:]
	}
	return out
}

func TestGateRunsTheCheaperWayAndProbesTheOtherLessAndLess(t *testing.T) {
	// The first task alone, the second split; then the cheaper way, with
	// a probe of the other after 16 tasks, then 32, 64, 128 and 256 at
	// the most while the probes find it dearer.
	var g Gate
	assert.Equal(t, []int{1}, runGate(&g, 2, 10, 100, 50))
	probes := others(runGate(&g, 1000, 10, 100, 50), 1000)
	assert.Equal(t, []int{16, 48, 112, 240, 496, 752}, probes, "split cheaper: the tasks run alone")

	var h Gate
	runGate(&h, 2, 10, 100, 300)
	assert.Equal(t, []int{16, 48, 112, 240, 496, 752}, runGate(&h, 1000, 10, 100, 300), "alone cheaper: the tasks split")
}

func TestGateFollowsTheMachine(t *testing.T) {
	// A split that paid stops paying (the other processor got busy): the
	// gate turns to running alone within a few tasks, and back when
	// splitting pays again, at the next probe.
	var g Gate
	runGate(&g, 1000, 100, 100, 50)
	turn := runGate(&g, 40, 100, 100, 400)
	assert.Less(t, len(turn), 20, "split no longer pays: alone after a few tasks")
	assert.NotContains(t, turn, 39)
	assert.LessOrEqual(t, len(runGate(&g, 1000, 100, 100, 400)), 6, "only probes split")
	back := runGate(&g, 300, 100, 100, 50) // the next probe sees it pay again
	assert.Contains(t, back, 299)
	assert.Greater(t, len(back), 40)
}

func TestGateOneSlowTaskDoesNotTurnIt(t *testing.T) {
	var g Gate
	runGate(&g, 100, 10, 100, 50)
	// One task split takes eight times its usual.
	assert.True(t, g.Begin(10))
	g.record(true, 10, 10*400)
	assert.Len(t, runGate(&g, 10, 10, 100, 50), 10)
}

func TestGateCostIsPerItem(t *testing.T) {
	// Tasks that grow cost more in all; the gate compares per item.
	var g Gate
	g.Begin(10)
	g.record(false, 10, 10*100)
	g.Begin(1000)
	g.record(true, 1000, 1000*60)
	assert.True(t, g.Begin(10), "split: 60 ns an item against 100")
}

func TestGateForced(t *testing.T) {
	defer SetGateForce(SetGateForce(1))
	var g Gate
	assert.Len(t, runGate(&g, 8, 1, 10, 1000), 8, "every task split")
	SetGateForce(-1)
	assert.Empty(t, runGate(&g, 8, 1, 1000, 10), "none split")
	SetGateForce(2)
	assert.Len(t, runGate(&g, 8, 1, 10, 1000), 4, "every other split")
}

func TestGateSlowMomentsDoNotTurnIt(t *testing.T) {
	// Every fourth split task takes twenty times its usual (the other
	// processor taken away): each counts twice the usual, and the split,
	// 60 an item against 100 alone, stays the cheaper.
	var g Gate
	runGate(&g, 100, 10, 100, 60)
	split := 0
	for k := range 400 {
		s := g.Begin(10)
		cost := time.Duration(100)
		if s {
			split++
			cost = 60
			if k%4 == 0 {
				cost = 1200
			}
		}
		g.record(s, 10, cost*10)
	}
	assert.Greater(t, split, 390)
}

func TestGateSplitsUnlessAloneIsClearlyCheaper(t *testing.T) {
	// Alone a tenth cheaper: still split (but for probes); a third
	// cheaper: alone.
	var g Gate
	runGate(&g, 2, 10, 90, 100)
	assert.Greater(t, len(runGate(&g, 100, 10, 90, 100)), 95)
	var h Gate
	runGate(&h, 2, 10, 70, 100)
	assert.Less(t, len(runGate(&h, 100, 10, 70, 100)), 5)
}
