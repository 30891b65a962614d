package aggregator

// hostNames gives each distinct host name a small index, so that a /live
// chunk holds a row's host as 4 bytes without a pointer (a string is 16
// bytes, and a pointer the collector marks on every cycle: the raw window
// holds up to LiveSnapshotRows rows, 4 million by default). A chunk keeps
// the list as it was when the chunk was made, and reads only indices
// below that length: the table only appends, so later names never change
// what a chunk sees.
//
// The table is bounded: once it holds maxNames names it starts a new list
// (between batches, see [hostNames.roll]); chunks made before keep the
// old one, which goes when they do.
type hostNames struct {
	list  []string
	index map[string]uint32
	prev  []uint32 // the last batch's indices by position, for senders that repeat their hosts in order
}

// maxNames is how many names a table holds before it starts over.
const maxNames = 1 << 16

// roll starts a new list when the table is full. Call it between
// batches, never within one: a chunk has one list for all its rows.
func (h *hostNames) roll() {
	if h.index == nil || len(h.list) >= maxNames {
		h.list, h.index, h.prev = nil, make(map[string]uint32), h.prev[:0]
	}
}

// id returns the index of name, the i-th host of its batch, adding the
// name when it is new.
func (h *hostNames) id(i int, name []byte) uint32 {
	if i < len(h.prev) {
		if k := h.prev[i]; int(k) < len(h.list) && h.list[k] == string(name) {
			return k
		}
	}
	k, ok := h.index[string(name)]
	if !ok {
		k = h.add(string(name))
	}
	if i < len(h.prev) {
		h.prev[i] = k
	} else if i == len(h.prev) {
		h.prev = append(h.prev, k)
	}
	return k
}

// idOf is id for a name already a string.
func (h *hostNames) idOf(name string) uint32 {
	if k, ok := h.index[name]; ok {
		return k
	}
	return h.add(name)
}

// add gives name, not in the table, the next index.
func (h *hostNames) add(name string) uint32 {
	k := uint32(len(h.list))
	h.list = append(h.list, name)
	h.index[name] = k
	return k
}

// view returns the list as it is now, for a chunk to keep.
func (h *hostNames) view() []string { return h.list[:len(h.list):len(h.list)] }
