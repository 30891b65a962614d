package live

// SweepEveryPush makes s forget the strings it no longer holds at the end
// of every push, not only when a sweep is due, so that tests of a few
// rows exercise the intern table's sweeps.
func SweepEveryPush(s *Series) { s.sweepEveryPush = true }

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
