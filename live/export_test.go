package live

// SweepEveryPush makes s forget the strings it no longer holds at the end
// of every push, not only when a sweep is due, so that tests of a few
// rows exercise the intern table's sweeps.
func SweepEveryPush(s *Series) { s.sweepEveryPush = true }

// AsideNodes returns the nodes a push of s runs on a worker beside the
// others (see lanes.go).
func AsideNodes(s *Series) []NodeID {
	var ids []NodeID
	for _, n := range s.lanes.aside {
		ids = append(ids, n.base().id)
	}
	return ids
}
