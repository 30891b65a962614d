package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/sequence"
)

// Started is false until the first time is observed, and true from it on,
// even though that first time fires nothing.
func TestMu42StartedFromTheFirstTimeOn(t *testing.T) {
	c := clock.NewClockState(sequence.Every(time.Second))
	assert.False(t, c.Started())
	assert.False(t, c.Quiet(-5), "before the first time nothing is quiet")
	_, fired := c.Observe(-5)
	assert.False(t, fired)
	assert.True(t, c.Started())
	assert.True(t, c.Quiet(-5))
}
