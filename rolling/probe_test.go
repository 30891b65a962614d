package rolling_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

var probeSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "v", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "ok", Kind: schema.Bool, Optional: true},
)

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// rollingProblems is the model of which specifications are valid, from
// the docs of rolling.Window and rolling.Options: it lists every problem
// of the specification by the word its error message must hold (the
// field, or the window's or output's name).
func rollingProblems(ws []rolling.Window, o rolling.Options) []string {
	var bad []string
	add := func(what ...string) { bad = append(bad, strings.Join(what, "|")) }
	if o.Trigger.Err() != nil {
		add("trigger")
	}
	if o.MinSamples < 0 {
		add("MinSamples")
	}
	clockStep := int64(0)
	if s := o.Trigger.String(); strings.HasPrefix(s, "clock(") {
		d, _ := time.ParseDuration(strings.TrimSuffix(strings.Fields(strings.TrimPrefix(s, "clock(every "))[0], ")"))
		clockStep = int64(d)
	}
	if o.Aligned && clockStep == 0 && o.Trigger.Err() == nil {
		add("Aligned")
	}
	if o.History.MaxEvents < 0 {
		add("History.MaxEvents")
	}
	if o.History.MaxAge < 0 || o.History.MaxAge > sequence.MaxDuration {
		add("History.MaxAge")
	}
	if len(ws) == 0 {
		add("window")
	}
	outs := map[string]bool{"time": true}
	names := map[string]bool{}
	for _, w := range ws {
		name := w.Name
		if name == "" {
			name = strings.TrimSuffix(strings.TrimSuffix(w.Span.String(), "0s"), "0m")
			if w.Count != 0 {
				name = fmt.Sprint(w.Count)
			}
		}
		if w.Span < 0 || w.Span > sequence.MaxDuration {
			add(name, "span")
		}
		if w.Count < 0 {
			add(name, "count")
		}
		if (w.Span > 0) == (w.Count > 0) && w.Span >= 0 && w.Count >= 0 {
			add(name, "Span")
		}
		if w.Count > 0 && len(ws) > 1 {
			add(name, "count window")
		}
		if w.MinSamples != nil && *w.MinSamples < 0 {
			add(name, "MinSamples")
		}
		if len(w.Aggs) == 0 {
			add(name, "aggregation")
		}
		ms := o.MinSamples
		if w.MinSamples != nil {
			ms = *w.MinSamples
		}
		if w.Count > 0 && ms > w.Count {
			add(name, "MinSamples")
		}
		if o.Aligned && w.Count > 0 {
			add(name, "Aligned")
		}
		if o.Aligned && clockStep > 0 && w.Span > 0 && w.Span <= sequence.MaxDuration {
			g := new(big.Int).GCD(nil, nil, big.NewInt(int64(w.Span)), big.NewInt(clockStep)).Int64()
			if int64(w.Span)/g > 1<<20 {
				add(name, "panes")
			}
			if int64(w.Span)/g+clockStep/g+2 > 1<<22 {
				// A span and a step of panes beside it, at most 2^22
				// (no grace here; TestProbeAlignedStepPanes).
				add(name, "step")
			}
		}
		for _, a := range w.Aggs {
			if a.Out == "" {
				add(name, "output")
			} else if outs[a.Out] {
				add(a.Out)
			}
			outs[a.Out] = true
			i, ok := probeSchema.Index(a.From)
			if !ok || i == 0 || a.Using.Check(probeSchema.Column(i).Kind) != nil {
				add(a.Out)
			}
		}
		// Window names are distinct (not in the docs: an explicit name,
		// or two windows of one span unnamed, repeated is an error).
		if names[name] {
			add(name)
		}
		names[name] = true
	}
	return bad
}

// TestProbeRollingSpecs builds random rolling specifications through the
// live package and compares which fail with the model.
func TestProbeRollingSpecs(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	reducers := []reduce.Reducer{reduce.Sum, reduce.Count, reduce.First, reduce.Percentile(95), reduce.Percentile(101), reduce.Top(0), reduce.Top(2), {}, reduce.Samples, reduce.Avg}
	valid, invalid := 0, 0
	for iter := range 1500 {
		clean := r.IntN(3) != 0 // mostly valid specifications, a few bad fields
		rare := func(p int) bool { return !clean && r.IntN(p) == 0 }
		var o rolling.Options
		o.Trigger = pick(r, trigger.Event(), trigger.Count(pick(r, 1, 3)), trigger.Every(pick(r, time.Second, time.Millisecond)))
		if rare(4) {
			o.Trigger = pick(r, trigger.Count(pick(r, 0, -1)), trigger.Every(pick(r, 0, -time.Second, sequence.MaxDuration+1)))
		}
		o.MinSamples = pick(r, 0, 0, 1, 5)
		if rare(4) {
			o.MinSamples = -1
		}
		o.Aligned = r.IntN(4) == 0
		o.History.MaxEvents = pick(r, 0, 0, 10)
		if rare(4) {
			o.History.MaxEvents = -1
		}
		o.History.MaxAge = pick(r, 0, 0, time.Minute, sequence.MaxDuration)
		if rare(4) {
			o.History.MaxAge = pick(r, -1, sequence.MaxDuration+1)
		}
		var ws []rolling.Window
		nw := pick(r, 1, 1, 2, 3)
		if rare(6) {
			nw = 0
		}
		for wi := range nw {
			w := rolling.Window{}
			if r.IntN(5) == 0 {
				w.Name = pick(r, "a", "b", "1s")
			}
			switch r.IntN(8) {
			case 0:
				w.Count = pick(r, 1, 3, 10, -1)
			case 1:
				if clean {
					w.Span = time.Duration(1+wi) * 3 * time.Second
					break
				}
				w.Span, w.Count = time.Second, 2
			case 2:
				w.Span = pick(r, -time.Second, 0, sequence.MaxDuration, sequence.MaxDuration+1, 7*time.Millisecond+1)
				if clean {
					w.Span = pick(r, sequence.MaxDuration, 7*time.Millisecond+1, 1)
				}
			default:
				w.Span = time.Duration(1+wi) * pick(r, time.Second, time.Minute, 2*time.Second)
			}
			if r.IntN(4) == 0 {
				w.MinSamples = rolling.Samples(pick(r, 0, 2, 20))
				if rare(3) {
					w.MinSamples = rolling.Samples(-1)
				}
			}
			na := pick(r, 1, 1, 2)
			if rare(6) {
				na = 0
			}
			for ai := range na {
				w.Aggs = append(w.Aggs, reduce.Agg{
					Out:   pick(r, "x", "y", "z", "w") + string(rune('0'+wi*3+ai)),
					From:  pick(r, "v", "v", "host", "ok"),
					Using: pick(r, reducers...),
				})
				if clean {
					w.Aggs[len(w.Aggs)-1].Using = pick(r, reduce.Count, reduce.First, reduce.Samples, reduce.Top(2))
				}
				if rare(5) {
					w.Aggs[len(w.Aggs)-1].From = pick(r, "time", "nope")
				}
				if rare(10) {
					w.Aggs[len(w.Aggs)-1].Out = pick(r, "", "time", "x0")
				}
			}
			ws = append(ws, w)
		}
		bad := rollingProblems(ws, o)
		ok := len(bad) == 0
		s, err := live.New("p", probeSchema, live.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Rolling(s.Root(), ws, o)
		var se *rolling.SpecError
		switch {
		case ok && err != nil:
			t.Fatalf("iter %d: Rolling(%+v, %+v) = %v, want no error", iter, ws, o, err)
		case !ok && err == nil:
			t.Fatalf("iter %d: Rolling(%+v, %+v) accepted, want an error about %v", iter, ws, o, bad)
		case !ok && (!errors.Is(err, rolling.ErrSpec) || !errors.As(err, &se)):
			t.Fatalf("iter %d: error %v is not a *SpecError wrapping ErrSpec", iter, err)
		case !ok && o.Trigger.Err() != nil && !errors.Is(err, trigger.ErrTrigger):
			t.Fatalf("iter %d: error %v does not wrap trigger.ErrTrigger", iter, err)
		case !ok && !namesOne(err.Error(), bad):
			t.Fatalf("iter %d: Rolling(%+v, %+v) = %q, want the message to name one of %v", iter, ws, o, err, bad)
		}
		if ok {
			valid++
		} else {
			invalid++
		}
		s.Close()
	}
	if valid < 100 || invalid < 100 {
		t.Fatalf("valid %d, invalid %d", valid, invalid)
	}
}

// TestProbePartitionOptions builds random partition options through the
// live package and compares which fail with the docs of partition.Options.
func TestProbePartitionOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	valid, invalid := 0, 0
	for iter := range 1500 {
		clean := r.IntN(2) == 0
		o := partition.Options{
			MaxEvents:     pick(r, 0, 0, 1, 10),
			MaxAge:        pick(r, 0, 0, time.Second, sequence.MaxDuration),
			MaxPartitions: pick(r, 0, 0, 3, 5),
			IdleTTL:       pick(r, 0, 0, time.Minute, sequence.MaxDuration),
		}
		col := pick(r, "host", "v", "ok")
		if !clean {
			o.MaxEvents = pick(r, o.MaxEvents, -1, math.MinInt)
			o.MaxAge = pick(r, o.MaxAge, -1, sequence.MaxDuration+1, math.MaxInt64)
			o.MaxPartitions = pick(r, o.MaxPartitions, 1, -1)
			o.IdleTTL = pick(r, o.IdleTTL, -1, sequence.MaxDuration+1, math.MinInt64)
			col = pick(r, col, "time")
		}
		kind := map[string]schema.Kind{"host": schema.String, "v": schema.Number, "ok": schema.Bool, "time": schema.Time}[col]
		for range pick(r, 0, 0, 1, 2, 3) {
			g := pick(r, schema.StringValue("a"), schema.StringValue("b"), schema.NumberValue(1),
				schema.NumberValue(0), schema.NumberValue(math.Copysign(0, -1)), schema.NumberValue(math.NaN()),
				schema.NumberValue(math.Inf(1)), schema.BoolValue(true), schema.BoolValue(false), schema.Missing())
			if clean && g.Kind() != kind {
				continue
			}
			o.Groups = append(o.Groups, g)
		}
		// every option that is wrong: the error must name one of them
		var bad []string
		if kind != schema.String && kind != schema.Number && kind != schema.Bool {
			bad = append(bad, "column")
		}
		if o.MaxEvents < 0 {
			bad = append(bad, "MaxEvents")
		}
		if o.MaxAge < 0 || o.MaxAge > sequence.MaxDuration {
			bad = append(bad, "MaxAge")
		}
		if o.MaxPartitions < 0 {
			bad = append(bad, "MaxPartitions")
		}
		if o.IdleTTL < 0 || o.IdleTTL > sequence.MaxDuration {
			bad = append(bad, "IdleTTL")
		}
		for i, g := range o.Groups {
			f, isNum := g.Num()
			if !g.IsMissing() && g.Kind() != kind || isNum && (math.IsNaN(f) || math.IsInf(f, 0)) {
				bad = append(bad, "group")
			}
			for _, h := range o.Groups[:i] {
				if h.Equal(g) {
					bad = append(bad, "group")
				}
			}
		}
		if o.MaxPartitions > 0 && len(o.Groups) > o.MaxPartitions {
			bad = append(bad, "MaxPartitions")
		}
		field := strings.Join(bad, " or ")
		s, err := live.New("p", probeSchema, live.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.PartitionBy(s.Root(), col, o)
		switch {
		case field == "" && err != nil:
			t.Fatalf("iter %d: PartitionBy(%q, %+v) = %v, want no error", iter, col, o, err)
		case field != "" && err == nil:
			t.Fatalf("iter %d: PartitionBy(%q, %+v) accepted, want an error about %s", iter, col, o, field)
		case err != nil && kind != schema.Time && kind != 0 && !errors.Is(err, partition.ErrOptions):
			t.Fatalf("iter %d: PartitionBy(%q, %+v) = %v, want an error wrapping ErrOptions", iter, col, o, err)
		case err != nil && !namesOne(err.Error(), bad):
			t.Fatalf("iter %d: PartitionBy(%q, %+v) = %q, want the message to name %s", iter, col, o, err, field)
		}
		if field == "" {
			valid++
		} else {
			invalid++
		}
		s.Close()
	}
	if valid < 100 || invalid < 100 {
		t.Fatalf("valid %d, invalid %d", valid, invalid)
	}
}

// namesOne reports whether msg names one of the fields, or the column
// when the column is what is wrong.
func namesOne(msg string, fields []string) bool {
	for _, f := range fields {
		all := true // every part of a|b is named
		for _, part := range strings.Split(f, "|") {
			all = all && (part == "column" || strings.Contains(msg, part))
		}
		if all {
			return true
		}
	}
	return false
}

// TestProbeAlignedStepPanes: a window keeps its panes for a span and a
// step beside it, at most 2^22 with the grace (rolling's "Aligned
// windows"): a window of one pane of 1ns on a clock of 1s needs 10^9 and
// is refused, with an error that names the window, its span and the step
// (it once spoke of "a lateness of 0s" alone; a probe of the docs found
// the rule undocumented). A 1ms window on a 1s clock builds.
func TestProbeAlignedStepPanes(t *testing.T) {
	build := func(span time.Duration) error {
		s, err := live.New("p", probeSchema, live.Options{}) // strict: no grace
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = s.Rolling(s.Root(), []rolling.Window{
			{Span: span, Aggs: []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}},
		}, rolling.Options{Trigger: trigger.Every(time.Second), Aligned: true})
		return err
	}
	if err := build(time.Millisecond); err != nil {
		t.Errorf("a 1ms window on a 1s clock: %v", err)
	}
	err := build(time.Nanosecond)
	var se *rolling.SpecError
	if !errors.As(err, &se) || se.Window != "1ns" || !strings.Contains(err.Error(), "a step of 1s") || !errors.Is(err, rolling.ErrSpec) {
		t.Errorf("a 1ns window on a 1s clock: %v, want a SpecError of window 1ns naming the step", err)
	}
}

// TestProbeAlignedSpanPanes: "A span needing more than 2^20 panes is a
// build error", at the bound and one pane beyond, for a few steps.
func TestProbeAlignedSpanPanes(t *testing.T) {
	for _, step := range []time.Duration{time.Millisecond, 3 * time.Millisecond, time.Second} {
		for _, panes := range []int64{1, 2, 1 << 20, 1<<20 + 1} {
			span := time.Duration(panes) * step
			if panes == 1<<20+1 {
				span = time.Duration(1<<20)*step + 1 // width 1ns: far more panes
				if step == time.Millisecond {
					span = time.Duration(panes) * step
				}
			}
			s, err := live.New("p", probeSchema, live.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Rolling(s.Root(), []rolling.Window{{Span: span, Aggs: []reduce.Agg{{Out: "n", From: "v", Using: reduce.Sum}}}},
				rolling.Options{Trigger: trigger.Every(step), Aligned: true})
			s.Close()
			if want := panes <= 1<<20; (err == nil) != want {
				t.Errorf("aligned span %v on a clock every %v (%d panes): %v, want ok=%v", span, step, panes, err, want)
			}
			var se *rolling.SpecError
			if err != nil && (!errors.As(err, &se) || se.Window == "" || !strings.Contains(err.Error(), "panes")) {
				t.Errorf("aligned span %v on a clock every %v: %v: want a SpecError naming the window and the panes", span, step, err)
			}
		}
	}
}
