// Package backoff is the reconnect schedule the aggregator and the
// dashboard share: 1 s, 2 s, 4 s, … capped at 30 s, each
// ±20 %.
package backoff

import (
	"math"
	"time"
)

// Policy is a capped exponential backoff with jitter.
type Policy struct {
	Initial time.Duration // delay of attempt 0
	Max     time.Duration // cap before jitter
	Jitter  float64       // relative jitter, 0.2 means ±20 %
}

// Default is the schedule of the seed article: 1 s doubling to 30 s, ±20 %.
var Default = Policy{Initial: time.Second, Max: 30 * time.Second, Jitter: 0.2}

// Delay returns the delay before retry number attempt (0 for the first
// retry). u is a uniform draw in [0, 1) that places the jitter:
// base = min(Max, Initial·2^attempt), delay = base + (2u−1)·Jitter·base,
// rounded to the millisecond.
func (p Policy) Delay(attempt int, u float64) time.Duration {
	base := float64(p.Max)
	if attempt < 62 {
		base = math.Min(float64(p.Max), float64(p.Initial)*math.Pow(2, float64(attempt)))
	}
	d := base + (2*u-1)*p.Jitter*base
	return time.Duration(math.Round(d/float64(time.Millisecond))) * time.Millisecond
}
