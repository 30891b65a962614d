package trigger_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// What the operators read of a trigger (clock.SpecOf, set by this
// package) is its kind, the n of a count and the sequence of a clock,
// anchor included.
func TestMu42SpecOfCarriesKindCountAndSequence(t *testing.T) {
	seq := sequence.Every(30 * time.Second).WithAnchorNanos(5e9)
	for _, tc := range []struct {
		tr   trigger.Trigger
		want clock.Spec
	}{
		{trigger.Event(), clock.Spec{Kind: clock.Event}},
		{trigger.Count(7), clock.Spec{Kind: clock.Count, N: 7}},
		{trigger.Clock(seq), clock.Spec{Kind: clock.Clock, Seq: seq}},
		{trigger.Every(time.Second), clock.Spec{Kind: clock.Clock, Seq: sequence.Every(time.Second)}},
	} {
		assert.Equal(t, tc.want, clock.SpecOf(tc.tr), tc.tr.String())
	}
}
