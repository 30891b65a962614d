package workers

import "sync/atomic"

// Split cuts the items [0, n) into chunks that the workers of a task take
// one after the other as they finish the previous one, so that a worker
// slowed down (by the machine, by heavier items) takes fewer. Chunk c is
// always the same items for the same n, so a caller can keep a buffer per
// chunk and join the buffers in chunk order, whatever the workers did.
//
// Each worker has a home: a contiguous run of the chunks, the same for
// the same n and number of workers. It takes its home's chunks from the
// front, and once they are gone takes the others' from their back. So
// when the items are the same from one task to the next (a series'
// partitions, tick after tick), each is mostly worked on by the same
// worker, whose cache still holds what it touched last time, and only the
// chunks a slower worker has not reached change hands.
type Split struct {
	n, size, chunks, k int
	homes              []home
}

// home is one worker's chunks not yet taken, [lo, hi), as one word (lo in
// the low half) so that the front and the back are taken with one
// compare-and-swap; padded to a cache line of its own.
type home struct {
	span atomic.Uint64
	_    [56]byte
}

// Reset prepares the split of n items into chunks for k workers: about
// eight chunks per worker, of at least minChunk items each. It returns
// the number of chunks. It allocates only when k is larger than before.
func (s *Split) Reset(n, k, minChunk int) int {
	k = max(k, 1)
	s.n, s.k = n, k
	s.size = max(minChunk, (n+8*k-1)/(8*k), 1)
	s.chunks = (n + s.size - 1) / s.size
	if len(s.homes) < k {
		s.homes = make([]home, k)
	}
	for w := range k {
		lo, hi := w*s.chunks/k, (w+1)*s.chunks/k
		s.homes[w].span.Store(uint64(lo) | uint64(hi)<<32)
	}
	return s.chunks
}

// Size returns the most items a chunk of the last Reset holds.
func (s *Split) Size() int { return min(s.size, s.n) }

// Next returns a chunk not yet taken for worker w (in [0, k) of Reset),
// as its index and its items [lo, hi), or ok false when every chunk is
// taken. Several goroutines may call it at once, each with its own w.
func (s *Split) Next(w int) (chunk, lo, hi int, ok bool) {
	c, ok := s.homes[w].take(true)
	for v := 1; !ok && v < s.k; v++ {
		c, ok = s.homes[(w+v)%s.k].take(false)
	}
	if !ok {
		return 0, 0, 0, false
	}
	return c, c * s.size, min((c+1)*s.size, s.n), true
}

// take removes the first chunk of the home (front) or its last, if any
// is left.
func (h *home) take(front bool) (int, bool) {
	for {
		old := h.span.Load()
		lo, hi := uint32(old), uint32(old>>32)
		if lo >= hi {
			return 0, false
		}
		c, next := lo, uint64(lo+1)|uint64(hi)<<32
		if !front {
			c, next = hi-1, uint64(lo)|uint64(hi-1)<<32
		}
		if h.span.CompareAndSwap(old, next) {
			return int(c), true
		}
	}
}
