package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// TestSortedInputEmitsAsUnsorted feeds the same time-sorted pushes to a
// clock-triggered stream and group told the rows are sorted, and to twins
// that are not told: pushes that cross no boundary, one, or several, some
// of one row and some of many. The outputs are the same.
func TestSortedInputEmitsAsUnsorted(t *testing.T) {
	windows := []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "v", Using: reduce.Avg}, {Out: "n", From: "w", Using: reduce.Count},
		}},
		{Name: "250ms", Span: 250 * time.Millisecond, Aggs: []reduce.Agg{{Out: "max", From: "v", Using: reduce.Max}}},
	}
	opts := rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))}
	streamPlan, err := NewPlan(testSchema, windows, opts, nil, nil)
	require.NoError(t, err)
	groupPlan, err := NewPlan(testSchema, windows, opts, &Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	keys := make(keyNames, 8)
	for i := range keys {
		keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
	}
	for _, direct := range []int{0, 128} {
		t.Run(fmt.Sprintf("direct=%d", direct), func(t *testing.T) {
			defer SetDirectParts(SetDirectParts(direct))
			sortedS, plainS := streamPlan.NewStream(), streamPlan.NewStream()
			sortedG, plainG := groupPlan.NewGroup(keys), groupPlan.NewGroup(keys)
			// quietG takes each push by PushQuiet when that can take it,
			// else as sortedG does.
			quietG, quiet := groupPlan.NewGroup(keys), 0
			rng := rand.New(rand.NewPCG(9, uint64(direct)))
			tm := int64(0)
			var in Input
			for push := range 500 {
				tab := schema.NewTable(testSchema)
				var part []int32
				for range 1 + rng.IntN(6) {
					switch rng.IntN(8) {
					case 0:
						tm += int64(rng.IntN(400)) * int64(time.Millisecond) // past a boundary or several
					case 1: // the same time again
					default:
						tm += int64(rng.IntN(7)) * int64(time.Millisecond)
					}
					table.Column(tab, 0).AppendTime(tm)
					table.Column(tab, 1).AppendNum(float64(rng.IntN(100)))
					table.Column(tab, 2).AppendNum(rng.NormFloat64())
					part = append(part, int32(rng.IntN(len(keys))))
				}
				outs := make([]*schema.Table, 5)
				for i := range outs {
					outs[i] = schema.NewTable(streamPlan.Schema())
					if i >= 2 {
						outs[i] = schema.NewTable(groupPlan.Schema())
					}
				}
				for i, push := range []func(){
					func() { sortedS.Push(&in, outs[0]) }, func() { plainS.Push(&in, outs[1]) },
					func() { sortedG.Push(&in, part, outs[2]) }, func() { plainG.Push(&in, part, outs[3]) },
				} {
					streamOrGroup := streamPlan
					if i >= 2 {
						streamOrGroup = groupPlan
					}
					streamOrGroup.Bind(&in, tab, nil)
					in.SetSorted(i%2 == 0)
					push()
				}
				if quietG.PushQuiet(tab, part) {
					quiet++
				} else {
					groupPlan.Bind(&in, tab, nil)
					in.SetSorted(true)
					quietG.Push(&in, part, outs[4])
				}
				require.Equal(t, outs[1].String(), outs[0].String(), "push %d: stream", push)
				require.Equal(t, outs[3].String(), outs[2].String(), "push %d: group", push)
				require.Equal(t, outs[3].String(), outs[4].String(), "push %d: group by PushQuiet", push)
			}
			if direct > 0 {
				require.Greater(t, quiet, 100, "pushes PushQuiet took")
			} else {
				require.Zero(t, quiet, "a group that buffers takes no push by PushQuiet")
			}
		})
	}
}

func TestGroupThatOutgrewDirectAppendsLetsGoOfItsTailRoom(t *testing.T) {
	// The first push meets 1,000 partitions at once and goes straight to
	// their deques; from the first tick on the group buffers, and keeps
	// no room for direct appends. A group of a few partitions keeps it.
	defer SetDirectParts(SetDirectParts(128))
	windows := []rolling.Window{{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "avg", From: "v", Using: reduce.Avg}}}}
	plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trigger.Clock(sequence.Every(100 * time.Millisecond))},
		&Key{Name: "key", Kind: schema.String}, nil)
	require.NoError(t, err)
	for _, parts := range []int{1000, 10} {
		keys := make(keyNames, parts)
		for i := range keys {
			keys[i] = schema.StringValue(fmt.Sprintf("k%d", i))
		}
		g := plan.NewGroup(keys)
		var in Input
		for _, tm := range []int64{0, int64(150 * time.Millisecond), int64(250 * time.Millisecond)} {
			tab := schema.NewTable(testSchema)
			part := make([]int32, parts)
			for i := range part {
				table.Column(tab, 0).AppendTime(tm)
				table.Column(tab, 1).AppendNum(float64(i))
				table.Column(tab, 2).AppendNum(1)
				part[i] = int32(i)
			}
			plan.Bind(&in, tab, nil)
			g.Push(&in, part, schema.NewTable(plan.Schema()))
		}
		require.Equal(t, parts, g.Len())
		if parts >= directParts {
			assert.Zero(t, cap(g.room), "parts=%d", parts)
		} else {
			assert.Len(t, g.room, parts, "parts=%d", parts)
		}
	}
}
