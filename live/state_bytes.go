package live

import (
	"unsafe"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/schema"
)

// This file gives the nodes whose state is not rows the memory it holds,
// for [Series.NodeBytes]: each slice at its capacity, maps estimated from
// their entries; the bytes of strings, shared with the series, are not
// counted.

const valueBytes = int(unsafe.Sizeof(schema.Value{}))

// mapBytes estimates the memory of a map of n entries of kv bytes each: a
// slot of key and value and a control byte, at a load of 7/8.
func mapBytes(n, kv int) int { return n * (kv + 1) * 8 / 7 }

// opBytes is a viewOp that keeps state of its own besides the rows its
// view stores (per partition: a previous value, a running total).
type opBytes interface {
	stateBytes() int
}

func (o *changeOp) stateBytes() int { return cap(o.has) + 8*cap(o.prevT) + 8*cap(o.prev) }

func (o *cumOp) stateBytes() int {
	return 8*cap(o.acc) + 8*cap(o.comp) + cap(o.has) + 8*cap(o.huge)
}

func (o *fillOp) stateBytes() int {
	return valueBytes*cap(o.last) + 4*cap(o.lastSym) + cap(o.has) + 8*cap(o.run)
}

func (o *sampleOp) stateBytes() int { return 8 * cap(o.seen) }

func (o *gatherOp) stateBytes() int { return valueBytes*cap(o.keys) + 4*cap(o.gens) + cap(o.set) }

func (w *windowOp) stateBytes() int {
	return 8*cap(w.maxT) + cap(w.hasMax) + 4*cap(w.touched) + 8*cap(w.stamp)
}

// windowsBytes returns the memory of reducer states.
func windowsBytes(ws []reducers.Window) int {
	n := 16 * cap(ws) // the interface values
	for _, w := range ws {
		n += w.Bytes()
	}
	return n
}

// heldBytes returns the memory of the reduction's states (a median's
// values, a unique's distinct keys; a count's is a few bytes).
func (n *reduceNode) heldBytes() int { return windowsBytes(n.states) }

// heldBytes returns the memory of the aggregate's open buckets (the
// closed ones kept for reuse are room, which NodeBytes leaves out).
func (n *aggregateNode) heldBytes() int {
	b := 8 * cap(n.open)
	for _, bk := range n.open {
		b += int(unsafe.Sizeof(*bk)) + 16*cap(bk.states)
		for _, st := range bk.states {
			b += st.Bytes()
		}
	}
	return b
}

// heldBytes returns the memory of the partitions: the rows each keeps
// (Options.MaxEvents, MaxAge), the router's tables, and the node's own.
func (n *partitionNode) heldBytes() int {
	b := n.router.Bytes() + int(unsafe.Sizeof(ring{}))*cap(n.rings) + cap(n.one) +
		8*(cap(n.slab)+cap(n.lastRows)+cap(n.spare)) + 8*cap(n.lastAt) +
		4*cap(n.expired) + cap(n.routed) +
		mapBytes(len(n.arrays), 8+valueBytes) + mapBytes(len(n.seenNew), int(unsafe.Sizeof(router.Key{}))+1)
	for _, r := range n.rings {
		b += 8 * cap(r.buf)
	}
	for k, c := range n.lastCols {
		if n.sch.Column(k+1).Kind != schema.Number { // a number column's is a view of the push's
			b += 8 * cap(c)
		}
	}
	return b
}
