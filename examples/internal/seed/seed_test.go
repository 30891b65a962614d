package seed

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestOutputColsResolveEveryColumn builds the per-host rolling and checks
// that every column resolves to a distinct column of its output, and that
// a schema without them is an error naming the package.
func TestOutputColsResolveEveryColumn(t *testing.T) {
	s, err := live.New("metrics", Schema, live.Options{})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	r, err := s.Rolling(by, Windows(), rolling.Options{Trigger: trigger.Clock(sequence.Every(TickEvery))})
	require.NoError(t, err)
	out, err := s.NodeSchema(r)
	require.NoError(t, err)
	c, err := OutputCols(out)
	require.NoError(t, err)
	refs := []schema.Ref{c.Host, c.CPUAvg, c.CPUSd, c.CPUN, c.ReqAvg, c.ReqSum, c.ReqN,
		c.Samples, c.CPUMin, c.CPUMax, c.CurAvg, c.CurSd}
	seen := map[schema.Ref]bool{}
	for _, ref := range refs {
		require.False(t, seen[ref], "a column resolved twice")
		seen[ref] = true
	}
	_, err = OutputCols(Schema)
	require.ErrorContains(t, err, "seed: ")
}

// TestTheConstantsAreTheWindows: the longest window is LongestWindow and
// the short one TickEvery, which the examples' replays and clocks use.
func TestTheConstantsAreTheWindows(t *testing.T) {
	ws := Windows()
	longest := ws[0].Span
	for _, w := range ws {
		longest = max(longest, w.Span)
	}
	require.Equal(t, LongestWindow, longest)
	require.Equal(t, TickEvery, ws[len(ws)-1].Span)
}
