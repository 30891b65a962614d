package aligned

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/reduce"
)

func TestMu43EqualTimesKeepArrivalOrderAcrossAChangeOfLateness(t *testing.T) {
	// Rows at one time reach pane [0, 500ms) three ways: an open-step
	// record written as the pane (lateness 0), an inbox added to it (a
	// lateness of 1ms), and a record merged into the pane it now holds
	// (lateness 0 again). First is the earliest arrival of the time,
	// last the latest, whichever way each came.
	cases := []struct {
		name      string
		ways      [][]float64 // the values pushed at 10ms under lateness 0, 1ms, 0, …
		first, at float64
	}{
		{name: "record, then inbox, then record merged", ways: [][]float64{{1, 2}, {3}, {4}}, first: 1, at: 4},
		{name: "record, then inbox", ways: [][]float64{{1}, {3, 5}, {}}, first: 1, at: 5},
		{name: "inbox only, then record merged", ways: [][]float64{{}, {7}, {8, 9}}, first: 7, at: 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, out := numberGroup(t, reduce.First, reduce.Last)
			require.True(t, g.stepped)
			require.NoError(t, g.p.SetLateness(ms))
			for i, xs := range c.ways {
				g.SetLag(int64(i%2) * ms)
				for _, x := range xs {
					push(g, out, []int64{10 * ms}, []float64{x})
				}
			}
			g.SetLag(0)
			push(g, out, []int64{600 * ms}, []float64{100})
			first, _ := out.Numbers("a")
			last, _ := out.Numbers("b")
			require.Len(t, first, 1, "the boundary at 500ms closes")
			assert.Equal(t, c.first, first[0], "first")
			assert.Equal(t, c.at, last[0], "last")
		})
	}
}
