package live

import (
	"fmt"
	"slices"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Value returns a node's current value, without keeping any history: a
// table the caller owns, with the node's schema.
//
//   - A rolling: its latest row, the last it emitted (for a partitioned
//     rolling, the latest row of each partition that emitted in its latest
//     emitting push: under a clock trigger, every partition's row of the
//     last tick; the partitions' rows in no promised order — sort them by
//     the key column if you need one). Empty before its first emission.
//     A rolling built on a node that holds rows emits while it replays
//     them (see [Series.Rolling]): not in any output, but its Value is
//     then the rows a rolling built before those rows would have emitted
//     last.
//   - A reduce: the reduction of what its source holds now, at the time of
//     the last row that reached it (under reorder, the last to arrive,
//     not the newest), whatever its trigger. Empty before any row reached
//     it.
//   - An aggregate: one row per open bucket, at the bucket's start (see
//     [Series.Aggregate] for one that starts before the range), in time
//     order, reducing the rows the bucket has taken so far.
//
// Another node (one that holds rows: read it with [Series.Snapshot]) gives
// an error wrapping [ErrNode]; a call from inside a push gives
// [ErrReentrant].
func (s *Series) Value(id NodeID) (*schema.Table, error) {
	if err := s.canPush(); err != nil {
		return nil, err
	}
	n, err := s.node(id)
	if err != nil {
		return nil, err
	}
	tab := schema.NewTable(n.base().sch)
	switch n := n.(type) {
	case *rollingNode:
		n.appendValue(tab)
	case *reduceNode:
		if n.seen {
			n.emitTo(tab, n.lastT)
		}
	case *aggregateNode:
		for _, bk := range n.open {
			table.Column(tab, 0).AppendTime(bk.key())
			for k, st := range bk.states {
				st.Append(table.Column(tab, k+1))
			}
		}
	default:
		return nil, fmt.Errorf("%w: %s node %d has no current value (Snapshot reads the rows it holds)", ErrNode, n.base().op, id)
	}
	return tab, nil
}

// appendValue appends the rolling's latest row (per partition, the latest
// row of each partition in the latest emission) to tab.
func (n *rollingNode) appendValue(tab *schema.Table) {
	src := n.out.tab
	if n.out.len() == 0 {
		if n.last.tab == nil {
			return
		}
		src = n.last.tab
	}
	rows := src.Len()
	if rows == 0 {
		return
	}
	if n.part == nil {
		table.AppendFrom(tab, src, rows-1)
		return
	}
	// Column 1 is the partition key: keep each key's last row, in the
	// order the keys' first rows came.
	// Keys are told apart by their rendering, which quotes strings, so a
	// string key never meets a number key.
	last := map[string]int{}
	var order []string
	for i := range rows {
		k := src.Value(i, 1).String()
		if _, seen := last[k]; !seen {
			order = append(order, k)
		}
		last[k] = i
	}
	for _, k := range order {
		table.AppendFrom(tab, src, last[k])
	}
}

// owned returns v for a state that keeps it past the push: an array's
// elements copied out of the push's table, whose buffers the next push
// writes over (a reduce's or an aggregate's first, last, keep and
// samples keep the value); any other value as it is.
func owned(v schema.Value) schema.Value {
	if elems, ok := v.Array(); ok {
		return schema.ArrayValue(slices.Clone(elems)...)
	}
	return v
}
