// Package compare checks two aggregators' /live-agg rows against each
// other: rows are matched by (ts, host) and compared field by
// field with a tolerance, since running sums that started at different
// points agree only to about 1e-12.
package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/coder/websocket"
	"github.com/pond-go/pond/examples/internal/wire"
)

// Key identifies a row.
type Key struct {
	TS   int64
	Host string
}

// Rows collects the rows of one /live-agg stream by key.
type Rows struct {
	mu     sync.Mutex
	rows   map[Key]wire.HostTick
	frames int
}

// Add records the rows of one frame.
func (r *Rows) Add(rows []wire.HostTick) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames++
	if r.rows == nil {
		r.rows = map[Key]wire.HostTick{}
	}
	for _, t := range rows {
		r.rows[Key{t.TS, t.Host}] = t
	}
}

// Len returns the number of rows recorded.
func (r *Rows) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.rows)
}

// Frames returns the number of frames recorded (the snapshot included).
func (r *Rows) Frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frames
}

// Subscribe reads url (a /live-agg WebSocket) into r until ctx ends.
func Subscribe(ctx context.Context, url string, r *Rows) error {
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 30)
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		f, err := wire.Decode(data)
		if err != nil {
			return err
		}
		r.Add(f.Rows)
	}
}

// Report is the outcome of a comparison.
type Report struct {
	OnlyA, OnlyB int // rows of ticks both saw, held by one side only
	Compared     int // rows present on both sides, after the skipped ticks
	Matched      int
	Skipped      int      // rows of the first common ticks, not compared
	Mismatches   []string // the first few, described
	FirstTick    int64    // first common tick compared
}

// OK reports whether every compared row matched and both sides had the
// same hosts at every compared tick.
func (r Report) OK() bool {
	return r.Compared > 0 && r.Matched == r.Compared && r.OnlyA == 0 && r.OnlyB == 0
}

// Problem says in one sentence why the comparison failed ("" when OK).
func (r Report) Problem() string {
	switch {
	case r.Compared == 0:
		return fmt.Sprintf("no (ts, host) row in common after skipping the first ticks (%d only in A, %d only in B): are both aggregators subscribed to the same producer, and was -seconds long enough?", r.OnlyA, r.OnlyB)
	case r.Matched != r.Compared:
		return fmt.Sprintf("%d of %d common rows differ beyond the tolerance", r.Compared-r.Matched, r.Compared)
	case r.OnlyA+r.OnlyB > 0:
		return fmt.Sprintf("%d rows only in A and %d only in B: one stream has ticks or hosts the other lacks", r.OnlyA, r.OnlyB)
	}
	return ""
}

func (r Report) String() string {
	s := fmt.Sprintf("compared %d rows from tick %d: %d matched, %d differ; %d rows only in A, %d only in B; %d rows of the first ticks skipped",
		r.Compared, r.FirstTick, r.Matched, r.Compared-r.Matched, r.OnlyA, r.OnlyB, r.Skipped)
	for _, m := range r.Mismatches {
		s += "\n  " + m
	}
	return s
}

// Compare matches the rows of a and b by key over the ticks both saw,
// skipping the first skipTicks of them (an aggregator that joined later
// differs there), and compares every field: counts exactly, numbers within
// tol (absolute or relative, whichever is larger), nulls with nulls.
func Compare(a, b *Rows, skipTicks int, tol float64) Report {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	ticksOf := func(m map[Key]wire.HostTick) map[int64]bool {
		out := map[int64]bool{}
		for k := range m {
			out[k.TS] = true
		}
		return out
	}
	ta, tb := ticksOf(a.rows), ticksOf(b.rows)
	var common []int64
	for ts := range ta {
		if tb[ts] {
			common = append(common, ts)
		}
	}
	slices.Sort(common)
	// The last common tick may be half-received on one side: drop it.
	if len(common) > 0 {
		common = common[:len(common)-1]
	}
	var rep Report
	skip := map[int64]bool{}
	for i, ts := range common {
		if i < skipTicks {
			skip[ts] = true
		} else if rep.FirstTick == 0 {
			rep.FirstTick = ts
		}
	}
	inCommon := map[int64]bool{}
	for _, ts := range common {
		inCommon[ts] = true
	}
	keys := make([]Key, 0, len(a.rows))
	for k := range a.rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y Key) int {
		if x.TS != y.TS {
			return int(x.TS - y.TS)
		}
		if x.Host < y.Host {
			return -1
		}
		if x.Host > y.Host {
			return 1
		}
		return 0
	})
	for _, k := range keys {
		if !inCommon[k.TS] {
			continue
		}
		rb, ok := b.rows[k]
		if skip[k.TS] {
			rep.Skipped++
			continue
		}
		if !ok {
			rep.OnlyA++
			continue
		}
		rep.Compared++
		if d := Diff(a.rows[k], rb, tol); d != "" {
			if len(rep.Mismatches) < 10 {
				rep.Mismatches = append(rep.Mismatches, fmt.Sprintf("%d %s: %s", k.TS, k.Host, d))
			}
			continue
		}
		rep.Matched++
	}
	for k := range b.rows {
		if inCommon[k.TS] && !skip[k.TS] {
			if _, ok := a.rows[k]; !ok {
				rep.OnlyB++
			}
		}
	}
	return rep
}

// Diff describes the first field where x and y differ, or returns "".
func Diff(x, y wire.HostTick, tol float64) string {
	nums := []struct {
		name string
		a, b float64
	}{
		{"cpu_avg", x.CPUAvg, y.CPUAvg}, {"cpu_sd", x.CPUSd, y.CPUSd},
		{"requests_avg", x.RequestsAvg, y.RequestsAvg}, {"requests_sum", x.RequestsSum, y.RequestsSum},
		{"window_age_seconds", x.WindowAgeSeconds, y.WindowAgeSeconds},
		{"cpu_min", x.CPUMin, y.CPUMin}, {"cpu_max", x.CPUMax, y.CPUMax},
		{"current_avg", x.CurrentAvg, y.CurrentAvg}, {"current_sd", x.CurrentSd, y.CurrentSd},
	}
	for _, n := range nums {
		if !near(n.a, n.b, tol) {
			return fmt.Sprintf("%s %v vs %v", n.name, n.a, n.b)
		}
	}
	ints := []struct {
		name string
		a, b int
	}{{"cpu_n", x.CPUN, y.CPUN}, {"n_current", x.NCurrent, y.NCurrent}, {"requests_n", x.RequestsN, y.RequestsN}}
	for _, n := range ints {
		if n.a != n.b {
			return fmt.Sprintf("%s %d vs %d", n.name, n.a, n.b)
		}
	}
	if !slices.Equal(x.AnomaliesAbove, y.AnomaliesAbove) {
		return fmt.Sprintf("anomalies_above %v vs %v", x.AnomaliesAbove, y.AnomaliesAbove)
	}
	if !slices.Equal(x.AnomaliesBelow, y.AnomaliesBelow) {
		return fmt.Sprintf("anomalies_below %v vs %v", x.AnomaliesBelow, y.AnomaliesBelow)
	}
	return ""
}

func near(a, b, tol float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	d := math.Abs(a - b)
	return d <= tol || d <= tol*math.Max(math.Abs(a), math.Abs(b))
}
