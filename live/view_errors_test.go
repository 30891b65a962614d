package live_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
)

// TestAViewOfAnEmptyColumnNameSaysSo: a view given an empty column name
// says the name is empty, where it named no column at all before.
func TestAViewOfAnEmptyColumnNameSaysSo(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.Cumulative(s.Root(), live.Running{Column: "", Using: reduce.Sum})
	require.ErrorIs(t, err, live.ErrConfig)
	require.EqualError(t, err, "live: cumulative: column: the name is empty (columns: [value host])")
	_, err = s.Select(s.Root(), "value", "")
	require.EqualError(t, err, "live: select: column: the name is empty (columns: [value host])")
}
