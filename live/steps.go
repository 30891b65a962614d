package live

// A push runs every node in build order twice: once to take its source's
// rows, once, after retention, to take late rows and evictions and to
// finish. What each pass does for a node follows from how the node was
// built, so it is worked out once, by the first push after a node is
// built, as two lists of steps; a push then runs the lists without
// looking anything up.

// takeStep is a node taking its source's rows in the first pass.
type takeStep struct {
	n  node
	in *frame
}

// finishStep is a node's part of the finish pass: the late rows it takes
// (nil when its source is not late), the evictions it follows (nil when
// it follows none), then its finish (unless it has none).
type finishStep struct {
	n      node
	late   *frame
	gone   *frame
	finish bool
}

// idler is a node that can tell its finish never does anything (a
// rolling or a partitioning whose partitions never expire): the finish
// pass passes it over.
type idler interface {
	finishesNothing() bool
}

// planSteps works the push's two lists of steps out for the nodes built
// so far.
func (s *Series) planSteps() {
	s.takeSteps, s.finishSteps = s.takeSteps[:0], s.finishSteps[:0]
	for i, n := range s.nodes[1:] {
		b := s.bases[i+1]
		src := s.bases[b.src]
		f := finishStep{n: n}
		if src.late {
			f.late = &src.out
		} else {
			s.takeSteps = append(s.takeSteps, takeStep{n: n, in: &src.out})
		}
		if b.followsEvictions {
			f.gone = &src.gone
		}
		i, ok := n.(idler)
		f.finish = !ok || !i.finishesNothing()
		if f.late != nil || f.gone != nil || f.finish {
			s.finishSteps = append(s.finishSteps, f)
		}
	}
	s.stepsFor = len(s.nodes)
}
