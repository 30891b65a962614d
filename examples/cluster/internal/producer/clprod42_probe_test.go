package producer

// Probes of the producer against a model written from the docs
// (docs/workload.md for the stream, examples/cluster/README.md for the
// transactions): a producer killed or cut off at any request of a tick's
// transaction, then restarted with the same transactional ID, leaves
// every tick in the input topic exactly once, in order, bit for bit the
// seed stream's.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/pond-go/pond/examples/cluster/internal/brokers"
	"github.com/pond-go/pond/examples/cluster/internal/events"
)

// cp42T0 is the workload's T0, 2025-01-01T00:00:00Z.
const cp42T0 = int64(1735689600000)

// cp42Event is one event as the docs define it.
type cp42Event struct {
	timeMs        int64
	host          string
	cpu, requests float64
}

// cp42Model is the stream of docs/workload.md, computed from its text:
// mulberry32 from the seed, fifteen uniforms a row, rows in tick order and
// hosts in order within a tick.
func cp42Model(hosts, rate int, t0 int64, seed uint32, ticks int) [][]cp42Event {
	a := seed
	next := func() float64 {
		a += 0x6D2B79F5
		t := a
		t = (t ^ t>>15) * (t | 1)
		t ^= t + (t^t>>7)*(t|61)
		return float64(t^t>>14) / 4294967296
	}
	out := make([][]cp42Event, ticks)
	for k := range out {
		for h := range hosts {
			var u [15]float64
			for j := range u {
				u[j] = next()
			}
			s := 0.0
			for j := range 12 {
				s += u[j]
			}
			d := 0.1 * (s - 6)
			cpu := 0.5 + d
			if u[12] < 0.01 {
				e := 0.2 * u[13]
				cpu = 0.8 + e
			}
			cpu = math.Min(1, math.Max(0, cpu))
			out[k] = append(out[k], cp42Event{
				timeMs: t0 + int64(k)*int64(1000/rate), host: fmt.Sprintf("host-%04d", h),
				cpu: cpu, requests: 70 + math.Floor(61*u[14]),
			})
		}
	}
	return out
}

// cp42Rec is one committed input record.
type cp42Rec struct {
	part   int32
	offset int64
	ev     cp42Event
}

// cp42ReadInput reads every committed record of the input topic: until it
// has at least want and then a poll finds nothing more.
func cp42ReadInput(t *testing.T, seeds []string, want int) []cp42Rec {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(brokers.Input),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var out []cp42Rec
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			cpu, req, err := events.DecodeValue(r.Value)
			require.NoError(t, err)
			out = append(out, cp42Rec{r.Partition, r.Offset, cp42Event{r.Timestamp.UnixMilli(), string(r.Key), cpu, req}})
		})
		if n == 0 && len(out) >= want {
			break
		}
	}
	return out
}

// cp42CheckExactlyOnce checks that recs are the model's ticks, each event
// once, bit for bit, and each partition's timestamps in offset order never
// going back.
func cp42CheckExactlyOnce(t *testing.T, model [][]cp42Event, recs []cp42Rec, msg string) {
	t.Helper()
	type key struct {
		host string
		t    int64
	}
	want := map[key]cp42Event{}
	for _, tk := range model {
		for _, e := range tk {
			want[key{e.host, e.timeMs}] = e
		}
	}
	got := map[key]int{}
	lastTS := map[int32]int64{}
	lastOff := map[int32]int64{}
	for _, r := range recs {
		k := key{r.ev.host, r.ev.timeMs}
		got[k]++
		if got[k] == 2 {
			t.Errorf("%s: event %v committed twice", msg, k)
		}
		w, ok := want[k]
		if !ok {
			t.Errorf("%s: event %v is not in the stream", msg, k)
			continue
		}
		if math.Float64bits(w.cpu) != math.Float64bits(r.ev.cpu) || w.requests != r.ev.requests {
			t.Errorf("%s: event %v is (%v, %v), the stream's is (%v, %v)", msg, k, r.ev.cpu, r.ev.requests, w.cpu, w.requests)
		}
		if o, ok := lastOff[r.part]; ok {
			require.Greater(t, r.offset, o, "%s: records read in offset order", msg)
			if r.ev.timeMs < lastTS[r.part] {
				t.Errorf("%s: partition %d goes back in time at offset %d: %d after %d", msg, r.part, r.offset, r.ev.timeMs, lastTS[r.part])
			}
		}
		lastOff[r.part], lastTS[r.part] = r.offset, r.ev.timeMs
	}
	missing := 0
	for k := range want {
		if got[k] == 0 {
			missing++
			if missing <= 3 {
				t.Errorf("%s: event %v never committed", msg, k)
			}
		}
	}
	assert.Zero(t, missing, "%s: events never committed", msg)
}

// TestCp42TheModelIsTheProducersStream: the independent model and the
// producer's stream agree tick for tick, from any starting tick.
func TestCp42TheModelIsTheProducersStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for c := range 20 {
		hosts, rate := 1+rng.IntN(12), []int{1, 2, 4, 5, 8, 10, 100, 1000}[rng.IntN(8)]
		seed := rng.Uint32()
		if c == 0 {
			hosts, rate, seed = 8, 10, 42
		}
		model := cp42Model(hosts, rate, cp42T0, seed, 40)
		st, err := events.NewStream(hosts, rate, cp42T0, seed)
		require.NoError(t, err)
		for _, k := range []int64{0, 1, int64(rng.IntN(40)), 39} {
			evs := st.Tick(nil, k)
			require.Len(t, evs, hosts)
			for h, e := range evs {
				w := model[k][h]
				require.Equal(t, w.timeMs, e.TimeMs)
				require.Equal(t, w.host, e.Host)
				require.Equal(t, math.Float64bits(w.cpu), math.Float64bits(e.CPU), "case %d tick %d host %d", c, k, h)
				require.Equal(t, w.requests, e.Requests)
				v := events.AppendValue(nil, &e)
				cpu, req, err := events.DecodeValue(v)
				require.NoError(t, err)
				require.Equal(t, math.Float64bits(e.CPU), math.Float64bits(cpu))
				require.Equal(t, e.Requests, req)
			}
		}
	}
}

// cp42Kinds are the requests of a tick's transaction a fault is put on
// (the client registers partitions with its produce requests, KIP-890, so
// no AddPartitionsToTxn is sent).
var cp42Kinds = []struct {
	name string
	key  int16
}{
	{"Produce", kmsg.Produce.Int16()},
	{"EndTxn", kmsg.EndTxn.Int16()},
}

// TestCp42AProducerCutAtAnyPointOfATickIsReplacedExactlyOnce: for seeded
// crash points (the n-th Produce or EndTxn of the run), the producer is
// killed there (its request's connection cut, the client closed), or left
// running as a zombie while a successor with the same transactional ID
// starts, or (EndTxn) answered with a broker error, so that its Run fails.
// Each time the successor fences it, finds the last committed tick and
// goes on: the topic holds the stream's ticks 0..N−1, each event once,
// bit for bit.
func TestCp42AProducerCutAtAnyPointOfATickIsReplacedExactlyOnce(t *testing.T) {
	const hosts, rate, ticks = 5, 100, 12
	model := cp42Model(hosts, rate, cp42T0, 42, ticks)
	rng := rand.New(rand.NewPCG(42, 2))
	for c := range 8 {
		kind := cp42Kinds[rng.IntN(len(cp42Kinds))]
		// From the second request on: a fault in the first tick leaves
		// partitions holding only aborted records, and the successor's
		// LastCommittedTime then reads until its 30 s deadline (correct,
		// but too slow for this file).
		nth := int32(2 + rng.IntN(ticks-1))
		mode := []string{"kill", "zombie", "error"}[rng.IntN(3)]
		if mode == "error" && kind.name != "EndTxn" {
			mode = "kill"
		}
		name := fmt.Sprintf("case%d-%s-%d-%s", c, kind.name, nth, mode)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cl, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, brokers.Input))
			require.NoError(t, err)
			defer cl.Close()
			seeds := cl.ListenAddrs()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			st, err := events.NewStream(hosts, rate, cp42T0, 42)
			require.NoError(t, err)

			first, err := New(ctx, Config{Brokers: seeds, Stream: st, Ticks: ticks, TxnID: "cp42"})
			require.NoError(t, err)
			hit := make(chan struct{})
			var seen atomic.Int32
			cl.ControlKey(kind.key, func(req kmsg.Request) (kmsg.Response, error, bool) {
				cl.KeepControl()
				if seen.Add(1) != nth {
					return nil, nil, false
				}
				close(hit)
				switch mode {
				case "kill":
					go first.Kill()
					return nil, errors.New("cp42: connection cut"), true
				case "error":
					resp := req.ResponseKind().(*kmsg.EndTxnResponse)
					resp.ErrorCode = kerr.UnknownServerError.Code
					return resp, nil, true
				}
				return nil, nil, false
			})
			firstDone := make(chan error, 1)
			go func() { firstDone <- first.Run(ctx) }()
			select {
			case <-hit:
			case err := <-firstDone:
				require.NoError(t, err)
				t.Fatalf("%s: the run made %d such requests, the fault was for the %dth", name, seen.Load(), nth)
			}
			second, err := New(ctx, Config{Brokers: seeds, Stream: st, Ticks: ticks, TxnID: "cp42"})
			require.NoError(t, err)
			require.NoError(t, second.Run(ctx))
			<-firstDone // killed, fenced or done; its error is not the point
			recs := cp42ReadInput(t, seeds, ticks*hosts)
			cp42CheckExactlyOnce(t, model, recs, name)
			assert.Len(t, recs, ticks*hosts, "%s: one record per event", name)
		})
	}
}

// TestCp42ARestartWithAnotherStreamNeverGoesBack: a producer restarted
// with other hosts, rate or seed (the same T0 and transactional ID) goes
// on after the last committed event time: nothing it sends is at or
// before a time already committed, its events are its own stream's ticks
// from the one after that time, and no partition's timestamps go back.
func TestCp42ARestartWithAnotherStreamNeverGoesBack(t *testing.T) {
	rates := []int{1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000}
	rng := rand.New(rand.NewPCG(42, 3))
	for c := range 4 {
		h1, r1, s1 := 1+rng.IntN(6), rates[rng.IntN(len(rates))], rng.Uint32()
		h2, r2, s2 := 1+rng.IntN(6), rates[rng.IntN(len(rates))], rng.Uint32()
		n1 := 1 + rng.IntN(8)
		name := fmt.Sprintf("case%d-%dx%d-then-%dx%d", c, h1, r1, h2, r2)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cl, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, brokers.Input))
			require.NoError(t, err)
			defer cl.Close()
			seeds := cl.ListenAddrs()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			st1, err := events.NewStream(h1, r1, cp42T0, s1)
			require.NoError(t, err)
			p1, err := New(ctx, Config{Brokers: seeds, Stream: st1, Ticks: int64(n1), TxnID: "cp42"})
			require.NoError(t, err)
			require.NoError(t, p1.Run(ctx))
			lastMs := cp42T0 + int64(n1-1)*int64(1000/r1)

			st2, err := events.NewStream(h2, r2, cp42T0, s2)
			require.NoError(t, err)
			// The second stream's first tick after lastMs.
			k0 := (lastMs-cp42T0)/int64(1000/r2) + 1
			const more = 5
			p2, err := New(ctx, Config{Brokers: seeds, Stream: st2, Ticks: k0 + more, TxnID: "cp42"})
			require.NoError(t, err)
			assert.Equal(t, k0, p2.Stats().NextTick, "goes on after the last committed time")
			require.NoError(t, p2.Run(ctx))

			recs := cp42ReadInput(t, seeds, n1*h1+more*h2)
			m1 := cp42Model(h1, r1, cp42T0, s1, n1)
			m2 := cp42Model(h2, r2, cp42T0, s2, int(k0)+more)[k0:]
			cp42CheckExactlyOnce(t, append(m1, m2...), recs, name)
		})
	}
}
