package live_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// The string, boolean and array probes: random streams of adversarial
// values (non-ASCII strings, surrogate pairs, U+FFFF, invalid UTF-8, empty
// strings, case variants, long runs of one value, a fresh string in most
// rows; missing cells; empty arrays and arrays of mixed scalars) through
// the reducers that read those kinds (count, first, last, keep, unique,
// top<N>, samples), in default-mode rollings, aligned rollings and
// reduces; every emitted cell is compared with a model written from
// package reduce's doc, and every emitted table's JSON read back through
// encoding/json.

// strpSchema has an optional string s, boolean b and array a, and a host
// to partition by.
var strpSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "s", Kind: schema.String, Optional: true},
	schema.Column{Name: "b", Kind: schema.Bool, Optional: true},
	schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	schema.Column{Name: "host", Kind: schema.String},
)

// strpRow is a pushed row; its cells are schema values (the zero Value:
// missing).
type strpRow struct {
	ms      int64
	s, b, a schema.Value
	host    string
}

func (r strpRow) row() schema.Row {
	return schema.Row{schema.MillisValue(r.ms), r.s, r.b, r.a, schema.StringValue(r.host)}
}

func (r strpRow) cell(col string) schema.Value {
	switch col {
	case "s":
		return r.s
	case "b":
		return r.b
	}
	return r.a
}

// strpReds are the reducers that read strings, booleans and arrays.
var strpReds = []reduce.Reducer{reduce.Count, reduce.First, reduce.Last, reduce.Keep, reduce.Unique,
	reduce.Top(1), reduce.Top(2), reduce.Top(3), reduce.Samples}

// strpAggs returns every reducer of strpReds over each of cols.
func strpAggs(cols ...string) []reduce.Agg {
	var aggs []reduce.Agg
	for _, c := range cols {
		for _, red := range strpReds {
			aggs = append(aggs, reduce.Agg{Out: c + "_" + red.String(), From: c, Using: red})
		}
	}
	return aggs
}

// strpPool are the adversarial strings.
var strpPool = []string{
	"", "", "a", "A", "b", "B", "abc", "ABC", "aBc", "é", "e\u0301", "É", "😀", "🙂", "\U0010FFFF",
	"\uFFFF", "\uE000", "\uFFFD", "\uD7FF", "日本", "\xff", "\xfe", "a\xffb", "\xef\xbf", "\u2028", "q\"\\",
	"\x00", "\t\n", "x",
}

// strpMix draws the cells of row i.
type strpMix func(r *rand.Rand, i int) (s, b, a schema.Value)

func strpScalar(r *rand.Rand) schema.Value {
	switch r.IntN(4) {
	case 0:
		return schema.NumberValue([]float64{0, math.Copysign(0, -1), 1, 2.5, -3, 1e300, 7}[r.IntN(7)])
	case 1:
		return schema.BoolValue(r.IntN(2) == 0)
	}
	return schema.StringValue(strpPool[r.IntN(len(strpPool))])
}

func strpArray(r *rand.Rand) schema.Value {
	switch r.IntN(7) {
	case 0:
		return schema.Value{}
	case 1:
		return schema.ArrayValue()
	case 2:
		return schema.ArrayValue(schema.NumberValue(1), schema.StringValue("a"))
	}
	n := 1 + r.IntN(4)
	elems := make([]schema.Value, n)
	for k := range elems {
		elems[k] = strpScalar(r)
	}
	return schema.ArrayValue(elems...)
}

func strpBool(r *rand.Rand, pMissing int) schema.Value {
	if r.IntN(100) < pMissing {
		return schema.Value{}
	}
	return schema.BoolValue(r.IntN(2) == 0)
}

var strpMixes = map[string]strpMix{
	// any pool string, a fifth missing
	"pool": func(r *rand.Rand, _ int) (schema.Value, schema.Value, schema.Value) {
		s := schema.Value{}
		if r.IntN(5) > 0 {
			s = schema.StringValue(strpPool[r.IntN(len(strpPool))])
		}
		return s, strpBool(r, 25), strpArray(r)
	},
	// a new string in most rows (the intern table forgets strings)
	"fresh": func(r *rand.Rand, i int) (schema.Value, schema.Value, schema.Value) {
		var s schema.Value
		switch r.IntN(6) {
		case 0:
		case 1:
			s = schema.StringValue(strpPool[r.IntN(len(strpPool))])
		default:
			s = schema.StringValue(fmt.Sprintf("id-%d-é%d", i, r.IntN(1000)))
		}
		a := schema.ArrayValue(schema.StringValue(fmt.Sprintf("e%d", r.IntN(50))), schema.StringValue(fmt.Sprintf("f%d", i)))
		if r.IntN(4) == 0 {
			a = strpArray(r)
		}
		return s, strpBool(r, 50), a
	},
	// long runs of one value, case variants and missing cells in them
	"runs": func(r *rand.Rand, i int) (schema.Value, schema.Value, schema.Value) {
		words := []string{"Host", "😀", "", "\uFFFF", "é"}
		w := words[(i/40)%len(words)]
		s := schema.StringValue(w)
		switch r.IntN(20) {
		case 0:
			s = schema.Value{}
		case 1:
			s = schema.StringValue(strings.ToUpper(w))
		case 2:
			s = schema.StringValue(strings.ToLower(w))
		}
		b := schema.BoolValue((i/30)%2 == 0)
		if r.IntN(10) == 0 {
			b = schema.Value{}
		}
		a := schema.ArrayValue(schema.NumberValue(float64((i/50)%3)), schema.StringValue(w))
		switch r.IntN(15) {
		case 0:
			a = schema.Value{}
		case 1:
			a = schema.ArrayValue(schema.NumberValue(math.Copysign(0, -1)), schema.StringValue(w))
		case 2:
			a = strpArray(r)
		}
		if (i/50)%3 == 0 && r.IntN(2) == 0 {
			a = schema.ArrayValue(schema.NumberValue(math.Copysign(0, -1)), schema.StringValue(w))
		}
		return s, b, a
	},
	// a few values, many equal
	"few": func(r *rand.Rand, _ int) (schema.Value, schema.Value, schema.Value) {
		s := schema.StringValue([]string{"x", "x", "x", "X", "y", "😀", "\uE000"}[r.IntN(7)])
		if r.IntN(6) == 0 {
			s = schema.Value{}
		}
		a := schema.ArrayValue()
		if r.IntN(3) == 0 {
			a = schema.ArrayValue(schema.BoolValue(false), schema.BoolValue(true), schema.BoolValue(true))
		}
		return s, strpBool(r, 10), a
	},
}

// strpOrder orders scalars as package reduce's doc says: numbers
// ascending, then strings by UTF-16 code units (an invalid byte as
// U+FFFD; strings that read alike by their bytes), then false before
// true.
func strpOrder(a, b schema.Value) int {
	if a.Kind() != b.Kind() {
		rank := func(k schema.Kind) int {
			return map[schema.Kind]int{schema.Number: 0, schema.String: 1, schema.Bool: 2}[k]
		}
		return cmp.Compare(rank(a.Kind()), rank(b.Kind()))
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
	return cmp.Compare(b2i(x), b2i(y))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// strpKeyT is a scalar as a map key (0 and −0 one key).
type strpKeyT struct {
	kind schema.Kind
	bits uint64
	str  string
}

func strpKey(v schema.Value) strpKeyT {
	k := strpKeyT{kind: v.Kind()}
	switch v.Kind() {
	case schema.Number:
		x, _ := v.Num()
		k.bits = math.Float64bits(x + 0)
	case schema.String:
		k.str, _ = v.Str()
	case schema.Bool:
		b, _ := v.Bool()
		k.bits = uint64(b2i(b))
	}
	return k
}

// strpFlat returns the scalars of the present values, arrays flattened.
func strpFlat(vals []schema.Value) []schema.Value {
	out := []schema.Value{}
	for _, v := range vals {
		if elems, ok := v.Array(); ok {
			out = append(out, elems...)
		} else if !v.IsMissing() {
			out = append(out, v)
		}
	}
	return out
}

// strpFold turns −0 into 0.
func strpFold(v schema.Value) schema.Value {
	if x, ok := v.Num(); ok {
		return schema.NumberValue(x + 0)
	}
	return v
}

// strpModel is the documented reduction of a window's cells.
type strpModel struct {
	count          int
	first, last    schema.Value
	keep           schema.Value
	samples        schema.Value
	unique, byFreq []schema.Value // the distinct scalars in scalar order; by count, ties in scalar order
}

// strpModelOf models vals (the window's cells in arrival order, missing
// ones included), first and last being the window's first and last
// present values by the mode's rule.
func strpModelOf(vals []schema.Value, first, last schema.Value) *strpModel {
	m := &strpModel{first: first, last: last}
	var present []schema.Value
	for _, v := range vals {
		if !v.IsMissing() {
			present = append(present, v)
		}
	}
	m.count = len(present)
	if len(present) > 0 {
		m.keep = present[0]
		for _, v := range present {
			if !v.Equal(present[0]) {
				m.keep = schema.Value{}
				break
			}
		}
	}
	flat := strpFlat(present)
	m.samples = schema.ArrayValue(flat...)
	counts := map[strpKeyT]int{}
	type kc struct {
		v schema.Value
		u []uint16
		n *int
	}
	var distinct []kc
	for _, v := range flat {
		k := strpKey(v)
		if _, ok := counts[k]; !ok {
			counts[k] = 0
			var u []uint16
			if s, ok := v.Str(); ok {
				u = utf16.Encode([]rune(s))
			}
			distinct = append(distinct, kc{v: strpFold(v), u: u})
		}
		counts[k]++
	}
	for i := range distinct {
		n := counts[strpKey(distinct[i].v)]
		distinct[i].n = &n
	}
	order := func(a, b kc) int {
		if a.v.Kind() == schema.String && b.v.Kind() == schema.String {
			if c := slices.Compare(a.u, b.u); c != 0 {
				return c
			}
		}
		return strpOrder(a.v, b.v)
	}
	slices.SortFunc(distinct, order)
	for _, d := range distinct {
		m.unique = append(m.unique, d.v)
	}
	slices.SortStableFunc(distinct, func(a, b kc) int { return cmp.Compare(*b.n, *a.n) })
	for _, d := range distinct {
		m.byFreq = append(m.byFreq, d.v)
	}
	return m
}

// want returns the reducer's documented result.
func (m *strpModel) want(red reduce.Reducer) schema.Value {
	switch red {
	case reduce.Count:
		return schema.NumberValue(float64(m.count))
	case reduce.First:
		return m.first
	case reduce.Last:
		return m.last
	case reduce.Keep:
		return m.keep
	case reduce.Samples:
		return m.samples
	case reduce.Unique:
		return schema.ArrayValue(m.unique...)
	}
	var n int
	fmt.Sscanf(red.String(), "top%d", &n)
	return schema.ArrayValue(m.byFreq[:min(n, len(m.byFreq))]...)
}

// strpSame reports whether got is want: the same kind, numbers by their
// bits, strings by their bytes, arrays element by element; keep over
// arrays compares as schema.Value.Equal (which of equal arrays it gives
// is not said).
func strpSame(red reduce.Reducer, got, want schema.Value) bool {
	if red == reduce.Keep && want.Kind() == schema.Array {
		return got.Kind() == schema.Array && got.Equal(want)
	}
	if got.Kind() != want.Kind() {
		return false
	}
	switch got.Kind() {
	case schema.Number:
		x, _ := got.Num()
		y, _ := want.Num()
		return math.Float64bits(x) == math.Float64bits(y)
	case schema.Array:
		g, _ := got.Array()
		w, _ := want.Array()
		if len(g) != len(w) {
			return false
		}
		for k := range g {
			if !strpSame(reduce.Samples, g[k], w[k]) {
				return false
			}
		}
		return true
	}
	return got.Equal(want)
}

// strpFirstLast returns the first and last present values of vals in
// arrival order.
func strpFirstLast(vals []schema.Value) (first, last schema.Value) {
	for _, v := range vals {
		if !v.IsMissing() {
			if first.IsMissing() {
				first = v
			}
			last = v
		}
	}
	return first, last
}

// strpJSONOf is what encoding/json reads back from the JSON of v.
func strpJSONOf(v schema.Value) any {
	switch v.Kind() {
	case schema.Time:
		ns, _ := v.Nanos()
		return float64(ns) / 1e6
	case schema.Number:
		x, _ := v.Num()
		return x
	case schema.String:
		s, _ := v.Str()
		return string([]rune(s)) // invalid bytes as U+FFFD, one each
	case schema.Bool:
		b, _ := v.Bool()
		return b
	case schema.Array:
		elems, _ := v.Array()
		out := []any{}
		for _, e := range elems {
			out = append(out, strpJSONOf(e))
		}
		return out
	}
	return nil
}

// strpCheckJSON reads tab's JSON back and compares every cell with the
// table's own; it returns "" or what differs, and the cells checked. A
// table of more than 8 rows is read back row by row
// (schema.Table.AppendJSONRow), every 7th row and the last.
func strpCheckJSON(tab *schema.Table) (string, int) {
	var rows []map[string]any
	var at []int
	if tab.Len() <= 8 {
		if err := json.Unmarshal(tab.AppendJSON(nil), &rows); err != nil {
			return fmt.Sprintf("JSON does not read back: %v", err), 0
		}
		if len(rows) != tab.Len() {
			return fmt.Sprintf("JSON has %d rows for %d", len(rows), tab.Len()), 0
		}
		for i := range tab.Len() {
			at = append(at, i)
		}
	} else {
		for i := 0; i < tab.Len(); i++ {
			if i%7 != 0 && i != tab.Len()-1 {
				continue
			}
			var row map[string]any
			if err := json.Unmarshal(tab.AppendJSONRow(nil, i), &row); err != nil {
				return fmt.Sprintf("JSON of row %d does not read back: %v", i, err), 0
			}
			rows = append(rows, row)
			at = append(at, i)
		}
	}
	n := 0
	names := tab.Schema().Names()
	for k, i := range at {
		for j, name := range names {
			want := strpJSONOf(tab.Value(i, j))
			got, ok := rows[k][name]
			if !ok || !reflect.DeepEqual(got, want) {
				return fmt.Sprintf("JSON row %d column %s: read back %#v, want %#v (cell %v)", i, name, got, want, tab.Value(i, j)), n
			}
			n++
		}
	}
	return "", n
}

// strpCut shortens a message to 600 bytes.
func strpCut(msg string) string {
	if len(msg) > 600 {
		return msg[:600] + "…"
	}
	return msg
}

// strpStats counts what a probe checked.
type strpStats struct {
	rows, cells, json int
}

func (s *strpStats) add(o strpStats) {
	s.rows += o.rows
	s.cells += o.cells
	s.json += o.json
}

// strpGen draws rows: times from gap, hosts from hosts (0: one host "h").
func strpGen(rng *rand.Rand, mix strpMix, n, hosts int, gap func(r *rand.Rand) int64) []strpRow {
	rows := make([]strpRow, n)
	t := int64(1_000_000)
	for i := range rows {
		if i > 0 {
			t += gap(rng)
		}
		h := "h"
		if hosts > 0 {
			h = fmt.Sprintf("h%d", rng.IntN(hosts))
		}
		s, b, a := mix(rng, i)
		rows[i] = strpRow{ms: t, s: s, b: b, a: a, host: h}
	}
	return rows
}

// push pushes rows in batches of the sizes given, cycled, and calls
// each with the push's output and its rows [i, i+m).
func strpPush(t *testing.T, s *live.Series, rows []strpRow, batches []int, each func(out []live.Output, i, m int) string) string {
	t.Helper()
	var out []live.Output
	for i, k := 0, 0; i < len(rows); k++ {
		m := min(batches[k%len(batches)], len(rows)-i)
		batch := make([]schema.Row, m)
		for j := range m {
			batch[j] = rows[i+j].row()
		}
		var err error
		out, err = s.PushRows(out[:0], batch...)
		require.NoError(t, err)
		if msg := each(out, i, m); msg != "" {
			return msg
		}
		i += m
	}
	return ""
}

// strpCheckRow compares row e of tab, whose window held vals of each
// aggregation's column (by column name), with the model.
func strpCheckRow(tab *schema.Table, e int, aggs []reduce.Agg, held func(col string) (vals []schema.Value, first, last schema.Value), missingAll bool, st *strpStats) string {
	st.rows++
	models := map[string]*strpModel{}
	for _, a := range aggs {
		j, ok := tab.Schema().Index(a.Out)
		if !ok {
			return "no column " + a.Out
		}
		if models[a.From] == nil {
			vals, first, last := held(a.From)
			models[a.From] = strpModelOf(vals, first, last)
		}
		want := models[a.From].want(a.Using)
		if missingAll {
			want = schema.Value{}
		}
		got := tab.Value(e, j)
		st.cells++
		if !strpSame(a.Using, got, want) {
			vals, _, _ := held(a.From)
			return strpCut(fmt.Sprintf("%s: got %v, want %v (window %v)", a.Out, got, want, vals))
		}
	}
	return ""
}

// strpProbe is a default-mode rolling probe.
type strpProbe struct {
	name    string
	count   int   // a count window (0: a time window)
	span    int64 // ms
	clock   int64 // a clock trigger's step, ms (0: event)
	hosts   int   // partitioned over this many hosts (0: the root)
	minS    int   // the window's MinSamples
	batches []int
	gap     func(r *rand.Rand) int64
	rows    int
	aggs    []reduce.Agg
	seriesK int // the series' MaxEvents
}

// heldAt returns the rows (indices) of host h that the window of crossing
// row c holds, in arrival order.
func (p *strpProbe) heldAt(rows []strpRow, c int, h string) []int {
	var idx []int
	for i := 0; i <= c; i++ {
		if rows[i].host == h {
			idx = append(idx, i)
		}
	}
	if p.count > 0 {
		return idx[max(0, len(idx)-p.count):]
	}
	var in []int
	for _, i := range idx {
		if rows[i].ms >= rows[c].ms-p.span {
			in = append(in, i)
		}
	}
	return in
}

func (p *strpProbe) run(t *testing.T, rows []strpRow) (string, strpStats) {
	t.Helper()
	var st strpStats
	s, err := live.New("strp", strpSchema, live.Options{MaxEvents: p.seriesK})
	require.NoError(t, err)
	defer s.Close()
	src := s.Root()
	if p.hosts > 0 {
		src, err = s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 2})
		require.NoError(t, err)
	}
	w := rolling.Window{Count: p.count, Span: time.Duration(p.span) * time.Millisecond, Aggs: p.aggs}
	if p.minS > 0 {
		w.MinSamples = rolling.Samples(p.minS)
	}
	opts := rolling.Options{Trigger: trigger.Event()}
	if p.clock > 0 {
		opts.Trigger = trigger.Clock(sequence.Every(time.Duration(p.clock) * time.Millisecond))
	}
	n, err := s.Rolling(src, []rolling.Window{w}, opts)
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	times := make([]int64, len(rows))
	for i, r := range rows {
		times[i] = r.ms
	}
	msg := strpPush(t, s, rows, p.batches, func(out []live.Output, i, m int) string {
		tab, ok := live.Find(out, n, live.Event)
		emitted := 0
		if ok {
			emitted = tab.Len()
		}
		if p.clock == 0 && emitted != m {
			return fmt.Sprintf("push at row %d: %d rows emitted for %d pushed", i, emitted, m)
		}
		if !ok {
			return ""
		}
		if msg, k := strpCheckJSON(tab); msg != "" {
			return msg
		} else {
			st.json += k
		}
		var hosts []string
		if p.hosts > 0 {
			hosts, _ = tab.Strings("host")
		}
		for e := range emitted {
			c := i + e
			if p.clock > 0 {
				b := tab.TimeNanos(e) / int64(time.Millisecond)
				c, _ = slices.BinarySearch(times, b)
				if c < i || c >= i+m {
					return fmt.Sprintf("push at row %d: a tick at %dms crossed by row %d", i, b, c)
				}
			}
			h := "h"
			if p.hosts > 0 {
				h = hosts[e]
			}
			if p.count >= 100 && c%11 != 0 && e != emitted-1 {
				continue // a long window: every 11th row and a push's last
			}
			in := p.heldAt(rows, c, h)
			held := func(col string) ([]schema.Value, schema.Value, schema.Value) {
				var vals []schema.Value
				for _, k := range in {
					vals = append(vals, rows[k].cell(col))
				}
				f, l := strpFirstLast(vals)
				return vals, f, l
			}
			if msg := strpCheckRow(tab, e, p.aggs, held, len(in) < p.minS, &st); msg != "" {
				return fmt.Sprintf("row %d (push of %d at row %d), host %s, window rows %v: %s", c, m, i, h, in, msg)
			}
		}
		return ""
	})
	return msg, st
}

var strpShapes = []strpProbe{
	{name: "count 5, event, a row a push", count: 5, batches: []int{1}, gap: everySecond},
	{name: "count 6, event, 1-50 rows a push, warm-up 4", count: 6, minS: 4, batches: []int{1, 3, 7, 50}, gap: everySecond, seriesK: 3},
	{name: "count 700, event, 1000 rows a push", count: 700, batches: []int{1000, 3, 50, 1}, gap: everySecond, seriesK: 1},
	{name: "6s on a 1s clock", span: 6000, clock: 1000, batches: []int{1, 3, 7, 50}, gap: jittered},
	{name: "3s on a 0.5s clock, bursts, warm-up 3", span: 3000, clock: 500, minS: 3, batches: []int{1, 7, 50, 1000}, gap: bursty, seriesK: 2},
	{name: "20s, event, bursts", span: 20000, batches: []int{1000, 1, 50}, gap: bursty},
	{name: "count 8 on a 1s clock, 3 hosts", count: 8, clock: 1000, hosts: 3, batches: []int{1, 7, 50}, gap: jittered},
	{name: "5s on a 0.5s clock, 5 hosts, bursts", span: 5000, clock: 500, hosts: 5, batches: []int{1, 3, 50, 1000}, gap: bursty},
	{name: "10s, event, 4 hosts, warm-up 2", span: 10000, hosts: 4, minS: 2, batches: []int{1000, 50, 1}, gap: jittered},
}

// TestStrpProbeRolling: every reducer of strings, booleans and arrays in
// default-mode rollings (count and time windows, event and clock
// triggers, the root and partitions, warm-ups), over the value mixes
// "few" and "fresh"; TestStrpProbeRollingMore over "pool" and "runs".
func TestStrpProbeRolling(t *testing.T) { strpRunRollings(t, 40, "few", "fresh") }

func TestStrpProbeRollingMore(t *testing.T) { strpRunRollings(t, 44, "pool", "runs") }

func strpRunRollings(t *testing.T, seed uint64, mixes ...string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	aggSets := [][]reduce.Agg{strpAggs("s", "b", "a"), strpAggs("s"), strpAggs("a"), strpAggs("b", "s")}
	var tot strpStats
	k := 0
	for _, mix := range mixes {
		for _, sh := range strpShapes {
			p := sh
			p.aggs = aggSets[k%len(aggSets)]
			k++
			p.rows = 400
			if p.count == 700 {
				p.rows = 1300
			}
			rows := strpGen(rng, strpMixes[mix], p.rows, p.hosts, p.gap)
			msg, st := p.run(t, rows)
			tot.add(st)
			if msg != "" {
				t.Errorf("%s, %s: %s", mix, p.name, msg)
			}
		}
	}
	t.Logf("%d rows, %d cells, %d JSON cells checked", tot.rows, tot.cells, tot.json)
	require.Greater(t, tot.cells, 50000)
}

// strpAligned is an aligned rolling probe: windows of spans (ms), each with
// aggs, on a clock of step (ms), over a series of opts, partitioned by host
// or on the root.
type strpAligned struct {
	name    string
	opts    live.Options
	spans   []int64
	minS    []int // each window's MinSamples (0: none)
	step    int64
	byHost  bool
	hosts   int
	late    int // percent of rows late, within the grace
	batches []int
	gap     func(r *rand.Rand) int64
	rows    int
	cols    []string
}

func (p *strpAligned) windows() []rolling.Window {
	var ws []rolling.Window
	for i, sp := range p.spans {
		w := rolling.Window{Name: fmt.Sprintf("w%d", i), Span: time.Duration(sp) * time.Millisecond}
		for _, a := range strpAggs(p.cols...) {
			a.Out = fmt.Sprintf("%s_%d", a.Out, i)
			w.Aggs = append(w.Aggs, a)
		}
		if i < len(p.minS) && p.minS[i] > 0 {
			w.MinSamples = rolling.Samples(p.minS[i])
		}
		ws = append(ws, w)
	}
	return ws
}

// gen draws rows; under reorder some arrive late, within the grace.
func (p *strpAligned) gen(rng *rand.Rand, mix strpMix) []strpRow {
	rows := strpGen(rng, mix, p.rows, p.hosts, p.gap)
	if p.late > 0 {
		strpLate(rng, rows, p.gap, p.late, p.opts.Grace.Milliseconds())
	}
	return rows
}

// strpLate times rows again: gaps drawn by gap, and late% of them late by
// up to g ms behind the latest time.
func strpLate(rng *rand.Rand, rows []strpRow, gap func(*rand.Rand) int64, late int, g int64) {
	t, maxT := int64(1_000_000), int64(1_000_000)
	for i := range rows {
		if i > 0 {
			t += gap(rng)
		}
		rows[i].ms = t
		if rng.IntN(100) < late {
			rows[i].ms = maxT - rng.Int64N(g+1)
		}
		maxT = max(maxT, rows[i].ms)
	}
}

type strpKeyed struct {
	b   int64
	key string
}

func (p *strpAligned) run(t *testing.T, rows []strpRow) (string, strpStats) {
	t.Helper()
	var st strpStats
	s, err := live.New("strp", strpSchema, p.opts)
	require.NoError(t, err)
	defer s.Close()
	src := s.Root()
	if p.byHost {
		src, err = s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
	}
	ws := p.windows()
	n, err := s.Rolling(src, ws, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Duration(p.step) * time.Millisecond)), Aligned: true})
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	var got []strpKeyed
	// held returns key's rows with b − span ≤ t < b, in arrival order.
	byKey := map[string][]int{}
	for i, r := range rows {
		key := r.host
		if !p.byHost {
			key = "h"
		}
		byKey[key] = append(byKey[key], i)
	}
	held := func(key string, b, span int64) []int {
		var in []int
		for _, i := range byKey[key] {
			if r := rows[i]; r.ms >= b-span && r.ms < b {
				in = append(in, i)
			}
		}
		return in
	}
	msg := strpPush(t, s, rows, p.batches, func(out []live.Output, i, m int) string {
		tab, ok := live.Find(out, n, live.Event)
		if !ok {
			return ""
		}
		if msg, k := strpCheckJSON(tab); msg != "" {
			return msg
		} else {
			st.json += k
		}
		var keys []string
		if p.byHost {
			keys, _ = tab.Strings("host")
		}
		for e := range tab.Len() {
			b := tab.TimeNanos(e) / int64(time.Millisecond)
			key := "h"
			if p.byHost {
				key = keys[e]
			}
			got = append(got, strpKeyed{b, key})
			if p.spans[0] >= 100*p.step && (b/p.step)%7 != 0 {
				continue // a long window: every 7th boundary
			}
			for wi, w := range ws {
				in := held(key, b, p.spans[wi])
				cells := func(col string) ([]schema.Value, schema.Value, schema.Value) {
					var vals []schema.Value
					var first, last schema.Value
					var ft, lt int64
					for _, k := range in {
						v := rows[k].cell(col)
						vals = append(vals, v)
						if v.IsMissing() {
							continue
						}
						if first.IsMissing() || rows[k].ms < ft {
							first, ft = v, rows[k].ms
						}
						if last.IsMissing() || rows[k].ms >= lt {
							last, lt = v, rows[k].ms
						}
					}
					return vals, first, last
				}
				minS := 0
				if wi < len(p.minS) {
					minS = p.minS[wi]
				}
				if msg := strpCheckRow(tab, e, w.Aggs, cells, len(in) < minS, &st); msg != "" {
					return fmt.Sprintf("boundary %d key %s window %s (push of %d at row %d), rows %v: %s", b, key, w.Name, m, i, in, msg)
				}
			}
		}
		return ""
	})
	if msg != "" {
		return msg, st
	}
	// Every closed boundary at which a key's windows hold a row, once.
	maxT, minT := int64(math.MinInt64), int64(math.MaxInt64)
	for _, r := range rows {
		maxT, minT = max(maxT, r.ms), min(minT, r.ms)
	}
	closed := maxT
	if p.opts.Ordering == live.Reorder {
		closed -= p.opts.Grace.Milliseconds()
	}
	var want []strpKeyed
	for b := (minT/p.step - 1) * p.step; b <= closed; b += p.step {
		for _, key := range slices.Sorted(maps.Keys(byKey)) {
			for _, sp := range p.spans {
				if len(held(key, b, sp)) > 0 {
					want = append(want, strpKeyed{b, key})
					break
				}
			}
		}
	}
	sorted := slices.Clone(got)
	slices.SortStableFunc(sorted, func(x, y strpKeyed) int {
		return cmp.Or(cmp.Compare(x.b, y.b), cmp.Compare(x.key, y.key))
	})
	if !slices.Equal(sorted, want) {
		return fmt.Sprintf("emitted %d rows, want %d (first got %v, want %v)", len(got), len(want), sorted[:min(5, len(sorted))], want[:min(5, len(want))]), st
	}
	if !slices.IsSortedFunc(got, func(x, y strpKeyed) int { return cmp.Compare(x.b, y.b) }) {
		return "rows not in boundary order", st
	}
	return "", st
}

var strpAlignedShapes = []strpAligned{
	{name: "3s on a 1s clock, root, a row a push", spans: []int64{3000}, step: 1000, batches: []int{1}, gap: jittered},
	{name: "5s and 1s on a 1s clock, 4 hosts, bursts", spans: []int64{5000, 1000}, minS: []int{0, 2}, step: 1000, byHost: true, hosts: 4, batches: []int{1, 7, 50, 1000}, gap: bursty},
	{name: "2.5s on a 0.5s clock, 3 hosts, reorder 2s", opts: live.Options{Ordering: live.Reorder, Grace: 2 * time.Second}, spans: []int64{2500}, step: 500, byHost: true, hosts: 3, late: 20, batches: []int{1, 3, 50}, gap: jittered},
	{name: "700s on a 1s clock, root, reorder 1.5s", opts: live.Options{Ordering: live.Reorder, Grace: 1500 * time.Millisecond}, spans: []int64{700000}, minS: []int{3}, step: 1000, late: 15, batches: []int{1000, 1, 20}, gap: everySecond},
	{name: "1s on a 1s clock, 5 hosts, series MaxEvents 2", opts: live.Options{MaxEvents: 2}, spans: []int64{1000}, step: 1000, byHost: true, hosts: 5, batches: []int{1, 50}, gap: bursty},
}

// TestStrpProbeAligned: every reducer of strings, booleans and arrays in
// aligned rollings (fused windows, warm-ups, partitions, late rows under
// reorder with a grace), each emitted cell against the rows its window
// holds, [b − span, b), and the emitted keys against the boundaries that
// closed; over the mixes "few" and "fresh", TestStrpProbeAlignedMore
// over "pool" and "runs".
func TestStrpProbeAligned(t *testing.T) { strpRunAligned(t, 41, "few", "fresh") }

func TestStrpProbeAlignedMore(t *testing.T) { strpRunAligned(t, 45, "pool", "runs") }

func strpRunAligned(t *testing.T, seed uint64, mixes ...string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	colSets := [][]string{{"s", "b", "a"}, {"s"}, {"a"}, {"b"}}
	var tot strpStats
	k := 0
	for _, mix := range mixes {
		for _, sh := range strpAlignedShapes {
			p := sh
			p.cols = colSets[k%len(colSets)]
			k++
			p.rows = 300
			if p.spans[0] >= 700000 {
				p.rows = 600
			}
			rows := p.gen(rng, strpMixes[mix])
			msg, st := p.run(t, rows)
			tot.add(st)
			if msg != "" {
				t.Errorf("%s, %s, %v: %s", mix, p.name, p.cols, msg)
			}
		}
	}
	t.Logf("%d rows, %d cells, %d JSON cells checked", tot.rows, tot.cells, tot.json)
	require.Greater(t, tot.cells, 20000)
}

// strpReduce is a reduce probe: s.Reduce over the root under the series'
// retention, or over a partitioning under its own, with a trigger.
type strpReduce struct {
	name    string
	opts    live.Options
	part    *partition.Options // reduce over a partitioning by host
	hosts   int
	every   int // a count trigger of every rows (0: event)
	late    int // percent of rows late (under reorder)
	batches []int
	gap     func(r *rand.Rand) int64
	rows    int
	cols    []string
}

// retain applies MaxEvents and MaxAge to held, rows in time order (a late
// row after those of its time).
func strpRetain(held []int, rows []strpRow, maxEvents int, maxAge time.Duration) []int {
	if maxAge > 0 && len(held) > 0 {
		latest := int64(math.MinInt64)
		for _, i := range held {
			latest = max(latest, rows[i].ms)
		}
		held = slices.DeleteFunc(held, func(i int) bool { return rows[i].ms < latest-maxAge.Milliseconds() })
	}
	if maxEvents > 0 && len(held) > maxEvents {
		held = held[len(held)-maxEvents:]
	}
	return held
}

// insertByTime inserts row i after the rows of held at or before its time.
func strpInsert(held []int, rows []strpRow, i int) []int {
	k := len(held)
	for k > 0 && rows[held[k-1]].ms > rows[i].ms {
		k--
	}
	return slices.Insert(held, k, i)
}

func (p *strpReduce) run(t *testing.T, rows []strpRow) (string, strpStats) {
	t.Helper()
	var st strpStats
	s, err := live.New("strp", strpSchema, p.opts)
	require.NoError(t, err)
	defer s.Close()
	src := s.Root()
	if p.part != nil {
		src, err = s.PartitionBy(s.Root(), "host", *p.part)
		require.NoError(t, err)
	}
	aggs := strpAggs(p.cols...)
	trig := trigger.Event()
	if p.every > 0 {
		trig = trigger.Count(p.every)
	}
	n, err := s.Reduce(src, aggs, trig)
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	stores := map[string][]int{} // each store's rows in time order
	counted := 0
	msg := strpPush(t, s, rows, p.batches, func(out []live.Output, i, m int) string {
		for j := i; j < i+m; j++ {
			key := "h"
			if p.part != nil {
				key = rows[j].host
			}
			stores[key] = strpInsert(stores[key], rows, j)
		}
		for key, held := range stores {
			if p.part != nil {
				stores[key] = strpRetain(held, rows, p.part.MaxEvents, p.part.MaxAge)
			} else {
				stores[key] = strpRetain(held, rows, p.opts.MaxEvents, p.opts.MaxAge)
			}
		}
		want := 1
		if p.every > 0 {
			want = (counted+m)/p.every - counted/p.every
		}
		counted += m
		tab, ok := live.Find(out, n, live.Event)
		emitted := 0
		if ok {
			emitted = tab.Len()
		}
		if emitted != want {
			return fmt.Sprintf("push of %d at row %d: %d rows emitted, want %d", m, i, emitted, want)
		}
		if !ok {
			return ""
		}
		if msg, k := strpCheckJSON(tab); msg != "" {
			return msg
		} else {
			st.json += k
		}
		var in []int
		for _, held := range stores {
			in = append(in, held...)
		}
		slices.Sort(in) // arrival order
		cells := func(col string) ([]schema.Value, schema.Value, schema.Value) {
			var vals []schema.Value
			for _, k := range in {
				vals = append(vals, rows[k].cell(col))
			}
			f, l := strpFirstLast(vals)
			return vals, f, l
		}
		for e := range emitted {
			if got := tab.TimeNanos(e) / int64(time.Millisecond); got != rows[i+m-1].ms {
				return fmt.Sprintf("push of %d at row %d: keyed at %dms, want %dms", m, i, got, rows[i+m-1].ms)
			}
			if msg := strpCheckRow(tab, e, aggs, cells, false, &st); msg != "" {
				return strpCut(fmt.Sprintf("push of %d at row %d, holding rows %v: %s", m, i, in, msg))
			}
		}
		return ""
	})
	return msg, st
}

// gen draws rows; some arrive late under reorder, within the grace if any.
func (p *strpReduce) gen(rng *rand.Rand, mix strpMix) []strpRow {
	rows := strpGen(rng, mix, p.rows, p.hosts, p.gap)
	if p.late > 0 {
		g := p.opts.Grace.Milliseconds()
		if g == 0 {
			g = 30000
		}
		strpLate(rng, rows, p.gap, p.late, g)
	}
	return rows
}

var strpReduceShapes = []strpReduce{
	{name: "root, MaxEvents 6, event", opts: live.Options{MaxEvents: 6}, batches: []int{1, 3, 7, 50}, gap: everySecond},
	{name: "root, MaxEvents 700, event", opts: live.Options{MaxEvents: 700}, batches: []int{1000, 1, 50}, gap: everySecond},
	{name: "root, MaxAge 5s, count 3", opts: live.Options{MaxAge: 5 * time.Second}, every: 3, batches: []int{1, 2, 7, 50}, gap: bursty},
	{name: "root, reorder, MaxEvents 8", opts: live.Options{Ordering: live.Reorder, MaxEvents: 8}, late: 25, batches: []int{1, 3, 20}, gap: jittered},
	{name: "root, reorder 3s, MaxAge 6s, count 2", opts: live.Options{Ordering: live.Reorder, Grace: 3 * time.Second, MaxAge: 6 * time.Second}, every: 2, late: 25, batches: []int{1, 5, 40}, gap: jittered},
	{name: "4 hosts, MaxEvents 3 each", part: &partition.Options{MaxEvents: 3}, hosts: 4, batches: []int{1, 3, 7, 50}, gap: jittered},
	{name: "3 hosts, MaxAge 4s each, count 5", part: &partition.Options{MaxAge: 4 * time.Second}, hosts: 3, every: 5, batches: []int{1, 9, 50}, gap: bursty},
	{name: "5 hosts, reorder, MaxEvents 4 each", opts: live.Options{Ordering: live.Reorder}, part: &partition.Options{MaxEvents: 4}, hosts: 5, late: 30, batches: []int{1, 4, 30}, gap: jittered},
}

// TestStrpProbeReduce: every reducer of strings, booleans and arrays in
// reduces over the root under MaxEvents and MaxAge, in order and
// reordered, and over a partitioning under each partition's retention,
// with event and count triggers, against what the source holds after
// each push (first, last and samples by arrival).
func TestStrpProbeReduce(t *testing.T) {
	strpRunReduces(t, 42, [][]string{{"s", "b"}, {"s"}, {"b"}})
}

// TestStrpProbeReduceArrays is TestStrpProbeReduce over the array column.
// It fails while a reduce keeps its arrays in the push's buffer (see
// TestStrpReduceKeepsEachPushsArrays).
func TestStrpProbeReduceArrays(t *testing.T) {
	strpRunReduces(t, 43, [][]string{{"a"}, {"a", "s"}})
}

func strpRunReduces(t *testing.T, seed uint64, colSets [][]string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var tot strpStats
	k := 0
	for _, mix := range slices.Sorted(maps.Keys(strpMixes)) {
		for _, sh := range strpReduceShapes {
			p := sh
			p.cols = colSets[k%len(colSets)]
			k++
			p.rows = 500
			if p.opts.MaxEvents == 700 {
				p.rows = 1200
			}
			rows := p.gen(rng, strpMixes[mix])
			msg, st := p.run(t, rows)
			tot.add(st)
			if msg != "" {
				t.Errorf("%s, %s, %v: %s", mix, p.name, p.cols, msg)
			}
		}
	}
	t.Logf("%d rows, %d cells, %d JSON cells checked", tot.rows, tot.cells, tot.json)
	require.Greater(t, tot.cells, 20000)
}

// strpArrays is a series of arrays.
var strpArrays = schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "a", Kind: schema.Array})

func strpArr(ms int64, elems ...string) schema.Row {
	var vs []schema.Value
	for _, e := range elems {
		vs = append(vs, schema.StringValue(e))
	}
	return schema.Row{schema.MillisValue(ms), schema.ArrayValue(vs...)}
}

// strpFirstLastKeepSamples are first, last, keep and samples of a.
var strpFirstLastKeepSamples = []reduce.Agg{
	{Out: "first", From: "a", Using: reduce.First},
	{Out: "last", From: "a", Using: reduce.Last},
	{Out: "keep", From: "a", Using: reduce.Keep},
	{Out: "samples", From: "a", Using: reduce.Samples},
}

// strpCells returns row i of tab as its cells' strings, time aside.
func strpCells(tab *schema.Table, i int) []string {
	var out []string
	for j := 1; j < tab.Schema().Len(); j++ {
		out = append(out, tab.Value(i, j).String())
	}
	return out
}

// TestStrpReduceKeepsEachPushsArrays: a reduce over the root of an array
// column, one row a push: ["x"], ["y"], ["z"]. After the third push its
// first is ["x"], its last ["z"], its keep missing (the arrays differ)
// and its samples ["x", "y", "z"]. It gave first ["z"] and samples ["z",
// "z", "z"]: the arrays it keeps for first, last and samples (and keep)
// are the push's cells, which the next push overwrites.
func TestStrpReduceKeepsEachPushsArrays(t *testing.T) {
	s, err := live.New("a", strpArrays, live.Options{})
	require.NoError(t, err)
	n, err := s.Reduce(s.Root(), strpFirstLastKeepSamples, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	var tab *schema.Table
	for i, v := range []string{"x", "y", "z"} {
		out, err := s.PushRows(nil, strpArr(int64(i+1)*1000, v))
		require.NoError(t, err)
		tab, _ = live.Find(out, n, live.Event)
	}
	require.Equal(t, []string{`["x"]`, `["z"]`, "null", `["x", "y", "z"]`}, strpCells(tab, 0))
}

// TestStrpReduceKeepsAnArrayAfterALateRowLeaves: a reduce's keep over a
// reorder series of MaxEvents 1 holding ["x"] at 2s; a row ["y"] at 1s
// arrives late and is evicted by its own push, so the series still holds
// ["x"] alone: first, last, keep and samples are all ["x"]. They gave
// ["y"], the evicted row's cell.
func TestStrpReduceKeepsAnArrayAfterALateRowLeaves(t *testing.T) {
	s, err := live.New("a", strpArrays, live.Options{Ordering: live.Reorder, MaxEvents: 1})
	require.NoError(t, err)
	n, err := s.Reduce(s.Root(), strpFirstLastKeepSamples, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	_, err = s.PushRows(nil, strpArr(2000, "x"))
	require.NoError(t, err)
	out, err := s.PushRows(nil, strpArr(1000, "y"))
	require.NoError(t, err)
	tab, ok := live.Find(out, n, live.Event)
	require.True(t, ok)
	require.Equal(t, []string{`["x"]`, `["x"]`, `["x"]`, `["x"]`}, strpCells(tab, 0))
}

// TestStrpAggregateKeepsEachPushsArrays: an aggregate of 10s buckets over
// an array column, one row a push: ["x"] at 1s, ["y"] at 2s, ["z"] at 3s,
// then ["w"] at 20s, which closes [0s, 10s). That bucket's first is
// ["x"], last ["z"], keep missing and samples ["x", "y", "z"]. It gave
// ["w"], ["w"], ["w"] and ["w", "w", "w"]: the closing push's cell, over
// the buffer the bucket's arrays point into.
func TestStrpAggregateKeepsEachPushsArrays(t *testing.T) {
	s, err := live.New("a", strpArrays, live.Options{})
	require.NoError(t, err)
	n, err := s.Aggregate(s.Root(), sequence.Every(10*time.Second), strpFirstLastKeepSamples, 0)
	require.NoError(t, err)
	require.NoError(t, s.Watch(n))
	var tab *schema.Table
	for _, r := range []schema.Row{strpArr(1000, "x"), strpArr(2000, "y"), strpArr(3000, "z"), strpArr(20000, "w")} {
		out, err := s.PushRows(nil, r)
		require.NoError(t, err)
		if got, ok := live.Find(out, n, live.Event); ok {
			tab = got
		}
	}
	require.NotNil(t, tab)
	require.Equal(t, []string{`["x"]`, `["z"]`, "null", `["x", "y", "z"]`}, strpCells(tab, 0))
}

// TestStrpNumberReducersRefuseOtherKinds: min, max, median, p<q>, sum,
// avg, stdev and difference read numbers only; over a string, boolean or
// array column a reduce and a rolling refuse to build.
func TestStrpNumberReducersRefuseOtherKinds(t *testing.T) {
	checked := 0
	for _, red := range []reduce.Reducer{reduce.Min, reduce.Max, reduce.Median, reduce.Percentile(90), reduce.Sum, reduce.Avg, reduce.Stdev, reduce.Difference} {
		for _, col := range []string{"s", "b", "a"} {
			s, err := live.New("strp", strpSchema, live.Options{})
			require.NoError(t, err)
			aggs := []reduce.Agg{{Out: "o", From: col, Using: red}}
			_, err = s.Reduce(s.Root(), aggs, trigger.Event())
			require.ErrorIs(t, err, reduce.ErrReducer, "%v over %s", red, col)
			_, err = s.Rolling(s.Root(), []rolling.Window{{Count: 3, Aggs: aggs}}, rolling.Options{})
			require.ErrorIs(t, err, reduce.ErrReducer, "%v over %s", red, col)
			checked++
		}
	}
	require.Equal(t, 24, checked)
}
