package engine

import (
	"fmt"
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

// countingSink counts how often its table is asked for.
type countingSink struct {
	tab   *schema.Table
	asked int
}

func (s *countingSink) Table() *schema.Table { s.asked++; return s.tab }

func TestPushAsksForItsTableOnlyWhenItEmits(t *testing.T) {
	windows := []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "sum", From: "v", Using: reduce.Sum}}}}
	for _, trig := range []trigger.Trigger{trigger.Clock(sequence.Every(time.Second)), trigger.Count(3), trigger.Event()} {
		for _, partitioned := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/partitioned=%v", trig, partitioned), func(t *testing.T) {
				var key *Key
				if partitioned {
					key = &Key{Name: "key", Kind: schema.String}
				}
				plan, err := NewPlan(testSchema, windows, rolling.Options{Trigger: trig}, key, nil)
				require.NoError(t, err)
				var g *Group
				var s *Stream
				if partitioned {
					g = plan.NewGroup(keyNames{schema.StringValue("a")})
				} else {
					s = plan.NewStream()
				}
				sink := &countingSink{tab: schema.NewTable(plan.Schema())}
				var in Input
				push := func(times ...int64) {
					tab := schema.NewTable(testSchema)
					for _, tm := range times {
						table.Column(tab, 0).AppendTime(tm)
						table.Column(tab, 1).AppendNum(1)
						table.Column(tab, 2).AppendNum(1)
					}
					plan.Bind(&in, tab, nil)
					if g != nil {
						g.PushTo(&in, make([]int32, len(times)), sink)
					} else {
						s.PushTo(&in, sink)
					}
				}
				push()
				assert.Zero(t, sink.asked, "an empty push")
				ms := int64(time.Millisecond)
				push(100*ms, 200*ms)
				if trig.String() != "event" {
					assert.Zero(t, sink.asked, "a push that emits nothing")
				}
				push(300*ms, 1100*ms, 1200*ms)
				assert.Positive(t, sink.asked, "a push that emits")
				assert.Positive(t, sink.tab.Len())
			})
		}
	}
}
