package aggregator

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/pond-go/pond/examples/internal/wire"
	"github.com/pond-go/pond/schema"
)

// rawChunk is the rows one push took into the raw window. It is
// immutable once built, so /live writers read it without the
// aggregator's lock. A row's host is an index into names (see
// [hostNames]): no pointer per row for the collector to mark.
type rawChunk struct {
	times    []int64 // ns
	cpu, req []float64
	host     []uint32
	names    []string

	once  sync.Once
	frame []byte // the append frame, encoded once for every client

	latest int64 // the latest of times, set by [rawRing.add]: under
	// reorder ordering a chunk's last row need not be its latest
}

// newRawChunk copies the rows of tab, a table of the raw series, into a
// chunk, its hosts as indices into names.
func newRawChunk(tab *schema.Table, names *hostNames) *rawChunk {
	names.roll()
	hosts := strs(tab, "host")
	ids := make([]uint32, len(hosts))
	for i, h := range hosts {
		ids[i] = names.idOf(h)
	}
	return &rawChunk{
		times: slices.Clone(tab.Times()),
		cpu:   slices.Clone(numbers(tab, "cpu")),
		req:   slices.Clone(numbers(tab, "requests")),
		host:  ids,
		names: names.view(),
	}
}

// hostAt returns the host of row i.
func (c *rawChunk) hostAt(i int) string { return c.names[c.host[i]] }

// numbers and strs return a column of the raw series by name (the
// series' schema has it).
func numbers(tab *schema.Table, name string) []float64 { xs, _ := tab.Numbers(name); return xs }
func strs(tab *schema.Table, name string) []string     { ss, _ := tab.Strings(name); return ss }

// appendFrame returns the chunk's /live append frame.
func (c *rawChunk) appendFrame() []byte {
	c.once.Do(func() {
		b := wire.BeginRaw(make([]byte, 0, 64+48*len(c.times)), wire.TypeAppend)
		b, _ = c.appendRows(b, math.MinInt64, true)
		c.frame = wire.EndRaw(b)
	})
	return c.frame
}

// appendRows appends the rows dated at or after cut as positional arrays
// and returns how many it wrote; first says whether no row has been
// written yet in the array.
func (c *rawChunk) appendRows(b []byte, cut int64, first bool) ([]byte, int) {
	n := 0
	for i, t := range c.times {
		if t < cut {
			continue
		}
		if !first || n > 0 {
			b = append(b, ',')
		}
		b = wire.AppendRawRow(b, t/int64(time.Millisecond), c.cpu[i], c.req[i], c.hostAt(i))
		n++
	}
	return b, n
}

// rawRing holds the raw window as the chunks pushes took, oldest first,
// for /live snapshots: a connecting client takes a reference under the
// lock (a copy-on-write slice, as [history] does) and its writer encodes
// it afterwards. It holds at most maxRows rows, dropping whole chunks from
// the oldest, so at a high rate a snapshot carries the newest part of the
// window; chunks entirely older than the window go too.
type rawRing struct {
	maxAge  int64 // ns
	maxRows int
	chunks  []*rawChunk
	head    int
	rows    int
	latest  int64 // the latest row time of every chunk added
	any     bool  // whether latest is set
}

// add appends a chunk and evicts what the window or the row cap no
// longer covers (the newest chunk always stays): a chunk leaves the
// window when its latest row is older than the latest row taken minus
// the window's age, which, rows arriving out of order, is neither its
// last row's time nor the new chunk's.
func (r *rawRing) add(c *rawChunk) {
	c.latest = slices.Max(c.times)
	if !r.any || c.latest > r.latest {
		r.latest, r.any = c.latest, true
	}
	r.chunks = append(r.chunks, c)
	r.rows += len(c.times)
	cut := r.latest - r.maxAge
	for r.head < len(r.chunks)-1 {
		old := r.chunks[r.head]
		if old.latest >= cut && r.rows <= r.maxRows {
			break
		}
		r.rows -= len(old.times)
		r.head++
	}
	if r.head > 64 && r.head*2 > len(r.chunks) {
		live := r.chunks[r.head:]
		r.chunks = append(make([]*rawChunk, 0, 2*len(live)+64), live...)
		r.head = 0
	}
}

// all returns the chunks held, oldest first; the caller may read the
// slice after releasing the lock and must not modify it.
func (r *rawRing) all() []*rawChunk { return r.chunks[r.head:len(r.chunks):len(r.chunks)] }
