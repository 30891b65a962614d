package live_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/trigger"
)

// Bugs found by the aligned-window edge probe (alignededge_probe_test.go).

// TestAleAlignedOnAFilterClosesAtTheSeriesRows: the docs (README "Aligned
// windows", the rolling package's "Aligned windows", Series.Rolling) say
// boundary b closes "when no row with t < b can still be accepted: under
// strict or drop ordering at the first accepted row with t ≥ b, under
// reorder with grace g once the latest accepted time minus g reaches b".
// An aligned rolling built on a filter (or any view that drops rows)
// closes a boundary only at a row its filter passes: the series accepts
// a row at 700 ms, after which no row before 500 ms can be accepted, but
// the boundary at 500 ms stays open until the next row the filter passes
// (here a push later; with a filter that passes nothing more, never).
func TestAleAlignedOnAFilterClosesAtTheSeriesRows(t *testing.T) {
	for _, c := range []struct {
		name        string
		opts        live.Options
		late        int64 // ms: the row the filter drops, which moves the series' latest time on
		partitioned bool
	}{
		{"strict", live.Options{}, 700, true},
		{"reorder", live.Options{Ordering: live.Reorder, Grace: 100 * time.Millisecond}, 700, true}, // 700 − 100 ≥ 500
		{"strict on the root", live.Options{}, 700, false},
		{"two workers", live.Options{Workers: 2}, 700, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("t", aleSchema, c.opts)
			require.NoError(t, err)
			t.Cleanup(func() { s.Close() })
			src := s.Root()
			if c.partitioned {
				src, err = s.PartitionBy(s.Root(), "k", partition.Options{})
				require.NoError(t, err)
			}
			f, err := s.Filter(src, aleKeepRow) // drops the rows whose s is "b"
			require.NoError(t, err)
			r, err := s.Rolling(f, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}},
				rolling.Options{Trigger: trigger.Every(500 * time.Millisecond), Aligned: true, History: rolling.History{MaxEvents: 10}})
			require.NoError(t, err)
			require.NoError(t, s.Watch(r))
			// A node on the rolling takes what it emits at the push's end.
			after, err := s.Select(r, "n")
			require.NoError(t, err)
			require.NoError(t, s.Watch(after))
			row := func(ms int64, str string) schema.Row {
				return schema.Row{schema.MillisValue(ms), schema.NumberValue(1), schema.StringValue(str), schema.Value{}, schema.StringValue("h")}
			}
			out, err := s.PushRows(nil, row(100, "a"), row(c.late, "b"))
			require.NoError(t, err)
			tab, ok := live.Find(out, r, live.Event)
			require.True(t, ok, "the series accepted a row at %d ms: the boundary at 500 ms has closed, and h's window [−500 ms, 500 ms) holds its row at 100 ms", c.late)
			assert.Equal(t, []int64{500 * int64(time.Millisecond)}, tab.Times())
			n, _ := tab.Numbers("n")
			assert.Equal(t, []float64{1}, n)
			tab, ok = live.Find(out, after, live.Event)
			require.True(t, ok, "the select on the rolling")
			assert.Equal(t, []int64{500 * int64(time.Millisecond)}, tab.Times())
			hist, err := s.Snapshot(r)
			require.NoError(t, err)
			assert.Equal(t, []int64{500 * int64(time.Millisecond)}, hist.Times(), "the rolling's history")
		})
	}
}
