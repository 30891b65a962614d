package aggregator

import (
	"math"
	"slices"

	"github.com/pond-go/pond/examples/aggregator/internal/wire"
)

// RankKey is a column the top-N projection ranks hosts by.
type RankKey string

// The rank keys a client may ask for. requests_sum (the 1m request count)
// is the request rank: every host shares window_age_seconds, so it ranks
// hosts exactly as the dashboard's "1m req/s" does.
const (
	RankCPUAvg      RankKey = "cpu_avg"
	RankCPUSd       RankKey = "cpu_sd"
	RankRequestsSum RankKey = "requests_sum"
)

// ParseRankKey returns the rank key named s.
func ParseRankKey(s string) (RankKey, bool) {
	switch k := RankKey(s); k {
	case RankCPUAvg, RankCPUSd, RankRequestsSum:
		return k, true
	}
	return "", false
}

func (k RankKey) value(t *wire.HostTick) float64 {
	var v float64
	switch k {
	case RankCPUSd:
		v = t.CPUSd
	case RankRequestsSum:
		v = t.RequestsSum
	default:
		v = t.CPUAvg
	}
	if v != v {
		return math.Inf(-1)
	}
	return v
}

// topMargin is the hysteresis: a host of the previous cut stays while it
// ranks within N + topMargin.
const topMargin = 1

// projection is one client's top-N cut with its hysteresis state. The zero
// value (N = 0) passes every row through in emission order.
type projection struct {
	N    int
	By   RankKey
	prev map[string]bool
	next map[string]bool
}

// set changes the cut and resets the hysteresis.
func (p *projection) set(n int, by RankKey) {
	p.N, p.By = n, by
	clear(p.prev)
}

// apply returns the rows of one tick the client gets, in rank order:
// hosts sorted by the rank key, descending (missing last, ties in emission
// order); the strict top N, plus the hosts of the previous cut ranked
// N+1..N+margin. dst is reused.
func (p *projection) apply(dst []*wire.HostTick, rows []wire.HostTick) []*wire.HostTick {
	if p.N <= 0 {
		return p.applyOrdered(dst, rows, nil)
	}
	return p.applyOrdered(dst, rows, rankOrder(rows, p.By))
}

// applyOrdered is apply with the rows' rank order already known (see
// [rankOrder]; nil when N is 0).
func (p *projection) applyOrdered(dst []*wire.HostTick, rows []wire.HostTick, order []int32) []*wire.HostTick {
	dst = dst[:0]
	if p.N <= 0 {
		for i := range rows {
			dst = append(dst, &rows[i])
		}
		return dst
	}
	if p.next == nil {
		p.next = map[string]bool{}
	}
	clear(p.next)
	for r, i := range order {
		if r >= p.N+topMargin {
			break
		}
		h := rows[i].Host
		if r < p.N || p.prev[h] {
			dst = append(dst, &rows[i])
			p.next[h] = true
		}
	}
	p.prev, p.next = p.next, p.prev
	return dst
}

// rankOrder returns the indices of rows sorted by the rank key,
// descending, missing last, ties in emission order.
func rankOrder(rows []wire.HostTick, by RankKey) []int32 {
	idx := make([]int32, len(rows))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		va, vb := by.value(&rows[a]), by.value(&rows[b])
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	return idx
}

// rankIndex numbers the rank keys, for per-key caches.
func (k RankKey) rankIndex() int {
	switch k {
	case RankCPUSd:
		return 1
	case RankRequestsSum:
		return 2
	}
	return 0
}
