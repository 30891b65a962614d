package live

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

var propSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "value", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
)

// ids returns the identities of the rows a node holds.
func heldIDs(t *testing.T, s *Series, id NodeID) []uint64 {
	t.Helper()
	f, ok := s.holdings(id)
	require.True(t, ok, "node %d holds no rows", id)
	require.Len(t, f.ids, f.len())
	return slices.Clone(f.ids)
}

func subset(a, b []uint64) bool {
	set := map[uint64]bool{}
	for _, x := range b {
		set[x] = true
	}
	for _, x := range a {
		if !set[x] {
			return false
		}
	}
	return true
}

// reduction reads a reduce node's current value of output k.
func reduction(n *reduceNode, k int) float64 {
	c := table.NewCol(schema.Number)
	n.states[k].Append(c)
	return c.Numbers()[0]
}

// TestPropertyViewsNeverHoldEvictedRows pushes random batches into series
// with random ordering and retention, through chains of views, and checks
// after every push that no view holds a row its source has let go, that
// a filter holds exactly the source's rows it passes, that windows keep
// their bounds, and that a reduce reduces exactly what its source holds.
func TestPropertyViewsNeverHoldEvictedRows(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		opts := Options{MaxEvents: rng.IntN(12), MaxAge: time.Duration(rng.IntN(6)) * time.Second}
		opts.Ordering = Ordering(rng.IntN(3)) // strict, drop or reorder
		s, err := New("prop", propSchema, opts)
		require.NoError(t, err)
		keep := func(row schema.Row) bool {
			x, ok := row[1].Num()
			return !ok || int(x)%3 != 0
		}
		filt, err := s.Filter(s.Root(), keep)
		require.NoError(t, err)
		diff, err := s.Diff(filt, "value")
		require.NoError(t, err)
		var win NodeID
		span := int64(rng.IntN(4)+1) * int64(time.Second)
		count := rng.IntN(6) + 1
		byCount := rng.IntN(2) == 0
		if byCount {
			win, err = s.WindowCount(diff, count)
		} else {
			win, err = s.Window(diff, time.Duration(span))
		}
		require.NoError(t, err)
		sel, err := s.Select(win, "value")
		require.NoError(t, err)
		red, err := s.Reduce(sel, []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}, {Out: "min", From: "value", Using: reduce.Min}}, trigger.Event())
		require.NoError(t, err)
		byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: rng.IntN(4), IdleTTL: time.Duration(rng.IntN(2)*3) * time.Second})
		require.NoError(t, err)
		smp, err := s.Sample(byHost, rng.IntN(3)+1)
		require.NoError(t, err)
		fill, err := s.Fill(smp, FillOptions{Strategy: FillHold})
		require.NoError(t, err)
		pwin, err := s.WindowCount(fill, count)
		require.NoError(t, err)
		gat, err := s.Gather(pwin)
		require.NoError(t, err)
		gred, err := s.Reduce(gat, []reduce.Agg{{Out: "n", From: "host", Using: reduce.Count}}, trigger.Event())
		require.NoError(t, err)

		latest := int64(0)
		hosts := []string{"a", "b", "c", "d", "e"}
		for push := range 30 {
			b := schema.NewBatch(propSchema, 8)
			for range rng.IntN(8) {
				t0 := latest + int64(rng.IntN(1500))*int64(time.Millisecond)
				if opts.Ordering != Strict && rng.IntN(4) == 0 {
					t0 = latest - int64(rng.IntN(3000))*int64(time.Millisecond)
				}
				latest = max(latest, t0)
				b.Time = append(b.Time, t0)
				x := float64(rng.IntN(10))
				miss := rng.IntN(6) == 0
				if miss {
					x = math.NaN()
				}
				b.Cols[0].Num = append(b.Cols[0].Num, x)
				b.Cols[0].Missing = append(b.Cols[0].Missing, miss)
				b.Cols[1].Str = append(b.Cols[1].Str, hosts[rng.IntN(1+push%len(hosts))])
			}
			if len(b.Time) == 0 {
				b.Cols[0].Missing = nil
			}
			_, err := s.PushMany(nil, b)
			require.NoError(t, err, "seed %d push %d", seed, push)

			for _, pair := range [][2]NodeID{{filt, s.Root()}, {diff, filt}, {win, diff}, {sel, win}, {smp, byHost}, {fill, smp}, {pwin, fill}, {gat, pwin}} {
				require.True(t, subset(heldIDs(t, s, pair[0]), heldIDs(t, s, pair[1])),
					"seed %d push %d: node %d holds a row node %d let go", seed, push, pair[0], pair[1])
			}
			// The filter holds exactly the source's rows it passes.
			src, _ := s.holdings(s.Root())
			var want []uint64
			for i := range src.len() {
				if keep(src.tab.Row(i)) {
					want = append(want, src.ids[i])
				}
			}
			require.Equal(t, want, heldIDs(t, s, filt), "seed %d push %d", seed, push)
			require.Equal(t, heldIDs(t, s, win), heldIDs(t, s, sel))
			// Windows keep their bounds.
			wf, _ := s.holdings(win)
			if byCount {
				require.LessOrEqual(t, wf.len(), count)
			} else if wf.len() > 0 {
				require.GreaterOrEqual(t, wf.tab.TimeNanos(0), s.nodes[win].(*viewNode).op.(*windowOp).maxT[0]-span)
			}
			// Reduces reduce exactly what their sources hold.
			sf, _ := s.holdings(sel)
			nums := table.Column(sf.tab, 1).Numbers()
			n, lo := 0.0, math.Inf(1)
			for _, x := range nums {
				if !math.IsNaN(x) {
					n++
					lo = math.Min(lo, x)
				}
			}
			rn := s.nodes[red].(*reduceNode)
			require.Equal(t, n, reduction(rn, 0), "seed %d push %d", seed, push)
			if n > 0 {
				require.Equal(t, lo, reduction(rn, 1), "seed %d push %d", seed, push)
			}
			gf, _ := s.holdings(gat)
			require.Equal(t, float64(gf.len()), reduction(s.nodes[gred].(*reduceNode), 0))
		}
	}
}
