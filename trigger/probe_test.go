package trigger_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestProbeTriggers checks each constructor's validation and String
// against the docs on random and boundary arguments.
func TestProbeTriggers(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 30))
	counts := []int{0, 1, -1, 2, math.MaxInt, math.MinInt}
	steps := []time.Duration{0, 1, -1, time.Second, sequence.MaxDuration, sequence.MaxDuration + 1, math.MaxInt64, math.MinInt64}
	anchors := []int64{0, 5, -5, schema.MaxTime, schema.MinTime, schema.MaxTime + 1, schema.MinTime - 1}
	for range 1000 {
		counts = append(counts, int(r.Int64N(1<<40))-1<<39)
		steps = append(steps, time.Duration(r.Uint64()))
		anchors = append(anchors, int64(r.Uint64()))
	}
	checked := 0
	for _, n := range counts {
		tr := trigger.Count(n)
		err := tr.Err()
		if (err == nil) != (n >= 1) || err != nil && !errors.Is(err, trigger.ErrTrigger) {
			t.Fatalf("Count(%d).Err() = %v", n, err)
		}
		if want := fmt.Sprintf("count(%d)", n); tr.String() != want {
			t.Fatalf("Count(%d).String() = %q", n, tr.String())
		}
		checked++
	}
	for i, step := range steps {
		a := anchors[i%len(anchors)]
		seq := sequence.Every(step).WithAnchorNanos(a)
		for _, tr := range []trigger.Trigger{trigger.Clock(seq), trigger.Every(step)} {
			s := seq
			if tr == trigger.Every(step) {
				s = sequence.Every(step)
			}
			ok := s.Err() == nil
			if wantOK := step > 0 && step <= sequence.MaxDuration && s.Anchor() >= schema.MinTime && s.Anchor() <= schema.MaxTime; ok != wantOK {
				t.Fatalf("sequence %v: Err %v", s, s.Err())
			}
			err := tr.Err()
			if (err == nil) != ok || err != nil && (!errors.Is(err, trigger.ErrTrigger) || !errors.Is(err, sequence.ErrSequence)) {
				t.Fatalf("clock on %v: Err() = %v", s, err)
			}
			if want := "clock(" + s.String() + ")"; tr.String() != want {
				t.Fatalf("clock String %q, want %q", tr.String(), want)
			}
			checked++
		}
	}
	var zero trigger.Trigger
	if zero != trigger.Event() || zero.Err() != nil || trigger.Event().String() != "event" {
		t.Fatalf("zero trigger %v, Event %v", zero, trigger.Event())
	}
	if checked < 3000 {
		t.Fatal(checked)
	}
}
