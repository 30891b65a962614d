// Package intern maps strings to dense ids, so that everything after
// ingestion compares, stores and routes strings as small integers.
package intern

// Table assigns dense ids to strings, starting at 1: id 0 is reserved for a
// missing string. Ids are never reused. A Table is not safe for concurrent
// use.
type Table struct {
	ids  map[string]uint32
	strs []string
}

// New returns an empty table.
func New() *Table {
	return &Table{ids: make(map[string]uint32), strs: []string{""}}
}

// ID returns the id of s, assigning the next id if s is new.
func (t *Table) ID(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := uint32(len(t.strs))
	t.strs = append(t.strs, s)
	t.ids[s] = id
	return id
}

// Lookup returns the id of s if it has one.
func (t *Table) Lookup(s string) (uint32, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// Str returns the string of id; id 0 gives "".
func (t *Table) Str(id uint32) string { return t.strs[id] }

// Len returns the number of ids assigned, the reserved id 0 included.
func (t *Table) Len() int { return len(t.strs) }

// Truncate forgets every id from n on, undoing assignments made after Len
// returned n. It lets a failed push leave the table as it was.
func (t *Table) Truncate(n int) {
	for _, s := range t.strs[n:] {
		delete(t.ids, s)
	}
	clear(t.strs[n:])
	t.strs = t.strs[:n]
}
