package backoff

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDelayFollowsTheSeedSchedule(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 30 * time.Second, 30 * time.Second}
	for attempt, w := range want {
		assert.Equal(t, w, Default.Delay(attempt, 0.5), "attempt %d without jitter", attempt)
	}
	assert.Equal(t, 30*time.Second, Default.Delay(1000, 0.5), "huge attempt numbers stay capped")
}

func TestDelayJitterIsTwentyPercentEachWay(t *testing.T) {
	assert.Equal(t, 800*time.Millisecond, Default.Delay(0, 0))
	assert.Equal(t, 1200*time.Millisecond, Default.Delay(0, 1))
	assert.Equal(t, 24*time.Second, Default.Delay(5, 0))
	assert.Equal(t, 36*time.Second, Default.Delay(5, 1))
}
