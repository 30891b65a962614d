// Package clock carries the trigger rules for the operators: the crossing
// rule of a clock trigger over a stream of times, and the count of a count
// trigger. Both are plain values that do not allocate.
package clock

import (
	"math"
	"slices"
	"time"

	"github.com/pond-go/pond/sequence"
)

// Kind says when an operator emits.
type Kind uint8

// The trigger kinds. The zero Kind is the event trigger.
const (
	Event Kind = iota // one emission per source row
	Count             // one emission every n source rows
	Clock             // one emission per crossed bucket boundary
)

// Spec is what an operator needs of a trigger.Trigger: its kind, the n of
// a count trigger and the sequence of a clock trigger.
type Spec struct {
	Kind Kind
	N    int
	Seq  sequence.Sequence
}

// SpecOf returns the Spec of a trigger.Trigger. Package trigger, which
// imports this one, sets it when it is initialised, so that operators read
// a trigger without trigger exporting its insides. Read it when an
// operator is built: the argument is boxed.
var SpecOf func(trigger any) Spec

// CheckDuration returns a *sequence.DurationError (wrapping
// sequence.ErrDuration) if d is zero, negative, or longer than
// sequence.MaxDuration: the spans the operators accept.
func CheckDuration(d time.Duration) error {
	if d <= 0 {
		return &sequence.DurationError{Input: d.String(), Reason: "it must be positive"}
	}
	if d > sequence.MaxDuration {
		return &sequence.DurationError{Input: d.String(), Reason: "it is too large"}
	}
	return nil
}

// ClockState applies the crossing rule of a clock to a stream of times. The
// zero value is not usable; build one with [NewClockState].
type ClockState struct {
	seq     sequence.Sequence
	started bool
	next    int64 // start of the bucket after the current one; MinInt64 before the first time
	start   int64 // start of the current bucket
}

// NewClockState returns the crossing state of a clock on seq, which must be
// valid.
func NewClockState(seq sequence.Sequence) ClockState {
	return ClockState{seq: seq, next: math.MinInt64}
}

// Observe feeds one time. It reports whether the time crosses into a later
// bucket, and if so the start of that bucket (the emission key). The first
// time ever observed only sets the bucket. The common case, a time in the
// current bucket, costs one comparison.
func (c *ClockState) Observe(t int64) (boundary int64, fired bool) {
	if t < c.next { // never true before the first time
		return 0, false
	}
	return c.cross(t)
}

// Quiet reports whether observing t, and so any time up to t, leaves the
// state as it is and fires nothing: t is before the next boundary.
func (c *ClockState) Quiet(t int64) bool { return t < c.next }

// NextLoud returns the index of the first time of ts from index from on
// that is not quiet (see [ClockState.Quiet]), or len(ts) when there is
// none; ts must be sorted. Observing the times before it changes nothing,
// so a sorted push observes that one only, without reading the others:
// it gallops from from (1, 2, 4, … times on), then searches the last
// step, so that a crossing k times on costs about 2 log2 k reads.
func (c *ClockState) NextLoud(ts []int64, from int) int {
	next := c.next
	if from >= len(ts) || ts[from] >= next {
		return from
	}
	// ts[lo] is quiet; find hi with ts[hi] loud, or the end.
	lo, step := from, 1
	hi := lo + step
	for hi < len(ts) && ts[hi] < next {
		lo, step = hi, 2*step
		hi = lo + step
	}
	hi = min(hi, len(ts))
	i, _ := slices.BinarySearch(ts[lo+1:hi], next)
	return lo + 1 + i
}

// cross is Observe for a time at or past the next boundary, or the first
// time: kept apart so that Observe's common case inlines.
func (c *ClockState) cross(t int64) (boundary int64, fired bool) {
	start := c.seq.Start(t)
	if !c.started {
		c.started = true
		c.setBucket(start)
		return 0, false
	}
	if start <= c.start {
		// Cannot happen when t >= next; kept for safety against overflow.
		return 0, false
	}
	c.setBucket(start)
	return start, true
}

// setBucket makes the bucket starting at start the current one. Times and
// steps are within 2^62 ns of 0, so start + step does not overflow.
func (c *ClockState) setBucket(start int64) {
	c.start = start
	c.next = start + int64(c.seq.Step())
}

// Started reports whether a time has been observed.
func (c *ClockState) Started() bool { return c.started }

// CountState applies a count trigger: every n-th observation fires.
type CountState struct {
	n, seen int
}

// NewCountState returns the state of a count trigger on n, which must be at
// least 1.
func NewCountState(n int) CountState { return CountState{n: n} }

// Observe counts one row and reports whether it is the n-th since the last
// firing.
func (c *CountState) Observe() bool {
	c.seen++
	if c.seen >= c.n {
		c.seen = 0
		return true
	}
	return false
}
