package live_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// An aligned rolling built on a live series part way through its stream,
// on partitions that keep the longest window and the grace, gives the
// same row for every (key, boundary) that closes after it was built as a
// twin built before the first push: a replay of the last longest window
// is its own rows.
func TestAlignedBuiltMidwayAgreesWithOneBuiltFirst(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 91))
		c := newAlignedCase(rng)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			longest := int64(0)
			for _, w := range c.windows {
				longest = max(longest, w.Span.Milliseconds())
			}
			sch := alignedSchema
			if c.required {
				sch = alignedRequired
			}
			opts := c.opts
			opts.Workers = 1 + int(seed%3)
			opts.MaxAge = time.Duration(longest+c.lag+c.step*int64(rng.IntN(3))) * time.Millisecond
			s, err := live.New("t", sch, opts)
			require.NoError(t, err)
			defer s.Close()
			by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxAge: opts.MaxAge})
			require.NoError(t, err)
			seq := sequence.Every(time.Duration(c.step) * time.Millisecond).WithAnchorNanos(c.anchor * int64(time.Millisecond))
			ro := rolling.Options{Trigger: trigger.Clock(seq), Aligned: true}
			a, err := s.Rolling(by, c.windows, ro)
			require.NoError(t, err)
			require.NoError(t, s.Watch(a))
			cut := len(c.rows) / 3
			var b live.NodeID = -1
			var ga, gb []alignedRow
			var out []live.Output
			var builtAt int64
			for i := 0; i < len(c.rows); {
				if b < 0 && i >= cut {
					b, err = s.Rolling(by, c.windows, ro)
					require.NoError(t, err)
					require.NoError(t, s.Watch(b))
					l, _ := s.LatestNanos()
					builtAt = l / int64(time.Millisecond)
				}
				n := min(1+rng.IntN(20), len(c.rows)-i)
				batch := c.rows[i : i+n]
				i += n
				var err error
				out, err = s.PushRows(out[:0], rowsOf(batch)...)
				require.NoError(t, err)
				for _, o := range out {
					switch o.Node {
					case a:
						ga = appendEmitted(ga, o.Events.Clone())
					case b:
						gb = appendEmitted(gb, o.Events.Clone())
					}
				}
			}
			after := func(rows []alignedRow) []string {
				var out []string
				for _, r := range rows {
					if r.b > builtAt-c.lag { // closed after the build
						out = append(out, r.String())
					}
				}
				slices.Sort(out)
				return out
			}
			require.NotEmpty(t, after(ga))
			require.Equal(t, after(ga), after(gb), "built after row %d at %d ms", cut, builtAt)
		})
	}
}

// rowsOf returns the rows of rs.
func rowsOf(rs []arow) []schema.Row {
	out := make([]schema.Row, len(rs))
	for i, r := range rs {
		out[i] = r.row()
	}
	return out
}
