package conformance_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// This file turns the pipeline steps of the vectors into calls of the
// library's API.

func init() {
	steps["rolling"] = buildRolling
	steps["partitionBy"] = buildPartitionBy
	steps["sample"] = buildSample
	steps["diff"] = buildChange((*live.Series).Diff)
	steps["rate"] = buildChange((*live.Series).Rate)
	steps["pctChange"] = buildChange((*live.Series).PctChange)
	steps["fill"] = buildFill
	steps["cumulative"] = buildCumulative
	steps["window"] = buildWindow
	steps["select"] = buildSelect
	steps["reduce"] = buildReduce
	steps["aggregate"] = buildAggregate
}

// stepColumns reads the "columns" list of a step.
func stepColumns(step map[string]json.RawMessage) ([]string, error) {
	var cols []string
	if raw, ok := step["columns"]; ok {
		if err := json.Unmarshal(raw, &cols); err != nil {
			return nil, configErr("columns", err)
		}
	}
	return cols, nil
}

func buildChange(add func(*live.Series, live.NodeID, ...string) (live.NodeID, error)) func(*live.Series, live.NodeID, map[string]json.RawMessage) (live.NodeID, error) {
	return func(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
		cols, err := stepColumns(step)
		if err != nil {
			return 0, err
		}
		return add(s, src, cols...)
	}
}

func buildSelect(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	cols, err := stepColumns(step)
	if err != nil {
		return 0, err
	}
	return s.Select(src, cols...)
}

func buildFill(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	var spec struct {
		Strategy string  `json:"strategy"`
		Limit    float64 `json:"limit"`
	}
	if err := json.Unmarshal(mustJSON(step), &spec); err != nil {
		return 0, err
	}
	if spec.Limit != float64(int(spec.Limit)) {
		return 0, configErr("limit", fmt.Errorf("limit %v is not an integer", spec.Limit))
	}
	strategy, err := live.ParseFillStrategy(spec.Strategy)
	if err != nil {
		return 0, err
	}
	cols, err := stepColumns(step)
	if err != nil {
		return 0, err
	}
	return s.Fill(src, live.FillOptions{Strategy: strategy, Limit: int(spec.Limit), Columns: cols})
}

func buildCumulative(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	ms, err := members(step["aggs"])
	if err != nil {
		return 0, configErr("aggs", err)
	}
	var totals []live.Running
	for _, m := range ms {
		var name string
		if err := json.Unmarshal(m.val, &name); err != nil {
			return 0, configErr(m.key, err)
		}
		r, err := reduce.Parse(name)
		if err != nil {
			return 0, configErr(m.key, err)
		}
		totals = append(totals, live.Running{Column: m.key, Using: r})
	}
	return s.Cumulative(src, totals...)
}

func buildWindow(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	raw := step["length"]
	var str string
	if json.Unmarshal(raw, &str) == nil {
		d, err := lenientDuration(str)
		if err != nil {
			return 0, configErr("length", err)
		}
		return s.Window(src, d)
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, configErr("length", err)
	}
	if n != float64(int(n)) {
		return 0, configErr("length", fmt.Errorf("count %v is not an integer", n))
	}
	return s.WindowCount(src, int(n))
}

func buildReduce(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	trig, err := parseTrigger(step["trigger"])
	if err != nil {
		return 0, err
	}
	aggs, err := parseAggs(step["aggs"])
	if err != nil {
		return 0, err
	}
	return s.Reduce(src, aggs, trig)
}

func buildAggregate(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	var spec struct {
		Every  string       `json:"every"`
		Anchor *json.Number `json:"anchor"`
		Grace  string       `json:"grace"`
	}
	if err := json.Unmarshal(mustJSON(step), &spec); err != nil {
		return 0, err
	}
	step0, err := lenientDuration(spec.Every)
	if err != nil {
		return 0, configErr("every", err)
	}
	seq := sequence.Every(step0)
	if spec.Anchor != nil {
		anchor, err := msNanos(string(*spec.Anchor))
		if err != nil {
			return 0, configErr("anchor", err)
		}
		seq = seq.WithAnchorNanos(anchor)
	}
	var grace time.Duration
	if spec.Grace != "" {
		if grace, err = lenientDuration(spec.Grace); err != nil {
			return 0, configErr("grace", err)
		}
	}
	aggs, err := parseAggs(step["aggs"])
	if err != nil {
		return 0, err
	}
	return s.Aggregate(src, seq, aggs, grace)
}

func buildSample(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	var spec struct {
		Stride float64 `json:"stride"`
	}
	if err := json.Unmarshal(mustJSON(step), &spec); err != nil {
		return 0, err
	}
	if spec.Stride != float64(int(spec.Stride)) {
		return 0, configErr("stride", fmt.Errorf("stride %v is not an integer", spec.Stride))
	}
	return s.Sample(src, int(spec.Stride))
}

// kv is one member of a JSON object, in document order.
type kv struct {
	key string
	val json.RawMessage
}

// members reads a JSON object keeping the order of its members, which
// decides the order of windows and outputs.
func members(raw json.RawMessage) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected an object, got %v", tok)
	}
	var out []kv
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, kv{tok.(string), v})
	}
	return out, nil
}

func configErr(field string, err error) error {
	return &live.ConfigError{Op: "vector", Field: field, Reason: "bad step", Err: err}
}

// lenientDuration parses <digits><unit> allowing zero, so that zero
// durations reach the library, whose validation must reject them.
func lenientDuration(s string) (time.Duration, error) {
	if len(s) > 0 && s[0] == '0' && len(s) > 1 {
		allZero := true
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if s[i] != '0' {
				allZero = false
			}
			i++
		}
		if allZero && i < len(s) {
			if _, err := sequence.ParseDuration("1" + s[i:]); err == nil {
				return 0, nil
			}
		}
	}
	return sequence.ParseDuration(s)
}

func parseAggs(raw json.RawMessage) ([]reduce.Agg, error) {
	ms, err := members(raw)
	if err != nil {
		return nil, err
	}
	var aggs []reduce.Agg
	for _, m := range ms {
		var spec struct {
			From  string `json:"from"`
			Using string `json:"using"`
		}
		if err := json.Unmarshal(m.val, &spec); err != nil {
			return nil, err
		}
		r, err := reduce.Parse(spec.Using)
		if err != nil {
			return nil, configErr(m.key, err)
		}
		aggs = append(aggs, reduce.Agg{Out: m.key, From: spec.From, Using: r})
	}
	return aggs, nil
}

func parseTrigger(raw json.RawMessage) (trigger.Trigger, error) {
	if raw == nil {
		return trigger.Event(), nil
	}
	var spec struct {
		Kind   string       `json:"kind"`
		Every  string       `json:"every"`
		Anchor *json.Number `json:"anchor"`
		N      int          `json:"n"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return trigger.Trigger{}, err
	}
	switch spec.Kind {
	case "event", "":
		return trigger.Event(), nil
	case "count":
		return trigger.Count(spec.N), nil
	case "clock":
		d, err := lenientDuration(spec.Every)
		if err != nil {
			return trigger.Trigger{}, configErr("every", err)
		}
		seq := sequence.Every(d)
		if spec.Anchor != nil {
			anchor, err := msNanos(string(*spec.Anchor))
			if err != nil {
				return trigger.Trigger{}, configErr("anchor", err)
			}
			seq = seq.WithAnchorNanos(anchor)
		}
		return trigger.Clock(seq), nil
	}
	return trigger.Trigger{}, configErr("trigger", fmt.Errorf("unknown trigger kind %q", spec.Kind))
}

func buildRolling(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	var opts rolling.Options
	var err error
	if opts.Trigger, err = parseTrigger(step["trigger"]); err != nil {
		return 0, err
	}
	if raw, ok := step["minSamples"]; ok {
		if err := json.Unmarshal(raw, &opts.MinSamples); err != nil {
			return 0, err
		}
	}
	var windows []rolling.Window
	if raw, ok := step["windows"]; ok {
		ms, err := members(raw)
		if err != nil {
			return 0, err
		}
		if len(ms) == 0 {
			// Let the library reject an empty window list.
			return s.Rolling(src, nil, opts)
		}
		for _, m := range ms {
			span, err := lenientDuration(m.key)
			if err != nil {
				return 0, configErr("windows", err)
			}
			w := rolling.Window{Name: m.key, Span: span}
			var wrapper struct {
				Mapping    json.RawMessage `json:"mapping"`
				MinSamples *int            `json:"minSamples"`
			}
			mapping := m.val
			if json.Unmarshal(m.val, &wrapper) == nil && wrapper.Mapping != nil && isWrapper(wrapper.Mapping) {
				mapping = wrapper.Mapping
				w.MinSamples = wrapper.MinSamples
			}
			if w.Aggs, err = parseAggs(mapping); err != nil {
				return 0, err
			}
			windows = append(windows, w)
		}
	} else {
		var w rolling.Window
		raw := step["window"]
		var str string
		if json.Unmarshal(raw, &str) == nil {
			w.Name = str
			if w.Span, err = lenientDuration(str); err != nil {
				return 0, configErr("window", err)
			}
		} else {
			var n float64
			if err := json.Unmarshal(raw, &n); err != nil {
				return 0, err
			}
			if n != float64(int(n)) {
				return 0, configErr("window", fmt.Errorf("count %v is not an integer", n))
			}
			w.Count = int(n)
			w.Name = strconv.Itoa(w.Count)
		}
		if w.Aggs, err = parseAggs(step["aggs"]); err != nil {
			return 0, err
		}
		windows = append(windows, w)
	}
	return s.Rolling(src, windows, opts)
}

// isWrapper tells pond-ts's per-window wrapper {mapping: {...}} from a
// mapping with an output literally named "mapping" ({mapping: {from, using}}).
func isWrapper(raw json.RawMessage) bool {
	var spec map[string]json.RawMessage
	if json.Unmarshal(raw, &spec) != nil {
		return false
	}
	_, from := spec["from"]
	_, using := spec["using"]
	return !(from && using)
}

func buildPartitionBy(s *live.Series, src live.NodeID, step map[string]json.RawMessage) (live.NodeID, error) {
	var spec struct {
		Column    string `json:"column"`
		Groups    []any  `json:"groups"`
		Retention struct {
			MaxAge    string `json:"maxAge"`
			MaxEvents int    `json:"maxEvents"`
		} `json:"retention"`
	}
	if err := json.Unmarshal(mustJSON(step), &spec); err != nil {
		return 0, err
	}
	var opts partition.Options
	for _, g := range spec.Groups {
		v, err := schema.Of(g)
		if err != nil {
			return 0, configErr("groups", err)
		}
		opts.Groups = append(opts.Groups, v)
	}
	opts.MaxEvents = spec.Retention.MaxEvents
	if spec.Retention.MaxAge != "" {
		d, err := sequence.ParseDuration(spec.Retention.MaxAge)
		if err != nil {
			return 0, configErr("maxAge", err)
		}
		opts.MaxAge = d
	}
	return s.PartitionBy(src, spec.Column, opts)
}

func mustJSON(step map[string]json.RawMessage) []byte {
	b, err := json.Marshal(step)
	if err != nil {
		panic(err)
	}
	return b
}
