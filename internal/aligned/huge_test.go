package aligned

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// hugeGroup builds a group over one number slot (required or not) with
// a sum, an avg and a stdev on a window of span, on a 100ms clock, taking
// its rows the way named: "records" (open-step records, the default),
// "inboxes" or "panes" (each row straight into its panes).
func hugeGroup(t *testing.T, span int64, required bool, way string) (*Group, *schema.Table) {
	t.Helper()
	aggs := []Agg{{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Avg}, {Slot: 1, Using: reduce.Stdev}}
	p, err := NewPlan(Spec{Step: 100 * ms, Kinds: []schema.Kind{schema.Number}, Required: []bool{required},
		Windows: []Window{{Span: span, Aggs: aggs}}})
	require.NoError(t, err)
	g := p.NewGroup(nil, 1, 0)
	require.True(t, g.stepped)
	switch way {
	case "inboxes":
		g.stepped = false
	case "panes":
		g.stepped, g.direct = false, true
	}
	return g, outTable([]Window{{Aggs: aggs}})
}

// numCells returns column c of out as numbers, NaN for a missing cell.
func numCells(out *schema.Table, c int) []float64 {
	col := table.Column(out, c)
	var xs []float64
	for i := range out.Len() {
		x, ok := col.Num(i)
		if !ok {
			x = math.NaN()
		}
		xs = append(xs, x)
	}
	return xs
}

// sameCells asserts that got holds want, NaN (missing) where want has it.
func sameCells(t *testing.T, want, got []float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i := range want {
		if math.IsNaN(want[i]) {
			assert.True(t, math.IsNaN(got[i]), "%s: row %d is %g, want missing", msg, i, got[i])
			continue
		}
		assert.InDelta(t, want[i], got[i], 1e-15*math.Abs(want[i]), "%s: row %d", msg, i)
	}
}

var hugeWays = []string{"records", "inboxes", "panes"}

func TestAWindowsSumIsMissingOnlyWhileItsValuesSumBeyondTheRange(t *testing.T) {
	// A window of two 100ms panes over rows of one a pane: it holds
	// 1.7e308; 1.7e308 twice (beyond the range); 1.7e308 and −1.7e308;
	// −1.7e308 and 1; 1 and 1. The running sum that passed beyond the
	// range comes back once the pane that carried it leaves, and the
	// mean of values within the range is always within it.
	nan := math.NaN()
	wantSum := []float64{1.7e308, nan, 0, -1.7e308, 2}
	wantAvg := []float64{1.7e308, 1.7e308, 0, -8.5e307, 1}
	wantSd := []float64{nan, nan, nan, nan, 0} // a huge value's square is not summed
	for _, way := range hugeWays {
		for _, required := range []bool{true, false} {
			for _, batched := range []bool{false, true} {
				g, out := hugeGroup(t, 200*ms, required, way)
				ts := []int64{10 * ms, 110 * ms, 210 * ms, 310 * ms, 410 * ms, 510 * ms}
				xs := []float64{1.7e308, 1.7e308, -1.7e308, 1, 1, 0}
				if batched {
					push(g, out, ts, xs)
				} else {
					for i := range ts {
						push(g, out, ts[i:i+1], xs[i:i+1])
					}
				}
				msg := way
				if required {
					msg += ", required"
				}
				if batched {
					msg += ", one batch"
				}
				sameCells(t, wantSum, numCells(out, 1), msg+": sum")
				sameCells(t, wantAvg, numCells(out, 2), msg+": avg")
				sameCells(t, wantSd, numCells(out, 3), msg+": stdev")
			}
		}
	}
}

func TestAPaneWhoseRowsPassBeyondTheRangeOnTheWayGivesTheirSum(t *testing.T) {
	// One pane holds 1.7e308, 1.7e308 and −1.7e308: its running total
	// passes beyond the range, its sum is 1.7e308 and its mean 5.67e307,
	// read from the open step's record (a window of one pane) or from the
	// pane (a window of two), however the rows come.
	for _, way := range hugeWays {
		for _, span := range []int64{100 * ms, 200 * ms} {
			for _, batched := range []bool{false, true} {
				g, out := hugeGroup(t, span, false, way)
				ts := []int64{10 * ms, 20 * ms, 30 * ms, 110 * ms}
				xs := []float64{1.7e308, 1.7e308, -1.7e308, 4}
				if batched {
					push(g, out, ts, xs)
				} else {
					for i := range ts {
						push(g, out, ts[i:i+1], xs[i:i+1])
					}
				}
				require.Equal(t, 1, out.Len(), way)
				assert.Equal(t, 1.7e308, numCells(out, 1)[0], "%s, span %d: sum", way, span)
				assert.InEpsilon(t, 1.7e308/3, numCells(out, 2)[0], 1e-15, "%s, span %d: avg", way, span)
				assert.True(t, math.IsNaN(numCells(out, 3)[0]), "%s, span %d: stdev", way, span)
			}
		}
	}
}

func TestHugeValuesInBothPairedColumnsAreSummedApart(t *testing.T) {
	// The seed's shape, whose rows are counted and folded in one pass
	// (with the kernel, where the CPU has one): huge values of cpu (its
	// squares kept) and of requests (its sums beside them) leave the
	// pass to the Go code, their sums to the partition's lane. Over one
	// step, cpu holds 1.7e308, 1.7e308, −1.7e308 and 3 and requests
	// −1.7e308, −1.7e308, 1.7e308 and 1; after it, ordinary rows.
	defer func(k bool) { pairKernel = k }(pairKernel)
	for _, kernel := range []bool{false, pairKernel} {
		pairKernel = kernel
		g, out := seedGroup(t)
		enc := func(xs ...float64) []uint64 {
			var e []uint64
			for _, x := range xs {
				e = append(e, math.Float64bits(x))
			}
			return e
		}
		g.Push(&Rows{Times: []int64{10 * ms, 20 * ms, 30 * ms, 40 * ms}, Enc: [][]uint64{
			enc(1.7e308, 1.7e308, -1.7e308, 3), enc(-1.7e308, -1.7e308, 1.7e308, 1)}}, []int32{0, 0, 0, 0}, out)
		g.Push(&Rows{Times: []int64{210 * ms, 410 * ms}, Enc: [][]uint64{enc(5, 6), enc(7, 8)}}, []int32{0, 0}, out)
		require.Equal(t, 2, out.Len())
		// The 1m window at 200 ms: cpu's avg, stdev and n, requests'
		// avg, sum and n; the 200ms window's samples, min, max, avg and
		// stdev.
		row := func(i int) []float64 {
			var r []float64
			for c := 1; c <= 11; c++ {
				if c == 7 {
					continue // the samples
				}
				r = append(r, numCells(out, c)[i])
			}
			return r
		}
		nan := math.NaN()
		sameCells(t, []float64{(1.7e308 + 3) / 4, nan, 4, -0.25 * 1.7e308, -1.7e308, 4, -1.7e308, 1.7e308, (1.7e308 + 3) / 4, nan}, row(0),
			"the step of huge values")
		sameCells(t, []float64{(1.7e308 + 8) / 5, nan, 5, (-1.7e308 + 8) / 5, -1.7e308 + 8, 5, 5, 5, 5, 0}, row(1),
			"the step after it")
	}
}

func TestTheMeanOfHugeValuesThatCancelIsTheirSumOverTheirCount(t *testing.T) {
	// One pane holds the value just below 2^960 (summed as an ordinary
	// one), −2^960, 3, −MaxFloat64 and MaxFloat64: the huge values'
	// sum, −MaxFloat64 + MaxFloat64 after −2^960, is 0 with its rounding
	// error (2^832 in units of 2^128) in the low word, and the pane's
	// Σx, exactly −2^907 + 3, is the ordinary one added to it. Its sum
	// is −2^907 and its mean −2^907/5, read from the open step's record
	// (a window of one pane) or from the panes (a window of two),
	// however the rows come; dividing the sum's words as they were
	// gave −2^907/4.
	xs := []float64{math.Nextafter(0x1p960, 0), -0x1p960, 3, -math.MaxFloat64, math.MaxFloat64}
	for _, way := range hugeWays {
		for _, span := range []int64{100 * ms, 200 * ms} {
			for _, batched := range []bool{false, true} {
				g, out := hugeGroup(t, span, false, way)
				ts := []int64{10 * ms, 20 * ms, 30 * ms, 40 * ms, 50 * ms, 110 * ms}
				xs := append(xs[:len(xs):len(xs)], 0)
				if batched {
					push(g, out, ts, xs)
				} else {
					for i := range ts {
						push(g, out, ts[i:i+1], xs[i:i+1])
					}
				}
				msg := fmt.Sprintf("%s, span %d, batched %v", way, span/ms, batched)
				require.Equal(t, 1, out.Len(), msg)
				assert.Equal(t, -0x1p907, numCells(out, 1)[0], "%s: sum", msg)
				assert.InEpsilon(t, -0x1p907/5, numCells(out, 2)[0], 1e-15, "%s: avg", msg)
			}
		}
	}
}
