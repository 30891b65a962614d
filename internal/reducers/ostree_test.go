package reducers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// The order tree agrees with a sorted slice after every step of a random
// run of adds and removes (with many repeated values, and removals of
// values it does not hold).
func TestOrderTreeMatchesSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tr orderTree
	var ref []float64
	for step := range 20000 {
		x := float64(rng.IntN(300)) - 150
		if rng.IntN(3) > 0 || len(ref) == 0 {
			tr.Add(x)
			ref = slices.Insert(ref, sort.SearchFloat64s(ref, x), x)
		} else {
			i := sort.SearchFloat64s(ref, x)
			held := i < len(ref) && ref[i] == x
			require.Equal(t, held, tr.Remove(x), "step %d: remove %v", step, x)
			if held {
				ref = slices.Delete(ref, i, i+1)
			}
		}
		require.Equal(t, len(ref), tr.Len(), "step %d", step)
		if step%97 == 0 {
			for k := range ref {
				require.Equal(t, ref[k], tr.Kth(k), "step %d: kth(%d)", step, k)
			}
		}
	}
	tr.Reset()
	assert.Equal(t, 0, tr.Len())
}

// sortedWin gives the same median, percentiles, min, max and difference as
// the reference on either side of its slice/tree switch, with removals in
// any order.
func TestSortedWindowAcrossItsSwitch(t *testing.T) {
	for _, r := range []Spec{{Op: OpMedian, Q: 50}, {Op: OpPercentile}, {Op: OpPercentile, Q: 37.5}, {Op: OpPercentile, Q: 99}, {Op: OpPercentile, Q: 100}, {Op: OpMin}, {Op: OpMax}, {Op: OpDifference}} {
		t.Run(fmt.Sprint(r.Op, r.Q), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			w := NewSet(r)
			type held struct {
				seq uint64
				v   schema.Value
			}
			var in []held
			seq := uint64(0)
			// Grow past the switch, shrink below its lower edge, grow again.
			for _, target := range []int{sortedSliceMax + 300, sortedSliceMin / 2, sortedSliceMax * 3, 0} {
				for len(in) != target {
					if len(in) < target {
						x := schema.NumberValue(float64(rng.IntN(1000)) / 8)
						w.Add(seq, x)
						in = append(in, held{seq, x})
						seq++
					} else {
						i := rng.IntN(len(in))
						w.Remove(in[i].seq, in[i].v)
						in = slices.Delete(in, i, i+1)
					}
					if rng.IntN(50) == 0 || len(in) == target {
						xs := make([]float64, len(in))
						for k, h := range in {
							xs[k], _ = h.v.Num()
						}
						want := refSorted(r, xs)
						col := table.NewCol(schema.Number)
						w.Append(col)
						require.Equal(t, want.Any(), table.Value(col, 0).Any(), "holding %d", len(in))
					}
				}
			}
		})
	}
}

// A window that stays within the size it once reached does not allocate,
// in tree form too.
func TestSortedWindowSteadyAllocs(t *testing.T) {
	w := NewSet(Spec{Op: OpMedian, Q: 50})
	const n = 4 * sortedSliceMax
	for i := range n {
		w.Add(uint64(i), schema.NumberValue(float64(i%977)))
	}
	dst := table.NewCol(schema.Number)
	next := uint64(n)
	got := allocs.Count(50, func() {
		for range 100 {
			old := next - n
			w.Remove(old, schema.NumberValue(float64(old%977)))
			w.Add(next, schema.NumberValue(float64(next%977)))
			next++
		}
		dst.Reset()
		w.Append(dst)
	})
	assert.Zero(t, got)
}

// refSorted is the order-statistic reducers written the plain way: sort
// the values and read them (min, max, their difference, or the linear
// percentile), missing for no values.
func refSorted(r Spec, xs []float64) schema.Value {
	if len(xs) == 0 {
		return schema.Value{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	switch r.Op {
	case OpMin:
		return schema.NumberValue(s[0])
	case OpMax:
		return schema.NumberValue(s[len(s)-1])
	case OpDifference:
		return schema.NumberValue(s[len(s)-1] - s[0])
	}
	pos := r.Q / 100 * float64(len(s)-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	return schema.NumberValue(s[lo] + (s[hi]-s[lo])*(pos-float64(lo)))
}
