package live

import (
	"fmt"

	"github.com/pond-go/pond/schema"
)

// Snapshot returns a table of the rows a node holds now, in key order (by
// time, then arrival): the root's retained rows, a partition node's (all
// partitions), a window's, a view's, or the history of a rolling built
// with [rolling.Options] History. The table is a copy the caller owns:
// later pushes do not change it, and reading it never touches the series.
// Read it with [schema.Table.Numbers] and [schema.Table.Strings] (typed
// columns, no copy), [schema.Table.All] (rows), [schema.Table.Row], or
// decode it into structs with a [schema.Codec].
//
// A node that holds no rows (a rolling without history, a reduce, an
// aggregate, a view over those other than a window) gives an error
// wrapping [ErrNode]; a call from inside a push (a filter's function)
// gives [ErrReentrant]. Like every method of a Series, Snapshot must not
// run concurrently with a push.
func (s *Series) Snapshot(id NodeID) (*schema.Table, error) {
	if err := s.canPush(); err != nil {
		return nil, err
	}
	n, err := s.node(id)
	if err != nil {
		return nil, err
	}
	if _, ok := n.(*rollingNode); ok {
		if h := s.history(id); h != nil {
			f := h.holdings()
			return f.tab, nil
		}
	}
	f, ok := s.holdings(id)
	if !ok {
		return nil, fmt.Errorf("%w: %s node %d holds no rows", ErrNode, n.base().op, id)
	}
	return f.tab, nil
}
