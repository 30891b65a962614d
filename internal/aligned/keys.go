package aligned

import (
	"slices"
	"sync/atomic"

	"github.com/pond-go/pond/internal/table"
)

// A closing's keys. The partition column's cell of each emitted row was
// a call through Keys and an append of a schema.Value a row. A closing
// now notes each row's partition and writes the keys once it is done: as
// strings at once when the keys give them (strKeys), and, when every
// partition of the closing's range emitted a row — the steady case, each
// live partition emitting at every boundary — not at all when the
// column's cells already hold them from the last push (see
// column.Col.KeepStrs): the output table is reset between pushes but
// keeps its buffers, and the same order writes the same keys at the same
// cells.

// strKeys is a Keys that also gives the string keys of a run of
// partitions at once: KeyStrs sets keys[k] to partition parts[k]'s key
// and reports true when every one of them is a string. The partition
// router is one.
type strKeys interface {
	KeyStrs(keys []string, parts []int32) bool
}

// keyTags hands out the tags of groups' orders (see Group.keysTag),
// distinct over every group of the process.
var keyTags atomic.Uint64

// keyTag gives the group's order a tag, a new one after it changed. A
// closing calls it before it emits, on the caller's goroutine.
func (g *Group) keyTag() {
	if g.sk != nil && g.keysTag == 0 {
		g.keysTag = keyTags.Add(1)
	}
}

// putKeys appends to the key column kc the keys of the e rows a closing
// of the partitions at [lo, hi) of the emission order emitted into it
// (their partitions in sc.parts).
func (g *Group) putKeys(kc *table.Col, sc *closeScratch, e, lo, hi int) {
	ps := sc.parts[:e]
	if g.sk != nil {
		// With every partition of the range emitted, row i is the
		// partition at lo+i of the order: the key of order[i] is at cell
		// at+i under the order's tag.
		tag, at := uint64(0), 0
		if e == hi-lo {
			tag, at = g.keysTag, kc.Len()-lo
			if kc.KeepStrs(tag, at, e) {
				return
			}
		}
		sc.keys = slices.Grow(sc.keys[:0], e)[:e]
		ok := g.sk.KeyStrs(sc.keys, ps)
		if ok {
			kc.AppendStrsAs(sc.keys, tag, at)
		}
		clear(sc.keys) // the strings are the keys' own
		if ok {
			return
		}
	}
	for _, q := range ps {
		table.AppendValue(kc, g.keys.KeyValue(q))
	}
}
