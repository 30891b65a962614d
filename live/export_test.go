package live

import (
	"unsafe"

	"github.com/pond-go/pond/internal/table"
)

// SweepEveryPush makes s forget the strings it no longer holds at the end
// of every push, not only when a sweep is due, so that tests of a few
// rows exercise the intern table's sweeps.
func SweepEveryPush(s *Series) { s.sweepEveryPush = true }

// ValidateAlone makes s validate every push on its own, as a batch that
// the root cannot check while storing it is, so that a test can compare
// what the two ways refuse and keep.
func ValidateAlone(s *Series) { s.validateAlone = true }

// Staged reports whether s's last push was checked while its times and
// numbers were copied to the store.
func Staged(s *Series) bool { return s.root.staged }

// RescueByPartitions sets how many partitions per evicted row a partition
// node looks through their last ids rather than up each row's partition
// (0: always by row), and returns the setting before.
func RescueByPartitions(n int) int {
	old := rescueByPartitions
	rescueByPartitions = n
	return old
}

// LastRowsRoom returns, for partition node id keeping one row per
// partition, the partitions and the rows its shared slots have room for.
func LastRowsRoom(s *Series, id NodeID) (parts, room int) {
	n := s.nodes[id].(*partitionNode)
	return n.router.Len(), len(n.lastRows) / n.stride
}

// PartitionRings returns how many rings partition node id has (none when
// it keeps one row per partition, in its slots) and how many partitions
// its marks of held one-row slots cover.
func PartitionRings(s *Series, id NodeID) (rings, marks int) {
	n := s.nodes[id].(*partitionNode)
	return cap(n.rings), len(n.one)
}

// EmissionRoom returns, for rolling node id, the rows of the latest
// emission it keeps for Value and the most cells of room beyond them in
// one of its table's time and number columns.
func EmissionRoom(s *Series, id NodeID) (rows, room int) {
	n := s.nodes[id].(*rollingNode)
	f := n.last
	if n.out.len() > 0 {
		f = n.out
	}
	if f.tab == nil {
		return 0, 0
	}
	for j := range f.tab.Schema().Len() {
		c := table.Column(f.tab, j)
		switch j {
		case 0:
			room = max(room, cap(c.Times())-len(c.Times()))
		default:
			room = max(room, cap(c.Numbers())-len(c.Numbers()))
		}
	}
	return f.len(), room
}

// EmissionBuffers returns the addresses of the time columns' buffers of
// rolling node id's two output tables (the one a tick fills and the one
// kept as the latest emission), 0 for a table not made yet.
func EmissionBuffers(s *Series, id NodeID) [2]uintptr {
	n := s.nodes[id].(*rollingNode)
	var b [2]uintptr
	for i, f := range [2]frame{n.out, n.last} {
		if f.tab != nil {
			b[i] = uintptr(unsafe.Pointer(unsafe.SliceData(table.Column(f.tab, 0).Times())))
		}
	}
	return b
}

// PartsID returns the number the router of partition node id gives the
// list of the node's last push's partitions, which a rolling built on it
// tells its group (0: none).
func PartsID(s *Series, id NodeID) uint64 {
	n := s.nodes[id].(*partitionNode)
	return n.router.AgainID(n.out.part)
}

// InternIDBuffers returns the ids the root keeps room for outside its
// intern caches, over its string columns.
func InternIDBuffers(s *Series) int {
	n := 0
	for _, ids := range s.root.idBuf {
		n += cap(ids)
	}
	return n
}
