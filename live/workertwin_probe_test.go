package live_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
	"github.com/stretchr/testify/require"
)

// The workers twin probe: the same random pipeline (every node kind the
// public API offers, two and three partitionings, several rollings on
// one, per-partition chains, nodes built and outputs watched or unwatched
// midway) and the same random pushes (columnar or by rows, of 0, 1, many
// and thousands of rows, bad rows midway) go into series of 1, 2, 3, 4
// and 7 workers, and every push's outputs and error, cell by cell and
// bit by bit (-0 and the bits of every number), and every reader between
// pushes must be those of the one-worker series. A clean one-worker twin
// is given only the pushes that were accepted: a refused push must change
// nothing, so its outputs and reads must be the same as well.

// wtwSchema has a number, a required number, the host, a number zone
// (missing at times), a boolean, an optional string and an array.
var wtwSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "y", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "zone", Kind: schema.Number, Optional: true},
	schema.Column{Name: "up", Kind: schema.Bool, Optional: true},
	schema.Column{Name: "tag", Kind: schema.String, Optional: true},
	schema.Column{Name: "arr", Kind: schema.Array, Optional: true},
)

var (
	wtwNumReducers = []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Mean, reduce.Stdev, reduce.Min, reduce.Max,
		reduce.First, reduce.Last, reduce.Difference, reduce.Median, reduce.Percentile(90), reduce.Percentile(0), reduce.Keep,
		reduce.Unique, reduce.Top(2), reduce.Samples}
	wtwAnyReducers = []reduce.Reducer{reduce.Count, reduce.First, reduce.Last, reduce.Keep, reduce.Unique, reduce.Top(2), reduce.Samples}
)

// wtwMs is n milliseconds.
func wtwMs(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// wtwAggs draws n outputs named from prefix over the columns of cols.
func wtwAggs(rng *rand.Rand, prefix string, n int, cols ...string) []reduce.Agg {
	if len(cols) == 0 {
		cols = []string{"x", "y", "x", "y", "tag", "up", "arr", "host"}
	}
	var aggs []reduce.Agg
	for i := range n {
		a := reduce.Agg{Out: fmt.Sprintf("%s%d", prefix, i), From: cols[rng.IntN(len(cols))]}
		switch a.From {
		case "x", "y", "zone":
			a.Using = wtwNumReducers[rng.IntN(len(wtwNumReducers))]
		default:
			a.Using = wtwAnyReducers[rng.IntN(len(wtwAnyReducers))]
		}
		aggs = append(aggs, a)
	}
	return aggs
}

// wtwWins draws 1 to 3 time windows.
func wtwWins(rng *rand.Rand, prefix string, cols ...string) []rolling.Window {
	var ws []rolling.Window
	for w := range 1 + rng.IntN(3) {
		win := rolling.Window{Name: fmt.Sprintf("%s%d", prefix, w), Span: wtwMs(50 * (1 + rng.Int64N(30))),
			Aggs: wtwAggs(rng, fmt.Sprintf("%s%d_", prefix, w), 1+rng.IntN(4), cols...)}
		if rng.IntN(4) == 0 {
			win.MinSamples = rolling.Samples(rng.IntN(3))
		}
		ws = append(ws, win)
	}
	return ws
}

// wtwPipe is one random pipeline, built the same on every twin.
type wtwPipe struct {
	seed    uint64
	opts    live.Options
	popts   partition.Options // by host
	zopts   partition.Options // by zone, up or tag
	zkey    string
	groups  bool // hosts declared
	step    int64
	anchor  int64
	hosts   int
	midway  []int // the pushes before which more nodes are built
	aligned bool  // aligned rollings may be built
}

func newWtwPipe(seed uint64) (wtwPipe, *rand.Rand) {
	rng := rand.New(rand.NewPCG(seed, 0x777))
	p := wtwPipe{seed: seed}
	switch rng.IntN(4) {
	case 1:
		p.opts.Ordering = live.Drop
	case 2, 3:
		p.opts.Ordering = live.Reorder
		p.opts.Grace = wtwMs([]int64{0, 150, 600}[rng.IntN(3)])
	}
	// Retention is always bounded: a reduce of samples over an unbounded
	// root emits every row at every push.
	switch rng.IntN(2) {
	case 0:
		p.opts.MaxEvents = 1 + rng.IntN(400)
	default:
		p.opts.MaxAge = wtwMs(max(p.opts.Grace.Milliseconds(), []int64{400, 2500}[rng.IntN(2)]))
	}
	p.aligned = p.opts.Ordering != live.Reorder || p.opts.Grace > 0
	p.hosts = []int{1, 2, 5, 17, 60, 150}[rng.IntN(6)]
	switch rng.IntN(5) {
	case 0:
		p.popts.IdleTTL = wtwMs([]int64{1, 200, 1500}[rng.IntN(3)])
	case 1:
		p.popts.MaxPartitions = 1 + rng.IntN(p.hosts+3)
	case 2:
		p.popts.IdleTTL = wtwMs([]int64{100, 900}[rng.IntN(2)])
		p.popts.MaxPartitions = 1 + rng.IntN(p.hosts+3)
	case 3:
		if p.hosts <= 60 {
			p.groups = true
			for h := range p.hosts {
				p.popts.Groups = append(p.popts.Groups, schema.StringValue(wtwHost(h)))
			}
		}
	}
	if rng.IntN(3) == 0 {
		p.popts.MaxEvents = 1 + rng.IntN(5)
	}
	p.zkey = []string{"zone", "up", "tag"}[rng.IntN(3)]
	if rng.IntN(3) == 0 {
		p.zopts.IdleTTL = wtwMs(700)
	}
	if rng.IntN(2) == 0 {
		p.zopts.MaxEvents = 1
	}
	p.step = []int64{50, 100, 250, 1000}[rng.IntN(4)]
	p.anchor = rng.Int64N(p.step)
	for range rng.IntN(3) {
		p.midway = append(p.midway, 1+rng.IntN(30))
	}
	return p, rng
}

func (p wtwPipe) String() string {
	return fmt.Sprintf("seed %d opts %+v popts %+v zkey %s zopts %+v step %d anchor %d hosts %d midway %v",
		p.seed, p.opts, p.popts, p.zkey, p.zopts, p.step, p.anchor, p.hosts, p.midway)
}

// wtwHost names host h: short, empty, unicode and long names.
func wtwHost(h int) string {
	switch h {
	case 0:
		return ""
	case 1:
		return "hôte-ß-日本"
	case 2:
		return strings.Repeat("long", 40)
	}
	return fmt.Sprintf("h%03d", h)
}

// wtwTwin is one series of a pipeline.
type wtwTwin struct {
	s       *live.Series
	workers int
	nodes   []live.NodeID
	parts   []live.NodeID // partitioned nodes (Partitions)
	batch   *schema.Batch // reused push after push
	out     []live.Output
}

// wtwBuilder builds the nodes of a pipeline on twins, drawing every
// random choice once and applying it to each twin.
type wtwBuilder struct {
	t     testing.TB
	p     wtwPipe
	twins []*wtwTwin
	// by holds, per twin, the ids of named nodes (all twins give the
	// same ids, which the builder checks).
	by map[string]live.NodeID
}

// add builds a node on every twin with mk, records it, watches the kinds
// watch selects, and checks that the twins gave the same id and error.
func (b *wtwBuilder) add(name string, watch int, mk func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error)) {
	b.t.Helper()
	var id0 live.NodeID
	var err0 error
	for k, tw := range b.twins {
		id, err := mk(tw.s, b.by)
		if k == 0 {
			id0, err0 = id, err
		} else if id != id0 || fmt.Sprint(err) != fmt.Sprint(err0) {
			b.t.Fatalf("%v: building %s: twin %d gave %d %v, one worker %d %v", b.p, name, k, id, err, id0, err0)
		}
		if err != nil {
			continue
		}
		tw.nodes = append(tw.nodes, id)
		if _, perr := tw.s.Partitions(id); perr == nil {
			tw.parts = append(tw.parts, id)
		}
		for i, kind := range []live.OutputKind{live.Event, live.Batch, live.Evict} {
			if watch&(1<<i) != 0 {
				_ = tw.s.Watch(id, kind)
			}
		}
	}
	if err0 != nil {
		b.t.Fatalf("%v: building %s: %v", b.p, name, err0)
	}
	b.by[name] = id0
}

// clock is a clock of the given step on the pipeline's anchor.
func (b *wtwBuilder) clock(step int64) trigger.Trigger {
	return trigger.Clock(sequence.Every(wtwMs(step)).WithAnchorNanos(b.p.anchor * int64(time.Millisecond)))
}

// build builds the pipeline's first nodes.
func (b *wtwBuilder) build(rng *rand.Rand) {
	p := b.p
	w := func() int { return 1 + rng.IntN(7) }
	b.add("byHost", w(), func(s *live.Series, _ map[string]live.NodeID) (live.NodeID, error) {
		return s.PartitionBy(s.Root(), "host", p.popts)
	})
	b.add("byZone", w(), func(s *live.Series, _ map[string]live.NodeID) (live.NodeID, error) {
		return s.PartitionBy(s.Root(), p.zkey, p.zopts)
	})
	// Several clock rollings on one partitioning, of different steps,
	// default and aligned, with a history and without.
	for i := range 1 + rng.IntN(3) {
		wins := wtwWins(rng, fmt.Sprintf("d%d", i))
		step := p.step * int64(1+rng.IntN(3))
		opts := rolling.Options{Trigger: b.clock(step)}
		if rng.IntN(3) == 0 {
			opts.MinSamples = 1 + rng.IntN(3)
		}
		if rng.IntN(3) == 0 {
			opts.History = rolling.History{MaxEvents: 1 + rng.IntN(40)}
		}
		b.add(fmt.Sprintf("roll%d", i), w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
			return s.Rolling(by["byHost"], wins, opts)
		})
	}
	// The clock rolling that reads two number columns only (the quiet
	// path of one worker).
	two := []rolling.Window{{Name: "two", Span: wtwMs(300), Aggs: []reduce.Agg{
		{Out: "ax", From: "x", Using: reduce.Avg}, {Out: "my", From: "y", Using: reduce.Max}}}}
	b.add("rollTwo", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["byHost"], two, rolling.Options{Trigger: b.clock(p.step)})
	})
	if p.aligned {
		for i := range 1 + rng.IntN(2) {
			wins := wtwWins(rng, fmt.Sprintf("a%d", i))
			step := p.step * int64(1+rng.IntN(2))
			b.add(fmt.Sprintf("al%d", i), w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
				return s.Rolling(by["byHost"], wins, rolling.Options{Trigger: b.clock(step), Aligned: true})
			})
		}
		// A window of one step: samples read from the series' rows.
		one := []rolling.Window{{Name: "one", Span: wtwMs(p.step), Aggs: []reduce.Agg{
			{Out: "s", From: "x", Using: reduce.Samples}, {Out: "n", From: "y", Using: reduce.Count}}}}
		b.add("alOne", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
			return s.Rolling(by["byHost"], one, rolling.Options{Trigger: b.clock(p.step), Aligned: true})
		})
		zw := wtwWins(rng, "za")
		b.add("alZone", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
			return s.Rolling(by["byZone"], zw, rolling.Options{Trigger: b.clock(p.step), Aligned: true})
		})
	}
	zwins := wtwWins(rng, "z")
	b.add("rollZone", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["byZone"], zwins, rolling.Options{Trigger: b.clock(p.step)})
	})
	cnt := rolling.Window{Count: 1 + rng.IntN(5), Aggs: wtwAggs(rng, "c", 1+rng.IntN(3))}
	every := 1 + rng.IntN(3)
	b.add("count", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["byHost"], []rolling.Window{cnt}, rolling.Options{Trigger: trigger.Count(every)})
	})
	ev := wtwWins(rng, "e")
	b.add("event", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["byHost"], ev, rolling.Options{})
	})
	rw := wtwWins(rng, "r")
	b.add("rootRoll", w(), func(s *live.Series, _ map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(s.Root(), rw, rolling.Options{Trigger: b.clock(p.step)})
	})
	raggs := wtwAggs(rng, "g", 1+rng.IntN(5))
	b.add("reduceHost", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Reduce(by["byHost"], raggs, trigger.Trigger{})
	})
	b.add("reduceRoot", w(), func(s *live.Series, _ map[string]live.NodeID) (live.NodeID, error) {
		return s.Reduce(s.Root(), raggs, trigger.Count(2))
	})
	aseq := sequence.Every(wtwMs([]int64{100, 500}[rng.IntN(2)]))
	agrace := wtwMs([]int64{0, 0, 200}[rng.IntN(3)])
	b.add("aggHost", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Aggregate(by["byHost"], aseq, raggs, agrace)
	})
	b.add("aggZone", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Aggregate(by["byZone"], aseq, raggs, agrace)
	})
	// Views on the host partitioning, and clock rollings over them.
	b.add("filter", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Filter(by["byHost"], func(r schema.Row) bool {
			x, ok := r[1].Num()
			return !ok || x >= 0
		})
	})
	fw := wtwWins(rng, "f")
	b.add("rollFilter", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["filter"], fw, rolling.Options{Trigger: b.clock(p.step)})
	})
	mapSchema := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "neg", Kind: schema.Number},
		schema.Column{Name: "lab", Kind: schema.String},
	)
	b.add("map", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Map(by["byHost"], mapSchema, func(in, out schema.Row) bool {
			x, ok := in[1].Num()
			if !ok {
				return false
			}
			out[1] = schema.NumberValue(-x)
			if h, ok := in[3].Str(); ok && len(h) < 8 {
				out[2] = schema.StringValue(h + "!")
			}
			return true
		})
	})
	b.add("rollMap", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["map"], []rolling.Window{{Span: wtwMs(400), Aggs: []reduce.Agg{
			{Out: "sum", From: "neg", Using: reduce.Sum}, {Out: "min", From: "neg", Using: reduce.Min},
			{Out: "labs", From: "lab", Using: reduce.Unique}}}}, rolling.Options{Trigger: b.clock(p.step)})
	})
	b.add("select", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Select(by["byHost"], "x", "tag")
	})
	stride := 1 + rng.IntN(3)
	b.add("sample", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Sample(by["byHost"], stride)
	})
	sw := wtwWins(rng, "s")
	b.add("rollSample", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["sample"], sw, rolling.Options{Trigger: b.clock(p.step)})
	})
	b.add("window", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Window(by["byHost"], wtwMs(300))
	})
	b.add("windowCount", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.WindowCount(by["byZone"], 3)
	})
	b.add("cumRoot", w(), func(s *live.Series, _ map[string]live.NodeID) (live.NodeID, error) {
		return s.Cumulative(s.Root(), live.Running{Column: "x", Using: reduce.Sum}, live.Running{Column: "y", Using: reduce.Max})
	})
	b.add("change", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.PctChange(by["byZone"], "x")
	})
	// A per-partition chain, a clock rolling on it, and its gathering.
	b.chain("chain", "byHost", rng)
	cw := wtwWins(rng, "k", "x", "y", "tag")
	b.add("rollChain", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["chain"], cw, rolling.Options{Trigger: b.clock(p.step)})
	})
	b.add("gather", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Gather(by["chain"])
	})
	gw := wtwWins(rng, "q", "x", "y")
	b.add("rollGather", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["gather"], gw, rolling.Options{Trigger: b.clock(p.step)})
	})
}

// chain builds a per-partition chain (fill, diff, rate, cumulative) on
// the partitioned node src.
func (b *wtwBuilder) chain(name, src string, rng *rand.Rand) {
	limit := rng.IntN(3)
	b.add(name, 1+rng.IntN(7), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.PerPartition(by[src], func(s *live.Series, part live.NodeID) (live.NodeID, error) {
			f, err := s.Fill(part, live.FillOptions{Strategy: live.FillHold, Limit: limit})
			if err != nil {
				return 0, err
			}
			d, err := s.Diff(f, "y")
			if err != nil {
				return 0, err
			}
			r, err := s.Rate(d, "zone")
			if err != nil {
				return 0, err
			}
			return s.Cumulative(r, live.Running{Column: "x", Using: reduce.Sum}, live.Running{Column: "zone", Using: reduce.Min})
		})
	})
}

// buildMidway builds more nodes after some pushes: rollings of every
// kind on both partitionings, a third partitioning, a chain.
func (b *wtwBuilder) buildMidway(rng *rand.Rand, round int) {
	p := b.p
	w := func() int { return 1 + rng.IntN(7) }
	pre := fmt.Sprintf("m%d", round)
	mw := wtwWins(rng, pre+"d")
	b.add(pre+"roll", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["byHost"], mw, rolling.Options{Trigger: b.clock(p.step)})
	})
	if p.aligned {
		aw := wtwWins(rng, pre+"a")
		b.add(pre+"al", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
			return s.Rolling(by["byHost"], aw, rolling.Options{Trigger: b.clock(p.step), Aligned: true})
		})
	}
	zw := wtwWins(rng, pre+"z")
	b.add(pre+"rollZone", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by["byZone"], zw, rolling.Options{Trigger: b.clock(2 * p.step)})
	})
	key := []string{"tag", "up", "zone", "host"}[rng.IntN(4)]
	popts := partition.Options{MaxEvents: []int{0, 1, 3}[rng.IntN(3)]}
	b.add(pre+"by", w(), func(s *live.Series, _ map[string]live.NodeID) (live.NodeID, error) {
		return s.PartitionBy(s.Root(), key, popts)
	})
	tw := wtwWins(rng, pre+"t")
	b.add(pre+"rollBy", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by[pre+"by"], tw, rolling.Options{Trigger: b.clock(p.step)})
	})
	b.chain(pre+"chain", pre+"by", rng)
	cw := wtwWins(rng, pre+"k", "x", "y")
	b.add(pre+"rollChain", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Rolling(by[pre+"chain"], cw, rolling.Options{Trigger: b.clock(p.step)})
	})
	raggs := wtwAggs(rng, pre+"g", 1+rng.IntN(3))
	b.add(pre+"reduce", w(), func(s *live.Series, by map[string]live.NodeID) (live.NodeID, error) {
		return s.Reduce(by["byZone"], raggs, trigger.Trigger{})
	})
}

// wtwRow is one generated row.
type wtwRow struct {
	t                 int64 // ms
	x, y, zone        float64
	xOK, zoneOK, upOK bool
	up                bool
	host, tag         string
	tagOK             bool
	arr               []schema.Value // nil: missing
}

// The bad rows a push may carry.
const (
	wtwBadNone  = iota
	wtwBadInf   // x = +Inf
	wtwBadNaN   // y (required) = NaN
	wtwBadKind  // host is a number (by rows) or missing (columnar)
	wtwBadOrder // far before the rows before
	wtwBadKey   // a host outside the declared groups or the limit
	wtwBadArr   // an array element that is not finite
	wtwBadLen   // a column one cell short (columnar only)
	wtwBadCount
)

// wtwPush is one push.
type wtwPush struct {
	rows    []wtwRow
	bad     int // index of the bad row
	badKind int
	byRows  bool // PushRows rather than PushMany
}

// wtwValues are the numbers a row draws from: -0, huge, tiny, ordinary.
var wtwValues = []float64{math.Copysign(0, -1), 0, 1.7e308, -1.7e308, 5e-324, -5e-324, 1e-300, 0.1, 3, -2.5, 1e15, 123456.789}

func wtwNum(rng *rand.Rand) float64 {
	if rng.IntN(3) == 0 {
		return wtwValues[rng.IntN(len(wtwValues))]
	}
	return math.Round(rng.NormFloat64()*1000) / 16
}

// wtwStream draws the pushes.
func wtwStream(rng *rand.Rand, p wtwPipe, pushes int) []wtwPush {
	var out []wtwPush
	t := int64(rng.IntN(2000)) - 1000
	lateBy := int64(300) // how late a late row may be
	if p.opts.Grace > 0 {
		lateBy = p.opts.Grace.Milliseconds()
	}
	tags := []string{"", "a", "b", "ü", strings.Repeat("z", 100)}
	for range pushes {
		var n int
		switch rng.IntN(12) {
		case 0:
			n = 300 + rng.IntN(wtwEnv("WTW_BIG", 900))
		case 1, 2:
			n = 1
		case 3:
			n = 0
		default:
			n = 1 + rng.IntN(80)
		}
		spacing := []int64{0, 2, 10, 60}[rng.IntN(4)]
		if n > 500 {
			spacing = []int64{0, 1}[rng.IntN(2)]
		}
		push := wtwPush{bad: -1, byRows: rng.IntN(3) == 0}
		hot := rng.IntN(p.hosts) // a push often goes to a few hosts
		for range n {
			if rng.IntN(80) == 0 {
				t += rng.Int64N(3000) // a gap
			} else {
				t += rng.Int64N(spacing + 1)
			}
			r := wtwRow{t: t, y: wtwNum(rng)}
			if p.opts.Ordering != live.Strict && rng.IntN(6) == 0 {
				r.t = t - rng.Int64N(lateBy+1)
				if p.opts.Ordering == live.Drop && rng.IntN(3) == 0 {
					r.t = t - lateBy - rng.Int64N(2000)
				}
			}
			h := rng.IntN(p.hosts)
			if rng.IntN(2) == 0 {
				h = (hot + rng.IntN(3)) % p.hosts
			}
			r.host = wtwHost(h)
			if rng.IntN(6) != 0 {
				r.x, r.xOK = wtwNum(rng), true
			}
			if rng.IntN(5) != 0 {
				r.zone, r.zoneOK = float64(h%4)-1.5, true
				if h%4 == 0 {
					r.zone = math.Copysign(0, -1)
				}
			}
			if rng.IntN(4) != 0 {
				r.up, r.upOK = h%3 == 0, true
			}
			if rng.IntN(4) != 0 {
				r.tag, r.tagOK = tags[rng.IntN(len(tags))], true
			}
			if rng.IntN(3) != 0 {
				r.arr = []schema.Value{}
				for range rng.IntN(3) {
					switch rng.IntN(3) {
					case 0:
						r.arr = append(r.arr, schema.NumberValue(wtwNum(rng)))
					case 1:
						r.arr = append(r.arr, schema.StringValue(tags[rng.IntN(len(tags))]))
					default:
						r.arr = append(r.arr, schema.BoolValue(rng.IntN(2) == 0))
					}
				}
			}
			push.rows = append(push.rows, r)
		}
		if n > 0 && rng.IntN(7) == 0 {
			push.bad = rng.IntN(n)
			push.badKind = 1 + rng.IntN(wtwBadCount-1)
			r := &push.rows[push.bad]
			switch push.badKind {
			case wtwBadOrder:
				r.t -= lateBy + 1 + rng.Int64N(5000)
			case wtwBadKey:
				r.host = fmt.Sprintf("new%d", rng.IntN(1000))
			case wtwBadLen:
				push.byRows = false
			}
		}
		out = append(out, push)
	}
	return out
}

// rows returns the push as rows of values.
func (p wtwPush) schemaRows() []schema.Row {
	rows := make([]schema.Row, len(p.rows))
	for i, r := range p.rows {
		row := schema.Row{schema.MillisValue(r.t), {}, schema.NumberValue(r.y), schema.StringValue(r.host), {}, {}, {}, {}}
		if r.xOK {
			row[1] = schema.NumberValue(r.x)
		}
		if r.zoneOK {
			row[4] = schema.NumberValue(r.zone)
		}
		if r.upOK {
			row[5] = schema.BoolValue(r.up)
		}
		if r.tagOK {
			row[6] = schema.StringValue(r.tag)
		}
		if r.arr != nil {
			row[7] = schema.ArrayValue(r.arr...)
		}
		if i == p.bad {
			switch p.badKind {
			case wtwBadInf:
				row[1] = schema.NumberValue(math.Inf(1))
			case wtwBadNaN:
				row[2] = schema.NumberValue(math.NaN())
			case wtwBadKind:
				row[3] = schema.NumberValue(1)
			case wtwBadArr:
				row[7] = schema.ArrayValue(schema.NumberValue(math.Inf(-1)))
			}
		}
		rows[i] = row
	}
	return rows
}

// fill writes the push into b, columnar, reusing b's slices.
func (p wtwPush) fill(b *schema.Batch) {
	b.Reset()
	for j := range b.Cols {
		b.Cols[j].Missing = b.Cols[j].Missing[:0]
	}
	miss := func(j int, m bool) { b.Cols[j].Missing = append(b.Cols[j].Missing, m) }
	for i, r := range p.rows {
		b.Time = append(b.Time, r.t*int64(time.Millisecond))
		b.Cols[0].Num = append(b.Cols[0].Num, r.x)
		miss(0, !r.xOK)
		b.Cols[1].Num = append(b.Cols[1].Num, r.y)
		miss(1, false)
		b.Cols[2].Str = append(b.Cols[2].Str, r.host)
		miss(2, false)
		b.Cols[3].Num = append(b.Cols[3].Num, r.zone)
		miss(3, !r.zoneOK)
		b.Cols[4].Bool = append(b.Cols[4].Bool, r.up)
		miss(4, !r.upOK)
		b.Cols[5].Str = append(b.Cols[5].Str, r.tag)
		miss(5, !r.tagOK)
		b.Cols[6].Arr = append(b.Cols[6].Arr, r.arr)
		miss(6, r.arr == nil)
		if i == p.bad {
			switch p.badKind {
			case wtwBadInf:
				b.Cols[0].Num[i], b.Cols[0].Missing[i] = math.Inf(1), false
			case wtwBadNaN:
				b.Cols[1].Num[i] = math.NaN()
			case wtwBadKind:
				b.Cols[2].Missing[i] = true
			case wtwBadArr:
				b.Cols[6].Arr[i], b.Cols[6].Missing[i] = []schema.Value{schema.NumberValue(math.NaN())}, false
			}
		}
	}
	if p.badKind == wtwBadLen && p.bad >= 0 {
		b.Cols[1].Num = b.Cols[1].Num[:len(b.Cols[1].Num)-1]
	}
	for j := range b.Cols {
		if !slices.Contains(b.Cols[j].Missing, true) {
			b.Cols[j].Missing = nil // no cell missing: the documented way
		}
	}
}

// wtwSameVal reports whether two cells are the same, numbers bit for bit
// (-0 is not 0).
func wtwSameVal(a, b schema.Value) bool {
	if a.IsMissing() || b.IsMissing() {
		return a.IsMissing() == b.IsMissing()
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case schema.Number:
		x, _ := a.Num()
		y, _ := b.Num()
		return math.Float64bits(x) == math.Float64bits(y)
	case schema.Array:
		x, _ := a.Array()
		y, _ := b.Array()
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !wtwSameVal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

// wtwVal writes a cell exactly: numbers with their bits.
func wtwVal(v schema.Value) string {
	if v.IsMissing() {
		return "–"
	}
	switch v.Kind() {
	case schema.Number:
		f, _ := v.Num()
		return fmt.Sprintf("%g#%016x", f, math.Float64bits(f))
	case schema.Array:
		a, _ := v.Array()
		parts := make([]string, len(a))
		for i, e := range a {
			parts[i] = wtwVal(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return v.String()
}

// wtwDiffTable returns where two tables differ, "" when they are the same
// cell for cell.
func wtwDiffTable(got, want *schema.Table) string {
	if got == nil || want == nil {
		if got == want {
			return ""
		}
		return fmt.Sprintf("table %v, want %v", got, want)
	}
	if !got.Schema().Equal(want.Schema()) {
		return fmt.Sprintf("schema %v, want %v", got.Schema(), want.Schema())
	}
	if got.Len() != want.Len() {
		return fmt.Sprintf("%d rows, want %d\ngot:\n%v\nwant:\n%v", got.Len(), want.Len(), got, want)
	}
	for i := range got.Len() {
		for j := range got.Schema().Len() {
			if g, w := got.Value(i, j), want.Value(i, j); !wtwSameVal(g, w) {
				return fmt.Sprintf("row %d column %s: %s, want %s\ngot row:  %v\nwant row: %v", i, got.Schema().Column(j).Name,
					wtwVal(g), wtwVal(w), got.Row(i), want.Row(i))
			}
		}
	}
	return ""
}

// wtwItem is one thing read from a series: a label and a text, and a
// table compared cell by cell.
type wtwItem struct {
	label string
	tab   *schema.Table
}

// wtwDiff returns where two lists of items differ, "" when they do not.
func wtwDiff(got, want []wtwItem) string {
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) {
			return fmt.Sprintf("%d items, want %d", len(got), len(want))
		}
		if got[i].label != want[i].label {
			return fmt.Sprintf("item %d: %q, want %q", i, got[i].label, want[i].label)
		}
		if d := wtwDiffTable(got[i].tab, want[i].tab); d != "" {
			return fmt.Sprintf("item %d %q: %s", i, got[i].label, d)
		}
	}
	return ""
}

// wtwOutputs lists a push's outputs and error.
func wtwOutputs(out []live.Output, err error) []wtwItem {
	items := []wtwItem{{label: fmt.Sprintf("err %v", err)}}
	for _, o := range out {
		items = append(items, wtwItem{label: fmt.Sprintf("node %d %v", o.Node, o.Kind), tab: o.Events})
	}
	return items
}

// reads lists what every reader of the twin gives now; bytes adds
// NodeBytes of the nodes that are not rollings (a rolling's deques may
// hold a step's rows more with workers, docs/workers.md).
func (tw *wtwTwin) reads(bytes bool) []wtwItem {
	s := tw.s
	items := []wtwItem{{label: fmt.Sprintf("stats %+v len %d held %d", s.Stats(), s.Len(), s.HeldBytes())}}
	if t, ok := s.LatestNanos(); ok {
		items = append(items, wtwItem{label: fmt.Sprintf("latest %d", t)})
	}
	for _, id := range tw.nodes {
		d, err := s.Describe(id)
		items = append(items, wtwItem{label: fmt.Sprintf("node %d %q %v", id, d, err)})
		if snap, err := s.Snapshot(id); err == nil {
			items = append(items, wtwItem{label: "snapshot", tab: snap})
		} else if !errors.Is(err, live.ErrNode) {
			items = append(items, wtwItem{label: fmt.Sprintf("snapshot error %v", err)})
		}
		if val, err := s.Value(id); err == nil {
			items = append(items, wtwItem{label: "value", tab: val})
		} else if !errors.Is(err, live.ErrNode) {
			items = append(items, wtwItem{label: fmt.Sprintf("value error %v", err)})
		}
		if st, err := s.AggregateStats(id); err == nil {
			items = append(items, wtwItem{label: fmt.Sprintf("aggstats %+v", st)})
		}
		nb, err := s.NodeBytes(id)
		if err != nil {
			items = append(items, wtwItem{label: fmt.Sprintf("nodebytes error %v", err)})
		} else if bytes && !strings.HasPrefix(d, "rolling") {
			items = append(items, wtwItem{label: fmt.Sprintf("nodebytes %d", nb)})
		}
	}
	for _, id := range tw.parts {
		ps, err := s.Partitions(id)
		var b strings.Builder
		fmt.Fprintf(&b, "partitions %d %v:", id, err)
		for _, p := range ps {
			fmt.Fprintf(&b, " %s/%d/%d/%d/%d", wtwVal(p.Key), p.Ingested, p.Evicted, p.Length, p.Last.UnixNano())
		}
		items = append(items, wtwItem{label: b.String()})
	}
	return items
}

// wtwPoolGoroutines counts the goroutines of worker pools now.
func wtwPoolGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "internal/workers.(*Pool).loop")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// wtwSettle waits a little for the pools' goroutines to be at most want.
func wtwSettle(want int) int {
	n := wtwPoolGoroutines()
	for i := 0; i < 500 && n > want; i++ {
		time.Sleep(2 * time.Millisecond)
		n = wtwPoolGoroutines()
	}
	return n
}

// wtwRun runs one probe seed on twins of the given workers (the first
// is the reference, of one worker) and a clean one-worker twin, and
// returns the comparisons made.
func wtwRun(t *testing.T, seed uint64, pushes int, workers ...int) int {
	p, rng := newWtwPipe(seed)
	stream := wtwStream(rng, p, pushes)
	before := wtwPoolGoroutines()
	var twins []*wtwTwin
	for _, w := range append(append([]int{1}, workers...), 1) {
		opts := p.opts
		opts.Workers = w
		s, err := live.New("wtw", wtwSchema, opts)
		require.NoError(t, err)
		twins = append(twins, &wtwTwin{s: s, workers: w, nodes: []live.NodeID{s.Root()}, batch: schema.NewBatch(wtwSchema, 0)})
		_ = s.Watch(s.Root(), live.Event, live.Evict)
	}
	clean := twins[len(twins)-1]
	b := &wtwBuilder{t: t, p: p, twins: twins, by: map[string]live.NodeID{}}
	b.build(rng)
	checked := 0
	round := 0
	for i, push := range stream {
		for _, m := range p.midway {
			if m == i {
				b.buildMidway(rng, round)
				round++
			}
		}
		// Watch or unwatch a node's outputs, the same on every twin.
		if rng.IntN(4) == 0 {
			id := twins[0].nodes[rng.IntN(len(twins[0].nodes))]
			kind := live.OutputKind(1 + rng.IntN(3))
			on := rng.IntN(2) == 0
			for _, tw := range twins {
				if on {
					_ = tw.s.Watch(id, kind)
				} else {
					_ = tw.s.Unwatch(id, kind)
				}
			}
		}
		var rows []schema.Row
		if push.byRows {
			rows = push.schemaRows()
		}
		var want []wtwItem
		var wantErr error
		for k, tw := range twins {
			if tw == clean && wantErr != nil {
				continue
			}
			var err error
			if push.byRows {
				tw.out, err = tw.s.PushRows(tw.out[:0], rows...)
			} else {
				push.fill(tw.batch)
				tw.out, err = tw.s.PushMany(tw.out[:0], tw.batch)
			}
			got := wtwOutputs(tw.out, err)
			if k == 0 {
				want, wantErr = got, err
				continue
			}
			checked++
			if d := wtwDiff(got, want); d != "" {
				t.Fatalf("%v: push %d (%d rows, bad %d kind %d, byRows %v): outputs on twin %d (%d workers) differ from one worker's: %s",
					p, i, len(push.rows), push.bad, push.badKind, push.byRows, k, tw.workers, d)
			}
		}
		switch {
		case wantErr == nil:
		case errors.Is(wantErr, partition.ErrLimit) && p.popts.MaxPartitions > 0:
		case errors.Is(wantErr, partition.ErrUnknownGroup) && push.badKind == wtwBadKey:
		case errors.Is(wantErr, live.ErrOutOfOrder) && push.badKind == wtwBadOrder:
		case errors.Is(wantErr, live.ErrLate) && push.badKind == wtwBadOrder:
		case errors.Is(wantErr, schema.ErrValidation) && push.bad >= 0 && push.badKind != wtwBadOrder && push.badKind != wtwBadKey:
		default:
			t.Fatalf("%v: push %d (bad %d kind %d): unexpected error %v", p, i, push.bad, push.badKind, wantErr)
		}
		if wantErr != nil || i%4 == 0 || len(push.rows) > 500 {
			want := twins[0].reads(true)
			var wantClean []wtwItem
			for k, tw := range twins[1:] {
				checked++
				var d string
				if tw == clean {
					// NodeBytes may grow with a refused push (the
					// Series.NodeBytes doc): not compared here.
					if wantClean == nil {
						wantClean = twins[0].reads(false)
					}
					d = wtwDiff(tw.reads(false), wantClean)
				} else {
					d = wtwDiff(tw.reads(true), want)
				}
				if d != "" {
					t.Fatalf("%v: after push %d (%d rows, bad %d kind %d): reads on twin %d (%d workers) differ from one worker's: %s",
						p, i, len(push.rows), push.bad, push.badKind, k+1, tw.workers, d)
				}
			}
		}
	}
	for k, tw := range twins {
		require.NoError(t, tw.s.Close(), "close of twin %d", k)
		require.NoError(t, tw.s.Close(), "second close of twin %d", k)
		_, err := tw.s.PushRows(nil)
		require.ErrorIs(t, err, live.ErrClosed)
	}
	if n := wtwSettle(before); n > before {
		t.Fatalf("%v: %d pool goroutines after Close, %d before", p, n, before)
	}
	return checked
}

// wtwEnv reads a count from the environment, for a longer hunt
// (WTW_SEED, WTW_SEEDS, WTW_PUSHES), or gives def.
func wtwEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// TestWtwWorkersTwinsProbe runs the twin probe over fixed seeds, each
// on one worker and another of 2, 3, 4 and 7 (two others, and rows in
// the thousands, for a longer hunt: WTW_SEEDS, WTW_PUSHES, WTW_BIG).
func TestWtwWorkersTwinsProbe(t *testing.T) {
	checked := 0
	ws := []int{2, 3, 4, 7}
	first, seeds, pushes := wtwEnv("WTW_SEED", 1), wtwEnv("WTW_SEEDS", 2), wtwEnv("WTW_PUSHES", 8)
	for seed := uint64(first); seed < uint64(first+seeds); seed++ {
		if os.Getenv("WTW_SEEDS") != "" {
			checked += wtwRun(t, seed, pushes, ws[seed%4], ws[(seed+1)%4])
		} else {
			checked += wtwRun(t, seed, pushes, ws[seed%4])
		}
	}
	t.Logf("%d comparisons", checked)
	require.Greater(t, checked, 8*seeds)
}

// wtwDefaults puts back, for the test, the workers' settings of a
// program (TestMain forces every worker into every part and every push's
// rows to be handed over): rows are handed over only 512 to 2,048 at a
// time between ticks 8,192 rows apart, the gate times its ticks, and
// closings are split only after few rows a partition. alone makes every
// tick's caller do every part itself, as when no worker wakes in time.
func wtwDefaults(t *testing.T, alone bool) {
	rows := engine.SetHandOffRows(512)
	every := workers.SetEveryPart(false)
	gate := workers.SetGateForce(0)
	split := aligned.SetCloseSplitRows(8)
	was := workers.SetAlone(alone)
	t.Cleanup(func() {
		engine.SetHandOffRows(rows)
		workers.SetEveryPart(every)
		workers.SetGateForce(gate)
		aligned.SetCloseSplitRows(split)
		workers.SetAlone(was)
	})
}

// wtwBigPipe builds the pipeline of the default hand-over probe on s:
// two partitionings, clock rollings default and aligned on the first
// (none reading an array, so that their rows are buffered and handed
// over), one on the second, a chain and its rolling, and a reduce. It
// returns the nodes.
func wtwBigPipe(s *live.Series, popts partition.Options, aligned bool) ([]live.NodeID, error) {
	var ids []live.NodeID
	add := func(id live.NodeID, err error) (live.NodeID, error) {
		if err == nil {
			ids = append(ids, id)
			err = s.Watch(id)
		}
		return id, err
	}
	byHost, err := add(s.PartitionBy(s.Root(), "host", popts))
	if err != nil {
		return nil, err
	}
	byTag, err := add(s.PartitionBy(s.Root(), "tag", partition.Options{MaxEvents: 1}))
	if err != nil {
		return nil, err
	}
	clock := trigger.Clock(sequence.Every(time.Second))
	wins := []rolling.Window{
		{Name: "2s", Span: 2 * time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "x", Using: reduce.Avg}, {Out: "sd", From: "y", Using: reduce.Stdev},
			{Out: "min", From: "x", Using: reduce.Min}, {Out: "max", From: "y", Using: reduce.Max},
			{Out: "p90", From: "y", Using: reduce.Percentile(90)}}},
		{Name: "500ms", Span: 500 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "n", From: "x", Using: reduce.Count}, {Out: "last", From: "tag", Using: reduce.Last},
			{Out: "uniq", From: "up", Using: reduce.Unique}, {Out: "sum", From: "y", Using: reduce.Sum}}},
	}
	if _, err := add(s.Rolling(byHost, wins, rolling.Options{Trigger: clock, MinSamples: 2})); err != nil {
		return nil, err
	}
	two := []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
		{Out: "ax", From: "x", Using: reduce.Avg}, {Out: "my", From: "y", Using: reduce.Max}}}}
	if _, err := add(s.Rolling(byHost, two, rolling.Options{Trigger: trigger.Clock(sequence.Every(300 * time.Millisecond))})); err != nil {
		return nil, err
	}
	if aligned {
		if _, err := add(s.Rolling(byHost, wins, rolling.Options{Trigger: clock, Aligned: true})); err != nil {
			return nil, err
		}
		// A window of one step of samples: read from the series' rows
		// where the series keeps them (strict or drop ordering).
		one := []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
			{Out: "s", From: "y", Using: reduce.Samples}, {Out: "n", From: "y", Using: reduce.Count}}}}
		if _, err := add(s.Rolling(byHost, one, rolling.Options{Trigger: clock, Aligned: true})); err != nil {
			return nil, err
		}
	}
	if _, err := add(s.Rolling(byTag, wins[:1], rolling.Options{Trigger: clock})); err != nil {
		return nil, err
	}
	chain, err := add(s.PerPartition(byHost, func(s *live.Series, part live.NodeID) (live.NodeID, error) {
		d, err := s.Diff(part, "y")
		if err != nil {
			return 0, err
		}
		return s.Cumulative(d, live.Running{Column: "x", Using: reduce.Sum})
	}))
	if err != nil {
		return nil, err
	}
	if _, err := add(s.Rolling(chain, wins[1:], rolling.Options{Trigger: clock})); err != nil {
		return nil, err
	}
	if _, err := add(s.Reduce(byHost, wins[0].Aggs, trigger.Trigger{})); err != nil {
		return nil, err
	}
	return ids, nil
}

// wtwBigRun pushes a stream of 10,000 rows a second over hosts in pushes
// of about 500 to 2,100 rows (and a few small and refused ones) into
// series of one worker and of the given workers, under the workers'
// settings of a program, and compares every push's outputs and, every few
// pushes, the reads.
func wtwBigRun(t *testing.T, seed uint64, pushes int, ws ...int) int {
	rng := rand.New(rand.NewPCG(seed, 0xb16))
	opts := live.Options{MaxAge: 3 * time.Second}
	switch rng.IntN(3) {
	case 1:
		opts.Ordering = live.Drop
	case 2:
		opts.Ordering, opts.Grace = live.Reorder, 200*time.Millisecond
	}
	var popts partition.Options
	hosts := []int{3, 40, 200, 700}[rng.IntN(4)]
	switch rng.IntN(3) {
	case 0:
		popts.IdleTTL = time.Duration(1+rng.IntN(3)) * 400 * time.Millisecond
	case 1:
		popts.MaxPartitions = hosts - rng.IntN(3)
	}
	if rng.IntN(2) == 0 {
		popts.MaxEvents = 1
	}
	aligned := rng.IntN(2) == 0
	desc := fmt.Sprintf("seed %d opts %+v popts %+v hosts %d aligned %v", seed, opts, popts, hosts, aligned)
	var twins []*wtwTwin
	for _, w := range append([]int{1}, ws...) {
		o := opts
		o.Workers = w
		s, err := live.New("big", wtwSchema, o)
		require.NoError(t, err)
		ids, err := wtwBigPipe(s, popts, aligned)
		require.NoError(t, err, desc)
		twins = append(twins, &wtwTwin{s: s, workers: w, nodes: append([]live.NodeID{s.Root()}, ids...), parts: ids[:2], batch: schema.NewBatch(wtwSchema, 0)})
	}
	now := int64(rng.IntN(1000)) * int64(time.Millisecond)
	checked := 0
	for i := range pushes {
		n := 500 + rng.IntN(1600)
		switch rng.IntN(8) {
		case 0:
			n = rng.IntN(3)
		case 1:
			n = 2049 + rng.IntN(200)
		}
		push := wtwPush{bad: -1}
		hot := rng.IntN(hosts)
		for range n {
			now += int64(rng.IntN(200)) * int64(time.Microsecond) // 10,000 rows a second
			r := wtwRow{t: now, y: wtwNum(rng), x: wtwNum(rng), xOK: rng.IntN(10) != 0, up: rng.IntN(2) == 0, upOK: true}
			if opts.Ordering != live.Strict && rng.IntN(10) == 0 {
				r.t -= int64(rng.IntN(200)) * int64(time.Millisecond)
			}
			h := rng.IntN(hosts)
			if rng.IntN(3) == 0 {
				h = hot
			}
			r.host = wtwHost(h)
			r.tag, r.tagOK = fmt.Sprintf("t%d", h%7), rng.IntN(8) != 0
			push.rows = append(push.rows, r)
		}
		if n > 0 && rng.IntN(10) == 0 {
			push.bad, push.badKind = rng.IntN(n), []int{wtwBadInf, wtwBadNaN, wtwBadKind, wtwBadOrder}[rng.IntN(4)]
			if push.badKind == wtwBadOrder {
				push.rows[push.bad].t -= int64(10 * time.Second)
			}
		}
		var want []wtwItem
		for k, tw := range twins {
			push.fillNanos(tw.batch)
			var err error
			tw.out, err = tw.s.PushMany(tw.out[:0], tw.batch)
			got := wtwOutputs(tw.out, err)
			if k == 0 {
				want = got
				if err != nil && (push.bad < 0 || opts.Ordering == live.Drop && push.badKind == wtwBadOrder) && !errors.Is(err, partition.ErrLimit) {
					t.Fatalf("%s: push %d refused: %v", desc, i, err)
				}
				continue
			}
			checked++
			if d := wtwDiff(got, want); d != "" {
				t.Fatalf("%s: push %d (%d rows, bad %d): outputs on %d workers differ from one worker's: %s", desc, i, n, push.bad, tw.workers, d)
			}
		}
		if i%5 == 4 {
			want := twins[0].reads(true)
			for _, tw := range twins[1:] {
				checked++
				if d := wtwDiff(tw.reads(true), want); d != "" {
					t.Fatalf("%s: after push %d: reads on %d workers differ from one worker's: %s", desc, i, tw.workers, d)
				}
			}
		}
	}
	for _, tw := range twins {
		require.NoError(t, tw.s.Close())
	}
	return checked
}

// fillNanos is fill for rows whose times are in nanoseconds.
func (p wtwPush) fillNanos(b *schema.Batch) {
	q := p
	q.rows = slices.Clone(p.rows)
	for i := range q.rows {
		q.rows[i].t = 0
	}
	q.fill(b)
	for i, r := range p.rows {
		b.Time[i] = r.t
	}
}

// TestWtwDefaultHandOffProbe runs the big stream under the workers'
// settings of a program: rows handed over between ticks as they would
// be, the gate choosing whether a tick is split, a worker joining only
// when it wakes in time.
func TestWtwDefaultHandOffProbe(t *testing.T) {
	wtwDefaults(t, false)
	checked := 0
	seeds := wtwEnv("WTW_SEEDS", 1)
	for seed := uint64(wtwEnv("WTW_SEED", 1)); seed < uint64(wtwEnv("WTW_SEED", 1)+seeds); seed++ {
		checked += wtwBigRun(t, seed, wtwEnv("WTW_PUSHES", 10), 2+2*int(seed%2))
	}
	t.Logf("%d comparisons", checked)
}

// TestWtwAloneProbe runs the twin probe with every tick's caller doing
// every part alone, as when the workers never wake in time.
func TestWtwAloneProbe(t *testing.T) {
	wtwDefaults(t, true)
	checked := wtwRun(t, 5, 6, 7)
	t.Logf("%d comparisons", checked)
}

// TestWtwSweepWhileBuffered pushes a new string in every row (a trace
// id) into clock rollings that keep it (first, last, unique, keep), on
// many partitions so that rows wait in the tick's buffer and are handed
// over, with the intern table swept at the end of every push: a string
// that only a buffered or handed-over row holds must survive the sweep,
// on every worker count.
func TestWtwSweepWhileBuffered(t *testing.T) {
	for _, hosts := range []int{3, 300} {
		var twins []*wtwTwin
		for _, w := range []int{1, 2, 4} {
			s, err := live.New("sweep", wtwSchema, live.Options{MaxEvents: 50, Workers: w})
			require.NoError(t, err)
			live.SweepEveryPush(s)
			by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
			require.NoError(t, err)
			r, err := s.Rolling(by, []rolling.Window{{Span: 5 * time.Second, Aggs: []reduce.Agg{
				{Out: "first", From: "tag", Using: reduce.First}, {Out: "last", From: "tag", Using: reduce.Last},
				{Out: "uniq", From: "tag", Using: reduce.Unique}, {Out: "keep", From: "tag", Using: reduce.Keep},
				{Out: "avg", From: "y", Using: reduce.Avg}}}}, rolling.Options{Trigger: trigger.Every(time.Second)})
			require.NoError(t, err)
			a, err := s.Rolling(by, []rolling.Window{{Span: 3 * time.Second, Aggs: []reduce.Agg{
				{Out: "first", From: "tag", Using: reduce.First}, {Out: "last", From: "tag", Using: reduce.Last},
				{Out: "top", From: "tag", Using: reduce.Top(2)}}}}, rolling.Options{Trigger: trigger.Every(time.Second), Aligned: true})
			require.NoError(t, err)
			require.NoError(t, s.Watch(r))
			require.NoError(t, s.Watch(a))
			twins = append(twins, &wtwTwin{s: s, workers: w, nodes: []live.NodeID{s.Root(), by, r, a}, parts: []live.NodeID{by}, batch: schema.NewBatch(wtwSchema, 0)})
		}
		rng := rand.New(rand.NewPCG(uint64(hosts), 5))
		id := 0
		for i := range 40 {
			push := wtwPush{bad: -1}
			for range rng.IntN(60) {
				id++
				push.rows = append(push.rows, wtwRow{t: int64(i) * 137, y: float64(id), host: wtwHost(rng.IntN(hosts)),
					tag: fmt.Sprintf("trace-%d", id), tagOK: true})
			}
			var want []wtwItem
			for k, tw := range twins {
				push.fill(tw.batch)
				var err error
				tw.out, err = tw.s.PushMany(tw.out[:0], tw.batch)
				require.NoError(t, err)
				got := wtwOutputs(tw.out, err)
				if k == 0 {
					want = got
					// The rows name only strings pushed: a swept
					// string reused for another would show.
					for _, o := range tw.out {
						for _, name := range []string{"first", "last"} {
							if strs, ok := o.Events.Strings(name); ok {
								for _, s := range strs {
									if s != "" && !strings.HasPrefix(s, "trace-") {
										t.Fatalf("hosts %d push %d: %s %q", hosts, i, name, s)
									}
								}
							}
						}
					}
					continue
				}
				if d := wtwDiff(got, want); d != "" {
					t.Fatalf("hosts %d push %d: outputs on %d workers differ from one worker's: %s", hosts, i, tw.workers, d)
				}
			}
			if i%5 == 0 {
				want := twins[0].reads(true)
				for _, tw := range twins[1:] {
					if d := wtwDiff(tw.reads(true), want); d != "" {
						t.Fatalf("hosts %d after push %d: reads on %d workers differ: %s", hosts, i, tw.workers, d)
					}
				}
			}
		}
		for _, tw := range twins {
			require.NoError(t, tw.s.Close())
		}
	}
}

// wtwHostsPush pushes n rows at ms for hosts spread over hosts.
func wtwHostsPush(s *live.Series, b *schema.Batch, ms int64, n, hosts int) ([]live.Output, error) {
	push := wtwPush{bad: -1}
	for i := range n {
		push.rows = append(push.rows, wtwRow{t: ms, y: float64(i), x: -float64(i), xOK: true, host: wtwHost(i % hosts), tag: "t", tagOK: true})
	}
	push.fill(b)
	return s.PushMany(nil, b)
}

// wtwHandOffSeries builds a series of the given workers partitioned by
// host with a clock rolling, default or aligned.
func wtwHandOffSeries(t *testing.T, w int, aligned bool) *live.Series {
	t.Helper()
	s, err := live.New("close", wtwSchema, live.Options{MaxEvents: 100, Workers: w})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	r, err := s.Rolling(by, []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
		{Out: "avg", From: "y", Using: reduce.Avg}, {Out: "min", From: "x", Using: reduce.Min}}}},
		rolling.Options{Trigger: trigger.Every(time.Second), Aligned: aligned})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	return s
}

// TestWtwCloseWithRowsHandedOver closes series whose last push handed
// its rows to a worker (TestMain hands over every push's), at once, with
// no read between: Close waits for the worker, every goroutine of the
// pool exits, and what does not return an error still reads what the
// series held. The same for a series dropped unclosed, and for one
// closed before any push.
func TestWtwCloseWithRowsHandedOver(t *testing.T) {
	before := wtwSettle(0)
	for _, aligned := range []bool{false, true} {
		for _, w := range []int{2, 3, 7} {
			s := wtwHandOffSeries(t, w, aligned)
			b := schema.NewBatch(wtwSchema, 0)
			for ms := int64(0); ms < 2500; ms += 300 {
				_, err := wtwHostsPush(s, b, ms, 700, 200)
				require.NoError(t, err)
			}
			require.NoError(t, s.Close())
			require.Equal(t, 100, s.Len())
			require.Equal(t, live.Stats{Ingested: 9 * 700, Evicted: 9*700 - 100, Length: 100}, s.Stats())
			n := 0
			for _, row := range s.All() {
				require.Equal(t, schema.MillisValue(2400), row[0])
				n++
			}
			require.Equal(t, 100, n)
			_, err := s.NodeBytes(s.Root())
			require.ErrorIs(t, err, live.ErrClosed)
			require.Equal(t, before, wtwSettle(before), "aligned %v workers %d: pool goroutines after Close", aligned, w)
		}
	}
	// Closed before any push: no goroutine was started.
	s := wtwHandOffSeries(t, 4, false)
	require.NoError(t, s.Close())
	require.Equal(t, before, wtwSettle(before))
	// Dropped unclosed right after a hand-over.
	func() {
		s := wtwHandOffSeries(t, 4, false)
		b := schema.NewBatch(wtwSchema, 0)
		for ms := int64(0); ms < 2500; ms += 300 {
			_, err := wtwHostsPush(s, b, ms, 700, 200)
			require.NoError(t, err)
		}
	}()
	n := wtwPoolGoroutines()
	for i := 0; i < 200 && n > before; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		n = wtwPoolGoroutines()
	}
	require.Equal(t, before, n, "a dropped series stops its workers")
}

// TestWtwBrokenSeriesWithWorkers breaks a series of workers (a map
// panics inside a push, after a push whose rows were handed over):
// every later call that can fail returns ErrBroken, Close still stops
// the workers, and a broken series dropped unclosed stops them too.
func TestWtwBrokenSeriesWithWorkers(t *testing.T) {
	before := wtwSettle(0)
	for _, closeIt := range []bool{true, false} {
		func() {
			s := wtwHandOffSeries(t, 3, false)
			mapSchema := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "y", Kind: schema.Number})
			_, err := s.Map(s.Root(), mapSchema, func(in, out schema.Row) bool {
				if y, _ := in[2].Num(); y == 13 {
					panic("wtw: thirteen")
				}
				return true
			})
			require.NoError(t, err)
			b := schema.NewBatch(wtwSchema, 0)
			_, err = wtwHostsPush(s, b, 0, 10, 5)
			require.NoError(t, err)
			_, err = wtwHostsPush(s, b, 500, 10, 5)
			require.NoError(t, err)
			require.Panics(t, func() { _, _ = wtwHostsPush(s, b, 1500, 20, 5) })
			_, err = wtwHostsPush(s, b, 2000, 1, 5)
			require.ErrorIs(t, err, live.ErrBroken)
			_, err = s.NodeBytes(s.Root())
			require.ErrorIs(t, err, live.ErrBroken)
			if closeIt {
				require.NoError(t, s.Close())
				require.Equal(t, before, wtwSettle(before), "pool goroutines after Close of a broken series")
			}
		}()
	}
	n := wtwPoolGoroutines()
	for i := 0; i < 200 && n > before; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		n = wtwPoolGoroutines()
	}
	require.Equal(t, before, n, "a dropped broken series stops its workers")
}

// TestWtwIdleRemovalDropsBufferedRows: a partition that IdleTTL removes
// between ticks takes its rows with it (partition.Options: "removed,
// with its state in every node built on it"), also the rows still
// waiting for the tick (or handed to a worker); a key first seen after
// the removal starts a new partition whose windows hold its own rows
// only, on every worker count and whether the rows wait in a buffer
// (130 partitions) or go straight to the windows (5).
func TestWtwIdleRemovalDropsBufferedRows(t *testing.T) {
	for _, hosts := range []int{5, 130} {
		for _, limit := range []bool{false, true} {
			for _, w := range []int{1, 2, 4} {
				popts := partition.Options{MaxEvents: 1, IdleTTL: 100 * time.Millisecond}
				if limit {
					popts.MaxPartitions = hosts
				}
				s, err := live.New("idle", wtwSchema, live.Options{MaxEvents: 1000, Workers: w})
				require.NoError(t, err)
				by, err := s.PartitionBy(s.Root(), "host", popts)
				require.NoError(t, err)
				r, err := s.Rolling(by, []rolling.Window{{Span: 5 * time.Second, Aggs: []reduce.Agg{
					{Out: "n", From: "y", Using: reduce.Count}, {Out: "sum", From: "y", Using: reduce.Sum},
					{Out: "first", From: "tag", Using: reduce.First}}}},
					rolling.Options{Trigger: trigger.Every(time.Second)})
				require.NoError(t, err)
				require.NoError(t, s.Watch(r))
				b := schema.NewBatch(wtwSchema, 0)
				push := func(ms int64, hs []int, y float64) []live.Output {
					p := wtwPush{bad: -1}
					for _, h := range hs {
						name := wtwHost(h)
						if h < 0 {
							name = "newcomer"
						}
						p.rows = append(p.rows, wtwRow{t: ms, y: y, host: name, tag: fmt.Sprintf("%s@%d", name, ms), tagOK: true})
					}
					p.fill(b)
					out, err := s.PushMany(nil, b)
					require.NoError(t, err, "hosts %d limit %v workers %d push at %d", hosts, limit, w, ms)
					return out
				}
				all := make([]int, hosts)
				for h := range all {
					all[h] = h
				}
				push(0, all, 1)         // every host: its partition and its engine
				push(10, []int{3}, 100) // host 3 alone: waits for the tick
				rest := slices.Delete(slices.Clone(all), 3, 4)
				if limit {
					// The new key comes in the push that leaves host 3
					// idle: the limit makes room for it first.
					push(500, append(rest, -1), 1)
				} else {
					push(500, rest, 1)         // host 3 idle 490 ms: removed
					push(600, []int{-1}, 1000) // a new key, where host 3 was
				}
				out := push(1000, []int{0}, 1)
				tab, ok := live.Find(out, r, live.Event)
				require.True(t, ok)
				ref, err := s.NodeSchema(r)
				require.NoError(t, err)
				hk, _ := ref.Ref("host", schema.String)
				nk, _ := ref.Ref("n", schema.Number)
				sk, _ := ref.Ref("sum", schema.Number)
				fk, _ := ref.Ref("first", schema.String)
				seen := false
				for i := range tab.Len() {
					h, _ := tab.Str(hk, i)
					n, _ := tab.Num(nk, i)
					sum, _ := tab.Num(sk, i)
					first, _ := tab.Str(fk, i)
					switch h {
					case wtwHost(3):
						t.Errorf("hosts %d limit %v workers %d: removed host 3 still emits (n %v)", hosts, limit, w, n)
					case "newcomer":
						seen = true
						if wantSum, wantFirst := wtwNewcomer(limit); n != 1 || sum != wantSum || first != wantFirst {
							t.Errorf("hosts %d limit %v workers %d: the new key's window holds n %v sum %v first %q, want its own row only",
								hosts, limit, w, n, sum, first)
						}
					}
				}
				require.True(t, seen, "the new key emits at the tick")
				require.NoError(t, s.Close())
			}
		}
	}
}

// wtwNewcomer is the sum and first tag of the new key's window in
// TestWtwIdleRemovalDropsBufferedRows.
func wtwNewcomer(limit bool) (float64, string) {
	if limit {
		return 1, "newcomer@500"
	}
	return 1000, "newcomer@600"
}

// TestWtwReadsInsideAPush calls the readers that a map's function may
// call (NodeBytes, Partitions, Stats, Len, Describe) from inside pushes
// whose rows the rolling before it has just handed to a worker: they
// wait for the worker or read nothing it writes (go test -race), and the
// outputs and reads stay those of one worker.
func TestWtwReadsInsideAPush(t *testing.T) {
	for _, aligned := range []bool{false, true} {
		var wantOut [][]wtwItem
		var wantReads []string
		for _, w := range []int{1, 2, 4} {
			s := wtwHandOffSeries(t, w, aligned)
			by, roll := live.NodeID(1), live.NodeID(2)
			var reads []string
			last := int64(-1)
			m, err := s.Map(s.Root(), schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}), func(in, out schema.Row) bool {
				// Once a push (its rows share their time).
				ns, _ := in[0].Nanos()
				if ns == last {
					return true
				}
				last = ns
				nb, err := s.NodeBytes(roll)
				require.NoError(t, err)
				require.Positive(t, nb)
				ps, err := s.Partitions(by)
				require.NoError(t, err)
				d, err := s.Describe(roll)
				require.NoError(t, err)
				reads = append(reads, fmt.Sprintf("%d parts %d %v len %d %q", len(ps), ps[len(ps)-1].Ingested, s.Stats(), s.Len(), d))
				return true
			})
			require.NoError(t, err)
			require.NoError(t, s.Watch(m))
			b := schema.NewBatch(wtwSchema, 0)
			var outs [][]wtwItem
			for ms := int64(0); ms < 3000; ms += 170 {
				out, err := wtwHostsPush(s, b, ms, 150, 40)
				require.NoError(t, err)
				outs = append(outs, wtwOutputs(out, err))
			}
			if w == 1 {
				wantOut, wantReads = outs, reads
			} else {
				for i := range outs {
					if d := wtwDiff(outs[i], wantOut[i]); d != "" {
						t.Fatalf("aligned %v workers %d push %d: %s", aligned, w, i, d)
					}
				}
				require.Equal(t, wantReads, reads, "aligned %v workers %d", aligned, w)
			}
			require.NoError(t, s.Close())
		}
	}
}

// TestWtwMaxWorkersAndEmptyPushes runs MaxWorkers workers (more than
// partitions) and pushes of no rows, a nil batch and typed rows beside a
// one-worker twin: the same outputs and errors, dst back as it was on an
// error, and every goroutine gone after Close.
func TestWtwMaxWorkersAndEmptyPushes(t *testing.T) {
	type wtwMetric struct {
		At   time.Time `pond:"time"`
		Y    float64   `pond:"y"`
		Host string    `pond:"host"`
	}
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "y", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	before := wtwSettle(0)
	var wantOut [][]wtwItem
	for _, w := range []int{1, live.MaxWorkers} {
		s, err := live.New("max", sch, live.Options{MaxAge: time.Minute, Workers: w})
		require.NoError(t, err)
		by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
		require.NoError(t, err)
		for _, aligned := range []bool{false, true} {
			r, err := s.Rolling(by, []rolling.Window{{Span: 2 * time.Second, Aggs: []reduce.Agg{
				{Out: "avg", From: "y", Using: reduce.Avg}, {Out: "s", From: "y", Using: reduce.Samples}}}},
				rolling.Options{Trigger: trigger.Every(500 * time.Millisecond), Aligned: aligned})
			require.NoError(t, err)
			require.NoError(t, s.Watch(r))
		}
		typed, err := live.NewTyped[wtwMetric](s)
		require.NoError(t, err)
		var outs [][]wtwItem
		sentinel := []live.Output{{Node: -7}}
		for i := range 24 {
			var out []live.Output
			var err error
			switch i % 4 {
			case 0:
				out, err = s.PushMany(sentinel, schema.NewBatch(sch, 0))
			case 1:
				out, err = s.PushMany(sentinel, nil)
				require.Error(t, err)
				var re *schema.RowError
				require.ErrorAs(t, err, &re)
				require.Equal(t, sentinel, out, "dst comes back as it was")
			case 2:
				out, err = s.PushRows(sentinel)
			default:
				var ms []wtwMetric
				for h := range 1 + i%9 {
					ms = append(ms, wtwMetric{At: time.UnixMilli(int64(i) * 150), Y: float64(h*i) - 0.5, Host: wtwHost(h)})
				}
				out, err = typed.Push(sentinel, ms)
				require.NoError(t, err)
			}
			outs = append(outs, wtwOutputs(out, err))
		}
		if w == 1 {
			wantOut = outs
		} else {
			for i := range outs {
				if d := wtwDiff(outs[i], wantOut[i]); d != "" {
					t.Fatalf("workers %d push %d: %s", w, i, d)
				}
			}
		}
		require.NoError(t, s.Close())
		require.Equal(t, before, wtwSettle(before), "workers %d: pool goroutines after Close", w)
	}
}

// TestWtwWorkersStartOnlyWhenNeeded: the workers start with the first
// push that needs them (a partitioned rolling's clock tick or hand-over):
// a series of workers whose pipeline has none (partitioned rollings on
// an event or count trigger, unpartitioned rollings, reduces) starts no
// goroutine; one with a partitioned clock rolling starts Workers − 1.
func TestWtwWorkersStartOnlyWhenNeeded(t *testing.T) {
	before := wtwSettle(0)
	w := []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{{Out: "a", From: "y", Using: reduce.Avg}}}}
	for k, build := range []func(s *live.Series, by live.NodeID) error{
		func(s *live.Series, by live.NodeID) error { _, err := s.Rolling(by, w, rolling.Options{}); return err },
		func(s *live.Series, by live.NodeID) error {
			_, err := s.Rolling(by, w, rolling.Options{Trigger: trigger.Count(2)})
			return err
		},
		func(s *live.Series, by live.NodeID) error {
			if _, err := s.Rolling(s.Root(), w, rolling.Options{Trigger: trigger.Every(time.Second)}); err != nil {
				return err
			}
			_, err := s.Reduce(by, w[0].Aggs, trigger.Trigger{})
			return err
		},
		func(s *live.Series, by live.NodeID) error {
			_, err := s.Rolling(by, w, rolling.Options{Trigger: trigger.Every(time.Second)})
			return err
		},
	} {
		s, err := live.New("need", wtwSchema, live.Options{MaxAge: 3 * time.Second, Workers: 4})
		require.NoError(t, err)
		by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		require.NoError(t, build(s, by))
		b := schema.NewBatch(wtwSchema, 0)
		for ms := int64(0); ms < 3000; ms += 300 {
			_, err := wtwHostsPush(s, b, ms, 50, 10)
			require.NoError(t, err)
		}
		want := before
		if k == 3 {
			want += 3
		}
		require.Equal(t, want, wtwSettle(want), "pipeline %d", k)
		require.NoError(t, s.Close())
		require.Equal(t, before, wtwSettle(before), "pipeline %d after Close", k)
	}
}
