package live_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
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

// fuzzSchema has a column of every kind, some of them optional.
var fuzzSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "num", Kind: schema.Number},
	schema.Column{Name: "opt", Kind: schema.Number, Optional: true},
	schema.Column{Name: "host", Kind: schema.String, Optional: true},
	schema.Column{Name: "name", Kind: schema.String},
	schema.Column{Name: "flag", Kind: schema.Bool, Optional: true},
	schema.Column{Name: "tags", Kind: schema.Array, Optional: true},
)

// fuzzPipeline is a series built for FuzzPushMany and the nodes whose
// state the fuzz target compares.
type fuzzPipeline struct {
	s         *live.Series
	opts      live.Options
	byHost    live.NodeID
	hostRoll  live.NodeID
	rootRoll  live.NodeID
	snapshots []live.NodeID // nodes that hold rows (or a history)
}

// buildFuzzPipeline builds the pipeline that cfg selects: the ordering
// (strict, drop, reorder with a 2 s grace), the trigger of the
// per-host rolling (event, count(3), clock every 1 s), a count limit on
// the series, a partitioning with declared groups, and hosts that keep
// one row each rather than two (bit 0x80).
func buildFuzzPipeline(cfg byte, workers int) (*fuzzPipeline, error) {
	// At most four hosts, two rows each, dropped after 3 s of quiet: a
	// fifth host rejects its push after the push has interned its strings.
	byHost := partition.Options{MaxEvents: 2, MaxPartitions: 4, IdleTTL: 3 * time.Second}
	if cfg&0x80 != 0 {
		byHost.MaxEvents = 1
	}
	return buildPipelineWith(cfg, byHost, workers)
}

// buildPipeline is buildFuzzPipeline with the options of the partitioning
// by host.
func buildPipeline(cfg byte, byHost partition.Options) (*fuzzPipeline, error) {
	return buildPipelineWith(cfg, byHost, 1)
}

// buildPipelineWith is buildPipeline on a series with the given number of
// workers.
func buildPipelineWith(cfg byte, byHost partition.Options, workers int) (*fuzzPipeline, error) {
	opts := live.Options{MaxAge: 10 * time.Second, Workers: workers}
	switch cfg % 3 {
	case 1:
		opts.Ordering = live.Drop
	case 2:
		opts.Ordering, opts.Grace = live.Reorder, 2*time.Second
	}
	if cfg&0x40 != 0 {
		opts.MaxEvents = 16
	}
	var trig trigger.Trigger
	switch cfg / 3 % 3 {
	case 1:
		trig = trigger.Count(3)
	case 2:
		trig = trigger.Clock(sequence.Every(time.Second))
	}
	s, err := live.New("fuzz", fuzzSchema, opts)
	if err != nil {
		return nil, err
	}
	p := &fuzzPipeline{s: s, opts: opts}
	root := s.Root()
	if err := s.Watch(root, live.Event, live.Batch, live.Evict); err != nil {
		return nil, err
	}
	if p.byHost, err = s.PartitionBy(root, "host", byHost); err != nil {
		return nil, err
	}
	if err := s.Watch(p.byHost, live.Event, live.Batch, live.Evict); err != nil {
		return nil, err
	}
	p.hostRoll, err = s.Rolling(p.byHost, []rolling.Window{
		{Name: "5s", Span: 5 * time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "num", Using: reduce.Avg},
			{Out: "sd", From: "num", Using: reduce.Stdev},
			{Out: "max", From: "opt", Using: reduce.Max},
			{Out: "hosts", From: "host", Using: reduce.Count},
			{Out: "last", From: "name", Using: reduce.Last},
			{Out: "uniq", From: "tags", Using: reduce.Unique},
			{Out: "p90", From: "num", Using: reduce.Percentile(90)},
		}},
		{Name: "1s", Span: time.Second, MinSamples: rolling.Samples(2), Aggs: []reduce.Agg{
			{Out: "sum", From: "opt", Using: reduce.Sum},
			{Out: "first", From: "flag", Using: reduce.First},
			{Out: "keep", From: "flag", Using: reduce.Keep},
			{Out: "names", From: "name", Using: reduce.Samples},
			{Out: "top", From: "tags", Using: reduce.Top(2)},
			{Out: "diff", From: "num", Using: reduce.Difference},
			{Out: "min", From: "num", Using: reduce.Min},
			{Out: "med", From: "opt", Using: reduce.Median},
		}},
	}, rolling.Options{Trigger: trig, MinSamples: 1, History: rolling.History{MaxEvents: 32}})
	if err != nil {
		return nil, err
	}
	p.rootRoll, err = s.Rolling(root, []rolling.Window{{Count: 3, Aggs: []reduce.Agg{
		{Out: "sum", From: "num", Using: reduce.Sum},
		{Out: "n", From: "opt", Using: reduce.Count},
		{Out: "tags", From: "tags", Using: reduce.Last},
		{Out: "top", From: "name", Using: reduce.Top(1)},
	}}}, rolling.Options{})
	if err != nil {
		return nil, err
	}
	for _, id := range []live.NodeID{p.hostRoll, p.rootRoll} {
		if err := s.Watch(id); err != nil {
			return nil, err
		}
	}
	p.snapshots = []live.NodeID{root, p.byHost, p.hostRoll}
	if cfg&0x20 != 0 {
		// Declared groups: a row with a missing flag rejects its push.
		flags, err := s.PartitionBy(root, "flag", partition.Options{Groups: []schema.Value{schema.BoolValue(false), schema.BoolValue(true)}})
		if err != nil {
			return nil, err
		}
		if err := s.Watch(flags, live.Evict); err != nil {
			return nil, err
		}
		p.snapshots = append(p.snapshots, flags)
	}
	return p, nil
}

// fuzzState is everything observable about a series between pushes.
type fuzzState struct {
	stats     live.Stats
	length    int
	rows      string
	snapshots []string
}

func (p *fuzzPipeline) state() (fuzzState, error) {
	st := fuzzState{stats: p.s.Stats(), length: p.s.Len()}
	var b strings.Builder
	for i, row := range p.s.All() {
		fmt.Fprintln(&b, i, row)
	}
	st.rows = b.String()
	for _, id := range p.snapshots {
		tab, err := p.s.Snapshot(id)
		if err != nil {
			return st, err
		}
		st.snapshots = append(st.snapshots, tab.String())
	}
	return st, nil
}

func (a fuzzState) diff(b fuzzState) string {
	switch {
	case a.stats != b.stats:
		return fmt.Sprintf("stats %+v, want %+v", a.stats, b.stats)
	case a.length != b.length:
		return fmt.Sprintf("length %d, want %d", a.length, b.length)
	case a.rows != b.rows:
		return fmt.Sprintf("rows\n%s\nwant\n%s", a.rows, b.rows)
	}
	for i := range a.snapshots {
		if a.snapshots[i] != b.snapshots[i] {
			return fmt.Sprintf("snapshot %d\n%s\nwant\n%s", i, a.snapshots[i], b.snapshots[i])
		}
	}
	return ""
}

// render writes outputs for comparing: node, kind and every cell.
func render(out []live.Output) string {
	var b strings.Builder
	for _, o := range out {
		fmt.Fprintf(&b, "node %d %s (%d rows)\n%s\n", o.Node, o.Kind, o.Events.Len(), o.Events)
	}
	return b.String()
}

// fuzzBytes is a fuzz input read a byte at a time, zeros once it runs
// out; the fuzz targets' decoders read through it.
type fuzzBytes struct {
	data []byte
}

func (f *fuzzBytes) next() byte {
	if len(f.data) == 0 {
		return 0
	}
	c := f.data[0]
	f.data = f.data[1:]
	return c
}

// fuzzGen decodes a fuzz input into pushes.
type fuzzGen struct {
	fuzzBytes
	now   int64 // nanoseconds; the time rows are generated around
	hosts int   // host keys: the first of fuzzStrings; 0 means 5 (no "")
}

var extremeTimes = []int64{math.MinInt64, math.MaxInt64, schema.MinTime, schema.MaxTime, schema.MinTime - 1, schema.MaxTime + 1, 0, -int64(time.Hour)}

// time returns the time of the next row: mostly forward in small steps
// (equal times included), sometimes far ahead or off the millisecond
// grid; late (within the 2 s grace or not) or extreme only for bytes
// from 160 on.
func (g *fuzzGen) time(c byte) int64 {
	const ms = int64(time.Millisecond)
	switch {
	case c < 112:
		g.now += int64(c%16) * 100 * ms
	case c < 144:
		g.now += int64(c%32) * int64(time.Second)
	case c < 160:
		g.now += int64(c % 16)
	case c < 192:
		return g.now - int64(c%32+1)*100*ms
	case c < 224:
		return g.now - int64(c%32+1)*2500*ms
	case c < 248:
		g.now += int64(c%8) * 250 * ms
	default:
		return extremeTimes[c%8]
	}
	return g.now
}

var (
	fuzzNumbers = []float64{0, 1, -1, 0.1, 0.7, 0.3, 2.5, 100, math.Copysign(0, -1), 1e16, -1e16, 1e300, -1e300, 5e-324, math.MaxFloat64, 42}
	fuzzStrings = []string{"a", "b", "c", "d", "e", "", "ü", "😀"}
)

func (g *fuzzGen) scalar(c byte) schema.Value {
	switch c % 3 {
	case 0:
		return schema.NumberValue(fuzzNumbers[c/3%16])
	case 1:
		return schema.StringValue(fuzzStrings[c/3%8])
	}
	return schema.BoolValue(c&8 != 0)
}

// cell returns a cell for column j: a valid value for bytes below 160,
// else missing, of another kind, non-finite, or an array with a bad
// element. The host column takes one of g.hosts keys (five by default).
func (g *fuzzGen) cell(j int) schema.Value {
	c := g.next()
	k := fuzzSchema.Column(j).Kind
	switch {
	case c < 160:
		switch k {
		case schema.Number:
			return schema.NumberValue(fuzzNumbers[c%16])
		case schema.String:
			if fuzzSchema.Column(j).Name == "host" {
				hosts := g.hosts
				if hosts == 0 {
					hosts = 5
				}
				return schema.StringValue(fuzzStrings[int(c)%hosts])
			}
			return schema.StringValue(fuzzStrings[c%8])
		case schema.Bool:
			return schema.BoolValue(c&1 != 0)
		case schema.Array:
			elems := make([]schema.Value, c%4)
			for i := range elems {
				elems[i] = g.scalar(g.next())
			}
			return schema.ArrayValue(elems...)
		}
	case c < 208:
		return schema.Missing()
	}
	switch c % 8 {
	case 0: // another kind
		if k == schema.Number {
			return schema.StringValue("1")
		}
		return schema.NumberValue(1)
	case 1:
		return schema.NumberValue(math.NaN())
	case 2:
		return schema.NumberValue(math.Inf(1))
	case 3:
		return schema.NumberValue(math.Inf(-1))
	case 4:
		return schema.ArrayValue(schema.NumberValue(1), schema.NumberValue(math.NaN()))
	case 5:
		return schema.ArrayValue(schema.Missing())
	case 6:
		return schema.ArrayValue(schema.ArrayValue(schema.NumberValue(1)))
	}
	return schema.MillisValue(1)
}

// row returns a row: its time, a cell per column, and now and then a bad
// time cell or one cell too few or too many.
func (g *fuzzGen) row() schema.Row {
	c := g.next()
	row := make(schema.Row, 0, fuzzSchema.Len()+1)
	row = append(row, schema.NanosValue(g.time(c)))
	for j := 1; j < fuzzSchema.Len(); j++ {
		row = append(row, g.cell(j))
	}
	switch g.next() {
	case 255:
		row = row[:len(row)-1]
	case 254:
		row = append(row, schema.NumberValue(1))
	case 253:
		row[0] = schema.NumberValue(1)
	case 252:
		row[0] = schema.Missing()
	}
	return row
}

// batch writes rows as a columnar batch. A cell of another kind than its
// column's cannot be written there, so its column comes out one cell
// short; missing number cells hold NaN behind their flag. corrupt
// sometimes breaks the batch's shape.
func batch(rows []schema.Row, corrupt byte) *schema.Batch {
	b := &schema.Batch{Cols: make([]schema.Vec, fuzzSchema.Len()-1)}
	missing := make([][]bool, len(b.Cols))
	for _, row := range rows {
		t, _ := row[0].Nanos()
		b.Time = append(b.Time, t)
		for j := 1; j < fuzzSchema.Len(); j++ {
			var c schema.Value
			if j < len(row) {
				c = row[j]
			}
			k := fuzzSchema.Column(j).Kind
			if !c.IsMissing() && c.Kind() != k {
				continue
			}
			v := &b.Cols[j-1]
			missing[j-1] = append(missing[j-1], c.IsMissing())
			switch k {
			case schema.Number:
				f, ok := c.Num()
				if !ok {
					f = math.NaN()
				}
				v.Num = append(v.Num, f)
			case schema.String:
				str, _ := c.Str()
				v.Str = append(v.Str, str)
			case schema.Bool:
				x, _ := c.Bool()
				v.Bool = append(v.Bool, x)
			case schema.Array:
				a, _ := c.Array()
				v.Arr = append(v.Arr, a)
			}
		}
	}
	for j, m := range missing {
		for _, x := range m {
			if x {
				b.Cols[j].Missing = m
				break
			}
		}
	}
	switch corrupt {
	case 255:
		b.Cols = b.Cols[:len(b.Cols)-1]
	case 254:
		b.Cols = append(b.Cols, schema.Vec{})
	case 253:
		b.Cols[1].Missing = append(make([]bool, len(b.Time)), true)
	case 252:
		b.Time = append(b.Time, 0)
	}
	return b
}

// pushErrors are the sentinels a push may fail with.
var pushErrors = []error{schema.ErrValidation, live.ErrOutOfOrder, live.ErrLate, partition.ErrUnknownGroup, partition.ErrLimit}

// fuzzPush is one push of a fuzz input: rows, as rows or as a batch.
type fuzzPush struct {
	rows  []schema.Row
	batch *schema.Batch // nil: push rows with PushRows
}

func (p fuzzPush) to(s *live.Series, dst []live.Output) ([]live.Output, error) {
	if p.batch != nil {
		return s.PushMany(dst, p.batch)
	}
	return s.PushRows(dst, p.rows...)
}

// times returns the times of the push's rows (0 for a row whose time cell
// is not a time, which fails validation).
func (p fuzzPush) times() []int64 {
	if p.batch != nil {
		return p.batch.Time
	}
	ts := make([]int64, len(p.rows))
	for i, row := range p.rows {
		ts[i], _ = row[0].Nanos()
	}
	return ts
}

// accepted returns the rows of a push that succeeded, as the series holds
// them: a batch's missing cells are missing values.
func (p fuzzPush) accepted() []schema.Row {
	if p.batch == nil {
		return p.rows
	}
	b := p.batch
	rows := make([]schema.Row, b.Len())
	for i, t := range b.Time {
		row := schema.Row{schema.NanosValue(t)}
		for j := 1; j < fuzzSchema.Len(); j++ {
			v := &b.Cols[j-1]
			var c schema.Value
			if v.Missing == nil || !v.Missing[i] {
				switch fuzzSchema.Column(j).Kind {
				case schema.Number:
					c = schema.NumberValue(v.Num[i])
				case schema.String:
					c = schema.StringValue(v.Str[i])
				case schema.Bool:
					c = schema.BoolValue(v.Bool[i])
				case schema.Array:
					c = schema.ArrayValue(v.Arr[i]...)
				}
			}
			row = append(row, c)
		}
		rows[i] = row
	}
	return rows
}

// rootModel is a plain model of what the root holds: the ordering modes
// and retention of pond-ts's live series on a slice of rows.
type rootModel struct {
	opts   live.Options
	times  []int64
	rows   []string // rendered as Series.All renders them
	latest int64
	has    bool
	stats  live.Stats
}

// outOfOrder reports whether the ordering rejects a push of these times,
// and whether one of them is outside the times a series accepts (which
// validation rejects first).
func (m *rootModel) outOfOrder(times []int64) (late, outOfRange bool) {
	latest, has := m.latest, m.has
	for _, t := range times {
		if t < schema.MinTime || t > schema.MaxTime {
			outOfRange = true
		}
		if has && t < latest {
			switch m.opts.Ordering {
			case live.Strict:
				late = true
			case live.Reorder:
				if g := m.opts.Grace; g > 0 && new(big.Int).Sub(big.NewInt(latest), big.NewInt(t)).Cmp(big.NewInt(int64(g))) > 0 {
					late = true
				}
			}
			continue
		}
		latest, has = t, true
	}
	return late, outOfRange
}

// push takes the rows of a successful push, then applies retention.
func (m *rootModel) push(rows []schema.Row) {
	for _, row := range rows {
		t, _ := row[0].Nanos()
		text := fmt.Sprint(row)
		if m.has && t < m.latest {
			if m.opts.Ordering == live.Drop {
				m.stats.Rejected++
				continue
			}
			// Reorder: after the rows of the same time.
			at := sort.Search(len(m.times), func(i int) bool { return m.times[i] > t })
			m.times = slices.Insert(m.times, at, t)
			m.rows = slices.Insert(m.rows, at, text)
			m.stats.Ingested++
			continue
		}
		m.times = append(m.times, t)
		m.rows = append(m.rows, text)
		m.latest, m.has = t, true
		m.stats.Ingested++
	}
	n, k := len(m.times), 0
	if me := m.opts.MaxEvents; me > 0 && n > me {
		k = n - me
	}
	if age := int64(m.opts.MaxAge); age > 0 && n > 0 && m.times[n-1] >= math.MinInt64+age {
		cut := m.times[n-1] - age
		for k < n && m.times[k] < cut {
			k++
		}
	}
	m.times, m.rows = m.times[k:], m.rows[k:]
	m.stats.Evicted += uint64(k)
	m.stats.Length = len(m.times)
}

func (m *rootModel) diff(s *live.Series) string {
	if st := s.Stats(); st != m.stats {
		return fmt.Sprintf("stats %+v, model %+v", st, m.stats)
	}
	var got []string
	for _, row := range s.All() {
		got = append(got, fmt.Sprint(row))
	}
	if !slices.Equal(got, m.rows) {
		return fmt.Sprintf("rows\n%s\nmodel\n%s", strings.Join(got, "\n"), strings.Join(m.rows, "\n"))
	}
	return ""
}

// FuzzPushMany decodes its input into a pipeline (every ordering mode,
// retention, a partitioning, rollings on it and on the root) and pushes of
// random rows (bad cells, NaN and ±Inf, missing cells, wrong lengths,
// late, duplicate and extreme times) with PushRows and PushMany. A push
// never panics and fails only with a known sentinel. A failed push leaves
// the series exactly as it was: its stats, rows and snapshots are
// unchanged, dst is returned as given, and every later push gives the same
// outputs and state as on a twin series that only ever saw the successful
// pushes (and sweeps its intern table only when due, the series after
// every push). A push fails on ordering exactly when a plain model of the
// ordering modes says so, and after a successful push the rows and stats
// of the root are the model's (pond-ts's live series): time order, drop, reorder
// after equal times, retention by age and count.
func FuzzPushMany(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{2, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 1, 1, 1, 1, 1, 0, 160, 2, 2, 2, 2, 2, 2, 0})
	for cfg := range 24 {
		// Mostly valid rows: bytes below 160.
		rng := rand.New(rand.NewPCG(uint64(cfg), 7))
		data := []byte{byte(cfg) | byte(cfg%2)<<6 | byte(cfg/12)<<5 | byte(cfg/6%2)<<7}
		for range 160 + cfg%4 { // the length picks the number of workers
			c := byte(rng.IntN(160))
			if rng.IntN(30) == 0 {
				c = byte(rng.IntN(256))
			}
			data = append(data, c)
		}
		f.Add(data)
	}
	f.Fuzz(pushFuzzInput)
}

// pushFuzzInput is the body of FuzzPushMany.
func pushFuzzInput(t *testing.T, data []byte) {
	{
		g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour)}
		cfg := g.next()
		// The series runs on one to four workers, its twin on one: the
		// outputs must not depend on the number of workers.
		workers := 1 + len(data)%4
		a, err := buildFuzzPipeline(cfg, workers)
		if err != nil {
			t.Fatalf("building pipeline %d: %v", cfg, err)
		}
		defer a.s.Close()
		twin, err := buildFuzzPipeline(cfg, 1)
		if err != nil {
			t.Fatalf("building twin %d: %v", cfg, err)
		}
		// The series forgets the strings it no longer holds after every
		// push, its twin only when a sweep is due: what a series shows does
		// not depend on when it sweeps.
		live.SweepEveryPush(a.s)
		before, err := a.state()
		if err != nil {
			t.Fatal(err)
		}
		model := &rootModel{opts: a.opts}
		mark := live.Output{Node: -7}
		var dst, twinDst []live.Output
		for push := 0; len(g.data) > 0 && push < 32; push++ {
			mode := g.next()
			rows := make([]schema.Row, g.next()%9)
			for i := range rows {
				rows[i] = g.row()
			}
			p := fuzzPush{rows: rows}
			if mode&1 != 0 {
				p.batch = batch(rows, g.next())
			}
			dst = append(dst[:0], mark)
			out, err := p.to(a.s, dst)
			late, outOfRange := model.outOfOrder(p.times())
			var oe *live.OrderError
			switch {
			case outOfRange:
				if !errors.Is(err, schema.ErrValidation) {
					t.Fatalf("push %d of times %v: want a validation error for a time out of range, got %v", push, p.times(), err)
				}
			case err == nil && late:
				t.Fatalf("push %d of times %v succeeded; its ordering (%s, grace %v, latest %d) rejects it", push, p.times(), a.opts.Ordering, a.opts.Grace, model.latest)
			case errors.As(err, &oe) && !late:
				t.Fatalf("push %d failed with %v; its ordering accepts it", push, err)
			}
			if err != nil {
				known := false
				for _, e := range pushErrors {
					known = known || errors.Is(err, e)
				}
				if !known {
					t.Fatalf("push %d: error without a known sentinel: %v", push, err)
				}
				if len(out) != 1 || out[0] != mark {
					t.Fatalf("push %d failed with %v but returned %d outputs", push, err, len(out))
				}
				after, err := a.state()
				if err != nil {
					t.Fatal(err)
				}
				if d := after.diff(before); d != "" {
					t.Fatalf("push %d failed (%v) and changed the series: %s", push, err, d)
				}
				continue
			}
			if len(out) == 0 || out[0] != mark {
				t.Fatalf("push %d: dst was not appended to", push)
			}
			out = out[1:]
			checkOutputs(t, a.s, push, out)
			twinOut, err := p.to(twin.s, twinDst[:0])
			if err != nil {
				t.Fatalf("push %d succeeded on the series but not on its twin: %v", push, err)
			}
			twinDst = twinOut
			if got, want := render(out), render(twinOut); got != want {
				t.Fatalf("push %d: outputs differ from the twin's:\n%s\ntwin:\n%s", push, got, want)
			}
			if before, err = a.state(); err != nil {
				t.Fatal(err)
			}
			twinState, err := twin.state()
			if err != nil {
				t.Fatal(err)
			}
			if d := before.diff(twinState); d != "" {
				t.Fatalf("push %d: the series differs from its twin: %s", push, d)
			}
			checkBounds(t, a, push)
			model.push(p.accepted())
			if d := model.diff(a.s); d != "" {
				t.Fatalf("push %d: the series differs from its model: %s", push, d)
			}
		}
	}
}

// checkOutputs checks the documented shape of a push's outputs: kinds in
// order Event, Batch, Evict, nodes in build order within a kind, one
// non-empty table per node and kind, with the node's schema.
func checkOutputs(t *testing.T, s *live.Series, push int, out []live.Output) {
	t.Helper()
	for i, o := range out {
		if o.Events.Len() == 0 {
			t.Fatalf("push %d: output %d (node %d %s) is empty", push, i, o.Node, o.Kind)
		}
		sch, err := s.NodeSchema(o.Node)
		if err != nil || !sch.Equal(o.Events.Schema()) {
			t.Fatalf("push %d: output %d has schema %s, node %d has %s (%v)", push, i, o.Events.Schema(), o.Node, sch, err)
		}
		if i > 0 {
			p := out[i-1]
			if o.Kind < p.Kind || o.Kind == p.Kind && o.Node <= p.Node {
				t.Fatalf("push %d: output %d (node %d %s) after node %d %s", push, i, o.Node, o.Kind, p.Node, p.Kind)
			}
		}
	}
}

// checkBounds checks what retention and ordering promise after a push.
func checkBounds(t *testing.T, p *fuzzPipeline, push int) {
	t.Helper()
	st := p.s.Stats()
	if st.Length != p.s.Len() || st.Ingested-st.Evicted != uint64(st.Length) {
		t.Fatalf("push %d: inconsistent stats %+v, length %d", push, st, p.s.Len())
	}
	if st.Rejected != 0 && p.opts.Ordering != live.Drop {
		t.Fatalf("push %d: %d rows rejected under %s", push, st.Rejected, p.opts.Ordering)
	}
	if m := p.opts.MaxEvents; m > 0 && st.Length > m {
		t.Fatalf("push %d: %d rows held, MaxEvents is %d", push, st.Length, m)
	}
	latest, ok := p.s.LatestNanos()
	prev := int64(math.MinInt64)
	for i, row := range p.s.All() {
		ns, _ := row[0].Nanos()
		if ns < prev {
			t.Fatalf("push %d: row %d at %d before %d", push, i, ns, prev)
		}
		prev = ns
		if age := int64(p.opts.MaxAge); ok && latest >= math.MinInt64+age && ns < latest-age {
			t.Fatalf("push %d: row %d at %d is older than MaxAge before %d", push, i, ns, latest)
		}
	}
	if ok && prev != latest {
		t.Fatalf("push %d: Latest is %d, the last row is at %d", push, latest, prev)
	}
}
