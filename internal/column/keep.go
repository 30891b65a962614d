package column

import "unsafe"

// keptStrs is the one run of a string column's cells known to hold what a
// caller wrote there under a tag with [Col.AppendStrsAs], and nothing
// wrote over since: cells [lo, hi) of the buffers at str and flag. A
// reset keeps the buffers, so the next push that would write the same
// strings at the same cells only extends the column's length over them
// ([Col.KeepStrs]): a tick that emits every partition's key in the same
// order every push writes the keys once, not once a push.
//
// The tag and at are the caller's: the tag names what it wrote (a tick
// names its partitions' order with it), at is the cell it counts its
// writes from (cell at+i holds its i-th string). Every other write to the
// cells ends the run (hi 0); a reset that clears cells cuts it there; a
// move to other buffers ends it. A borrow (see [Col.AliasStrs]) puts the
// buffers aside untouched: KeepStrs finds nothing while it lasts (other
// buffers), and the run again once the reset gives them back.
type keptStrs struct {
	tag    uint64
	at     int
	lo, hi int
	str    *string
	flag   *uint8
}

// end forgets the kept cells: something else was written to the column.
func (k *keptStrs) end() { k.hi = 0 }

// cut forgets the kept cells from cell n on (a reset cleared them).
func (k *keptStrs) cut(n int) { k.hi = min(k.hi, n) }

// KeepStrs adds n cells to a string column and reports true when the
// cells beyond its length hold, from before its last reset, the strings
// that [Col.AppendStrsAs] wrote there under tag counting from cell at,
// and nothing wrote over them since; otherwise it adds nothing and
// reports false, and the caller writes the strings. A tag names the
// strings a caller writes at each cell from at: the caller gives a new
// tag whenever they change (tag 0 keeps nothing).
func (c *Col[V]) KeepStrs(tag uint64, at, n int) bool {
	k, kp := len(c.str), &c.kept
	if tag == 0 || kp.tag != tag || kp.at != at || k < kp.lo || k+n > kp.hi || c.aliased ||
		unsafe.SliceData(c.str) != kp.str || unsafe.SliceData(c.flag) != kp.flag ||
		k+n > cap(c.str) || k+n > cap(c.flag) || len(c.flag) != k {
		return false
	}
	c.str, c.flag = c.str[:k+n], c.flag[:k+n]
	return true
}

// AppendStrsAs is [Col.AppendStrs] for a caller that may find the same
// strings at the same cells after the next reset (see [Col.KeepStrs]):
// ss are the strings of cells from the column's length on, which the
// caller counts from cell at under tag.
func (c *Col[V]) AppendStrsAs(ss []string, tag uint64, at int) {
	k, kp := len(c.str), &c.kept
	str, flag := unsafe.SliceData(c.str), unsafe.SliceData(c.flag)
	join := kp.lo < kp.hi && kp.hi == k && kp.tag == tag && kp.at == at && kp.str == str && kp.flag == flag
	c.appendStrs(ss)
	if !join {
		kp.tag, kp.at, kp.lo = tag, at, k
	}
	// A move to larger buffers takes the cells below k along.
	kp.hi, kp.str, kp.flag = k+len(ss), unsafe.SliceData(c.str), unsafe.SliceData(c.flag)
	if c.aliased {
		kp.end()
	}
}
