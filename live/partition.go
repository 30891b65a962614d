package live

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/router"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
)

// PartitionBy adds a node that routes each row of source by the value of
// column to a partition of its own. Rollings and views built on the
// returned node run per partition: a [Series.Rolling] on it keeps one set
// of windows per partition (synchronised across partitions under a clock
// trigger), and its output rows carry the partition column after the time;
// a view keeps its state per partition and stays partitioned. A
// [Series.Reduce] or [Series.Aggregate] on it takes the rows of every
// partition together.
//
// The source must be the root. The column must be a string, number or
// boolean column; numbers and booleans keep their kind in outputs, and a
// missing value is a partition of its own with a missing key. Options set
// declared groups, per-partition retention (inherited from the series when
// zero) and limits; see [partition.Options]. A row outside the declared
// groups, or one that would exceed MaxPartitions even once the partitions
// IdleTTL removes at the push's time have made room, rejects its whole
// push with an error wrapping [partition.ErrUnknownGroup] or
// [partition.ErrLimit].
//
// Bad options are a [*ConfigError] whose Field names the option (or
// "column", for a column of a kind that cannot be partitioned by),
// wrapping [partition.ErrOptions].
//
// The node's Event and Batch outputs are the rows it routed; its Evict
// output the rows its per-partition retention let go and those of the
// partitions IdleTTL removed.
func (s *Series) PartitionBy(source NodeID, column string, opts partition.Options) (NodeID, error) {
	const op = "partitionBy"
	if _, err := s.checkSource(source); err != nil {
		return 0, err
	}
	if source != s.Root() {
		return 0, configErr(op, "source", "a partitioning must be built on the root series", nil)
	}
	src := s.nodes[source].base()
	j, ok := src.sch.Index(column)
	if !ok || j == 0 {
		return 0, configErr(op, "column", fmt.Sprintf("%q is not a value column (columns: %v)", column, src.sch.Names()[1:]), nil)
	}
	kind := src.sch.Column(j).Kind
	if opts.MaxEvents == 0 {
		opts.MaxEvents = s.opts.MaxEvents
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = s.opts.MaxAge
	}
	router, err := router.NewRouter(kind, opts, func(v schema.Value) router.Key { return s.keyOf(v) }, s.syms)
	if err != nil {
		return 0, partitionOptionsErr(op, column, err)
	}
	n := &partitionNode{s: s, col: j, kind: kind, router: router, opts: router.Options()}
	b := n.base()
	b.src, b.op, b.sch = source, op, src.sch
	b.gone = newFrame(src.sch)
	b.produces[Event], b.produces[Batch], b.produces[Evict] = true, true, true
	b.scope = &partScope{node: NodeID(len(s.nodes))}
	n.stride = 2 + src.sch.Len() - 1
	for j := 1; j < src.sch.Len(); j++ {
		n.hasArrays = n.hasArrays || src.sch.Column(j).Kind == schema.Array
	}
	id := s.addNode(n)
	// Replay what the series holds, in arrival order.
	if s.store.Len() > 0 {
		f := s.heldFrame()
		n.push(&f)
		n.finish()
	}
	return id, nil
}

// partOf returns the partition of row i of f, a frame of a node built on
// n. Rows carry it, except those of a partitioned rolling, whose
// partition is found from the key column they carry after the time (0
// when the key has no live partition).
func (n *partitionNode) partOf(f *frame, i int) int32 {
	if len(f.part) == f.len() {
		return f.part[i]
	}
	k := n.s.keyOf(f.tab.Value(i, 1))
	if p, ok := n.router.Find(k); ok {
		return p
	}
	return 0
}

// keyOf returns the routing key of a value (interning strings).
func (s *Series) keyOf(v schema.Value) router.Key {
	switch v.Kind() {
	case schema.String:
		str, _ := v.Str()
		return router.Key{Kind: schema.String, Code: uint64(s.syms.ID(str))}
	case schema.Number:
		f, _ := v.Num()
		return router.NumberKey(f)
	case schema.Bool:
		b, _ := v.Bool()
		if b {
			return router.Key{Kind: schema.Bool, Code: 2}
		}
		return router.Key{Kind: schema.Bool, Code: 1}
	}
	return router.Key{}
}

// heldFrame builds a frame of the rows the root holds, in arrival order.
func (s *Series) heldFrame() frame {
	f := newFrame(s.schema)
	for _, r := range s.arrivalOrder() {
		s.appendStored(&f, r)
		f.ids = append(f.ids, s.storedID(r))
	}
	return f
}

// partitionNode routes rows to partitions and keeps each partition's own
// rows under its retention.
type partitionNode struct {
	nodeBase
	s      *Series
	col    int
	kind   schema.Kind
	router *router.Router
	opts   partition.Options // the router's, read without a copy
	// per-partition storage of the rows the partition holds: row-major,
	// [time, id, cells…] per row. With MaxEvents 1 there are no rings: a
	// partition's one row is its slot in lastRows, and one tells which
	// slots hold a row (see oneRow).
	rings     []ring
	one       []bool
	slab      []uint64 // where new partitions' first slots come from
	stride    int
	hasArrays bool // the schema has an array column
	arrays    map[uint64]schema.Value
	expired   []int32
	spare     []uint64 // store's room for a row that leaves at once
	seenNew   map[router.Key]bool
	// makeRoom: the push checked needs the partitions IdleTTL removes at
	// its time removed before its rows are routed (see check).
	makeRoom bool
	routed   []bool // set by idleAt: the partitions the push routes rows to
	// storeLast's encoded columns: views of number columns, owned
	// buffers for the others.
	lastCols [][]uint64
	// With MaxEvents 1, partition p's one row lives at
	// lastRows[p*stride:], its slot (kept by id, made when first saved:
	// see lastrows.go).
	lastRows []uint64
	lastAt   []int // storeLast's scratch: each row's slot
	// The intern cache's generation of the rows of the last push whose
	// partitions the router remembers (see keepParts).
	againGen uint64
	// The partitions of the push's rows, the out frame's unless the
	// router's list of them is (see push).
	parts []int32
	// Kept by id (see lastrows.go): whether some slot is behind the
	// partition's last row (the router's; the slot's row is its id).
	stale     bool
	lastFloor uint64 // no unsaved last id is below it (see rescueLast)
}

// ring is a growable circular buffer of encoded rows.
type ring struct {
	buf     []uint64
	head, n int // in rows
}

func (n *partitionNode) rowKey(f *frame, i int) (router.Key, schema.Value) {
	c := table.Column(f.tab, n.col)
	switch n.kind {
	case schema.String:
		if f.syms[n.col] != nil {
			id := f.syms[n.col][i]
			if id == 0 {
				return router.Key{}, schema.Value{}
			}
			str, _ := c.Str(i)
			return router.Key{Kind: schema.String, Code: uint64(id)}, schema.StringValue(str)
		}
	case schema.Number:
		x, ok := c.Num(i)
		if !ok {
			return router.Key{}, schema.Value{}
		}
		return router.NumberKey(x), schema.NumberValue(x)
	}
	v := f.tab.Value(i, n.col)
	return n.s.keyOf(v), v
}

// check refuses a push with a key outside the declared groups, or one
// that would create more partitions than allowed. A push that needs more
// room than MaxPartitions leaves counts the partitions IdleTTL removes at
// the push's own time (the latest time once it is stored) as free, and
// sets makeRoom so that push removes them before routing its rows.
func (n *partitionNode) check() error {
	in := &n.s.nodes[n.src].base().out
	opts := &n.opts
	n.makeRoom = false
	if !n.checks() {
		return nil
	}
	clear(n.seenNew)
	idle := -1 // partitions free at the push's time, once counted
	for i := range in.len() {
		k, v := n.rowKey(in, i)
		if _, ok := n.router.Find(k); ok {
			continue
		}
		row := n.s.root.batchRow(i)
		if n.router.Declared() {
			return &partition.KeyError{Row: row, Column: n.sch.Column(n.col).Name, Key: v, Err: partition.ErrUnknownGroup}
		}
		if n.seenNew == nil {
			n.seenNew = map[router.Key]bool{}
		}
		if !n.seenNew[k] {
			n.seenNew[k] = true
			if idle < 0 && !n.router.CheckNew(len(n.seenNew)) && opts.IdleTTL > 0 {
				idle = n.idleAt(in)
				n.makeRoom = idle > 0
			}
			if !n.router.CheckNew(len(n.seenNew) - max(idle, 0)) {
				n.makeRoom = false
				return &partition.KeyError{Row: row, Column: n.sch.Column(n.col).Name, Key: v, Limit: opts.MaxPartitions, Err: partition.ErrLimit}
			}
		}
	}
	return nil
}

// checks reports whether the node can refuse a push: with declared
// groups or a limit on the partitions.
func (n *partitionNode) checks() bool { return n.router.Declared() || n.opts.MaxPartitions > 0 }

// pushLatest returns the latest time the series will have once the rows
// of in are stored.
func (n *partitionNode) pushLatest(in *frame) (int64, bool) {
	latest, has := n.s.latest, n.s.hasLatest
	for _, t := range in.tab.Times() {
		if !has || t > latest {
			latest, has = t, true
		}
	}
	return latest, has
}

// idleAt counts the partitions that can make room for the push of in:
// those IdleTTL removes at the push's time (their latest row is older than
// the push's latest time − IdleTTL) to which the push routes no row. It
// marks the partitions the push routes rows to in routed, and changes
// nothing else.
func (n *partitionNode) idleAt(in *frame) int {
	latest, ok := n.pushLatest(in)
	if !ok {
		return 0
	}
	cut := latest - int64(n.opts.IdleTTL)
	n.routed = slices.Grow(n.routed[:0], n.router.Cap())[:n.router.Cap()]
	clear(n.routed)
	for i := range in.len() {
		k, _ := n.rowKey(in, i)
		if p, ok := n.router.Find(k); ok {
			n.routed[p] = true
		}
	}
	idle := 0
	for _, p := range n.router.Order() {
		if n.router.Idle(p, cut) && !n.routed[p] {
			idle++
		}
	}
	return idle
}

// makeRoomFor removes, before the push's rows are routed, the partitions
// check counted as free, at the push's time (the series' latest, the push
// being stored).
func (n *partitionNode) makeRoomFor() {
	n.makeRoom = false
	from := len(n.expired)
	n.expired = n.router.MakeRoom(n.s.latest, n.routed, n.expired)
	n.dropExpired(n.expired[from:])
}

func (n *partitionNode) push(in *frame) {
	b := n.base()
	b.out.tab, b.out.syms, b.out.ids, b.out.sorted = in.tab, in.syms, in.ids, in.sorted
	if b.wantGone {
		b.gone.reset() // else empty: see nodeBase.wantGone
	}
	n.expired = n.expired[:0]
	if n.makeRoom {
		n.makeRoomFor()
	}
	times := in.tab.Times()
	parts := slices.Grow(n.parts[:0], len(times))[:len(times)]
	n.parts, b.out.part = parts, parts
	lazy := n.lazyLast()
	if !lazy {
		// It kept rows by id until now (someone reads its evictions
		// since): each partition's last row into its slot, before the
		// push's rows become the last ones.
		n.saveAllLast()
	}
	// Most pushes route every row by its intern id in one run, here; the
	// rest of the rows, if any, go through route.
	i := 0
	if n.kind == schema.String {
		if syms := in.syms[n.col]; syms != nil {
			// Routed by their keys' intern ids, as [router.Router.RouteSyms]
			// does. A push's rows in order whose first and last times are
			// the same (a push of one time) are routed at that time
			// without reading their times, and without reading their
			// identities either: the root's frame, which a push brings,
			// numbers its rows consecutively (a replay of the rows held
			// brings another frame). Written here, not in a method: the
			// call cost more than the test.
			syms = syms[:len(times)]
			if k := len(times); in == &n.s.root.out && in.sorted && k > 0 && times[0] == times[k-1] {
				if n.keysAsBefore(k) {
					// The router's partitions of the rows, which
					// nothing writes to.
					parts = n.router.RouteAgainAt(times[0], in.ids[0])
					b.out.part = parts
					i = k
				} else {
					if i = n.router.RouteSymsAt(syms, times[0], in.ids[0], parts); i == k {
						n.keepParts(parts)
					}
				}
			} else {
				i = n.router.RouteSyms(syms, times, in.ids[:len(times)], parts)
			}
		}
	}
	if i < len(times) {
		n.route(in, times, parts, lazy, i)
	}
	if lazy {
		n.stale = true // the last rows are the router's last rows
		return
	}
	if n.opts.MaxEvents == 1 && !n.wantGone && !n.hasArrays && in.sorted {
		// In time order: each partition's last row in the push is its
		// newest.
		n.storeLast(in, parts)
		return
	}
	for i, p := range parts {
		n.store(p, in, i)
	}
}

// keysAsBefore reports whether the k rows of a push from the root have
// the keys of the push keepParts last saw, in the same order (their
// intern ids are the cache's, of the same generation), and no partition
// was created or removed since: each row's partition is then the one
// that push's row had, which the router remembers ([router.Router.Again]).
func (n *partitionNode) keysAsBefore(k int) bool {
	gen, ok := n.s.root.cachedGen(n.col)
	return ok && gen == n.againGen && n.router.Again(k)
}

// keepParts has the router remember parts, the partitions of a push of
// the root's rows just routed, for keysAsBefore, when the rows' keys are
// the intern cache's ids.
func (n *partitionNode) keepParts(parts []int32) {
	gen, ok := n.s.root.cachedGen(n.col)
	if !ok {
		return
	}
	n.router.Remember(parts)
	n.againGen = gen
}

// route gives each row of in from row from on its partition in parts
// (creating the partitions of keys seen for the first time); the router
// records each row (its time, its identity, the partition's count).
// String keys known as intern ids are routed in runs, and then row from
// is the first that the run before it could not route. With lazy last
// rows, a partition's first row is copied into its slot, which makes the
// slot.
func (n *partitionNode) route(in *frame, times []int64, parts []int32, lazy bool, from int) {
	ids := in.ids[:len(times)]
	if n.kind == schema.String && in.syms[n.col] != nil {
		syms := in.syms[n.col][:len(times)]
		i := from
		n.routeOne(in, i, parts, lazy)
		for i++; i < len(times); i++ {
			i += n.router.RouteSyms(syms[i:], times[i:], ids[i:], parts[i:])
			if i < len(times) {
				// A key without a live partition, a missing one, or a
				// partition's first row.
				n.routeOne(in, i, parts, lazy)
			}
		}
		n.fitGrown()
		return
	}
	for i := from; i < len(times); i++ {
		n.routeOne(in, i, parts, lazy)
	}
	n.fitGrown()
}

// fitGrown, after route made partitions, lets go of the room growth left
// in the tables kept by partition index when the router's is due (see
// [router.Router.Fit]): the router's, and with MaxEvents 1 the slots,
// made as many as the indices (a new partition whose slot is not made
// yet needs no more). The slots grow by a quarter (see slot): at 1,000
// partitions, 1,151 slots of 40 bytes, 8 bytes a partition.
//
// A node keeping its rows by id makes no slot before it saves a row (see
// lastrows.go): its slots are not made here.
func (n *partitionNode) fitGrown() {
	if !n.router.Fit() || !n.oneRow() {
		return
	}
	want := n.router.Cap() * n.stride
	if room := len(n.lastRows) - want; room >= 0 && (room <= want/16 || room*8 < 1024) || room < 0 && n.lazyLast() {
		return
	}
	n.resizeSlots(want)
}

// resizeSlots makes the slots of lastRows at least k entries, as many as
// the allocator gives for them: those of the indices below k keep their
// rows, the others are made with no row (noRow).
func (n *partitionNode) resizeSlots(k int) {
	rows := slices.Grow([]uint64(nil), k)
	rows = rows[:cap(rows)]
	st := n.stride
	rows = rows[:len(rows)/st*st]
	kept := copy(rows, n.lastRows)
	for i := kept + 1; i < len(rows); i += st {
		rows[i] = noRow
	}
	n.lastRows = rows
}

// routeOne routes row i of in, as route does, by its key's value.
func (n *partitionNode) routeOne(in *frame, i int, parts []int32, lazy bool) {
	k, v := n.rowKey(in, i)
	p := n.router.Route(k, v, in.tab.TimeNanos(i), in.ids[i])
	parts[i] = p
	if lazy && n.router.Rows(p) == 1 {
		// It holds a row, kept by id: its slot is made when the row is
		// saved, which at many partitions of steady keys is never (40
		// bytes a partition at the seed's five columns).
		if int(p) >= len(n.one) {
			n.growSlots()
		}
		n.one[p] = true
	}
}

// storeLast keeps, per partition, only the last of its rows (MaxEvents 1):
// new partitions get their row through store, then every row is written
// over its partition's one slot in order, so the last row of each
// partition in the push is the one kept. The cells are first gathered
// column by column into encoded columns (numbers read in place), so that
// each row is then written in one go, one partition's slot at a time.
func (n *partitionNode) storeLast(in *frame, parts []int32) {
	if len(parts) == 0 {
		// A push of no rows (which reorder ordering passes on): with no
		// partition yet there is no slot to index.
		return
	}
	cols := n.lastCols[:0]
	for j := 1; j < n.sch.Len(); j++ {
		c := table.Column(in.tab, j)
		k := len(cols)
		if k < cap(cols) {
			cols = cols[:k+1]
		} else {
			cols = append(cols, nil)
		}
		switch n.sch.Column(j).Kind {
		case schema.Number:
			cols[k] = floatBits(c.Numbers())
			continue
		case schema.String:
			if ids := in.syms[j]; ids != nil {
				buf := cols[k][:0]
				for _, id := range ids {
					buf = append(buf, uint64(id))
				}
				cols[k] = buf
				continue
			}
		}
		buf := cols[k][:0]
		for i := range parts {
			buf = append(buf, n.encode(in, i, j))
		}
		cols[k] = buf
	}
	n.lastCols = cols
	// A new partition's first row makes its slot; then every row is
	// written over its partition's slot, column by column, so that the
	// last row of each partition in the push is the one kept.
	st := n.stride
	at := slices.Grow(n.lastAt[:0], len(parts))[:len(parts)]
	n.lastAt = at
	fresh := false
	one := n.one
	for i, p := range parts {
		fresh = fresh || int(p) >= len(one) || !one[p]
		at[i] = int(p) * st
	}
	if fresh {
		for i, p := range parts {
			if int(p) >= len(n.one) || !n.one[p] {
				n.storeOne(p, in, i)
			}
		}
	}
	last := n.lastRows
	for i, t := range in.tab.Times()[:len(at)] {
		last[at[i]] = uint64(t)
	}
	for i, id := range in.ids[:len(at)] {
		last[at[i]+1] = id
	}
	for k, c := range cols {
		row := last[2+k:]
		for i, x := range c[:len(at)] {
			row[at[i]] = x
		}
	}
}

// oneRow reports whether each partition keeps at most one row, in its
// slot (MaxEvents 1): then the node has no rings.
func (n *partitionNode) oneRow() bool { return n.opts.MaxEvents == 1 }

// rowCount returns how many rows partition p holds.
func (n *partitionNode) rowCount(p int32) int {
	if n.oneRow() {
		if int(p) < len(n.one) && n.one[p] {
			return 1
		}
		return 0
	}
	if int(p) < len(n.rings) {
		return n.rings[p].n
	}
	return 0
}

// heldRow returns the k-th oldest row partition p holds.
func (n *partitionNode) heldRow(p int32, k int) []uint64 {
	if n.oneRow() {
		return n.oneSlot(p)
	}
	return n.rings[p].row(k, n.stride)
}

// oneSlot returns partition p's slot (MaxEvents 1).
func (n *partitionNode) oneSlot(p int32) []uint64 {
	st := n.stride
	return n.lastRows[int(p)*st : (int(p)+1)*st : (int(p)+1)*st]
}

// storeOne is store with MaxEvents 1: partition p's row goes to its slot,
// over the row it holds, unless it is late and older than that row
// (reorder ordering): the partition keeps its newest row, and the late
// one leaves at once.
func (n *partitionNode) storeOne(p int32, in *frame, i int) {
	if int(p) >= len(n.one) {
		n.growSlots()
	}
	if !in.sorted && n.one[p] && in.tab.TimeNanos(i) < int64(n.oneSlot(p)[0]) {
		n.spare = slices.Grow(n.spare[:0], n.stride)[:n.stride]
		n.encodeRow(n.spare, in, i)
		n.dropRow(p, n.spare)
		return
	}
	if n.one[p] && (n.wantGone || n.arrays != nil) {
		n.evictFront(p, 1) // reported, or its arrays dropped
	}
	n.encodeRow(n.slot(p), in, i)
	n.one[p] = true
	// A row older than MaxAge before its own time is never kept: the row
	// just stored is the only one.
}

// store appends row i of in to partition p's rows and applies the
// partition's retention to them. A partition holds its rows in time order,
// as the series does: a late row (reorder ordering, and then in is not
// sorted) goes after the rows not later than it, MaxAge counts from the
// partition's latest time and MaxEvents keeps its newest rows.
func (n *partitionNode) store(p int32, in *frame, i int) {
	if n.oneRow() {
		n.storeOne(p, in, i)
		return
	}
	for int(p) >= len(n.rings) {
		n.rings = append(n.rings, ring{})
	}
	r := &n.rings[p]
	opts := &n.opts
	st := n.stride
	t := in.tab.TimeNanos(i)
	late := !in.sorted && r.n > 0 && t < int64(r.row(r.n-1, st)[0])
	if opts.MaxEvents > 0 && r.n == opts.MaxEvents {
		if late && t < int64(r.row(0, st)[0]) {
			// Older than every row the partition keeps: it leaves at once.
			n.spare = slices.Grow(n.spare[:0], st)[:st]
			n.encodeRow(n.spare, in, i)
			n.dropRow(p, n.spare)
			return
		}
		n.evictFront(p, 1)
	}
	if r.n*st == len(r.buf) {
		var grown []uint64
		if len(r.buf) == 0 {
			// A partition's first row: from a shared slab, so that the
			// first rows of many partitions lie side by side.
			grown = n.slot(p)
		} else {
			grown = make([]uint64, 2*len(r.buf))
		}
		for k := range r.n {
			copy(grown[k*st:(k+1)*st], r.row(k, st))
		}
		r.buf, r.head = grown, 0
	}
	r.n++
	k, latest := r.n-1, t
	if late {
		// The later rows move up one.
		for ; k > 0 && int64(r.row(k-1, st)[0]) > t; k-- {
			copy(r.row(k, st), r.row(k-1, st))
		}
		latest = int64(r.row(r.n-1, st)[0])
	}
	n.encodeRow(r.row(k, st), in, i)
	if opts.MaxAge > 0 {
		cut := latest - int64(opts.MaxAge)
		k := 0
		for k < r.n && int64(r.row(k, st)[0]) < cut {
			k++
		}
		n.evictFront(p, k)
	}
}

// encodeRow writes row i of in into row, a partition's encoded row:
// [time, id, cells…].
func (n *partitionNode) encodeRow(row []uint64, in *frame, i int) {
	row[0] = uint64(in.tab.TimeNanos(i))
	row[1] = in.ids[i]
	for j := 1; j < n.sch.Len(); j++ {
		row[1+j] = n.encode(in, i, j)
	}
}

// slot returns room for partition p's first row: with MaxEvents 1, its
// slot in lastRows (rows of partitions side by side by index, so that
// storeLast writes them by index); else room from a slab shared by the
// partitions, so that their first rows lie side by side.
func (n *partitionNode) slot(p int32) []uint64 {
	st := n.stride
	if n.opts.MaxEvents == 1 {
		if need := (int(p) + 1) * st; need > len(n.lastRows) {
			// By a quarter, as append grows the other per-partition
			// slices: doubling left a third of the slots of 100,000
			// partitions empty (131,072 made). The room left is let go
			// of after the push (fitGrown).
			n.resizeSlots(max(need, len(n.lastRows)+len(n.lastRows)/4, 64*st))
		}
		return n.oneSlot(p)
	}
	if len(n.slab) < st {
		n.slab = make([]uint64, 256*st)
	}
	s := n.slab[:st:st]
	n.slab = n.slab[st:]
	return s
}

func (r *ring) row(k, stride int) []uint64 {
	rows := len(r.buf) / stride
	i := (r.head + k) % rows * stride
	return r.buf[i : i+stride : i+stride]
}

func (n *partitionNode) encode(in *frame, i, j int) uint64 {
	c := table.Column(in.tab, j)
	switch n.sch.Column(j).Kind {
	case schema.Number:
		return cell.Num(c.Numbers()[i])
	case schema.String:
		if in.syms[j] != nil {
			return uint64(in.syms[j][i])
		}
		if str, ok := c.Str(i); ok {
			return uint64(n.s.syms.ID(str))
		}
	case schema.Bool:
		if b, ok := c.Bool(i); ok {
			return cell.Bool(b)
		}
	case schema.Array:
		if a, ok := c.CopyArray(i); ok {
			if n.arrays == nil {
				n.arrays = map[uint64]schema.Value{}
			}
			n.arrays[in.ids[i]*uint64(n.stride)+uint64(j)] = schema.ArrayValue(a...)
			return cell.Present
		}
	}
	return cell.Missing
}

func (n *partitionNode) decode(row []uint64, j int) schema.Value {
	bits := row[1+j]
	switch n.sch.Column(j).Kind {
	case schema.Number:
		if x := math.Float64frombits(bits); x == x {
			return schema.NumberValue(x)
		}
	case schema.String:
		if bits != cell.Missing {
			return schema.StringValue(n.s.syms.Str(uint32(bits)))
		}
	case schema.Bool:
		if bits != cell.Missing {
			return schema.BoolValue(bits == cell.True)
		}
	case schema.Array:
		if bits != cell.Missing {
			return n.arrays[row[1]*uint64(n.stride)+uint64(j)]
		}
	}
	return schema.Value{}
}

// evictFront drops the k oldest rows of partition p, reporting them in
// the gone frame when someone reads it.
func (n *partitionNode) evictFront(p int32, k int) {
	st := n.stride
	if n.oneRow() {
		if k > 0 && n.one[p] {
			if n.wantGone || n.arrays != nil {
				// Kept in its slot (a node that keeps its rows by id,
				// whose slot may not be made, does neither).
				n.dropRow(p, n.oneSlot(p))
			}
			n.one[p] = false
		}
		return
	}
	r := &n.rings[p]
	for range k {
		n.dropRow(p, r.row(0, st))
		r.head = (r.head + 1) % (len(r.buf) / st)
		r.n--
	}
}

// dropRow lets go of row, partition p's oldest: it reports it in the gone
// frame when someone reads it, and forgets its arrays.
func (n *partitionNode) dropRow(p int32, row []uint64) {
	b := n.base()
	if b.wantGone {
		n.appendRow(&b.gone, row)
		b.gone.part = append(b.gone.part, p)
	}
	if n.arrays != nil {
		for j := 1; j < n.sch.Len(); j++ {
			delete(n.arrays, row[1]*uint64(n.stride)+uint64(j))
		}
	}
}

func (n *partitionNode) appendRow(f *frame, row []uint64) {
	table.Column(f.tab, 0).AppendTime(int64(row[0]))
	for j := 1; j < n.sch.Len(); j++ {
		table.AppendValue(table.Column(f.tab, j), n.decode(row, j))
		if n.sch.Column(j).Kind == schema.String {
			f.syms[j] = append(f.syms[j], uint32(row[1+j]))
		}
	}
	f.ids = append(f.ids, row[1])
}

func (n *partitionNode) evicted(*frame) {}

// finish removes partitions that have been idle too long. Those the push
// removed to make room are already in expired.
func (n *partitionNode) finish() {
	if n.opts.IdleTTL <= 0 || !n.s.hasLatest {
		return
	}
	from := len(n.expired)
	n.expired = n.router.Expire(n.s.latest, n.expired)
	n.dropExpired(n.expired[from:])
}

// finishesNothing reports that finish never expires a partition (no
// IdleTTL).
func (n *partitionNode) finishesNothing() bool { return n.opts.IdleTTL <= 0 }

// dropExpired lets go of the rows of partitions the router removed.
func (n *partitionNode) dropExpired(parts []int32) {
	for _, p := range parts {
		if n.oneRow() {
			if int(p) < len(n.one) {
				n.evictFront(p, 1) // its slot is empty: not behind
			}
			continue
		}
		if int(p) >= len(n.rings) {
			continue
		}
		r := &n.rings[p]
		n.evictFront(p, r.n)
		r.buf, r.head = nil, 0
	}
}

// held returns the rows the partitions hold, in arrival order, with their
// partition indices.
func (n *partitionNode) held() frame {
	n.saveAllLast()
	f := newFrame(n.sch)
	type ref struct {
		p   int32
		row []uint64
	}
	var refs []ref
	for _, p := range n.router.Order() {
		for k := range n.rowCount(p) {
			refs = append(refs, ref{p, n.heldRow(p, k)})
		}
	}
	slices.SortStableFunc(refs, func(a, b ref) int {
		switch {
		case a.row[1] < b.row[1]:
			return -1
		case a.row[1] > b.row[1]:
			return 1
		}
		return 0
	})
	for _, x := range refs {
		n.appendRow(&f, x.row)
		f.part = append(f.part, x.p)
	}
	return f
}

// floatBits views a float64 slice as its bit patterns, without copying.
func floatBits(f []float64) []uint64 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
}

// partitionOptionsErr is the error of a partitioning by column whose
// options (or column kind) the router refused with err: its Field is the
// option err names.
func partitionOptionsErr(op, column string, err error) error {
	var oe *router.OptionError
	if !errors.As(err, &oe) {
		return configErr(op, column, "bad options", err)
	}
	if oe.Option == "column" {
		return configErr(op, oe.Option, fmt.Sprintf("%q cannot be partitioned by", column), err)
	}
	return configErr(op, oe.Option, "bad option", err)
}
