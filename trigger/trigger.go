package trigger

import (
	"errors"
	"fmt"
	"time"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/sequence"
)

// ErrTrigger reports a trigger that cannot be used: a count below one or a
// clock on an invalid sequence.
var ErrTrigger = errors.New("trigger: invalid trigger")

// Trigger says when an operator emits. The zero value is [Event]. Build
// others with [Count], [Clock] and [Every]; a trigger built from bad arguments
// carries its error ([Trigger.Err]), which the operator returns when it is
// built.
type Trigger struct {
	kind clock.Kind
	n    int
	seq  sequence.Sequence
}

func init() {
	clock.SpecOf = func(t any) clock.Spec {
		tr := t.(Trigger)
		return clock.Spec{Kind: tr.kind, N: tr.n, Seq: tr.seq}
	}
}

// Event returns the trigger that emits once per source row, keyed at the
// row's time (on a reduce, once per push, keyed at its last row). It is
// the default.
func Event() Trigger { return Trigger{} }

// Count returns the trigger that emits on every n-th source row, keyed at
// that row's time. On a rolling, Count(1) behaves like [Event]. A reduce
// emits, at the end of a push, one row per n rows counted, all keyed at
// the push's last row: Count(1) gives it a row for every row pushed, where
// Event gives one per push.
func Count(n int) Trigger { return Trigger{kind: clock.Count, n: n} }

// Clock returns the trigger that emits when a row crosses a boundary of
// seq: the first row only sets the bucket; a row in a later bucket emits
// once, keyed at the start of its own bucket, however many boundaries it
// skipped; rows in the same bucket and late rows never emit.
func Clock(seq sequence.Sequence) Trigger { return Trigger{kind: clock.Clock, seq: seq} }

// Every is the [Clock] trigger on boundaries every step from the Unix
// epoch: Every(200*time.Millisecond) ticks at …, 0.2s, 0.4s, …. A zero or
// negative step, or one longer than [sequence.MaxDuration], gives a
// trigger whose Err is not nil. For another anchor, build the sequence
// ([sequence.Every] and its WithAnchor) and use Clock.
func Every(step time.Duration) Trigger { return Clock(sequence.Every(step)) }

// Err returns nil for a usable trigger, or an error wrapping [ErrTrigger].
func (t Trigger) Err() error {
	switch t.kind {
	case clock.Event:
		return nil
	case clock.Count:
		if t.n < 1 {
			return fmt.Errorf("%w: count %d must be at least 1", ErrTrigger, t.n)
		}
		return nil
	case clock.Clock:
		if err := t.seq.Err(); err != nil {
			return fmt.Errorf("%w: clock: %w", ErrTrigger, err)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown kind %d", ErrTrigger, t.kind)
}

// String renders the trigger as "event", "count(n)" or "clock(every
// 30s)".
func (t Trigger) String() string {
	switch t.kind {
	case clock.Count:
		return fmt.Sprintf("count(%d)", t.n)
	case clock.Clock:
		return "clock(" + t.seq.String() + ")"
	}
	return "event"
}
