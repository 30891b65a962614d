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
// outputs (appended to out) and how many rows it refused. When the series
// refuses the push with partition.ErrLimit, Push pushes instead the rows of
// the hosts the series tracks and of as many new hosts as it finds room
// for, and refuses the others' rows; should the series refuse that too, it
// pushes the tracked hosts' rows alone.
//
// The room is counted as the series counts it, for the rows Push keeps:
// the limit, less the hosts tracked and the new hosts kept that a row
// reaches, plus the tracked hosts the push removes — those quiet for
// longer than idle at the latest time of the rows kept (or the series'
// latest, if later) that no row kept reaches. Under live.Drop a row older
// than the latest before it among the rows kept reaches no host, and its
// host takes no place for it; a new host all of whose rows are older than
// a row before them in the batch is refused. The new hosts are taken in the order of
// their first rows, except that the host of the batch's latest row, which
// moves on the time at which quiet hosts are counted, comes first; Push
// takes all of them and leaves out the last ones until the count fits.
// Without Drop that keeps as many new hosts as fit. Under Drop a kept row
// can make the rows of a tracked host late, which frees its place, and
// Push does not look for such choices: it may refuse a new host that
// another choice of hosts would have let in.
func Push(s *live.Series, byHost live.NodeID, limit int, idle time.Duration, ord live.Ordering, out []live.Output, b *schema.Batch) ([]live.Output, uint64, error) {
	res, err := s.PushMany(out, b)
	if !errors.Is(err, partition.ErrLimit) {
		return res, 0, err
	}
	parts, perr := s.Partitions(byHost)
	if perr != nil {
		return res, 0, err
	}
	c := newCount(s, parts, limit, idle, ord, b)
	k := len(c.order)
	for range maxRecounts {
		if k <= 0 {
			break
		}
		c.take(k)
		free := c.room()
		if free >= 0 {
			break
		}
		k += free // free < 0: that many places too few
	}
	c.take(max(k, 0))
	var refused uint64
	kept := Filter(nil, b, func(i int) bool {
		if c.kept(i) {
			return true
		}
		refused++
		return false
	})
	res, err = s.PushMany(out, kept)
	if errors.Is(err, partition.ErrLimit) {
		c.take(0)
		refused = 0
		kept = Filter(kept, b, func(i int) bool {
			if c.kept(i) {
				return true
			}
			refused++
			return false
		})
		res, err = s.PushMany(out, kept)
	}
	if err != nil {
		refused = 0
	}
	return res, refused, err
}

// maxRecounts bounds the counts Push makes: each leaves out as many new
// hosts as places were missing, and under Drop leaving a host out can make
// more rows reach others; past the bound Push keeps the tracked hosts only.
const maxRecounts = 16

// count counts, as the partitioning does, the room a push of some of a
// batch's rows leaves for new hosts.
type count struct {
	hosts   []string
	times   []int64
	known   map[string]bool
	parts   []live.Partition
	limit   int
	idle    int64 // 0: hosts are never removed for being quiet
	drop    bool
	latest  int64 // the series' latest time, if has
	has     bool
	order   []string // the new hosts, in the order Push takes them
	taken   map[string]bool
	reached map[string]bool
}

func newCount(s *live.Series, parts []live.Partition, limit int, idle time.Duration, ord live.Ordering, b *schema.Batch) *count {
	c := &count{hosts: b.Cols[2].Str, times: b.Time, known: map[string]bool{}, parts: parts, limit: limit,
		idle: max(int64(idle), 0), drop: ord == live.Drop, taken: map[string]bool{}, reached: map[string]bool{}}
	c.latest, c.has = s.LatestNanos()
	for _, p := range parts {
		if h, ok := p.Key.Str(); ok {
			c.known[h] = true
		}
	}
	top := -1 // the batch's latest row
	for i, t := range c.times {
		if top < 0 || t > c.times[top] {
			top = i
		}
	}
	// Under Drop a new host none of whose rows is later than every row
	// before it would take no place, its rows dropped: it is refused.
	seen := map[string]bool{}
	if c.drop {
		latest, has := c.latest, c.has
		late := map[string]bool{}
		for i, t := range c.times {
			h := c.hosts[i]
			if !has || t >= latest {
				latest, has = t, true
				late[h] = false
			} else if _, ok := late[h]; !ok {
				late[h] = true
			}
		}
		for h, l := range late {
			seen[h] = l
		}
	}
	if top >= 0 && !c.known[c.hosts[top]] {
		c.order = append(c.order, c.hosts[top])
		seen[c.hosts[top]] = true
	}
	for _, h := range c.hosts {
		if !c.known[h] && !seen[h] {
			seen[h] = true
			c.order = append(c.order, h)
		}
	}
	return c
}

// take makes the first k new hosts of c.order the ones kept.
func (c *count) take(k int) {
	clear(c.taken)
	for _, h := range c.order[:k] {
		c.taken[h] = true
	}
}

// kept reports whether row i is kept: its host is tracked or taken.
func (c *count) kept(i int) bool { h := c.hosts[i]; return c.known[h] || c.taken[h] }

// room returns the places left for new hosts once the rows kept are
// pushed: negative when the series would refuse them.
func (c *count) room() int {
	clear(c.reached)
	latest, has := c.latest, c.has
	reachedNew := 0
	for i, h := range c.hosts {
		if !c.kept(i) {
			continue
		}
		if t := c.times[i]; !has || t >= latest {
			latest, has = t, true
		} else if c.drop {
			continue // dropped: it reaches no host
		}
		if !c.reached[h] {
			c.reached[h] = true
			if !c.known[h] {
				reachedNew++
			}
		}
	}
	room := c.limit - len(c.parts) - reachedNew
	if c.idle > 0 && has {
		cut := latest - c.idle
		for _, p := range c.parts {
			h, ok := p.Key.Str()
			if ok && !c.reached[h] && p.Ingested > 0 && p.Last.UnixNano() < cut {
				room++ // quiet, and the push removes it
			}
		}
	}
	return room
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
