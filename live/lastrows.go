package live

import (
	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/schema"
)

// A partition node keeping one row per partition (MaxEvents 1) needs each
// partition's last row only when something reads it (a snapshot, a
// replay into a new node) or when the series is about to forget it. While
// the series' store holds the row, the node keeps its id only (the
// router records each partition's last row as it routes it) and copies
// the row out of the store
// when it is read, or just before retention evicts it (rescueLast). The
// copy is the partition's slot, so every reader sees the same row as
// before; the slot's row is behind when its id (row[1]) is not the
// partition's last. The slots are made by the first copy, not by a
// partition's first row: at many partitions of steady keys, whose last
// rows the store always holds, none is made. This holds for rows stored
// in arrival order (stored row r has id evicted + r), without arrays,
// when nothing reads the node's evictions.

// lazyLast reports whether the node keeps its last rows by id.
func (n *partitionNode) lazyLast() bool {
	return n.opts.MaxEvents == 1 && !n.wantGone && !n.hasArrays && n.s.opts.Ordering != Reorder
}

// growSlots gives every partition index the router has its mark of a
// held row (MaxEvents 1), unset until its first row.
func (n *partitionNode) growSlots() {
	if k := n.router.Cap(); len(n.one) < k {
		n.one = append(n.one, make([]bool, k-len(n.one))...)
	}
}

// behind reports whether partition p holds a row and its slot does not
// hold its last (or is not made: a node keeping its rows by id makes a
// partition's slot when it first saves its row).
func (n *partitionNode) behind(p int32) bool {
	return int(p) < len(n.one) && n.one[p] && !n.holds(p, n.router.LastRow(p))
}

// holds reports whether partition p's slot is made and holds row id.
func (n *partitionNode) holds(p int32, id uint64) bool {
	i := int(p)*n.stride + 1
	return i < len(n.lastRows) && n.lastRows[i] == id
}

// noRow is the id of a slot no row was written to: ids count the rows
// ingested from 0, and never reach it.
const noRow = ^uint64(0)

// saveLast copies partition p's last row out of the store into its slot,
// when the slot does not hold it yet.
func (n *partitionNode) saveLast(p int32) {
	if !n.behind(p) {
		return
	}
	s := n.s
	id := n.router.LastRow(p)
	if id < s.evicted {
		panic("live: a partition's last row left the store before it was saved")
	}
	r := int(id - s.evicted)
	row := n.slot(p)
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
}

// saveAllLast copies every partition's last row into its slot: before the
// rows are read, or before the node stops keeping them by id.
func (n *partitionNode) saveAllLast() {
	if !n.stale {
		return
	}
	for p := range n.one {
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
	if n.stale && k > 0 && n.s.evicted+uint64(k) > n.lastFloor {
		n.rescue(k)
	}
}

// rescue is rescueLast once some row among the k oldest may be a
// partition's last.
func (n *partitionNode) rescue(k int) {
	s := n.s
	lo, hi := s.evicted, s.evicted+uint64(k)
	if len(n.one) <= rescueByPartitions*k {
		// Rows not yet stored take ids from s.ingested on: with every
		// partition's last row saved, the floor is the next row's id.
		floor := s.ingested
		for p, has := range n.one {
			switch id := n.router.LastRow(int32(p)); {
			case !has || n.holds(int32(p), id):
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
				if ok && n.router.LastRow(p) == id+uint64(i) {
					n.saveLast(p)
				}
			}
		})
		return
	}
	for r := range k {
		if p, ok := n.router.Find(n.s.keyOf(s.cell(r, n.col))); ok && n.router.LastRow(p) == s.evicted+uint64(r) {
			n.saveLast(p)
		}
	}
}
