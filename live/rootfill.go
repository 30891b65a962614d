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
	hit  bool // the last push matched the cache on every row
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
	for i, s := range a {
		if len(s) != len(b[i]) || unsafe.StringData(s) != unsafe.StringData(b[i]) {
			return i
		}
	}
	return len(a)
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
	if !r.aliased || !allBorrowable(b) {
		f.reset()
	}
	r.aliased = true
	tab := f.tab
	n := b.Len()
	table.Column(tab, 0).AliasTimes(b.Time)
	if len(r.cache) != s.schema.Len() {
		r.cache = make([]internCache, s.schema.Len())
		for j := 1; j < s.schema.Len(); j++ {
			if s.schema.Column(j).Kind == schema.String {
				r.strCols = append(r.strCols, j)
			}
		}
	}
	for j := 1; j < s.schema.Len(); j++ {
		v := &b.Cols[j-1]
		c := table.Column(tab, j)
		switch s.schema.Column(j).Kind {
		case schema.Number:
			if v.Missing == nil {
				c.AliasNums(v.Num)
				continue
			}
			r.aliased = false
			for i := range n {
				if v.Missing[i] {
					c.AppendMissing()
				} else {
					c.AppendNum(v.Num[i])
				}
			}
		case schema.String:
			ids := f.syms[j][:0]
			cache := &r.cache[j]
			held := cache.hit // the cache holds the last push's strings
			cache.hit = false
			if v.Missing == nil {
				c.AliasStrs(v.Str)
				hit := len(v.Str) == len(cache.strs)
				// The same strings as last time, by their bytes' address
				// (a producer that reuses its values): their ids at once.
				k := 0
				if hit && held {
					k = sameStrings(v.Str, cache.strs)
					ids = append(ids, cache.ids[:k]...)
				}
				for i := k; i < len(v.Str); i++ {
					str := v.Str[i]
					id := cache.id(i, str)
					if id == 0 {
						id = s.syms.ID(str)
						hit = false
					}
					ids = append(ids, id)
				}
				cache.hit = hit
			} else {
				r.aliased = false
				for i, str := range v.Str {
					if v.Missing[i] {
						c.AppendMissing()
						ids = append(ids, 0)
						continue
					}
					c.AppendStr(str)
					id := cache.id(i, str)
					if id == 0 {
						id = s.syms.ID(str)
					}
					ids = append(ids, id)
				}
			}
			f.syms[j] = ids
		case schema.Bool:
			r.aliased = false
			for i := range n {
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendBool(v.Bool[i])
				}
			}
		case schema.Array:
			r.aliased = false
			for i := range n {
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendArray(v.Arr[i])
				}
			}
		}
	}
	next := s.ingested
	ids := slices.Grow(f.ids[:0], n)[:n]
	for k := range ids {
		ids[k] = next + uint64(k)
	}
	f.ids = ids
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
		c.strs = append(c.strs[:0], table.Column(f.tab, j).Strings()...)
		c.ids = append(c.ids[:0], ids...)
	}
}
