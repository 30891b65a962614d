package live_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// A stdev is exact (to 1e-12) over values whose squares are normal
// float64s, from 2^-511 in magnitude up, in an aligned window, a default
// window and a reduce alike: package reduce's "Numerics" says so, and that
// smaller values' squares leave float64's normal range.
func TestStdevOfSmallValuesDownToTheDocumentedLimit(t *testing.T) {
	tiny := math.Ldexp(1, -511)
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1e-150, 3e-150}, 1e-150},
		{[]float64{tiny, 3 * tiny}, tiny},
		{[]float64{-2 * tiny, 0, 2 * tiny}, math.Sqrt(8.0/3) * tiny},
		{[]float64{1e-120, 2e-120, 3e-120}, math.Sqrt(2.0/3) * 1e-120},
	}
	sd := []reduce.Agg{{Out: "sd", From: "x", Using: reduce.Stdev}}
	for _, c := range cases {
		var rows []schema.Row
		for i, x := range c.xs {
			rows = append(rows, schema.Row{schema.MillisValue(int64(100 + i)), schema.NumberValue(x), schema.Value{}, schema.Value{}, schema.Value{}})
		}
		// A row past the second closes the aligned boundary at 1 s.
		rows = append(rows, schema.Row{schema.MillisValue(1500), schema.Value{}, schema.Value{}, schema.Value{}, schema.Value{}})
		for _, mode := range []string{"aligned", "default", "reduce"} {
			s, err := live.New("t", aleSchema, live.Options{})
			require.NoError(t, err)
			var n live.NodeID
			switch mode {
			case "reduce":
				n, err = s.Reduce(s.Root(), sd, trigger.Trigger{})
			default:
				n, err = s.Rolling(s.Root(), []rolling.Window{{Span: 2 * time.Second, Aggs: sd}},
					rolling.Options{Trigger: trigger.Every(time.Second), Aligned: mode == "aligned"})
			}
			require.NoError(t, err)
			require.NoError(t, s.Watch(n))
			// Either window at 1 s holds the rows before it (the default one,
			// at the row at 1.5 s, those of [−0.5 s, 1.5 s]); the
			// reduce reads its value after the rows.
			out, err := s.PushRows(nil, rows[:len(rows)-1]...)
			require.NoError(t, err)
			out, err = s.PushRows(out[:0], rows[len(rows)-1])
			require.NoError(t, err)
			var got float64
			if mode == "reduce" {
				v, err := s.Value(n)
				require.NoError(t, err)
				xs, _ := v.Numbers("sd")
				require.Len(t, xs, 1)
				got = xs[0]
				// The reduce holds the closing row too: a missing cell,
				// which the stdev skips.
			} else {
				tab, ok := live.Find(out, n, live.Event)
				require.True(t, ok, mode)
				xs, _ := tab.Numbers("sd")
				require.NotEmpty(t, xs, mode)
				got = xs[0]
			}
			assert.InEpsilon(t, c.want, got, 1e-12, "%s stdev of %v", mode, c.xs)
			require.NoError(t, s.Close())
		}
	}
}
