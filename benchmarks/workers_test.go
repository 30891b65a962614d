package benchmarks

import (
	"fmt"
	"math"
	"testing"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireSameOutputs fails unless two pushes' outputs are the same, output
// for output and cell for cell (numbers compared by their bits).
func requireSameOutputs(t *testing.T, want, got []live.Output, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), "%s: outputs", msg)
	for i := range want {
		require.Equal(t, want[i].Node, got[i].Node, "%s: output %d node", msg, i)
		require.Equal(t, want[i].Kind, got[i].Kind, "%s: output %d kind", msg, i)
		w, g := want[i].Events, got[i].Events
		require.Equal(t, w.Len(), g.Len(), "%s: output %d rows", msg, i)
		for r := range w.Len() {
			for j := range w.Schema().Len() {
				if a, b := w.Value(r, j), g.Value(r, j); !sameBits(a, b) {
					require.Failf(t, "cells differ", "%s: output %d row %d column %s: %v, want %v",
						msg, i, r, w.Schema().Column(j).Name, b, a)
				}
			}
		}
	}
}

// sameBits reports whether two values are the same, numbers (also inside
// arrays) compared by their bits.
func sameBits(a, b schema.Value) bool {
	if a.Kind() != b.Kind() || a.IsMissing() != b.IsMissing() {
		return false
	}
	switch a.Kind() {
	case schema.Number:
		x, _ := a.Num()
		y, _ := b.Num()
		return math.Float64bits(x) == math.Float64bits(y)
	case schema.Array:
		xs, _ := a.Array()
		ys, _ := b.Array()
		if len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if !sameBits(xs[i], ys[i]) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

// TestSeedWorkersGiveOneWorkersRows pushes the seed stream into a series
// with one worker and twins with 2 and 4, in default and aligned mode,
// and compares every push's outputs bit for bit.
//
// Between ticks, the rows buffered go to a worker to take once 512 have
// come and ticks are far enough apart (the default), or after every push
// (handoff=1); aligned closings are split over the workers when they come
// after few rows a partition (the default), or all (with handoff=1).
func TestSeedWorkersGiveOneWorkersRows(t *testing.T) {
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	// Every other tick and closing split, the others alone: whichever the
	// workers' gate chooses, and its switches, give the same rows.
	defer workers.SetGateForce(workers.SetGateForce(2))
	for _, handOff := range []int{512, 1} {
		old := engine.SetHandOffRows(handOff)
		split := aligned.SetCloseSplitRows(1 << 30)
		if handOff != 1 {
			aligned.SetCloseSplitRows(split)
		}
		testSeedWorkersGiveOneWorkersRows(t, handOff)
		engine.SetHandOffRows(old)
		aligned.SetCloseSplitRows(split)
	}
}

func testSeedWorkersGiveOneWorkersRows(t *testing.T, handOff int) {
	for _, aligned := range []bool{false, true} {
		for _, c := range []struct{ P, N, Secs int }{{37, 100, 8}, {200, 10, 70}, {5, 1000, 3}, {1000, 10, 3}} {
			t.Run(fmt.Sprintf("handoff=%d/aligned=%v/P=%d/N=%d", handOff, aligned, c.P, c.N), func(t *testing.T) {
				st := NewSeedStream(c.P, c.N, c.Secs)
				one, err := NewSeedPipelineWith(aligned, 1)
				require.NoError(t, err)
				var twins []*SeedPipeline
				for _, w := range []int{2, 4} {
					p, err := NewSeedPipelineWith(aligned, w)
					require.NoError(t, err)
					defer p.Series.Close()
					twins = append(twins, p)
				}
				var want, got []live.Output
				rows := 0
				for k, b := range st.Batches {
					want, err = one.Series.PushMany(want[:0], b)
					require.NoError(t, err)
					for _, o := range want {
						rows += o.Events.Len()
					}
					for i, p := range twins {
						got, err = p.Series.PushMany(got[:0], b)
						require.NoError(t, err)
						requireSameOutputs(t, want, got, fmt.Sprintf("push %d, %d workers", k, 2<<i))
					}
				}
				assert.Positive(t, rows, "the stream emitted rows")
			})
		}
	}
}
