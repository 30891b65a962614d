package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// The random streams and pipelines of the aligned-window tests.

var alignedSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number, Optional: true},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
)

// alignedRequired is alignedSchema with x required (every row has a
// finite x).
var alignedRequired = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
)

// arow is one generated row; xOK and sOK false make the cell missing.
type arow struct {
	t     int64 // ms
	x     float64
	xOK   bool
	s     string
	sOK   bool
	host  string
	arr   []schema.Value // nil: missing
	index int            // arrival index in the stream
	// noHost makes host missing (in a schema where it may be).
	noHost bool
}

func (r arow) row() schema.Row {
	x, s := schema.Value{}, schema.Value{}
	if r.xOK {
		x = schema.NumberValue(r.x)
	}
	if r.sOK {
		s = schema.StringValue(r.s)
	}
	a := schema.Value{}
	if r.arr != nil {
		a = schema.ArrayValue(r.arr...)
	}
	h := schema.StringValue(r.host)
	if r.noHost {
		h = schema.Value{}
	}
	return schema.Row{schema.MillisValue(r.t), x, s, h, a}
}

// alignedCase is one random configuration.
type alignedCase struct {
	opts     live.Options
	lag      int64 // ms
	step     int64 // ms
	anchor   int64 // ms
	windows  []rolling.Window
	rows     []arow
	required bool // x is a required column
	arrays   bool // some outputs read the array column
	// huge: x mixes values near the top of the float64 range with small
	// ones (see makeHuge).
	huge bool
	// chains: x is mostly in [1, 2), with chains of outliers of falling
	// magnitude (see makeChains).
	chains bool
}

var numberReducers = []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Stdev, reduce.Min, reduce.Max,
	reduce.First, reduce.Last, reduce.Difference, reduce.Median, reduce.Percentile(90), reduce.Keep,
	reduce.Unique, reduce.Top(2), reduce.Samples}
var arrayReducers = []reduce.Reducer{reduce.Count, reduce.First, reduce.Last, reduce.Keep, reduce.Unique, reduce.Top(2), reduce.Samples}
var stringReducers = []reduce.Reducer{reduce.Count, reduce.First, reduce.Last, reduce.Keep, reduce.Unique, reduce.Top(2), reduce.Samples}

// newAlignedCase draws a configuration: an ordering, a clock, one to
// three windows with random outputs, and a stream of keyed rows in
// arrival order (late rows included under drop and reorder).
func newAlignedCase(rng *rand.Rand) alignedCase {
	var c alignedCase
	switch rng.IntN(3) {
	case 1:
		c.opts.Ordering = live.Drop
	case 2:
		c.opts.Ordering = live.Reorder
		c.lag = 50 * (1 + rng.Int64N(8))
		c.opts.Grace = time.Duration(c.lag) * time.Millisecond
	}
	c.step = []int64{100, 200, 300, 500}[rng.IntN(4)]
	c.anchor = rng.Int64N(c.step)
	c.arrays = rng.IntN(4) == 0
	nw := 1 + rng.IntN(3)
	out := 0
	for w := range nw {
		span := 50 * (1 + rng.Int64N(40))
		win := rolling.Window{Name: fmt.Sprintf("w%d", w), Span: time.Duration(span) * time.Millisecond}
		for range 1 + rng.IntN(6) {
			a := reduce.Agg{Out: fmt.Sprintf("o%d", out)}
			out++
			switch {
			case c.arrays && rng.IntN(3) == 0:
				a.From, a.Using = "a", arrayReducers[rng.IntN(len(arrayReducers))]
			case rng.IntN(3) == 0:
				a.From, a.Using = "s", stringReducers[rng.IntN(len(stringReducers))]
			default:
				a.From, a.Using = "x", numberReducers[rng.IntN(len(numberReducers))]
			}
			win.Aggs = append(win.Aggs, a)
		}
		if rng.IntN(5) == 0 {
			win.MinSamples = rolling.Samples(1 + rng.IntN(4))
		}
		c.windows = append(c.windows, win)
	}
	c.required = rng.IntN(3) == 0
	keys := 1 + rng.IntN(5)
	base := []float64{0, 1000, 1e6}[rng.IntN(3)]
	t := int64(rng.IntN(1000)) - 500
	latest := t
	// A dense stream puts more rows in one partition between two
	// boundaries than the engine takes in one go (32).
	spacing := []int64{60, 60, 60, 4}[rng.IntN(4)]
	for i := range 150 + rng.IntN(400) {
		switch rng.IntN(40) {
		case 0:
			t += rng.Int64N(5000) // a gap
		default:
			t += rng.Int64N(spacing)
		}
		rt := t
		if c.opts.Ordering == live.Drop && rng.IntN(8) == 0 {
			rt = t - rng.Int64N(300) // dropped unless equal to the latest
		}
		if c.opts.Ordering == live.Reorder && rng.IntN(4) == 0 {
			rt = max(latest-c.lag, t-rng.Int64N(c.lag+1))
		}
		latest = max(latest, rt)
		r := arow{t: rt, host: fmt.Sprintf("h%d", rng.IntN(keys)), index: i}
		if c.required || rng.IntN(10) != 0 {
			r.x, r.xOK = base+math.Round(rng.NormFloat64()*1000)/64, true
		}
		if rng.IntN(10) != 0 {
			r.s, r.sOK = string(rune('a'+rng.IntN(4))), true
		}
		if rng.IntN(5) != 0 {
			r.arr = []schema.Value{}
			for range rng.IntN(3) {
				r.arr = append(r.arr, schema.NumberValue(float64(rng.IntN(3))))
			}
		}
		c.rows = append(c.rows, r)
	}
	return c
}

// build makes the series and its aligned rolling on hosts.
func (c *alignedCase) build() (*live.Series, live.NodeID, error) {
	sch := alignedSchema
	if c.required {
		sch = alignedRequired
	}
	opts := c.opts
	if opts.Workers == 0 {
		// One to four workers, from the case: the rows must not depend on
		// them. The caller closes the series.
		opts.Workers = 1 + int(c.anchor)%4
	}
	s, err := live.New("t", sch, opts)
	if err != nil {
		return nil, 0, err
	}
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	if err != nil {
		return nil, 0, err
	}
	seq := sequence.Every(time.Duration(c.step) * time.Millisecond).WithAnchorNanos(c.anchor * int64(time.Millisecond))
	r, err := s.Rolling(by, c.windows, rolling.Options{Trigger: trigger.Clock(seq), Aligned: true})
	if err != nil {
		return nil, 0, err
	}
	return s, r, s.Watch(r)
}

// makeHuge draws the case's values of x from hugeValues, as the rolling
// oracle's makeHuge does, and makes its aggregates over x fit them
// (hugeAggs).
func (c *alignedCase) makeHuge(rng *rand.Rand) {
	c.huge = true
	drawHuge(c.rows, c.windows, rng)
}

// makeChains draws the case's values of x as chainDraw does, one chain
// per host: values in [1, 2) and now and then outliers near 2^47, 2^38,
// 2^28 and 2^19, of random signs, each within 2^20 of the next in their
// squares, which leave a window in turn and must leave no residue in
// the deviation of the values near 1 that stay.
func (c *alignedCase) makeChains(rng *rand.Rand) {
	c.chains = true
	draws := map[string]func() float64{}
	for i := range c.rows {
		r := &c.rows[i]
		if draws[r.host] == nil {
			draws[r.host] = chainDraw(rng)
		}
		if r.xOK {
			r.x = draws[r.host]()
		}
	}
}

// alignedRow is one output row: boundary, key and the output cells, and
// from the oracle of a huge case (makeHuge) or one of chains
// (makeChains) the scale of each: the
// largest |x| its window holds, to which its sums are as exact as a
// double-double allows (nil: the case's).
type alignedRow struct {
	b      int64
	key    string
	vals   []schema.Value
	scales []float64
}

func (e alignedRow) String() string { return fmt.Sprintf("%d %s %v", e.b, e.key, e.vals) }

// pushAligned pushes rows in batches of the sizes sizes draws and returns the
// rows the rolling alignedRow, in order.
func pushAligned(s *live.Series, node live.NodeID, rows []arow, sizes func() int) ([]alignedRow, error) {
	var got []alignedRow
	var out []live.Output
	for i := 0; i < len(rows); {
		n := min(sizes(), len(rows)-i)
		batch := make([]schema.Row, n)
		for k := range n {
			batch[k] = rows[i+k].row()
		}
		i += n
		var err error
		out, err = s.PushRows(out[:0], batch...)
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			if o.Node != node {
				continue
			}
			got = appendEmitted(got, o.Events.Clone())
		}
	}
	return got, nil
}

func appendEmitted(got []alignedRow, tab *schema.Table) []alignedRow {
	for i := range tab.Len() {
		row := tab.Row(i)
		k, _ := row[1].Str()
		got = append(got, alignedRow{b: tab.TimeNanos(i) / int64(time.Millisecond), key: k, vals: row[2:]})
	}
	return got
}
