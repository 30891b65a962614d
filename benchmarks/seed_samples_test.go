package benchmarks

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

// TestSeedSamplesAreKeptAsNumbers: in both modes, on one worker and on
// two, every output table of the seed's hosts keeps its cpu_samples as
// float64s (8 bytes a sample, nothing for the table's reset to clear),
// not as values; it fails if an emission writes a sample as a value (the
// column then keeps its elements as values).
func TestSeedSamplesAreKeptAsNumbers(t *testing.T) {
	st := NewSeedStream(20, 100, 3)
	for _, aligned := range []bool{false, true} {
		for _, workers := range []int{1, 2} {
			name := fmt.Sprintf("aligned=%v/workers=%d", aligned, workers)
			p, err := NewSeedPipelineWith(aligned, workers)
			require.NoError(t, err)
			var out []live.Output
			tables, samples := 0, 0
			for _, b := range st.Batches {
				out, err = p.Series.PushMany(out[:0], b)
				require.NoError(t, err, name)
				for _, o := range out {
					if o.Node != p.Hosts || o.Events.Len() == 0 {
						continue
					}
					j, ok := o.Events.Schema().Index("cpu_samples")
					require.True(t, ok)
					c := table.Column(o.Events, j)
					require.False(t, c.Wide(), "%s: samples kept as values", name)
					for i := range o.Events.Len() {
						xs, _ := c.Nums(i)
						samples += len(xs)
					}
					tables++
				}
			}
			p.Series.Close()
			assert.Greater(t, tables, 10, name)
			assert.Greater(t, samples, 20*100*2, name)
		}
	}
}

// TestSeedSamplesReadAsValues: the seed's samples, kept as numbers, read
// through Table.Value and the JSON encoder as the values they are.
func TestSeedSamplesReadAsValues(t *testing.T) {
	st := NewSeedStream(5, 100, 2)
	p, err := NewSeedPipeline()
	require.NoError(t, err)
	defer p.Series.Close()
	var out []live.Output
	rows := 0
	for _, b := range st.Batches {
		out, err = p.Series.PushMany(out[:0], b)
		require.NoError(t, err)
		for _, o := range out {
			if o.Node != p.Hosts {
				continue
			}
			tab := o.Events
			ref, err := tab.Schema().Ref("cpu_samples", schema.Array)
			require.NoError(t, err)
			j, _ := tab.Schema().Index("cpu_samples")
			for i := range tab.Len() {
				xs, ok := tab.AppendNums(nil, ref, i)
				v := tab.Value(i, j)
				elems, isArr := v.Array()
				require.Equal(t, ok, isArr)
				require.Len(t, elems, len(xs))
				want := make([]schema.Value, len(xs))
				for k, x := range xs {
					want[k] = schema.NumberValue(x)
				}
				assert.True(t, schema.ArrayValue(want...).Equal(v))
				rows++
			}
		}
	}
	assert.Greater(t, rows, 20)
}
