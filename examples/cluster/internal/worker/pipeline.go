package worker

import (
	"fmt"
	"math"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/internal/hostlimit"
	"github.com/pond-go/pond/examples/internal/seed"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Schema is the schema of the events a partition's series takes.
var Schema = seed.Schema

// TickEvery is the period of the clock the rows are emitted on.
const TickEvery = seed.TickEvery

// LongestWindow is the longest window of the pipeline: a rebuilt series
// needs the events of this much event time before the last committed one.
const LongestWindow = seed.LongestWindow

// rollingOptions is the one place the clock mode is chosen: aligned
// windows. Boundary b's row for a host covers that host's events with
// b − span <= t < b and is emitted when the partition first sees an event
// with t >= b, so a row depends only on its host's events, and any split of
// the hosts over Kafka partitions and workers, or a replay, gives the same
// rows. (The default mode fires a tick inside the crossing event's own
// push, so its rows depend on the order of hosts within a partition.)
func rollingOptions() rolling.Options {
	return rolling.Options{Trigger: trigger.Clock(sequence.Every(TickEvery)), Aligned: true}
}

// Pipeline is one series of the seed pipeline's per-host part: partition
// by host, then the two-window rolling on the 200 ms clock. A worker keeps
// one per assigned Kafka partition; the oracle test runs one over all
// events.
type Pipeline struct {
	s      *live.Series
	byHost live.NodeID
	hosts  live.NodeID
	// maxHosts bounds the hosts the series tracks (see NewPipelineWith).
	maxHosts int
	cols     seed.Cols // the rolling's output columns
	batch    *schema.Batch
	out      []live.Output
	names    map[string]string // interned host names, at most maxNames
	// skipped counts the events not staged: a record value that is not
	// 16 bytes or not finite numbers, a key longer than maxHostLen, or a
	// timestamp before 1970 or after maxTimeMs (see there); and the events
	// of new hosts refused past maxHosts.
	skipped uint64
}

// ordering is the series' ordering: an event older than the latest is
// dropped and counted (see NewPipelineWith).
const ordering = live.Drop

// DefaultMaxHosts is the bound on the hosts one partition's series tracks
// that NewPipeline and a worker's default take.
const DefaultMaxHosts = 10_000

// NewPipeline builds an empty pipeline that tracks at most
// DefaultMaxHosts hosts.
func NewPipeline() (*Pipeline, error) { return NewPipelineWith(DefaultMaxHosts) }

// NewPipelineWith builds an empty pipeline that tracks at most maxHosts
// hosts at once (at least 1): a host leaves after LongestWindow without
// an event, and while maxHosts are tracked the events of new hosts are
// refused and counted (Dropped), so that a flood of distinct keys does
// not grow the series without end. A host's rows depend only on its own
// events, so the hosts tracked keep theirs; which new hosts' events a
// full series refuses depends on how the events were fetched, so a
// replay after such a flood can admit other ones.
func NewPipelineWith(maxHosts int) (*Pipeline, error) {
	if maxHosts < 1 {
		return nil, fmt.Errorf("worker: at most %d hosts: want at least 1", maxHosts)
	}
	// The root keeps nothing the rows need (the rolling has its own
	// window store), so its retention is short. An event older than the
	// latest (a producer's own timestamps may go back) is dropped and
	// counted (Stats.Rejected), not the push it came in: under strict
	// ordering one such record cost every event of its fetch.
	s, err := live.New("metrics", Schema, live.Options{MaxAge: time.Second, Ordering: ordering})
	if err != nil {
		return nil, err
	}
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: LongestWindow, MaxPartitions: maxHosts})
	if err != nil {
		return nil, err
	}
	hosts, err := s.Rolling(byHost, seed.Windows(), rollingOptions())
	if err != nil {
		return nil, err
	}
	if err := s.Watch(hosts, live.Event); err != nil {
		return nil, err
	}
	hs, err := s.NodeSchema(hosts)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{s: s, byHost: byHost, hosts: hosts, maxHosts: maxHosts, batch: schema.NewBatch(Schema, 1024), names: map[string]string{}}
	if p.cols, err = seed.OutputCols(hs); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	return p, nil
}

// Add stages one event for the next Flush.
func (p *Pipeline) Add(timeMs int64, cpu, requests float64, host string) {
	p.add(timeMs, cpu, requests, host)
}

// maxNames bounds the names AddKey keeps: a stream whose hosts come and
// go (containers, autoscaled machines) must not grow the table without
// end. When it is full it starts over; a name then costs one allocation
// again, the first time it is seen after.
const maxNames = 1 << 16

// maxHostLen is the longest key AddKey takes as a host, in bytes (the
// aggregator's default bound). A longer one is left out and counted: each
// of its rows would carry it twice (key and JSON), and a row larger than
// a record may be fails every transaction that holds it, the same poll
// again after each abort.
const maxHostLen = 256

// AddKey stages one event whose host is a record key; each distinct name
// is allocated once while it is in the table of names. A key longer than
// maxHostLen is left out and counted.
func (p *Pipeline) AddKey(timeMs int64, cpu, requests float64, key []byte) {
	if len(key) > maxHostLen {
		p.skipped++
		return
	}
	host, ok := p.names[string(key)]
	if !ok {
		if len(p.names) >= maxNames {
			clear(p.names)
		}
		host = string(key)
		p.names[host] = host
	}
	p.add(timeMs, cpu, requests, host)
}

// AddRecord stages the event an input record carries (see package
// events); a value that is not one is left out and counted.
func (p *Pipeline) AddRecord(r *kgo.Record) {
	cpu, req, err := events.DecodeValue(r.Value)
	if err != nil {
		p.skipped++
		return
	}
	p.AddKey(r.Timestamp.UnixMilli(), cpu, req, r.Key)
}

func (p *Pipeline) add(timeMs int64, cpu, requests float64, host string) {
	if !finite(cpu) || !finite(requests) || timeMs > maxTimeMs || timeMs < 0 {
		p.skipped++
		return
	}
	b := p.batch
	b.Time = append(b.Time, timeMs*int64(time.Millisecond))
	b.Cols[0].Num = append(b.Cols[0].Num, cpu)
	b.Cols[1].Num = append(b.Cols[1].Num, requests)
	b.Cols[2].Str = append(b.Cols[2].Str, host)
}

// maxTimeMs is the latest timestamp the series takes (schema.MaxTime, the
// year 2116), in milliseconds; beyond it the series would reject the push
// it came in, and beyond about 9.2e12 its nanoseconds would overflow. The
// earliest taken is 0, 1970: the series holds earlier times, but a Kafka
// record's timestamp cannot be one (brokers refuse them, -1 meaning none),
// and the checkpoint's -1 says "no event" and "no row".
const maxTimeMs = schema.MaxTime / int64(time.Millisecond)

// finite reports whether x is a number the series takes.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Dropped returns the events left out so far: those whose value was not
// 16 bytes or not finite numbers, whose key was longer than maxHostLen or
// whose timestamp was before 1970 or after maxTimeMs, those of new hosts refused while
// the series tracked its most hosts, and those older than the latest
// event when they came.
func (p *Pipeline) Dropped() uint64 { return p.skipped + p.s.Stats().Rejected }

// LatestMs returns the time of the latest event the series has taken, in
// ms, and false when it has taken none.
func (p *Pipeline) LatestMs() (int64, bool) {
	ns, ok := p.s.LatestNanos()
	return ns / int64(time.Millisecond), ok
}

// Flush pushes the staged events as one batch and appends the rows it
// emits to dst. Rows of hosts whose 1m window is empty are left out: they
// carry nothing, and whether a series still remembers such a host depends
// on where its replay began.
func (p *Pipeline) Flush(dst []rows.Row) ([]rows.Row, error) {
	if p.batch.Len() == 0 {
		return dst, nil
	}
	err := p.push()
	if err != nil {
		return dst, err
	}
	for _, o := range p.out {
		if o.Node != p.hosts {
			continue
		}
		dst = p.appendRows(dst, o.Events)
	}
	return dst, nil
}

// Discard pushes the staged events as one batch and drops the rows it
// emits (a replay's rows are already committed).
func (p *Pipeline) Discard() error {
	if p.batch.Len() == 0 {
		return nil
	}
	return p.push()
}

// push pushes the staged events, within the bound on hosts, into p.out.
func (p *Pipeline) push() error {
	var refused uint64
	var err error
	p.out, refused, err = hostlimit.Push(p.s, p.byHost, p.maxHosts, LongestWindow, ordering, p.out[:0], p.batch)
	p.batch.Reset()
	p.skipped += refused
	return err
}

func (p *Pipeline) appendRows(dst []rows.Row, tab *schema.Table) []rows.Row {
	c := &p.cols
	times := tab.Times()
	// A missing number reads as NaN.
	num := func(r schema.Ref, i int) float64 { x, _ := tab.Num(r, i); return x }
	for i := range times {
		cpuN := num(c.CPUN, i)
		if cpuN == 0 {
			continue
		}
		host, _ := tab.Str(c.Host, i)
		r := rows.Row{
			BoundaryMs: times[i] / int64(time.Millisecond), Host: host,
			CPUAvg: num(c.CPUAvg, i), CPUSd: num(c.CPUSd, i), CPUN: int64(cpuN),
			RequestsAvg: num(c.ReqAvg, i), RequestsSum: num(c.ReqSum, i), RequestsN: int64(num(c.ReqN, i)),
			CPUMin: num(c.CPUMin, i), CPUMax: num(c.CPUMax, i), CurrentAvg: num(c.CurAvg, i), CurrentSd: num(c.CurSd, i),
		}
		if xs, ok := tab.AppendNums(nil, c.Samples, i); ok {
			if xs == nil {
				xs = []float64{}
			}
			r.SetSamples(xs) // at most rows.MaxSamples: a row must fit a record
		}
		dst = append(dst, r)
	}
	return dst
}
