package wsping

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loop runs Loop on the server side of one connection, reading it as a
// server must, until stop is closed; it returns Loop's result. The client
// answers pings only when answer is set (it then reads its side).
func loop(t *testing.T, answer bool, stop <-chan struct{}) error {
	t.Helper()
	return loopBusy(t, answer, stop, nil)
}

// loopBusy is loop with Loop's busy.
func loopBusy(t *testing.T, answer bool, stop <-chan struct{}, busy func() bool) error {
	t.Helper()
	result := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			result <- err
			return
		}
		defer conn.CloseNow()
		ctx, cancel := context.WithCancel(conn.CloseRead(context.Background()))
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		result <- Loop(ctx, conn, 20*time.Millisecond, 250*time.Millisecond, busy)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	require.NoError(t, err)
	defer conn.CloseNow()
	if answer {
		conn.CloseRead(context.Background())
	}
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
		t.Fatal("Loop did not return")
		return nil
	}
}

func TestAPeerThatDoesNotAnswerEndsTheLoop(t *testing.T) {
	err := loop(t, false, nil)
	assert.ErrorIs(t, err, ErrUnanswered)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestAPeerThatAnswersIsPingedUntilTheContextEnds(t *testing.T) {
	stop := make(chan struct{})
	time.AfterFunc(time.Second, func() { close(stop) }) // dozens of pings, 4 pong timeouts
	assert.NoError(t, loop(t, true, stop))
}

// TestNoPingWhileAFrameIsWritten: a silent peer is not pinged, and so not
// cut, while busy reports a write in flight (here for a second, fifty
// intervals and four pong timeouts); the first ping after is, and goes
// unanswered.
func TestNoPingWhileAFrameIsWritten(t *testing.T) {
	var writing atomic.Bool
	writing.Store(true)
	start := time.Now()
	time.AfterFunc(time.Second, func() { writing.Store(false) })
	err := loopBusy(t, false, nil, writing.Load)
	assert.ErrorIs(t, err, ErrUnanswered)
	assert.GreaterOrEqual(t, time.Since(start), time.Second+250*time.Millisecond, "cut only by a ping sent after the write")
}
