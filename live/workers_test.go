package live_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var hostSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "cpu", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String},
)

// newHostRolling builds a series partitioned by host with a clock-triggered
// rolling on it, watched.
func newHostRolling(t *testing.T, opts live.Options, aligned bool) (*live.Series, live.NodeID) {
	t.Helper()
	s, err := live.New("m", hostSchema, opts)
	require.NoError(t, err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	r, err := s.Rolling(byHost, []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
		{Out: "avg", From: "cpu", Using: reduce.Avg},
		{Out: "samples", From: "cpu", Using: reduce.Samples},
	}}}, rolling.Options{Trigger: trigger.Every(100 * time.Millisecond), Aligned: aligned})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	return s, r
}

// hostRows returns rows at t ms for hosts h0…h(n−1).
func hostRows(ms int64, n int) []schema.Row {
	rows := make([]schema.Row, n)
	for h := range n {
		rows[h] = schema.Row{schema.MillisValue(ms), schema.NumberValue(float64(h) + float64(ms)/1000), schema.StringValue(string(rune('a'+h%26)) + string(rune('a'+h/26)))}
	}
	return rows
}

// poolGoroutines counts the goroutines of series' worker pools, waiting a
// moment for exited ones to be gone when there are more than want. Other
// goroutines (the test runner's, earlier tests' timers) come and go on
// their own, so only these are counted.
func poolGoroutines(want int) int {
	count := func() int {
		buf := make([]byte, 1<<20)
		for {
			n := runtime.Stack(buf, true)
			if n < len(buf) {
				return strings.Count(string(buf[:n]), "internal/workers.(*Pool).loop")
			}
			buf = make([]byte, 2*len(buf))
		}
	}
	n := count()
	for deadline := time.Now().Add(5 * time.Second); n > want && time.Now().Before(deadline); n = count() {
		time.Sleep(time.Millisecond)
	}
	return n
}

func TestWorkersStartOnFirstUseAndStopInClose(t *testing.T) {
	for _, aligned := range []bool{false, true} {
		before := poolGoroutines(0)
		s, _ := newHostRolling(t, live.Options{Workers: 4}, aligned)
		assert.Equal(t, before, poolGoroutines(before), "aligned=%v: no goroutine before the first push", aligned)
		var out []live.Output
		var err error
		for ms := int64(0); ms < 1000; ms += 50 {
			out, err = s.PushRows(out[:0], hostRows(ms, 40)...)
			require.NoError(t, err)
		}
		assert.Equal(t, before+3, poolGoroutines(before+3), "aligned=%v: three goroutines beside the caller's", aligned)
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "Close twice")
		assert.Equal(t, before, poolGoroutines(before), "aligned=%v: goroutines after Close", aligned)
	}
}

// The package doc promises that a series with workers dropped without
// Close stops its workers once it is garbage collected.
func TestADroppedSeriesStopsItsWorkers(t *testing.T) {
	for _, aligned := range []bool{false, true} {
		before := poolGoroutines(0)
		func() {
			s, _ := newHostRolling(t, live.Options{Workers: 4}, aligned)
			var out []live.Output
			var err error
			for ms := int64(0); ms < 1000; ms += 50 {
				out, err = s.PushRows(out[:0], hostRows(ms, 40)...)
				require.NoError(t, err)
			}
			require.Equal(t, before+3, poolGoroutines(before+3), "aligned=%v: the workers started", aligned)
		}()
		n := poolGoroutines(0)
		for deadline := time.Now().Add(5 * time.Second); n > before && time.Now().Before(deadline); n = poolGoroutines(0) {
			runtime.GC()
		}
		assert.Equal(t, before, n, "aligned=%v: goroutines once the dropped series is collected", aligned)
	}
}

func TestOneWorkerStartsNoGoroutine(t *testing.T) {
	before := poolGoroutines(0)
	for _, w := range []int{0, 1} {
		s, _ := newHostRolling(t, live.Options{Workers: w}, false)
		var err error
		for ms := int64(0); ms < 1000; ms += 50 {
			_, err = s.PushRows(nil, hostRows(ms, 40)...)
			require.NoError(t, err)
		}
		assert.Equal(t, before, poolGoroutines(before), "Workers=%d", w)
		require.NoError(t, s.Close())
	}
}

func TestCallsAfterCloseReturnErrClosed(t *testing.T) {
	s, r := newHostRolling(t, live.Options{Workers: 2}, false)
	out, err := s.PushRows(nil, hostRows(0, 3)...)
	require.NoError(t, err)
	typed, err := live.NewTyped[metric](s)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	dst := []live.Output{{Node: -1}}
	got, err := s.PushRows(dst, hostRows(200, 3)...)
	assert.ErrorIs(t, err, live.ErrClosed, "PushRows")
	assert.Equal(t, dst, got, "dst comes back unchanged")
	b := schema.NewBatch(hostSchema, 1)
	require.NoError(t, hostSchema.AppendRows(b, hostRows(300, 1)))
	_, err = s.PushMany(nil, b)
	assert.ErrorIs(t, err, live.ErrClosed, "PushMany")
	_, err = typed.Push(nil, []metric{{At: time.Unix(0, 400), CPU: 1, Host: "a"}})
	assert.ErrorIs(t, err, live.ErrClosed, "Typed.Push")
	_, err = live.NewTyped[metric](s)
	assert.ErrorIs(t, err, live.ErrClosed, "NewTyped")
	_, err = s.Rolling(s.Root(), []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "cpu", Using: reduce.Count}}}}, rolling.Options{})
	assert.ErrorIs(t, err, live.ErrClosed, "Rolling")
	_, err = s.PartitionBy(s.Root(), "host", partition.Options{})
	assert.ErrorIs(t, err, live.ErrClosed, "PartitionBy")
	assert.ErrorIs(t, s.Watch(r), live.ErrClosed, "Watch")
	_, err = s.Value(r)
	assert.ErrorIs(t, err, live.ErrClosed, "Value")
	_, err = s.Snapshot(s.Root())
	assert.ErrorIs(t, err, live.ErrClosed, "Snapshot")
	_, err = s.NodeSchema(r)
	assert.ErrorIs(t, err, live.ErrClosed, "NodeSchema")
	// What returns no error still reads what the series held.
	assert.Equal(t, 3, s.Len())
	assert.Equal(t, uint64(3), s.Stats().Ingested)
	assert.Empty(t, out, "no tick yet")
	assert.False(t, errors.Is(s.Close(), live.ErrClosed), "Close after Close is fine")
}

func TestCloseDuringAPushIsRefused(t *testing.T) {
	s, err := live.New("m", hostSchema, live.Options{Workers: 2})
	require.NoError(t, err)
	var closeErr error
	m, err := s.Map(s.Root(), hostSchema, func(in, out schema.Row) bool {
		closeErr = s.Close()
		copy(out, in)
		return true
	})
	require.NoError(t, err)
	require.NoError(t, s.Watch(m))
	_, err = s.PushRows(nil, hostRows(0, 1)...)
	require.NoError(t, err)
	assert.ErrorIs(t, closeErr, live.ErrReentrant)
	_, err = s.PushRows(nil, hostRows(10, 1)...)
	assert.NoError(t, err, "the series is still open")
	require.NoError(t, s.Close())
}

func TestWorkersOptionIsValidated(t *testing.T) {
	for _, w := range []int{-1, live.MaxWorkers + 1} {
		_, err := live.New("m", hostSchema, live.Options{Workers: w})
		assert.ErrorIs(t, err, live.ErrConfig, "Workers=%d", w)
		assert.ErrorContains(t, err, "Workers")
	}
	s, err := live.New("m", hostSchema, live.Options{Workers: live.MaxWorkers})
	require.NoError(t, err)
	require.NoError(t, s.Close())
}
