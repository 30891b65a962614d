package worker

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestRestartIsRefusedWhenAnotherProcessHoldsTheID: a transaction that
// failed because a newer producer holds the transactional ID, or because
// the broker refuses the worker, stops the worker: a fresh session would
// fence that producer in turn. A transaction that timed out or gave up
// (the broker slow, a join unanswered) restarts the session.
func TestRestartIsRefusedWhenAnotherProcessHoldsTheID(t *testing.T) {
	for _, err := range []error{kerr.ProducerFenced, kerr.InvalidProducerEpoch, kerr.TransactionalIDAuthorizationFailed, kerr.ClusterAuthorizationFailed, kerr.GroupAuthorizationFailed} {
		wrapped := fmt.Errorf("worker: end transaction: %w", errors.Join(errors.New("produce failed"), err))
		assert.True(t, fatal(wrapped), "%v", err)
		// restart gives the error back without touching the session.
		w := &Worker{}
		assert.Equal(t, wrapped, w.restart(context.Background(), wrapped, 0), "%v", err)
	}
	for _, err := range []error{context.DeadlineExceeded, kerr.ConcurrentTransactions, kerr.CoordinatorNotAvailable, kerr.RequestTimedOut} {
		assert.False(t, fatal(fmt.Errorf("worker: end transaction: %w", err)), "%v", err)
	}
	// Restarts in a row run out.
	w := &Worker{}
	err := fmt.Errorf("worker: end transaction: %w", context.DeadlineExceeded)
	assert.Equal(t, err, w.restart(context.Background(), err, maxRestarts))
}
