package reducers

import "unsafe"

// This file gives each state the memory it holds (Window.Bytes,
// Bucket.Bytes): the state's own struct and what it alone owns, at
// capacity. Maps are estimated from their entries (a slot of key and
// value and a control byte, at a load of 7/8); the bytes of strings,
// shared with the series that interned them, are not counted, nor are the
// elements of array values, which the values share with the rows they
// came from.

// mapBytes estimates the memory of a map of n entries of kv bytes each.
func mapBytes(n int, kv uintptr) int { return n * (int(kv) + 1) * 8 / 7 }

func (w *countWin) Bytes() int { return int(unsafe.Sizeof(*w)) }

func (w *momentsWin) Bytes() int { return int(unsafe.Sizeof(*w)) + w.m.outerBytes() }

// outerBytes returns the memory of m's bands beyond the main one.
func (m *Moments) outerBytes() int {
	o := m.outer
	if o == nil {
		return 0
	}
	return int(unsafe.Sizeof(*o)) + 4*cap(o.k) + int(unsafe.Sizeof(band{}))*cap(o.b)
}

// ringBytes returns the memory of e's deque.
func (e *Extreme) ringBytes() int { return int(unsafe.Sizeof(extremeEntry{})) * int(e.size) }

func (w *extremeWin) Bytes() int { return int(unsafe.Sizeof(*w)) + w.e.ringBytes() }

func (w *diffWin) Bytes() int {
	return int(unsafe.Sizeof(*w)) + w.lo.ringBytes() + w.hi.ringBytes()
}

func (w *sortedWin) Bytes() int {
	t := &w.tree
	return int(unsafe.Sizeof(*w)) + 8*cap(w.s) + int(unsafe.Sizeof(treeNode{}))*cap(t.nodes) + 4*cap(t.free)
}

func (w *seqWin) Bytes() int {
	return int(unsafe.Sizeof(*w)) + int(unsafe.Sizeof(seqEntry{}))*cap(w.e)
}

func (w *keepWin) Bytes() int {
	return int(unsafe.Sizeof(*w)) + mapBytes(len(w.m), unsafe.Sizeof(key{})+unsafe.Sizeof(keepEntry{}))
}

func (w *countsWin) Bytes() int {
	return int(unsafe.Sizeof(*w)) + mapBytes(len(w.m), unsafe.Sizeof(key{})+unsafe.Sizeof(int(0))) +
		int(unsafe.Sizeof(keyCount{}))*cap(w.buf)
}

func (w running) Bytes() int { return w.b.Bytes() }

func (b *addOnly) Bytes() int { return int(unsafe.Sizeof(*b)) + b.w.Bytes() }

func (b *momentsBucket) Bytes() int { return int(unsafe.Sizeof(*b)) + b.m.outerBytes() }

func (b *extremeBucket) Bytes() int { return int(unsafe.Sizeof(*b)) }

func (b *endBucket) Bytes() int { return int(unsafe.Sizeof(*b)) }

func (b *sortBucket) Bytes() int { return int(unsafe.Sizeof(*b)) + 8*cap(b.s) }

func (b *keepBucket) Bytes() int { return int(unsafe.Sizeof(*b)) }
