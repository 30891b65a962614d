package sequence

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Errors returned by this package.
var (
	// ErrDuration reports a duration string that is not
	// <digits><ms|s|m|h|d>, a zero duration, or one longer than
	// MaxDuration.
	ErrDuration = errors.New("sequence: invalid duration")
	// ErrSequence reports a sequence with a zero or negative step, a step
	// longer than MaxDuration, or an anchor outside the years 1823 to 2116.
	ErrSequence = errors.New("sequence: invalid sequence")
)

// DurationError is the error [ParseDuration] returns. It wraps [ErrDuration].
type DurationError struct {
	Input  string
	Reason string
}

// Error returns "sequence: invalid duration <input>: <reason>", the input
// quoted as Go quotes strings.
func (e *DurationError) Error() string {
	return fmt.Sprintf("sequence: invalid duration %q: %s", e.Input, e.Reason)
}

// Unwrap returns [ErrDuration].
func (e *DurationError) Unwrap() error { return ErrDuration }

var units = []struct {
	suffix string
	unit   time.Duration
}{
	{"ms", time.Millisecond},
	{"s", time.Second},
	{"m", time.Minute},
	{"h", time.Hour},
	{"d", 24 * time.Hour},
}

// ParseDuration parses a pond-ts duration string: a whole number followed
// by one of the units ms, s, m, h, d ("200ms", "30s", "1m", "1h", "1d"; a
// day is a fixed 24 hours). Nothing else is accepted: no signs, spaces,
// decimals, composites ("1m30s") or other units ("1min"). Unlike pond-ts,
// zero durations ("0s") are rejected.
func ParseDuration(s string) (time.Duration, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, &DurationError{Input: s, Reason: "it must start with a whole number"}
	}
	suffix := s[i:]
	if suffix == "" {
		return 0, &DurationError{Input: s, Reason: "the unit is missing"}
	}
	for _, u := range units {
		if suffix != u.suffix {
			continue
		}
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n > int64(MaxDuration)/int64(u.unit) {
			return 0, &DurationError{Input: s, Reason: "it is too large"}
		}
		if n == 0 {
			return 0, &DurationError{Input: s, Reason: "it must be positive"}
		}
		return time.Duration(n) * u.unit, nil
	}
	if suffix[0] == '.' {
		return 0, &DurationError{Input: s, Reason: "it must be a whole number"}
	}
	return 0, &DurationError{Input: s, Reason: fmt.Sprintf("the unit %q is not one of ms, s, m, h, d", suffix)}
}

// MaxDuration is the longest duration pond-go accepts anywhere (a window,
// a retention, a grace, a step): 2^62 ns, about 146 years. With times
// kept within schema.MaxTime of the epoch, a time minus a duration, or two
// times apart, never overflows an int64.
const MaxDuration = time.Duration(1 << 62)

// maxTime bounds the anchors a sequence accepts: within ±maxTime ns of the
// epoch (the years 1823 to 2116), the bound schema.MaxTime puts on pushed
// times.
const maxTime = 1<<62 - 1

// Sequence is a fixed-step sequence of boundaries anchor + k·step for every
// integer k, on int64 nanoseconds since the Unix epoch. Build one with
// [Every]; the anchor defaults to 0 (the epoch), so boundaries are
// epoch-aligned multiples of the step.
//
// A Sequence built from a bad step carries its error ([Sequence.Err]); the
// operators that take a sequence return that error when they are built.
type Sequence struct {
	step   int64
	anchor int64
	// far is the Unix second of a time WithAnchor was given outside the
	// range (anchor is then math.MinInt64 or math.MaxInt64), for Err to
	// quote; 0 otherwise.
	far int64
}

// Every returns the sequence of boundaries every step, anchored at the
// epoch. A zero or negative step, or one longer than [MaxDuration], gives
// a sequence whose Err is not nil.
func Every(step time.Duration) Sequence { return Sequence{step: int64(step)} }

// ParseEvery is [Every] on a duration string ([ParseDuration]).
func ParseEvery(step string) (Sequence, error) {
	d, err := ParseDuration(step)
	if err != nil {
		return Sequence{}, err
	}
	return Every(d), nil
}

// WithAnchor returns the sequence with its boundaries shifted to pass
// through t. A t outside the years 1823 to 2116 gives a sequence whose Err
// says so.
func (s Sequence) WithAnchor(t time.Time) Sequence {
	s.far = 0
	switch {
	case t.Before(time.Unix(0, -maxTime)):
		s.anchor, s.far = math.MinInt64, t.Unix()
	case t.After(time.Unix(0, maxTime)):
		s.anchor, s.far = math.MaxInt64, t.Unix()
	default:
		s.anchor = t.UnixNano()
	}
	return s
}

// WithAnchorNanos returns the sequence with its boundaries shifted to pass
// through ns (nanoseconds since the epoch).
func (s Sequence) WithAnchorNanos(ns int64) Sequence {
	s.anchor, s.far = ns, 0
	return s
}

// Err returns nil for a usable sequence, or an error wrapping [ErrSequence].
func (s Sequence) Err() error {
	if s.step <= 0 {
		return fmt.Errorf("%w: step %v must be positive", ErrSequence, time.Duration(s.step))
	}
	if s.step > int64(MaxDuration) {
		return fmt.Errorf("%w: step %v is longer than %v", ErrSequence, time.Duration(s.step), MaxDuration)
	}
	if s.far != 0 {
		return fmt.Errorf("%w: anchor %s is outside the years 1823 to 2116", ErrSequence, s.farAnchor())
	}
	if s.anchor > maxTime || s.anchor < -maxTime {
		return fmt.Errorf("%w: anchor %d ns is outside ±%d ns of the epoch", ErrSequence, s.anchor, int64(maxTime))
	}
	return nil
}

// Step returns the distance between boundaries.
func (s Sequence) Step() time.Duration { return time.Duration(s.step) }

// Anchor returns the boundary the sequence is anchored at, in nanoseconds.
func (s Sequence) Anchor() int64 { return s.anchor }

// index returns the index of the bucket holding t: floor((t − anchor) /
// step), exact for negative times. The sequence must be valid.
func (s Sequence) index(t int64) int64 {
	d := t - s.anchor
	q := d / s.step
	if d%s.step < 0 {
		q--
	}
	return q
}

// Start returns the start of the bucket holding t (in nanoseconds since
// the epoch): the latest boundary at or before t, anchor + k·step with k =
// floor((t − anchor) / step), exact for negative times. The bucket ends at
// Start(t) + Step(). The sequence must be valid ([Sequence.Err] nil): Start
// panics on one with a zero step, the zero Sequence among them (an integer
// division by zero), and on another invalid one returns a time that means
// nothing.
func (s Sequence) Start(t int64) int64 { return s.anchor + s.index(t)*s.step }

// String renders the sequence as "every 200ms", or with its anchor in
// nanoseconds since the epoch as "every 30s from 5000000000". An anchor
// [Sequence.WithAnchor] was given outside the range is shown as that
// time, to the second, in RFC 3339 ("every 1s from 3000-01-01T00:00:00Z").
func (s Sequence) String() string {
	switch {
	case s.far != 0:
		return fmt.Sprintf("every %v from %s", time.Duration(s.step), s.farAnchor())
	case s.anchor == 0:
		return "every " + time.Duration(s.step).String()
	}
	return fmt.Sprintf("every %v from %d", time.Duration(s.step), s.anchor)
}

// farAnchor renders the time WithAnchor was given outside the range.
func (s Sequence) farAnchor() string {
	return time.Unix(s.far, 0).UTC().Format(time.RFC3339)
}
