package reducers

import (
	"math"
	"slices"
	"sort"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Window is the incremental state of one reducer over a sliding window.
//
// Values enter with [Window.Add] and leave with [Window.Remove], each
// carrying its arrival number seq; seq numbers strictly increase from one
// Add to the next. Remove is called with the same (seq, v) that was added.
// A state from [Reducer.NewWindow] expects removals in arrival order (oldest
// first); one from [Reducer.NewSet] takes them in any order.
//
// A missing value (the zero [schema.Value]) and a non-finite number are
// not counted by any reducer; numeric reducers also skip values that are
// not numbers. Adding and removing them is allowed and changes nothing.
//
// Window states are not safe for concurrent use.
type Window interface {
	// Add adds v, which arrived as number seq.
	Add(seq uint64, v schema.Value)
	// Remove removes v, added earlier as number seq.
	Remove(seq uint64, v schema.Value)
	// Append appends exactly one cell, the reduction of what the window
	// holds now, to dst, a column of the reducer's [Reducer.OutputKind].
	Append(dst *table.Col)
	// Reset empties the window and keeps its memory.
	Reset()
	// Bytes returns the memory the state holds: its own struct and what
	// it alone owns, at capacity (maps estimated from their entries; the
	// bytes of strings and the elements of arrays, shared with the rows
	// the values came from, not counted).
	Bytes() int
}

// NewWindow returns an empty sliding-window state for the reducer over a
// column of kind src, for removals in arrival order (FIFO). It returns the
// error of [Reducer.Check] when the reducer cannot read src.
//
// Costs per Add or Remove, for a window holding n values: count, sum, avg
// and stdev O(1) (see [Moments]); min, max and difference amortised O(1)
// (monotone deques, see [Extreme]); first, last and samples amortised O(1);
// median and percentiles O(log n) (a sorted slice while small, an
// order-statistic tree past 512 values); keep, unique and top one map update per scalar. Append is O(1)
// except for samples (O(n)), unique (O(d log d) for d distinct values) and
// top (the same).
func NewWindow(r Spec) Window { return newWindow(r, false) }

// NewSet is like [Reducer.NewWindow] but the state accepts removals in any
// order. A reduce node over a reorder source with retention needs this:
// retention evicts in key order, which is not arrival order (pond-ts gets
// min, max, first, last and samples wrong there). first is the
// earliest-arrived (smallest seq) defined value present, last the
// latest-arrived; samples lists values in seq order. min, max and difference
// keep the sorted state of median (O(log n) per update) instead of deques;
// the other
// reducers are the same as in NewWindow.
func NewSet(r Spec) Window { return newWindow(r, true) }

func newWindow(r Spec, anyOrder bool) Window {
	switch r.Op {
	case OpCount:
		return &countWin{}
	case OpSum, OpAvg, OpStdev:
		return &momentsWin{op: r.Op}
	case OpMin, OpMax:
		if anyOrder {
			return &sortedWin{op: r.Op}
		}
		return &extremeWin{e: newExtreme(r.Op == OpMax)}
	case OpDifference:
		if anyOrder {
			return &sortedWin{op: r.Op}
		}
		return &diffWin{hi: newExtreme(true)}
	case OpMedian, OpPercentile:
		return &sortedWin{op: r.Op, q: r.Q}
	case OpFirst, OpLast, OpSamples:
		return &seqWin{op: r.Op}
	case OpKeep:
		return &keepWin{m: map[key]keepEntry{}}
	default: // OpUnique, OpTop
		return &countsWin{op: r.Op, n: r.N, m: map[key]int{}}
	}
}

// countWin counts defined values.
type countWin struct{ n int }

func (w *countWin) Add(_ uint64, v schema.Value) {
	if defined(v) {
		w.n++
	}
}

func (w *countWin) Remove(_ uint64, v schema.Value) {
	if defined(v) && w.n > 0 {
		w.n--
	}
}

func (w *countWin) Append(dst *table.Col) { dst.AppendNum(float64(w.n)) }
func (w *countWin) Reset()                { w.n = 0 }

// momentsWin is sum, avg or stdev.
type momentsWin struct {
	op Op
	m  Moments
}

func (w *momentsWin) Add(_ uint64, v schema.Value) {
	if x, ok := num(v); ok {
		w.m.Add(x)
	}
}

func (w *momentsWin) Remove(_ uint64, v schema.Value) {
	if x, ok := num(v); ok {
		w.m.Remove(x)
	}
}

func (w *momentsWin) Append(dst *table.Col) { appendMoments(dst, w.op, &w.m) }
func (w *momentsWin) Reset()                { w.m.Reset() }

func appendMoments(dst *table.Col, op Op, m *Moments) {
	var f float64
	ok := true
	switch op {
	case OpSum:
		f = m.Sum()
	case OpAvg:
		f, ok = m.Mean()
	default:
		f, ok = m.Stdev()
	}
	if ok {
		appendNum(dst, f)
	} else {
		dst.AppendMissing()
	}
}

// extremeWin is min or max over FIFO removals.
type extremeWin struct{ e Extreme }

func (w *extremeWin) Add(seq uint64, v schema.Value) {
	if x, ok := num(v); ok {
		w.e.Add(seq, x)
	}
}

func (w *extremeWin) Remove(seq uint64, v schema.Value) {
	if _, ok := num(v); ok {
		w.e.Remove(seq)
	}
}

func (w *extremeWin) Append(dst *table.Col) {
	if x, ok := w.e.Value(); ok {
		dst.AppendNum(x)
	} else {
		dst.AppendMissing()
	}
}

func (w *extremeWin) Reset() { w.e.Reset() }

// diffWin is max − min over FIFO removals.
type diffWin struct{ lo, hi Extreme }

func (w *diffWin) Add(seq uint64, v schema.Value) {
	if x, ok := num(v); ok {
		w.lo.Add(seq, x)
		w.hi.Add(seq, x)
	}
}

func (w *diffWin) Remove(seq uint64, v schema.Value) {
	if _, ok := num(v); ok {
		w.lo.Remove(seq)
		w.hi.Remove(seq)
	}
}

func (w *diffWin) Append(dst *table.Col) {
	lo, ok := w.lo.Value()
	hi, _ := w.hi.Value()
	if ok {
		appendNum(dst, hi-lo) // beyond the float64 range: missing
	} else {
		dst.AppendMissing()
	}
}

func (w *diffWin) Reset() { w.lo.Reset(); w.hi.Reset() }

// sortedWin keeps the numbers sorted: median and percentiles, and min, max
// and difference under any-order removal. Up to sortedSliceMax values it
// keeps a sorted slice (binary search and a short shift beat a tree
// there); past that it moves them into an [orderTree], O(log n) per update
// and per read, and back into the slice once it holds sortedSliceMin or
// fewer (the gap keeps a window on the edge from moving back and forth).
type sortedWin struct {
	op   Op
	q    float64
	s    []float64
	tree orderTree
	big  bool // the values are in tree, not s
}

const (
	sortedSliceMax = 512
	sortedSliceMin = 128
)

func (w *sortedWin) Add(_ uint64, v schema.Value) {
	x, ok := num(v)
	if !ok {
		return
	}
	if w.big {
		w.tree.Add(x)
		return
	}
	w.s = slices.Insert(w.s, sort.SearchFloat64s(w.s, x), x)
	if len(w.s) > sortedSliceMax {
		for _, y := range w.s {
			w.tree.Add(y)
		}
		w.s = w.s[:0]
		w.big = true
	}
}

func (w *sortedWin) Remove(_ uint64, v schema.Value) {
	x, ok := num(v)
	if !ok {
		return
	}
	if w.big {
		w.tree.Remove(x)
		if n := w.tree.Len(); n <= sortedSliceMin {
			for k := range n {
				w.s = append(w.s, w.tree.Kth(k))
			}
			w.tree.Reset()
			w.big = false
		}
		return
	}
	if i := sort.SearchFloat64s(w.s, x); i < len(w.s) && w.s[i] == x {
		w.s = slices.Delete(w.s, i, i+1)
	}
}

func (w *sortedWin) Append(dst *table.Col) {
	if !w.big {
		appendSorted(dst, w.op, w.q, w.s)
		return
	}
	n := w.tree.Len()
	switch w.op {
	case OpMin:
		dst.AppendNum(w.tree.Kth(0))
	case OpMax:
		dst.AppendNum(w.tree.Kth(n - 1))
	case OpDifference:
		appendNum(dst, w.tree.Kth(n-1)-w.tree.Kth(0))
	default:
		lo, hi, f := rank(n, w.q)
		dst.AppendNum(between(w.tree.Kth(lo), w.tree.Kth(hi), f))
	}
}

func (w *sortedWin) Reset() {
	w.s = w.s[:0]
	w.tree.Reset()
	w.big = false
}

// appendSorted appends the reduction of the sorted numbers s.
func appendSorted(dst *table.Col, op Op, q float64, s []float64) {
	if len(s) == 0 {
		dst.AppendMissing()
		return
	}
	switch op {
	case OpMin:
		dst.AppendNum(s[0])
	case OpMax:
		dst.AppendNum(s[len(s)-1])
	case OpDifference:
		appendNum(dst, s[len(s)-1]-s[0]) // beyond the float64 range: missing
	default:
		dst.AppendNum(percentile(s, q))
	}
}

// percentile returns the q-th percentile of the sorted, non-empty s by the
// linear rule: rank = q/100·(n−1), interpolating between the neighbours.
func percentile(s []float64, q float64) float64 {
	lo, hi, f := rank(len(s), q)
	return between(s[lo], s[hi], f)
}

// rank returns the neighbours lo ≤ hi of the q-th percentile's rank
// q/100·(n−1) among n sorted values, and its fraction past lo.
func rank(n int, q float64) (lo, hi int, frac float64) {
	r := q / 100 * float64(n-1)
	l, h := math.Floor(r), math.Ceil(r)
	return int(l), int(h), r - l
}

// between interpolates from a towards b by frac.
func between(a, b, frac float64) float64 {
	if frac == 0 {
		return a
	}
	d := b - a
	if d-d != 0 {
		// b − a is beyond the float64 range (a and b are finite, of
		// opposite signs): weigh the ends instead, which cannot overflow.
		return a*(1-frac) + b*frac
	}
	// The conversion keeps the product rounded on its own (no FMA), as in
	// JavaScript.
	return a + float64(d*frac)
}

// seqWin holds defined values in arrival order: first, last and samples.
// Removal of the oldest is O(1); removal of any other is a binary search by
// seq and an O(n) shift. Memory is compacted once half of it is dead.
type seqWin struct {
	op   Op
	e    []seqEntry
	head int
}

type seqEntry struct {
	seq uint64
	v   schema.Value
}

func (w *seqWin) Add(seq uint64, v schema.Value) {
	if !defined(v) {
		return
	}
	if w.head > 0 && 2*w.head >= len(w.e) {
		n := copy(w.e, w.e[w.head:])
		clear(w.e[n:])
		w.e = w.e[:n]
		w.head = 0
	}
	w.e = append(w.e, seqEntry{seq, v})
}

func (w *seqWin) Remove(seq uint64, v schema.Value) {
	if !defined(v) || w.head == len(w.e) {
		return
	}
	if w.e[w.head].seq == seq {
		w.e[w.head] = seqEntry{}
		w.head++
		if w.head == len(w.e) {
			w.e, w.head = w.e[:0], 0
		}
		return
	}
	live := w.e[w.head:]
	i, ok := slices.BinarySearchFunc(live, seq, func(e seqEntry, s uint64) int {
		switch {
		case e.seq < s:
			return -1
		case e.seq > s:
			return 1
		}
		return 0
	})
	if ok {
		copy(live[i:], live[i+1:])
		w.e[len(w.e)-1] = seqEntry{}
		w.e = w.e[:len(w.e)-1]
	}
}

func (w *seqWin) Append(dst *table.Col) {
	live := w.e[w.head:]
	switch w.op {
	case OpFirst, OpLast:
		if len(live) == 0 {
			dst.AppendMissing()
		} else if w.op == OpFirst {
			table.AppendValue(dst, live[0].v)
		} else {
			table.AppendValue(dst, live[len(live)-1].v)
		}
	default:
		dst.BeginArray()
		for _, e := range live {
			appendFlat(dst, e.v)
		}
		dst.EndArray()
	}
}

func (w *seqWin) Reset() {
	clear(w.e)
	w.e, w.head = w.e[:0], 0
}

// appendFlat appends v, or the scalar elements of v if it is an array, to
// the array cell being built.
func appendFlat(dst *table.Col, v schema.Value) {
	if elems, ok := v.Array(); ok {
		for _, e := range elems {
			appendScalar(dst, e)
		}
		return
	}
	appendScalar(dst, v)
}

// appendScalar appends v to the array cell being built if it is a scalar:
// a number as a number.
func appendScalar(dst *table.Col, v schema.Value) {
	if x, ok := v.Num(); ok {
		if finite(x) { // a scalar, as scalarKey has it
			dst.AppendNumElem(x)
		}
		return
	}
	if _, ok := scalarKey(v); ok {
		dst.AppendElem(v)
	}
}

// keepWin counts each distinct value; keep is the value when there is
// exactly one.
type keepWin struct {
	m map[key]keepEntry
}

type keepEntry struct {
	n int
	v schema.Value // an array's value (other kinds are rebuilt from the key)
}

func (w *keepWin) Add(_ uint64, v schema.Value) {
	if k, ok := valueKey(v); ok {
		e := w.m[k]
		e.n++
		if k.kind == schema.Array {
			e.v = v
		}
		w.m[k] = e
	}
}

func (w *keepWin) Remove(_ uint64, v schema.Value) {
	if k, ok := valueKey(v); ok {
		if e, ok := w.m[k]; ok {
			if e.n <= 1 {
				delete(w.m, k)
			} else {
				e.n--
				w.m[k] = e
			}
		}
	}
}

func (w *keepWin) Append(dst *table.Col) {
	if len(w.m) == 1 {
		for k, e := range w.m {
			if k.kind == schema.Array {
				table.AppendValue(dst, e.v)
			} else {
				table.AppendValue(dst, k.value())
			}
		}
		return
	}
	dst.AppendMissing()
}

func (w *keepWin) Reset() { clear(w.m) }

// countsWin counts each distinct scalar (arrays flattened): unique and top.
type countsWin struct {
	op  Op
	n   int
	m   map[key]int
	buf []keyCount
}

type keyCount struct {
	k key
	n int
}

func (w *countsWin) Add(_ uint64, v schema.Value) {
	if elems, ok := v.Array(); ok {
		for _, e := range elems {
			w.add(e)
		}
		return
	}
	w.add(v)
}

func (w *countsWin) add(v schema.Value) {
	if k, ok := scalarKey(v); ok {
		w.m[k]++
	}
}

func (w *countsWin) Remove(_ uint64, v schema.Value) {
	if elems, ok := v.Array(); ok {
		for _, e := range elems {
			w.remove(e)
		}
		return
	}
	w.remove(v)
}

func (w *countsWin) remove(v schema.Value) {
	if k, ok := scalarKey(v); ok {
		if n, ok := w.m[k]; ok {
			if n <= 1 {
				delete(w.m, k)
			} else {
				w.m[k] = n - 1
			}
		}
	}
}

func (w *countsWin) Append(dst *table.Col) {
	w.buf = appendCounts(dst, w.op, w.n, w.m, w.buf)
}

func (w *countsWin) Reset() { clear(w.m) }

// appendCounts appends unique (the keys in scalar order) or top<n> (the n
// most frequent, ties in scalar order) of the counts m, using buf as scratch
// space, and returns buf for reuse.
func appendCounts(dst *table.Col, op Op, n int, m map[key]int, buf []keyCount) []keyCount {
	buf = buf[:0]
	for k, c := range m {
		buf = append(buf, keyCount{k, c})
	}
	if op == OpUnique {
		slices.SortFunc(buf, func(a, b keyCount) int { return compareKeys(a.k, b.k) })
	} else {
		slices.SortFunc(buf, func(a, b keyCount) int {
			if a.n != b.n {
				return b.n - a.n
			}
			return compareKeys(a.k, b.k)
		})
		buf = buf[:min(n, len(buf))]
	}
	dst.BeginArray()
	for _, e := range buf {
		dst.AppendElem(e.k.value())
	}
	dst.EndArray()
	clear(buf[:cap(buf)]) // drop string references
	return buf[:0]
}

// newExtreme returns an empty monotone deque for the maximum or the minimum.
func newExtreme(max bool) Extreme {
	if max {
		return *NewMax()
	}
	return *NewMin()
}
