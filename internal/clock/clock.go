// Package clock carries the trigger rules for the operators: the crossing
// rule of a clock trigger over a stream of times, and the count of a count
// trigger. Both are plain values that do not allocate.
package clock

import (
	"math"

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

// ClockState applies the crossing rule of a clock to a stream of times. The
// zero value is not usable; build one with [NewClockState].
type ClockState struct {
	seq     sequence.Sequence
	started bool
	next    int64 // start of the bucket after the current one; MinInt64 before the first time
	idx     int64 // index of the current bucket
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

// cross is Observe for a time at or past the next boundary, or the first
// time: kept apart so that Observe's common case inlines.
func (c *ClockState) cross(t int64) (boundary int64, fired bool) {
	idx := c.seq.Index(t)
	if !c.started {
		c.started = true
		c.setBucket(idx)
		return 0, false
	}
	if idx <= c.idx {
		// Cannot happen when t >= next; kept for safety against overflow.
		return 0, false
	}
	c.setBucket(idx)
	return c.seq.Boundary(idx), true
}

func (c *ClockState) setBucket(idx int64) {
	c.idx = idx
	c.next = c.seq.Boundary(idx + 1)
}

// Started reports whether a time has been observed.
func (c *ClockState) Started() bool { return c.started }

// Bucket returns the index of the current bucket.
func (c *ClockState) Bucket() int64 { return c.idx }

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
