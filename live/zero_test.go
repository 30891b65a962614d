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
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A Series or Typed not made by live.New or live.NewTyped (a zero value,
// or a nil pointer) is a caller's mistake that used to panic deep inside
// a push: every call that can fail now returns ErrNotMade, and the
// others read an empty series.
func TestZeroSeriesReturnsErrNotMade(t *testing.T) {
	for name, s := range map[string]*live.Series{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			sch := metricsSchema
			b := schema.NewBatch(sch, 1)
			_, err := s.PushMany(nil, b)
			assert.ErrorIs(t, err, live.ErrNotMade, "PushMany")
			_, err = s.PushMany(nil, nil)
			assert.ErrorIs(t, err, live.ErrNotMade, "PushMany(nil)")
			_, err = s.PushRows(nil, r(1, 1, "a"))
			assert.ErrorIs(t, err, live.ErrNotMade, "PushRows")
			root := s.Root()
			_, err = s.NodeSchema(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "NodeSchema")
			_, err = s.Snapshot(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "Snapshot")
			_, err = s.Value(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "Value")
			_, err = s.NodeBytes(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "NodeBytes")
			_, err = s.Describe(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "Describe")
			_, err = s.Partitions(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "Partitions")
			_, err = s.AggregateStats(root)
			assert.ErrorIs(t, err, live.ErrNotMade, "AggregateStats")
			assert.ErrorIs(t, s.Watch(root), live.ErrNotMade, "Watch")
			assert.ErrorIs(t, s.Unwatch(root), live.ErrNotMade, "Unwatch")

			builders := map[string]func() (live.NodeID, error){
				"Filter":    func() (live.NodeID, error) { return s.Filter(root, func(schema.Row) bool { return true }) },
				"Map":       func() (live.NodeID, error) { return s.Map(root, sch, func(in, out schema.Row) bool { return true }) },
				"Select":    func() (live.NodeID, error) { return s.Select(root, "value") },
				"Diff":      func() (live.NodeID, error) { return s.Diff(root, "value") },
				"Rate":      func() (live.NodeID, error) { return s.Rate(root, "value") },
				"PctChange": func() (live.NodeID, error) { return s.PctChange(root, "value") },
				"Cumulative": func() (live.NodeID, error) {
					return s.Cumulative(root, live.Running{Column: "value", Using: reduce.Sum})
				},
				"Fill":        func() (live.NodeID, error) { return s.Fill(root, live.FillOptions{}) },
				"Sample":      func() (live.NodeID, error) { return s.Sample(root, 2) },
				"Window":      func() (live.NodeID, error) { return s.Window(root, time.Second) },
				"WindowCount": func() (live.NodeID, error) { return s.WindowCount(root, 2) },
				"Gather":      func() (live.NodeID, error) { return s.Gather(root) },
				"PartitionBy": func() (live.NodeID, error) { return s.PartitionBy(root, "host", partition.Options{}) },
				"PerPartition": func() (live.NodeID, error) {
					return s.PerPartition(root, func(s *live.Series, p live.NodeID) (live.NodeID, error) { return p, nil })
				},
				"Reduce": func() (live.NodeID, error) {
					return s.Reduce(root, []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}, trigger.Event())
				},
				"Rolling": func() (live.NodeID, error) {
					return s.Rolling(root, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}}}, rolling.Options{})
				},
				"Aggregate": func() (live.NodeID, error) {
					return s.Aggregate(root, sequence.Every(time.Second), []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}, 0)
				},
			}
			for name, build := range builders {
				_, err := build()
				assert.ErrorIs(t, err, live.ErrNotMade, name)
			}

			_, err = live.NewTyped[struct {
				T time.Time `pond:"time"`
				V float64   `pond:"value"`
			}](s)
			assert.ErrorIs(t, err, live.ErrNotMade, "NewTyped")

			// What cannot fail reads an empty series.
			assert.Nil(t, s.Schema())
			assert.Zero(t, s.Len())
			assert.Zero(t, s.HeldBytes())
			assert.Equal(t, live.Stats{}, s.Stats())
			_, ok := s.Latest()
			assert.False(t, ok)
			_, ok = s.LatestNanos()
			assert.False(t, ok)
			for range s.All() {
				t.Fatal("a zero series yields rows")
			}
			assert.NoError(t, s.Close())
		})
	}
}

func TestZeroTypedReturnsErrNotMade(t *testing.T) {
	type row struct {
		T time.Time `pond:"time"`
		V float64   `pond:"value"`
		H string    `pond:"host"`
	}
	for name, p := range map[string]*live.Typed[row]{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			out, err := p.Push(nil, []row{{time.Unix(1, 0), 1, "a"}})
			assert.ErrorIs(t, err, live.ErrNotMade)
			assert.Empty(t, out)
			assert.Nil(t, p.Codec())
		})
	}
	// A Typed made properly still works after the check.
	s, err := live.New("typed", metricsSchema, live.Options{})
	require.NoError(t, err)
	p, err := live.NewTyped[row](s)
	require.NoError(t, err)
	_, err = p.Push(nil, []row{{time.Unix(1, 0), 1, "a"}})
	require.NoError(t, err)
	assert.Equal(t, 1, s.Len())
}
