package live

import (
	"iter"
	"time"

	"github.com/pond-go/pond/schema"
)

// Group is the rows of one time in a node's output: rows [From, To) of
// Table, all at one time. Read its cells through Table with the table's
// own row indices, From to To−1 ([schema.Table.Num] and the other
// readers), so that one index base serves everywhere. Like the table, a
// group is valid until the series' next push.
type Group struct {
	Table    *schema.Table
	From, To int
}

// Len returns the number of rows in the group.
func (g Group) Len() int { return g.To - g.From }

// Time returns the group's time.
func (g Group) Time() time.Time { return g.Table.Time(g.From) }

// TimeNanos returns the group's time in nanoseconds since the epoch.
func (g Group) TimeNanos() int64 { return g.Table.TimeNanos(g.From) }

// ByTime iterates over the rows a node emitted in one push (its Event
// output among outs, what [Series.PushMany] returned), grouped by time:
// one [Group] per run of consecutive rows with the same time, in order.
// For a clock-triggered rolling over a partitioned node each group is one
// boundary's frame, every partition's row of that tick in one piece;
// for a node emitting one row per input row each group holds the rows of
// one timestamp.
func ByTime(outs []Output, node NodeID) iter.Seq[Group] {
	return func(yield func(Group) bool) {
		tab, ok := Find(outs, node, Event)
		if !ok {
			return
		}
		for r := range tab.Runs() {
			if !yield(Group{Table: tab, From: r.From, To: r.To}) {
				return
			}
		}
	}
}
