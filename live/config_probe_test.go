package live_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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

// The configuration probes: every builder's documented bad options give
// an error wrapping the documented sentinel, naming the field, and leave
// the series as if the call never happened (the next node's id, its
// outputs and the counters match a twin series that never made the
// call); the counters, schemas and lifecycle through the public API.

// cpSchema is the probes' schema: v a required number, w an optional
// one, host a string, ok an optional boolean.
func cpSchema(t testing.TB) *schema.Schema {
	t.Helper()
	sc, err := schema.New(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "v", Kind: schema.Number},
		schema.Column{Name: "w", Kind: schema.Number, Optional: true},
		schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "ok", Kind: schema.Bool, Optional: true},
	)
	require.NoError(t, err)
	return sc
}

func cpRow(ms int64, v float64, host string) schema.Row {
	w := schema.NumberValue(v * 2)
	if int64(v)%3 == 0 {
		w = schema.Missing()
	}
	return schema.Row{schema.MillisValue(ms), schema.NumberValue(v), w, schema.StringValue(host), schema.BoolValue(int64(v)%2 == 0)}
}

// cpIDs are the nodes of cpBase.
type cpIDs struct {
	root, part, roll, win, agg live.NodeID
}

// cpBase builds a series with a partitioning, a rolling on it, a window
// and an aggregate, and pushes a few rows when prefill is set.
func cpBase(t testing.TB, prefill bool) (*live.Series, cpIDs) {
	t.Helper()
	s, err := live.New("cp", cpSchema(t), live.Options{MaxEvents: 50})
	require.NoError(t, err)
	var ids cpIDs
	ids.root = s.Root()
	ids.part, err = s.PartitionBy(ids.root, "host", partition.Options{})
	require.NoError(t, err)
	ids.roll, err = s.Rolling(ids.part, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "s", From: "v", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	ids.win, err = s.Window(ids.root, 3*time.Second)
	require.NoError(t, err)
	ids.agg, err = s.Aggregate(ids.root, sequence.Every(time.Second), []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}, 0)
	require.NoError(t, err)
	if prefill {
		_, err = s.PushRows(nil, cpRow(100, 1, "a"), cpRow(200, 2, "b"), cpRow(1500, 3, "a"))
		require.NoError(t, err)
	}
	return s, ids
}

// cpBad is one bad builder call.
type cpBad struct {
	name  string
	want  []error // the sentinels the error must wrap
	field string  // a word the message must hold
	call  func(s *live.Series, ids cpIDs) (live.NodeID, error)
}

func cpAgg(out, from string, r reduce.Reducer) []reduce.Agg {
	return []reduce.Agg{{Out: out, From: from, Using: r}}
}

func cpBads(t testing.TB) []cpBad {
	mapOut, err := schema.New(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "x", Kind: schema.Number})
	require.NoError(t, err)
	one := 1
	nine := 9
	sum := cpAgg("s", "v", reduce.Sum)
	cfg := []error{live.ErrConfig}
	node := []error{live.ErrNode}
	var bads []cpBad
	add := func(name string, want []error, field string, call func(s *live.Series, ids cpIDs) (live.NodeID, error)) {
		bads = append(bads, cpBad{name, want, field, call})
	}
	// PartitionBy
	add("partitionBy unknown column", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "nope", partition.Options{})
	})
	add("partitionBy time column", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "time", partition.Options{})
	})
	add("partitionBy not root", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.win, "host", partition.Options{})
	})
	add("partitionBy negative MaxEvents", []error{live.ErrConfig, partition.ErrOptions}, "MaxEvents", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "host", partition.Options{MaxEvents: -1})
	})
	add("partitionBy negative MaxAge", []error{live.ErrConfig, partition.ErrOptions}, "MaxAge", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "host", partition.Options{MaxAge: -1})
	})
	add("partitionBy huge IdleTTL", []error{live.ErrConfig, partition.ErrOptions}, "IdleTTL", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "host", partition.Options{IdleTTL: sequence.MaxDuration + 1})
	})
	add("partitionBy negative MaxPartitions", []error{live.ErrConfig, partition.ErrOptions}, "MaxPartitions", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "host", partition.Options{MaxPartitions: -1})
	})
	add("partitionBy group of wrong kind", []error{live.ErrConfig, partition.ErrOptions}, "Groups", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "host", partition.Options{Groups: []schema.Value{schema.NumberValue(1)}})
	})
	add("partitionBy duplicate group", []error{live.ErrConfig, partition.ErrOptions}, "Groups", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(ids.root, "host", partition.Options{Groups: []schema.Value{schema.StringValue("a"), schema.StringValue("a")}})
	})
	add("partitionBy unknown node", node, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PartitionBy(99, "host", partition.Options{})
	})
	// Rolling
	add("rolling no window", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, nil, rolling.Options{})
	})
	add("rolling span and count", []error{live.ErrConfig, rolling.ErrSpec}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Count: 2, Aggs: sum}}, rolling.Options{})
	})
	add("rolling neither span nor count", []error{live.ErrConfig, rolling.ErrSpec}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Aggs: sum}}, rolling.Options{})
	})
	add("rolling negative span", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: -time.Second, Aggs: sum}}, rolling.Options{})
	})
	add("rolling two count windows", []error{live.ErrConfig, rolling.ErrSpec}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Count: 2, Aggs: sum}, {Count: 3, Aggs: cpAgg("t", "v", reduce.Sum)}}, rolling.Options{})
	})
	add("rolling no aggs", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second}}, rolling.Options{})
	})
	add("rolling unknown column", []error{live.ErrConfig}, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("s", "nope", reduce.Sum)}}, rolling.Options{})
	})
	add("rolling sum of a string", []error{live.ErrConfig, reduce.ErrReducer}, "host", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("s", "host", reduce.Sum)}}, rolling.Options{})
	})
	add("rolling duplicate output", []error{live.ErrConfig}, "s", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: sum}, {Span: 2 * time.Second, Aggs: sum}}, rolling.Options{})
	})
	add("rolling output named like the partition column", []error{live.ErrConfig}, "host", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.part, []rolling.Window{{Span: time.Second, Aggs: cpAgg("host", "v", reduce.Sum)}}, rolling.Options{})
	})
	add("rolling output named time", []error{live.ErrConfig}, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("time", "v", reduce.Sum)}}, rolling.Options{})
	})
	add("rolling empty output name", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("", "v", reduce.Sum)}}, rolling.Options{})
	})
	add("rolling negative MinSamples", []error{live.ErrConfig}, "MinSamples", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: sum}}, rolling.Options{MinSamples: -1})
	})
	add("rolling MinSamples over Count", []error{live.ErrConfig, rolling.ErrSpec}, "MinSamples", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Count: 3, Aggs: sum, MinSamples: &nine}}, rolling.Options{})
	})
	add("rolling options MinSamples over Count", []error{live.ErrConfig, rolling.ErrSpec}, "MinSamples", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Count: 3, Aggs: sum}}, rolling.Options{MinSamples: 4})
	})
	add("rolling aligned without clock", []error{live.ErrConfig}, "Aligned", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: sum}}, rolling.Options{Aligned: true})
	})
	add("rolling aligned count window", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Count: 3, Aggs: sum, MinSamples: &one}}, rolling.Options{Aligned: true, Trigger: trigger.Every(time.Second)})
	})
	add("rolling bad count trigger", []error{live.ErrConfig, trigger.ErrTrigger}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: sum}}, rolling.Options{Trigger: trigger.Count(0)})
	})
	add("rolling bad clock trigger", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: sum}}, rolling.Options{Trigger: trigger.Every(-time.Second)})
	})
	add("rolling huge span", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: sequence.MaxDuration + 1, Aggs: sum}}, rolling.Options{})
	})
	add("rolling on a reduce's unknown node", node, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(-1, []rolling.Window{{Span: time.Second, Aggs: sum}}, rolling.Options{})
	})
	add("rolling percentile out of range", []error{live.ErrConfig, reduce.ErrReducer}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("p", "v", reduce.Percentile(150))}}, rolling.Options{})
	})
	add("reduce percentile NaN", []error{live.ErrConfig, reduce.ErrReducer}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, cpAgg("p", "v", reduce.Percentile(math.NaN())), trigger.Trigger{})
	})
	add("rolling top 0", []error{live.ErrConfig, reduce.ErrReducer}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("p", "host", reduce.Top(0))}}, rolling.Options{})
	})
	add("rolling zero reducer", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Rolling(ids.root, []rolling.Window{{Span: time.Second, Aggs: cpAgg("p", "v", reduce.Reducer{})}}, rolling.Options{})
	})
	// Reduce
	add("reduce no aggs", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, nil, trigger.Trigger{})
	})
	add("reduce unknown column", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, cpAgg("s", "nope", reduce.Sum), trigger.Trigger{})
	})
	add("reduce time column", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, cpAgg("s", "time", reduce.Sum), trigger.Trigger{})
	})
	add("reduce sum of string", []error{live.ErrConfig, reduce.ErrReducer}, "host", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, cpAgg("s", "host", reduce.Sum), trigger.Trigger{})
	})
	add("reduce duplicate output", cfg, "s", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, append(cpAgg("s", "v", reduce.Sum), reduce.Agg{Out: "s", From: "w", Using: reduce.Max}), trigger.Trigger{})
	})
	add("reduce output named time", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, cpAgg("time", "v", reduce.Sum), trigger.Trigger{})
	})
	add("reduce bad trigger", []error{live.ErrConfig, trigger.ErrTrigger}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(ids.root, sum, trigger.Count(-2))
	})
	add("reduce unknown node", node, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Reduce(77, sum, trigger.Trigger{})
	})
	// Aggregate
	add("aggregate bad sequence", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(0), sum, 0)
	})
	add("aggregate zero sequence", []error{live.ErrConfig}, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Sequence{}, sum, 0)
	})
	add("aggregate negative grace", cfg, "grace", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), sum, -time.Second)
	})
	add("aggregate huge grace", cfg, "grace", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), sum, sequence.MaxDuration+1)
	})
	add("aggregate no aggs", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), nil, 0)
	})
	add("aggregate unknown column", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), cpAgg("s", "nope", reduce.Sum), 0)
	})
	add("aggregate time column", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), cpAgg("s", "time", reduce.Sum), 0)
	})
	add("aggregate sum of bool", []error{live.ErrConfig, reduce.ErrReducer}, "ok", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), cpAgg("s", "ok", reduce.Sum), 0)
	})
	add("aggregate duplicate output", cfg, "s", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Aggregate(ids.root, sequence.Every(time.Second), append(cpAgg("s", "v", reduce.Sum), reduce.Agg{Out: "s", From: "w", Using: reduce.Max}), 0)
	})
	// Views
	add("filter nil", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Filter(ids.root, nil)
	})
	add("map nil fn", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Map(ids.root, mapOut, nil)
	})
	add("map nil schema", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Map(ids.root, nil, func(in, out schema.Row) bool { return true })
	})
	add("map zero schema", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Map(ids.root, &schema.Schema{}, func(in, out schema.Row) bool { return true })
	})
	add("select empty", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Select(ids.root)
	})
	add("select unknown", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Select(ids.root, "v", "nope")
	})
	add("select time", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Select(ids.root, "time")
	})
	add("window zero", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Window(ids.root, 0)
	})
	add("window negative", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Window(ids.root, -time.Second)
	})
	add("window huge", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Window(ids.root, sequence.MaxDuration+1)
	})
	add("windowCount zero", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.WindowCount(ids.root, 0)
	})
	for _, op := range []string{"diff", "rate", "pctChange"} {
		f := func(s *live.Series, src live.NodeID, c ...string) (live.NodeID, error) {
			switch op {
			case "diff":
				return s.Diff(src, c...)
			case "rate":
				return s.Rate(src, c...)
			}
			return s.PctChange(src, c...)
		}
		add(op+" empty", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return f(s, ids.root) })
		add(op+" unknown", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return f(s, ids.root, "nope") })
		add(op+" time", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return f(s, ids.root, "time") })
		add(op+" string", cfg, "host", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return f(s, ids.root, "host") })
		add(op+" bool", cfg, "ok", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return f(s, ids.root, "v", "ok") })
		add(op+" unknown node", node, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return f(s, 1000, "v") })
	}
	add("cumulative none", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return s.Cumulative(ids.root) })
	add("cumulative unknown", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Cumulative(ids.root, live.Running{Column: "nope", Using: reduce.Sum})
	})
	add("cumulative time", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Cumulative(ids.root, live.Running{Column: "time", Using: reduce.Sum})
	})
	add("cumulative string", cfg, "host", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Cumulative(ids.root, live.Running{Column: "host", Using: reduce.Count})
	})
	add("cumulative twice", cfg, "v", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Cumulative(ids.root, live.Running{Column: "v", Using: reduce.Sum}, live.Running{Column: "v", Using: reduce.Max})
	})
	add("cumulative avg", cfg, "v", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Cumulative(ids.root, live.Running{Column: "v", Using: reduce.Avg})
	})
	add("cumulative zero reducer", cfg, "v", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Cumulative(ids.root, live.Running{Column: "v"})
	})
	add("fill linear", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{Strategy: live.FillLinear})
	})
	add("fill no strategy", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{})
	})
	add("fill bad strategy", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{Strategy: 9})
	})
	add("fill negative limit", cfg, "Limit", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{Strategy: live.FillHold, Limit: -1})
	})
	add("fill unknown column", cfg, "nope", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{Strategy: live.FillHold, Columns: []string{"nope"}})
	})
	add("fill time column", cfg, "time", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{Strategy: live.FillHold, Columns: []string{"time"}})
	})
	add("fill zero string", cfg, "host", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.Fill(ids.root, live.FillOptions{Strategy: live.FillZero, Columns: []string{"host"}})
	})
	add("sample zero", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return s.Sample(ids.root, 0) })
	add("sample negative", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return s.Sample(ids.root, -3) })
	add("gather not partitioned", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return s.Gather(ids.root) })
	add("gather of a window", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return s.Gather(ids.win) })
	add("gather unknown node", node, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) { return s.Gather(55) })
	add("perPartition not partitioned", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PerPartition(ids.root, func(s *live.Series, p live.NodeID) (live.NodeID, error) { return s.Diff(p, "v") })
	})
	add("perPartition nil build", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PerPartition(ids.part, nil)
	})
	add("perPartition failing build", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PerPartition(ids.part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			d, err := s.Diff(p, "v")
			if err != nil {
				return 0, err
			}
			if _, err := s.Fill(d, live.FillOptions{Strategy: live.FillHold}); err != nil {
				return 0, err
			}
			return s.Diff(d, "nope")
		})
	})
	add("perPartition chain that gathers", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PerPartition(ids.part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			d, err := s.Diff(p, "v")
			if err != nil {
				return 0, err
			}
			return s.Gather(d)
		})
	})
	add("perPartition chain elsewhere", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PerPartition(ids.part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			if _, err := s.Diff(p, "v"); err != nil {
				return 0, err
			}
			return s.Diff(ids.root, "v")
		})
	})
	add("perPartition chain returning a reduce", cfg, "", func(s *live.Series, ids cpIDs) (live.NodeID, error) {
		return s.PerPartition(ids.part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
			return s.Reduce(p, sum, trigger.Trigger{})
		})
	})
	return bads
}

// cpDump is every output of a push and the counters, as text.
func cpDump(s *live.Series, outs []live.Output) string {
	var b strings.Builder
	for _, o := range outs {
		fmt.Fprintf(&b, "%d/%v:%s\n", o.Node, o.Kind, o.Events.AppendJSON(nil))
	}
	fmt.Fprintf(&b, "stats %+v len %d held %d\n", s.Stats(), s.Len(), s.HeldBytes())
	return b.String()
}

// TestCpBuilderValidation: every bad builder call fails with the
// documented sentinel, names the field, does not panic, and leaves the
// series as its twin that never made the call.
func TestCpBuilderValidation(t *testing.T) {
	checked := 0
	for _, prefill := range []bool{false, true} {
		for _, bad := range cpBads(t) {
			name := fmt.Sprintf("%s/prefill=%v", bad.name, prefill)
			s, ids := cpBase(t, prefill)
			twin, _ := cpBase(t, prefill)
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
					}
				}()
				_, err = bad.call(s, ids)
			}()
			if !assertCp(t, name, err != nil, "no error") {
				continue
			}
			for _, w := range bad.want {
				assertCp(t, name, errors.Is(err, w), "error %q does not wrap %v", err, w)
			}
			if bad.field != "" {
				assertCp(t, name, strings.Contains(strings.ToLower(err.Error()), strings.ToLower(bad.field)), "error %q does not name %q", err, bad.field)
			}
			var ce *live.ConfigError
			if errors.Is(err, live.ErrConfig) {
				assertCp(t, name, errors.As(err, &ce), "error %q wraps ErrConfig but is no *ConfigError", err)
			}
			// The next node: same id, same outputs, same counters.
			got, err1 := s.Select(ids.root, "v")
			want, err2 := twin.Select(ids.root, "v")
			require.NoError(t, err1, name)
			require.NoError(t, err2, name)
			assertCp(t, name, got == want, "next node id %d, the twin's is %d", got, want)
			for _, x := range []*live.Series{s, twin} {
				for id := live.NodeID(0); id <= want; id++ {
					_ = x.Watch(id, live.Event, live.Evict)
				}
			}
			d1, _ := s.Describe(got + 1)
			d2, _ := twin.Describe(want + 1)
			assertCp(t, name, d1 == d2, "describe of the id after: %q vs the twin's %q", d1, d2)
			for i := range 4 {
				ms := int64(2000 + 700*i)
				rows := []schema.Row{cpRow(ms, float64(10+i), "a"), cpRow(ms+5, float64(20+i), []string{"b", "c"}[i%2])}
				o1, e1 := s.PushRows(nil, rows...)
				o2, e2 := twin.PushRows(nil, rows...)
				assertCp(t, name, (e1 == nil) == (e2 == nil), "push %d: error %v, the twin's %v", i, e1, e2)
				a, b := cpDump(s, o1), cpDump(twin, o2)
				if !assertCp(t, name, a == b, "push %d differs from the twin:\n%s\nvs\n%s", i, a, b) {
					break
				}
				checked++
			}
			p1, _ := s.Partitions(ids.part)
			p2, _ := twin.Partitions(ids.part)
			assertCp(t, name, fmt.Sprint(p1) == fmt.Sprint(p2), "partitions %v vs %v", p1, p2)
			s.Close()
			twin.Close()
		}
	}
	require.GreaterOrEqual(t, checked, 400)
}

func assertCp(t *testing.T, name string, ok bool, f string, args ...any) bool {
	t.Helper()
	if !ok {
		t.Errorf("%s: "+f, append([]any{name}, args...)...)
	}
	return ok
}

// cpCounterCfg is one counters case.
type cpCounterCfg struct {
	opts  live.Options
	step  int64 // the aggregate's bucket, ms
	grace int64 // the aggregate's grace, ms (0: the series')
}

type cpHeld struct {
	t   int64
	v   float64
	seq int
}

// cpCounterModel is the docs' series: ordering, retention, counters,
// and an aggregate's counters.
type cpCounterModel struct {
	c                                 cpCounterCfg
	held                              []cpHeld
	latest                            int64
	any                               bool
	stats                             live.Stats
	seq                               int
	wm                                int64
	wmSet                             bool
	open                              map[int64]int // bucket start → rows
	observed, dropped, closed         uint64
	lastEvent, lastEvict, lastClosedB []string
}

// push applies a push of rows (bad marks a row the schema refuses) and
// returns the error sentinel it must fail with, nil if it succeeds.
func (m *cpCounterModel) push(ts []int64, bad []bool) error {
	// Cells are checked before the ordering, for the whole push.
	if slices.Contains(bad, true) {
		return schema.ErrValidation
	}
	latest, any := m.latest, m.any
	for _, t := range ts {
		if any && t < latest {
			switch m.c.opts.Ordering {
			case live.Strict:
				return live.ErrOutOfOrder
			case live.Reorder:
				if g := m.c.opts.Grace; g > 0 && latest-t > g.Milliseconds() {
					return live.ErrLate
				}
			case live.Drop:
				continue
			}
		}
		if !any || t > latest {
			latest, any = t, true
		}
	}
	// Commit.
	m.lastEvent, m.lastEvict, m.lastClosedB = nil, nil, nil
	for _, t := range ts {
		if m.any && t < m.latest && m.c.opts.Ordering == live.Drop {
			m.stats.Rejected++
			continue
		}
		m.seq++
		r := cpHeld{t: t, v: float64(m.seq), seq: m.seq}
		at := len(m.held)
		for at > 0 && m.held[at-1].t > t {
			at--
		}
		m.held = append(m.held[:at], append([]cpHeld{r}, m.held[at:]...)...)
		if !m.any || t > m.latest {
			m.latest, m.any = t, true
		}
		m.stats.Ingested++
		m.lastEvent = append(m.lastEvent, fmt.Sprintf("%d/%g", t, r.v))
		m.aggregate(t)
	}
	// Retention.
	cut := 0
	if a := m.c.opts.MaxAge; a > 0 {
		for cut < len(m.held) && m.held[cut].t < m.latest-a.Milliseconds() {
			cut++
		}
	}
	if n := m.c.opts.MaxEvents; n > 0 && len(m.held)-n > cut {
		cut = len(m.held) - n
	}
	for _, r := range m.held[:cut] {
		m.lastEvict = append(m.lastEvict, fmt.Sprintf("%d/%g", r.t, r.v))
	}
	m.held = m.held[cut:]
	m.stats.Evicted += uint64(cut)
	m.stats.Length = len(m.held)
	return nil
}

func (m *cpCounterModel) aggregate(t int64) {
	step := m.c.step
	start := t - ((t%step)+step)%step
	grace := m.c.grace
	if grace == 0 {
		grace = m.c.opts.Grace.Milliseconds()
	}
	if !m.wmSet || t > m.wm {
		m.wm, m.wmSet = t, true
	}
	if _, ok := m.open[start]; !ok && m.wm >= start+step+grace {
		m.dropped++
	} else {
		m.open[start]++
		m.observed++
	}
	var starts []int64
	for b := range m.open {
		if m.wm >= b+step+grace {
			starts = append(starts, b)
		}
	}
	slices.Sort(starts)
	for _, b := range starts {
		m.lastClosedB = append(m.lastClosedB, fmt.Sprintf("%d/%d", b, m.open[b]))
		delete(m.open, b)
		m.closed++
	}
}

func cpTableRows(tab *schema.Table, num string) []string {
	var out []string
	if tab == nil {
		return nil
	}
	vs, _ := tab.Numbers(num)
	for i := range tab.Len() {
		out = append(out, fmt.Sprintf("%d/%g", tab.TimeNanos(i)/int64(time.Millisecond), vs[i]))
	}
	return out
}

// TestCpCountersProbe: random streams under every ordering, with
// retention and bad pushes; every push's error, root Event and Evict
// outputs, the aggregate's rows, Stats, Len, Latest, Snapshot,
// AggregateStats and HeldBytes against the model; a failed push changes
// no counter and gives dst back unchanged.
func TestCpCountersProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(401, 7))
	checked := 0
	failures := 0
	for n := range 300 {
		c := cpCounterCfg{step: []int64{10, 50, 200}[rng.IntN(3)]}
		c.opts.Ordering = live.Ordering(rng.IntN(3))
		if rng.IntN(2) == 0 {
			c.opts.MaxEvents = 1 + rng.IntN(20)
		}
		if rng.IntN(2) == 0 {
			c.opts.MaxAge = time.Duration(1+rng.IntN(300)) * time.Millisecond
		}
		if c.opts.Ordering == live.Reorder && rng.IntN(3) > 0 {
			c.opts.Grace = time.Duration(1+rng.IntN(100)) * time.Millisecond
			if c.opts.MaxAge > 0 && c.opts.Grace > c.opts.MaxAge {
				c.opts.Grace = c.opts.MaxAge
			}
		}
		if rng.IntN(3) == 0 {
			c.grace = int64(rng.IntN(60))
		}
		s, err := live.New("cp", cpSchema(t), c.opts)
		require.NoError(t, err)
		agg, err := s.Aggregate(s.Root(), sequence.Every(time.Duration(c.step)*time.Millisecond), []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}, time.Duration(c.grace)*time.Millisecond)
		require.NoError(t, err)
		require.NoError(t, s.Watch(s.Root(), live.Event, live.Evict))
		require.NoError(t, s.Watch(agg))
		m := &cpCounterModel{c: c, open: map[int64]int{}}
		clock := int64(rng.IntN(1000)) - 500
		seq := 0
		dst := []live.Output{{Node: 42}}
		for p := range 25 {
			k := 1 + rng.IntN(6)
			ts := make([]int64, k)
			bad := make([]bool, k)
			var rows []schema.Row
			for i := range ts {
				switch rng.IntN(6) {
				case 0:
					ts[i] = clock - int64(rng.IntN(150))
				case 1:
					ts[i] = clock
				default:
					clock += int64(rng.IntN(40))
					ts[i] = clock
				}
				bad[i] = rng.IntN(40) == 0
				seq++
				r := cpRow(ts[i], float64(seq), "a")
				if bad[i] {
					r[1] = []schema.Value{schema.Missing(), schema.NumberValue(math.NaN()), schema.StringValue("x")}[rng.IntN(3)]
				}
				rows = append(rows, r)
			}
			before := s.Stats()
			beforeLen, beforeHeld := s.Len(), s.HeldBytes()
			beforeAgg, _ := s.AggregateStats(agg)
			want := m.push(ts, bad)
			var out []live.Output
			if rng.IntN(2) == 0 {
				out, err = s.PushRows(dst, rows...)
			} else {
				out, err = s.PushMany(dst, cpBatch(s.Schema(), rows))
			}
			name := fmt.Sprintf("case %d push %d %+v ts %v bad %v", n, p, c, ts, bad)
			fail := func(f string, args ...any) {
				failures++
				if failures <= 10 {
					t.Errorf("%s: "+f, append([]any{name}, args...)...)
				}
			}
			if want != nil {
				if err == nil || !errors.Is(err, want) {
					fail("error %v, want %v", err, want)
					break
				}
				// The model did not apply it; the series must not either.
				if s.Stats() != before || s.Len() != beforeLen || s.HeldBytes() != beforeHeld {
					fail("a failed push changed the counters: %+v → %+v", before, s.Stats())
				}
				if a, _ := s.AggregateStats(agg); a != beforeAgg {
					fail("a failed push changed the aggregate's counters: %+v → %+v", beforeAgg, a)
				}
				if len(out) != 1 || out[0].Node != 42 {
					fail("dst not given back as it was: %v", out)
				}
				checked++
				continue
			}
			if err != nil {
				fail("error %v, want none", err)
				break
			}
			if len(out) < 1 || out[0].Node != 42 {
				fail("outputs not appended to dst")
			}
			ev, _ := live.Find(out, s.Root(), live.Event)
			evict, _ := live.Find(out, s.Root(), live.Evict)
			aggEv, _ := live.Find(out, agg, live.Event)
			// The model numbers rows by acceptance; the series' v is
			// the row's draw number: compare times, and counts.
			gotEv := cpTableRows(ev, "v")
			if len(gotEv) != len(m.lastEvent) || !slices.Equal(cpTimes(gotEv), cpTimes(m.lastEvent)) {
				fail("root events %v, want %v", gotEv, m.lastEvent)
			}
			gotEvict := cpTableRows(evict, "v")
			if !slices.Equal(cpTimes(gotEvict), cpTimes(m.lastEvict)) {
				fail("root evictions %v, want %v", gotEvict, m.lastEvict)
			}
			if g := cpTableRows(aggEv, "n"); !slices.Equal(g, m.lastClosedB) {
				fail("aggregate rows %v, want %v", g, m.lastClosedB)
			}
			if s.Stats() != m.stats || s.Len() != len(m.held) {
				fail("stats %+v len %d, want %+v %d", s.Stats(), s.Len(), m.stats, len(m.held))
			}
			if a, _ := s.AggregateStats(agg); a != (live.AggregateStats{Observed: m.observed, Dropped: m.dropped, Closed: m.closed, Open: len(m.open)}) {
				fail("aggregate stats %+v, want observed %d dropped %d closed %d open %d", a, m.observed, m.dropped, m.closed, len(m.open))
			}
			if lt, ok := s.LatestNanos(); ok != (len(m.held) > 0) || (ok && lt != m.latest*int64(time.Millisecond)) {
				fail("latest %d %v, want %d", lt, ok, m.latest)
			}
			snap, err := s.Snapshot(s.Root())
			require.NoError(t, err)
			var wantSnap []string
			for _, r := range m.held {
				wantSnap = append(wantSnap, fmt.Sprintf("%d", r.t))
			}
			if g := cpTimes(cpTableRows(snap, "v")); !slices.Equal(g, wantSnap) {
				fail("snapshot %v, want %v", g, wantSnap)
			}
			if h := s.HeldBytes(); h < 29*s.Len() {
				fail("HeldBytes %d below 29 bytes a row for %d rows", h, s.Len())
			}
			checked++
		}
		s.Close()
	}
	require.Zero(t, failures)
	require.GreaterOrEqual(t, checked, 5000)
}

// cpTimes keeps the times of "t/v" strings.
func cpTimes(rows []string) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r[:strings.IndexByte(r, '/')])
	}
	return out
}

// cpBatch is rows as a columnar batch (a cell of the wrong kind in a
// number column becomes NaN, which the push refuses too).
func cpBatch(sc *schema.Schema, rows []schema.Row) *schema.Batch {
	b := schema.NewBatch(sc, len(rows))
	for _, r := range rows {
		ns, _ := r[0].Nanos()
		b.Time = append(b.Time, ns)
		for j := 1; j < len(r); j++ {
			v := &b.Cols[j-1]
			miss := r[j].IsMissing()
			switch sc.Column(j).Kind {
			case schema.Number:
				f, ok := r[j].Num()
				if !ok && !miss {
					f = math.NaN()
				}
				v.Num = append(v.Num, f)
			case schema.String:
				x, _ := r[j].Str()
				v.Str = append(v.Str, x)
			case schema.Bool:
				x, _ := r[j].Bool()
				v.Bool = append(v.Bool, x)
			}
			if miss && v.Missing == nil {
				v.Missing = make([]bool, b.Len()-1, len(rows))
			}
			if v.Missing != nil {
				v.Missing = append(v.Missing, miss)
			}
		}
	}
	return b
}

// cpAllKinds builds one node of every kind on s and returns them, by
// name, in build order.
func cpAllKinds(t testing.TB, s *live.Series) ([]string, map[string]live.NodeID) {
	t.Helper()
	var names []string
	ids := map[string]live.NodeID{}
	add := func(name string) func(live.NodeID, error) live.NodeID {
		return func(id live.NodeID, err error) live.NodeID {
			t.Helper()
			require.NoError(t, err, name)
			names = append(names, name)
			ids[name] = id
			return id
		}
	}
	root := s.Root()
	add("root")(root, nil)
	part := add("partition")(s.PartitionBy(root, "host", partition.Options{MaxEvents: 5}))
	aggs := []reduce.Agg{
		{Out: "sum", From: "w", Using: reduce.Sum},
		{Out: "avg", From: "w", Using: reduce.Avg},
		{Out: "min", From: "w", Using: reduce.Min},
		{Out: "n", From: "w", Using: reduce.Count},
		{Out: "first", From: "host", Using: reduce.First},
		{Out: "p90", From: "v", Using: reduce.Percentile(90)},
	}
	add("rolling")(s.Rolling(root, []rolling.Window{{Span: 50 * time.Millisecond, Aggs: aggs}}, rolling.Options{MinSamples: 2}))
	add("rolling count")(s.Rolling(root, []rolling.Window{{Count: 3, Aggs: aggs[:3]}}, rolling.Options{}))
	add("rolling part clock")(s.Rolling(part, []rolling.Window{{Span: 100 * time.Millisecond, Aggs: aggs}}, rolling.Options{Trigger: trigger.Every(40 * time.Millisecond)}))
	add("rolling aligned")(s.Rolling(part, []rolling.Window{{Span: 80 * time.Millisecond, Aggs: aggs}}, rolling.Options{Trigger: trigger.Every(40 * time.Millisecond), Aligned: true}))
	add("reduce")(s.Reduce(root, aggs, trigger.Trigger{}))
	add("reduce part")(s.Reduce(part, aggs, trigger.Count(2)))
	add("aggregate")(s.Aggregate(root, sequence.Every(30*time.Millisecond), aggs, 0))
	add("filter")(s.Filter(root, func(r schema.Row) bool { f, _ := r[1].Num(); return int(f)%2 == 0 }))
	add("select")(s.Select(part, "w", "ok"))
	mo, err := schema.New(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "x", Kind: schema.Number}, schema.Column{Name: "h", Kind: schema.String})
	require.NoError(t, err)
	add("map")(s.Map(root, mo, func(in, out schema.Row) bool { out[1], out[2] = in[2], in[3]; return true }))
	win := add("window")(s.Window(root, 60*time.Millisecond))
	add("windowCount")(s.WindowCount(part, 3))
	add("diff")(s.Diff(root, "v", "w"))
	add("rate")(s.Rate(part, "v"))
	add("pctChange")(s.PctChange(win, "v"))
	add("cumulative")(s.Cumulative(root, live.Running{Column: "v", Using: reduce.Sum}, live.Running{Column: "w", Using: reduce.Max}))
	add("fill")(s.Fill(part, live.FillOptions{Strategy: live.FillHold, Limit: 1}))
	add("fillZero")(s.Fill(root, live.FillOptions{Strategy: live.FillZero}))
	add("sample")(s.Sample(part, 2))
	add("gather")(s.Gather(ids["select"]))
	add("perPartition")(s.PerPartition(part, func(s *live.Series, p live.NodeID) (live.NodeID, error) {
		d, err := s.Diff(p, "v")
		if err != nil {
			return 0, err
		}
		return s.Fill(d, live.FillOptions{Strategy: live.FillHold})
	}))
	add("reduce of rolling")(s.Reduce(ids["rolling"], []reduce.Agg{{Out: "m", From: "avg", Using: reduce.Max}}, trigger.Trigger{}))
	add("window of aggregate")(s.Window(ids["aggregate"], time.Second))
	return names, ids
}

// TestCpSchemaProbe: every node's outputs carry exactly the schema
// NodeSchema gives, a missing cell only in an Optional column, push
// after push, through PushRows and PushMany alike (same outputs).
func TestCpSchemaProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(402, 7))
	checked := 0
	failures := 0
	for n := range 6 {
		ord := live.Ordering(n % 3)
		opts := live.Options{Ordering: ord, MaxEvents: 40}
		if ord == live.Reorder {
			opts.Grace = 30 * time.Millisecond
		}
		s1, err := live.New("cp", cpSchema(t), opts)
		require.NoError(t, err)
		s2, err := live.New("cp", cpSchema(t), opts)
		require.NoError(t, err)
		names, ids := cpAllKinds(t, s1)
		_, _ = cpAllKinds(t, s2)
		schemas := map[string]*schema.Schema{}
		for _, name := range names {
			sc, err := s1.NodeSchema(ids[name])
			require.NoError(t, err, name)
			schemas[name] = sc
			kinds := []live.OutputKind{live.Event}
			switch name {
			case "root", "partition":
				kinds = append(kinds, live.Batch, live.Evict)
			case "rolling", "rolling count", "rolling part clock", "rolling aligned", "reduce", "reduce part", "aggregate", "reduce of rolling", "window of aggregate":
			default:
				kinds = append(kinds, live.Evict)
			}
			for _, s := range []*live.Series{s1, s2} {
				require.NoError(t, s.Watch(ids[name], kinds...), name)
			}
			d, err := s1.Describe(ids[name])
			require.NoError(t, err, name)
			require.NotEmpty(t, d, name)
		}
		clock := int64(0)
		for p := range 60 {
			var rows []schema.Row
			for range 1 + rng.IntN(5) {
				clock += int64(rng.IntN(15))
				tm := clock
				if ord != live.Strict && rng.IntN(5) == 0 {
					tm -= int64(rng.IntN(25))
				}
				r := cpRow(tm, float64(rng.IntN(7)), []string{"a", "b", "c"}[rng.IntN(3)])
				if rng.IntN(4) == 0 {
					r[4] = schema.Missing()
				}
				rows = append(rows, r)
			}
			o1, e1 := s1.PushRows(nil, rows...)
			o2, e2 := s2.PushMany(nil, cpBatch(s2.Schema(), rows))
			require.NoError(t, e1)
			require.NoError(t, e2)
			if a, b := cpDump(s1, o1), cpDump(s2, o2); a != b {
				failures++
				t.Errorf("case %d push %d: PushRows and PushMany differ:\n%s\nvs\n%s", n, p, a, b)
			}
			for _, o := range o1 {
				name := ""
				for nm, id := range ids {
					if id == o.Node {
						name = nm
					}
				}
				want := schemas[name]
				got := o.Events.Schema()
				if !got.Equal(want) {
					failures++
					if failures < 10 {
						t.Errorf("case %d push %d: %s %v table schema %v, NodeSchema %v", n, p, name, o.Kind, got, want)
					}
				}
				for i := range o.Events.Len() {
					for j := 1; j < want.Len(); j++ {
						if o.Events.Value(i, j).IsMissing() && !want.Column(j).Optional {
							failures++
							if failures < 10 {
								t.Errorf("case %d push %d: %s %v: a missing %s in a required column (schema %v)", n, p, name, o.Kind, want.Column(j).Name, want)
							}
						}
					}
				}
				checked++
			}
		}
		s1.Close()
		s2.Close()
	}
	require.Zero(t, failures)
	require.GreaterOrEqual(t, checked, 3000)
}

// cpState is everything the public API reads of a series and its nodes.
func cpState(s *live.Series, names []string, ids map[string]live.NodeID, bytes bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stats %+v len %d held %d\n", s.Stats(), s.Len(), s.HeldBytes())
	lt, ok := s.LatestNanos()
	fmt.Fprintf(&b, "latest %d %v\n", lt, ok)
	for _, n := range names {
		id := ids[n]
		if bytes {
			nb, err := s.NodeBytes(id)
			fmt.Fprintf(&b, "%s bytes %d %v\n", n, nb, err)
		}
		if tab, err := s.Snapshot(id); err == nil {
			fmt.Fprintf(&b, "%s snapshot %s\n", n, tab.AppendJSON(nil))
		}
		if tab, err := s.Value(id); err == nil {
			fmt.Fprintf(&b, "%s value %s\n", n, tab.AppendJSON(nil))
		}
		if ps, err := s.Partitions(id); err == nil {
			fmt.Fprintf(&b, "%s partitions %v\n", n, ps)
		}
		if a, err := s.AggregateStats(id); err == nil {
			fmt.Fprintf(&b, "%s aggregate %+v\n", n, a)
		}
	}
	return b.String()
}

// TestCpFailedPushProbe: over a series with a node of every kind, under
// every ordering, a partitioning with a limit, random pushes of which
// some fail (a bad cell, out of order, too late, a key over the limit):
// a failed push leaves everything the API reads as it was (counters,
// bytes, snapshots, values, partitions, aggregate stats) and dst as it
// was, and the next pushes give what a twin series that never saw the
// failed pushes gives.
func TestCpFailedPushProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(403, 7))
	checked, failedPushes := 0, 0
	for n := range 6 {
		ord := live.Ordering(n % 3)
		opts := live.Options{Ordering: ord, MaxEvents: 30, MaxAge: time.Duration(100+rng.IntN(200)) * time.Millisecond}
		if ord == live.Reorder {
			opts.Grace = 20 * time.Millisecond
		}
		twin, err := live.New("cp", cpSchema(t), opts)
		require.NoError(t, err)
		opts.Workers = n / 3 * 2 // 0 then 2; the twin works alone
		s, err := live.New("cp", cpSchema(t), opts)
		require.NoError(t, err)
		names, ids := cpAllKinds(t, s)
		_, _ = cpAllKinds(t, twin)
		lim, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxPartitions: 3, IdleTTL: 60 * time.Millisecond})
		require.NoError(t, err)
		_, err = twin.PartitionBy(twin.Root(), "host", partition.Options{MaxPartitions: 3, IdleTTL: 60 * time.Millisecond})
		require.NoError(t, err)
		names = append(names, "limited")
		ids["limited"] = lim
		for _, x := range []*live.Series{s, twin} {
			for _, name := range names {
				for _, k := range []live.OutputKind{live.Event, live.Batch, live.Evict} {
					_ = x.Watch(ids[name], k)
				}
			}
		}
		clock := int64(0)
		for p := range 70 {
			var rows []schema.Row
			for range 1 + rng.IntN(4) {
				clock += int64(rng.IntN(12))
				tm := clock
				if rng.IntN(6) == 0 {
					tm -= int64(rng.IntN(40))
				}
				host := []string{"a", "b", "c", "d", "e"}[rng.IntN(5)]
				if rng.IntN(3) > 0 {
					host = []string{"a", "b"}[rng.IntN(2)]
				}
				r := cpRow(tm, float64(rng.IntN(9)), host)
				if rng.IntN(25) == 0 {
					r[1] = schema.Missing()
				}
				rows = append(rows, r)
			}
			before := cpState(s, names, ids, false)
			dst := make([]live.Output, 1, 8)
			dst[0] = live.Output{Node: 99}
			var out []live.Output
			if rng.IntN(2) == 0 {
				out, err = s.PushRows(dst, rows...)
			} else {
				out, err = s.PushMany(dst, cpBatch(s.Schema(), rows))
			}
			if err != nil {
				failedPushes++
				if after := cpState(s, names, ids, false); after != before {
					t.Fatalf("case %d push %d: the failed push (%v) changed the state:\n%s\nvs\n%s", n, p, err, before, after)
				}
				require.Len(t, out, 1)
				require.Equal(t, live.NodeID(99), out[0].Node)
				continue
			}
			o2, err := twin.PushRows(nil, rows...)
			require.NoError(t, err, "case %d push %d: the twin refused what the series took", n, p)
			if a, b := cpDump(s, out[1:]), cpDump(twin, o2); a != b {
				t.Fatalf("case %d push %d: outputs differ from the twin's:\n%s\nvs\n%s", n, p, a, b)
			}
			if p%4 != 0 {
				checked++
				continue
			}
			if a, b := cpState(s, names, ids, false), cpState(twin, names, ids, false); a != b {
				t.Fatalf("case %d push %d: state differs from the twin's:\n%s\nvs\n%s", n, p, a, b)
			}
			checked++
		}
		s.Close()
		twin.Close()
	}
	t.Logf("%d pushes compared, %d failed pushes", checked, failedPushes)
	require.GreaterOrEqual(t, checked, 250)
	require.GreaterOrEqual(t, failedPushes, 60)
}

// TestCpLimitRejectGrowsNodeBytesOnce: a push that MaxPartitions
// refuses changes no state, but may grow the partitioning's scratch room
// (a probe found NodeBytes 21 bytes higher after the first such push),
// which NodeBytes counts at capacity, as its doc says: once, not at
// every refused push.
func TestCpLimitRejectGrowsNodeBytesOnce(t *testing.T) {
	s, err := live.New("cp", cpSchema(t), live.Options{})
	require.NoError(t, err)
	p, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxPartitions: 2})
	require.NoError(t, err)
	_, err = s.PushRows(nil, cpRow(1, 1, "a"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, cpRow(2, 1, "b"), cpRow(2, 1, "c"))
	require.ErrorIs(t, err, partition.ErrLimit)
	once, err := s.NodeBytes(p)
	require.NoError(t, err)
	for i := range 2000 {
		_, err = s.PushRows(nil, cpRow(int64(3+i), 1, "b"), cpRow(int64(3+i), 1, fmt.Sprintf("k%d", i)))
		require.ErrorIs(t, err, partition.ErrLimit)
	}
	after, err := s.NodeBytes(p)
	require.NoError(t, err)
	require.Equal(t, once, after, "NodeBytes of the partitioning after 2,000 more refused pushes")
}

// TestCpNewValidation: every bad option New's doc names is a
// *ConfigError wrapping ErrConfig whose Field names the option, and the
// limits themselves are accepted.
func TestCpNewValidation(t *testing.T) {
	sc := cpSchema(t)
	bad := []struct {
		opts  live.Options
		field string
	}{
		{live.Options{MaxAge: -1}, "MaxAge"},
		{live.Options{MaxAge: sequence.MaxDuration + 1}, "MaxAge"},
		{live.Options{MaxEvents: -1}, "MaxEvents"},
		{live.Options{Ordering: 3}, "Ordering"},
		{live.Options{Ordering: 255}, "Ordering"},
		{live.Options{Ordering: live.Reorder, Grace: -1}, "Grace"},
		{live.Options{Ordering: live.Reorder, Grace: sequence.MaxDuration + 1}, "Grace"},
		{live.Options{Grace: time.Second}, "Grace"},
		{live.Options{Ordering: live.Drop, Grace: time.Second}, "Grace"},
		{live.Options{Ordering: live.Reorder, Grace: 2 * time.Second, MaxAge: time.Second}, "Grace"},
		{live.Options{Workers: -1}, "Workers"},
		{live.Options{Workers: live.MaxWorkers + 1}, "Workers"},
	}
	for _, b := range bad {
		s, err := live.New("cp", sc, b.opts)
		require.Nil(t, s, "%+v", b.opts)
		require.ErrorIs(t, err, live.ErrConfig, "%+v", b.opts)
		var ce *live.ConfigError
		require.ErrorAs(t, err, &ce, "%+v", b.opts)
		require.Equal(t, "new", ce.Op, "%+v", b.opts)
		require.Equal(t, b.field, ce.Field, "%+v", b.opts)
		require.Contains(t, err.Error(), b.field)
	}
	for _, o := range []live.Options{
		{MaxAge: sequence.MaxDuration},
		{Ordering: live.Reorder, Grace: sequence.MaxDuration},
		{Ordering: live.Reorder, Grace: time.Second, MaxAge: time.Second},
		{Workers: live.MaxWorkers},
		{Ordering: live.Reorder},
	} {
		s, err := live.New("cp", sc, o)
		require.NoError(t, err, "%+v", o)
		require.NoError(t, s.Close())
	}
	for _, sc := range []*schema.Schema{nil, {}} {
		_, err := live.New("cp", sc, live.Options{})
		require.ErrorIs(t, err, live.ErrConfig)
		require.ErrorIs(t, err, schema.ErrSchema)
	}
	for _, name := range []string{"Strict", "late", " drop"} {
		_, err := live.ParseOrdering(name)
		require.ErrorIs(t, err, live.ErrConfig, name)
	}
	for _, name := range []string{"", "Hold", "previous"} {
		_, err := live.ParseFillStrategy(name)
		require.ErrorIs(t, err, live.ErrConfig, name)
	}
}

// A *ConfigError's Field is "the option or column concerned, if any";
// every builder sets it (Reduce and Aggregate to the output, Select,
// Diff, Fill… to the column) but Rolling, whose errors all come with an
// empty Field even when a column or an option is concerned: here the
// source column "nope" of output "s".
func TestCpRollingConfigErrorField(t *testing.T) {
	s, err := live.New("cp", cpSchema(t), live.Options{})
	require.NoError(t, err)
	_, err = s.Reduce(s.Root(), cpAgg("s", "nope", reduce.Sum), trigger.Trigger{})
	var ce *live.ConfigError
	require.ErrorAs(t, err, &ce)
	require.NotEmpty(t, ce.Field, "reduce: %v", err)
	_, err = s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: cpAgg("s", "nope", reduce.Sum)}}, rolling.Options{})
	require.ErrorAs(t, err, &ce)
	require.NotEmpty(t, ce.Field, "rolling: %v", err)
}

// TestCpMalformedBatchProbe: batches of the wrong shape (a column
// missing or extra, a typed slice or Missing flags of the wrong length,
// a wrong slice set, times out of range) and rows of the wrong length
// are errors wrapping schema.ErrValidation, never a panic, and change
// nothing; a well-formed batch after them gives what a twin gives.
func TestCpMalformedBatchProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(404, 7))
	sc := cpSchema(t)
	s, err := live.New("cp", sc, live.Options{MaxEvents: 20})
	require.NoError(t, err)
	twin, err := live.New("cp", sc, live.Options{MaxEvents: 20})
	require.NoError(t, err)
	names, ids := cpAllKinds(t, s)
	_, _ = cpAllKinds(t, twin)
	for _, x := range []*live.Series{s, twin} {
		for _, name := range names {
			_ = x.Watch(ids[name], live.Event, live.Evict)
		}
	}
	clock := int64(0)
	checked, bad := 0, 0
	for p := range 900 {
		var rows []schema.Row
		for range 1 + rng.IntN(4) {
			clock += int64(rng.IntN(10))
			rows = append(rows, cpRow(clock, float64(rng.IntN(9)), []string{"a", "b"}[rng.IntN(2)]))
		}
		b := cpBatch(sc, rows)
		mutated := true
		what := ""
		switch rng.IntN(20) {
		case 0:
			b.Cols = b.Cols[:len(b.Cols)-1]
			what = "a column short"
		case 1:
			b.Cols = append(b.Cols, schema.Vec{Num: make([]float64, len(rows))})
			what = "a column extra"
		case 2:
			b.Cols[0].Num = b.Cols[0].Num[:len(rows)-1]
			what = "numbers short"
		case 3:
			b.Cols[2].Str = append(b.Cols[2].Str, "x")
			what = "strings long"
		case 4:
			b.Cols[1].Missing = make([]bool, len(rows)+1)
			what = "missing flags long"
		case 5:
			b.Cols[3].Missing = []bool{}
			what = "missing flags empty"
		case 6:
			b.Cols[0].Str = make([]string, len(rows))
			b.Cols[0].Num = nil
			what = "strings in a number column"
		case 7:
			b.Time[len(b.Time)-1] = math.MaxInt64
			what = "time past the range"
		case 8:
			b.Cols[3].Bool = nil
			what = "no booleans"
		case 9:
			var r []schema.Row
			r = append(r, rows...)
			r[0] = r[0][:len(r[0])-1]
			_, err := s.PushRows(nil, r...)
			if err == nil || !errors.Is(err, schema.ErrValidation) {
				t.Fatalf("push %d: a short row: %v", p, err)
			}
			bad++
			continue
		default:
			mutated = false
		}
		if !mutated {
			o1, err1 := s.PushMany(nil, b)
			o2, err2 := twin.PushMany(nil, b)
			require.NoError(t, err1)
			require.NoError(t, err2)
			if a, b := cpDump(s, o1), cpDump(twin, o2); a != b {
				t.Fatalf("push %d: %s\nvs\n%s", p, a, b)
			}
			checked++
			continue
		}
		before := cpState(s, names, ids, false)
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			_, err = s.PushMany(nil, b)
		}()
		if err == nil {
			t.Fatalf("push %d: %s accepted", p, what)
		}
		if !errors.Is(err, schema.ErrValidation) {
			t.Fatalf("push %d: %s: %v does not wrap schema.ErrValidation", p, what, err)
		}
		var re *schema.RowError
		if !errors.As(err, &re) {
			t.Fatalf("push %d: %s: %v is no *schema.RowError", p, what, err)
		}
		if after := cpState(s, names, ids, false); after != before {
			t.Fatalf("push %d: %s changed the state", p, what)
		}
		bad++
	}
	require.GreaterOrEqual(t, checked, 300)
	require.GreaterOrEqual(t, bad, 100)
}

// cpCalls are the calls of a series that can fail, each returning its
// error.
func cpCalls(s *live.Series, sc *schema.Schema, ids map[string]live.NodeID) map[string]func() error {
	return map[string]func() error{
		"PushRows": func() error { _, err := s.PushRows(nil, cpRow(9000, 1, "a")); return err },
		"PushMany": func() error {
			_, err := s.PushMany(nil, cpBatch(sc, []schema.Row{cpRow(9000, 1, "a")}))
			return err
		},
		"Select": func() error { _, err := s.Select(s.Root(), "v"); return err },
		"Rolling": func() error {
			_, err := s.Rolling(s.Root(), []rolling.Window{{Count: 2, Aggs: cpAgg("x", "v", reduce.Sum)}}, rolling.Options{})
			return err
		},
		"Reduce":         func() error { _, err := s.Reduce(s.Root(), cpAgg("x", "v", reduce.Sum), trigger.Trigger{}); return err },
		"Snapshot":       func() error { _, err := s.Snapshot(s.Root()); return err },
		"Value":          func() error { _, err := s.Value(ids["reduce"]); return err },
		"Describe":       func() error { _, err := s.Describe(s.Root()); return err },
		"NodeSchema":     func() error { _, err := s.NodeSchema(s.Root()); return err },
		"NodeBytes":      func() error { _, err := s.NodeBytes(s.Root()); return err },
		"Partitions":     func() error { _, err := s.Partitions(ids["partition"]); return err },
		"AggregateStats": func() error { _, err := s.AggregateStats(ids["aggregate"]); return err },
		"Watch":          func() error { return s.Watch(s.Root(), live.Evict) },
		"Unwatch":        func() error { return s.Unwatch(s.Root()) },
		"NewTyped":       func() error { _, err := live.NewTyped[struct{}](s); return err },
	}
}

// TestCpLifecycle: Close is idempotent and every later call that can
// fail gives ErrClosed while the reads go on; from inside a filter's
// function pushes, builders, snapshots, values and Close give
// ErrReentrant and nothing is half built; Watch and Unwatch are all or
// nothing; a zero Series gives ErrNotMade.
func TestCpLifecycle(t *testing.T) {
	for _, workers := range []int{0, 3} {
		s, err := live.New("cp", cpSchema(t), live.Options{Workers: workers})
		require.NoError(t, err)
		_, ids := cpAllKinds(t, s)
		_, err = s.PushRows(nil, cpRow(1, 1, "a"), cpRow(2, 2, "b"))
		require.NoError(t, err)
		stats, n := s.Stats(), s.Len()
		require.NoError(t, s.Close())
		require.NoError(t, s.Close())
		for name, call := range cpCalls(s, cpSchema(t), ids) {
			require.ErrorIs(t, call(), live.ErrClosed, name)
		}
		require.Equal(t, stats, s.Stats())
		require.Equal(t, n, s.Len())
		lt, ok := s.Latest()
		require.True(t, ok)
		require.Equal(t, time.UnixMilli(2).UTC(), lt.UTC())
	}

	// Reentrancy.
	s, err := live.New("cp", cpSchema(t), live.Options{})
	require.NoError(t, err)
	_, ids := cpAllKinds(t, s)
	reentrant := []string{"PushRows", "PushMany", "Select", "Rolling", "Reduce", "Snapshot", "Value"}
	got := map[string]error{}
	var closeErr error
	f, err := s.Filter(s.Root(), func(schema.Row) bool {
		if len(got) == 0 {
			calls := cpCalls(s, cpSchema(t), ids)
			for _, name := range reentrant {
				got[name] = calls[name]()
			}
			closeErr = s.Close()
		}
		return true
	})
	require.NoError(t, err)
	_, err = s.PushRows(nil, cpRow(1, 1, "a"))
	require.NoError(t, err)
	for _, name := range reentrant {
		require.ErrorIs(t, got[name], live.ErrReentrant, name)
	}
	require.ErrorIs(t, closeErr, live.ErrReentrant)
	next, err := s.Select(s.Root(), "v")
	require.NoError(t, err)
	require.Equal(t, f+1, next, "a build refused inside a push took an id")
	_, err = s.PushRows(nil, cpRow(2, 1, "a"))
	require.NoError(t, err, "Close inside a push closed the series")

	// Watch and Unwatch: all or nothing.
	r := ids["rolling"]
	require.ErrorIs(t, s.Watch(r, live.Event, live.Batch), live.ErrNode)
	out, err := s.PushRows(nil, cpRow(3, 1, "a"))
	require.NoError(t, err)
	_, found := live.Find(out, r, live.Event)
	require.False(t, found, "a refused Watch watched a kind")
	require.NoError(t, s.Watch(r))
	require.ErrorIs(t, s.Unwatch(r, live.Event, 9), live.ErrNode)
	out, err = s.PushRows(nil, cpRow(4, 1, "a"))
	require.NoError(t, err)
	_, found = live.Find(out, r, live.Event)
	require.True(t, found, "a refused Unwatch unwatched a kind")
	require.NoError(t, s.Unwatch(r, live.Evict), "unwatching a kind the node does not produce")
	for _, k := range []live.OutputKind{0, 4, 200} {
		require.ErrorIs(t, s.Watch(s.Root(), k), live.ErrNode)
	}

	// A rolling's hidden history id.
	h, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: cpAgg("x", "v", reduce.Sum)}}, rolling.Options{History: rolling.History{MaxEvents: 2}})
	require.NoError(t, err)
	hidden := map[string]live.NodeID{"reduce": h + 1, "partition": h + 1, "aggregate": h + 1}
	for name, call := range cpCalls(s, cpSchema(t), hidden) {
		switch name {
		case "PushRows", "PushMany", "Select", "Rolling", "Reduce", "Snapshot", "Describe", "NodeSchema", "NodeBytes", "Watch", "Unwatch", "NewTyped":
			continue
		}
		err := call()
		require.ErrorIs(t, err, live.ErrNode, name)
		require.Contains(t, err.Error(), fmt.Sprint(h), name)
	}
	for _, call := range []func() error{
		func() error { _, err := s.Snapshot(h + 1); return err },
		func() error { _, err := s.Describe(h + 1); return err },
		func() error { _, err := s.NodeSchema(h + 1); return err },
		func() error { _, err := s.NodeBytes(h + 1); return err },
		func() error { return s.Watch(h + 1) },
		func() error { _, err := s.Diff(h+1, "x"); return err },
	} {
		require.ErrorIs(t, call(), live.ErrNode)
	}
	require.NoError(t, s.Close())

	var z live.Series
	for name, call := range cpCalls(&z, cpSchema(t), ids) {
		if name == "NewTyped" {
			continue
		}
		require.ErrorIs(t, call(), live.ErrNotMade, name)
	}
}
