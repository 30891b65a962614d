package aligned

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// pushParts pushes rows of one number slot, row i in partition parts[i].
func pushParts(g *Group, out *schema.Table, parts []int32, ts []int64, xs []float64) {
	enc := make([]uint64, len(xs))
	for i, x := range xs {
		enc[i] = math.Float64bits(x)
	}
	g.Push(&Rows{Times: ts, Enc: [][]uint64{enc}}, parts, out)
}

// inboxGroup is numberGroup taking rows into inboxes: a lateness of
// 1ms, so that a boundary closes at the first row 1ms past it.
func inboxGroup(t *testing.T, reds ...reduce.Reducer) (*Group, *schema.Table) {
	t.Helper()
	g, out := numberGroup(t, reds...)
	require.NoError(t, g.p.SetLateness(ms))
	g.SetLag(ms)
	require.False(t, g.stepped)
	return g, out
}

func TestInboxesKeepWaitingRowsWhenPartitionsArrive(t *testing.T) {
	// Partition 0's rows wait while partitions up to 200 arrive (the
	// inboxes' block grows), then the boundary at 500 closes: each
	// partition's row holds its own rows.
	g, out := inboxGroup(t, reduce.Sum, reduce.Count)
	pushParts(g, out, []int32{0, 0}, []int64{0, 10 * ms}, []float64{1, 2})
	for q := int32(1); q <= 200; q++ {
		pushParts(g, out, []int32{q}, []int64{20 * ms}, []float64{float64(q)})
	}
	pushParts(g, out, []int32{0}, []int64{501 * ms}, []float64{0})
	require.Equal(t, 201, out.Len())
	sum, _ := out.Numbers("a")
	n, _ := out.Numbers("b")
	assert.Equal(t, 3.0, sum[0])
	assert.Equal(t, 2.0, n[0])
	assert.Equal(t, 200.0, sum[200])
	assert.Equal(t, 1.0, n[200])
}

func TestAFullInboxIsAddedBeforeTheClose(t *testing.T) {
	// More rows than an inbox holds before one boundary: the inbox is
	// added to the panes when full and takes the rest.
	g, out := inboxGroup(t, reduce.Sum, reduce.Count)
	var ts []int64
	var xs []float64
	for i := range 3*inboxRows + 5 {
		ts = append(ts, int64(i+1)*ms)
		xs = append(xs, 1)
	}
	push(g, out, ts, xs)
	assert.Equal(t, (3*inboxRows+5)%inboxRows, int(g.in.n[0]), "the rows after the last full inbox wait")
	push(g, out, []int64{501 * ms}, []float64{1})
	require.Equal(t, 1, out.Len())
	sum, _ := out.Numbers("a")
	assert.Equal(t, float64(3*inboxRows+5), sum[0])
}

func TestADormantPartitionsInboxIsShutAndReopens(t *testing.T) {
	// Partition 0's windows empty out (1s windows, 500ms clock): it goes
	// dormant, its inbox shut; its next row wakes it with an open inbox.
	g, out := inboxGroup(t, reduce.Sum)
	pushParts(g, out, []int32{0, 1}, []int64{0, 0}, []float64{1, 2})
	pushParts(g, out, []int32{1}, []int64{2001 * ms}, []float64{3})
	assert.Equal(t, uint8(inboxShut), g.in.n[0])
	assert.False(t, g.parts[0].live)
	pushParts(g, out, []int32{0}, []int64{2100 * ms}, []float64{4})
	assert.Equal(t, uint8(1), g.in.n[0])
	assert.True(t, g.parts[0].live)
	before := out.Len()
	pushParts(g, out, []int32{1}, []int64{2501 * ms}, []float64{5})
	sum, _ := out.Numbers("a")
	assert.Equal(t, []float64{4, 3}, sum[before:], "both partitions emit at 2500, in first-seen order, each its own rows")
}
