package live_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// requireBroken checks that every call of s that can fail returns
// ErrBroken, and that Close still closes it.
func requireBroken(t *testing.T, s *live.Series, node live.NodeID) {
	t.Helper()
	_, err := s.PushRows(nil, r(100, 1, "a"))
	assert.ErrorIs(t, err, live.ErrBroken, "PushRows")
	_, err = s.PushMany(nil, schema.NewBatch(s.Schema(), 0))
	assert.ErrorIs(t, err, live.ErrBroken, "PushMany")
	_, err = s.Snapshot(node)
	assert.ErrorIs(t, err, live.ErrBroken, "Snapshot")
	_, err = s.NodeBytes(node)
	assert.ErrorIs(t, err, live.ErrBroken, "NodeBytes")
	assert.ErrorIs(t, s.Watch(node), live.ErrBroken, "Watch")
	_, err = s.Filter(s.Root(), func(schema.Row) bool { return true })
	assert.ErrorIs(t, err, live.ErrBroken, "Filter")
	_, err = s.PartitionBy(s.Root(), "host", partition.Options{})
	assert.ErrorIs(t, err, live.ErrBroken, "PartitionBy")
	_, err = s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}, rolling.Options{})
	assert.ErrorIs(t, err, live.ErrBroken, "Rolling")
	_, err = live.NewTyped[struct {
		T time.Time `pond:"time"`
		V float64   `pond:"value"`
		H string    `pond:"host"`
	}](s)
	assert.ErrorIs(t, err, live.ErrBroken, "NewTyped")
	assert.NoError(t, s.Close())
	_, err = s.PushRows(nil, r(100, 1, "a"))
	assert.ErrorIs(t, err, live.ErrClosed, "closed wins once closed")
}

// A filter whose function panics half way through a push leaves rows
// stored in the root and not yet in the filter; the push cannot be
// undone, so the panic propagates and the series refuses every later
// call, instead of going on with nodes that disagree.
func TestAPanicInsideAPushBreaksTheSeries(t *testing.T) {
	s := newSeries(t, live.Options{})
	f, err := s.Filter(s.Root(), func(row schema.Row) bool {
		if v, _ := row[1].Num(); v == 2 {
			panic("the caller's bug")
		}
		return true
	})
	require.NoError(t, err)
	require.NoError(t, s.Watch(f))
	_, err = s.PushRows(nil, r(1, 1, "a"))
	require.NoError(t, err)
	assert.PanicsWithValue(t, "the caller's bug", func() {
		_, _ = s.PushRows(nil, r(2, 2, "a"), r(3, 3, "a"))
	})
	requireBroken(t, s, f)
}

// Building a filter over a series that holds rows runs its function on
// them: there too it cannot push (the push would run inside the build,
// between replayed rows), and a panic breaks the series.
func TestAFiltersReplayIsGuardedAsAPush(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.PushRows(nil, r(1, 1, "a"), r(2, 2, "a"))
	require.NoError(t, err)
	var inner []error
	f, err := s.Filter(s.Root(), func(schema.Row) bool {
		_, err := s.PushRows(nil, r(10, 9, "b"))
		inner = append(inner, err)
		return true
	})
	require.NoError(t, err)
	require.Len(t, inner, 2, "the function ran on both rows held")
	for _, err := range inner {
		assert.ErrorIs(t, err, live.ErrReentrant)
	}
	assert.Equal(t, 2, s.Len(), "nothing pushed from inside the build")
	snap, err := s.Snapshot(f)
	require.NoError(t, err)
	assert.Equal(t, []int64{ms(1), ms(2)}, snap.Times())

	// A panic in the replay.
	assert.Panics(t, func() {
		_, _ = s.Map(s.Root(), s.Schema(), func(in, out schema.Row) bool { panic("the caller's bug") })
	})
	requireBroken(t, s, f)
}
