package live_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// optSchema is [time, value (optional number)].
var optSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "value", Kind: schema.Number, Optional: true},
)

// v is a row of optSchema; NaN is a missing value.
func v(t int64, x float64) schema.Row {
	val := schema.NumberValue(x)
	if math.IsNaN(x) {
		val = schema.Missing()
	}
	return schema.Row{schema.MillisValue(t), val}
}

var gap = math.NaN()

// cells returns a number column with missing cells as nil, for comparing.
func cells(t *testing.T, tab *schema.Table, col string) []any {
	t.Helper()
	nums, ok := tab.Numbers(col)
	require.True(t, ok, "no number column %q in %s", col, tab.Schema())
	out := make([]any, len(nums))
	for i, x := range nums {
		if !math.IsNaN(x) {
			out[i] = x
		}
	}
	return out
}

// times returns the times of a table in milliseconds.
func times(tab *schema.Table) []int64 {
	var out []int64
	for _, t := range tab.Times() {
		out = append(out, t/int64(time.Millisecond))
	}
	return out
}

// emitted pushes each row on its own and gathers what node emits.
func emitted(t *testing.T, s *live.Series, node live.NodeID, rows ...schema.Row) *schema.Table {
	t.Helper()
	require.NoError(t, s.Watch(node))
	sch, err := s.NodeSchema(node)
	require.NoError(t, err)
	all := schema.NewTable(sch)
	var out []live.Output
	for _, row := range rows {
		out, err = s.PushRows(out[:0], row)
		require.NoError(t, err)
		for _, o := range out {
			if o.Node == node && o.Kind == live.Event {
				for i := range o.Events.Len() {
					table.AppendFrom(all, o.Events, i)
				}
			}
		}
	}
	return all
}

func snapshot(t *testing.T, s *live.Series, node live.NodeID) *schema.Table {
	t.Helper()
	tab, err := s.Snapshot(node)
	require.NoError(t, err)
	return tab
}

// TestChangeViews pins pond-ts's reference case 24 (diff, rate, pctChange),
// and a change beyond the float64 range, which does not make a rate or a
// percent change within it missing (they used to divide the overflowed
// difference); a diff beyond the range, and a rate beyond it, are.
func TestChangeViews(t *testing.T) {
	beyond := []schema.Row{v(0, -1.7e308), v(10000, 1.7e308), v(10001, -1e308)}
	cases := []struct {
		name string
		add  func(*live.Series, live.NodeID, ...string) (live.NodeID, error)
		rows []schema.Row
		want []any
	}{
		{"diff", (*live.Series).Diff, []schema.Row{v(0, 10), v(1, 25), v(2, 33)}, []any{nil, 15.0, 8.0}},
		{"diff costs two rows per gap", (*live.Series).Diff, []schema.Row{v(0, 1), v(1, gap), v(2, 5), v(3, 8)}, []any{nil, nil, nil, 3.0}},
		{"rate per second", (*live.Series).Rate, []schema.Row{v(1000, 10), v(3000, 30), v(3500, 20)}, []any{nil, 10.0, -20.0}},
		{"rate over no time", (*live.Series).Rate, []schema.Row{v(1000, 10), v(1000, 30)}, []any{nil, nil}},
		{"pctChange", (*live.Series).PctChange, []schema.Row{v(0, 0), v(1, 5), v(2, 10)}, []any{nil, nil, 1.0}},
		{"diff beyond the range", (*live.Series).Diff, beyond, []any{nil, nil, nil}},
		{"rate of a change beyond the range", (*live.Series).Rate, beyond, []any{nil, 3.4e307, nil}},
		{"pctChange of a change beyond the range", (*live.Series).PctChange, beyond, []any{nil, -2.0, -1.5882352941176472}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("m", optSchema, live.Options{})
			require.NoError(t, err)
			n, err := c.add(s, s.Root(), "value")
			require.NoError(t, err)
			assert.Equal(t, c.want, cells(t, emitted(t, s, n, c.rows...), "value"))
		})
	}
}

// TestFill pins pond-ts's reference case 24 (fill).
func TestFill(t *testing.T) {
	cases := []struct {
		name string
		opts live.FillOptions
		rows []schema.Row
		want []any
	}{
		{"hold with limit 2", live.FillOptions{Strategy: live.FillHold, Limit: 2},
			[]schema.Row{v(0, 10), v(1, gap), v(2, gap), v(3, gap)}, []any{10.0, 10.0, 10.0, nil}},
		{"hold with limit 1", live.FillOptions{Strategy: live.FillHold, Limit: 1},
			[]schema.Row{v(0, 10), v(1, gap), v(2, 20), v(3, gap)}, []any{10.0, 10.0, 20.0, 20.0}},
		{"hold without limit", live.FillOptions{Strategy: live.FillHold},
			[]schema.Row{v(0, gap), v(1, 3), v(2, gap), v(3, gap), v(4, gap)}, []any{nil, 3.0, 3.0, 3.0, 3.0}},
		{"zero fills a leading gap", live.FillOptions{Strategy: live.FillZero},
			[]schema.Row{v(0, gap), v(1, 4), v(2, gap)}, []any{0.0, 4.0, 0.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("m", optSchema, live.Options{})
			require.NoError(t, err)
			n, err := s.Fill(s.Root(), c.opts)
			require.NoError(t, err)
			assert.Equal(t, c.want, cells(t, emitted(t, s, n, c.rows...), "value"))
		})
	}
}

// A fill of every column on a partitioned source leaves the partition
// column alone: the rows of the partition of missing keys keep their
// missing key in the view, as the nodes downstream key them. Listed, the
// partition column is filled as any other.
func TestFillOfEveryColumnLeavesThePartitionKey(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "zone", Kind: schema.Number, Optional: true},
		schema.Column{Name: "value", Kind: schema.Number, Optional: true},
	)
	row := func(t int64, zone, x float64) schema.Row {
		z, val := schema.NumberValue(zone), schema.NumberValue(x)
		if math.IsNaN(zone) {
			z = schema.Missing()
		}
		if math.IsNaN(x) {
			val = schema.Missing()
		}
		return schema.Row{schema.MillisValue(t), z, val}
	}
	rows := []schema.Row{row(0, gap, gap), row(1, 7, gap), row(2, gap, 5)}
	for _, c := range []struct {
		name    string
		columns []string
		zones   []any
	}{
		{"every column", nil, []any{nil, 7.0, nil}},
		{"the partition column listed", []string{"zone", "value"}, []any{0.0, 7.0, 0.0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("zones", sch, live.Options{})
			require.NoError(t, err)
			p, err := s.PartitionBy(s.Root(), "zone", partition.Options{})
			require.NoError(t, err)
			n, err := s.Fill(p, live.FillOptions{Strategy: live.FillZero, Columns: c.columns})
			require.NoError(t, err)
			tab := emitted(t, s, n, rows...)
			assert.Equal(t, c.zones, cells(t, tab, "zone"))
			assert.Equal(t, []any{0.0, 0.0, 5.0}, cells(t, tab, "value"))
		})
	}
}

func TestFillHoldsStrings(t *testing.T) {
	s := newSeries(t, live.Options{})
	n, err := s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold, Columns: []string{"host"}})
	require.NoError(t, err)
	tab := emitted(t, s, n, r(0, 1, "a"), r(1, 2, ""), r(2, 3, "b"))
	hosts, _ := tab.Strings("host")
	assert.Equal(t, []string{"a", "a", "b"}, hosts)
}

// TestCumulative pins pond-ts's reference case 24 (cumulative) and the compensated
// running sum.
func TestCumulative(t *testing.T) {
	cases := []struct {
		name  string
		using reduce.Reducer
		rows  []schema.Row
		want  []any
	}{
		{"sum", reduce.Sum, []schema.Row{v(0, gap), v(1, 2), v(2, gap), v(3, 3)}, []any{nil, 2.0, 2.0, 5.0}},
		{"count", reduce.Count, []schema.Row{v(0, gap), v(1, 2), v(2, gap), v(3, 3)}, []any{nil, 1.0, 1.0, 2.0}},
		{"min", reduce.Min, []schema.Row{v(0, 3), v(1, 5), v(2, -1), v(3, gap)}, []any{3.0, 3.0, -1.0, -1.0}},
		{"max", reduce.Max, []schema.Row{v(0, 3), v(1, 5), v(2, -1)}, []any{3.0, 5.0, 5.0}},
		{"compensated sum", reduce.Sum, []schema.Row{v(0, 1e16), v(1, 1), v(2, -1e16)}, []any{1e16, 1e16, 1.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("m", optSchema, live.Options{})
			require.NoError(t, err)
			n, err := s.Cumulative(s.Root(), live.Running{Column: "value", Using: c.using})
			require.NoError(t, err)
			assert.Equal(t, c.want, cells(t, emitted(t, s, n, c.rows...), "value"))
		})
	}
}

// A running sum that passes beyond the float64 range is missing only
// while it is beyond it, as a reducer's sum is (docs/differences.md §1):
// it used to stay missing for good, its Neumaier sum infinite and then
// NaN. Huge values that cancel leave the small ones' sum.
func TestCumulativeSumComesBackFromBeyondTheRange(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want []any
	}{
		{"beyond and back", []float64{1.7e308, 1.7e308, -1.7e308, 1, -1.7e308},
			[]any{1.7e308, nil, 1.7e308, 1.7e308, 1.0}},
		{"huge values that cancel", []float64{0x1p1000, 3e-300, -0x1p1000, math.MaxFloat64, math.MaxFloat64},
			[]any{0x1p1000, 0x1p1000, 3e-300, math.MaxFloat64, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("m", optSchema, live.Options{})
			require.NoError(t, err)
			n, err := s.Cumulative(s.Root(), live.Running{Column: "value", Using: reduce.Sum})
			require.NoError(t, err)
			var rows []schema.Row
			for i, x := range c.xs {
				rows = append(rows, v(int64(i), x))
			}
			assert.Equal(t, c.want, cells(t, emitted(t, s, n, rows...), "value"))
		})
	}
}

// A running sum per partition, over random values of every magnitude
// (huge ones that cancel, subnormal ones, the largest), is the exact sum
// of the partition's values so far to 1e-15 of their absolute sum, and
// missing exactly where the exact sum is beyond the float64 range.
func TestCumulativeSumFollowsTheExactSum(t *testing.T) {
	vals := []float64{1.7e308, -1.7e308, math.MaxFloat64, -math.MaxFloat64, 0x1p960, -0x1p960, 0x1p1000,
		1e300, -1e300, 1, -1, 0.1, 3e-300, 1e16, -1e16, 0x1p959, 5e-324}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 5))
		s := newSeries(t, live.Options{})
		by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		n, err := s.Cumulative(by, live.Running{Column: "value", Using: reduce.Sum})
		require.NoError(t, err)
		require.NoError(t, s.Watch(n))
		sums, abs := map[string]*big.Float{}, map[string]*big.Float{}
		for i := range 40 {
			x := vals[rng.IntN(len(vals))]
			if rng.IntN(3) == 0 {
				if x = math.Ldexp(rng.Float64()-0.5, rng.IntN(2100)-1074); x-x != 0 {
					x = 1
				}
			}
			h := string(rune('a' + rng.IntN(3)))
			out, err := s.PushRows(nil, r(int64(i), x, h))
			require.NoError(t, err)
			if sums[h] == nil {
				sums[h], abs[h] = new(big.Float).SetPrec(exact.Prec), new(big.Float).SetPrec(exact.Prec)
			}
			sums[h].Add(sums[h], big.NewFloat(x))
			abs[h].Add(abs[h], big.NewFloat(math.Abs(x)))
			want, _ := sums[h].Float64()
			tab, ok := live.Find(out, n, live.Event)
			require.True(t, ok)
			got, ok := tab.Row(0)[1].Num() // time, value, host
			if math.IsInf(want, 0) {
				require.False(t, ok, "seed %d row %d: %v, want missing (%v)", seed, i, got, sums[h])
				continue
			}
			require.True(t, ok, "seed %d row %d: missing, want %v", seed, i, want)
			d := new(big.Float).Sub(big.NewFloat(got), sums[h])
			tol := new(big.Float).Mul(abs[h], big.NewFloat(1e-15))
			require.True(t, d.Abs(d).Cmp(tol) <= 0, "seed %d row %d: %v, want %v", seed, i, got, want)
		}
	}
}

// A partition made anew in the place of one that expired starts its
// running sum from zero, also of the huge values the old one summed.
func TestCumulativeOfAPartitionMadeAnewForgetsHugeValues(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: time.Second})
	require.NoError(t, err)
	n, err := s.Cumulative(byHost, live.Running{Column: "value", Using: reduce.Sum})
	require.NoError(t, err)
	tab := emitted(t, s, n, r(0, 1e300, "a"), r(5000, 2, "b"), r(5001, 3, "a"))
	assert.Equal(t, []any{1e300, 2.0, 3.0}, cells(t, tab, "value"))
}

// A cumulative view built on a series that already holds rows starts
// from those rows (replayed), not from zero: its doc said "since the view
// was built".
func TestCumulativeBuiltLateCountsTheRowsItsSourceHolds(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 2})
	_, err := s.PushRows(nil, r(0, 1, "a"), r(1, 2, "a"), r(2, 4, "a")) // holds 2 and 4
	require.NoError(t, err)
	n, err := s.Cumulative(s.Root(), live.Running{Column: "value", Using: reduce.Sum})
	require.NoError(t, err)
	assert.Equal(t, []float64{14}, values(emitted(t, s, n, r(3, 8, "a"))))
}

func TestSelectKeepsColumnsInSchemaOrder(t *testing.T) {
	s := newSeries(t, live.Options{})
	n, err := s.Select(s.Root(), "host", "value")
	require.NoError(t, err)
	sch, err := s.NodeSchema(n)
	require.NoError(t, err)
	assert.Equal(t, []string{"time", "value", "host"}, sch.Names())
	tab := emitted(t, s, n, r(0, 1, "a"))
	assert.Equal(t, "time=1970-01-01T00:00:00Z value=1 host=\"a\"", tab.String())
}

// A column listed twice is refused, as Diff, Fill and Cumulative refuse
// it: Select took it once, so a list with a typo for another column
// went unnoticed.
func TestSelectRefusesAColumnListedTwice(t *testing.T) {
	s := newSeries(t, live.Options{})
	_, err := s.Select(s.Root(), "host", "value", "host")
	require.ErrorIs(t, err, live.ErrConfig)
	require.EqualError(t, err, "live: select: host: listed twice")
	var ce *live.ConfigError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "host", ce.Field)
}

func TestMap(t *testing.T) {
	out := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "double", Kind: schema.Number, Optional: true},
		schema.Column{Name: "label", Kind: schema.String, Optional: true},
	)
	s := newSeries(t, live.Options{MaxEvents: 2})
	n, err := s.Map(s.Root(), out, func(in, out schema.Row) bool {
		x, _ := in[1].Num()
		if x < 0 {
			return false // dropped
		}
		out[0] = schema.MillisValue(999) // ignored: rows keep their time
		out[1] = schema.NumberValue(2 * x)
		out[2] = schema.NumberValue(x) // the wrong kind: stored missing
		return true
	})
	require.NoError(t, err)
	tab := emitted(t, s, n, r(0, 1, ""), r(1000, -1, ""), r(2000, 3, ""), r(3000, 4, ""))
	assert.Equal(t, []int64{0, 2000, 3000}, times(tab))
	assert.Equal(t, []any{2.0, 6.0, 8.0}, cells(t, tab, "double"))
	assert.True(t, table.Column(tab, 2).IsMissing(0))
	// The source holds 3000 and 2000: so does the map.
	assert.Equal(t, []int64{2000, 3000}, times(snapshot(t, s, n)))
}

// A map stores a cell fn leaves out, or gives a wrong kind or a
// non-finite number, as missing, so its rows may miss a cell of any
// column: its node's columns are optional whatever out says, and the
// windows built on it count only present values. Before, a column out
// declared required was taken at its word, and a rolling counted every
// row (an aligned one divided its average by them too).
func TestMapColumnsAreOptional(t *testing.T) {
	out := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "v", Kind: schema.Number},
	)
	aggs := []reduce.Agg{
		{Out: "n", From: "v", Using: reduce.Count},
		{Out: "sum", From: "v", Using: reduce.Sum},
		{Out: "avg", From: "v", Using: reduce.Avg},
	}
	every := trigger.Clock(sequence.Every(10 * time.Millisecond))
	cases := []struct {
		name         string
		opts         rolling.Options
		n, sum, mean float64 // at 10 ms
	}{
		// [0, 10] ms: 0, 2, 4, 6, 8, 10 present.
		{"rolling", rolling.Options{Trigger: every}, 6, 30, 5},
		// [0, 10) ms: 0, 2, 4, 6, 8 present.
		{"aligned rolling", rolling.Options{Trigger: every, Aligned: true}, 5, 20, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			m, err := s.Map(s.Root(), out, func(in, out schema.Row) bool {
				x, _ := in[1].Num()
				switch {
				case int(x)%2 == 0:
					out[1] = in[1]
				case int(x)%3 == 0:
					out[1] = schema.NumberValue(math.Inf(1)) // stored missing
				} // else left out: missing
				return true
			})
			require.NoError(t, err)
			sch, err := s.NodeSchema(m)
			require.NoError(t, err)
			assert.True(t, sch.Column(1).Optional)
			n, err := s.Rolling(m, []rolling.Window{{Span: 10 * time.Millisecond, Aggs: aggs}}, c.opts)
			require.NoError(t, err)
			var rs []schema.Row
			for i := range 11 {
				rs = append(rs, r(int64(i), float64(i), ""))
			}
			tab := emitted(t, s, n, rs...)
			require.Equal(t, 1, tab.Len())
			assert.Equal(t, []any{c.n}, cells(t, tab, "n"))
			assert.Equal(t, []any{c.sum}, cells(t, tab, "sum"))
			assert.Equal(t, []any{c.mean}, cells(t, tab, "avg"))
		})
	}
}

// TestFilterFollowsEvictions pins pond-ts's reference case 26 (first bullet).
func TestFilterFollowsEvictions(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 3})
	onlyA, err := s.Filter(s.Root(), func(row schema.Row) bool {
		h, _ := row[2].Str()
		return h == "a"
	})
	require.NoError(t, err)
	require.NoError(t, s.Watch(onlyA, live.Evict))
	var out []live.Output
	for _, row := range []schema.Row{r(0, 1, "a"), r(1000, 2, "b"), r(2000, 3, "a")} {
		out, err = s.PushRows(out[:0], row)
		require.NoError(t, err)
	}
	out, err = s.PushRows(out[:0], r(3000, 4, "b"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, []int64{0}, times(out[0].Events), "the filter announces the row it lost")
	assert.Equal(t, []int64{2000}, times(snapshot(t, s, onlyA)))
}

// TestViewsEvictByIdentity pins pond-ts's reference case 26 (second bullet), where
// pond-ts over-evicts: docs/differences.md §15.
func TestViewsEvictByIdentity(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 2})
	all, err := s.Filter(s.Root(), func(schema.Row) bool { return true })
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(1000, 1, "a"), r(1000, 2, "b"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(2000, 3, "c"))
	require.NoError(t, err)
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, []float64{2, 3}, values(snapshot(t, s, all)))
}

// TestWindowAnnouncesItsEvictions pins pond-ts's reference case 26 (third bullet):
// docs/differences.md §13 gives 110 where pond-ts gives 111.
func TestWindowAnnouncesItsEvictions(t *testing.T) {
	s := newSeries(t, live.Options{})
	w, err := s.WindowCount(s.Root(), 2)
	require.NoError(t, err)
	sum, err := s.Reduce(w, []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}, trigger.Event())
	require.NoError(t, err)
	tab := emitted(t, s, sum, r(0, 1, ""), r(1, 10, ""), r(2, 100, ""))
	assert.Equal(t, []any{1.0, 11.0, 110.0}, cells(t, tab, "sum"))
}

// TestWindows pins pond-ts's reference case 25 (windows).
func TestWindows(t *testing.T) {
	cases := []struct {
		name  string
		span  time.Duration
		count int
		at    []int64
		want  []int64
	}{
		{"span keeps both ends", 5 * time.Second, 0, []int64{0, 5000}, []int64{0, 5000}},
		{"span evicts what is older", 5 * time.Second, 0, []int64{0, 5000, 5001}, []int64{5000, 5001}},
		{"count keeps the last", 0, 2, []int64{0, 1, 2, 3}, []int64{2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{})
			var w live.NodeID
			var err error
			if c.count > 0 {
				w, err = s.WindowCount(s.Root(), c.count)
			} else {
				w, err = s.Window(s.Root(), c.span)
			}
			require.NoError(t, err)
			var rows []schema.Row
			for _, at := range c.at {
				rows = append(rows, r(at, 1, ""))
			}
			tab := emitted(t, s, w, rows...)
			assert.Equal(t, c.at, times(tab), "a window passes every row on")
			assert.Equal(t, c.want, times(snapshot(t, s, w)))
		})
	}
}

// TestSampleStrides pins pond-ts's reference case 25 (sampling).
func TestSampleStrides(t *testing.T) {
	cases := []struct {
		stride, n int
		want      []any
	}{
		{3, 9, []any{3.0, 6.0, 9.0}},
		{2, 10, []any{2.0, 4.0, 6.0, 8.0, 10.0}},
		{1, 3, []any{1.0, 2.0, 3.0}},
	}
	for _, c := range cases {
		s, err := live.New("m", optSchema, live.Options{})
		require.NoError(t, err)
		n, err := s.Sample(s.Root(), c.stride)
		require.NoError(t, err)
		var rows []schema.Row
		for i := 1; i <= c.n; i++ {
			rows = append(rows, v(int64(i), float64(i)))
		}
		assert.Equal(t, c.want, cells(t, emitted(t, s, n, rows...), "value"), "stride %d", c.stride)
	}
	s := newSeries(t, live.Options{})
	for _, stride := range []int{0, -1} {
		_, err := s.Sample(s.Root(), stride)
		assert.ErrorIs(t, err, live.ErrConfig)
	}
}

// TestViewsAcceptLateRows pins pond-ts's reference case 29: docs/differences.md §14.
func TestViewsAcceptLateRows(t *testing.T) {
	s := newSeries(t, live.Options{Ordering: live.Reorder})
	all, err := s.Filter(s.Root(), func(schema.Row) bool { return true })
	require.NoError(t, err)
	w, err := s.Window(s.Root(), time.Second)
	require.NoError(t, err)
	require.NoError(t, s.Watch(all))
	require.NoError(t, s.Watch(w, live.Evict))
	_, err = s.PushRows(nil, r(2000, 1, ""))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(1500, 2, ""), r(500, 3, ""))
	require.NoError(t, err, "a late row is no error")
	assert.Equal(t, 3, s.Len())
	require.Len(t, out, 2)
	assert.Equal(t, []int64{1500, 500}, times(out[0].Events), "late rows are passed on as they come")
	assert.Equal(t, []int64{500}, times(out[1].Events), "a late row older than the window leaves it at once")
	assert.Equal(t, []int64{500, 1500, 2000}, times(snapshot(t, s, all)), "held in key order")
	assert.Equal(t, []int64{1500, 2000}, times(snapshot(t, s, w)))
}

// A fill and a running total take a reorder source's late rows as they
// arrive: a late gap holds the last value to arrive, of a later time, and
// a late value adds to the total from then on only.
func TestFillAndCumulativeTakeLateRowsAsTheyArrive(t *testing.T) {
	s, err := live.New("m", optSchema, live.Options{Ordering: live.Reorder})
	require.NoError(t, err)
	fill, err := s.Fill(s.Root(), live.FillOptions{Strategy: live.FillHold})
	require.NoError(t, err)
	sum, err := s.Cumulative(s.Root(), live.Running{Column: "value", Using: reduce.Sum})
	require.NoError(t, err)
	for _, row := range []schema.Row{v(0, 1), v(10, 5), v(5, gap), v(3, 2)} {
		_, err := s.PushRows(nil, row)
		require.NoError(t, err)
	}
	assert.Equal(t, []int64{0, 3, 5, 10}, times(snapshot(t, s, fill)))
	assert.Equal(t, []any{1.0, 2.0, 5.0, 5.0}, cells(t, snapshot(t, s, fill), "value"), "the gap at 5 holds 5, from 10")
	assert.Equal(t, []any{1.0, 8.0, 6.0, 6.0}, cells(t, snapshot(t, s, sum), "value"), "the total at 3 came last")
}

func TestViewsOnPartitionsKeepStatePerPartition(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 2})
	require.NoError(t, err)
	d, err := s.Diff(byHost, "value")
	require.NoError(t, err)
	roll, err := s.Rolling(d, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(d))
	require.NoError(t, s.Watch(roll))
	out, err := s.PushRows(nil, r(0, 1, "a"), r(1, 10, "b"), r(2, 3, "a"), r(3, 15, "b"), r(4, 4, "a"))
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, []any{nil, nil, 2.0, 5.0, 1.0}, cells(t, out[0].Events, "value"), "each host diffs its own rows")
	hosts, _ := out[1].Events.Strings("host")
	assert.Equal(t, []string{"a", "b", "a", "b", "a"}, hosts, "a rolling on the view is per partition")
	assert.Equal(t, []any{0.0, 0.0, 2.0, 5.0, 3.0}, cells(t, out[1].Events, "sum"))
	// Each partition holds its last two rows (a lost 0), and so does the view.
	assert.Equal(t, []int64{1, 2, 3, 4}, times(snapshot(t, s, d)))
}

func TestIdlePartitionsLeaveViews(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 10 * time.Second})
	require.NoError(t, err)
	w, err := s.WindowCount(byHost, 5)
	require.NoError(t, err)
	n, err := s.Reduce(w, []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1000, 1, "b"), r(2000, 1, "a"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(12500, 1, "b"))
	require.NoError(t, err)
	// a (last seen at 2000) expired at 12500: its rows left the window and the reduce.
	assert.Equal(t, []any{2.0}, cells(t, out[0].Events, "n"))
	assert.Equal(t, []int64{1000, 12500}, times(snapshot(t, s, w)))
}

func TestViewsOverARollingHoldNothingButWindows(t *testing.T) {
	s := newSeries(t, live.Options{})
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Count: 2, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	d, err := s.Diff(roll, "sum")
	require.NoError(t, err)
	w, err := s.WindowCount(d, 2)
	require.NoError(t, err)
	total, err := s.Reduce(w, []reduce.Agg{{Out: "total", From: "sum", Using: reduce.Sum}}, trigger.Event())
	require.NoError(t, err)
	tab := emitted(t, s, total, r(0, 1, ""), r(1, 2, ""), r(2, 4, ""), r(3, 8, ""))
	// sums 1, 3, 6, 12; diffs –, 2, 3, 6; the window holds the last two.
	assert.Equal(t, []any{0.0, 2.0, 5.0, 9.0}, cells(t, tab, "total"))
	_, err = s.Snapshot(d)
	assert.ErrorIs(t, err, live.ErrNode)
	assert.Equal(t, []any{3.0, 6.0}, cells(t, snapshot(t, s, w), "sum"))
}

func TestViewsStartFromWhatTheSourceHolds(t *testing.T) {
	s := newSeries(t, live.Options{MaxEvents: 3})
	_, err := s.PushRows(nil, r(0, 1, "a"), r(1, 2, "a"), r(2, 4, "a"), r(3, 8, "a"))
	require.NoError(t, err)
	d, err := s.Diff(s.Root(), "value")
	require.NoError(t, err)
	assert.Equal(t, []any{nil, 2.0, 4.0}, cells(t, snapshot(t, s, d), "value"))
	roll, err := s.Rolling(d, []rolling.Window{{Count: 3, Aggs: []reduce.Agg{{Out: "sum", From: "value", Using: reduce.Sum}}}}, rolling.Options{})
	require.NoError(t, err)
	tab := emitted(t, s, roll, r(4, 16, "a"))
	assert.Equal(t, []any{14.0}, cells(t, tab, "sum"), "the rolling on the view starts from its rows: 2 + 4 + 8")
}

func TestViewConfigErrors(t *testing.T) {
	s := newSeries(t, live.Options{})
	root := s.Root()
	cases := []struct {
		name  string
		build func() (live.NodeID, error)
	}{
		{"filter without function", func() (live.NodeID, error) { return s.Filter(root, nil) }},
		{"map without schema", func() (live.NodeID, error) { return s.Map(root, nil, func(_, _ schema.Row) bool { return true }) }},
		{"map without function", func() (live.NodeID, error) { return s.Map(root, metricsSchema, nil) }},
		{"select nothing", func() (live.NodeID, error) { return s.Select(root) }},
		{"select unknown", func() (live.NodeID, error) { return s.Select(root, "nope") }},
		{"select time", func() (live.NodeID, error) { return s.Select(root, "time") }},
		{"window of no time", func() (live.NodeID, error) { return s.Window(root, 0) }},
		{"window of no rows", func() (live.NodeID, error) { return s.WindowCount(root, 0) }},
		{"diff of nothing", func() (live.NodeID, error) { return s.Diff(root) }},
		{"diff of a string", func() (live.NodeID, error) { return s.Diff(root, "host") }},
		{"rate twice", func() (live.NodeID, error) { return s.Rate(root, "value", "value") }},
		{"pctChange of time", func() (live.NodeID, error) { return s.PctChange(root, "time") }},
		{"fill linear", func() (live.NodeID, error) { return s.Fill(root, live.FillOptions{Strategy: live.FillLinear}) }},
		{"fill without strategy", func() (live.NodeID, error) { return s.Fill(root, live.FillOptions{}) }},
		{"fill negative limit", func() (live.NodeID, error) { return s.Fill(root, live.FillOptions{Strategy: live.FillHold, Limit: -1}) }},
		{"fill zero on a string", func() (live.NodeID, error) {
			return s.Fill(root, live.FillOptions{Strategy: live.FillZero, Columns: []string{"host"}})
		}},
		{"cumulative of nothing", func() (live.NodeID, error) { return s.Cumulative(root) }},
		{"cumulative avg", func() (live.NodeID, error) {
			return s.Cumulative(root, live.Running{Column: "value", Using: reduce.Avg})
		}},
		{"gather of the root", func() (live.NodeID, error) { return s.Gather(root) }},
		{"per partition of the root", func() (live.NodeID, error) {
			return s.PerPartition(root, func(s *live.Series, p live.NodeID) (live.NodeID, error) { return p, nil })
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.build()
			require.ErrorIs(t, err, live.ErrConfig)
			var ce *live.ConfigError
			assert.ErrorAs(t, err, &ce)
		})
	}
	_, err := s.Diff(42, "value")
	assert.ErrorIs(t, err, live.ErrNode)
	_, err = live.ParseFillStrategy("bfill")
	assert.ErrorIs(t, err, live.ErrConfig)
}

func TestPushFromInsideAViewFails(t *testing.T) {
	s := newSeries(t, live.Options{})
	var inner, snap error
	_, err := s.Filter(s.Root(), func(schema.Row) bool {
		_, inner = s.PushRows(nil, r(5, 1, ""))
		_, snap = s.Snapshot(s.Root())
		return true
	})
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(0, 1, ""))
	require.NoError(t, err)
	assert.ErrorIs(t, inner, live.ErrReentrant)
	assert.ErrorIs(t, snap, live.ErrReentrant)
	assert.Equal(t, 1, s.Len())
}

func TestPushFromInsideAPushLeavesItsBatchAlone(t *testing.T) {
	// The outer push's outputs borrow the batch PushRows and Typed.Push
	// fill; a refused inner push must not have refilled it first.
	type row struct {
		At    time.Time `pond:"time"`
		Value float64   `pond:"value"`
		Host  string    `pond:"host,optional"`
	}
	s := newSeries(t, live.Options{})
	typed, err := live.NewTyped[row](s)
	require.NoError(t, err)
	var inner []error
	f, err := s.Filter(s.Root(), func(schema.Row) bool {
		_, e1 := s.PushRows(nil, r(50, 99, "z"), r(60, 98, "z"))
		_, e2 := typed.Push(nil, []row{{time.UnixMilli(50), 99, "z"}, {time.UnixMilli(60), 98, "z"}})
		inner = append(inner, e1, e2)
		return true
	})
	require.NoError(t, err)
	require.NoError(t, s.Watch(s.Root()))
	require.NoError(t, s.Watch(f))

	out, err := s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"))
	require.NoError(t, err)
	rootRows, _ := live.Find(out, s.Root(), live.Event)
	kept, _ := live.Find(out, f, live.Event)
	assert.Equal(t, []float64{1, 2}, values(rootRows))
	assert.Equal(t, []float64{1, 2}, values(kept))

	out, err = typed.Push(nil, []row{{time.UnixMilli(2), 3, "a"}, {time.UnixMilli(3), 4, "b"}})
	require.NoError(t, err)
	rootRows, _ = live.Find(out, s.Root(), live.Event)
	kept, _ = live.Find(out, f, live.Event)
	assert.Equal(t, []float64{3, 4}, values(rootRows))
	assert.Equal(t, []float64{3, 4}, values(kept))

	for _, err := range inner {
		assert.ErrorIs(t, err, live.ErrReentrant)
	}
	assert.Equal(t, 4, s.Len())
}

func TestBuildingFromInsideAPushFails(t *testing.T) {
	// A node built from inside a push would replay rows that the push's
	// retention is about to evict, and start from another state than one
	// built after it: every builder refuses.
	aggs := []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}
	builds := []struct {
		name  string
		build func(s *live.Series) (live.NodeID, error)
	}{
		{"rolling", func(s *live.Series) (live.NodeID, error) {
			return s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{})
		}},
		{"partitionBy", func(s *live.Series) (live.NodeID, error) {
			return s.PartitionBy(s.Root(), "host", partition.Options{})
		}},
		{"reduce", func(s *live.Series) (live.NodeID, error) { return s.Reduce(s.Root(), aggs, trigger.Event()) }},
		{"window", func(s *live.Series) (live.NodeID, error) { return s.Window(s.Root(), time.Second) }},
	}
	for _, c := range builds {
		t.Run(c.name, func(t *testing.T) {
			s := newSeries(t, live.Options{MaxEvents: 1})
			var buildErr error
			f, err := s.Filter(s.Root(), func(schema.Row) bool {
				_, buildErr = c.build(s)
				return true
			})
			require.NoError(t, err)
			_, err = s.PushRows(nil, r(0, 1, "a"), r(1, 2, "b"))
			require.NoError(t, err)
			assert.ErrorIs(t, buildErr, live.ErrReentrant)
			_, err = s.NodeSchema(f + 1)
			assert.ErrorIs(t, err, live.ErrNode, "no node was added")
		})
	}
}

func TestViewsSteadyPushDoesNotAllocate(t *testing.T) {
	s := newSeries(t, live.Options{MaxAge: time.Second})
	even, err := s.Filter(s.Root(), func(row schema.Row) bool {
		x, _ := row[1].Num()
		return int(x)%2 == 0
	})
	require.NoError(t, err)
	d, err := s.Diff(even, "value")
	require.NoError(t, err)
	f, err := s.Fill(d, live.FillOptions{Strategy: live.FillHold})
	require.NoError(t, err)
	c, err := s.Cumulative(f, live.Running{Column: "value", Using: reduce.Sum})
	require.NoError(t, err)
	w, err := s.Window(c, 300*time.Millisecond)
	require.NoError(t, err)
	sel, err := s.Select(w, "value")
	require.NoError(t, err)
	red, err := s.Reduce(sel, []reduce.Agg{{Out: "avg", From: "value", Using: reduce.Avg}, {Out: "max", From: "value", Using: reduce.Max}}, trigger.Event())
	require.NoError(t, err)
	agg, err := s.Aggregate(s.Root(), sequence.Every(100*time.Millisecond), []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}, {Out: "p50", From: "value", Using: reduce.Median}}, 0)
	require.NoError(t, err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	smp, err := s.Sample(byHost, 3)
	require.NoError(t, err)
	for _, id := range []live.NodeID{red, agg, smp} {
		require.NoError(t, s.Watch(id))
	}
	require.NoError(t, s.Watch(w, live.Evict))
	assert.Zero(t, steadyPushAllocs(t, s, "a", "b", "c", "d"))
}

func TestSampleRestartsWhenAPartitionIndexIsReused(t *testing.T) {
	s := newSeries(t, live.Options{})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 10 * time.Second})
	require.NoError(t, err)
	smp, err := s.Sample(byHost, 2)
	require.NoError(t, err)
	require.NoError(t, s.Watch(smp))
	_, err = s.PushRows(nil, r(0, 1, "a"), r(1000, 2, "b"))
	require.NoError(t, err)
	_, err = s.PushRows(nil, r(12000, 3, "b")) // a expires; b's second row is sampled
	require.NoError(t, err)
	out, err := s.PushRows(nil, r(13000, 4, "c"), r(14000, 5, "c"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, []float64{5}, values(out[0].Events), "c takes a's index and counts from zero")
}

// BenchmarkViewChain pushes 1000 rows per op through filter → diff →
// window(1s) → reduce(avg, max) over a root keeping 10 s, a partition
// per host (100 hosts) with a per-host sample, and a 1 s aggregate.
func BenchmarkViewChain(b *testing.B) {
	s, err := live.New("bench", metricsSchema, live.Options{MaxAge: 10 * time.Second})
	require.NoError(b, err)
	even, _ := s.Filter(s.Root(), func(row schema.Row) bool { x, _ := row[1].Num(); return int(x)%2 == 0 })
	d, _ := s.Diff(even, "value")
	w, _ := s.Window(d, time.Second)
	red, _ := s.Reduce(w, []reduce.Agg{{Out: "avg", From: "value", Using: reduce.Avg}, {Out: "max", From: "value", Using: reduce.Max}}, trigger.Event())
	byHost, _ := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	smp, _ := s.Sample(byHost, 4)
	agg, _ := s.Aggregate(s.Root(), sequence.Every(time.Second), []reduce.Agg{{Out: "n", From: "value", Using: reduce.Count}}, 0)
	for _, id := range []live.NodeID{red, smp, agg} {
		require.NoError(b, s.Watch(id))
	}
	batch := schema.NewBatch(metricsSchema, 1000)
	hosts := make([]string, 100)
	for i := range hosts {
		hosts[i] = "host-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
	}
	next := int64(0)
	var out []live.Output
	b.ReportAllocs()
	for b.Loop() {
		batch.Reset()
		for i := range 1000 {
			batch.Time = append(batch.Time, next)
			batch.Cols[0].Num = append(batch.Cols[0].Num, float64(i%97))
			batch.Cols[1].Str = append(batch.Cols[1].Str, hosts[i%len(hosts)])
			next += int64(time.Millisecond)
		}
		if out, err = s.PushMany(out[:0], batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}

// A filter and a map over a rolling's samples read each row's array
// without allocating: the samples are kept as numbers, and the views make
// their values in a buffer reused from row to row.
func TestViewsOverSamplesDoNotAllocate(t *testing.T) {
	s := newSeries(t, live.Options{MaxAge: time.Second})
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Name: "300ms", Span: 300 * time.Millisecond, Aggs: []reduce.Agg{
		{Out: "vals", From: "value", Using: reduce.Samples},
	}}}, rolling.Options{Trigger: trigger.Every(100 * time.Millisecond)})
	require.NoError(t, err)
	sch, err := s.NodeSchema(roll)
	require.NoError(t, err)
	k, ok := sch.Index("vals")
	require.True(t, ok)
	var seen, lens float64
	even, err := s.Filter(roll, func(row schema.Row) bool {
		a, _ := row[k].Array()
		for _, v := range a {
			x, _ := v.Num()
			seen += x
		}
		return len(a)%2 == 0
	})
	require.NoError(t, err)
	counted := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "n", Kind: schema.Number})
	m, err := s.Map(roll, counted, func(in, out schema.Row) bool {
		a, _ := in[k].Array()
		lens += float64(len(a))
		out[1] = schema.NumberValue(float64(len(a)))
		return true
	})
	require.NoError(t, err)
	require.NoError(t, s.Watch(even))
	require.NoError(t, s.Watch(m))
	assert.Zero(t, steadyPushAllocs(t, s, "a", "b", "c", "d"))
	assert.Positive(t, seen, "the filter read the samples")
	assert.Positive(t, lens, "the map read the samples")
}

func TestMessagesNamingAnArrayColumnSayAnArray(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "tags", Kind: schema.Array},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := live.New("tags", sch, live.Options{})
	require.NoError(t, err)
	_, err = s.Diff(s.Root(), "tags")
	require.ErrorIs(t, err, live.ErrConfig)
	assert.Contains(t, err.Error(), "is an array column; diff needs a number column")
	_, err = s.PartitionBy(s.Root(), "tags", partition.Options{})
	require.ErrorIs(t, err, partition.ErrOptions)
	assert.Contains(t, err.Error(), "cannot partition by an array column")
	arr, err := schema.Of([]any{"a"})
	require.NoError(t, err)
	_, err = s.PartitionBy(s.Root(), "host", partition.Options{Groups: []schema.Value{arr}})
	require.ErrorIs(t, err, partition.ErrOptions)
	assert.Contains(t, err.Error(), "is an array, the column is string")
}

func TestMapStoresAnArrayWithABadElementAsMissing(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "tags", Kind: schema.Array, Optional: true},
	)
	cases := map[string]schema.Value{
		"a NaN element":      schema.ArrayValue(schema.NumberValue(1), schema.NumberValue(math.NaN())),
		"an infinite one":    schema.ArrayValue(schema.NumberValue(math.Inf(-1))),
		"a nested array":     schema.ArrayValue(schema.ArrayValue(schema.NumberValue(1))),
		"a missing element":  schema.ArrayValue(schema.StringValue("a"), schema.Missing()),
		"a time element":     schema.ArrayValue(schema.MillisValue(3)),
		"good elements kept": schema.ArrayValue(schema.NumberValue(1), schema.StringValue("a"), schema.BoolValue(true)),
		"an empty array":     schema.ArrayValue(),
	}
	for name, cell := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := live.New("t", sch, live.Options{})
			require.NoError(t, err)
			m, err := s.Map(s.Root(), sch, func(in, out schema.Row) bool {
				out[1] = cell
				return true
			})
			require.NoError(t, err)
			require.NoError(t, s.Watch(m))
			out, err := s.PushRows(nil, schema.Row{schema.MillisValue(1), schema.Missing()})
			require.NoError(t, err)
			tab, ok := live.Find(out, m, live.Event)
			require.True(t, ok)
			got := tab.Row(0)[1]
			if strings.HasPrefix(name, "good") || strings.HasPrefix(name, "an empty") {
				assert.Equal(t, cell.String(), got.String())
			} else {
				assert.True(t, got.IsMissing(), "got %v", got)
			}
			snap, err := s.Snapshot(m)
			require.NoError(t, err)
			s2, err := live.New("again", sch, live.Options{})
			require.NoError(t, err)
			_, err = s2.PushRows(nil, snap.Row(0))
			assert.NoError(t, err, "a map's rows can be pushed again")
		})
	}
}
