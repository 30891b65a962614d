package live

import (
	"fmt"
	"slices"
	"time"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// Aggregate adds a node that aggregates the rows of source in fixed
// buckets [start, start + step) of seq, and emits each bucket once, when
// it closes, keyed at its start: the bucket holding the earliest times a
// series accepts, which may start before [schema.MinTime], is keyed at
// MinTime, so that no time it gives leaves the range (and a window or
// rolling built on it cannot overflow). Its Event output has the schema
// [time, outputs…].
//
// The watermark is the latest time the node has seen. A bucket closes as
// soon as the watermark reaches its end plus grace (with no grace, a row
// exactly at a bucket's end closes it); several close in start order. A
// row for a bucket already closed is dropped and counted
// ([Series.AggregateStats]); rows arriving late but within grace still
// count. Only open buckets are kept; a bucket that got no row is never
// created nor emitted; the newest bucket stays open until later data
// closes it (there is no flush).
//
// A grace of 0 takes the series' grace (so an aggregate over a reorder
// series waits for the rows the series accepts late; over a reorder
// series without a grace, which accepts a row however late, it waits for
// none and drops a late row whose bucket has closed); pond-ts ignores a
// grace given to a live aggregate, pond-go honours it. On a
// partitioned source the buckets hold the rows of every partition.
//
// A series that already holds rows replays the rows source holds into the
// node (on a partitioned source, the partitions' rows, under the
// partitioning's retention); buckets that close during the replay are
// not emitted. A bad sequence, a
// negative grace, no aggregation, an unknown or time source column, a
// reducer that does not fit its column or a duplicate output is an error
// wrapping [ErrConfig].
func (s *Series) Aggregate(source NodeID, seq sequence.Sequence, aggs []reduce.Agg, grace time.Duration) (NodeID, error) {
	const op = "aggregate"
	src, err := s.checkSource(source)
	if err != nil {
		return 0, err
	}
	if err := seq.Err(); err != nil {
		return 0, configErr(op, "sequence", "bad sequence", err)
	}
	if grace < 0 {
		return 0, configErr(op, "grace", fmt.Sprintf("%v must not be negative", grace), nil)
	}
	if grace > sequence.MaxDuration {
		return 0, configErr(op, "grace", fmt.Sprintf("%v is longer than %v", grace, sequence.MaxDuration), nil)
	}
	if grace == 0 {
		grace = s.opts.Grace
	}
	idx, sch, err := compileAggs(op, src.sch, aggs)
	if err != nil {
		return 0, err
	}
	n := &aggregateNode{seq: seq, step: int64(seq.Step()), grace: int64(grace), cols: idx}
	for _, a := range aggs {
		n.reds = append(n.reds, a.Using)
	}
	b := n.base()
	b.src, b.op, b.sch = source, op, sch
	b.out = newFrame(sch)
	b.produces[Event] = true
	b.late = src.late
	id := s.addNode(n)
	if f, ok := s.replayFrame(source); ok {
		n.push(&f)
		n.out.reset()
		n.stats.Closed = 0 // closed by the replay, not emitted
	}
	return id, nil
}

// AggregateStats are the counters of an aggregate node.
type AggregateStats struct {
	Observed uint64 // rows added to a bucket
	Dropped  uint64 // rows dropped because their bucket had closed
	Closed   uint64 // buckets closed and emitted (not those a replay closed)
	Open     int    // buckets open now
}

// AggregateStats returns the counters of an aggregate node, and an error
// wrapping [ErrNode] for another node.
func (s *Series) AggregateStats(id NodeID) (AggregateStats, error) {
	n, err := s.node(id)
	if err != nil {
		return AggregateStats{}, err
	}
	a, ok := n.(*aggregateNode)
	if !ok {
		return AggregateStats{}, fmt.Errorf("%w: %s node %d is not an aggregate", ErrNode, n.base().op, id)
	}
	st := a.stats
	st.Open = len(a.open)
	return st, nil
}

// aggregateNode aggregates rows in fixed buckets.
type aggregateNode struct {
	nodeBase
	seq   sequence.Sequence
	step  int64
	grace int64
	cols  []int
	reds  []reduce.Reducer
	open  []*aggBucket // by start
	free  []*aggBucket
	wm    int64
	hasWM bool
	stats AggregateStats
}

type aggBucket struct {
	start  int64
	states []reducers.Bucket
}

// key returns the time the bucket is emitted at: its start, or
// [schema.MinTime] for a bucket that starts before the range.
func (b *aggBucket) key() int64 { return max(b.start, schema.MinTime) }

func (n *aggregateNode) push(in *frame) {
	n.out.reset()
	for i := range in.len() {
		t := in.tab.TimeNanos(i)
		if !n.hasWM || t > n.wm {
			n.wm, n.hasWM = t, true
		}
		cut := n.wm - n.grace
		start := n.seq.Start(t)
		if start+n.step <= cut {
			// A late row never moves the watermark, so nothing closes.
			n.stats.Dropped++
			continue
		}
		bk := n.bucket(start)
		for k, st := range bk.states {
			st.Add(owned(in.tab.Value(i, n.cols[k])))
		}
		n.stats.Observed++
		for len(n.open) > 0 && n.open[0].start+n.step <= cut {
			n.close()
		}
	}
}

// bucket returns the open bucket starting at start, opening it if needed.
func (n *aggregateNode) bucket(start int64) *aggBucket {
	i, found := slices.BinarySearchFunc(n.open, start, func(b *aggBucket, t int64) int {
		switch {
		case b.start < t:
			return -1
		case b.start > t:
			return 1
		}
		return 0
	})
	if found {
		return n.open[i]
	}
	var bk *aggBucket
	if k := len(n.free); k > 0 {
		bk = n.free[k-1]
		n.free = n.free[:k-1]
	} else {
		bk = &aggBucket{}
		for _, r := range n.reds {
			bk.states = append(bk.states, reducers.NewBucket(reducers.SpecOf(r))) // checked when built
		}
	}
	bk.start = start
	n.open = slices.Insert(n.open, i, bk)
	return bk
}

// close emits the oldest open bucket and frees it.
func (n *aggregateNode) close() {
	bk := n.open[0]
	tab := n.out.tab
	table.Column(tab, 0).AppendTime(bk.key())
	for k, st := range bk.states {
		st.Append(table.Column(tab, k+1))
		st.Reset()
	}
	n.open = slices.Delete(n.open, 0, 1)
	n.free = append(n.free, bk)
	n.stats.Closed++
}

func (n *aggregateNode) evicted(*frame) {}
func (n *aggregateNode) finish()        {}
