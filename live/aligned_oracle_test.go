package live_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// accepted applies the ordering to the stream: the rows the series
// takes, in arrival order, and the final watermark (latest − grace).
func (c *alignedCase) accepted() ([]arow, int64) {
	var acc []arow
	var latest int64
	for i, r := range c.rows {
		if i > 0 && c.opts.Ordering == live.Drop && r.t < latest {
			continue
		}
		if i == 0 || r.t > latest {
			latest = r.t
		}
		acc = append(acc, r)
	}
	return acc, latest - c.lag
}

// oracle recomputes, by brute force from the accepted rows, every row the
// aligned rolling must emit: at each closed boundary b, for each key in
// first-seen order whose rows meet some window [b − span, b), the
// outputs over exactly those rows.
func (c *alignedCase) oracle() []alignedRow {
	acc, wm := c.accepted()
	if len(acc) == 0 {
		return nil
	}
	var keys []string
	byKey := map[string][]arow{}
	for _, r := range acc {
		if _, ok := byKey[r.host]; !ok {
			keys = append(keys, r.host)
		}
		byKey[r.host] = append(byKey[r.host], r)
	}
	floor := func(t int64) int64 {
		d := t - c.anchor
		q := d / c.step
		if d%c.step != 0 && d < 0 {
			q--
		}
		return c.anchor + q*c.step
	}
	var want []alignedRow
	for b := floor(acc[0].t-c.lag) + c.step; b <= wm; b += c.step {
		for _, k := range keys {
			var vals []schema.Value
			var scales []float64
			held := false
			for _, w := range c.windows {
				lo := b - w.Span.Milliseconds()
				var in []arow
				scale := 1.0
				for _, r := range byKey[k] {
					if r.t >= lo && r.t < b {
						in = append(in, r)
						if r.xOK {
							scale = max(scale, math.Abs(r.x))
						}
					}
				}
				held = held || len(in) > 0
				vals = append(vals, windowValues(w, in)...)
				for range w.Aggs {
					scales = append(scales, scale)
				}
			}
			if !c.huge && !c.chains {
				scales = nil
			}
			if held {
				want = append(want, alignedRow{b: b, key: k, vals: vals, scales: scales})
			}
		}
	}
	return want
}

// windowValues computes each output of w over rows (arrival order).
func windowValues(w rolling.Window, rows []arow) []schema.Value {
	var out []schema.Value
	for _, a := range w.Aggs {
		if w.MinSamples != nil && len(rows) < *w.MinSamples {
			out = append(out, schema.Value{})
			continue
		}
		out = append(out, refAgg(a, rows))
	}
	return out
}

func refAgg(a reduce.Agg, rows []arow) schema.Value {
	var xs []float64
	var vals []schema.Value
	for _, r := range rows {
		v := r.row()[1]
		switch a.From {
		case "s":
			v = r.row()[2]
		case "a":
			v = r.row()[4]
		}
		vals = append(vals, v)
		if x, ok := v.Num(); ok {
			xs = append(xs, x)
		}
	}
	num := func(x float64, ok bool) schema.Value {
		if !ok {
			return schema.Value{}
		}
		return schema.NumberValue(x)
	}
	switch reducers.SpecOf(a.Using).Op {
	case reducers.OpCount:
		n := 0
		for _, v := range vals {
			if !v.IsMissing() {
				n++
			}
		}
		return schema.NumberValue(float64(n))
	case reducers.OpSum:
		s := exact.SumFloat(xs)
		// Beyond the float64 range: missing (reduce's package doc).
		return num(s, !math.IsInf(s, 0))
	case reducers.OpAvg:
		if len(xs) == 0 {
			return schema.Value{}
		}
		m := exact.Mean(xs)
		return schema.NumberValue(m)
	case reducers.OpStdev:
		for _, x := range xs {
			if math.Abs(x) >= 0x1p500 {
				// Its square is beyond what the sums keep: missing
				// while it is held (reduce's package doc).
				return schema.Value{}
			}
		}
		return num(exact.Stdev(xs), len(xs) > 0)
	case reducers.OpMin, reducers.OpMax, reducers.OpDifference:
		if len(xs) == 0 {
			return schema.Value{}
		}
		lo, hi := slices.Min(xs), slices.Max(xs)
		switch reducers.SpecOf(a.Using).Op {
		case reducers.OpMin:
			return schema.NumberValue(lo)
		case reducers.OpMax:
			return schema.NumberValue(hi)
		}
		return schema.NumberValue(hi - lo)
	case reducers.OpFirst, reducers.OpLast:
		// The value at the earliest time (ties: the earlier arrival), or
		// at the latest time (ties: the later arrival).
		best := -1
		for i, v := range vals {
			if v.IsMissing() {
				continue
			}
			if best < 0 || reducers.SpecOf(a.Using).Op == reducers.OpFirst && rows[i].t < rows[best].t || reducers.SpecOf(a.Using).Op == reducers.OpLast && rows[i].t >= rows[best].t {
				best = i
			}
		}
		if best < 0 {
			return schema.Value{}
		}
		return vals[best]
	}
	// The holistic reducers: a bucket over the rows in arrival order.
	kind := schema.Number
	switch a.From {
	case "s":
		kind = schema.String
	case "a":
		kind = schema.Array
	}
	bk := reducers.NewBucket(reducers.SpecOf(a.Using))
	for _, v := range vals {
		bk.Add(v)
	}
	col := schema.NewTable(schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "v", Kind: a.Using.OutputKind(kind), Optional: true}))
	bk.Append(table.Column(col, 1))
	table.Column(col, 0).AppendTime(0)
	return col.Row(0)[1]
}

// sameValue compares an alignedRow cell with the oracle's: numbers to 1e-12
// relative (absolute against the scale of the data for results near 0),
// anything else exactly.
func sameValue(got, want schema.Value, scale float64) bool {
	g, gok := got.Num()
	w, wok := want.Num()
	if gok && wok {
		return math.Abs(g-w) <= 1e-12*max(math.Abs(w), scale*1e-3)
	}
	return got.Equal(want) || got.String() == want.String()
}

func compareEmitted(t *testing.T, got, want []alignedRow, scale float64, label string) {
	t.Helper()
	require.Equal(t, len(want), len(got), "%s: rows alignedRow", label)
	for i := range want {
		g, w := got[i], want[i]
		require.Equal(t, w.b, g.b, "%s: row %d boundary", label, i)
		require.Equal(t, w.key, g.key, "%s: row %d key", label, i)
		for j := range w.vals {
			s := scale
			if w.scales != nil {
				s = w.scales[j]
			}
			if !sameValue(g.vals[j], w.vals[j], s) {
				assert.Failf(t, "value differs", "%s: row %d (%d %s) output %d: got %v, want %v", label, i, w.b, w.key, j, g.vals[j], w.vals[j])
				return
			}
		}
	}
}

func TestAlignedOracle(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 14))
		c := newAlignedCase(rng)
		switch rng.IntN(8) {
		case 0:
			c.makeHuge(rng)
		case 1:
			c.makeChains(rng)
		}
		s, node, err := c.build()
		require.NoError(t, err)
		defer s.Close()
		got, err := pushAligned(s, node, c.rows, func() int { return 1 + rng.IntN(25) })
		require.NoError(t, err)
		scale := 1.0
		for _, r := range c.rows {
			scale = max(scale, math.Abs(r.x))
		}
		compareEmitted(t, got, c.oracle(), scale, "seed "+time.Duration(seed).String())
		if t.Failed() {
			t.Logf("case: ordering %v lag %d step %d anchor %d huge %v chains %v windows %+v", c.opts.Ordering, c.lag, c.step, c.anchor, c.huge, c.chains, c.windows)
			return
		}
	}
}

var _ = cmp.Compare[int]

// FuzzAlignedOracle drives the oracle from fuzzed seeds and batch sizes:
// every case it finds is a random stream, pipeline and batching whose
// aligned rows must equal the brute-force ones, and must not panic.
func FuzzAlignedOracle(f *testing.F) {
	f.Add(uint64(1), uint8(7))
	f.Add(uint64(99), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, batch uint8) {
		rng := rand.New(rand.NewPCG(seed, 77))
		c := newAlignedCase(rng)
		switch rng.IntN(8) {
		case 0:
			c.makeHuge(rng)
		case 1:
			c.makeChains(rng)
		}
		c.rows = c.rows[:min(len(c.rows), 200)]
		s, node, err := c.build()
		require.NoError(t, err)
		defer s.Close()
		size := 1 + int(batch)%40
		got, err := pushAligned(s, node, c.rows, func() int { return size })
		require.NoError(t, err)
		scale := 1.0
		for _, r := range c.rows {
			scale = max(scale, math.Abs(r.x))
		}
		compareEmitted(t, got, c.oracle(), scale, "fuzz")
	})
}
