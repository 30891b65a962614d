package reducers

import (
	"slices"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// Bucket is the state of one reducer over a fixed bucket: values are only
// added, and [Bucket.Append] may be called at any time (it does not change
// the state). Missing values and non-finite numbers are skipped, as in
// [Window].
//
// Bucket states are not safe for concurrent use.
type Bucket interface {
	// Add adds v.
	Add(v schema.Value)
	// Append appends exactly one cell, the reduction of the values added
	// so far, to dst, a column of the reducer's [Reducer.OutputKind].
	Append(dst *table.Col)
	// Reset empties the bucket and keeps its memory.
	Reset()
	// Bytes returns the memory the state holds, as [Window.Bytes] does.
	Bytes() int
}

// NewBucket returns an empty bucket state for the reducer over a column of
// kind src. It returns the error of [Reducer.Check] when the reducer cannot
// read src.
//
// Every Add is O(1) (amortised, for the states that keep values); sum, avg
// and stdev use the compensated sums of [Moments]; min, max and difference keep
// running extremes; median and percentiles collect the numbers and sort them
// at Append (O(n log n)); keep compares each value with the first (arrays
// element by element) and gives the first when all are equal.
func NewBucket(r Spec) Bucket {
	switch r.Op {
	case OpCount:
		return &addOnly{w: &countWin{}}
	case OpSum, OpAvg, OpStdev:
		return &momentsBucket{op: r.Op}
	case OpMin, OpMax, OpDifference:
		return &extremeBucket{op: r.Op}
	case OpFirst, OpLast:
		return &endBucket{last: r.Op == OpLast}
	case OpMedian, OpPercentile:
		return &sortBucket{op: r.Op, q: r.Q}
	case OpKeep:
		return &keepBucket{}
	case OpSamples:
		return &addOnly{w: &seqWin{op: OpSamples}}
	default: // OpUnique, OpTop
		return &addOnly{w: &countsWin{op: r.Op, n: r.N, m: map[key]int{}}}
	}
}

// NewRunning returns a window state for a reduction nothing is ever
// removed from (a reduce over a rolling, which holds no rows): the bucket
// state of [NewBucket] behind the [Window] interface, so that first, last,
// min, max, difference and keep hold O(1) memory however many values are
// added, where the window states would keep every value for removals that
// never come. Remove is a programmer error and panics.
func NewRunning(r Spec) Window { return running{NewBucket(r)} }

// running is a bucket state used as a window that is only added to.
type running struct{ b Bucket }

func (w running) Add(_ uint64, v schema.Value) { w.b.Add(v) }
func (w running) Remove(uint64, schema.Value) {
	panic("reducers: Remove on a running state")
}
func (w running) Append(dst *table.Col) { w.b.Append(dst) }
func (w running) Reset()                { w.b.Reset() }

// addOnly runs a window state as a bucket.
type addOnly struct {
	w   Window
	seq uint64
}

func (b *addOnly) Add(v schema.Value) {
	b.w.Add(b.seq, v)
	b.seq++
}

func (b *addOnly) Append(dst *table.Col) { b.w.Append(dst) }
func (b *addOnly) Reset()                { b.w.Reset(); b.seq = 0 }

// momentsBucket is sum, avg or stdev.
type momentsBucket struct {
	op Op
	m  Moments
}

func (b *momentsBucket) Add(v schema.Value) {
	if x, ok := num(v); ok {
		b.m.Add(x)
	}
}

func (b *momentsBucket) Append(dst *table.Col) { appendMoments(dst, b.op, &b.m) }
func (b *momentsBucket) Reset()                { b.m.Reset() }

// extremeBucket is min, max or difference from running extremes.
type extremeBucket struct {
	op     Op
	has    bool
	lo, hi float64
}

func (b *extremeBucket) Add(v schema.Value) {
	x, ok := num(v)
	switch {
	case !ok:
	case !b.has:
		b.lo, b.hi, b.has = x, x, true
	case x < b.lo:
		b.lo = x
	case x > b.hi:
		b.hi = x
	}
}

func (b *extremeBucket) Append(dst *table.Col) {
	switch {
	case !b.has:
		dst.AppendMissing()
	case b.op == OpMin:
		dst.AppendNum(b.lo)
	case b.op == OpMax:
		dst.AppendNum(b.hi)
	default:
		appendNum(dst, b.hi-b.lo) // beyond the float64 range: missing
	}
}

func (b *extremeBucket) Reset() { b.has = false }

// endBucket is first or last.
type endBucket struct {
	last bool
	has  bool
	v    schema.Value
}

func (b *endBucket) Add(v schema.Value) {
	if defined(v) && (b.last || !b.has) {
		b.v, b.has = v, true
	}
}

func (b *endBucket) Append(dst *table.Col) {
	if b.has {
		table.AppendValue(dst, b.v)
	} else {
		dst.AppendMissing()
	}
}

func (b *endBucket) Reset() { b.v, b.has = schema.Value{}, false }

// sortBucket is median or a percentile: numbers collected, sorted at Append.
type sortBucket struct {
	op Op
	q  float64
	s  []float64
}

func (b *sortBucket) Add(v schema.Value) {
	if x, ok := num(v); ok {
		b.s = append(b.s, x)
	}
}

func (b *sortBucket) Append(dst *table.Col) {
	slices.Sort(b.s)
	appendSorted(dst, b.op, b.q, b.s)
}

func (b *sortBucket) Reset() { b.s = b.s[:0] }

// keepBucket is keep: the first defined value, unless a later one differs.
type keepBucket struct {
	has, mixed bool
	v          schema.Value
}

func (b *keepBucket) Add(v schema.Value) {
	switch {
	case !defined(v) || b.mixed:
	case !b.has:
		b.v, b.has = v, true
	case !v.Equal(b.v):
		b.mixed = true
	}
}

func (b *keepBucket) Append(dst *table.Col) {
	if b.has && !b.mixed {
		table.AppendValue(dst, b.v)
	} else {
		dst.AppendMissing()
	}
}

func (b *keepBucket) Reset() { *b = keepBucket{} }
