package live

// A series with workers (Options.Workers > 1) spreads the ticks of its
// partitioned rollings over them. Besides, a push runs the rollings of
// the root that nothing reads and that read no string (the aside nodes,
// the seed's one-second count, say) on a worker while the pushing
// goroutine runs the nodes before the first partitioned rolling (the
// partition's routing); the rest follows in build order. The aside nodes
// touch nothing but the root's rows and their own state, and every node's
// output is collected once all have run, so the outputs are those of one
// worker.

// lanes is what planLanes decided: the aside nodes, and the index of the
// first node the pushing goroutine leaves for after they have run.
type lanes struct {
	aside   []node
	isAside []bool // by node index
	upTo    int    // the nodes [1, upTo) not aside run beside the aside ones
	s       *Series
}

// planLanes finds the aside nodes; it runs whenever a node is added.
func (s *Series) planLanes() {
	l := &s.lanes
	l.s = s
	l.aside = l.aside[:0]
	l.isAside = append(l.isAside[:0], make([]bool, len(s.nodes))...)
	if s.pool == nil {
		return
	}
	read := make([]bool, len(s.nodes)) // some node reads node i
	for _, b := range s.bases[1:] {
		read[b.src] = true
	}
	l.upTo = len(s.nodes)
	for i, n := range s.nodes {
		r, ok := n.(*rollingNode)
		if !ok {
			continue
		}
		if r.group != nil && i < l.upTo {
			l.upTo = i // it spreads its own ticks over the workers
		}
		if r.stream != nil && r.src == 0 && !read[i] && !r.plan.ReadsStrings() {
			l.aside = append(l.aside, n)
			l.isAside[i] = true
		}
	}
}

// Do is part w of the push's first lane task: the aside nodes on worker
// 1, the nodes before upTo on the pushing goroutine (0).
func (l *lanes) Do(w int) {
	s := l.s
	if w == 1 {
		for _, n := range l.aside {
			n.push(&s.bases[0].out)
		}
		return
	}
	l.pushFrom(1, l.upTo)
}

// pushFrom pushes the nodes [from, to) that are not aside and whose source
// is not late, in build order.
func (l *lanes) pushFrom(from, to int) {
	s := l.s
	for i := from; i < to; i++ {
		if l.isAside[i] {
			continue
		}
		if src := s.bases[s.bases[i].src]; !src.late {
			s.nodes[i].push(&src.out)
		}
	}
}

// push runs the nodes on the push's frames: with aside nodes, them beside
// the nodes before upTo, then the rest; else every node in build order.
func (l *lanes) push() {
	s := l.s
	if len(l.aside) == 0 {
		l.pushFrom(1, len(s.nodes))
		return
	}
	s.pool.Run(2, l)
	l.pushFrom(l.upTo, len(s.nodes))
}
