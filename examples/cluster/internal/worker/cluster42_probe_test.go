package worker_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/cluster/internal/worker"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// cl42T0 is the event time the probes' streams start at.
var cl42T0 = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// cl42Rec is one input record: its partition, key (the host), timestamp
// (event time, ms) and value.
type cl42Rec struct {
	part  int32
	key   string
	ms    int64
	value []byte
}

func cl42Value(cpu, requests float64) []byte {
	return events.AppendValue(nil, &events.Event{CPU: cpu, Requests: requests})
}

// cl42Env is a kfake cluster of one broker with the topics created, the
// records produced so far and the ends of each input partition.
type cl42Env struct {
	c      *kfake.Cluster
	seeds  []string
	cl     *kgo.Client // manual partitioner
	adm    *kadm.Client
	mu     sync.Mutex
	byPart map[int32][]cl42Rec // committed input, in offset order
	ends   map[int32]int64     // next offset of each input partition
}

func cl42Start(ctx context.Context, t *testing.T, partitions int32, opts ...kfake.Opt) *cl42Env {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.GroupMinSessionTimeout(100 * time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	seeds := c.ListenAddrs()
	require.NoError(t, brokers.CreateTopics(ctx, seeds, partitions))
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return &cl42Env{c: c, seeds: seeds, cl: cl, adm: kadm.NewClient(cl), byPart: map[int32][]cl42Rec{}, ends: map[int32]int64{}}
}

// produce writes recs (each to its own partition) in one ProduceSync and
// notes what was written.
func (e *cl42Env) produce(ctx context.Context, t *testing.T, recs []cl42Rec) {
	t.Helper()
	if len(recs) == 0 {
		return
	}
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: brokers.Input, Partition: r.part, Key: []byte(r.key), Value: r.value, Timestamp: time.UnixMilli(r.ms)}
	}
	res := e.cl.ProduceSync(ctx, krs...)
	require.NoError(t, res.FirstErr())
	e.mu.Lock()
	defer e.mu.Unlock()
	// The results come in no set order: place each record by its offset.
	type placed struct {
		off int64
		rec cl42Rec
	}
	byPart := map[int32][]placed{}
	for _, pr := range res {
		r := pr.Record
		byPart[r.Partition] = append(byPart[r.Partition], placed{r.Offset, cl42Rec{part: r.Partition, key: string(r.Key), ms: r.Timestamp.UnixMilli(), value: r.Value}})
		e.ends[r.Partition] = max(e.ends[r.Partition], r.Offset+1)
	}
	for p, ps := range byPart {
		slices.SortFunc(ps, func(a, b placed) int { return int(a.off - b.off) })
		for _, x := range ps {
			e.byPart[p] = append(e.byPart[p], x.rec)
		}
	}
}

// waitCommitted waits until every input partition's committed offset has
// reached what was produced to it.
func (e *cl42Env) waitCommitted(ctx context.Context, t *testing.T, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(cl42Slack * within)
	for {
		cps, err := worker.ReadCheckpoints(ctx, e.adm)
		require.NoError(t, err)
		e.mu.Lock()
		behind := map[int32][2]int64{}
		for p, end := range e.ends {
			if cps[p].Offset < end {
				behind[p] = [2]int64{cps[p].Offset, end}
			}
		}
		e.mu.Unlock()
		if len(behind) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the committed offsets are behind (committed, end): %v", cl42Slack*within, behind)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cl42Slack multiplies every wait for a commit or a stable group: on a
// loaded machine under -race the embedded cluster can leave a JoinGroup
// unanswered until the client's request timeout (about 11 s at these
// session and rebalance timeouts) before the member joins again, and a
// 600 ms session churns the group besides (seen in six concurrent runs
// of this package on two cores). A wait that succeeds costs no more for
// it; the tests' contexts allow for it.
const cl42Slack = 3

// cl42Out is one committed output record.
type cl42Out struct {
	part    int32 // the output partition
	key     string
	headers map[string]string
	row     rows.Row
}

// readOutput reads every committed output record of every output
// partition, up to a marker record of its own in each.
func (e *cl42Env) readOutput(ctx context.Context, t *testing.T, partitions int32) []cl42Out {
	t.Helper()
	marks := map[int32]int64{}
	for p := range partitions {
		pr, err := e.cl.ProduceSync(ctx, &kgo.Record{Topic: brokers.Output, Partition: p, Key: []byte("cl42-end")}).First()
		require.NoError(t, err)
		marks[p] = pr.Offset
	}
	rd, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.ConsumeTopics(brokers.Output),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer rd.Close()
	var out []cl42Out
	for len(marks) > 0 {
		fs := rd.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "reading the output")
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := marks[r.Partition]
			if !ok {
				return
			}
			if r.Offset >= end {
				delete(marks, r.Partition)
				return
			}
			o := cl42Out{part: r.Partition, key: string(r.Key), headers: map[string]string{}}
			for _, h := range r.Headers {
				o.headers[h.Key] = string(h.Value)
			}
			row, err := rows.Decode(r.Value)
			require.NoError(t, err, "%q", r.Value)
			o.row = row
			out = append(out, o)
		})
	}
	return out
}

// cl42Killable is a dialer whose connections can all be cut at once,
// refusing new ones after: a crash as the broker sees it; and whose
// writes can be held for a while: a process paused.
type cl42Killable struct {
	mu        sync.Mutex
	dead      bool
	conns     []net.Conn
	holdUntil time.Time
}

// hold delays every write from now on until d has passed.
func (k *cl42Killable) hold(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.holdUntil = time.Now().Add(d)
}

// cl42Conn is a connection of a cl42Killable.
type cl42Conn struct {
	net.Conn
	k *cl42Killable
}

func (c cl42Conn) Write(b []byte) (int, error) {
	c.k.mu.Lock()
	until := c.k.holdUntil
	c.k.mu.Unlock()
	time.Sleep(time.Until(until))
	return c.Conn.Write(b)
}

func (k *cl42Killable) dial(ctx context.Context, network, host string) (net.Conn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return nil, fmt.Errorf("cl42: killed")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	k.conns = append(k.conns, c)
	return cl42Conn{c, k}, nil
}

func (k *cl42Killable) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead = true
	for _, c := range k.conns {
		c.Close()
	}
}

// cl42Worker is a worker running in a probe.
type cl42Worker struct {
	w      *worker.Worker
	ks     *cl42Killable
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

func cl42Run(t *testing.T, e *cl42Env, id string, edit func(*worker.Config)) *cl42Worker {
	t.Helper()
	ks := &cl42Killable{}
	cfg := worker.Config{
		Brokers: e.seeds, ID: id,
		SessionTimeout: 600 * time.Millisecond, RebalanceTimeout: 1200 * time.Millisecond, TransactionTimeout: 4 * time.Second,
		Opts: []kgo.Opt{kgo.Dialer(ks.dial)},
	}
	if edit != nil {
		edit(&cfg)
	}
	w, err := worker.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	rw := &cl42Worker{w: w, ks: ks, cancel: cancel, done: make(chan error, 1)}
	go func() { rw.done <- w.Run(ctx) }()
	t.Cleanup(func() { rw.stop(t) })
	return rw
}

// stop ends the worker cleanly (it leaves the group) and returns Run's
// error.
func (rw *cl42Worker) stop(t *testing.T) error {
	t.Helper()
	rw.once.Do(func() {
		rw.cancel()
		select {
		case rw.err = <-rw.done:
		case <-time.After(15 * time.Second):
			t.Errorf("cl42: a worker did not stop")
		}
		rw.w.Close()
	})
	return rw.err
}

// crash cuts the worker off (no LeaveGroup, no EndTxn), then stops it.
func (rw *cl42Worker) crash(t *testing.T) {
	t.Helper()
	rw.ks.kill()
	_ = rw.stop(t)
}

// cl42WaitGroup waits until the group is stable with members members
// and every worker of ws is ready (each assigned partition replayed), or
// fails after within.
func cl42WaitGroup(ctx context.Context, t *testing.T, e *cl42Env, ws []*cl42Worker, members int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(cl42Slack * within)
	for {
		dg, err := e.adm.DescribeGroups(ctx, brokers.Group)
		require.NoError(t, err)
		g := dg[brokers.Group]
		assigned := 0
		for _, m := range g.Members {
			if a, ok := m.Assigned.AsConsumer(); ok {
				for _, tp := range a.Topics {
					assigned += len(tp.Partitions)
				}
			}
		}
		ready := true
		for _, w := range ws {
			ready = ready && w.w.Ready()
		}
		if g.State == "Stable" && len(g.Members) == members && ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group is not stable with %d members after %v: state %s, %d members, %d partitions assigned", members, cl42Slack*within, g.State, len(g.Members), assigned)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cl42ModelRow is a row as the README describes it: host h at boundary b
// (a multiple of 200 ms) covers h's accepted events with b − 1m ≤ t < b,
// its samples those with b − 200 ms ≤ t < b; it exists when that window
// holds an event and the partition has accepted an event with t ≥ b.
type cl42ModelRow struct {
	n              int64
	cpuAvg, reqSum float64
	samples        []float64
}

type cl42Ev struct {
	ms       int64
	cpu, req float64
}

// cl42Model returns the rows of one partition's records, in offset
// order, by the README's rules (left out: a value that is not 16 bytes
// of two finite numbers, a key over 256 bytes, a time before 1970 or
// after 2116, a time older than the latest accepted), and how many it
// left out.
func cl42Model(recs []cl42Rec) (map[rows.Key]cl42ModelRow, int) {
	const maxMs = (1<<62 - 1) / int64(time.Millisecond)
	const step, long = 200, 60_000
	evs := map[string][]cl42Ev{}
	latest, any := int64(0), false
	left := 0
	for _, r := range recs {
		cpu, req, err := events.DecodeValue(r.value)
		if err != nil || math.IsNaN(cpu) || math.IsInf(cpu, 0) || math.IsNaN(req) || math.IsInf(req, 0) ||
			len(r.key) > 256 || r.ms < 0 || r.ms > maxMs || (any && r.ms < latest) {
			left++
			continue
		}
		latest, any = r.ms, true
		evs[r.key] = append(evs[r.key], cl42Ev{r.ms, cpu, req})
	}
	out := map[rows.Key]cl42ModelRow{}
	for h, es := range evs {
		// Every boundary whose 1m window may hold one of h's events.
		bs := map[int64]bool{}
		for _, ev := range es {
			first := (ev.ms/step + 1) * step
			for b := first; b <= ev.ms+long && b <= latest; b += step {
				bs[b] = true
			}
		}
		for b := range bs {
			lo := sort.Search(len(es), func(i int) bool { return es[i].ms >= b-long })
			hi := sort.Search(len(es), func(i int) bool { return es[i].ms >= b })
			if lo == hi {
				continue
			}
			var m cl42ModelRow
			for _, ev := range es[lo:hi] {
				m.n++
				m.cpuAvg += ev.cpu
				m.reqSum += ev.req
				if ev.ms >= b-step {
					m.samples = append(m.samples, ev.cpu)
				}
			}
			m.cpuAvg /= float64(m.n)
			out[rows.Key{Host: h, BoundaryMs: b}] = m
		}
	}
	return out, left
}

// cl42Check compares the committed output with the model of each
// partition's input: every row once, with the partition of its host's
// records in pond-partition, and the model's counts, mean, sum and
// samples.
func cl42Check(t *testing.T, e *cl42Env, out []cl42Out) {
	t.Helper()
	require.NoError(t, cl42Diff(e, out))
}

// cl42Diff is cl42Check's comparison; it returns the first few
// differences.
func cl42Diff(e *cl42Env, out []cl42Out) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	want := map[string]map[rows.Key]cl42ModelRow{}
	for p, recs := range e.byPart {
		want[strconv.Itoa(int(p))], _ = cl42Model(recs)
	}
	var errs []string
	bad := func(f string, a ...any) {
		if len(errs) < 8 {
			errs = append(errs, fmt.Sprintf(f, a...))
		}
	}
	seen := map[string]map[rows.Key]bool{}
	for _, o := range out {
		p := o.headers[rows.HeaderPartition]
		k := o.row.Key()
		if seen[p] == nil {
			seen[p] = map[rows.Key]bool{}
		}
		if seen[p][k] {
			bad("partition %s: (%s, %d) written twice", p, k.Host, k.BoundaryMs)
			continue
		}
		seen[p][k] = true
		if o.key != k.Host || o.headers[rows.HeaderBoundary] != strconv.FormatInt(k.BoundaryMs, 10) {
			bad("record key %q / header %q for row (%s, %d)", o.key, o.headers[rows.HeaderBoundary], k.Host, k.BoundaryMs)
		}
		m, ok := want[p][k]
		if !ok {
			bad("partition %s: (%s, %d) is no row of the model (n=%d)", p, k.Host, k.BoundaryMs, o.row.CPUN)
			continue
		}
		r := o.row
		if r.CPUN != m.n || r.RequestsN != m.n || !cl42Near(m.cpuAvg, r.CPUAvg) || !cl42Near(m.reqSum, r.RequestsSum) ||
			!slices.Equal(m.samples, r.CPUSamples) && !(len(m.samples) == 0 && len(r.CPUSamples) == 0) {
			bad("partition %s: (%s, %d): n=%d avg=%v sum=%v samples=%v, want n=%d avg=%v sum=%v samples=%v", p, k.Host, k.BoundaryMs,
				r.CPUN, r.CPUAvg, r.RequestsSum, r.CPUSamples, m.n, m.cpuAvg, m.reqSum, m.samples)
		}
	}
	missing := 0
	for p, ws := range want {
		for k := range ws {
			if !seen[p][k] {
				if missing == 0 {
					bad("partition %s: row (%s, %d) missing", p, k.Host, k.BoundaryMs)
				}
				missing++
			}
		}
	}
	if missing > 0 {
		bad("%d rows missing in all", missing)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d output records against the model:\n%s", len(out), fmt.Sprint(errs))
	}
	return nil
}

func cl42Near(want, got float64) bool {
	return math.Abs(want-got) <= 1e-9*math.Max(1, math.Max(math.Abs(want), math.Abs(got)))
}

// cl42Stream returns the records of hosts (host i in partition i mod
// parts) for event times [fromMs, toMs) every everyMs, with values from
// rng.
func cl42Stream(rng *rand.Rand, parts int32, hosts int, fromMs, toMs, everyMs int64) []cl42Rec {
	var recs []cl42Rec
	for ms := fromMs; ms < toMs; ms += everyMs {
		for h := range hosts {
			recs = append(recs, cl42Rec{part: int32(h) % parts, key: "cl42-h" + strconv.Itoa(h), ms: ms,
				value: cl42Value(float64(rng.IntN(1000))/1000, float64(rng.IntN(50)))})
		}
	}
	return recs
}

// cl42TxnID returns the transactional ID of a request of a transaction's
// stages ("" for another).
func cl42TxnID(req kmsg.Request) string {
	switch r := req.(type) {
	case *kmsg.ProduceRequest:
		if r.TransactionID != nil {
			return *r.TransactionID
		}
	case *kmsg.AddPartitionsToTxnRequest:
		if r.TransactionalID != "" {
			return r.TransactionalID
		}
		for _, x := range r.Transactions {
			return x.TransactionalID
		}
	case *kmsg.AddOffsetsToTxnRequest:
		return r.TransactionalID
	case *kmsg.TxnOffsetCommitRequest:
		return r.TransactionalID
	case *kmsg.EndTxnRequest:
		return r.TransactionalID
	}
	return ""
}

// cl42Stage is a point of a transaction where a worker crashes: on the
// n-th request of kind key of its transactions, before the broker handles
// it, or (after) just after the broker has handled it.
type cl42Stage struct {
	name  string
	key   kmsg.Key
	after bool
}

// (The embedded cluster runs transactions under KIP-890 part 2: a
// produce request adds its partitions to the transaction and the offset
// commit adds the group, so no AddPartitionsToTxn or AddOffsetsToTxn is
// sent.)
var cl42Stages = []cl42Stage{
	{"while its rows are produced", kmsg.Produce, false},
	{"while its offsets and checkpoint are committed (TxnOffsetCommit)", kmsg.TxnOffsetCommit, false},
	{"after its offsets and checkpoint, before the commit (EndTxn)", kmsg.EndTxn, false},
	{"just after the commit (EndTxn handled)", kmsg.EndTxn, true},
}

// crashAt has victim crash at the n-th request of the stage's kind of its
// transactions (transactional ID txnID); crashed is closed once it has.
func (e *cl42Env) crashAt(st cl42Stage, n int, txnID string, victim *cl42Killable) (crashed chan struct{}) {
	crashed = make(chan struct{})
	seen := 0
	e.c.ControlKey(int16(st.key), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if cl42TxnID(req) != txnID {
			return nil, nil, false
		}
		if seen++; seen < n {
			return nil, nil, false
		}
		e.c.DropControl()
		if st.after {
			go func() {
				time.Sleep(time.Millisecond)
				victim.kill()
				close(crashed)
			}()
			return nil, nil, false
		}
		victim.kill()
		close(crashed)
		return nil, errors.New("cl42: crashed"), true
	})
	return crashed
}

// TestCl42ACrashAtAnyStageOfATransactionLosesAndRepeatsNothing: a worker
// is cut off (no LeaveGroup, no EndTxn) at each stage of one of its
// transactions, at a seeded random transaction, with small seeded polls
// over two partitions; then either it restarts with the same ID (which
// fences its open transaction at once, README) or another worker takes
// its partitions over (waiting out the transaction timeout). The input
// goes on. The committed output is the model's rows of each partition's
// records, each once (README: "no row lost or repeated").
func TestCl42ACrashAtAnyStageOfATransactionLosesAndRepeatsNothing(t *testing.T) {
	t.Parallel()
	for i, st := range cl42Stages {
		// Half the stages each way (another ID waits out the timeout).
		for _, sameID := range []bool{i%2 == 0} {
			t.Run(fmt.Sprintf("%s/same-id=%v", st.name, sameID), func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
				defer cancel()
				rng := rand.New(rand.NewPCG(42, uint64(i)))
				e := cl42Start(ctx, t, 2)
				poll := 30 + rng.IntN(60)
				small := func(c *worker.Config) { c.MaxPollRecords = poll; c.TransactionTimeout = 2 * time.Second }
				a := cl42Run(t, e, "a", small)
				crashed := e.crashAt(st, 2+rng.IntN(3), "pond-worker-a", a.ks)
				e.produce(ctx, t, cl42Stream(rng, 2, 6, cl42T0, cl42T0+8_000, 100))
				select {
				case <-crashed:
				case <-time.After(20 * time.Second):
					t.Fatalf("the worker did not reach the stage: %+v", a.w.Stats())
				}
				go a.crash(t) // its Run may wait out its own transaction's timeout
				next := "b"
				if sameID {
					next = "a"
				}
				e.produce(ctx, t, cl42Stream(rng, 2, 6, cl42T0+8_000, cl42T0+12_000, 100))
				b := cl42Run(t, e, next, small)
				e.produce(ctx, t, cl42Stream(rng, 2, 6, cl42T0+12_000, cl42T0+16_000, 100))
				e.waitCommitted(ctx, t, 25*time.Second)
				require.NoError(t, b.stop(t))
				st := b.w.Stats()
				require.Zero(t, st.Suppressed, "README: rows_suppressed stays 0")
				cl42Check(t, e, e.readOutput(ctx, t, 2))
			})
		}
	}
}

// cl42Mixed returns records of every partition but the last (left
// empty) for event times [fromMs, toMs): three hosts a partition, each
// partition's events at the same times as the others', with duplicates,
// records older than their partition's latest, values that do not decode
// or are not finite, and keys over 256 bytes mixed in.
func cl42Mixed(rng *rand.Rand, parts int32, fromMs, toMs int64) []cl42Rec {
	var recs []cl42Rec
	last := map[int32]cl42Rec{}
	for ms := fromMs; ms < toMs; ms += 100 {
		for p := range max(parts-1, 1) {
			for h := range 3 {
				r := cl42Rec{part: p, key: fmt.Sprintf("cl42-p%d-h%d", p, h), ms: ms, value: cl42Value(float64(rng.IntN(1000))/1000, float64(rng.IntN(9)))}
				switch x := rng.IntN(100); {
				case x < 4:
					if prev, ok := last[p]; ok {
						r = prev // the same record again
					}
				case x < 8:
					r.ms -= 1 + int64(rng.IntN(5000)) // older than the latest
				case x < 10:
					r.value = r.value[:rng.IntN(16)]
				case x < 12:
					r.value = append(r.value, 0)
				case x < 13:
					r.value = cl42Value(math.NaN(), 1)
				case x < 14:
					r.key = strings.Repeat("k", 257)
				}
				last[p] = r
				recs = append(recs, r)
			}
		}
	}
	return recs
}

// TestCl42PartitionsWorkersQuietAndBurst: input topics with more
// partitions than workers (one partition never written) and with fewer,
// every partition's events at the same times, duplicates, late records
// and values that do not decode; a worker leaves and another joins; then
// the input goes quiet for two minutes of event time (every host leaves)
// and comes back with a burst of one host, 3,000 events in one
// millisecond. The output is the model's rows of each partition, each
// once, and the workers count each left-out record once.
func TestCl42PartitionsWorkersQuietAndBurst(t *testing.T) {
	t.Parallel()
	for _, parts := range []int32{5, 1} {
		t.Run(fmt.Sprintf("partitions=%d", parts), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
			defer cancel()
			rng := rand.New(rand.NewPCG(42, uint64(parts)))
			e := cl42Start(ctx, t, parts)
			poll := func(c *worker.Config) { c.MaxPollRecords = 100 + rng.IntN(400) }
			ws := []*cl42Worker{cl42Run(t, e, "w0", poll), cl42Run(t, e, "w1", poll), cl42Run(t, e, "w2", poll)}
			e.produce(ctx, t, cl42Mixed(rng, parts, cl42T0, cl42T0+6_000))
			e.waitCommitted(ctx, t, 20*time.Second)
			require.NoError(t, ws[0].stop(t))
			ws = append(ws, cl42Run(t, e, "w3", poll))
			e.produce(ctx, t, cl42Mixed(rng, parts, cl42T0+6_000, cl42T0+9_000))
			e.waitCommitted(ctx, t, 20*time.Second)

			quiet := cl42T0 + 9_000 + 120_000
			var burst []cl42Rec
			for i := range 3000 {
				burst = append(burst, cl42Rec{part: 0, key: "cl42-burst", ms: quiet, value: cl42Value(float64(i%10)/10, 1)})
			}
			e.produce(ctx, t, burst)
			e.produce(ctx, t, cl42Mixed(rng, parts, quiet, quiet+2_000))
			e.waitCommitted(ctx, t, 20*time.Second)
			var leftOut uint64
			for _, w := range ws {
				require.NoError(t, w.stop(t))
				st := w.w.Stats()
				leftOut += st.LeftOut
				require.Zero(t, st.Suppressed, "README: rows_suppressed stays 0")
			}
			left := 0
			for _, recs := range e.byPart {
				_, l := cl42Model(recs)
				left += l
			}
			require.NotZero(t, left)
			require.EqualValues(t, left, leftOut, "each left-out record counted once")
			out := e.readOutput(ctx, t, parts)
			cl42Check(t, e, out)
			burstRows := 0
			for _, o := range out {
				if o.key == "cl42-burst" {
					burstRows++
					require.EqualValues(t, 3000, o.row.CPUN)
				}
			}
			require.NotZero(t, burstRows)
		})
	}
}

// TestCl42RebalancesWhileATransactionIsOpen: worker A's requests after
// an offset commit are held for a while, and meanwhile worker B joins the group
// (taking some of A's partitions), then leaves it (giving them back), the
// input going on: partitions move back and forth with A's
// transaction open each time. The output is the model's rows of each
// partition, each once.
func TestCl42RebalancesWhileATransactionIsOpen(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	rng := rand.New(rand.NewPCG(42, 4))
	e := cl42Start(ctx, t, 3)
	// A session timeout well above the hold: A's heartbeats wait with its
	// other writes, and under a loaded -race run a 600 ms session made
	// the group churn for the whole test instead of at B's moves.
	steady := func(c *worker.Config) { c.SessionTimeout, c.RebalanceTimeout = 2*time.Second, 4*time.Second }
	a := cl42Run(t, e, "a", steady)
	var b *cl42Worker
	from := cl42T0
	for round := range 2 {
		held := make(chan struct{})
		var once sync.Once
		e.c.ControlKey(int16(kmsg.TxnOffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
			if cl42TxnID(req) != "pond-worker-a" {
				return nil, nil, false
			}
			e.c.DropControl()
			// A's writes after this one (its heartbeat, its EndTxn)
			// wait while B joins or leaves.
			a.ks.hold(400 * time.Millisecond)
			once.Do(func() { close(held) })
			return nil, nil, false
		})
		e.produce(ctx, t, cl42Stream(rng, 3, 9, from, from+3_000, 100))
		from += 3_000
		// A may hold no partition with input left when the rows come (a
		// loaded machine can drop it from the group for a while, and B
		// take everything): the input goes on until A commits.
		for waited := 0; ; waited++ {
			select {
			case <-held:
			case <-time.After(5 * time.Second):
				if waited < 12 {
					e.produce(ctx, t, cl42Stream(rng, 3, 9, from, from+500, 100))
					from += 500
					continue
				}
				t.Fatalf("round %d: A committed no offsets: A %s; B %s", round, cl42Brief(a), cl42Brief(b))
			}
			break
		}
		if round%2 == 0 {
			b = cl42Run(t, e, "b", steady)
		} else {
			require.NoError(t, b.stop(t))
		}
		e.produce(ctx, t, cl42Stream(rng, 3, 9, from, from+1_000, 100))
		from += 1_000
		e.waitCommitted(ctx, t, 45*time.Second)
	}
	require.NoError(t, a.stop(t))
	st := a.w.Stats()
	t.Logf("A: %d rebalances, %d aborted, %d replays", st.Rebalances, st.AbortedTxns, st.Replays)
	require.Zero(t, st.Suppressed)
	cl42Check(t, e, e.readOutput(ctx, t, 3))
}

// TestCl42AWorkerWhoseTransactionCannotEndRestartsItsSession: worker A's
// writes are held for longer than its transaction timeout just after it
// sends an offset commit (a process paused, a broker that does not
// answer a join): its End gives up. The worker replaces its session
// instead of stopping the process, rebuilds its partitions from their
// checkpoints and goes on; the output is the model's rows of each
// partition, each once.
func TestCl42AWorkerWhoseTransactionCannotEndRestartsItsSession(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	rng := rand.New(rand.NewPCG(42, 7))
	e := cl42Start(ctx, t, 2)
	a := cl42Run(t, e, "a", func(c *worker.Config) {
		c.TransactionTimeout = 2 * time.Second
		c.Logger = cl42Log(t)
	})
	held := make(chan struct{})
	e.c.ControlKey(int16(kmsg.TxnOffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if cl42TxnID(req) != "pond-worker-a" {
			return nil, nil, false
		}
		e.c.DropControl()
		a.ks.hold(5 * time.Second) // past the transaction timeout
		close(held)
		return nil, nil, false
	})
	e.produce(ctx, t, cl42Stream(rng, 2, 6, cl42T0, cl42T0+3_000, 100))
	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatalf("A committed no offsets: %s", cl42Brief(a))
	}
	e.produce(ctx, t, cl42Stream(rng, 2, 6, cl42T0+3_000, cl42T0+6_000, 100))
	e.waitCommitted(ctx, t, 60*time.Second)
	require.NoError(t, a.stop(t), "the worker stopped instead of restarting its session")
	st := a.w.Stats()
	t.Logf("A: %d restarts, %d rebalances, %d aborted, %d replays", st.Restarts, st.Rebalances, st.AbortedTxns, st.Replays)
	require.GreaterOrEqual(t, st.Restarts, uint64(1))
	require.Zero(t, st.Suppressed)
	cl42Check(t, e, e.readOutput(ctx, t, 2))
}

// cl42Brief describes a worker's state for a failure message.
func cl42Brief(w *cl42Worker) string {
	if w == nil {
		return "not started"
	}
	st := w.w.Stats()
	state := "running"
	select {
	case err := <-w.done:
		state = fmt.Sprintf("Run returned %v", err)
		w.done <- err
	default:
	}
	return fmt.Sprintf("%s: assigned %v, ready %v, %d rebalances, %d restarts, %d committed, %d aborted, %d replays",
		state, st.Assigned, st.Ready, st.Rebalances, st.Restarts, st.CommittedTxns, st.AbortedTxns, st.Replays)
}

// cl42Log returns a logger whose lines the test prints if it fails.
func cl42Log(t *testing.T) *slog.Logger {
	var (
		mu  sync.Mutex
		buf strings.Builder
	)
	t.Cleanup(func() {
		if t.Failed() {
			mu.Lock()
			t.Logf("the worker's log:\n%s", buf.String())
			mu.Unlock()
		}
	})
	return slog.New(slog.NewTextHandler(cl42Writer(func(p []byte) {
		mu.Lock()
		buf.Write(p)
		mu.Unlock()
	}), &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// cl42Writer is an io.Writer that passes each write to a function.
type cl42Writer func([]byte)

func (f cl42Writer) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
}
