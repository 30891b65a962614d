package live

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/internal/clock"
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
	if err := clock.CheckDuration(span); err != nil {
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
	return s.addView("window", source, src.sch, viewWindow, &windowOp{span: span, count: count}, true)
}

// windowOp passes every row on and bounds what its view holds to the last
// span (from each partition's latest time) or the last count rows of each
// partition: a viewOp and a viewBound.
type windowOp struct {
	span    int64   // nanoseconds, or 0
	count   int     // rows, or 0
	maxT    []int64 // per partition: the latest time held
	hasMax  []bool
	touched []int32  // the partitions the push stored rows in
	stamp   []uint64 // per partition: the last push that touched it
	pushes  uint64
}

func (w *windowOp) row(in *frame, i int, _ int32, out *frame) bool {
	copyRow(out, in, i)
	return true
}

func (w *windowOp) forget(p int32) {
	if int(p) < len(w.hasMax) {
		w.hasMax[p] = false
	}
}

func (w *windowOp) begin() {
	w.pushes++
	w.touched = w.touched[:0]
}

func (w *windowOp) kept(p int32, t int64) {
	for int(p) >= len(w.maxT) {
		w.maxT = append(w.maxT, 0)
		w.hasMax = append(w.hasMax, false)
		w.stamp = append(w.stamp, 0)
	}
	if !w.hasMax[p] || t > w.maxT[p] {
		w.maxT[p], w.hasMax[p] = t, true
	}
	if w.stamp[p] != w.pushes {
		w.stamp[p] = w.pushes
		w.touched = append(w.touched, p)
	}
}

// trim applies the bound to every partition the push touched.
func (w *windowOp) trim(n *viewNode) {
	for _, p := range w.touched {
		st := n.stores[p]
		if w.count > 0 {
			for st.len() > w.count {
				n.drop(p, st, st.head)
			}
			continue
		}
		cut := w.maxT[p] - w.span
		for st.len() > 0 && st.t[st.head] < cut {
			n.drop(p, st, st.head)
		}
	}
}
