package workers

import "sync/atomic"

// Split cuts the items [0, n) into chunks that the workers of a task take
// one after the other as they finish the previous one, so that a worker
// slowed down (by the machine, by heavier items) takes fewer. Chunk c is
// always the same items for the same n, so a caller can keep a buffer per
// chunk and join the buffers in chunk order, whatever the workers did.
type Split struct {
	n, size, chunks int
	next            atomic.Int64
}

// Reset prepares the split of n items into chunks for k workers: about
// eight chunks per worker, of at least minChunk items each. It returns
// the number of chunks.
func (s *Split) Reset(n, k, minChunk int) int {
	s.n = n
	s.size = max(minChunk, (n+8*k-1)/max(8*k, 1), 1)
	s.chunks = (n + s.size - 1) / s.size
	s.next.Store(0)
	return s.chunks
}

// Next returns the next chunk not yet taken, as its index and its items
// [lo, hi), or ok false when every chunk is taken. It is safe to call from
// several goroutines.
func (s *Split) Next() (chunk, lo, hi int, ok bool) {
	c := int(s.next.Add(1) - 1)
	if c >= s.chunks {
		return 0, 0, 0, false
	}
	return c, c * s.size, min((c+1)*s.size, s.n), true
}
