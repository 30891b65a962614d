package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// An aligned rolling whose only raw output is the samples of a number
// column in a window of one step reads them from the series' rows
// at each closing instead of keeping them ("held"). These tests hold it to
// the same rows as a twin that keeps them: a series with a MaxEvents too
// large to evict anything, which is otherwise the same but cannot hold.

const heldDescribe = "samples read from the series' rows"

var heldSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "x", Kind: schema.Number},
	schema.Column{Name: "y", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "shard", Kind: schema.Number},
)

// heldCase is a random held-eligible configuration and stream.
type heldCase struct {
	opts    live.Options
	part    partition.Options
	step    int64 // ms
	windows []rolling.Window
	rows    []schema.Row
	late    int    // the row from which a second rolling is built (a replay)
	key     string // the partition column: host (strings) or shard (numbers)
}

func newHeldCase(rng *rand.Rand) heldCase {
	c := heldCase{step: []int64{100, 200, 500}[rng.IntN(3)], key: []string{"host", "shard"}[rng.IntN(2)]}
	if rng.IntN(2) == 0 {
		c.opts.Ordering = live.Drop
	}
	switch rng.IntN(3) {
	case 1:
		c.opts.MaxAge = time.Duration(c.step) * time.Millisecond // just a step
	case 2:
		c.opts.MaxAge = time.Duration(3*c.step) * time.Millisecond
	}
	c.opts.Workers = 1 + rng.IntN(4)
	if rng.IntN(2) == 0 {
		// Shorter than a step too: a key's partition removed and made
		// anew within one step, its rows before that not its own.
		c.part.IdleTTL = time.Duration(c.step*(1+rng.Int64N(8))/4) * time.Millisecond
		if rng.IntN(2) == 0 {
			c.part.MaxPartitions = 3 + rng.IntN(3)
		}
	}
	step := time.Duration(c.step) * time.Millisecond
	mergeable := []reduce.Reducer{reduce.Count, reduce.Sum, reduce.Avg, reduce.Stdev, reduce.Min, reduce.Max}
	one := rolling.Window{Name: "one", Span: step, Aggs: []reduce.Agg{{Out: "samples", From: "x", Using: reduce.Samples}}}
	if rng.IntN(3) == 0 {
		// The samples of a column that may be missing, whose present
		// values a count tells, or the step's record counts when no
		// output does.
		one.Aggs = []reduce.Agg{{Out: "samples", From: "y", Using: reduce.Samples}}
		if rng.IntN(2) == 0 {
			one.Aggs = append(one.Aggs, reduce.Agg{Out: "yn", From: "y", Using: []reduce.Reducer{reduce.Count, reduce.Avg}[rng.IntN(2)]})
		}
	}
	for k := range rng.IntN(4) {
		one.Aggs = append(one.Aggs, reduce.Agg{Out: fmt.Sprintf("o%d", k), From: []string{"x", "y"}[rng.IntN(2)], Using: mergeable[rng.IntN(len(mergeable))]})
	}
	if rng.IntN(4) == 0 {
		one.MinSamples = rolling.Samples(1 + rng.IntN(3))
	}
	c.windows = []rolling.Window{one}
	if rng.IntN(3) != 0 {
		long := rolling.Window{Name: "long", Span: step * time.Duration(2+rng.IntN(5))}
		for k := range 1 + rng.IntN(3) {
			long.Aggs = append(long.Aggs, reduce.Agg{Out: fmt.Sprintf("l%d", k), From: "x", Using: mergeable[rng.IntN(len(mergeable))]})
		}
		c.windows = append(c.windows, long)
	}
	keys := 1 + rng.IntN(8)
	spacing := []int64{1, 5, 40}[rng.IntN(3)]
	t := int64(rng.IntN(1000))
	for range 300 + rng.IntN(600) {
		if rng.IntN(60) == 0 {
			t += rng.Int64N(8 * c.step) // a gap: boundaries closed at once, partitions idle
		} else {
			t += rng.Int64N(spacing + 1)
		}
		rt := t
		if c.opts.Ordering == live.Drop && rng.IntN(10) == 0 {
			rt -= rng.Int64N(c.step) // late: dropped
		}
		y := schema.Value{}
		if rng.IntN(4) != 0 {
			y = schema.NumberValue(float64(rng.IntN(100)))
		}
		x := math.Round(rng.NormFloat64()*1e4) / 16
		k := rng.IntN(keys)
		// Shard numbers -0 and 0 are one key, as are 1.5 and 1.5.
		shard := []float64{math.Copysign(0, -1), 0, 1.5, 7, -3, 1e300, 42, 9}[k]
		c.rows = append(c.rows, schema.Row{schema.MillisValue(rt), schema.NumberValue(x), y, schema.StringValue(fmt.Sprintf("h%d", k)), schema.NumberValue(shard)})
	}
	c.late = rng.IntN(len(c.rows))
	return c
}

// build makes the case's series (the twin when twin) and its rolling.
func (c *heldCase) build(t *testing.T, twin bool) (*live.Series, live.NodeID, live.NodeID) {
	t.Helper()
	opts := c.opts
	if twin {
		opts.MaxEvents = math.MaxInt
	}
	s, err := live.New("held", heldSchema, opts)
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), c.key, c.part)
	require.NoError(t, err)
	r := c.rolling(t, s, by, twin)
	return s, by, r
}

func (c *heldCase) rolling(t *testing.T, s *live.Series, by live.NodeID, twin bool) live.NodeID {
	t.Helper()
	held := !twin && s.Len() == 0 // a replay keeps its samples
	return c.rollingHeld(t, s, by, held)
}

func (c *heldCase) rollingHeld(t *testing.T, s *live.Series, by live.NodeID, held bool) live.NodeID {
	t.Helper()
	seq := sequence.Every(time.Duration(c.step) * time.Millisecond)
	r, err := s.Rolling(by, c.windows, rolling.Options{Trigger: trigger.Clock(seq), Aligned: true})
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	d, err := s.Describe(r)
	require.NoError(t, err)
	require.Equal(t, held, strings.Contains(d, heldDescribe), "%s", d)
	return r
}

// outputs renders what a push gave, node by node, for comparison.
func heldOutputs(out []live.Output) string {
	var b strings.Builder
	for _, o := range out {
		fmt.Fprintf(&b, "node %d:\n", o.Node)
		if o.Events == nil {
			continue
		}
		for i := range o.Events.Len() {
			fmt.Fprintf(&b, "  %v\n", o.Events.Row(i))
		}
	}
	return b.String()
}

func TestHeldSamplesGiveTheRowsOfKeptOnes(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 77))
		c := newHeldCase(rng)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			require.Greater(t, c.compare(t, func() int { return 1 + rng.IntN(40) }), 0)
		})
	}
}

// FuzzHeldSamples is TestHeldSamplesGiveTheRowsOfKeptOnes with the case
// drawn from seed and the pushes' sizes from sizes.
func FuzzHeldSamples(f *testing.F) {
	f.Add(uint64(1), []byte{3, 40, 1, 7})
	f.Add(uint64(9), []byte{1})
	f.Fuzz(func(t *testing.T, seed uint64, sizes []byte) {
		c := newHeldCase(rand.New(rand.NewPCG(seed, 77)))
		k := 0
		// A case may emit nothing: every push refused (MaxPartitions).
		c.compare(t, func() int {
			if len(sizes) == 0 {
				return 16
			}
			k++
			return 1 + int(sizes[k%len(sizes)])
		})
	})
}

// compare pushes the case's rows, in pushes of the sizes next gives, into
// the held series and its twin, requires the same outputs of every push
// and returns how many rows the held series emitted.
func (c heldCase) compare(t *testing.T, next func() int) int {
	held, hby, hr := c.build(t, false)
	defer held.Close()
	twin, tby, tr := c.build(t, true)
	defer twin.Close()
	var hout, tout []live.Output
	emitted := 0
	for i := 0; i < len(c.rows); {
		if i >= c.late && c.late >= 0 {
			// A rolling built on rows already held starts from a replay
			// of them.
			c.rolling(t, held, hby, false)
			c.rolling(t, twin, tby, true)
			c.late = -1
		}
		n := min(next(), len(c.rows)-i)
		batch := c.rows[i : i+n]
		i += n
		var herr, terr error
		hout, herr = held.PushRows(hout[:0], batch...)
		tout, terr = twin.PushRows(tout[:0], batch...)
		require.Equal(t, terr, herr)
		require.Equal(t, heldOutputs(tout), heldOutputs(hout), "push ending at row %d", i)
		// The latest row of each partition, read after the push.
		hv, err := held.Value(hr)
		require.NoError(t, err)
		tv, err := twin.Value(tr)
		require.NoError(t, err)
		require.Equal(t, heldOutputs([]live.Output{{Events: tv}}), heldOutputs([]live.Output{{Events: hv}}), "value after row %d", i)
		for _, o := range hout {
			if o.Events != nil {
				emitted += o.Events.Len()
			}
		}
	}
	return emitted
}

func TestHeldSamplesOfAPartitionMadeAnewAreItsOwn(t *testing.T) {
	// Host a's partition is removed (idle for more than IdleTTL) and made
	// anew within one step: its samples at the step's closing are the
	// rows since, not the series' rows of the key in the step. The same
	// with the hosts as numbered shards (a number key).
	for _, key := range []string{"host", "shard"} {
		for _, twin := range []bool{false, true} {
			c := heldCase{step: 1000, key: key, part: partition.Options{IdleTTL: 100 * time.Millisecond}}
			c.windows = []rolling.Window{{Name: "one", Span: time.Second, Aggs: []reduce.Agg{
				{Out: "samples", From: "x", Using: reduce.Samples},
				{Out: "n", From: "x", Using: reduce.Count},
			}}}
			s, _, r := c.build(t, twin)
			row := func(ms int64, x float64, host string) schema.Row {
				shard := map[string]float64{"a": 1, "b": 2}[host]
				return schema.Row{schema.MillisValue(ms), schema.NumberValue(x), schema.Value{}, schema.StringValue(host), schema.NumberValue(shard)}
			}
			var last *schema.Table
			for _, push := range [][]schema.Row{
				{row(0, 1, "a"), row(10, 2, "a"), row(20, 3, "b")},
				{row(150, 4, "b")}, // a removed: idle since 10
				{row(300, 5, "a"), row(310, 6, "b")},
				{row(1000, 7, "b")}, // closes 1000
			} {
				out, err := s.PushRows(nil, push...)
				require.NoError(t, err)
				for _, o := range out {
					if o.Node == r && o.Events != nil && o.Events.Len() > 0 {
						last = o.Events.Clone()
					}
				}
			}
			require.NotNil(t, last)
			got := map[string]string{}
			for i := range last.Len() {
				row := last.Row(i)
				got[row[1].String()] = fmt.Sprint(row[2], " ", row[3])
			}
			want := map[string]string{`"a"`: "[5] 1", `"b"`: "[3, 4, 6] 3"}
			if key == "shard" {
				want = map[string]string{"1": "[5] 1", "2": "[3, 4, 6] 3"}
			}
			require.Equal(t, want, got, "%s, twin %v", key, twin)
			s.Close()
		}
	}
}

// TestHeldSamplesByANumberKeyDoNotAllocate: once warm, pushes into an
// aligned rolling partitioned by a number column, whose samples it reads
// from the series' rows, allocate nothing, closings included (the root
// keeps a second of rows, so its chunks are reused).
func TestHeldSamplesByANumberKeyDoNotAllocate(t *testing.T) {
	c := heldCase{step: 100, key: "shard", opts: live.Options{MaxAge: time.Second}}
	c.windows = []rolling.Window{{Name: "one", Span: 100 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "samples", From: "x", Using: reduce.Samples},
		{Out: "max", From: "x", Using: reduce.Max},
	}}}
	s, _, r := c.build(t, false)
	defer s.Close()
	d, err := s.Describe(r)
	require.NoError(t, err)
	require.Contains(t, d, heldDescribe)
	b := schema.NewBatch(heldSchema, 50)
	next := int64(0)
	var out []live.Output
	push := func() {
		b.Reset()
		for i := range 50 {
			next += 7 // a closing every two or three pushes
			b.Time = append(b.Time, next*int64(time.Millisecond))
			b.Cols[0].Num = append(b.Cols[0].Num, float64(i))
			b.Cols[1].Num = append(b.Cols[1].Num, float64(i))
			b.Cols[2].Str = append(b.Cols[2].Str, "h")
			b.Cols[3].Num = append(b.Cols[3].Num, float64(i%20))
		}
		if out, err = s.PushMany(out[:0], b); err != nil {
			panic(err)
		}
	}
	for range 50 {
		push()
	}
	require.Zero(t, allocs.Count(100, push))
}
