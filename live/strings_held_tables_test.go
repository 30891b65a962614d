package live_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// A rolling's history and current value, an aggregate's and a reduce's
// keep the strings they emitted after every row and partition that held
// them has gone and the series forgot them (a sweep after every push).
func TestStringsEmittedOutliveTheRowsTheSweepForgets(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "x", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "name", Kind: schema.String},
	)
	for _, aligned := range []bool{false, true} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprint(aligned, workers), func(t *testing.T) {
				s, err := live.New("t", sch, live.Options{MaxEvents: 1, Workers: workers})
				require.NoError(t, err)
				defer s.Close()
				live.SweepEveryPush(s)
				by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: time.Second})
				require.NoError(t, err)
				r, err := s.Rolling(by, []rolling.Window{{Span: 2 * time.Second, Aggs: []reduce.Agg{
					{Out: "last", From: "name", Using: reduce.Last},
					{Out: "first", From: "name", Using: reduce.First},
					{Out: "u", From: "name", Using: reduce.Unique},
				}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(500 * time.Millisecond)), Aligned: aligned, History: rolling.History{MaxEvents: 100}})
				require.NoError(t, err)
				ag, err := s.Aggregate(by, sequence.Every(time.Second), []reduce.Agg{{Out: "last", From: "name", Using: reduce.Last}, {Out: "h", From: "host", Using: reduce.Top(3)}}, 0)
				require.NoError(t, err)
				red, err := s.Reduce(by, []reduce.Agg{{Out: "u", From: "name", Using: reduce.Unique}}, trigger.Event())
				require.NoError(t, err)
				require.NoError(t, s.Watch(r))
				var out []live.Output
				var hist []string
				for i := range 40 {
					at := time.Unix(0, int64(i)*int64(300*time.Millisecond))
					out, err = s.PushRows(out[:0], schema.Row{schema.TimeValue(at), schema.NumberValue(float64(i)), schema.StringValue(fmt.Sprintf("host-%d", i)), schema.StringValue(fmt.Sprintf("name-%d", i))})
					require.NoError(t, err)
					if tab, ok := live.Find(out, r, live.Event); ok {
						for k := range tab.Len() {
							hist = append(hist, fmt.Sprint(tab.Row(k)))
						}
					}
					// The rolling's current value pairs each host with its
					// own name, read after the sweep.
					v, err := s.Value(r)
					require.NoError(t, err)
					for k := range v.Len() {
						row := v.Row(k)
						h, _ := row[1].Str()
						l, _ := row[2].Str()
						require.Equal(t, h[5:], l[5:], "value row %v", row)
					}
					for _, id := range []live.NodeID{ag, red} {
						_, err := s.Value(id)
						require.NoError(t, err)
					}
				}
				snap, err := s.Snapshot(r)
				require.NoError(t, err)
				var got []string
				for k := range snap.Len() {
					got = append(got, fmt.Sprint(snap.Row(k)))
				}
				if len(hist) > 100 {
					hist = hist[len(hist)-100:]
				}
				require.Equal(t, hist, got)
				for k := range snap.Len() {
					row := snap.Row(k)
					h, _ := row[1].Str()
					l, _ := row[2].Str()
					require.Equal(t, h[5:], l[5:], "row %v", row)
				}
			})
		}
	}
}
