package live

import (
	"github.com/pond-go/pond/rolling"
)

// rollingBuilt completes a rolling node once [Series.Rolling] has built
// it: the node takes the lateness of its source, starts from what a view
// source holds (Rolling itself replays the root and partitions), and gets
// a history when its options ask for one.
func (s *Series) rollingBuilt(n *rollingNode, h rolling.History) {
	// A rolling that closes boundaries in finish (advances) emits there:
	// the nodes built on it take its rows in the finish pass.
	n.late = s.nodes[n.src].base().late || n.advances
	if _, ok := s.nodes[n.src].(*viewNode); ok {
		if f, ok := s.replayFrame(n.src); ok {
			n.replay(&f)
		}
	}
	if h.MaxEvents <= 0 && h.MaxAge <= 0 { // off
		return
	}
	hn := &historyNode{h: h}
	b := hn.base()
	b.src, b.op, b.sch = n.id, "history", n.sch
	b.out = newFrame(n.sch)
	b.late = n.late
	hn.rows = newRowStore(n.sch, true)
	s.addNode(hn)
}

// historyNode keeps the rows a rolling emitted, under the rolling's
// history bounds ([rolling.History]): the newest MaxEvents, and those no
// older than the newest time minus MaxAge. It is built with the rolling,
// right after it, and is not a node callers see: [Series.Snapshot] of the
// rolling reads it, and Series.node refuses its id, naming the rolling.
type historyNode struct {
	nodeBase
	h    rolling.History
	rows *rowStore // key order: time, then emission
	next uint64
	maxT int64
	has  bool
}

func (n *historyNode) push(in *frame) {
	if in.len() == 0 {
		return
	}
	for i := range in.len() {
		t := in.tab.TimeNanos(i)
		n.rows.add(t, n.next, in.tab, i)
		n.next++
		if !n.has || t > n.maxT {
			n.maxT, n.has = t, true
		}
	}
	st := n.rows
	if m := n.h.MaxEvents; m > 0 {
		for st.len() > m {
			st.remove(st.head)
		}
	}
	if a := int64(n.h.MaxAge); a > 0 {
		cut := n.maxT - a
		for st.len() > 0 && st.t[st.head] < cut {
			st.remove(st.head)
		}
	}
}

func (n *historyNode) heldBytes() int { return n.rows.bytes() }

func (n *historyNode) evicted(*frame) {}
func (n *historyNode) finish()        {}

// history returns the history node of the rolling node id, if it has one.
func (s *Series) history(id NodeID) *historyNode {
	for _, n := range s.nodes[id+1:] {
		if h, ok := n.(*historyNode); ok && h.src == id {
			return h
		}
	}
	return nil
}

// holdings returns the rows the history holds, in key order.
func (n *historyNode) holdings() frame {
	f := newFrame(n.sch)
	for pos := n.rows.head; pos < len(n.rows.t); pos++ {
		n.rows.appendTo(&f, pos)
	}
	return f
}
