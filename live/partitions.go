package live

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/schema"
)

// Partition is one partition of a partitioned node, as [Series.Partitions]
// lists it.
type Partition struct {
	// Key is the partition's key, a missing value for the partition of
	// rows without one.
	Key schema.Value
	// Ingested counts the rows routed to the partition since it was
	// created (declared, or first seen after an idle expiry).
	Ingested uint64
	// Evicted counts the rows the partition's retention let go.
	Evicted uint64
	// Length is the number of rows the partition holds now.
	Length int
	// Last is the time of the partition's latest row, zero if it has none.
	Last time.Time
}

// Partitions lists the current partitions of a partitioning, in their
// first-seen order (declared groups first): id is a partition node or any
// node built on one. Expired partitions are not listed. A node that is not
// partitioned gives an error wrapping [ErrNode].
func (s *Series) Partitions(id NodeID) ([]Partition, error) {
	n, err := s.node(id)
	if err != nil {
		return nil, err
	}
	sc := n.base().scope
	if sc == nil {
		return nil, fmt.Errorf("%w: %s node %d is not partitioned", ErrNode, n.base().op, id)
	}
	pn := s.nodes[sc.node].(*partitionNode)
	var ps []Partition
	for _, p := range pn.router.Order() {
		if !pn.router.Alive(p) {
			continue
		}
		part := Partition{Key: pn.router.KeyValue(p)}
		part.Ingested = pn.router.Rows(p)
		part.Length = pn.rowCount(p)
		part.Evicted = part.Ingested - uint64(part.Length)
		if part.Ingested > 0 {
			part.Last = time.Unix(0, pn.router.Last(p)).UTC()
		}
		ps = append(ps, part)
	}
	return ps, nil
}
