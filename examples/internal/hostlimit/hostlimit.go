// Package hostlimit keeps the examples' pushes within a bound on the hosts
// a series tracks (partition.Options.MaxPartitions): past it the rows of
// new hosts are refused and counted, not the whole batch, so a flood of
// distinct host names neither grows the series without end nor costs the
// known hosts their rows.
package hostlimit

import (
	"errors"
	"time"

	"github.com/pond-go/pond/examples/internal/seed"
	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// Push pushes b, a batch of the seed schema (time, cpu, requests, host),
// into s, whose node byHost partitions the root by host with MaxPartitions
// limit and IdleTTL idle and whose ordering is ord, and returns the push's
// outputs (appended to out) and how many rows it refused. A push the
// series refuses with partition.ErrLimit is made again with the rows of
// the hosts the series tracks and of as many new hosts as there is room
// for, in the order they come; if the series still refuses it, with the
// known hosts' rows only.
//
// Under live.Drop a row older than the latest before it never reaches
// byHost, so it makes no room for its host: a new host has a place only
// for a row the series takes, and a late row of a host that has none is
// refused with the host's others. (Counted as a place, a late row's host
// took the room of a new host whose rows the series would have taken.)
//
// The room is what the series will count: a tracked host quiet for longer
// than idle at the push's latest time, and without a row in it that
// reaches byHost, is removed by the push and leaves its place to a new
// one. (Counted as taken, the places of hosts that had all gone quiet were
// never freed: no push moved time on, and every row of new hosts was
// refused for good. Under Drop a tracked host whose rows in the push are
// all late is removed too.)
func Push(s *live.Series, byHost live.NodeID, limit int, idle time.Duration, ord live.Ordering, out []live.Output, b *schema.Batch) ([]live.Output, uint64, error) {
	res, err := s.PushMany(out, b)
	if !errors.Is(err, partition.ErrLimit) {
		return res, 0, err
	}
	hosts := b.Cols[2].Str
	// routed marks the hosts with a row that reaches byHost: late marks
	// the rows Drop ordering drops (older than the latest before them),
	// which reach no partition.
	routed := make(map[string]bool, len(hosts))
	late := make([]bool, len(hosts))
	latest, has := s.LatestNanos()
	for i, h := range hosts {
		if t := b.Time[i]; !has || t >= latest {
			latest, has = t, true
		} else {
			late[i] = ord == live.Drop
		}
		if !late[i] {
			routed[h] = true
		}
	}
	cut := latest - int64(idle)
	known := map[string]bool{}
	taken := 0
	if parts, err := s.Partitions(byHost); err == nil {
		for _, p := range parts {
			h, _ := p.Key.Str()
			known[h] = true
			if routed[h] || p.Last.UnixNano() >= cut {
				taken++
			}
		}
	}
	var kept *schema.Batch
	for _, room := range []int{limit - taken, 0} {
		admitted := map[string]bool{}
		for i, h := range hosts {
			if len(admitted) < room && !late[i] && !known[h] {
				admitted[h] = true
			}
		}
		var refused uint64
		kept = Filter(kept, b, func(i int) bool {
			h := hosts[i]
			if known[h] || admitted[h] {
				return true
			}
			refused++
			return false
		})
		res, err = s.PushMany(out, kept)
		if !errors.Is(err, partition.ErrLimit) {
			if err != nil {
				refused = 0
			}
			return res, refused, err
		}
	}
	return res, 0, err
}

// Filter copies the rows of b, a batch of the seed schema, that keep
// accepts into dst (allocated when nil, reset first) and returns it.
func Filter(dst, b *schema.Batch, keep func(i int) bool) *schema.Batch {
	if dst == nil {
		dst = schema.NewBatch(seed.Schema, b.Len())
	}
	dst.Reset()
	for i, t := range b.Time {
		if !keep(i) {
			continue
		}
		dst.Time = append(dst.Time, t)
		dst.Cols[0].Num = append(dst.Cols[0].Num, b.Cols[0].Num[i])
		dst.Cols[1].Num = append(dst.Cols[1].Num, b.Cols[1].Num[i])
		dst.Cols[2].Str = append(dst.Cols[2].Str, b.Cols[2].Str[i])
	}
	return dst
}
