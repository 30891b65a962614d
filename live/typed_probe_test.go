package live_test

// The typed probes: random typed pushes of a wide struct, some of them
// bad (a non-finite number, a missing required value, a bad array
// element, a time outside the range, rows out of order), into a series
// under strict, drop and reorder ordering, checked push by push against
// a model written from the docs and against a twin series that is given
// only the pushes the model accepts, through PushRows. A refused push
// must change nothing; an accepted one must give back, through the
// outputs, Snapshot and Decode, exactly what went in. Every identifier
// here starts with ty42.

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
	"github.com/pond-go/pond/schema"
)

type ty42Row struct {
	At   time.Time `pond:"time"`
	Host string    `pond:"host"`
	Zone string    `pond:"zone,optional"`
	CPU  float64   `pond:"cpu"`
	F32  float32   `pond:"f32,optional"`
	N    int64     `pond:"n"`
	U    uint64    `pond:"u"`
	PF   *float64  `pond:"pf"` // a required column in the probe's schema
	PS   *string   `pond:"ps"`
	Up   bool      `pond:"up"`
	PB   *bool     `pond:"pb"`
	Xs   []float64 `pond:"xs"`
	Ss   []string  `pond:"ss"`
	Note string    // not a column
}

// ty42Schema is ty42Row's schema with pf required: a nil PF fails its
// push (NewCodec: "an optional field for a required column is allowed
// (a missing value fails its push)").
func ty42Schema(t *testing.T) *schema.Schema {
	t.Helper()
	s, err := schema.For[ty42Row]()
	require.NoError(t, err)
	cols := s.Columns()
	for j := range cols {
		if cols[j].Name == "pf" {
			cols[j].Optional = false
		}
	}
	return schema.MustNew(cols...)
}

func ty42Num(r *rand.Rand) float64 {
	switch r.IntN(10) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.MaxFloat64
	case 2:
		return -math.SmallestNonzeroFloat64
	case 3:
		return 1<<53 + 2
	case 4:
		return 1e-300
	}
	return float64(r.IntN(20000)-10000) / 64
}

func ty42Str(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return "\"\\\n\x00"
	case 2:
		return "bad\xffutf8"
	case 3:
		return "温度😀\u2028"
	case 4:
		return strings.Repeat("x", 5000)
	}
	return fmt.Sprintf("h%d", r.IntN(6))
}

// ty42Good returns a row every validation accepts, at time ns.
func ty42Good(r *rand.Rand, ns int64) ty42Row {
	pf := ty42Num(r)
	x := ty42Row{At: time.Unix(0, ns), Host: ty42Str(r), CPU: ty42Num(r), N: r.Int64N(1<<54) - 1<<53,
		U: uint64(r.Int64N(1<<53)) << uint(r.IntN(11)), PF: &pf, Up: r.IntN(2) == 0, Note: "not a column"}
	if r.IntN(4) == 0 {
		x.At = x.At.In(time.FixedZone("odd", 5*3600+17))
	}
	if r.IntN(2) == 0 {
		x.Zone = ty42Str(r)
	}
	if r.IntN(3) == 0 {
		x.F32 = float32(math.NaN())
	} else {
		x.F32 = float32(ty42Num(r))
		if math.IsInf(float64(x.F32), 0) {
			x.F32 = -math.MaxFloat32
		}
	}
	if r.IntN(2) == 0 {
		s := ty42Str(r)
		x.PS = &s
	}
	if r.IntN(2) == 0 {
		b := r.IntN(2) == 0
		x.PB = &b
	}
	switch r.IntN(3) {
	case 0:
		x.Xs = []float64{}
	case 1:
		for range 1 + r.IntN(4) {
			x.Xs = append(x.Xs, ty42Num(r))
		}
	}
	switch r.IntN(3) {
	case 0:
		x.Ss = []string{}
	case 1:
		for range 1 + r.IntN(3) {
			x.Ss = append(x.Ss, ty42Str(r))
		}
	}
	return x
}

// ty42Spoil makes row x bad in one way and returns the reason a push of
// it must fail with.
func ty42Spoil(r *rand.Rand, x *ty42Row) schema.Reason {
	switch r.IntN(7) {
	case 0:
		x.CPU = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		return schema.NonFinite
	case 1:
		inf := math.Inf(-1)
		x.PF = &inf
		return schema.NonFinite
	case 2:
		x.PF = nil
		return schema.MissingRequired
	case 3:
		x.Xs = append(slices.Clone(x.Xs), math.NaN())
		return schema.BadElement
	case 4:
		x.At = []time.Time{{}, time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Unix(0, schema.MaxTime).Add(1), time.Unix(0, schema.MinTime).Add(-1)}[r.IntN(5)]
		return schema.TimeRange
	case 5:
		x.F32 = float32(math.Inf(1))
		return schema.NonFinite
	}
	x.CPU = math.NaN() // a NaN in a required column is not a missing cell
	return schema.NonFinite
}

// ty42Cells returns x as a row of values, as the docs of Codec read its
// fields: "" is a missing optional string, NaN a missing optional float,
// nil a missing pointer or slice.
func ty42Cells(x ty42Row) schema.Row {
	opt := func(ok bool, v schema.Value) schema.Value {
		if !ok {
			return schema.Missing()
		}
		return v
	}
	row := schema.Row{schema.TimeValue(x.At), schema.StringValue(x.Host),
		opt(x.Zone != "", schema.StringValue(x.Zone)),
		schema.NumberValue(x.CPU),
		opt(x.F32 == x.F32, schema.NumberValue(float64(x.F32))),
		schema.NumberValue(float64(x.N)), schema.NumberValue(float64(x.U))}
	if x.PF != nil {
		row = append(row, schema.NumberValue(*x.PF))
	} else {
		row = append(row, schema.Missing())
	}
	if x.PS != nil {
		row = append(row, schema.StringValue(*x.PS))
	} else {
		row = append(row, schema.Missing())
	}
	row = append(row, schema.BoolValue(x.Up))
	if x.PB != nil {
		row = append(row, schema.BoolValue(*x.PB))
	} else {
		row = append(row, schema.Missing())
	}
	if x.Xs != nil {
		var elems []schema.Value
		for _, f := range x.Xs {
			elems = append(elems, schema.NumberValue(f))
		}
		row = append(row, schema.ArrayValue(elems...))
	} else {
		row = append(row, schema.Missing())
	}
	if x.Ss != nil {
		var elems []schema.Value
		for _, s := range x.Ss {
			elems = append(elems, schema.StringValue(s))
		}
		row = append(row, schema.ArrayValue(elems...))
	} else {
		row = append(row, schema.Missing())
	}
	return row
}

// ty42SameRow compares a decoded row with the row that went in: times
// as instants, numbers bit for bit (a missing optional float is any
// NaN), the untagged field not at all.
func ty42SameRow(t *testing.T, want, got ty42Row, what string) {
	t.Helper()
	require.True(t, want.At.Equal(got.At), "%s: time %v, want %v", what, got.At, want.At)
	bits := func(name string, w, g float64) {
		t.Helper()
		if w != w && g != g {
			return
		}
		require.Equal(t, math.Float64bits(w), math.Float64bits(g), "%s: %s = %v, want %v", what, name, g, w)
	}
	bits("cpu", want.CPU, got.CPU)
	bits("f32", float64(want.F32), float64(got.F32))
	require.Equal(t, want.N, got.N, what)
	require.Equal(t, want.U, got.U, what)
	require.NotNil(t, got.PF, what)
	bits("pf", *want.PF, *got.PF)
	require.Equal(t, []any{want.Host, want.Zone, want.PS, want.Up, want.PB}, []any{got.Host, got.Zone, got.PS, got.Up, got.PB}, what)
	require.Equal(t, want.Xs == nil, got.Xs == nil, "%s: xs %#v, want %#v", what, got.Xs, want.Xs)
	require.Len(t, got.Xs, len(want.Xs), what)
	for k := range want.Xs {
		bits("xs", want.Xs[k], got.Xs[k])
	}
	require.Equal(t, want.Ss == nil, got.Ss == nil, "%s: ss %#v, want %#v", what, got.Ss, want.Ss)
	require.Len(t, got.Ss, len(want.Ss), what)
	for k := range want.Ss {
		require.Equal(t, want.Ss[k], got.Ss[k], what)
	}
	require.Empty(t, got.Note, what)
}

// ty42Model is what the docs say a series holds: the accepted rows in
// key order (time, then arrival), the newest MaxEvents of them.
type ty42Model struct {
	opts   live.Options
	held   []ty42Row
	latest int64
	any    bool
	stats  live.Stats
}

// push returns the rows the push takes in (in push order) and the error
// it must fail with, if any: a reason of validation (the one bad row's),
// or the row of an ordering error (-1 for none).
func (m *ty42Model) push(rows []ty42Row, bad schema.Reason) (in []ty42Row, wantReason schema.Reason, wantOrder int) {
	if bad != 0 {
		return nil, bad, -1
	}
	latest, have := m.latest, m.any
	for i, x := range rows {
		ns := x.At.UnixNano()
		if have && ns < latest {
			switch m.opts.Ordering {
			case live.Strict:
				return nil, 0, i
			case live.Drop:
				continue
			}
		}
		in = append(in, x)
		if !have || ns > latest {
			latest, have = ns, true
		}
	}
	return in, 0, -1
}

// commit applies an accepted push's rows.
func (m *ty42Model) commit(rows, in []ty42Row) (evicted []ty42Row) {
	m.stats.Ingested += uint64(len(in))
	m.stats.Rejected += uint64(len(rows) - len(in))
	for _, x := range in {
		ns := x.At.UnixNano()
		// After the rows of the same time: the first held row that is
		// later.
		k := len(m.held)
		for k > 0 && m.held[k-1].At.UnixNano() > ns {
			k--
		}
		m.held = slices.Insert(m.held, k, x)
		if !m.any || ns > m.latest {
			m.latest, m.any = ns, true
		}
	}
	if n := m.opts.MaxEvents; n > 0 && len(m.held) > n {
		evicted = slices.Clone(m.held[:len(m.held)-n])
		m.held = slices.Delete(m.held, 0, len(m.held)-n)
	}
	m.stats.Evicted += uint64(len(evicted))
	m.stats.Length = len(m.held)
	return evicted
}

func ty42Find(out []live.Output, kind live.OutputKind) *schema.Table {
	tab, _ := live.Find(out, 0, kind)
	return tab
}

func ty42JSON(tab *schema.Table) string {
	if tab == nil {
		return "none"
	}
	return string(tab.AppendJSON(nil))
}

func TestTy42TypedPushesMatchTheModelAndATwin(t *testing.T) {
	configs := []live.Options{
		{},
		{MaxEvents: 7},
		{Ordering: live.Drop},
		{Ordering: live.Drop, MaxEvents: 3},
		{Ordering: live.Reorder},
	}
	for ci, opts := range configs {
		t.Run(fmt.Sprintf("config%d", ci), func(t *testing.T) {
			ty42RunTwin(t, opts, uint64(ci))
		})
	}
}

func ty42RunTwin(t *testing.T, opts live.Options, seed uint64) {
	s := ty42Schema(t)
	a, err := live.New("a", s, opts)
	require.NoError(t, err)
	b, err := live.New("b", s, opts)
	require.NoError(t, err)
	typed, err := live.NewTyped[ty42Row](a)
	require.NoError(t, err)
	codec := typed.Codec()
	// A filter on a, whose function tries a typed push from inside the
	// push: it must fail with ErrReentrant and leave the running push's
	// batch alone. The twin has a filter that does nothing, so that the
	// node ids agree.
	var inner []error
	reenter := false
	_, err = a.Filter(a.Root(), func(row schema.Row) bool {
		if reenter {
			_, err := typed.Push(nil, []ty42Row{{At: time.Unix(0, 1), Host: "inner"}})
			inner = append(inner, err)
		}
		return true
	})
	require.NoError(t, err)
	_, err = b.Filter(b.Root(), func(schema.Row) bool { return true })
	require.NoError(t, err)
	for _, sr := range []*live.Series{a, b} {
		require.NoError(t, sr.Watch(sr.Root(), live.Event, live.Evict))
	}
	m := &ty42Model{opts: opts}
	r := rand.New(rand.NewPCG(42, 100+seed))
	ns := int64(1_700_000_000_000_000_000)
	var outA, outB []live.Output
	for iter := range 90 {
		what := fmt.Sprintf("iter %d", iter)
		rows := make([]ty42Row, r.IntN(5))
		for k := range rows {
			step := r.Int64N(3) * 1_000_000
			if r.IntN(6) == 0 {
				step = -r.Int64N(5) * 1_000_000 // out of order
			}
			ns += step
			rows[k] = ty42Good(r, ns)
		}
		if r.IntN(4) == 0 && ns > 10 {
			// Back to a time at or after the latest, so that the series
			// is not stuck behind a jump.
			ns = max(ns, m.latest)
		}
		bad, badRow := schema.Reason(0), -1
		if len(rows) > 0 && r.IntN(5) == 0 {
			badRow = r.IntN(len(rows))
			bad = ty42Spoil(r, &rows[badRow])
		}
		reenter = r.IntN(8) == 0
		inner = inner[:0]
		sent := slices.Clone(rows)
		in, wantReason, wantOrder := m.push(rows, bad)
		snapBefore, err := a.Snapshot(a.Root())
		require.NoError(t, err)
		statsBefore := a.Stats()

		outA = append(outA[:0], live.Output{Node: 99})[:1]
		outA, err = typed.Push(outA, rows)
		// The rows pushed are not the codec's to change.
		for k := range rows {
			require.Equal(t, fmt.Sprintf("%#v", sent[k]), fmt.Sprintf("%#v", rows[k]), "%s: Push changed row %d", what, k)
		}
		if wantReason != 0 || wantOrder >= 0 {
			require.Error(t, err, "%s: a bad push was accepted: %+v", what, rows)
			if wantReason != 0 {
				require.ErrorIs(t, err, schema.ErrValidation, what)
				var re *schema.RowError
				require.ErrorAs(t, err, &re, what)
				require.Equal(t, wantReason, re.Reason, "%s: %v", what, err)
				require.Equal(t, badRow, re.Row, "%s: %v", what, err)
			} else {
				require.ErrorIs(t, err, live.ErrOutOfOrder, what)
				var oe *live.OrderError
				require.ErrorAs(t, err, &oe, what)
				require.Equal(t, wantOrder, oe.Row, "%s: %v", what, err)
			}
			require.Len(t, outA, 1, "%s: a refused push changed dst", what)
			require.Equal(t, live.NodeID(99), outA[0].Node, what)
			require.Equal(t, statsBefore, a.Stats(), "%s: a refused push counted", what)
			snapAfter, err := a.Snapshot(a.Root())
			require.NoError(t, err)
			require.Equal(t, ty42JSON(snapBefore), ty42JSON(snapAfter), "%s: a refused push changed what the series holds", what)
			outA = outA[:0]
			continue
		}
		require.NoError(t, err, "%s: %+v", what, rows)
		if reenter && len(in) > 0 {
			require.NotEmpty(t, inner, what)
		}
		for _, e := range inner {
			require.ErrorIs(t, e, live.ErrReentrant, what)
		}
		require.Equal(t, live.NodeID(99), outA[0].Node, what)
		outA = outA[1:]
		evicted := m.commit(rows, in)

		// The twin takes the same rows as values.
		var cells []schema.Row
		for _, x := range rows {
			cells = append(cells, ty42Cells(x))
		}
		outB, err = b.PushRows(outB[:0], cells...)
		require.NoError(t, err, what)

		// The outputs: the rows taken in and the rows evicted, as the
		// model has them, and as the twin's.
		for _, k := range []live.OutputKind{live.Event, live.Evict} {
			ta, tb := ty42Find(outA, k), ty42Find(outB, k)
			require.Equal(t, ty42JSON(tb), ty42JSON(ta), "%s: %v output", what, k)
			want := in
			if k == live.Evict {
				want = evicted
			}
			if len(want) == 0 {
				require.Nil(t, ta, "%s: %v output of no rows", what, k)
				continue
			}
			require.NotNil(t, ta, "%s: no %v output", what, k)
			got, err := codec.Decode(nil, ta)
			require.NoError(t, err, what)
			require.Len(t, got, len(want), "%s: %v output", what, k)
			for i := range want {
				ty42SameRow(t, want[i], got[i], fmt.Sprintf("%s: %v row %d", what, k, i))
			}
		}
		require.Equal(t, m.stats, a.Stats(), what)
		require.Equal(t, b.Stats(), a.Stats(), what)
		if r.IntN(3) == 0 || iter == 89 {
			snapA, err := a.Snapshot(a.Root())
			require.NoError(t, err)
			snapB, err := b.Snapshot(b.Root())
			require.NoError(t, err)
			require.Equal(t, ty42JSON(snapB), ty42JSON(snapA), what)
			got, err := codec.Decode(nil, snapA)
			require.NoError(t, err, what)
			require.Len(t, got, len(m.held), what)
			for i := range got {
				ty42SameRow(t, m.held[i], got[i], fmt.Sprintf("%s: held row %d", what, i))
			}
			latest, ok := a.Latest()
			require.Equal(t, m.any && len(m.held) > 0, ok, what)
			if ok {
				require.Equal(t, m.held[len(m.held)-1].At.UnixNano(), latest.UnixNano(), what)
			}
		}
	}
}

// TestTy42TypedLifecycle checks the typed pusher's errors: a zero Typed,
// a closed series, a type that does not fit the schema.
func TestTy42TypedLifecycle(t *testing.T) {
	s := ty42Schema(t)
	var zero live.Typed[ty42Row]
	out, err := zero.Push([]live.Output{{Node: 5}}, []ty42Row{{}})
	require.ErrorIs(t, err, live.ErrNotMade)
	require.Len(t, out, 1)
	var nilTyped *live.Typed[ty42Row]
	_, err = nilTyped.Push(nil, nil)
	require.ErrorIs(t, err, live.ErrNotMade)
	require.Nil(t, nilTyped.Codec())

	type other struct {
		At  time.Time `pond:"time"`
		CPU string    `pond:"cpu"`
	}
	sr, err := live.New("x", s, live.Options{})
	require.NoError(t, err)
	_, err = live.NewTyped[other](sr)
	require.ErrorIs(t, err, live.ErrConfig)
	require.ErrorIs(t, err, schema.ErrSchema)
	var ce *live.ConfigError
	require.ErrorAs(t, err, &ce)

	typed, err := live.NewTyped[ty42Row](sr)
	require.NoError(t, err)
	pf := 1.0
	_, err = typed.Push(nil, []ty42Row{{At: time.Unix(5, 0), Host: "h", PF: &pf}})
	require.NoError(t, err)
	_, err = typed.Push(nil, nil)
	require.NoError(t, err)
	_, err = typed.Push(nil, []ty42Row{})
	require.NoError(t, err)
	require.Equal(t, uint64(1), sr.Stats().Ingested)
	require.NoError(t, sr.Close())
	_, err = typed.Push(nil, []ty42Row{{At: time.Unix(6, 0), Host: "h", PF: &pf}})
	require.ErrorIs(t, err, live.ErrClosed)
	_, err = live.NewTyped[ty42Row](sr)
	require.ErrorIs(t, err, live.ErrClosed)
	require.Equal(t, uint64(1), sr.Stats().Ingested)
	require.False(t, errors.Is(err, live.ErrConfig))
}

// ty42Mangle makes one change to a good batch of the schema time, k
// (string, optional), x (number), y (number, optional), b (bool), a
// (array, optional) and says what a push of it must do: the reason it
// fails with, or 0 when it is still good (a bad cell masked by a
// Missing flag in an optional column is a missing cell).
func ty42Mangle(r *rand.Rand, b *schema.Batch) (string, schema.Reason) {
	n := b.Len()
	j := r.IntN(len(b.Cols))
	v := &b.Cols[j]
	i := r.IntN(n)
	switch r.IntN(12) {
	case 0:
		b.Cols = b.Cols[:len(b.Cols)-1]
		return "a column short", schema.RowLength
	case 1:
		b.Cols = append(b.Cols, schema.Vec{Num: make([]float64, n)})
		return "a column more", schema.RowLength
	case 2:
		switch j {
		case 0:
			v.Str = v.Str[:n-1]
		case 1, 2:
			v.Num = append(v.Num, 1)
		case 3:
			v.Bool = v.Bool[:n-1]
		default:
			v.Arr = append(v.Arr, nil)
		}
		return fmt.Sprintf("column %d of another length", j+1), schema.ColumnLength
	case 3:
		v.Missing = make([]bool, n+1-2*r.IntN(2))
		return fmt.Sprintf("column %d's flags of another length", j+1), schema.ColumnLength
	case 4:
		b.Time[i] = []int64{schema.MaxTime + 1, schema.MinTime - 1, math.MaxInt64, math.MinInt64}[r.IntN(4)]
		return fmt.Sprintf("row %d's time out of range", i), schema.TimeRange
	case 5:
		b.Cols[1].Num[i] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		return fmt.Sprintf("row %d's x not finite", i), schema.NonFinite
	case 6:
		b.Cols[2].Num[i] = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		return fmt.Sprintf("row %d's y not finite (optional, not flagged)", i), schema.NonFinite
	case 7:
		b.Cols[2].Num[i] = math.Inf(1)
		b.Cols[2].Missing = make([]bool, n)
		b.Cols[2].Missing[i] = true
		return fmt.Sprintf("row %d's y +Inf, flagged missing", i), 0
	case 8:
		b.Cols[4].Arr[i] = []schema.Value{schema.ArrayValue(), schema.NumberValue(math.NaN()), schema.NanosValue(1), schema.Missing()}[r.IntN(4):]
		if r.IntN(2) == 0 {
			b.Cols[4].Missing = make([]bool, n)
			b.Cols[4].Missing[i] = true
			return fmt.Sprintf("row %d's a bad, flagged missing", i), 0
		}
		return fmt.Sprintf("row %d's a bad", i), schema.BadElement
	case 9:
		flagged := []int{0, 1, 3}[r.IntN(3)] // k, x or b
		b.Cols[flagged].Missing = make([]bool, n)
		b.Cols[flagged].Missing[i] = true
		if flagged == 0 {
			return fmt.Sprintf("row %d's k flagged missing", i), 0
		}
		return fmt.Sprintf("row %d's column %d flagged missing (required)", i, flagged+1), schema.MissingRequired
	case 10:
		// Flags that are all false mark nothing, on any column.
		v.Missing = make([]bool, n)
		return fmt.Sprintf("column %d's flags all false", j+1), 0
	}
	// Cells of another kind's slice are ignored.
	v.Num = append(v.Num[:0:0], make([]float64, n)...)
	if j != 1 && j != 2 {
		return fmt.Sprintf("column %d with stray numbers", j+1), 0
	}
	v.Str = []string{"stray"}
	return fmt.Sprintf("column %d with stray strings", j+1), 0
}

// ty42BatchRows reads a batch as its docs say: Cols[j-1] is column j,
// only the slice of the column's kind is read, a Missing flag marks a
// missing cell whatever the slice holds.
func ty42BatchRows(s *schema.Schema, b *schema.Batch) []schema.Row {
	var rows []schema.Row
	for i := range b.Len() {
		row := schema.Row{schema.NanosValue(b.Time[i])}
		for j := 1; j < s.Len(); j++ {
			v := &b.Cols[j-1]
			var c schema.Value
			switch {
			case v.Missing != nil && v.Missing[i]:
			case s.Column(j).Kind == schema.Number:
				c = schema.NumberValue(v.Num[i])
			case s.Column(j).Kind == schema.String:
				c = schema.StringValue(v.Str[i])
			case s.Column(j).Kind == schema.Bool:
				c = schema.BoolValue(v.Bool[i])
			default:
				c = schema.ArrayValue(v.Arr[i]...)
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	return rows
}

func TestTy42MalformedBatchesChangeNothing(t *testing.T) {
	s := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "k", Kind: schema.String, Optional: true},
		schema.Column{Name: "x", Kind: schema.Number},
		schema.Column{Name: "y", Kind: schema.Number, Optional: true},
		schema.Column{Name: "b", Kind: schema.Bool},
		schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	)
	for ci, opts := range []live.Options{{}, {Ordering: live.Reorder, MaxEvents: 5}} {
		a, err := live.New("a", s, opts)
		require.NoError(t, err)
		b, err := live.New("b", s, opts)
		require.NoError(t, err)
		for _, sr := range []*live.Series{a, b} {
			require.NoError(t, sr.Watch(sr.Root(), live.Event, live.Evict))
		}
		r := rand.New(rand.NewPCG(42, 200+uint64(ci)))
		ns := int64(1e15)
		var outA, outB []live.Output
		for iter := range 180 {
			n := 1 + r.IntN(4)
			batch := schema.NewBatch(s, n)
			for range n {
				ns += r.Int64N(1e6)
				batch.Time = append(batch.Time, ns)
				batch.Cols[0].Str = append(batch.Cols[0].Str, ty42Str(r))
				batch.Cols[1].Num = append(batch.Cols[1].Num, ty42Num(r))
				batch.Cols[2].Num = append(batch.Cols[2].Num, ty42Num(r))
				batch.Cols[3].Bool = append(batch.Cols[3].Bool, r.IntN(2) == 0)
				batch.Cols[4].Arr = append(batch.Cols[4].Arr, []schema.Value{schema.NumberValue(ty42Num(r)), schema.StringValue(ty42Str(r)), schema.BoolValue(false)}[:r.IntN(4)])
			}
			what, want := "good", schema.Reason(0)
			if r.IntN(3) > 0 {
				what, want = ty42Mangle(r, batch)
			}
			what = fmt.Sprintf("config %d iter %d: %s", ci, iter, what)
			snap, err := a.Snapshot(a.Root())
			require.NoError(t, err)
			stats := a.Stats()
			outA, err = a.PushMany(outA[:0], batch)
			if want != 0 {
				require.ErrorIs(t, err, schema.ErrValidation, what)
				var re *schema.RowError
				require.ErrorAs(t, err, &re, what)
				require.Equal(t, want, re.Reason, "%s: %v", what, err)
				require.Empty(t, outA, what)
				require.Equal(t, stats, a.Stats(), what)
				after, err := a.Snapshot(a.Root())
				require.NoError(t, err)
				require.Equal(t, ty42JSON(snap), ty42JSON(after), "%s: a refused push changed the series", what)
				continue
			}
			require.NoError(t, err, what)
			outB, err = b.PushRows(outB[:0], ty42BatchRows(s, batch)...)
			require.NoError(t, err, what)
			for _, k := range []live.OutputKind{live.Event, live.Evict} {
				require.Equal(t, ty42JSON(ty42Find(outB, k)), ty42JSON(ty42Find(outA, k)), "%s: %v", what, k)
			}
			require.Equal(t, b.Stats(), a.Stats(), what)
			sa, err := a.Snapshot(a.Root())
			require.NoError(t, err)
			sb, err := b.Snapshot(b.Root())
			require.NoError(t, err)
			require.Equal(t, ty42JSON(sb), ty42JSON(sa), what)
		}
	}
}

// TestTy42TypedPushAtTheTimeBounds pushes typed rows at and just beyond
// the bounds of the accepted times, as time.Time and as int64 nanoseconds:
// the bounds go in and come back exactly, a nanosecond beyond is a
// TimeRange error that changes nothing.
func TestTy42TypedPushAtTheTimeBounds(t *testing.T) {
	type byTime struct {
		At time.Time `pond:"time"`
		X  float64   `pond:"x"`
	}
	type byNanos struct {
		At int64   `pond:"time,time"`
		X  float64 `pond:"x"`
	}
	s, err := schema.For[byTime]()
	require.NoError(t, err)
	far := []time.Time{
		{}, time.Unix(0, schema.MaxTime).Add(1), time.Unix(0, schema.MinTime).Add(-1),
		time.Date(1823, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Hour * 24 * 365),
		time.Date(2262, 4, 12, 0, 0, 0, 0, time.UTC), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1677, 9, 21, 0, 0, 0, 0, time.UTC), time.Unix(math.MaxInt64/2, 0), time.Unix(math.MinInt64/2, 0),
	}
	for _, at := range []int64{schema.MinTime, schema.MinTime + 1, -1, 0, schema.MaxTime - 1, schema.MaxTime} {
		sr, err := live.New("x", s, live.Options{Ordering: live.Reorder})
		require.NoError(t, err)
		require.NoError(t, sr.Watch(sr.Root()))
		tt, err := live.NewTyped[byTime](sr)
		require.NoError(t, err)
		tn, err := live.NewTyped[byNanos](sr)
		require.NoError(t, err)
		zone := time.FixedZone("z", -7*3600)
		out, err := tt.Push(nil, []byTime{{At: time.Unix(0, at).In(zone), X: 1}})
		require.NoError(t, err, "%d", at)
		got, err := tn.Codec().Decode(nil, out[0].Events)
		require.NoError(t, err)
		require.Equal(t, []byNanos{{At: at, X: 1}}, got)
		out, err = tn.Push(nil, []byNanos{{At: at, X: 2}})
		require.NoError(t, err, "%d", at)
		back, err := tt.Codec().Decode(nil, out[0].Events)
		require.NoError(t, err)
		require.Len(t, back, 1)
		require.True(t, back[0].At.Equal(time.Unix(0, at)), "%d: %v", at, back[0].At)
		for _, f := range far {
			_, err := tt.Push(nil, []byTime{{At: time.Unix(0, at), X: 3}, {At: f, X: 4}})
			var re *schema.RowError
			require.ErrorAs(t, err, &re, "%v", f)
			require.Equal(t, schema.TimeRange, re.Reason, "%v", f)
			require.Equal(t, 1, re.Row)
		}
		for _, ns := range []int64{schema.MaxTime + 1, schema.MinTime - 1, math.MaxInt64, math.MinInt64} {
			_, err := tn.Push(nil, []byNanos{{At: ns, X: 5}})
			var re *schema.RowError
			require.ErrorAs(t, err, &re, "%d", ns)
			require.Equal(t, schema.TimeRange, re.Reason)
		}
		require.Equal(t, uint64(2), sr.Stats().Ingested)
		snap, err := sr.Snapshot(sr.Root())
		require.NoError(t, err)
		rows, err := tn.Codec().Decode(nil, snap)
		require.NoError(t, err)
		require.Equal(t, []byNanos{{At: at, X: 1}, {At: at, X: 2}}, rows)
	}
}
