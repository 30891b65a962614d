package reducers

// orderTree is a multiset of numbers that answers "the k-th smallest" in
// O(log n): a treap (a binary search tree kept balanced by random
// priorities) whose nodes carry a value, its multiplicity and the number
// of values in their subtree. Nodes live in one slice and link by index,
// with a free list, so a tree whose size stays within what it once held
// does not allocate.
//
// Values are compared with <, so -0 and +0 share a node (the first one
// added names it) and NaN must not be added.
type orderTree struct {
	nodes []treeNode // nodes[0] is the nil sentinel (size 0)
	free  []int32
	root  int32
	rng   uint64
}

type treeNode struct {
	x     float64
	mult  int32 // how many times x is held
	size  int32 // values held in the subtree, multiplicities included
	pri   uint32
	left  int32
	right int32
}

// Len returns how many values the tree holds.
func (t *orderTree) Len() int {
	if len(t.nodes) == 0 {
		return 0
	}
	return int(t.nodes[t.root].size)
}

// Reset empties the tree and keeps its memory.
func (t *orderTree) Reset() {
	if len(t.nodes) > 0 {
		t.nodes = t.nodes[:1]
	}
	t.free = t.free[:0]
	t.root = 0
}

// Add adds x.
func (t *orderTree) Add(x float64) {
	if len(t.nodes) == 0 {
		t.nodes = append(t.nodes, treeNode{})
		t.rng = 0x9e3779b97f4a7c15
	}
	if n := t.find(x); n != 0 {
		t.nodes[n].mult++
		t.resize(x, 1)
		return
	}
	n := t.alloc(x)
	l, r := t.split(t.root, x)
	t.root = t.merge(t.merge(l, n), r)
}

// Remove removes one x and reports whether one was held.
func (t *orderTree) Remove(x float64) bool {
	n := t.find(x)
	if n == 0 {
		return false
	}
	if t.nodes[n].mult > 1 {
		t.nodes[n].mult--
		t.resize(x, -1)
		return true
	}
	t.root = t.drop(t.root, x)
	t.free = append(t.free, n)
	return true
}

// Kth returns the k-th smallest value held, from 0; k must be below Len.
func (t *orderTree) Kth(k int) float64 {
	n := t.root
	for {
		nd := &t.nodes[n]
		ls := int(t.nodes[nd.left].size)
		switch {
		case k < ls:
			n = nd.left
		case k < ls+int(nd.mult):
			return nd.x
		default:
			k -= ls + int(nd.mult)
			n = nd.right
		}
	}
}

// find returns the node holding x, or 0.
func (t *orderTree) find(x float64) int32 {
	n := t.root
	for n != 0 {
		nd := &t.nodes[n]
		switch {
		case x < nd.x:
			n = nd.left
		case nd.x < x:
			n = nd.right
		default:
			return n
		}
	}
	return 0
}

// resize adds d to the size of every node on the path to x.
func (t *orderTree) resize(x float64, d int32) {
	n := t.root
	for n != 0 {
		nd := &t.nodes[n]
		nd.size += d
		switch {
		case x < nd.x:
			n = nd.left
		case nd.x < x:
			n = nd.right
		default:
			return
		}
	}
}

func (t *orderTree) alloc(x float64) int32 {
	// xorshift64: priorities need only be independent of the values.
	t.rng ^= t.rng << 13
	t.rng ^= t.rng >> 7
	t.rng ^= t.rng << 17
	nd := treeNode{x: x, mult: 1, size: 1, pri: uint32(t.rng >> 32)}
	if k := len(t.free); k > 0 {
		n := t.free[k-1]
		t.free = t.free[:k-1]
		t.nodes[n] = nd
		return n
	}
	t.nodes = append(t.nodes, nd)
	return int32(len(t.nodes) - 1)
}

func (t *orderTree) fix(n int32) {
	nd := &t.nodes[n]
	nd.size = t.nodes[nd.left].size + nd.mult + t.nodes[nd.right].size
}

// split cuts the subtree at n into the values below x and the rest.
func (t *orderTree) split(n int32, x float64) (int32, int32) {
	if n == 0 {
		return 0, 0
	}
	if t.nodes[n].x < x {
		l, r := t.split(t.nodes[n].right, x)
		t.nodes[n].right = l
		t.fix(n)
		return n, r
	}
	l, r := t.split(t.nodes[n].left, x)
	t.nodes[n].left = r
	t.fix(n)
	return l, n
}

// merge joins two subtrees, every value of a below every value of b.
func (t *orderTree) merge(a, b int32) int32 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	case t.nodes[a].pri > t.nodes[b].pri:
		t.nodes[a].right = t.merge(t.nodes[a].right, b)
		t.fix(a)
		return a
	default:
		t.nodes[b].left = t.merge(a, t.nodes[b].left)
		t.fix(b)
		return b
	}
}

// drop unlinks the node holding x (which is held once) from the subtree
// at n and returns the subtree's new root.
func (t *orderTree) drop(n int32, x float64) int32 {
	nd := &t.nodes[n]
	switch {
	case x < nd.x:
		nd.left = t.drop(nd.left, x)
	case nd.x < x:
		nd.right = t.drop(nd.right, x)
	default:
		return t.merge(nd.left, nd.right)
	}
	t.fix(n)
	return n
}
