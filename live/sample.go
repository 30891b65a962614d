package live

import "fmt"

// Sample adds a view that passes on every stride-th row of source: the
// stride-th, 2·stride-th, … row, counting across pushes. On a partitioned
// source each partition counts its own rows (the per-host sampling of the
// aggregator), and the view stays partitioned, so a rolling built on it
// keeps its windows per partition. A stride below 1 is an error wrapping
// [ErrConfig].
func (s *Series) Sample(source NodeID, stride int) (NodeID, error) {
	if _, err := s.node(source); err != nil {
		return 0, err
	}
	if stride < 1 {
		return 0, configErr("sample", "stride", fmt.Sprintf("%d must be at least 1", stride), nil)
	}
	src := s.nodes[source].base()
	n := &sampleNode{stride: stride}
	b := n.base()
	b.src, b.op, b.sch, b.scope = source, "sample", src.sch, src.scope
	b.out = newFrame(src.sch)
	b.produces[Event] = true
	id := s.addNode(n)
	if f, ok := s.replaySource(source); ok {
		n.push(&f)
	}
	return id, nil
}

// sampleNode keeps every stride-th row, per partition when partitioned.
type sampleNode struct {
	nodeBase
	stride int
	seen   []int // rows seen since the last one kept, per partition
}

func (n *sampleNode) push(in *frame) {
	out := &n.out
	out.reset()
	for i := range in.len() {
		p := 0
		if in.part != nil {
			p = int(in.part[i])
		}
		for p >= len(n.seen) {
			n.seen = append(n.seen, 0)
		}
		n.seen[p]++
		if n.seen[p] < n.stride {
			continue
		}
		n.seen[p] = 0
		out.tab.AppendFrom(in.tab, i)
		for j, ids := range in.syms {
			if ids != nil {
				out.syms[j] = append(out.syms[j], ids[i])
			}
		}
		if in.part != nil {
			out.part = append(out.part, in.part[i])
		}
		if in.ids != nil {
			out.ids = append(out.ids, in.ids[i])
		}
	}
}

func (n *sampleNode) evicted(*frame) {}
func (n *sampleNode) finish()        {}
