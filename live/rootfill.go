package live

import (
	"slices"
	"unsafe"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// internCache remembers, for one string column, the strings of the last
// successful push and their intern ids by position. Producers that send
// the same keys in the same order every time (a tick of every host) then
// cost a string comparison per row instead of a hash lookup. A missing
// cell is remembered with id 0, which no string has: [internCache.id]
// never matches it, so "" at a position that was missing is interned.
type internCache struct {
	strs []string
	ids  []uint32
	hit  bool   // the last push matched the cache on every row
	hdr  string // headerBytes(strs), kept with strs
	// gen counts the times strs and ids were rewritten: pushes that took
	// ids whole from the cache at one gen brought the same ids.
	gen uint64
}

// id returns the id remembered for str at position i, or 0 when the cache
// does not know it there.
func (c *internCache) id(i int, str string) uint32 {
	if i < len(c.strs) && c.ids[i] != 0 && equalString(c.strs[i], str) {
		return c.ids[i]
	}
	return 0
}

// sameStrings returns how many strings at the start of a are b's strings,
// the same bytes at the same address (b is at least as long as a).
func sameStrings(a, b []string) int {
	b = b[:len(a)]
	if len(a) > 0 && headerBytes(a) == headerBytes(b) {
		return len(a) // every header the same: one comparison of their bytes
	}
	for i, s := range a {
		if len(s) != len(b[i]) || unsafe.StringData(s) != unsafe.StringData(b[i]) {
			return i
		}
	}
	return len(a)
}

// headerBytes views the string headers of ss (each its data pointer and
// length) as bytes, without copying: two slices whose headers are the
// same bytes hold the same strings at the same addresses.
func headerBytes(ss []string) string {
	return unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(ss))), len(ss)*int(unsafe.Sizeof("")))
}

// equalString is a == b, answering without comparing bytes when both share
// their bytes (a producer that sends the same string values every time).
func equalString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// fillAll makes the out frame hold every row of b, sharing b's memory
// where it can: times, numbers without missing cells and strings without
// missing cells are not copied. String columns get their intern ids.
//
// A frame whose columns all borrow the last push's batch is not reset
// when this batch's columns can all be borrowed too: borrowing again
// replaces what each column holds.
func (r *rootNode) fillAll(b *schema.Batch) {
	s := r.s
	f := &r.out
	r.makeCaches()
	borrow := allBorrowable(b)
	if borrow && r.plain {
		r.borrowAll(b)
		return
	}
	if !r.aliased || !borrow {
		f.reset()
	}
	r.aliased = true
	cols := table.Columns(f.tab)
	cols[0].AliasTimes(b.Time)
	for j := 1; j < len(cols); j++ {
		v, c := &b.Cols[j-1], &cols[j]
		switch s.kinds[j] {
		case schema.Number:
			if v.Missing == nil {
				c.AliasNums(v.Num)
				continue
			}
			r.aliased = false
			for i, x := range v.Num {
				if v.Missing[i] {
					c.AppendMissing()
				} else {
					c.AppendNum(x)
				}
			}
		case schema.String:
			if v.Missing == nil {
				c.AliasStrs(v.Str)
				f.syms[j] = r.internAll(j, v.Str)
			} else {
				r.aliased = false
				f.syms[j] = r.internSome(j, c, v)
			}
		case schema.Bool:
			r.aliased = false
			for i, x := range v.Bool {
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendBool(x)
				}
			}
		case schema.Array:
			r.aliased = false
			for i, x := range v.Arr {
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendArray(x)
				}
			}
		}
	}
	r.numberRows(len(b.Time))
}

// borrowAll is fillAll for a schema of number and string columns only
// and a batch without missing cells, the common push: every column
// borrows b's, the columns of each kind in one loop.
func (r *rootNode) borrowAll(b *schema.Batch) {
	f := &r.out
	if !r.aliased {
		f.reset()
	}
	r.aliased = true
	cols := table.Columns(f.tab)
	cols[0].AliasTimes(b.Time)
	for _, j := range r.numCols {
		cols[j].AliasNums(b.Cols[j-1].Num)
	}
	r.cached = true // until a column misses its cache
	for _, j := range r.strCols {
		strs := b.Cols[j-1].Str
		cols[j].AliasStrs(strs)
		// internAll, its whole hit written here (internAll is too large
		// for the compiler to write where it is called).
		if c := &r.cache[j]; c.hit && headerBytes(strs) == c.hdr {
			n := len(strs)
			f.syms[j] = c.ids[:n:n]
		} else {
			f.syms[j] = r.internMiss(j, strs)
		}
	}
	r.numberRows(len(b.Time))
}

// numberRows gives the out frame's n rows their identities: the next n
// after the rows ingested so far.
func (r *rootNode) numberRows(n int) {
	f := &r.out
	next := r.s.ingested
	ids := slices.Grow(f.ids[:0], n)[:n]
	// Eight a turn, each an addition and a store: one at a time, the
	// loop's own work was more than the row's.
	k, v := 0, next
	for ; k+8 <= len(ids); k += 8 {
		x := (*[8]uint64)(ids[k : k+8])
		x[0], x[1], x[2], x[3] = v, v+1, v+2, v+3
		x[4], x[5], x[6], x[7] = v+4, v+5, v+6, v+7
		v += 8
	}
	for ; k < len(ids); k++ {
		ids[k] = next + uint64(k)
	}
	f.ids = ids
}

// makeCaches gives every column an intern cache, and the root the lists
// of its string and number columns, once.
func (r *rootNode) makeCaches() {
	if len(r.cache) != r.s.schema.Len() {
		r.buildCaches()
	}
}

// buildCaches is makeCaches' work, the first time.
func (r *rootNode) buildCaches() {
	sch := r.s.schema
	r.cache = make([]internCache, sch.Len())
	r.idBuf = make([][]uint32, sch.Len())
	r.plain = true
	for j := 1; j < sch.Len(); j++ {
		switch sch.Column(j).Kind {
		case schema.String:
			r.strCols = append(r.strCols, j)
		case schema.Number:
			r.numCols = append(r.numCols, j)
		default:
			r.plain = false
		}
	}
}

// internAll returns the intern ids of strs, the cells of string column j,
// none missing. The same strings as last time, by their bytes' address
// (a producer that reuses its values), take their ids from the cache:
// when all of them do, the cache's own ids are returned, which nothing
// writes to before the cache is next refreshed (rememberStrings, after a
// push that missed it).
//
// The whole hit, every header the same bytes, is checked inline; the rest
// is behind a call (internMiss).
func (r *rootNode) internAll(j int, strs []string) []uint32 {
	c := &r.cache[j]
	if c.hit && headerBytes(strs) == c.hdr {
		n := len(strs)
		return c.ids[:n:n]
	}
	return r.internMiss(j, strs)
}

// internMiss is internAll for strings that are not all the cache's: the
// cache gives the ids of those it holds at their positions.
//
// The ids are written over the cache's own, each once it is read there:
// the cache then holds them before it holds their strings, which the
// push's commit writes (rememberStrings), and a push that fails empties
// it (forgetMissed). A buffer of their own was kept for the life of the
// series beside the cache's, of as many ids (at 1,000 hosts, 5 bytes a
// host).
func (r *rootNode) internMiss(j int, strs []string) []uint32 {
	cache := &r.cache[j]
	held := cache.hit // the cache holds the last push's strings
	hit := len(strs) == len(cache.strs)
	k := 0
	if hit && held {
		if k = sameStrings(strs, cache.strs); k == len(strs) {
			return cache.ids[:k:k]
		}
	}
	r.cached = false
	if cap(cache.ids) < len(strs) {
		cache.ids = slices.Grow(cache.ids, len(strs)-len(cache.ids))
	}
	// The first k are the cache's already.
	ids := cache.ids[:len(strs):len(strs)]
	for i := k; i < len(strs); i++ {
		str := strs[i]
		id := cache.id(i, str)
		if id == 0 {
			id = r.s.syms.ID(str)
			hit = false
		}
		ids[i] = id
	}
	cache.hit = hit
	return ids
}

// forgetMissed empties the intern caches of a push that fails: internMiss
// wrote the push's ids over the ids of a cache it missed, and the
// rollback gives the new ones back. The next push interns those strings
// again.
func (r *rootNode) forgetMissed() {
	for _, j := range r.strCols {
		if c := &r.cache[j]; !c.hit {
			clear(c.strs)
			c.strs, c.hdr = c.strs[:0], ""
			c.gen++
		}
	}
}

// internSome fills string column c (column j) with the cells of v, some
// missing, and returns their intern ids (0 for a missing cell).
func (r *rootNode) internSome(j int, c *table.Col, v *schema.Vec) []uint32 {
	cache := &r.cache[j]
	cache.hit = false
	ids := r.idBuf[j][:0]
	for i, str := range v.Str {
		if v.Missing[i] {
			c.AppendMissing()
			ids = append(ids, 0)
			continue
		}
		c.AppendStr(str)
		id := cache.id(i, str)
		if id == 0 {
			id = r.s.syms.ID(str)
		}
		ids = append(ids, id)
	}
	r.idBuf[j] = ids
	return ids
}

// allBorrowable reports whether fillAll borrows every value column of b:
// none has missing cells (a schema with boolean or array columns, which
// are copied, never has its frame borrow all of them).
func allBorrowable(b *schema.Batch) bool {
	for j := range b.Cols {
		if b.Cols[j].Missing != nil {
			return false
		}
	}
	return true
}

// rememberStrings updates the intern caches from the committed push.
func (r *rootNode) rememberStrings() {
	f := &r.out
	for _, j := range r.strCols {
		ids := f.syms[j]
		if ids == nil {
			continue
		}
		c := &r.cache[j]
		if c.hit {
			continue // it holds these strings already
		}
		was := len(c.strs)
		c.strs = append(c.strs[:0], table.Column(f.tab, j).Strings()...)
		if was > len(c.strs) {
			// The strings of a larger push before are let go.
			clear(c.strs[len(c.strs):was])
		}
		c.hdr = headerBytes(c.strs)
		c.ids = append(c.ids[:0], ids...)
		c.gen++
	}
}

// cachedGen reports whether this push's intern ids of string column j are
// its cache's ids whole, and if so the cache's generation: two pushes
// with the same generation brought the same ids in the same order.
func (r *rootNode) cachedGen(j int) (uint64, bool) {
	if !r.cached {
		return 0, false
	}
	return r.cache[j].gen, true
}
