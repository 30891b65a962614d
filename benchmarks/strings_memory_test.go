package benchmarks

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var distinctRows = flag.Int("distinct-rows", 10_000_000,
	"rows of TestDistinctStringsMemoryIsBounded (a tenth of it under -race or -short)")

var requestSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "req", Kind: schema.String},
	schema.Column{Name: "cpu", Kind: schema.Number},
)

// requestStream is a stream of 1000 rows per second of event time, pushed
// a second at a time: 100 hosts, renamed every minute, and a request id
// that is new in every row.
type requestStream struct {
	b    *schema.Batch
	next int // rows generated
}

const requestsPerPush = 1000

// push generates the next second of rows and pushes it.
func (st *requestStream) push(s *live.Series, out []live.Output) ([]live.Output, error) {
	if st.b == nil {
		st.b = schema.NewBatch(requestSchema, requestsPerPush)
	}
	b := st.b
	b.Reset()
	for range requestsPerPush {
		i := st.next
		st.next++
		minute := i / 60_000
		b.Time = append(b.Time, int64(i)*int64(time.Millisecond))
		b.Cols[0].Str = append(b.Cols[0].Str, "host-"+strconv.Itoa(minute)+"-"+strconv.Itoa(i%100))
		b.Cols[1].Str = append(b.Cols[1].Str, "req-"+strconv.Itoa(i))
		b.Cols[2].Num = append(b.Cols[2].Num, float64(i%97))
	}
	return s.PushMany(out[:0], b)
}

// newRequestPipeline builds a series keeping 30 s of rows, partitioned by
// host with a 10 s IdleTTL, and a per-host rolling over a minute that
// keeps the last request id, on a 1 s clock.
func newRequestPipeline() (*live.Series, error) {
	return newRequestPipelineWith(1)
}

// newRequestPipelineWith is newRequestPipeline on the given number of
// workers.
func newRequestPipelineWith(workers int) (*live.Series, error) {
	s, err := live.New("requests", requestSchema, live.Options{MaxAge: 30 * time.Second, Workers: workers})
	if err != nil {
		return nil, err
	}
	byHost, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	roll, err := s.Rolling(byHost, []rolling.Window{{Span: time.Minute, Aggs: []reduce.Agg{
		{Out: "cpu", From: "cpu", Using: reduce.Avg},
		{Out: "n", From: "req", Using: reduce.Count},
		{Out: "last", From: "req", Using: reduce.Last},
	}}}, rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second))})
	if err != nil {
		return nil, err
	}
	return s, s.Watch(roll)
}

// liveHeap returns the heap in use after a collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// pushRequests pushes the first n rows of the request stream into s and
// returns the live heap above base after the first at rows and after all
// n.
func pushRequests(t *testing.T, s *live.Series, base uint64, n, at int) (early, late uint64) {
	t.Helper()
	st := &requestStream{}
	var out []live.Output
	var err error
	for st.next < n {
		out, err = st.push(s, out)
		require.NoError(t, err)
		if st.next == at {
			early = liveHeap() - base
		}
	}
	return early, liveHeap() - base
}

// TestDistinctStringsMemoryIsBounded: with a new string in every row, the
// heap a series holds is bounded by what it holds, not by the strings it
// has seen. After N rows (10 M; 1 M under -race or -short) the heap is
// within 1.5 times the heap after N/10 rows, and within 2 times the heap
// of a new series given only the last 70 s of rows (which holds the same
// rows: 30 s in the root, a minute in the windows).
func TestDistinctStringsMemoryIsBounded(t *testing.T) {
	n := *distinctRows
	if raceEnabled || testing.Short() {
		n /= 10
	}
	n -= n % requestsPerPush
	base := liveHeap()
	s, err := newRequestPipeline()
	if err != nil {
		t.Fatal(err)
	}
	early, late := pushRequests(t, s, base, n, n/10)

	// What the held rows need: a new pipeline given the last 70 s.
	fresh, err := newRequestPipeline()
	if err != nil {
		t.Fatal(err)
	}
	tail := &requestStream{next: n - 70_000}
	before := liveHeap()
	var out []live.Output
	for tail.next < n {
		if out, err = tail.push(fresh, out); err != nil {
			t.Fatal(err)
		}
	}
	need := liveHeap() - before
	runtime.KeepAlive(s)
	runtime.KeepAlive(fresh)
	t.Logf("%d rows held; heap %.1f MB after %d rows, %.1f MB after %d; the held rows need %.1f MB",
		s.Len(), float64(early)/1e6, n/10, float64(late)/1e6, n, float64(need)/1e6)
	if float64(late) > 1.5*float64(early) {
		t.Errorf("heap %.1f MB after %d rows, over 1.5 × the %.1f MB after %d", float64(late)/1e6, n, float64(early)/1e6, n/10)
	}
	if float64(late) > 2*float64(need) {
		t.Errorf("heap %.1f MB after %d rows, over 2 × the %.1f MB the held rows need", float64(late)/1e6, n, float64(need)/1e6)
	}
}

// TestChurnOnWorkersHoldsFlatMemory: the same stream (hosts renamed every
// minute and dropped after 10 s idle, a new request id in every row) on
// two workers, every push's rows handed to the second between ticks, so
// that partitions are removed while their deques were filled on the other
// goroutine. The heap after 3 M rows (600,000 under -race or -short) is
// within 1.2 times the heap after 150,000 (150 s of stream: the windows,
// the root and the idle hosts' time-to-live all full).
func TestChurnOnWorkersHoldsFlatMemory(t *testing.T) {
	defer engine.SetHandOffRows(engine.SetHandOffRows(1))
	n, steady := 3_000_000, 150_000
	if raceEnabled || testing.Short() {
		n = 600_000
	}
	base := liveHeap()
	s, err := newRequestPipelineWith(2)
	require.NoError(t, err)
	defer s.Close()
	early, late := pushRequests(t, s, base, n, steady)
	runtime.KeepAlive(s)
	t.Logf("heap %.1f MB after %d rows, %.1f MB after %d", float64(early)/1e6, steady, float64(late)/1e6, n)
	assert.LessOrEqual(t, float64(late), 1.2*float64(early), "heap after %d rows against after %d", n, steady)
}

// TestReduceOverRollingHoldsFlatMemory: a reduce over a rolling, which
// holds no rows, reduces every row that ever reached it and so never
// removes one; first, last, keep and max over a new string (or a falling
// number) in every row then need one value each, not every row. The heap
// after 400,000 rows is within 1.2 times the heap after 100,000.
func TestReduceOverRollingHoldsFlatMemory(t *testing.T) {
	const n, steady = 400_000, 100_000
	base := liveHeap()
	s, err := live.New("requests", requestSchema, live.Options{MaxAge: 30 * time.Second})
	require.NoError(t, err)
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
		{Out: "last", From: "req", Using: reduce.Last},
		{Out: "n", From: "req", Using: reduce.Count},
	}}}, rolling.Options{})
	require.NoError(t, err)
	down, err := s.Map(roll, schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "last", Kind: schema.String},
		schema.Column{Name: "down", Kind: schema.Number},
	), func(in, out schema.Row) bool {
		at, _ := in[0].Time()
		out[0], out[1], out[2] = in[0], in[1], schema.NumberValue(-float64(at.UnixNano()))
		return true
	})
	require.NoError(t, err)
	red, err := s.Reduce(down, []reduce.Agg{
		{Out: "first", From: "last", Using: reduce.First},
		{Out: "last", From: "last", Using: reduce.Last},
		{Out: "keep", From: "last", Using: reduce.Keep},
		{Out: "max", From: "down", Using: reduce.Max},
	}, trigger.Event())
	require.NoError(t, err)
	require.NoError(t, s.Watch(red))
	early, late := pushRequests(t, s, base, n, steady)
	runtime.KeepAlive(s)
	t.Logf("heap %.1f MB after %d rows, %.1f MB after %d", float64(early)/1e6, steady, float64(late)/1e6, n)
	assert.LessOrEqual(t, float64(late), 1.2*float64(early), "heap after %d rows against after %d", n, steady)
}
