package live

import (
	"math"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/schema"
)

// A partition node keeping one row per partition (MaxEvents 1) needs each
// partition's last row only when something reads it (a snapshot, a
// replay into a new node) or when the series is about to forget it. While
// the series' store holds the row, the node keeps its id only (one word a
// row, written as the row is routed) and copies the row out of the store
// when it is read, or just before retention evicts it (rescueLast). The
// copy is the partition's ring slot, so every reader sees the same row as
// before. This holds for rows stored in arrival order (stored row r has id
// evicted + r), without arrays, when nothing reads the node's evictions.

// lazyLast reports whether the node keeps its last rows by id.
func (n *partitionNode) lazyLast() bool {
	return n.opts.MaxEvents == 1 && !n.wantGone && !n.hasArrays && n.s.opts.Ordering != Reorder
}

// noteLast counts the push's rows per partition and records each
// partition's last row of the push by its id; a partition's first row is
// copied into its slot, which makes the slot.
func (n *partitionNode) noteLast(in *frame, parts []int32) {
	ids := in.ids[:len(parts)]
	n.growSlots()
	last, ingested := n.lastID, n.ingested
	for i, p := range parts {
		// A partition keeping one row has it from its first row on, and
		// its count goes back to 0 only when it expires with its row.
		k := ingested[p]
		ingested[p] = k + 1
		if k == 0 {
			n.store(p, in, i)
			n.savedID[p] = ids[i]
		}
		last[p] = ids[i]
	}
	n.stale = true
}

// growSlots gives every partition index the router has a ring (empty
// until its first row), a last and a saved id.
func (n *partitionNode) growSlots() {
	if k := n.router.Cap(); len(n.rings) < k {
		n.rings = append(n.rings, make([]ring, k-len(n.rings))...)
	}
	n.growLast()
}

// growLast gives every partition index a last and a saved id.
func (n *partitionNode) growLast() {
	if k := len(n.rings); len(n.lastID) < k {
		n.lastID = append(n.lastID, make([]uint64, k-len(n.lastID))...)
		n.savedID = append(n.savedID, make([]uint64, k-len(n.savedID))...)
	}
}

// saveLast copies partition p's last row out of the store into its slot,
// when the slot does not hold it yet.
func (n *partitionNode) saveLast(p int32) {
	if int(p) >= len(n.lastID) || n.lastID[p] == n.savedID[p] || n.rings[p].n == 0 {
		return
	}
	s := n.s
	id := n.lastID[p]
	if id < s.evicted {
		panic("live: a partition's last row left the store before it was saved")
	}
	r := int(id - s.evicted)
	row := n.rings[p].buf[:n.stride]
	row[0] = uint64(s.store.Time(r))
	row[1] = id
	for j := 1; j < n.sch.Len(); j++ {
		switch n.sch.Column(j).Kind {
		case schema.Number:
			row[1+j] = cell.Num(s.store.Num(r, j))
		case schema.String:
			row[1+j] = uint64(s.store.Sym(r, j))
		default:
			row[1+j] = uint64(s.store.Flag(r, j))
		}
	}
	n.savedID[p] = id
}

// saveAllLast copies every partition's last row into its slot: before the
// rows are read, or before the node stops keeping them by id.
func (n *partitionNode) saveAllLast() {
	if !n.stale {
		return
	}
	for p := range n.lastID {
		n.saveLast(int32(p))
	}
	n.stale = false
}

// rescueByPartitions: rescueLast looks through the partitions' last ids,
// rather than the rows about to go, when there are at most this many
// partitions per such row (a look at an id costs a few instructions, the
// look up of a row's partition several times more). A variable for the
// tests, which take each way.
var rescueByPartitions = 8

// rescueLast saves the last rows among the k oldest stored rows, which
// retention is about to evict: a row is its partition's last when its id
// is the partition's last id. With few partitions per row it looks for
// the partitions whose last id is among those rows; otherwise it looks up
// each row's partition (string keys a chunk at a time).
//
// Looking through the partitions, it also notes the oldest last id among
// those not saved (lastFloor): ids only grow, so until the rows leaving
// reach it, none of them is a partition's last row and there is nothing
// to look at (a steady stream of every key looks once per turn of the
// store, not once per push).
func (n *partitionNode) rescueLast(k int) {
	if !n.stale || k == 0 {
		return
	}
	s := n.s
	lo, hi := s.evicted, s.evicted+uint64(k)
	if hi <= n.lastFloor {
		return
	}
	if len(n.lastID) <= rescueByPartitions*k {
		floor := uint64(math.MaxUint64)
		saved := n.savedID[:len(n.lastID)]
		for p, id := range n.lastID {
			switch {
			case saved[p] == id:
			case id >= lo && id < hi:
				n.saveLast(int32(p))
			default:
				floor = min(floor, id)
			}
		}
		n.lastFloor = floor
		return
	}
	if n.kind == schema.String {
		s.store.SymRuns(n.col, 0, k, func(first int, syms []uint32) {
			id := s.evicted + uint64(first)
			for i, sym := range syms {
				p, ok := n.router.FindSym(sym)
				if sym == 0 {
					p, ok = n.router.Find(router.Key{}) // the missing key's partition
				}
				if ok && int(p) < len(n.lastID) && n.lastID[p] == id+uint64(i) {
					n.saveLast(p)
				}
			}
		})
		return
	}
	for r := range k {
		if p, ok := n.router.Find(n.s.keyOf(s.cell(r, n.col))); ok && int(p) < len(n.lastID) && n.lastID[p] == s.evicted+uint64(r) {
			n.saveLast(p)
		}
	}
}
