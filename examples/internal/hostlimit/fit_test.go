package hostlimit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/examples/internal/seed"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// scenario is a series bounded to limit hosts, forgetting a host after
// 10s, fed pre and then refusing b.
type scenario struct {
	ord   live.Ordering
	limit int
	idle  time.Duration
	pre   []*schema.Batch
	b     *schema.Batch
}

func (sc scenario) series(t *testing.T) (*live.Series, live.NodeID) {
	t.Helper()
	s, err := live.New("t", seed.Schema, live.Options{Ordering: sc.ord})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{MaxEvents: 1, IdleTTL: sc.idle, MaxPartitions: sc.limit})
	require.NoError(t, err)
	require.NoError(t, s.Watch(by, live.Event))
	for _, b := range sc.pre {
		if _, err := s.PushMany(nil, b); err != nil {
			return nil, 0
		}
	}
	return s, by
}

// routedNew returns how many hosts of the batch that s does not track
// have a row the series routes when it takes b.
func routedNew(s *live.Series, by live.NodeID, ord live.Ordering, b *schema.Batch) int {
	parts, _ := s.Partitions(by)
	known := map[string]bool{}
	for _, p := range parts {
		h, _ := p.Key.Str()
		known[h] = true
	}
	latest, has := s.LatestNanos()
	seen := map[string]bool{}
	for i, t := range b.Time {
		if has && t < latest && ord == live.Drop {
			continue
		}
		if !has || t > latest {
			latest, has = t, true
		}
		if h := b.Cols[2].Str[i]; !known[h] {
			seen[h] = true
		}
	}
	return len(seen)
}

// TestPushTakesTheNewHostsThatFit compares Push, on random small batches
// the series refuses whole, with every choice of new hosts: the series
// takes what Push keeps, Push keeps every row of the tracked hosts and
// stays within the limit, and without Drop it takes as many new hosts as
// any choice the series takes. Under Drop, where a kept row can make a
// tracked host's rows late and free its place, it logs how often a choice
// takes more.
func TestPushTakesTheNewHostsThatFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	short := 0
	tried := map[live.Ordering]int{}
	for n := range 1500 {
		sc := scenario{ord: live.Ordering(n % 3), limit: 1 + rng.IntN(3), idle: 10 * time.Second}
		if n%7 == 0 {
			sc.idle = 0
		}
		var pre []any
		for i := range 1 + rng.IntN(4) {
			pre = append(pre, i*4000+rng.IntN(4000), fmt.Sprintf("k%d", rng.IntN(3)))
		}
		sc.pre = []*schema.Batch{batch(pre...)}
		all := []string{"k0", "k1", "k2", "n0", "n1", "n2", "n3"}
		var rows []any
		var ts []int
		for range 2 + rng.IntN(7) {
			ts = append(ts, 5000+rng.IntN(30000))
		}
		if sc.ord == live.Strict {
			slices.Sort(ts)
		}
		for _, tm := range ts {
			rows = append(rows, tm, all[rng.IntN(len(all))])
		}
		sc.b = batch(rows...)

		s, by := sc.series(t)
		if s == nil {
			continue
		}
		if _, err := s.PushMany(nil, sc.b); !errors.Is(err, partition.ErrLimit) {
			continue
		}
		tried[sc.ord]++
		name := fmt.Sprintf("case %d %v limit %d idle %v pre %v %v batch %v %v", n, sc.ord, sc.limit, sc.idle, sc.pre[0].Time, sc.pre[0].Cols[2].Str, sc.b.Time, sc.b.Cols[2].Str)
		known := map[string]bool{}
		for _, h := range hostsOf(t, s, by) {
			known[h] = true
		}
		var news []string
		newRows := 0
		for _, h := range sc.b.Cols[2].Str {
			if !known[h] {
				newRows++
				if !slices.Contains(news, h) {
					news = append(news, h)
				}
			}
		}

		before := s.Stats()
		res, refused, err := Push(s, by, sc.limit, sc.idle, sc.ord, nil, sc.b)
		require.NoError(t, err, name)
		after := s.Stats()
		require.EqualValues(t, sc.b.Len(), refused+(after.Ingested-before.Ingested)+(after.Rejected-before.Rejected), name)
		require.LessOrEqual(t, refused, uint64(newRows), "%s: a tracked host's row refused", name)
		require.LessOrEqual(t, len(hostsOf(t, s, by)), sc.limit, name)
		// The new hosts the push routed rows to (the series may remove
		// them at its end, quiet already).
		got := 0
		if routed, ok := live.Find(res, by, live.Event); ok {
			hs, ok := routed.Strings("host")
			require.True(t, ok)
			seen := map[string]bool{}
			for _, h := range hs {
				if !known[h] && !seen[h] {
					seen[h] = true
					got++
				}
			}
		}

		// Every choice of new hosts.
		best := 0
		for mask := 1; mask < 1<<len(news); mask++ {
			s2, by2 := sc.series(t)
			choice := Filter(nil, sc.b, func(i int) bool {
				h := sc.b.Cols[2].Str[i]
				k := slices.Index(news, h)
				return k < 0 || mask&(1<<k) != 0
			})
			r := routedNew(s2, by2, sc.ord, choice)
			if _, err := s2.PushMany(nil, choice); err == nil {
				best = max(best, r)
			}
		}
		if sc.ord == live.Drop {
			if got < best {
				short++
				t.Logf("%s: took %d new hosts, a choice takes %d", name, got, best)
			}
			continue
		}
		require.Equal(t, best, got, name)
	}
	t.Logf("refused pushes tried: %v; under Drop, fewer new hosts than a choice takes: %d", tried, short)
}
