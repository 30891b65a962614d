package aligned

// inboxes holds the rows of every partition that are not yet in its
// panes. They are not observable before the next boundary closes, so up
// to inboxRows of them wait here, row by row (the time, then each slot:
// one row's words side by side, so taking a row touches one cache line),
// and are added together (the partition's state brought into cache once
// for all of them) when the inbox is full or the boundary closes.
//
// The inboxes of all partitions are one block, partition q's at
// q·inboxRows rows, and their row counts one byte each: taking a row
// reads a count that stays in cache and writes the row, without
// reaching the partition's structure.
type inboxes struct {
	w    int      // words a row: the time, then each slot
	n    []uint8  // rows waiting, by partition; inboxShut: the partition takes rows the slow way
	rows []uint64 // inboxRows rows of w words per partition
}

// inboxRows is the number of rows a partition's inbox holds.
const inboxRows = 32

// inboxShut marks the inbox of a partition that is unknown or not live:
// its next row wakes it first.
const inboxShut = 0xff

// size makes room for partitions [0, parts), the new ones shut.
func (ib *inboxes) size(parts int) {
	for len(ib.n) < parts {
		ib.n = append(ib.n, inboxShut)
	}
	need := len(ib.n) * inboxRows * ib.w
	switch {
	case need <= len(ib.rows):
	case need <= cap(ib.rows):
		ib.rows = ib.rows[:need]
	default:
		rows := make([]uint64, need, max(need, 2*cap(ib.rows)))
		copy(rows, ib.rows)
		ib.rows = rows
	}
}

// waiting returns the rows waiting in partition q's inbox (none when it
// is shut).
func (ib *inboxes) waiting(q int32) inRows {
	if int(q) >= len(ib.n) || ib.n[q] == inboxShut {
		return inRows{w: ib.w}
	}
	at := int(q) * inboxRows * ib.w
	return inRows{buf: ib.rows[at : at+int(ib.n[q])*ib.w], w: ib.w}
}

// open makes partition q's inbox take rows, empty.
func (ib *inboxes) open(q int32) { ib.n[q] = 0 }

// close drops partition q's waiting rows and shuts its inbox.
func (ib *inboxes) close(q int32) {
	if int(q) < len(ib.n) {
		ib.n[q] = inboxShut
	}
}

// bytes returns the memory the inboxes hold.
func (ib *inboxes) bytes() int { return 8*cap(ib.rows) + cap(ib.n) }
