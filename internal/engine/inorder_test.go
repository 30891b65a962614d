package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// inOrderPaths are the ways rows enter a stream's deque, each a stream
// of its own and a push of rows at times (ms), told sorted or not:
// one by one (Append, under the event trigger), a push that crosses a
// clock's boundaries (appendInput), one that crosses none (appendQuiet)
// and the event trigger's batch path (appendInput too).
var inOrderPaths = []struct {
	name string
	trig trigger.Trigger
	aggs []reduce.Agg
}{
	{"one by one", trigger.Event(), []reduce.Agg{{Out: "lo", From: "v", Using: reduce.Min}}},
	{"by the clock", trigger.Clock(sequence.Every(time.Hour)), []reduce.Agg{{Out: "s", From: "v", Using: reduce.Sum}}},
	{"event batch", trigger.Event(), []reduce.Agg{{Out: "s", From: "v", Using: reduce.Sum}}},
}

// pushMillis pushes rows at times ms (in milliseconds) to s, told sorted
// or not.
func pushMillis(s *Stream, sorted bool, ms ...int64) {
	tab := schema.NewTable(testSchema)
	for _, x := range ms {
		table.Column(tab, 0).AppendTime(x * int64(time.Millisecond))
		table.Column(tab, 1).AppendNum(float64(x))
		table.Column(tab, 2).AppendNum(1)
	}
	var in Input
	s.e.p.Bind(&in, tab, nil)
	in.SetSorted(sorted)
	s.Push(&in, schema.NewTable(s.e.p.Schema()))
}

// TestRowsInOrderAreKnownInOrder: the rows a deque holds are known to be
// in time order (so that the rows leaving a window are found by a
// search, not row by row) as long as no row came before one appended
// earlier: rows at the latest time again are in order, and so are rows
// before the epoch entering an engine that has held none (whose latest
// time is unset, not 0). A row before the latest, or a push not told
// sorted of rows that are not, makes them not known in order. Each path
// rows take into a stream's deque, the clock's pushes in runs that cross
// its boundaries (at whole hours) and in pushes that cross none.
func TestRowsInOrderAreKnownInOrder(t *testing.T) {
	const h = int64(time.Hour / time.Millisecond)
	for _, p := range inOrderPaths {
		plan, err := NewPlan(testSchema, []rolling.Window{{Name: "w", Span: 10 * time.Hour, Aggs: p.aggs}},
			rolling.Options{Trigger: p.trig}, nil, nil)
		require.NoError(t, err)
		for _, tc := range []struct {
			name    string
			pushes  [][]int64
			sorted  bool // the pushes are told sorted
			inOrder bool
		}{
			{"before the epoch", [][]int64{{-5 * h, -5*h + 1}, {-5*h + 2, -4*h - 1}, {-4 * h}}, true, true},
			{"before the epoch, one a push", [][]int64{{-3 * h}, {-3*h + 1}, {-2 * h}}, true, true},
			{"at the latest time again", [][]int64{{h, h + 5, h + 5}, {h + 5, h + 5}, {2 * h}, {2 * h, 2 * h}}, true, true},
			{"a push before the latest", [][]int64{{h, h + 5}, {h + 4, h + 6}}, true, false},
			{"before the latest within a push", [][]int64{{h, h + 5, h + 4}}, false, false},
			{"before the latest first in a push", [][]int64{{h, h + 5}, {h + 4}}, true, false},
		} {
			s := plan.NewStream()
			for _, ms := range tc.pushes {
				pushMillis(s, tc.sorted, ms...)
			}
			assert.Equal(t, tc.inOrder, s.e.dq.sorted(), "%s: %s", p.name, tc.name)
		}
	}
}
