package live

import (
	"iter"
	"time"

	"github.com/pond-go/pond/schema"
)

// Group is the rows of one time in a node's output: rows [From, To) of
// Table, all at Time. It reads the table in place; like the table, it is
// valid until the series' next push.
type Group struct {
	Time     int64 // nanoseconds since the epoch
	Table    *schema.Table
	From, To int
}

// Len returns the number of rows in the group.
func (g Group) Len() int { return g.To - g.From }

// At returns the group's time.
func (g Group) At() time.Time { return time.Unix(0, g.Time).UTC() }

// Numbers returns the group's cells of the named number column, NaN for
// missing ones, without copying; false if there is no such column.
func (g Group) Numbers(name string) ([]float64, bool) {
	v, ok := g.Table.Numbers(name)
	if !ok {
		return nil, false
	}
	return v[g.From:g.To:g.To], true
}

// Strings returns the group's cells of the named string column ("" for
// missing ones) without copying; false if there is no such column.
func (g Group) Strings(name string) ([]string, bool) {
	v, ok := g.Table.Strings(name)
	if !ok {
		return nil, false
	}
	return v[g.From:g.To:g.To], true
}

// Value returns the cell of the group's row i (0 is its first) in column
// j of the table.
func (g Group) Value(i, j int) schema.Value { return g.Table.Value(g.From+i, j) }

// All iterates over the group's rows, numbered from 0. Each row is a new
// slice.
func (g Group) All() iter.Seq2[int, schema.Row] {
	return func(yield func(int, schema.Row) bool) {
		for i := g.From; i < g.To; i++ {
			if !yield(i-g.From, g.Table.Row(i)) {
				return
			}
		}
	}
}

// ByTime iterates over the rows a node emitted in one push (its Event
// output among outs, what [Series.PushMany] returned), grouped by time:
// one [Group] per run of consecutive rows with the same time, in order.
// For a clock-triggered rolling over a partitioned node each group is one
// boundary's frame, every partition's row of that tick in one piece;
// for a node emitting one row per input row each group holds the rows of
// one timestamp.
func ByTime(outs []Output, node NodeID) iter.Seq[Group] {
	return func(yield func(Group) bool) {
		for _, o := range outs {
			if o.Node != node || o.Kind != Event {
				continue
			}
			for r := range o.Events.Runs() {
				if !yield(Group{Time: r.Time, Table: o.Events, From: r.From, To: r.To}) {
					return
				}
			}
		}
	}
}
