package aligned

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// hostKeys names partition p "h<p>".
type hostKeys struct{}

func (hostKeys) KeyValue(p int32) schema.Value { return schema.StringValue(fmt.Sprintf("h%d", p)) }

// TestAClosingIsSplitOnlyAfterFewRowsAPartition: with workers, a closing
// is split over them only when fewer than closeSplitRows rows a
// partition came since the last one; the rows are one worker's either
// way.
func TestAClosingIsSplitOnlyAfterFewRowsAPartition(t *testing.T) {
	defer workers.SetEveryPart(workers.SetEveryPart(true))
	p, err := NewPlan(Spec{Step: 500 * ms, Kinds: []schema.Kind{schema.Number}, Windows: []Window{{Span: 1000 * ms, Aggs: []Agg{
		{Slot: 1, Using: reduce.Sum}, {Slot: 1, Using: reduce.Count},
	}}}})
	require.NoError(t, err)
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "sum", Kind: schema.Number, Optional: true}, schema.Column{Name: "n", Kind: schema.Number, Optional: true})
	const parts = 4
	// Each push is one row a partition, 25 ms or 100 ms apart: 20 or 5
	// rows a partition between two closings (500 ms apart), each closing
	// made by the first row of a push.
	for _, c := range []struct {
		every int64
		split bool
	}{{25 * ms, false}, {100 * ms, true}} {
		one, two := p.NewGroup(hostKeys{}, 2, 0), p.NewGroup(hostKeys{}, 2, 0)
		pool := workers.New(2)
		defer workers.SetGateForce(workers.SetGateForce(1))
		two.SetWorkers(pool)
		splits, closings := 0, 0
		for k := range int64(400) {
			ts := make([]int64, parts)
			enc := make([]uint64, parts)
			part := make([]int32, parts)
			for i := range parts {
				ts[i] = k * c.every
				enc[i] = math.Float64bits(float64(k*parts) + float64(i))
				part[i] = int32(i)
			}
			want, got := schema.NewTable(sch), schema.NewTable(sch)
			split := two.splitClose()
			one.Push(&Rows{Times: ts, Enc: [][]uint64{enc}}, part, want)
			two.Push(&Rows{Times: ts, Enc: [][]uint64{enc}}, part, got)
			require.Equal(t, want.Len(), got.Len(), "every %d ms, push %d", c.every/ms, k)
			for r := range want.Len() {
				for col := range sch.Len() {
					require.True(t, want.Value(r, col).Equal(got.Value(r, col)), "every %d ms, push %d: row %d col %d", c.every/ms, k, r, col)
				}
			}
			if got.Len() > 0 {
				closings++
				if split {
					splits++
				}
			}
		}
		pool.Close()
		require.Greater(t, closings, 10, "every %d ms: closings", c.every/ms)
		if c.split {
			require.Equal(t, closings, splits, "every %d ms: closings split", c.every/ms)
		} else {
			require.Zero(t, splits, "every %d ms: closings split", c.every/ms)
		}
	}
}
