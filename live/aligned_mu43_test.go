package live_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
)

// Aligned windows against the brute-force oracle (alignedCase.oracle) on
// streams shaped to reach the engine's boundaries: equal times, rows on a
// boundary, long steady runs, gaps, several keys closing at one boundary.
// Each case names the shape; the oracle says what every row must be.

// mu43Case is one pipeline and stream, in arrival order.
type mu43Case struct {
	name     string
	ordering live.Ordering
	lag      int64 // ms; with Reorder, the grace
	step     int64 // ms
	anchor   int64 // ms
	workers  int
	required bool
	windows  []rolling.Window
	rows     []arow
	batch    int // rows a push
}

// check pushes the case's rows and compares every emitted row with the
// oracle's.
func (m mu43Case) check(t *testing.T) {
	t.Helper()
	if m.required {
		m.rows = append([]arow(nil), m.rows...)
		for i := range m.rows {
			m.rows[i].xOK = true
		}
	}
	c := alignedCase{
		opts:     live.Options{Ordering: m.ordering, Workers: max(m.workers, 1)},
		lag:      m.lag,
		step:     m.step,
		anchor:   m.anchor,
		windows:  m.windows,
		rows:     m.rows,
		required: m.required,
	}
	if m.ordering == live.Reorder {
		c.opts.Grace = time.Duration(m.lag) * time.Millisecond
	}
	s, node, err := c.build()
	require.NoError(t, err)
	defer s.Close()
	got, err := pushAligned(s, node, m.rows, func() int { return max(m.batch, 1) })
	require.NoError(t, err)
	want := c.oracle()
	require.NotEmpty(t, want, "the case closes boundaries")
	compareEmitted(t, got, want, 1, m.name)
}

// mu43Win is a window of span ms with outputs using reds over x.
func mu43Win(name string, span int64, reds ...reduce.Reducer) rolling.Window {
	w := rolling.Window{Name: name, Span: time.Duration(span) * time.Millisecond}
	for i, r := range reds {
		w.Aggs = append(w.Aggs, reduce.Agg{Out: fmt.Sprintf("%s_%d", name, i), From: "x", Using: r})
	}
	return w
}

// mu43StrWin is a window of span ms with outputs using reds over s.
func mu43StrWin(name string, span int64, reds ...reduce.Reducer) rolling.Window {
	w := rolling.Window{Name: name, Span: time.Duration(span) * time.Millisecond}
	for i, r := range reds {
		w.Aggs = append(w.Aggs, reduce.Agg{Out: fmt.Sprintf("%s_%d", name, i), From: "s", Using: r})
	}
	return w
}

// mu43Rows makes n rows for hosts in turn, row i at time at(i), with
// distinct values of x and s (so that which row a first or last picks
// shows).
func mu43Rows(n int, hosts []string, at func(i int) int64) []arow {
	rows := make([]arow, n)
	for i := range rows {
		rows[i] = arow{
			t: at(i), x: float64(i%97) - 40 + float64(i)/1024, xOK: true,
			s: fmt.Sprintf("v%d", i), sOK: i%7 != 3,
			host: hosts[i%len(hosts)], index: i,
		}
		if i%11 == 5 {
			rows[i].xOK = false
		}
	}
	return rows
}

// mu43WithArrays adds to w an output over the array column, which makes
// the engine take rows one by one into their panes.
func mu43WithArrays(w rolling.Window) rolling.Window {
	w.Aggs = append(w.Aggs, reduce.Agg{Out: w.Name + "_arr", From: "a", Using: reduce.Count})
	return w
}

var mu43FirstLast = []reduce.Reducer{reduce.First, reduce.Last, reduce.Count}

func TestMu43AlignedRowsMatchTheOracleOnShapedStreams(t *testing.T) {
	one := []string{"a"}
	three := []string{"c", "a", "b"}
	cases := []mu43Case{
		{
			name: "equal times: first takes the earlier arrival, last the later (open-step records)",
			step: 100, windows: []rolling.Window{mu43Win("w", 100, mu43FirstLast...), mu43StrWin("ws", 100, mu43FirstLast...)},
			rows: mu43Rows(300, three, func(i int) int64 { return int64(i/9) * 10 }), batch: 7,
		},
		{
			name: "equal times across panes of a longer window (open-step records merged into panes)",
			step: 100, windows: []rolling.Window{mu43Win("w", 300, mu43FirstLast...), mu43StrWin("ws", 500, mu43FirstLast...)},
			rows: mu43Rows(300, three, func(i int) int64 { return int64(i/9) * 10 }), batch: 5,
		},
		{
			name: "equal times under a grace (inboxes)", ordering: live.Reorder, lag: 150,
			step: 100, windows: []rolling.Window{mu43Win("w", 300, mu43FirstLast...), mu43StrWin("ws", 100, mu43FirstLast...)},
			rows: mu43Rows(300, three, func(i int) int64 { return int64(i/9)*10 - int64(i%3)*40 }), batch: 4,
		},
		{
			name: "equal times with panes narrower than the step (inboxes)",
			step: 200, windows: []rolling.Window{mu43Win("w", 300, mu43FirstLast...), mu43StrWin("ws", 500, mu43FirstLast...)},
			rows: mu43Rows(300, three, func(i int) int64 { return int64(i/9) * 10 }), batch: 40,
		},
		{
			name: "equal times, rows taken one by one (an array output)",
			step: 100, windows: []rolling.Window{mu43WithArrays(mu43Win("w", 300, mu43FirstLast...)), mu43StrWin("ws", 100, mu43FirstLast...)},
			rows: mu43Rows(300, three, func(i int) int64 { return int64(i/9) * 10 }), batch: 8,
		},
		{
			name: "rows exactly on boundaries",
			step: 100, windows: []rolling.Window{mu43Win("w", 200, reduce.Count, reduce.Sum, reduce.First, reduce.Last, reduce.Min)},
			rows: mu43Rows(120, three, func(i int) int64 { return int64(i/3) * 50 }), batch: 1,
		},
		{
			name: "rows exactly on boundaries, pushed in one batch",
			step: 100, windows: []rolling.Window{mu43Win("w", 200, reduce.Count, reduce.Sum, reduce.First, reduce.Last, reduce.Min)},
			rows: mu43Rows(120, three, func(i int) int64 { return int64(i/3) * 50 }), batch: 120,
		},
		{
			name: "a long steady run of one key (the steady closing, its ring full)",
			step: 200, windows: []rolling.Window{mu43Win("long", 1000, reduce.Count, reduce.Sum, reduce.Avg, reduce.Stdev), mu43Win("short", 200, reduce.Avg, reduce.Min, reduce.Max)},
			rows: mu43Rows(600, one, func(i int) int64 { return int64(i) * 50 }), batch: 3, required: true,
		},
		{
			name: "a long steady run of three keys, one falling quiet now and then",
			step: 200, windows: []rolling.Window{mu43Win("long", 600, reduce.Count, reduce.Sum, reduce.Avg), mu43Win("short", 200, reduce.Avg, reduce.Count)},
			rows: mu43Rows(900, three, func(i int) int64 {
				if i%3 == 2 && i%60 > 30 {
					return int64(i)*20 - 1
				}
				return int64(i) * 20
			}), batch: 9,
		},
		{
			name: "gaps that skip many boundaries, closed by one row",
			step: 100, anchor: 30, windows: []rolling.Window{mu43Win("w", 400, reduce.Count, reduce.Sum, reduce.Min, reduce.Max, reduce.First, reduce.Last, reduce.Median)},
			rows: mu43Rows(200, three, func(i int) int64 { return int64(i)*15 + int64(i/40)*2000 }), batch: 6,
		},
		{
			name: "several keys close at one boundary in first-seen order, on two workers",
			step: 100, workers: 2, windows: []rolling.Window{mu43Win("w", 300, reduce.Count, reduce.Sum, reduce.Last), mu43Win("one", 100, reduce.Max, reduce.Samples)},
			rows: mu43Rows(400, []string{"k3", "k1", "k4", "k2", "k0", "k5", "k9", "k7", "k8", "k6"}, func(i int) int64 { return int64(i) * 3 }), batch: 11,
		},
		{
			name: "a warm-up met exactly",
			step: 100, windows: []rolling.Window{func() rolling.Window {
				w := mu43Win("w", 300, reduce.Count, reduce.Sum, reduce.Avg)
				w.MinSamples = rolling.Samples(3)
				return w
			}(), func() rolling.Window {
				w := mu43Win("one", 100, reduce.Count, reduce.Max, reduce.Avg)
				w.MinSamples = rolling.Samples(2)
				return w
			}()},
			rows: mu43Rows(200, three, func(i int) int64 { return int64(i) * 17 }), batch: 5,
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.check)
	}
}
