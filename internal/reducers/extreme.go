package reducers

import (
	"math"
	"unsafe"
)

// Extreme is a monotone deque giving the minimum or the maximum of a sliding
// window whose values leave in arrival order (FIFO). It keeps (seq, value)
// entries whose values are monotone from the front (the extreme) to the
// back: [Extreme.Add] first drops the entries at the back that the new value
// beats (strictly, so equal values are kept, as pond-ts does), and
// [Extreme.Remove] drops the front entry if it is the one leaving.
//
// Add and Remove are amortised O(1); Value is O(1). The entries live in a
// ring buffer that doubles when full and is reused after that, so a window
// of steady size does not allocate.
//
// The zero Extreme is an empty min deque; use [NewMax] for a max deque.
//
// An Extreme is 32 bytes: every partition of a rolling keeps one per
// minimum and maximum of each window, so its ring is a pointer and a
// 32-bit size rather than a slice header, and its counts are 32-bit
// (a ring never holds more entries than a window has rows, and a
// window's rows are counted in 32 bits where they are laid out).
type Extreme struct {
	ring *extremeEntry // the ring's first entry; nil while size is 0
	val  float64
	size uint32 // entries the ring has room for: 0 or a power of two
	head uint32 // index of the front entry
	n    uint32 // entries held
	max  bool
	// Set by [Extreme.SetValue]: the deque is empty and the window's
	// extreme is val (ok false when it has none) until the next Reset.
	scalar, ok bool
}

// entries returns the ring.
func (e *Extreme) entries() []extremeEntry { return unsafe.Slice(e.ring, e.size) }

type extremeEntry struct {
	seq uint64
	x   float64
}

// NewMin returns an empty deque tracking the minimum.
func NewMin() *Extreme { return &Extreme{} }

// NewMax returns an empty deque tracking the maximum.
func NewMax() *Extreme { return &Extreme{max: true} }

// SetMax makes an empty Extreme (a min deque by default, as its zero
// value) track the maximum instead; for Extremes held by value.
func (e *Extreme) SetMax() { e.max = true }

// Add adds value x with arrival number seq. Numbers must increase from one
// Add to the next. A NaN x is ignored (callers filter missing values; ±Inf
// compare as usual).
func (e *Extreme) Add(seq uint64, x float64) {
	if x != x {
		return
	}
	buf, head, n := e.entries(), int(e.head), int(e.n)
	mask := len(buf) - 1
	for n > 0 {
		t := buf[(head+n-1)&mask].x
		if e.max && t < x || !e.max && t > x {
			n--
			continue
		}
		break
	}
	if n == len(buf) {
		e.n = uint32(n)
		e.grow()
		buf, head = e.entries(), int(e.head)
		mask = len(buf) - 1
	}
	buf[(head+n)&mask] = extremeEntry{seq, x}
	e.n = uint32(n + 1)
}

// minExtremeCap is the fewest entries a ring holds: two, as a window of
// many partitions often holds a few rows (200 ms of a host reporting every
// 100 ms), and each entry is 16 bytes per partition.
const minExtremeCap = 2

// grow doubles the ring (at least minExtremeCap entries), unwrapping it.
func (e *Extreme) grow() { e.growTo(max(minExtremeCap, 2*int(e.size))) }

// Reserve makes room for n entries without growing again: a window about
// to be rebuilt from n rows never holds more. It rounds n up to a power
// of two and keeps the entries held.
func (e *Extreme) Reserve(n int) {
	if n > int(e.size) {
		size := minExtremeCap
		for size < n {
			size *= 2
		}
		e.growTo(size)
	}
}

// growTo moves the entries into a buffer of size entries, a power of two
// at least e.n.
func (e *Extreme) growTo(size int) {
	buf := make([]extremeEntry, size)
	old, head := e.entries(), int(e.head)
	mask := len(old) - 1
	for i := range int(e.n) {
		buf[i] = old[(head+i)&mask]
	}
	e.ring, e.size, e.head = unsafe.SliceData(buf), uint32(size), 0
}

// Remove is called when the value with arrival number seq leaves the window;
// seq must be the oldest value still in the window. If that value was already
// dropped (a later value beat it), Remove does nothing.
func (e *Extreme) Remove(seq uint64) {
	if e.n > 0 && e.entries()[e.head].seq == seq {
		e.head = (e.head + 1) & (e.size - 1)
		e.n--
	}
}

// Value returns the minimum (or maximum) of the window, or false when it is
// empty.
func (e *Extreme) Value() (float64, bool) {
	if e.scalar {
		return e.val, e.ok
	}
	if e.n == 0 {
		return 0, false
	}
	return e.entries()[e.head].x, true
}

// Len returns the number of entries the deque holds (at most the window's
// size; fewer when values were dropped).
func (e *Extreme) Len() int { return int(e.n) }

// Cap returns the number of entries the deque has room for, for sizing
// the memory a state holds (16 bytes each).
func (e *Extreme) Cap() int { return int(e.size) }

// Reset empties the deque and keeps its memory.
func (e *Extreme) Reset() { e.head, e.n, e.scalar = 0, 0, false }

// SetValue empties the deque and makes x its value (none when ok is
// false) until the next [Extreme.Reset]: a window recomputed from its rows
// at every emission needs its extreme, not the deque that would let it
// slide. Call Reset and rebuild the deque before sliding it again.
func (e *Extreme) SetValue(x float64, ok bool) {
	e.head, e.n = 0, 0
	e.scalar, e.val, e.ok = true, x, ok
}

// Scalar reports whether the value was set by [Extreme.SetValue] (the
// deque is not built).
func (e *Extreme) Scalar() bool { return e.scalar }

// MinMaxSlots returns the minimum and the maximum of n values stored as
// in [Extreme.AddSlots], NaN (missing) values skipped, and whether any
// value was present. Among equal values the oldest is the one returned
// (it tells -0 from 0), as the deques give.
func MinMaxSlots(slots []uint64, off, stride, n int) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if n <= 0 {
		return lo, hi, false
	}
	// The loops range over the run cut once, so that they hold neither a
	// bound recomputed per value nor a bounds check. The first value
	// present sets both; after it, a value below the minimum cannot be
	// above the maximum, and the loop keeps one comparison for most
	// values and its two floats in place.
	run := slots[off : off+(n-1)*stride+1]
	r := 0
	for ; r < len(run); r += stride {
		if x := math.Float64frombits(run[r]); x == x {
			lo, hi = x, x
			break
		}
	}
	for ; r < len(run); r += stride {
		x := math.Float64frombits(run[r])
		if x < lo {
			lo = x
		} else if x > hi {
			hi = x
		}
	}
	// NaN compares false: lo and hi moved only for values present, and
	// together.
	return lo, hi, lo <= hi
}

// RemoveBefore is Remove for every arrival number below seq: the values
// that left the window, in one call.
func (e *Extreme) RemoveBefore(seq uint64) {
	buf, head, n := e.entries(), int(e.head), int(e.n)
	mask := len(buf) - 1
	for n > 0 && buf[head].seq < seq {
		head = (head + 1) & mask
		n--
	}
	e.head, e.n = uint32(head), uint32(n)
}

// AddSlots adds n values stored as float64 bits in slots at off,
// off+stride, …, with arrival numbers seq, seq+1, …: a run of a
// row-major block. NaN values (missing) are skipped.
func (e *Extreme) AddSlots(slots []uint64, off, stride, n int, seq uint64) {
	buf, head, k := e.entries(), int(e.head), int(e.n)
	for r := 0; r < n; r++ {
		x := math.Float64frombits(slots[off+r*stride])
		if x != x {
			continue
		}
		mask := len(buf) - 1
		if e.max {
			for k > 0 && buf[(head+k-1)&mask].x < x {
				k--
			}
		} else {
			for k > 0 && buf[(head+k-1)&mask].x > x {
				k--
			}
		}
		if k == len(buf) {
			e.n = uint32(k)
			e.grow()
			buf, head = e.entries(), int(e.head)
			mask = len(buf) - 1
		}
		buf[(head+k)&mask] = extremeEntry{seq + uint64(r), x}
		k++
	}
	e.n = uint32(k)
}

// PrependSlots builds the deque from the back: it takes n values stored
// as in [Extreme.AddSlots], with arrival numbers seq, seq+1, …, all older
// than every value already held, scanning them newest first. A value is
// kept when nothing newer beats it, which is the deque Add would have
// built, at one comparison per value. Call it on an emptied deque, on the
// runs of a window from the newest to the oldest.
func (e *Extreme) PrependSlots(slots []uint64, off, stride, n int, seq uint64) {
	for r := n - 1; r >= 0; r-- {
		x := math.Float64frombits(slots[off+r*stride])
		if x != x {
			continue
		}
		if e.n > 0 {
			f := e.front()
			if e.max && x < f || !e.max && x > f {
				continue
			}
		}
		e.prepend(seq+uint64(r), x)
	}
}

// front returns the value of the front entry of a deque that holds one.
func (e *Extreme) front() float64 { return e.entries()[e.head].x }

// prepend puts an entry in front of the deque, growing it when full.
func (e *Extreme) prepend(seq uint64, x float64) {
	if e.n == e.size {
		e.grow()
	}
	e.head = (e.head - 1) & (e.size - 1)
	e.entries()[e.head] = extremeEntry{seq, x}
	e.n++
}

// PrependMinMax is PrependSlots on a min deque and a max deque of the same
// values at once, reading each value once.
func PrependMinMax(mn, mx *Extreme, slots []uint64, off, stride, n int, seq uint64) {
	if n > 0 && n <= int(mn.size-mn.n) && n <= int(mx.size-mx.n) {
		prependMinMaxRoom(mn, mx, slots, off, stride, n, seq)
		return
	}
	for r := n - 1; r >= 0; r-- {
		x := math.Float64frombits(slots[off+r*stride])
		if x != x {
			continue
		}
		if mn.n == 0 || x <= mn.front() {
			mn.prepend(seq+uint64(r), x)
		}
		if mx.n == 0 || x >= mx.front() {
			mx.prepend(seq+uint64(r), x)
		}
	}
}

// prependMinMaxRoom is PrependMinMax when both rings have room for every
// value (Reserve makes it so for a rebuilt window): each value is written
// in front of each deque unconditionally, into a free slot, and the
// deque's front moves over it only when the value is kept, which the
// compiler turns into conditional moves. Whether a value in a window of
// noisy data is a new minimum is a coin toss for the branch predictor;
// this way there is no branch to predict.
func prependMinMaxRoom(mn, mx *Extreme, slots []uint64, off, stride, n int, seq uint64) {
	mnBuf, mxBuf := mn.entries(), mx.entries()
	mnMask, mxMask := len(mnBuf)-1, len(mxBuf)-1
	hn, kn, hx, kx := int(mn.head), int(mn.n), int(mx.head), int(mx.n)
	lo, hi := math.Inf(1), math.Inf(-1) // the fronts' values, for comparing
	if kn > 0 {
		lo = mnBuf[hn].x
	}
	if kx > 0 {
		hi = mxBuf[hx].x
	}
	_ = slots[off+(n-1)*stride]
	for r := n - 1; r >= 0; r-- {
		x := math.Float64frombits(slots[off+r*stride])
		if x != x {
			continue
		}
		s := seq + uint64(r)
		pn, px := (hn-1)&mnMask, (hx-1)&mxMask
		mnBuf[pn] = extremeEntry{s, x}
		mxBuf[px] = extremeEntry{s, x}
		keepMin, keepMax := x <= lo, x >= hi
		// min and max compare equal zeros alike, whatever their signs.
		lo, hi = min(lo, x), max(hi, x)
		if keepMin {
			hn, kn = pn, kn+1
		}
		if keepMax {
			hx, kx = px, kx+1
		}
	}
	mn.head, mn.n, mx.head, mx.n = uint32(hn), uint32(kn), uint32(hx), uint32(kx)
}
