package live_test

// Bugs found by the lifecycle probes (lifecycle_probe_test.go), one test
// each, failing until fixed.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// TestNewTypedRefusesAnOptionalTimeField: the time column of a schema is
// always required (schema.New refuses an optional one), and the codec
// refuses the option optional on an int64 time field ("the time field
// cannot be optional"). A time.Time field tagged `pond:"time,optional"`
// (the time field because it is the one time.Time) is accepted instead:
// the option is silently dropped, so NewTyped and schema.For take a tag
// that says something the codec does not do. In schema/codec.go the
// check `f.isTime && f.opt` runs before a time.Time field is made the
// time field (`!f.isTime && k == fTime`), and not again after.
func TestNewTypedRefusesAnOptionalTimeField(t *testing.T) {
	type optionalNanos struct {
		At   int64    `pond:"time,time,optional"`
		V    float64  `pond:"v"`
		W    *float64 `pond:"w"`
		Host string   `pond:"host"`
		Up   *bool    `pond:"up"`
	}
	type optionalTime struct {
		At   time.Time `pond:"time,optional"`
		V    float64   `pond:"v"`
		W    *float64  `pond:"w"`
		Host string    `pond:"host"`
		Up   *bool     `pond:"up"`
	}
	s, err := live.New("lcy", lcySchema, live.Options{})
	require.NoError(t, err)
	_, err = live.NewTyped[optionalNanos](s)
	require.ErrorIs(t, err, live.ErrConfig, "an optional int64 time field is refused")
	_, err = live.NewTyped[optionalTime](s)
	require.ErrorIs(t, err, live.ErrConfig, "an optional time.Time time field is refused as the int64 one is")
	require.ErrorIs(t, err, schema.ErrSchema)
}

// TestPerPartitionRemovesTheNodesOfABuildThatPanics: PerPartition "makes
// its building atomic: when build fails, or the chain is not per
// partition, every node build added is removed again". A build function
// that panics (a caller's bug, recovered further up as a server does)
// leaves the nodes it built in the series, which is neither broken
// (unlike a filter's panic, documented to give ErrBroken) nor as it was:
// the next node takes the id after the half-built chain and the diff
// node it built is there and running. PerPartition (live/perpartition.go)
// removes the nodes only on a returned error, not in a deferred cleanup;
// either the removal should run on a panic too, or the doc should say
// what a panic leaves.
func TestPerPartitionRemovesTheNodesOfABuildThatPanics(t *testing.T) {
	s, err := live.New("lcy", lcySchema, live.Options{})
	require.NoError(t, err)
	part, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	var half live.NodeID
	require.Panics(t, func() {
		_, _ = s.PerPartition(part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			half, err = s.Diff(p, "v")
			require.NoError(t, err)
			panic("a bug in the caller's build function")
		})
	})
	_, err = s.Describe(half)
	require.ErrorIs(t, err, live.ErrNode, "the diff node the panicking build added is still there")
	next, err := s.Select(s.Root(), "v")
	require.NoError(t, err)
	require.Equal(t, part+1, next, "the next node takes the id of the first node the panicking build added")
}
