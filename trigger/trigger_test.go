package trigger_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func TestTriggerValidation(t *testing.T) {
	assert.NoError(t, trigger.Event().Err())
	assert.NoError(t, trigger.Count(1).Err())
	assert.ErrorIs(t, trigger.Count(0).Err(), trigger.ErrTrigger)
	assert.ErrorIs(t, trigger.Count(-1).Err(), trigger.ErrTrigger)
	assert.ErrorIs(t, trigger.Clock(sequence.Every(0)).Err(), trigger.ErrTrigger)
	assert.ErrorIs(t, trigger.Clock(sequence.Every(0)).Err(), sequence.ErrSequence)
	assert.NoError(t, trigger.Clock(sequence.Every(time.Second)).Err())
	var zero trigger.Trigger
	assert.Equal(t, "event", zero.String())
}
