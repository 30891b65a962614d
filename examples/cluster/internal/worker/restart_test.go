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

// TestARestartKeepsTheNewSessionsEarlyNews: a fresh session joins the
// group as it is made, so its first assignment, and a revoke, may come
// before restart makes it the worker's. They are kept for the poll loop
// (the closed session's are dropped): a revoke dropped there would leave
// the new session's first-revoke flag set, and the worker would never
// hear of the partitions taken from it next (see rearm).
func TestARestartKeepsTheNewSessionsEarlyNews(t *testing.T) {
	w := &Worker{parts: map[int32]*part{0: {id: 0}, 3: {id: 3}}, sessN: 1}
	w.m.init()
	w.note(change{sess: 1, parts: []int32{3}})                       // the closed session's revoke
	w.note(change{sess: 2, parts: []int32{0, 1, 2}, assigned: true}) // the new session's, early
	w.note(change{sess: 2, parts: []int32{2}})
	w.mu.Lock()
	w.adopt(nil, 2)
	w.mu.Unlock()
	clear(w.parts)
	w.listParts()
	assert.Empty(t, w.Stats().Assigned, "nothing held until the loop applies the new session's news")
	assert.True(t, w.apply(), "the new session's revoke reaches the loop, which rearms")
	assert.Equal(t, []int32{0, 1}, w.Stats().Assigned)
	assert.EqualValues(t, 1, w.Stats().Restarts)
}
