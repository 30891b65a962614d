package engine

import (
	"fmt"
	"strconv"
	"time"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// Key describes the partition column that partitioned output rows carry
// after the time.
type Key struct {
	Name string
	Kind schema.Kind
}

func spanName(w rolling.Window) string {
	if w.Name != "" {
		return w.Name
	}
	if w.Count != 0 {
		return strconv.Itoa(w.Count)
	}
	return formatSpan(w.Span)
}

// formatSpan writes a duration in the largest pond-ts unit that divides it.
func formatSpan(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d > 0 && d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return d.String()
}

func checkOptions(o rolling.Options) error {
	if err := o.Trigger.Err(); err != nil {
		return &rolling.SpecError{Option: "Trigger", Reason: "bad trigger", Err: err}
	}
	if o.MinSamples < 0 {
		return &rolling.SpecError{Option: "MinSamples", Reason: fmt.Sprintf("MinSamples %d must not be negative", o.MinSamples)}
	}
	if o.Aligned && clock.SpecOf(o.Trigger).Kind != clock.Clock {
		return &rolling.SpecError{Option: "Aligned", Reason: fmt.Sprintf("Aligned needs a clock trigger, not %s", o.Trigger)}
	}
	switch h := o.History; {
	case h.MaxEvents < 0:
		return &rolling.SpecError{Option: "History.MaxEvents", Reason: fmt.Sprintf("History.MaxEvents %d must not be negative", h.MaxEvents)}
	case h.MaxAge < 0:
		return &rolling.SpecError{Option: "History.MaxAge", Reason: fmt.Sprintf("History.MaxAge %v must not be negative", h.MaxAge)}
	case h.MaxAge > sequence.MaxDuration:
		return &rolling.SpecError{Option: "History.MaxAge", Reason: fmt.Sprintf("History.MaxAge %v is longer than %v", h.MaxAge, sequence.MaxDuration)}
	}
	return nil
}
