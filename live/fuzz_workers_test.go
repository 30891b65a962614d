package live_test

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// hostsSchema is the schema of FuzzWorkersManyHosts: a time, a number and
// the two keys it is partitioned by, a host's name or its number (which
// may be missing).
var hostsSchema = schema.MustNew(
	schema.Column{Name: "time", Kind: schema.Time},
	schema.Column{Name: "cpu", Kind: schema.Number},
	schema.Column{Name: "host", Kind: schema.String},
	schema.Column{Name: "zone", Kind: schema.Number, Optional: true},
)

// buildHostsSeries builds FuzzWorkersManyHosts' pipeline on a series of
// the given workers: partitioned by host, a rolling on a 500 ms clock
// with a 2 s window of the moments and extremes and a 500 ms window of
// the samples, the last host and the count. cfg's bits choose: aligned
// windows (0), reorder with a 1 s grace (1) or else drop ordering (4),
// idle hosts dropped after 3 s (2), at most 16 hosts (3), a root kept to
// 50 rows rather than 10 s (5), hosts keyed by number rather than by
// name (6). It returns the series and the rolling.
func buildHostsSeries(cfg byte, workers int) (*live.Series, live.NodeID, error) {
	opts := live.Options{MaxAge: 10 * time.Second, Workers: workers}
	switch {
	case cfg&2 != 0:
		opts.Ordering, opts.Grace = live.Reorder, time.Second
	case cfg&16 != 0:
		opts.Ordering = live.Drop
	}
	if cfg&32 != 0 {
		opts.MaxAge, opts.MaxEvents = 0, 50
	}
	s, err := live.New("hosts", hostsSchema, opts)
	if err != nil {
		return nil, 0, err
	}
	popts := partition.Options{MaxEvents: 1}
	if cfg&4 != 0 {
		popts.IdleTTL = 3 * time.Second
	}
	if cfg&8 != 0 {
		popts.MaxPartitions = 16
	}
	key := "host"
	if cfg&64 != 0 {
		key = "zone"
	}
	byHost, err := s.PartitionBy(s.Root(), key, popts)
	if err != nil {
		return nil, 0, err
	}
	roll, err := s.Rolling(byHost, []rolling.Window{
		{Name: "2s", Span: 2 * time.Second, Aggs: []reduce.Agg{
			{Out: "avg", From: "cpu", Using: reduce.Avg},
			{Out: "sd", From: "cpu", Using: reduce.Stdev},
			{Out: "min", From: "cpu", Using: reduce.Min},
			{Out: "max", From: "cpu", Using: reduce.Max},
		}},
		{Name: "500ms", Span: 500 * time.Millisecond, Aggs: []reduce.Agg{
			{Out: "samples", From: "cpu", Using: reduce.Samples},
			{Out: "last", From: "host", Using: reduce.Last},
			{Out: "n", From: "cpu", Using: reduce.Count},
		}},
	}, rolling.Options{Trigger: trigger.Clock(sequence.Every(500 * time.Millisecond)), Aligned: cfg&1 != 0})
	if err != nil {
		return nil, 0, err
	}
	if err := s.Watch(roll, live.Event); err != nil {
		return nil, 0, err
	}
	return s, roll, nil
}

// FuzzWorkersManyHosts pushes the same batches into a series on one
// worker and into series on two and four, with up to 64 hosts, so that
// a tick or closing is cut into several chunks, some written straight
// into the output by the pushing goroutine and some copied after the
// join (TestMain makes every worker take part), under every ordering
// and with the partitions and the root bounded or not: every push must
// give the same outputs, cell for cell, and the same error.
func FuzzWorkersManyHosts(f *testing.F) {
	for cfg := range 128 {
		rng := rand.New(rand.NewPCG(uint64(cfg), 11))
		data := []byte{byte(cfg), byte(16 + 8*cfg)}
		for range 400 {
			data = append(data, byte(rng.IntN(256)))
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &fuzzGen{fuzzBytes: fuzzBytes{data}, now: int64(time.Hour)}
		cfg, hosts := g.next(), 1+int(g.next()%64)
		var ss []*live.Series
		var node live.NodeID
		for _, w := range []int{1, 2, 4} {
			s, id, err := buildHostsSeries(cfg, w)
			if err != nil {
				t.Fatalf("building the series of %d workers (cfg %d): %v", w, cfg, err)
			}
			defer s.Close()
			ss, node = append(ss, s), id
		}
		outs := make([][]live.Output, len(ss))
		for push := 0; len(g.data) > 0 && push < 24; push++ {
			n := int(g.next() % 96)
			b := schema.NewBatch(hostsSchema, n)
			for range n {
				c := g.next()
				switch {
				case c < 200: // forward, often by nothing
					g.now += int64(c%8) * int64(50*time.Millisecond)
				case c >= 250: // a gap of several ticks
					g.now += int64(c%4+1) * int64(time.Second)
				}
				at := g.now
				if c >= 200 && c < 250 { // late: within the grace or not
					at -= int64(c%8+1) * int64(300*time.Millisecond)
				}
				b.Time = append(b.Time, at)
				b.Cols[0].Num = append(b.Cols[0].Num, float64(int(g.next())-128)/8)
				h := int(g.next()) % hosts
				b.Cols[1].Str = append(b.Cols[1].Str, fmt.Sprintf("h%02d", h))
				zone := float64(h)
				if c == 255 {
					zone = math.NaN() // missing
				}
				b.Cols[2].Num = append(b.Cols[2].Num, zone)
			}
			var want string
			var wantErr error
			for i, s := range ss {
				out, err := s.PushMany(outs[i][:0], b)
				outs[i] = out
				var got string
				if tab, ok := live.Find(out, node, live.Event); ok {
					got = tab.String()
				}
				if i == 0 {
					want, wantErr = got, err
					continue
				}
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("push %d: error %v on %d workers, %v on one", push, err, i*2, wantErr)
				}
				if got != want {
					t.Fatalf("push %d: rows on %d workers\n%s\nwant (one worker)\n%s", push, i*2, got, want)
				}
			}
		}
	})
}
