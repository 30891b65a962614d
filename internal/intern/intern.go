// Package intern maps strings to dense ids, so that everything after
// ingestion compares, stores and routes strings as small integers.
//
// # Forgetting strings
//
// A table forgets the strings its owner no longer holds, by mark and
// sweep, so that its memory is bounded by what is held rather than by
// every string ever seen. When [Table.Due] reports that enough new ids
// have been given since the last sweep, the owner marks every id it still
// holds ([Table.Mark]: stored rows, partition keys, window rows, caches)
// and calls [Table.Sweep], which frees the ids left unmarked. A freed id
// is given to the next new string, so ids stay dense: no id is larger than
// the most ids the table has held at once.
//
// A sweep is due once the ids given since the last one reach the largest
// of 1024, a quarter of the ids live after it and an eighth of the ids
// marked then. A sweep costs a pass over the ids and one mark per cell
// held, so the cost per new string is a constant (a few marks), and
// between sweeps the table holds the strings it kept at the last one plus
// at most that many new ones. Giving and freeing ids does not allocate
// once the table has reached that size.
//
// A push that fails undoes its new ids: [Table.Begin] opens a journal of
// the ids given, [Table.Rollback] frees them in reverse order, leaving
// the table as it was.
//
// # The index
//
// Strings are found by an open-addressing hash index (linear probing, a
// power of two of 8-byte slots, at most 13/16 full): a slot holds an id
// and the high half of its string's hash, which places the slot and is
// compared before the string. That is about 10 to 20 bytes a string where
// a Go map of strings to ids takes some 34 (a 24-byte slot at most 7/8
// full, plus its control byte).
package intern

import (
	"hash/maphash"
	"math/bits"
)

// minDue is the fewest new ids that make a sweep due.
const minDue = 1024

// Table assigns dense ids to strings, starting at 1: id 0 is reserved for a
// missing string. A Table is not safe for concurrent use.
type Table struct {
	index []uint64 // the hash index: hash<<32 | id, 0 for an empty slot
	seed  maphash.Seed
	strs  []string // by id; "" for id 0 and free ids
	used  []uint64 // bit set of the ids in use
	marks []uint64 // bit set of the ids marked since the last sweep
	free  []uint32 // free ids below len(strs), the next one given last
	fresh []uint32 // ids given since Begin, in order
	live  int      // ids in use
	grown int      // ids given since the last sweep
	due   int      // grown at which a sweep is due
	seen  int      // marks since the last sweep
}

// New returns an empty table.
func New() *Table {
	return &Table{index: make([]uint64, minIndex), seed: maphash.MakeSeed(), strs: []string{""}, used: []uint64{0}, due: minDue}
}

// minIndex is the fewest slots of the index.
const minIndex = 16

// hash returns the high half of s's hash, where a slot keeps it.
func (t *Table) hash(s string) uint64 { return maphash.String(t.seed, s) & hashBits }

// hashBits keeps the high half of a hash; the tests keep fewer bits, so
// that strings share slots and hashes.
var hashBits = uint64(1<<32-1) << 32

// home returns the slot where the probe for a slot's string starts.
func (t *Table) home(slot uint64) int { return int(slot>>32) & (len(t.index) - 1) }

// find returns the slot of s, of hash h, in the index: the one holding
// its id, or the empty one where it would go.
func (t *Table) find(s string, h uint64) int {
	mask := len(t.index) - 1
	for i := int(h>>32) & mask; ; i = (i + 1) & mask {
		e := t.index[i]
		if e == 0 || e&^(1<<32-1) == h && t.strs[uint32(e)] == s {
			return i
		}
	}
}

// ID returns the id of s, assigning one if s is new: a freed id if there
// is one, else the next.
func (t *Table) ID(s string) uint32 {
	h := t.hash(s)
	slot := t.find(s, h)
	if e := t.index[slot]; e != 0 {
		return uint32(e)
	}
	if (t.live+1)*16 > len(t.index)*13 {
		t.grow()
		slot = t.find(s, h)
	}
	var id uint32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.strs[id] = s
	} else {
		id = uint32(len(t.strs))
		t.strs = append(t.strs, s)
		if int(id>>6) == len(t.used) {
			t.used = append(t.used, 0)
		}
	}
	t.used[id>>6] |= 1 << (id & 63)
	t.index[slot] = h | uint64(id)
	t.fresh = append(t.fresh, id)
	t.live++
	t.grown++
	return id
}

// Lookup returns the id of s if it has one.
func (t *Table) Lookup(s string) (uint32, bool) {
	id := uint32(t.index[t.find(s, t.hash(s))])
	return id, id != 0
}

// grow doubles the index and puts its slots back in it.
func (t *Table) grow() {
	old := t.index
	t.index = make([]uint64, 2*len(old))
	mask := len(t.index) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := t.home(e)
		for t.index[i] != 0 {
			i = (i + 1) & mask
		}
		t.index[i] = e
	}
}

// unindex takes id, whose string is still its, out of the index: the
// slots after it up to the next empty one move back into the gap when
// their probes start at or before it (backward-shift deletion, which
// leaves no marks of deleted slots behind).
func (t *Table) unindex(id uint32) {
	mask := len(t.index) - 1
	gap := t.find(t.strs[id], t.hash(t.strs[id]))
	for j := (gap + 1) & mask; t.index[j] != 0; j = (j + 1) & mask {
		// Slot j stays when its probe starts after the gap (in probe
		// order up to j); else it moves into the gap.
		if (j-t.home(t.index[j]))&mask < (j-gap)&mask {
			continue
		}
		t.index[gap] = t.index[j]
		gap = j
	}
	t.index[gap] = 0
}

// Str returns the string of id; id 0 gives "".
func (t *Table) Str(id uint32) string { return t.strs[id] }

// BytesPerString is what the table holds for each string in use: its
// header in strs (16 bytes) and its share of the index, kept between
// 13/32 and 13/16 full (10 to 20 bytes of 8-byte slots; 16 taken).
const BytesPerString = 32

// Bytes returns the memory the table holds for the strings in use, about
// 32 bytes a string, their own bytes not counted (they are the caller's,
// or shared). It counts what is in use, not the room the table keeps from
// busier moments: a string interned by a push then refused, and given
// back, leaves it as it was.
func (t *Table) Bytes() int { return BytesPerString * t.live }

// Len returns one more than the largest id there has been (a slice of
// that length can be indexed by any id).
func (t *Table) Len() int { return len(t.strs) }

// Live returns the number of strings that have an id.
func (t *Table) Live() int { return t.live }

// Begin starts the journal of new ids that [Table.Rollback] undoes.
//
// A journal that grew past keepJournal ids (a push of many new strings,
// as the first push of many keys) is let go when the last one used less
// than an eighth of it: a steady stream of few new strings keeps a small
// one, rather than 4 bytes for each id of that one push.
func (t *Table) Begin() {
	if cap(t.fresh) > keepJournal && len(t.fresh) < cap(t.fresh)/8 {
		t.fresh = nil
	}
	t.fresh = t.fresh[:0]
}

// keepJournal is the most ids a journal always keeps room for: 2 KB. At
// 4,096 the journal of the first push of 1,000 keys (1,344 ids made by
// append) was kept for good, 5 bytes a key.
const keepJournal = 512

// Rollback frees every id given since [Table.Begin], the last first, so
// that the table is as it was then (the same ids are given to the same
// strings again).
func (t *Table) Rollback() {
	for k := len(t.fresh) - 1; k >= 0; k-- {
		id := t.fresh[k]
		t.release(id)
		t.grown--
		if int(id) == len(t.strs)-1 {
			t.strs = t.strs[:id]
		} else {
			t.free = append(t.free, id)
		}
	}
	t.fresh = t.fresh[:0]
}

// release forgets the string of id, which is in use.
func (t *Table) release(id uint32) {
	t.unindex(id)
	t.strs[id] = ""
	t.used[id>>6] &^= 1 << (id & 63)
	t.live--
}

// Due reports whether enough ids have been given since the last sweep for
// the next one to pay for itself.
func (t *Table) Due() bool { return t.grown >= t.due }

// Mark records that id is held, so that the next [Table.Sweep] keeps it.
// Marking id 0, or an id more than once, is harmless.
func (t *Table) Mark(id uint32) {
	if len(t.marks) != len(t.used) {
		t.growMarks()
	}
	t.marks[id>>6] |= 1 << (id & 63)
	t.seen++
}

// growMarks sizes the marks to the ids (the table grew since the last
// sweep); marks made so far are kept.
func (t *Table) growMarks() {
	for len(t.marks) < len(t.used) {
		t.marks = append(t.marks, 0)
	}
	t.marks = t.marks[:len(t.used)]
}

// Sweep frees every id in use that was not marked since the last sweep,
// and clears the marks. Its owner must have marked every id it holds.
func (t *Table) Sweep() {
	if len(t.marks) != len(t.used) {
		t.growMarks()
	}
	for w, u := range t.used {
		dead := u &^ t.marks[w]
		for dead != 0 {
			b := dead & -dead
			dead &^= b
			id := uint32(w<<6 | bits.TrailingZeros64(b))
			t.release(id)
			t.free = append(t.free, id)
		}
	}
	clear(t.marks)
	t.due = max(minDue, t.live/4, t.seen/8)
	t.grown, t.seen = 0, 0
}
