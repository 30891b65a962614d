package live_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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

type metric struct {
	At   time.Time `pond:"time"`
	CPU  float64   `pond:"cpu"`
	Host string    `pond:"host"`
}

type sample struct {
	Base
	Mem    *float64 `pond:"mem"`
	Temp   float32  `pond:"temp,optional"`
	Region string   `pond:"region,optional"`
	Up     *bool    `pond:"up"`
	Cores  int      `pond:"cores"`
	Note   string   // not a column: untagged
	Skip   float64  `pond:"-"`
}

type Base struct {
	Nanos int64  `pond:"ts,time"`
	Host  string `pond:"host"`
}

func ptr[T any](v T) *T { return &v }

func TestForDerivesASchemaFromTags(t *testing.T) {
	s, err := schema.For[sample]()
	require.NoError(t, err)
	assert.Equal(t, "ts:time, host:string, mem:number?, temp:number?, region:string?, up:boolean?, cores:number", s.String())

	m, err := schema.For[metric]()
	require.NoError(t, err)
	assert.Equal(t, "time:time, cpu:number, host:string", m.String())
}

func TestForRejectsBadStructs(t *testing.T) {
	type noTime struct {
		X float64 `pond:"x"`
	}
	type twoTimes struct {
		A time.Time `pond:"a"`
		B time.Time `pond:"b"`
	}
	type badType struct {
		T time.Time         `pond:"time"`
		M map[string]string `pond:"m"`
	}
	type badOption struct {
		T time.Time `pond:"time"`
		X float64   `pond:"x,sometimes"`
	}
	type optionalInt struct {
		T time.Time `pond:"time"`
		X int       `pond:"x,optional"`
	}
	type unexported struct {
		T time.Time `pond:"time"`
		x float64   `pond:"x"`
	}
	type dup struct {
		T time.Time `pond:"time"`
		X float64   `pond:"x"`
		Y float64   `pond:"x"`
	}
	for name, f := range map[string]func() error{
		"no time field":   func() error { _, err := schema.For[noTime](); return err },
		"two time fields": func() error { _, err := schema.For[twoTimes](); return err },
		"a map field":     func() error { _, err := schema.For[badType](); return err },
		"unknown option":  func() error { _, err := schema.For[badOption](); return err },
		"optional int":    func() error { _, err := schema.For[optionalInt](); return err },
		"unexported":      func() error { _, err := schema.For[unexported](); return err },
		"duplicate name":  func() error { _, err := schema.NewCodec[dup](nil); return err },
		"not a struct":    func() error { _, err := schema.For[int](); return err },
	} {
		assert.ErrorIs(t, f(), schema.ErrSchema, name)
	}
	_ = unexported{}.x
}

func TestTypedPushAndDecode(t *testing.T) {
	sch, err := schema.For[sample]()
	require.NoError(t, err)
	s, err := live.New("m", sch, live.Options{})
	require.NoError(t, err)
	typed, err := live.NewTyped[sample](s)
	require.NoError(t, err)
	in := []sample{
		{Base: Base{Nanos: ms(0), Host: "a"}, Mem: ptr(0.5), Temp: 40, Region: "eu", Up: ptr(true), Cores: 8},
		{Base: Base{Nanos: ms(1), Host: "b"}, Temp: float32(math.NaN()), Cores: 2},
	}
	_, err = typed.Push(nil, in)
	require.NoError(t, err)
	snap := snapshot(t, s, s.Root())
	assert.Equal(t, schema.Row{schema.MillisValue(1), schema.StringValue("b"), {}, {}, {}, {}, schema.NumberValue(2)}, snap.Row(1))

	got, err := typed.Codec().Decode(nil, snap)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, in[0], got[0])
	assert.Equal(t, Base{Nanos: ms(1), Host: "b"}, got[1].Base)
	assert.Nil(t, got[1].Mem)
	assert.Nil(t, got[1].Up)
	assert.True(t, math.IsNaN(float64(got[1].Temp)), "a missing float decodes as NaN")
	assert.Equal(t, "", got[1].Region)

	// A bad row rejects the push atomically, as a batch does.
	_, err = typed.Push(nil, []sample{{Base: Base{Nanos: ms(5), Host: "c"}, Mem: ptr(math.Inf(1))}})
	assert.ErrorIs(t, err, schema.ErrValidation)
	assert.Equal(t, 2, s.Len())
}

func TestCodecDecodesOutputsByName(t *testing.T) {
	type hostStats struct {
		At   time.Time `pond:"time"`
		Host string    `pond:"host"`
		Avg  *float64  `pond:"avg"`
		N    int       `pond:"n"`
		Gone string    `pond:"absent"`
	}
	s, err := live.New("m", schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	), live.Options{})
	require.NoError(t, err)
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	require.NoError(t, err)
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: 5 * time.Second, Aggs: []reduce.Agg{
		{Out: "avg", From: "cpu", Using: reduce.Avg}, {Out: "n", From: "cpu", Using: reduce.Count},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	typed, err := live.NewTyped[metric](s)
	require.NoError(t, err)
	t0 := time.UnixMilli(0).UTC()
	_, err = typed.Push(nil, []metric{{t0, 0.5, "a"}, {t0, 0.7, "b"}})
	require.NoError(t, err)
	out, err := typed.Push(nil, []metric{{t0.Add(10 * time.Second), 0.9, "a"}})
	require.NoError(t, err)
	dec, err := schema.NewCodec[hostStats](nil)
	require.NoError(t, err)
	got, err := dec.Decode(nil, out[0].Events)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "a", got[0].Host)
	assert.Equal(t, 0.9, *got[0].Avg)
	assert.Equal(t, 1, got[0].N)
	assert.Nil(t, got[1].Avg, "b's window is empty")
	assert.Equal(t, t0.Add(10*time.Second), got[1].At)

	type wrongKind struct {
		At   time.Time `pond:"time"`
		Host float64   `pond:"host"`
	}
	wk, err := schema.NewCodec[wrongKind](nil)
	require.NoError(t, err)
	_, err = wk.Decode(nil, out[0].Events)
	assert.ErrorIs(t, err, schema.ErrSchema)
}

func TestNewTypedChecksTheSchema(t *testing.T) {
	s := newSeries(t, live.Options{}) // time, value, host?
	_, err := live.NewTyped[metric](s)
	assert.ErrorIs(t, err, live.ErrConfig, "no field for value, no column for cpu")
}

func TestTypedPushDoesNotAllocate(t *testing.T) {
	s, batches, _ := typedBench(t, 60)
	typed, err := live.NewTyped[metric](s)
	require.NoError(t, err)
	var out []live.Output
	i := 0
	push := func() {
		out, err = typed.Push(out[:0], batches[i])
		i++
	}
	for range 30 { // past the retention: steady state
		push()
		require.NoError(t, err)
	}
	assert.Zero(t, allocs.Count(20, push))
	require.NoError(t, err)
}

// typedBench returns a series with ten seconds of retention and nb pushes
// of 1000 rows of 100 hosts (a second each), as structs and as batches.
func typedBench(tb testing.TB, nb int) (*live.Series, [][]metric, []*schema.Batch) {
	sch, err := schema.For[metric]()
	require.NoError(tb, err)
	s, err := live.New("bench", sch, live.Options{MaxAge: 10 * time.Second})
	require.NoError(tb, err)
	hosts := make([]string, 100)
	for i := range hosts {
		hosts[i] = "host-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
	}
	structs := make([][]metric, nb)
	batches := make([]*schema.Batch, nb)
	for k := range nb {
		rows := make([]metric, 1000)
		b := schema.NewBatch(sch, len(rows))
		for i := range rows {
			rows[i] = metric{At: time.UnixMilli(int64(k*1000 + i)).UTC(), CPU: float64(i%97) / 97, Host: hosts[i%len(hosts)]}
			b.Time = append(b.Time, rows[i].At.UnixNano())
			b.Cols[0].Num = append(b.Cols[0].Num, rows[i].CPU)
			b.Cols[1].Str = append(b.Cols[1].Str, rows[i].Host)
		}
		structs[k], batches[k] = rows, b
	}
	return s, structs, batches
}

const benchPushes = 64

// later moves the pushes of typedBench after the last of them.
func later(structs [][]metric, batches []*schema.Batch) {
	for _, rows := range structs {
		for i := range rows {
			rows[i].At = rows[i].At.Add(benchPushes * time.Second)
		}
	}
	for _, b := range batches {
		for i := range b.Time {
			b.Time[i] += int64(benchPushes * time.Second)
		}
	}
}

// BenchmarkTypedPush pushes 1000 rows of []metric per op through a Typed
// pusher; compare with BenchmarkBatchPush, the columnar path on the same
// rows (kept within 1.5× of it).
func BenchmarkTypedPush(b *testing.B) {
	s, structs, _ := typedBench(b, benchPushes)
	typed, err := live.NewTyped[metric](s)
	require.NoError(b, err)
	var out []live.Output
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == len(structs) {
			b.StopTimer()
			later(structs, nil)
			i = 0
			b.StartTimer()
		}
		if out, err = typed.Push(out[:0], structs[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBatchPush pushes the same rows as BenchmarkTypedPush from
// columnar batches built beforehand: the fastest way in.
func BenchmarkBatchPush(b *testing.B) {
	s, _, batches := typedBench(b, benchPushes)
	var out []live.Output
	var err error
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == len(batches) {
			b.StopTimer()
			later(nil, batches)
			i = 0
			b.StartTimer()
		}
		if out, err = s.PushMany(out[:0], batches[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBatchPushFromStructs fills a batch from the same []metric by
// hand on each push: what a caller without Typed writes.
func BenchmarkBatchPushFromStructs(b *testing.B) {
	s, structs, _ := typedBench(b, benchPushes)
	batch := schema.NewBatch(s.Schema(), 1000)
	var out []live.Output
	var err error
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == len(structs) {
			b.StopTimer()
			later(structs, nil)
			i = 0
			b.StartTimer()
		}
		batch.Reset()
		for _, r := range structs[i] {
			batch.Time = append(batch.Time, r.At.UnixNano())
			batch.Cols[0].Num = append(batch.Cols[0].Num, r.CPU)
			batch.Cols[1].Str = append(batch.Cols[1].Str, r.Host)
		}
		if out, err = s.PushMany(out[:0], batch); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}
