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
	if w.Count > 0 {
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
		return &rolling.SpecError{Reason: "bad trigger", Err: err}
	}
	if o.MinSamples < 0 {
		return &rolling.SpecError{Reason: fmt.Sprintf("MinSamples %d must not be negative", o.MinSamples)}
	}
	if o.Aligned && clock.SpecOf(o.Trigger).Kind != clock.Clock {
		return &rolling.SpecError{Reason: fmt.Sprintf("Aligned needs a clock trigger, not %s", o.Trigger)}
	}
	if o.History.MaxEvents < 0 || o.History.MaxAge < 0 || o.History.MaxAge > sequence.MaxDuration {
		return &rolling.SpecError{Reason: fmt.Sprintf("history bounds (%d, %v) must not be negative", o.History.MaxEvents, o.History.MaxAge)}
	}
	return nil
}
