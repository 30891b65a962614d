package partition_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

func mu42Series(t *testing.T) *live.Series {
	t.Helper()
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "n", Kind: schema.Number},
		schema.Column{Name: "ok", Kind: schema.Bool},
		schema.Column{Name: "arr", Kind: schema.Array},
	)
	s, err := live.New("mu42", sch, live.Options{})
	require.NoError(t, err)
	return s
}

// Options the partition doc refuses (negative counts and durations, MaxAge
// or IdleTTL past sequence.MaxDuration, groups not of the column's kind,
// non-finite, repeated, or more than MaxPartitions) and an array column
// are a *live.ConfigError whose Field names the option (or "column"),
// wrapping partition.ErrOptions.
func TestMu42BadOptionsAreRefusedNamingTheOption(t *testing.T) {
	over := sequence.MaxDuration + 1
	for _, tc := range []struct {
		name   string
		column string
		opts   partition.Options
		field  string
	}{
		{"array column", "arr", partition.Options{}, "column"},
		{"negative MaxEvents", "host", partition.Options{MaxEvents: -1}, "MaxEvents"},
		{"negative MaxAge", "host", partition.Options{MaxAge: -time.Nanosecond}, "MaxAge"},
		{"negative IdleTTL", "host", partition.Options{IdleTTL: -time.Nanosecond}, "IdleTTL"},
		{"negative MaxPartitions", "host", partition.Options{MaxPartitions: -1}, "MaxPartitions"},
		{"MaxAge too long", "host", partition.Options{MaxAge: over}, "MaxAge"},
		{"IdleTTL too long", "host", partition.Options{IdleTTL: over}, "IdleTTL"},
		{"more groups than MaxPartitions", "host", partition.Options{Groups: partition.Strings("a", "b"), MaxPartitions: 1}, "Groups"},
		{"group of another kind", "host", partition.Options{Groups: []schema.Value{schema.NumberValue(1)}}, "Groups"},
		{"NaN group", "n", partition.Options{Groups: []schema.Value{schema.NumberValue(math.NaN())}}, "Groups"},
		{"infinite group", "n", partition.Options{Groups: []schema.Value{schema.NumberValue(math.Inf(-1))}}, "Groups"},
		{"repeated group", "host", partition.Options{Groups: partition.Strings("a", "b", "a")}, "Groups"},
		{"repeated boolean group", "ok", partition.Options{Groups: []schema.Value{schema.BoolValue(true), schema.BoolValue(true)}}, "Groups"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mu42Series(t)
			_, err := s.PartitionBy(s.Root(), tc.column, tc.opts)
			require.Error(t, err)
			assert.ErrorIs(t, err, partition.ErrOptions)
			var ce *live.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, tc.field, ce.Field, "%v", err)
		})
	}
}

// The bounds themselves are accepted: MaxAge and IdleTTL of exactly
// sequence.MaxDuration, as many groups as MaxPartitions, and a missing
// value among groups of any kind (the partition of missing keys).
func TestMu42OptionsAtTheirBoundsAreAccepted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		column string
		opts   partition.Options
	}{
		{"MaxAge of MaxDuration", "host", partition.Options{MaxAge: sequence.MaxDuration}},
		{"IdleTTL of MaxDuration", "host", partition.Options{IdleTTL: sequence.MaxDuration}},
		{"groups as many as MaxPartitions", "host", partition.Options{Groups: partition.Strings("a", "b"), MaxPartitions: 2}},
		{"missing group of a number column", "n", partition.Options{Groups: []schema.Value{{}, schema.NumberValue(0)}}},
		{"boolean groups", "ok", partition.Options{Groups: []schema.Value{schema.BoolValue(true), schema.BoolValue(false)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mu42Series(t)
			_, err := s.PartitionBy(s.Root(), tc.column, tc.opts)
			assert.NoError(t, err)
		})
	}
}
