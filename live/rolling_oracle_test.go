package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// The default rolling against the brute-force model of
// rolling_oracle_model_test.go: every push's emitted rows (times, keys,
// every output cell) must be the model's, whatever the batching, and a
// partitioned rolling must give the same rows, bit for bit, with two
// workers.

// pushRolling pushes rows in batches of the sizes in cuts and returns
// the rows the rolling emitted in each push.
func pushRolling(s *live.Series, node live.NodeID, by bool, rows []arow, cuts []int) ([][]modelRow, error) {
	var got [][]modelRow
	var out []live.Output
	i := 0
	for _, n := range cuts {
		batch := make([]schema.Row, n)
		for k := range n {
			batch[k] = rows[i+k].row()
		}
		i += n
		var err error
		out, err = s.PushRows(out[:0], batch...)
		if err != nil {
			return nil, err
		}
		var push []modelRow
		for _, o := range out {
			if o.Node != node || o.Kind != live.Event {
				continue
			}
			// The rows outlive the push: read them from a copy.
			tab := o.Events.Clone()
			for j := range tab.Len() {
				row := tab.Row(j)
				r := modelRow{t: tab.TimeNanos(j) / 1e6, vals: row[1:]}
				if by {
					r.key = missingKey
					if k, ok := row[1].Str(); ok {
						r.key = k
					}
					r.vals = row[2:]
				}
				push = append(push, r)
			}
		}
		got = append(got, push)
	}
	return got, nil
}

// perPush groups the model's rows by the pushes of cuts, which start
// at row i.
func perPush(model [][]modelRow, i int, cuts []int) [][]modelRow {
	var want [][]modelRow
	for _, n := range cuts {
		var push []modelRow
		for _, rows := range model[i : i+n] {
			push = append(push, rows...)
		}
		i += n
		want = append(want, push)
	}
	return want
}

// randomCuts cuts n rows into pushes of 1 to most rows.
func randomCuts(rng *rand.Rand, n, most int) []int {
	var cuts []int
	for n > 0 {
		k := min(n, 1+rng.IntN(most))
		cuts = append(cuts, k)
		n -= k
	}
	return cuts
}

// compareRolls checks the engine's rows against the model's, push by
// push: numbers to 1e-12 relative (so a 0 exactly) or within the
// model's slack for the cell, anything else exactly. It reports the
// first difference.
func compareRolls(t *testing.T, got, want [][]modelRow, label string) bool {
	t.Helper()
	if !assert.Equal(t, len(want), len(got), "%s: pushes", label) {
		return false
	}
	for p := range want {
		if len(got[p]) != len(want[p]) {
			assert.Failf(t, "rows differ", "%s: push %d: got %d rows, want %d\ngot  %v\nwant %v", label, p, len(got[p]), len(want[p]), got[p], want[p])
			return false
		}
		for i, w := range want[p] {
			g := got[p][i]
			ok := g.t == w.t && g.key == w.key && len(g.vals) == len(w.vals)
			for j := 0; ok && j < len(w.vals); j++ {
				ok = sameValue(g.vals[j], w.vals[j], 0) || withinSlack(g.vals[j], w.vals[j], w.slack[j])
			}
			if !ok {
				assert.Failf(t, "row differs", "%s: push %d row %d:\ngot  %v\nwant %v", label, p, i, g, w)
				return false
			}
		}
	}
	return true
}

// withinSlack reports whether two numbers are within slack of each other.
func withinSlack(got, want schema.Value, slack float64) bool {
	g, gok := got.Num()
	w, wok := want.Num()
	return gok && wok && math.Abs(g-w) <= slack
}

// identicalRolls reports whether two runs emitted the same rows, bit for
// bit.
func identicalRolls(a, b [][]modelRow) bool {
	if len(a) != len(b) {
		return false
	}
	for p := range a {
		if len(a[p]) != len(b[p]) {
			return false
		}
		for i := range a[p] {
			x, y := a[p][i], b[p][i]
			if x.t != y.t || x.key != y.key || len(x.vals) != len(y.vals) {
				return false
			}
			for j := range x.vals {
				if !x.vals[j].Equal(y.vals[j]) {
					return false
				}
			}
		}
	}
	return true
}

func (c *rollCase) String() string {
	var ws []string
	for _, w := range c.windows {
		d := fmt.Sprintf("span %v count %d aggs %v", w.Span, w.Count, w.Aggs)
		if w.MinSamples != nil {
			d += fmt.Sprintf(" minSamples %d", *w.MinSamples)
		}
		ws = append(ws, "{"+d+"}")
	}
	return fmt.Sprintf("ordering %v grace %d maxEvents %d maxAge %d partition %d %d idleTTL %d prefill %d by %v hostless %v groups %v trigger %d n %d step %d anchor %d minSamples %d windows %v",
		c.ordering, c.grace, c.maxEvents, c.maxAge, c.partMaxEvents, c.partMaxAge, c.idleTTL, c.prefill, c.by, c.hostless, c.groups, c.trig, c.n, c.step, c.anchor, c.minSamples, ws)
}

// checkRollCase runs c under each batching (and, partitioned, the first
// with two workers) and compares every push with the model (of that
// batching: IdleTTL removes partitions at the end of a push). It returns
// the number of pushes and of emitted rows compared.
func checkRollCase(t *testing.T, c *rollCase, label string, batchings ...[]int) (pushes, rows int) {
	t.Helper()
	var first [][]modelRow
	for b, cuts := range batchings {
		model := c.model(cuts)
		emitted := 0
		for _, m := range model[c.prefill:] {
			emitted += len(m)
		}
		s, node, err := c.build(1)
		require.NoError(t, err, "%s: %v", label, c)
		got, err := pushRolling(s, node, c.by, c.rows[c.prefill:], cuts)
		s.Close()
		require.NoError(t, err, "%s", label)
		if !compareRolls(t, got, perPush(model, c.prefill, cuts), fmt.Sprintf("%s batching %d", label, b)) {
			t.Logf("%s: %v\ncuts %v", label, c, cuts)
			return pushes, rows
		}
		pushes += len(cuts)
		rows += emitted
		if b == 0 {
			first = got
		}
	}
	if c.by && len(batchings) > 0 {
		s, node, err := c.build(2)
		require.NoError(t, err)
		got, err := pushRolling(s, node, c.by, c.rows[c.prefill:], batchings[0])
		s.Close()
		require.NoError(t, err)
		assert.True(t, identicalRolls(first, got), "%s: two workers emit other rows than one: %v", label, c)
		pushes += len(batchings[0])
		for _, push := range got {
			rows += len(push)
		}
	}
	return pushes, rows
}

// TestRollingOracle compares the default rolling with the model over
// random streams, pipelines and batchings: the same rows in random
// pushes, and either one push per row or all rows in one push.
func TestRollingOracle(t *testing.T) {
	streams, pushes, rows := 0, 0, 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 36))
		c := newRollCase(rng)
		n := len(c.rows) - c.prefill
		other := []int{n}
		if seed%2 == 0 {
			other = randomCuts(rng, n, 1)
		}
		p, r := checkRollCase(t, &c, fmt.Sprintf("seed %d", seed), randomCuts(rng, n, 25), other)
		pushes, rows = pushes+p, rows+r
		streams++
		if t.Failed() {
			return
		}
	}
	t.Logf("%d streams: %d pushes and %d emitted rows compared", streams, pushes, rows)
}

// FuzzRollingOracle drives the comparison from a fuzzed seed (the
// pipeline and stream) and bytes (the batch sizes).
func FuzzRollingOracle(f *testing.F) {
	f.Add(uint64(1), []byte{7})
	f.Add(uint64(5), []byte{1, 1, 30, 2})
	f.Add(uint64(12), []byte{})
	f.Fuzz(func(t *testing.T, seed uint64, sizes []byte) {
		c := newRollCase(rand.New(rand.NewPCG(seed, 99)))
		var cuts []int
		for i, n := 0, len(c.rows)-c.prefill; n > 0; i++ {
			k := n
			if len(sizes) > 0 {
				k = min(n, 1+int(sizes[i%len(sizes)])%64)
			}
			cuts = append(cuts, k)
			n -= k
		}
		checkRollCase(t, &c, "fuzz", cuts)
	})
}

// vrow is a row of the spec's vectors: t:value:host.
func vrow(t int64, x float64, host string) arow {
	return arow{t: t, x: x, xOK: true, host: host}
}

func aggsOf(using reduce.Reducer, names ...string) []reduce.Agg {
	var aggs []reduce.Agg
	for _, n := range names {
		aggs = append(aggs, reduce.Agg{Out: n, From: "x", Using: using})
	}
	return aggs
}

func spanOf(ms int64, aggs ...[]reduce.Agg) rolling.Window {
	w := win(ms)
	for _, a := range aggs {
		w.Aggs = append(w.Aggs, a...)
	}
	return w
}

// modelStrings renders the model's rows as "<t> <key> <cells>".
func modelStrings(model [][]modelRow) []string {
	out := []string{}
	for _, rows := range model {
		for _, r := range rows {
			cells := []string{fmt.Sprint(r.t)}
			if r.key != "" {
				cells = append(cells, r.key)
			}
			for _, v := range r.vals {
				cells = append(cells, v.String())
			}
			out = append(out, strings.Join(cells, " "))
		}
	}
	return out
}

// TestRollingModelVectors checks the model itself on the spec's worked
// vectors (pond-ts-live.md §12, cases 7 to 11, 13 and 18 to 22), then
// the engine against the model on the same pushes.
func TestRollingModelVectors(t *testing.T) {
	sum, avg, mx, cnt := aggsOf(reduce.Sum, "sum"), aggsOf(reduce.Avg, "avg"), aggsOf(reduce.Max, "max"), aggsOf(reduce.Count, "n")
	cases := []struct {
		name string
		c    rollCase
		cuts []int // default: one push per row
		want []string
	}{
		{"7: 3s sum", rollCase{windows: []rolling.Window{spanOf(3000, sum)},
			rows: []arow{vrow(0, 10, "a"), vrow(1000, 20, "a"), vrow(2000, 30, "a"), vrow(5000, 40, "a")}},
			nil, []string{"0 10", "1000 30", "2000 60", "5000 70"}},
		{"7: the window is closed at both ends", rollCase{windows: []rolling.Window{spanOf(5000, sum)},
			rows: []arow{vrow(0, 10, "a"), vrow(5000, 20, "a")}},
			nil, []string{"0 10", "5000 30"}},
		{"8: count window of 2", rollCase{windows: []rolling.Window{{Count: 2, Aggs: sum}},
			rows: []arow{vrow(0, 10, "a"), vrow(1000, 20, "a"), vrow(2000, 30, "a")}},
			nil, []string{"0 10", "1000 30", "2000 50"}},
		{"9: minSamples 2", rollCase{minSamples: 2, windows: []rolling.Window{spanOf(5000, avg)},
			rows: []arow{vrow(0, 10, "a"), vrow(1000, 20, "a"), vrow(20000, 99, "a")}},
			nil, []string{"0 null", "1000 15", "20000 null"}},
		{"9: minSamples under a clock", rollCase{minSamples: 10, trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, avg)},
			rows: []arow{vrow(0, 100, "a"), vrow(10000, 200, "a"), vrow(30001, 300, "a")}},
			nil, []string{"30000 null"}},
		{"10: clock, one emission at the boundary", rollCase{trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, avg)},
			rows: []arow{vrow(0, 10, "a"), vrow(15000, 20, "a"), vrow(30001, 30, "a")}},
			nil, []string{"30000 20"}},
		{"10: a gap gives one emission", rollCase{trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, avg)},
			rows: []arow{vrow(0, 10, "a"), vrow(90001, 20, "a")}},
			nil, []string{"90000 20"}},
		{"10: a row on the boundary crosses", rollCase{trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, sum)},
			rows: []arow{vrow(29999, 1, "a"), vrow(30000, 2, "a")}},
			nil, []string{"30000 3"}},
		{"10: the window is evicted against the crossing row's time", rollCase{trig: trigClock, step: 10000, windows: []rolling.Window{spanOf(10000, sum)},
			rows: []arow{vrow(0, 1, "a"), vrow(20200, 2, "a"), vrow(30300, 4, "a")}},
			nil, []string{"20000 2", "30000 4"}},
		{"10: anchor", rollCase{trig: trigClock, step: 30000, anchor: 5000, windows: []rolling.Window{spanOf(60000, sum)},
			rows: []arow{vrow(5000, 1, "a"), vrow(35001, 2, "a")}},
			nil, []string{"35000 3"}},
		{"11: count trigger", rollCase{trig: trigCount, n: 3, windows: []rolling.Window{spanOf(300000, avg)},
			rows: []arow{vrow(0, 10, "a"), vrow(1000, 20, "a"), vrow(2000, 30, "a"), vrow(3000, 40, "a"), vrow(4000, 50, "a"), vrow(5000, 60, "a")}},
			nil, []string{"2000 20", "5000 35"}},
		{"12: a late row's window holds the rows before it", rollCase{ordering: live.Reorder, windows: []rolling.Window{spanOf(5000, sum)},
			rows: []arow{vrow(2000, 1, "a"), vrow(1000, 2, "a")}},
			nil, []string{"2000 1", "1000 3"}},
		{"12: late rows never fire a clock, and are taken in", rollCase{ordering: live.Reorder, trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, sum)},
			rows: []arow{vrow(0, 1, "a"), vrow(31000, 2, "a"), vrow(29000, 4, "a"), vrow(45000, 8, "a"), vrow(60000, 16, "a")}},
			nil, []string{"30000 3", "60000 31"}},
		{"12: what a later row evicted stays gone at a late row's count", rollCase{ordering: live.Reorder, trig: trigCount, n: 3, windows: []rolling.Window{spanOf(1000, sum, cnt)},
			rows: []arow{vrow(1000, 1, "a"), vrow(3000, 2, "a"), vrow(1500, 4, "a")}},
			nil, []string{"1500 6 2"}},
		{"13: fused windows", rollCase{windows: []rolling.Window{spanOf(5000, avg), spanOf(1000, mx)},
			rows: []arow{vrow(0, 10, "a"), vrow(500, 20, "a"), vrow(1500, 30, "a")}},
			nil, []string{"0 10 10", "500 15 20", "1500 20 30"}},
		{"13: fused windows under a clock", rollCase{trig: trigClock, step: 1000, windows: []rolling.Window{spanOf(5000, avg), spanOf(1000, mx)},
			rows: []arow{vrow(0, 10, "a"), vrow(1500, 20, "a")}},
			nil, []string{"1000 15 20"}},
		{"13: per-window minSamples", rollCase{minSamples: 2, windows: []rolling.Window{spanOf(5000, avg), {Span: 1000e6, Aggs: mx, MinSamples: rolling.Samples(5)}},
			rows: []arow{vrow(0, 10, "a"), vrow(500, 20, "a")}},
			nil, []string{"0 null null", "500 15 null"}},
		{"18: a tick misses the same time's later rows", rollCase{by: true, trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, sum)},
			rows: []arow{vrow(0, 1, "a"), vrow(0, 1, "b"), vrow(0, 1, "c"), vrow(30000, 10, "a"), vrow(30000, 10, "b"), vrow(30000, 10, "c")}},
			[]int{1, 1, 1, 3}, []string{"30000 a 11", "30000 b 1", "30000 c 1"}},
		{"19: a quiet partition empties", rollCase{by: true, trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(30000, avg)},
			rows: []arow{vrow(0, 0.99, "a"), vrow(90001, 0.5, "b")}},
			nil, []string{"90000 a null", "90000 b 0.5"}},
		{"19: a quiet partition keeps its window", rollCase{by: true, trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, avg)},
			rows: []arow{vrow(0, 0.4, "a"), vrow(5000, 0.5, "b"), vrow(30001, 0.6, "a")}},
			nil, []string{"30000 a 0.5", "30000 b 0.5"}},
		{"20: declared groups, in their order, with no data", rollCase{by: true, groups: []string{"api-2", "api-1", "x"}, trig: trigClock, step: 30000,
			windows: []rolling.Window{spanOf(60000, sum, avg, cnt)},
			rows:    []arow{vrow(0, 1, "api-1"), vrow(1000, 2, "api-2"), vrow(30000, 3, "api-1")}},
			nil, []string{"30000 api-2 2 2 1", "30000 api-1 4 2 2", "30000 x 0 null 0"}},
		{"20: a partition joins at the next tick", rollCase{by: true, trig: trigClock, step: 30000, windows: []rolling.Window{spanOf(60000, sum)},
			rows: []arow{vrow(0, 1, "a"), vrow(30000, 2, "a"), vrow(35000, 3, "b"), vrow(60000, 4, "a")}},
			nil, []string{"30000 a 3", "60000 a 7", "60000 b 3"}},
		{"21: ties by arrival, built live", rollCase{by: true, trig: trigClock, step: 1000, windows: []rolling.Window{spanOf(60000, sum)},
			rows: []arow{vrow(0, 1, "a"), vrow(0, 1, "b"), vrow(1000, 5, "b"), vrow(1000, 7, "a")}},
			[]int{4}, []string{"1000 a 1", "1000 b 6"}},
		{"22: partitioned fused", rollCase{by: true, trig: trigClock, step: 1000, windows: []rolling.Window{spanOf(1000, aggsOf(reduce.Sum, "s1")), spanOf(5000, aggsOf(reduce.Sum, "s5"))},
			rows: []arow{vrow(0, 1, "a"), vrow(500, 2, "b"), vrow(2500, 4, "a")}},
			nil, []string{"2000 a 4 5", "2000 b 0 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.required = true
			model := c.model(nil)
			require.Equal(t, tc.want, modelStrings(model), "the model")
			cuts := tc.cuts
			if cuts == nil {
				cuts = randomCuts(rand.New(rand.NewPCG(1, 1)), len(c.rows), 1)
			}
			checkRollCase(t, &c, tc.name, cuts, []int{len(c.rows)})
		})
	}
}

// TestRollingOracleHandOff runs dense partitioned streams whose ticks are
// thousands of rows apart, so that with two workers the rows between
// ticks are handed to a worker (internal/engine handOff) and the ticks
// are split: the rows must still be the model's, and one worker's.
func TestRollingOracleHandOff(t *testing.T) {
	for seed := range uint64(2) {
		rng := rand.New(rand.NewPCG(seed, 37))
		c := newRollCase(rng)
		c.by, c.trig, c.prefill, c.idleTTL = true, trigClock, 0, 0
		c.step = 5000
		c.rows = c.rows[:0]
		var at int64
		for i := range 24000 {
			at += rng.Int64N(2)
			r := arow{t: at, host: fmt.Sprintf("h%d", rng.IntN(64)), index: i, s: "ab"[i%2:][:1], sOK: true}
			r.x, r.xOK = math.Round(rng.NormFloat64()*1000)/64, true
			c.rows = append(c.rows, r)
		}
		c.groups = nil
		c.hostless = false
		checkRollCase(t, &c, fmt.Sprintf("seed %d", seed), randomCuts(rng, len(c.rows), 600))
		if t.Failed() {
			return
		}
	}
}
