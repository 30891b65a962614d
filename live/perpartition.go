package live

import (
	"fmt"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// PerPartition builds a chain of per-partition operators on a partitioned
// node: build gets the series and source and returns the last node of the
// chain it built on source. Views (filter, map, select, window, diff,
// rate, pctChange, fill, cumulative, sample) and rollings built on a
// partitioned node already keep their state per partition; PerPartition
// checks that the chain stays so (its last node carries source's
// partitioning and descends from source) and makes its building atomic:
// when build fails, or the chain is not per partition, every node build
// added is removed again and the error returned (a [*ConfigError] for a
// chain that is not per partition); when build panics, its nodes are
// removed and the panic goes on.
//
// The result is a partitioned node: a [Series.Rolling] built on it keeps
// its windows per partition, and [Series.Gather] merges its partitions
// back into one stream.
//
// This is the per_partition of pond-rs and the chain sugar of pond-ts's
// partitioned series (partitionBy(c).fill(…).diff(…)).
func (s *Series) PerPartition(source NodeID, build func(s *Series, part NodeID) (NodeID, error)) (NodeID, error) {
	const op = "perPartition"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if src.scope == nil {
		return 0, configErr(op, "source", fmt.Sprintf("%s node %d is not partitioned", src.op, source), nil)
	}
	if build == nil {
		return 0, configErr(op, "build", "PerPartition needs a build function", nil)
	}
	mark := len(s.nodes)
	built := false
	defer func() {
		if !built { // build panicked: remove its nodes, and go on panicking
			s.removeNodesFrom(mark)
		}
	}()
	last, err := build(s, source)
	built = true
	if err == nil {
		err = s.checkChain(op, source, last, mark)
	}
	if err != nil {
		s.removeNodesFrom(mark)
		return 0, err
	}
	return last, nil
}

// removeNodesFrom removes the nodes from id mark on, the last ones built.
func (s *Series) removeNodesFrom(mark int) {
	clear(s.nodes[mark:])
	s.nodes = s.nodes[:mark]
	s.registerAll()
	s.watchesChanged() // the next push drops the removed nodes' wants
}

// checkChain checks that last is source, or a node built since mark that
// descends from source through nodes built since mark and carries its
// partitioning.
func (s *Series) checkChain(op string, source, last NodeID, mark int) error {
	if last == source {
		return nil
	}
	if last < 0 || int(last) >= len(s.nodes) || int(last) < mark {
		return configErr(op, "build", fmt.Sprintf("node %d is not a node the build function built", last), nil)
	}
	for id := last; id != source; id = s.nodes[id].base().src {
		if int(id) < mark {
			return configErr(op, "build", fmt.Sprintf("node %d is not built on the partitioned node %d", last, source), nil)
		}
	}
	// Built on source, and yet not per partition: a node of the chain
	// merged them.
	if s.nodes[last].base().scope != s.nodes[source].base().scope {
		return configErr(op, "build", fmt.Sprintf("%s node %d is not per partition (a reduce, an aggregate or a gather merges partitions)", s.nodes[last].base().op, last), nil)
	}
	return nil
}

// Gather adds a node that merges the partitions of a partitioned node back
// into one stream: every row of source, in the order the source emits
// them (arrival order for views of a partition), no longer partitioned,
// so operators built on it see all partitions together. Rows keep the
// partition column: if source's rows lack it (a select dropped it), the
// gathered rows carry it after the time, as a rolling's do.
//
// Over a source that holds rows the gathered node holds the same rows and
// follows their evictions; it stores nothing of its own. A source that is
// not partitioned is an error wrapping [ErrConfig].
func (s *Series) Gather(source NodeID) (NodeID, error) {
	const op = "gather"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if src.scope == nil {
		return 0, configErr(op, "source", fmt.Sprintf("%s node %d is not partitioned", src.op, source), nil)
	}
	pn := s.partitioning(src)
	key := pn.sch.Column(pn.col)
	g := &gatherOp{pn: pn}
	sch := src.sch
	if _, ok := src.sch.Index(key.Name); !ok {
		cols := append([]schema.Column{src.sch.Column(0), {Name: key.Name, Kind: key.Kind, Optional: true}}, src.sch.Columns()[1:]...)
		if sch, err = schema.New(cols...); err != nil {
			return 0, configErr(op, key.Name, "bad output schema", err)
		}
		g.addKey = true
	}
	return s.addView(op, source, sch, viewProjects, g, false), nil
}

// gatherOp copies rows, adding the partition's key when they lack it.
type gatherOp struct {
	pn     *partitionNode
	addKey bool
	keys   []schema.Value // per partition index, kept until its rows have gone
	gens   []uint32
	set    []bool
}

func (o *gatherOp) row(in *frame, i int, p int32, out *frame) bool {
	if !o.addKey {
		copyRow(out, in, i)
		return true
	}
	table.Column(out.tab, 0).AppendTime(in.tab.TimeNanos(i))
	table.AppendValue(table.Column(out.tab, 1), o.key(p))
	for j := 1; j < in.tab.Schema().Len(); j++ {
		appendCell(table.Column(out.tab, j+1), table.Column(in.tab, j), i)
		copySym(out, j+1, in, j, i)
	}
	return true
}

// key returns the key of partition p, remembered so that the rows of a
// partition evicted on its expiry still carry it.
func (o *gatherOp) key(p int32) schema.Value {
	for int(p) >= len(o.keys) {
		o.keys = append(o.keys, schema.Value{})
		o.gens = append(o.gens, 0)
		o.set = append(o.set, false)
	}
	r := o.pn.router
	if r.Alive(p) && (!o.set[p] || o.gens[p] != r.Generation(p)) {
		o.keys[p], o.gens[p], o.set[p] = r.KeyValue(p), r.Generation(p), true
	}
	return o.keys[p]
}

// forget lets go of a partition's key once its rows, evictions included,
// have gone (a view forgets an expired partition after dropping them).
func (o *gatherOp) forget(p int32) {
	if int(p) < len(o.keys) {
		o.keys[p], o.set[p] = schema.Value{}, false
	}
}
