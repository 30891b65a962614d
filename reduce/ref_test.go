package reduce

import (
	"cmp"
	"math"
	"slices"
	"unicode/utf16"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// This file holds brute-force reference reductions, written independently
// of the incremental states: exact big-number arithmetic for the numeric
// reducers and straightforward loops for the rest.

// refNumbers returns the finite numbers among vals.
func refNumbers(vals []schema.Value) []float64 {
	var xs []float64
	for _, v := range vals {
		if f, ok := v.Num(); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			xs = append(xs, f)
		}
	}
	return xs
}

// refDefined returns the values a reducer counts.
func refDefined(vals []schema.Value) []schema.Value {
	var out []schema.Value
	for _, v := range vals {
		switch v.Kind() {
		case schema.Number:
			if f, _ := v.Num(); !math.IsNaN(f) && !math.IsInf(f, 0) {
				out = append(out, v)
			}
		case schema.String, schema.Bool, schema.Array:
			out = append(out, v)
		}
	}
	return out
}

// refScalars flattens the defined values one level into scalars.
func refScalars(vals []schema.Value) []schema.Value {
	var out []schema.Value
	for _, v := range refDefined(vals) {
		if elems, ok := v.Array(); ok {
			out = append(out, refDefined(elems)...)
		} else {
			out = append(out, v)
		}
	}
	return out
}

// refCompare orders scalars: numbers, strings (as UTF-16), booleans.
func refCompare(a, b schema.Value) int {
	if a.Kind() != b.Kind() {
		rank := map[schema.Kind]int{schema.Number: 0, schema.String: 1, schema.Bool: 2}
		return cmp.Compare(rank[a.Kind()], rank[b.Kind()])
	}
	switch a.Kind() {
	case schema.Number:
		x, _ := a.Num()
		y, _ := b.Num()
		return cmp.Compare(x, y)
	case schema.String:
		x, _ := a.Str()
		y, _ := b.Str()
		if c := slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(y))); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	}
	x, _ := a.Bool()
	y, _ := b.Bool()
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// refPercentile is the linear rule on a sorted copy.
func refPercentile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := q / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	if lo == hi {
		return s[lo]
	}
	return s[lo] + float64((s[hi]-s[lo])*(rank-float64(lo)))
}

// refReduce reduces vals (in arrival order) from scratch. bucket selects
// keep's bucket flavour (the first of equal values) over the window's (0
// for −0).
func refReduce(r Reducer, vals []schema.Value, bucket bool) schema.Value {
	num := func(f float64) schema.Value { return schema.NumberValue(f) }
	xs := refNumbers(vals)
	def := refDefined(vals)
	switch r.op {
	case reducers.OpCount:
		return num(float64(len(def)))
	case reducers.OpSum:
		return num(exact.SumFloat(xs))
	}
	switch r.op {
	case reducers.OpUnique, reducers.OpTop, reducers.OpSamples:
		sc := refScalars(vals)
		if r.op == reducers.OpSamples {
			return schema.ArrayValue(sc...)
		}
		type vc struct {
			v schema.Value
			n int
		}
		var d []vc
	next:
		for _, v := range sc {
			for i := range d {
				if d[i].v.Equal(v) {
					d[i].n++
					continue next
				}
			}
			d = append(d, vc{v, 1})
		}
		slices.SortFunc(d, func(a, b vc) int {
			if r.op == reducers.OpTop && a.n != b.n {
				return cmp.Compare(b.n, a.n)
			}
			return refCompare(a.v, b.v)
		})
		if r.op == reducers.OpTop && len(d) > r.n {
			d = d[:r.n]
		}
		out := []schema.Value{}
		for _, e := range d {
			if f, ok := e.v.Num(); ok && f == 0 {
				e.v = num(0)
			}
			out = append(out, e.v)
		}
		return schema.ArrayValue(out...)
	case reducers.OpFirst, reducers.OpLast, reducers.OpKeep:
		if len(def) == 0 {
			return schema.Value{}
		}
		switch r.op {
		case reducers.OpFirst:
			return def[0]
		case reducers.OpLast:
			return def[len(def)-1]
		}
		for _, v := range def[1:] {
			if !v.Equal(def[0]) {
				return schema.Value{}
			}
		}
		if f, ok := def[0].Num(); ok && f == 0 && !bucket {
			return num(0)
		}
		return def[0]
	}
	if len(xs) == 0 {
		return schema.Value{}
	}
	switch r.op {
	case reducers.OpAvg:
		return num(exact.Mean(xs))
	case reducers.OpStdev:
		return num(exact.Stdev(xs))
	case reducers.OpMin:
		return num(slices.Min(xs))
	case reducers.OpMax:
		return num(slices.Max(xs))
	case reducers.OpDifference:
		return num(slices.Max(xs) - slices.Min(xs))
	}
	return num(refPercentile(xs, r.q)) // median, percentile
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}
