package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// groupModel recomputes a synchronised-clock group from scratch: rows wait
// in arrival order until a crossing, then go to their partitions (new
// ones join in the order their first rows arrived), and every partition
// emits its windows over the rows it holds.
type groupModel struct {
	clock   clock.ClockState
	order   []int32
	rows    map[int32][][3]float64 // time, v, w
	pending [][4]float64           // time, v, w, partition
}

func (m *groupModel) settle() {
	for _, r := range m.pending {
		p := int32(r[3])
		if _, ok := m.rows[p]; !ok {
			m.rows[p] = nil
			m.order = append(m.order, p)
		}
		m.rows[p] = append(m.rows[p], [3]float64{r[0], r[1], r[2]})
	}
	m.pending = m.pending[:0]
}

func (m *groupModel) remove(p int32) {
	m.settle()
	if _, ok := m.rows[p]; !ok {
		return
	}
	delete(m.rows, p)
	for i, q := range m.order {
		if q == p {
			m.order = append(m.order[:i], m.order[i+1:]...)
			break
		}
	}
}

// window returns the column c values (present ones) of partition p's rows
// at or after lim.
func (m *groupModel) window(p int32, lim float64, c int) []float64 {
	var xs []float64
	for _, r := range m.rows[p] {
		if r[0] >= lim && r[c] == r[c] {
			xs = append(xs, r[c])
		}
	}
	return xs
}

// TestGroupMatchesRecomputation pushes random rows of a few partitions
// through a group under a clock, with partitions appearing late and being
// removed between pushes (with rows still buffered), and compares every
// emitted cell with the windows recomputed from the rows.
//
// With two workers, each push's rows are handed to the second to take
// between ticks, and every other tick is split (the others done by the
// pushing goroutine alone, as the workers' gate may choose): the rows are
// the same. With one,
// the rows go straight to their deques while there are fewer than
// directParts partitions (all, none, or some of the time as partitions
// come and go), and are buffered for the tick otherwise: the rows are the
// same. Buffered rows are linked by partition at a tick with a few a
// partition, and sorted otherwise, or sorted at every tick: the rows are
// the same.
func TestGroupMatchesRecomputation(t *testing.T) {
	defer SetHandOffRows(SetHandOffRows(1))
	defer workers.SetGateForce(workers.SetGateForce(2))
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	for _, tc := range []struct {
		cols    string
		workers int
		direct  int
		link    int
	}{
		{"v and w", 1, 64, 4}, {"v only", 1, 64, 4}, {"v and w", 1, 0, 4}, {"v only", 1, 0, 4},
		{"v and w", 1, 0, 0}, {"v only", 1, 0, 0},
		{"v and w", 1, 6, 4}, {"v and w", 2, 64, 4}, {"v only", 2, 64, 4},
	} {
		cols := tc.cols
		t.Run(fmt.Sprintf("%s/workers=%d/direct=%d/link=%d", cols, tc.workers, tc.direct, tc.link), func(t *testing.T) {
			defer SetDirectParts(SetDirectParts(tc.direct))
			defer SetLinkRows(SetLinkRows(tc.link))
			long := []reduce.Agg{
				{Out: "avg", From: "v", Using: reduce.Avg},
				{Out: "rows", From: "v", Using: reduce.Count},
				{Out: "sd", From: "v", Using: reduce.Stdev},
				{Out: "avg_again", From: "v", Using: reduce.Avg}, // a second step for the same reading
				{Out: "rows_again", From: "v", Using: reduce.Count},
			}
			short := []reduce.Agg{
				{Out: "min", From: "v", Using: reduce.Min},
				{Out: "max", From: "v", Using: reduce.Max},
				{Out: "avg_s", From: "v", Using: reduce.Avg},
			}
			if cols == "v and w" {
				long = append(long, reduce.Agg{Out: "sum", From: "w", Using: reduce.Sum},
					reduce.Agg{Out: "n", From: "w", Using: reduce.Count})
				short = append(short, reduce.Agg{Out: "samples", From: "w", Using: reduce.Samples})
			}
			windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: long}, {Name: "300ms", Span: 300 * time.Millisecond, Aggs: short}}
			keys := make(keyNames, 64)
			for i := range keys {
				keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
			}
			plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
				&Key{Name: "key", Kind: schema.String}, nil)
			require.NoError(t, err)
			g := plan.NewGroup(keys)
			if tc.workers > 1 {
				pool := workers.New(tc.workers)
				defer pool.Close()
				g.SetWorkers(pool)
			}
			m := &groupModel{rows: map[int32][][3]float64{}, clock: clock.NewClockState(sequence.Every(100 * time.Millisecond))}
			rng := rand.New(rand.NewPCG(5, uint64(len(cols))))
			tm := int64(0)
			var in Input
			emitted := 0
			for push := range 600 {
				tab := schema.NewTable(testSchema)
				var part []int32
				for range 1 + rng.IntN(20) {
					tm += int64(rng.IntN(30)) * int64(time.Millisecond)
					p := int32(rng.IntN(4 + push/60)) // more partitions as it goes
					table.Column(tab, 0).AppendTime(tm)
					table.Column(tab, 1).AppendNum(float64(rng.IntN(1000)) / 8)
					if rng.IntN(5) == 0 {
						table.Column(tab, 2).AppendMissing()
					} else {
						table.Column(tab, 2).AppendNum(rng.NormFloat64())
					}
					part = append(part, p)
				}
				out := schema.NewTable(plan.Schema())
				plan.Bind(&in, tab, nil)
				g.Push(&in, part, out)

				// The model: rows up to each crossing settle, then every
				// partition emits.
				row := 0
				for i := range tab.Len() {
					ti := table.Column(tab, 0).Time(i)
					v, _ := table.Column(tab, 1).Num(i)
					w, ok := table.Column(tab, 2).Num(i)
					if !ok {
						w = math.NaN()
					}
					m.pending = append(m.pending, [4]float64{float64(ti), v, w, float64(part[i])})
					b, fired := m.clock.Observe(ti)
					if !fired {
						continue
					}
					m.settle()
					for _, p := range m.order {
						require.Less(t, row, out.Len(), "push %d: too few rows", push)
						require.Equal(t, b, table.Column(out, 0).Time(row), "push %d row %d", push, row)
						require.Equal(t, keys[p], out.Value(row, 1), "push %d row %d", push, row)
						checkGroupRow(t, m, p, float64(ti), out, row, cols == "v and w", fmt.Sprintf("push %d row %d", push, row))
						row++
					}
				}
				require.Equal(t, row, out.Len(), "push %d: rows emitted", push)
				emitted += row
				if rng.IntN(8) == 0 {
					p := int32(rng.IntN(8))
					g.Remove(p)
					m.remove(p)
				}
				if tc.workers == 1 && tc.direct == 0 {
					require.Equal(t, len(m.order), g.Len(), "push %d: partitions", push)
				} else {
					// Partitions may be met when a push's rows are
					// handed over or appended, before their first tick.
					require.GreaterOrEqual(t, g.Len(), len(m.order), "push %d: partitions", push)
				}
				if push%50 == 0 {
					require.Positive(t, g.HeldBytes(), "push %d", push) // waits for the worker
				}
			}
			require.Greater(t, emitted, 1000)
		})
	}
}

// checkGroupRow compares output row i, emitted for partition p at cut,
// with its windows recomputed: 1s of v (avg, stdev) and w (sum, count);
// 300ms of v (min, max, avg) and w (samples).
func checkGroupRow(t *testing.T, m *groupModel, p int32, cut float64, out *schema.Table, i int, withW bool, msg string) {
	t.Helper()
	col := func(name string) int {
		j, ok := out.Schema().Index(name)
		require.True(t, ok, name)
		return j
	}
	num := func(name string, want float64, ok bool) {
		t.Helper()
		got, has := table.Column(out, col(name)).Num(i)
		require.Equal(t, ok, has, "%s: %s present", msg, name)
		if ok {
			require.InDelta(t, want, got, 1e-9*math.Max(1, math.Abs(want)), "%s: %s", msg, name)
		}
	}
	mean := func(xs []float64) (float64, bool) {
		if len(xs) == 0 {
			return 0, false
		}
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs)), true
	}
	v1 := m.window(p, cut-float64(time.Second), 1)
	a, ok := mean(v1)
	num("avg", a, ok)
	num("avg_again", a, ok)
	num("rows", float64(len(v1)), true)
	num("rows_again", float64(len(v1)), true)
	if ok {
		ss := 0.0
		for _, x := range v1 {
			ss += (x - a) * (x - a)
		}
		num("sd", math.Sqrt(ss/float64(len(v1))), true)
	} else {
		num("sd", 0, false)
	}
	vs := m.window(p, cut-float64(300*time.Millisecond), 1)
	a, ok = mean(vs)
	num("avg_s", a, ok)
	if ok {
		lo, hi := vs[0], vs[0]
		for _, x := range vs {
			lo, hi = min(lo, x), max(hi, x)
		}
		num("min", lo, true)
		num("max", hi, true)
	} else {
		num("min", 0, false)
		num("max", 0, false)
	}
	if !withW {
		return
	}
	w1 := m.window(p, cut-float64(time.Second), 2)
	s := 0.0
	for _, x := range w1 {
		s += x
	}
	num("sum", s, true)
	num("n", float64(len(w1)), true)
	ws := m.window(p, cut-float64(300*time.Millisecond), 2)
	got, ok := table.Column(out, col("samples")).Array(i)
	require.True(t, ok, "%s: samples present", msg)
	require.Len(t, got, len(ws), "%s: samples", msg)
	for k, x := range ws {
		f, _ := got[k].Num()
		require.Equal(t, x, f, "%s: sample %d", msg, k)
	}
}

func TestClockGroupKeepsNoCountPerPartition(t *testing.T) {
	// The per-partition counters are a count trigger's: 1000 partitions
	// under a clock hold none.
	r := newGroupRig(1000, 10)
	for range 10 {
		r.tick()
	}
	require.Equal(t, 1000, r.g.Len())
	require.Empty(t, r.g.counts)
}

// runKeys are string keys (missing where empty) given a run at a time
// (StrKeys), counting the partitions asked for one at a time and the runs
// asked for at once.
type runKeys struct {
	names []string
	one   int
	runs  int
}

func (k *runKeys) KeyValue(p int32) schema.Value {
	k.one++
	if k.names[p] == "" {
		return schema.Value{}
	}
	return schema.StringValue(k.names[p])
}

func (k *runKeys) KeyStrs(keys []string, parts []int32) bool {
	k.runs++
	for i, p := range parts {
		if keys[i] = k.names[p]; keys[i] == "" {
			return false
		}
	}
	return true
}

// runKeysGroup returns a group of a 1s average under a 100 ms clock,
// keyed by strings "host-0" … for parts partitions through runKeys, which
// counts the keys asked for one at a time.
func runKeysGroup(t *testing.T, parts int) (*Plan, *Group, *runKeys) {
	t.Helper()
	keys := &runKeys{names: make([]string, parts)}
	for p := range parts {
		keys.names[p] = fmt.Sprintf("host-%d", p)
	}
	plan, err := NewPlan(testSchema, []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}}},
		rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))}, &Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	return plan, plan.NewGroup(keys), keys
}

// TestTickTakesARunsStringKeysAtOnce: with StrKeys, a tick asks for the
// keys of a run of partitions at once and no key one at a time; a run
// with a missing key has its keys asked for one at a time. The keys are
// those KeyValue gives.
func TestTickTakesARunsStringKeysAtOnce(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	const parts = 3*emitRun + 7
	plan, g, keys := runKeysGroup(t, parts)
	var in Input
	push := func(tm int64) *schema.Table {
		tab := schema.NewTable(testSchema)
		var part []int32
		for p := range parts {
			table.Column(tab, 0).AppendTime(tm)
			table.Column(tab, 1).AppendNum(float64(p))
			table.Column(tab, 2).AppendNum(1)
			part = append(part, int32(p))
		}
		plan.Bind(&in, tab, nil)
		out := schema.NewTable(plan.Schema())
		g.Push(&in, part, out)
		return out
	}
	push(0)
	out := push(int64(100 * time.Millisecond)) // the tick
	require.Equal(t, parts, out.Len())
	for i, p := range g.order {
		require.True(t, keys.KeyValue(p).Equal(out.Value(i, 1)), "row %d", i)
	}
	require.Equal(t, parts, keys.one, "only the checks above asked one at a time")

	// A missing key: its run's keys one at a time, the others' at once.
	keys.one = 0
	keys.names[emitRun+3] = ""
	out = push(int64(200 * time.Millisecond))
	require.Equal(t, emitRun, keys.one, "the run of the missing key")
	for i, p := range g.order {
		require.True(t, keys.KeyValue(p).Equal(out.Value(i, 1)), "row %d", i)
	}
	require.True(t, out.Value(emitRun+3, 1).IsMissing())
}

// TestTickWritesTheKeysOfTheSameOrderOnce: a tick that emits the same
// partitions in the same order into the same table as the tick before
// finds their keys in the key column's cells after its reset and does not
// write them again; once a partition leaves or joins, the keys are
// written again, and every row has its partition's key.
func TestTickWritesTheKeysOfTheSameOrderOnce(t *testing.T) {
	defer SetDirectParts(SetDirectParts(0))
	const parts = 3*emitRun + 7
	plan, g, keys := runKeysGroup(t, parts)
	var in Input
	out := schema.NewTable(plan.Schema())
	live := make([]int32, parts) // the partitions the pushes have a row of
	for p := range live {
		live[p] = int32(p)
	}
	tick := 0
	push := func() {
		tab := schema.NewTable(testSchema)
		for _, p := range live {
			table.Column(tab, 0).AppendTime(int64(tick) * int64(100*time.Millisecond))
			table.Column(tab, 1).AppendNum(float64(p))
			table.Column(tab, 2).AppendNum(1)
		}
		tick++
		plan.Bind(&in, tab, nil)
		table.Reset(out)
		g.Push(&in, live, out)
	}
	check := func(what string) {
		require.Equal(t, len(g.order), out.Len(), what)
		for i, p := range g.order {
			v, ok := out.Value(i, 1).Str()
			require.True(t, ok, "%s: row %d", what, i)
			require.Equal(t, keys.names[p], v, "%s: row %d", what, i)
		}
	}
	push()
	push() // the first tick of every partition
	check("first tick")
	require.Equal(t, parts, out.Len())
	require.Equal(t, 4, keys.runs)

	keys.runs = 0
	strs, ok := out.Strings("key")
	require.True(t, ok)
	strs[1] = "written over" // the next tick's cell 1 of the same buffer
	push()
	require.Zero(t, keys.runs, "the same order: no key asked for")
	v, _ := out.Value(1, 1).Str()
	require.Equal(t, "written over", v, "cell 1 was not written again")
	strs, _ = out.Strings("key")
	strs[1] = keys.names[g.order[1]]

	g.Remove(5)
	live = slices.Delete(live, 5, 6)
	push()
	require.Equal(t, 4, keys.runs, "a partition left: every run written again")
	check("after a removal")
	keys.names[5] = "new-5"
	live = append(live, 5)
	push() // 5 joins at the tick after its first row
	push()
	require.Equal(t, parts, out.Len())
	check("after a new partition")
	keys.runs = 0
	push()
	require.Zero(t, keys.runs)
	check("the same order again")
}
