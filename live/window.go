package live

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/sequence"
)

// Window adds a view that passes every row of source on and holds those
// of the last span: after each push it evicts the rows older than its
// latest time minus span (a row exactly span old stays), and announces
// them as its Evict output, so nodes built on it (a reduce, a filter) see
// only the window (docs/differences.md §13). Rows the source evicts leave it too.
// On a partitioned source each partition keeps its own window, measured
// from its own latest time. A span that is not positive is an error
// wrapping [ErrConfig].
func (s *Series) Window(source NodeID, span time.Duration) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if err := sequence.CheckDuration(span); err != nil {
		return 0, configErr("window", "span", fmt.Sprintf("%v must be positive and at most %v", span, sequence.MaxDuration), err)
	}
	return s.addWindow(source, src, int64(span), 0), nil
}

// WindowCount is [Series.Window] holding the last n rows (in key order,
// per partition on a partitioned source). An n below 1 is an error
// wrapping [ErrConfig].
func (s *Series) WindowCount(source NodeID, n int) (NodeID, error) {
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, configErr("window", "count", fmt.Sprintf("%d must be at least 1", n), nil)
	}
	return s.addWindow(source, src, 0, n), nil
}

func (s *Series) addWindow(source NodeID, src *nodeBase, span int64, count int) NodeID {
	return s.addView("window", source, src.sch, viewWindow, passOp{}, true, func(n *viewNode) {
		n.span, n.count = span, count
	})
}
