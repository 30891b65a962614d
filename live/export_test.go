package live

// SweepEveryPush makes s forget the strings it no longer holds at the end
// of every push, not only when a sweep is due, so that tests of a few
// rows exercise the intern table's sweeps.
func SweepEveryPush(s *Series) { s.sweepEveryPush = true }
