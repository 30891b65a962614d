package benchmarks

import (
	"fmt"
	"math"
	"time"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

// T0 is the first tick of every workload: 2025-01-01T00:00:00Z.
var T0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Mulberry32 is the 32-bit PRNG the workloads are defined with (the same
// one pond-ts's benchmarks use), so that any implementation can regenerate
// the exact stream.
type Mulberry32 struct{ a uint32 }

// NewMulberry32 returns the generator seeded with seed.
func NewMulberry32(seed uint32) *Mulberry32 { return &Mulberry32{a: seed} }

// Next returns the next uniform in [0, 1).
func (m *Mulberry32) Next() float64 {
	m.a += 0x6D2B79F5
	t := m.a
	t = (t ^ (t >> 15)) * (t | 1)
	t ^= t + (t^(t>>7))*(t|61)
	return float64(t^(t>>14)) / 4294967296
}

// SeedSchema is the schema of the seed workload.
var SeedSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "cpu", Kind: schema.Number},
	schema.Column{Name: "requests", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String},
)

// SeedStream is the seed workload's stream: K ticks of P rows, one batch
// per tick, pre-built.
type SeedStream struct {
	P, N    int // hosts, events per second per host
	Seconds int
	Batches []*schema.Batch
	// The stream's cells, batch after batch, one array a column: each
	// batch's columns are windows of them (see [SeedStream.Feed]).
	times    []int64
	cpu, req []float64
	hosts    []string
}

// HostName returns the name of host h: "host-" and h zero-padded to 4
// digits.
func HostName(h int) string { return fmt.Sprintf("host-%04d", h) }

// NewSeedStream builds the seed stream (docs/workload.md): P hosts, N events
// per second per host (N divides 1000), secs seconds, mulberry32 seed 42,
// 15 uniforms per row.
func NewSeedStream(p, n, secs int) *SeedStream {
	if 1000%n != 0 {
		panic("benchmarks: N must divide 1000")
	}
	hosts := make([]string, p)
	for h := range hosts {
		hosts[h] = HostName(h)
	}
	rng := NewMulberry32(42)
	tick := int64(1000/n) * int64(time.Millisecond)
	k := secs * n
	st := &SeedStream{P: p, N: n, Seconds: secs, Batches: make([]*schema.Batch, k),
		times: make([]int64, 0, k*p), cpu: make([]float64, 0, k*p), req: make([]float64, 0, k*p), hosts: make([]string, 0, k*p)}
	t0 := T0.UnixNano()
	for i := range k {
		t := t0 + int64(i)*tick
		for h := range p {
			cpu, req := seedRow(rng)
			st.times = append(st.times, t)
			st.cpu = append(st.cpu, cpu)
			st.req = append(st.req, req)
			st.hosts = append(st.hosts, hosts[h])
		}
		b := schema.NewBatch(SeedSchema, 0)
		st.view(b, i)
		st.Batches[i] = b
	}
	return st
}

// view points b's columns at batch i of the stream's arrays (capped, so
// that appending to b cannot write over the next batch).
func (s *SeedStream) view(b *schema.Batch, i int) {
	lo, hi := i*s.P, (i+1)*s.P
	b.Time = s.times[lo:hi:hi]
	b.Cols[0].Num = s.cpu[lo:hi:hi]
	b.Cols[1].Num = s.req[lo:hi:hi]
	b.Cols[2].Str = s.hosts[lo:hi:hi]
}

// Feed returns one batch that [Feed.Next] points at the stream's batches
// in turn from batch from on, as a producer that decodes each batch into
// a batch it reuses hands them over: the cells are the stream's, read
// once, and the batch's own headers stay in cache (each of the stream's
// Batches has headers of its own, about 450 bytes, cold when pushed).
func (s *SeedStream) Feed(from int) *Feed {
	return &Feed{st: s, b: schema.NewBatch(SeedSchema, 0), next: from}
}

// Feed hands over a [SeedStream]'s batches one after the other in one
// reused batch; see [SeedStream.Feed].
type Feed struct {
	st   *SeedStream
	b    *schema.Batch
	next int
}

// Next returns the next batch, valid until the following call, and false
// after the stream's last.
func (f *Feed) Next() (*schema.Batch, bool) {
	if f.next >= len(f.st.Batches) {
		return nil, false
	}
	f.st.view(f.b, f.next)
	f.next++
	return f.b, true
}

// seedRow draws one row's cpu and requests: 15 uniforms, as
// docs/workload.md says.
func seedRow(rng *Mulberry32) (cpu, req float64) {
	var u [15]float64
	for j := range u {
		u[j] = rng.Next()
	}
	s := 0.0
	for j := range 12 {
		s += u[j]
	}
	cpu = 0.5 + float64(0.1*(s-6))
	if u[12] < 0.01 {
		cpu = 0.8 + float64(0.2*u[13])
	}
	cpu = math.Min(1, math.Max(0, cpu))
	return cpu, 70 + math.Floor(u[14]*61)
}

// EachSeedBatch generates the seed stream batch by batch into one reused
// batch, for rates whose stream is too large to hold (N events per second
// per host, N dividing 10^9: ticks of 10^9/N ns, 10000/s ticks every
// 100 µs), calling fn with each; fn must not keep the batch.
func EachSeedBatch(p, n, secs int, fn func(*schema.Batch) error) error {
	g, err := newSeedGen(p, n)
	if err != nil {
		return err
	}
	for range secs * n {
		if err := fn(g.next()); err != nil {
			return err
		}
	}
	return nil
}

// seedGen generates the seed stream one batch at a time into one reused
// batch, without allocating once the batch has its size.
type seedGen struct {
	hosts []string
	rng   *Mulberry32
	tick  int64 // ns between batches
	i     int64 // the next batch
	b     *schema.Batch
}

// newSeedGen returns a generator of the seed stream of p hosts at n events
// per second per host, n dividing 10^9.
func newSeedGen(p, n int) (*seedGen, error) {
	if n <= 0 || int64(time.Second)%int64(n) != 0 {
		return nil, fmt.Errorf("benchmarks: N=%d must divide 10^9", n)
	}
	g := &seedGen{hosts: make([]string, p), rng: NewMulberry32(42), tick: int64(time.Second) / int64(n), b: schema.NewBatch(SeedSchema, p)}
	for h := range g.hosts {
		g.hosts[h] = HostName(h)
	}
	return g, nil
}

// next returns the next batch, valid until the following call.
func (g *seedGen) next() *schema.Batch {
	b := g.b
	b.Reset()
	t := T0.UnixNano() + g.i*g.tick
	g.i++
	for _, h := range g.hosts {
		cpu, req := seedRow(g.rng)
		b.Time = append(b.Time, t)
		b.Cols[0].Num = append(b.Cols[0].Num, cpu)
		b.Cols[1].Num = append(b.Cols[1].Num, req)
		b.Cols[2].Str = append(b.Cols[2].Str, h)
	}
	return b
}

// Rows returns the number of rows in the stream.
func (s *SeedStream) Rows() int { return len(s.Batches) * s.P }

// SeedPipeline is the seed workload's pipeline built on a series.
type SeedPipeline struct {
	Series *live.Series
	Hosts  live.NodeID // the partitioned two-window rolling
	PerSec live.NodeID // the unpartitioned 1s count
}

// NewSeedPipeline builds the seed pipeline (docs/workload.md) with the public API:
// root retention 30s; partition by host (MaxEvents 1); windows 1m and
// 200ms on a 200ms clock; then an unpartitioned 1s count on the same
// clock. Both rollings are watched.
func NewSeedPipeline() (*SeedPipeline, error) { return NewSeedPipelineWith(false, 0) }

// NewSeedAlignedPipeline is [NewSeedPipeline] with both rollings in
// aligned mode (rolling.Options.Aligned): the rows of docs/workload.md's
// pipeline, but each host's windows are [b − span, b) of its own rows.
func NewSeedAlignedPipeline() (*SeedPipeline, error) { return NewSeedPipelineWith(true, 0) }

// SeedWindows returns the windows of the seed pipeline's partitioned
// rolling (docs/workload.md): over the last minute, the mean, standard
// deviation and count of cpu and of requests, and the requests' sum; over
// the last 200 ms, cpu's samples, extremes, mean and standard deviation.
func SeedWindows() []rolling.Window {
	return []rolling.Window{
		{Name: "1m", Span: time.Minute, Aggs: []reduce.Agg{
			{Out: "cpu_avg", From: "cpu", Using: reduce.Avg},
			{Out: "cpu_sd", From: "cpu", Using: reduce.Stdev},
			{Out: "cpu_n", From: "cpu", Using: reduce.Count},
			{Out: "requests_avg", From: "requests", Using: reduce.Avg},
			{Out: "requests_sum", From: "requests", Using: reduce.Sum},
			{Out: "requests_n", From: "requests", Using: reduce.Count},
		}},
		{Name: "200ms", Span: 200 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "cpu_samples", From: "cpu", Using: reduce.Samples},
			{Out: "cpu_min", From: "cpu", Using: reduce.Min},
			{Out: "cpu_max", From: "cpu", Using: reduce.Max},
			{Out: "current_avg", From: "cpu", Using: reduce.Avg},
			{Out: "current_sd", From: "cpu", Using: reduce.Stdev},
		}},
	}
}

// NewSeedPipelineWith is [NewSeedPipeline] (aligned false) or
// [NewSeedAlignedPipeline] (aligned true) on a series with the given
// number of workers (live.Options.Workers). Close the series when done.
func NewSeedPipelineWith(aligned bool, workers int) (*SeedPipeline, error) {
	s, err := live.New("metrics", SeedSchema, live.Options{MaxAge: 30 * time.Second, Workers: workers})
	if err != nil {
		return nil, err
	}
	clock := trigger.Clock(sequence.Every(200 * time.Millisecond))
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1})
	if err != nil {
		return nil, err
	}
	hosts, err := s.Rolling(byHost, SeedWindows(), rolling.Options{Trigger: clock, Aligned: aligned})
	if err != nil {
		return nil, err
	}
	perSec, err := s.Rolling(s.Root(), []rolling.Window{
		{Name: "1s", Span: time.Second, Aggs: []reduce.Agg{{Out: "events_per_sec", From: "cpu", Using: reduce.Count}}},
	}, rolling.Options{Trigger: clock, Aligned: aligned})
	if err != nil {
		return nil, err
	}
	if err := s.Watch(hosts, live.Event); err != nil {
		return nil, err
	}
	if err := s.Watch(perSec, live.Event); err != nil {
		return nil, err
	}
	return &SeedPipeline{Series: s, Hosts: hosts, PerSec: perSec}, nil
}

// MicroSchema is the schema of the micro workload.
var MicroSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "value", Kind: schema.Number},
)

// NewMicroStream builds the micro workload: rows at 1 ms spacing from T0,
// each value one mulberry32 draw (seed 42), in batches of batchSize.
func NewMicroStream(rows, batchSize int) []*schema.Batch {
	rng := NewMulberry32(42)
	var out []*schema.Batch
	t0 := T0.UnixNano()
	for i := 0; i < rows; i += batchSize {
		b := schema.NewBatch(MicroSchema, batchSize)
		for k := i; k < min(rows, i+batchSize); k++ {
			b.Time = append(b.Time, t0+int64(k)*int64(time.Millisecond))
			b.Cols[0].Num = append(b.Cols[0].Num, rng.Next())
		}
		out = append(out, b)
	}
	return out
}

// microWindows is the micro workload's rolling: a 1m avg of value.
func microWindows() []rolling.Window {
	return []rolling.Window{
		{Span: time.Minute, Aggs: []reduce.Agg{{Out: "avg", From: "value", Using: reduce.Avg}}},
	}
}

// microOptions: the event trigger, no history.
func microOptions() rolling.Options { return rolling.Options{} }

// NewMicroPipeline builds the micro pipeline: an unpartitioned series with
// no retention and a 1m rolling avg of value on the event trigger,
// watched.
func NewMicroPipeline() (*live.Series, live.NodeID, error) {
	s, err := live.New("micro", MicroSchema, live.Options{})
	if err != nil {
		return nil, 0, err
	}
	r, err := s.Rolling(s.Root(), microWindows(), microOptions())
	if err != nil {
		return nil, 0, err
	}
	return s, r, s.Watch(r, live.Event)
}
