package live

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/pond-go/pond/internal/cell"
	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/internal/store"
	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/internal/workers"
	"github.com/pond-go/pond/schema"
)

// Series is a live time series and the owner of every node built on it.
// Rows enter through [Series.PushMany]; the series keeps them in time order
// under its ordering and retention, runs every node on them, and returns
// the outputs of the nodes you [Series.Watch].
//
// A Series is not safe for concurrent use: guard it with a lock if several
// goroutines push or read. Make one with [New]: on a zero Series every
// call that can fail returns [ErrNotMade].
type Series struct {
	name   string
	schema *schema.Schema
	opts   Options
	syms   *intern.Table
	store  *store.Store
	kinds  []schema.Kind // the schema's column kinds, by index
	nodes  []node

	ingested, rejected, evicted uint64
	latest                      int64
	hasLatest                   bool
	busy                        bool
	// broken: a caller's function panicked inside a push or a build's
	// replay, leaving the nodes half way through it (see ErrBroken).
	broken bool
	// rewatch: Watch or Unwatch ran since the last push; the next push
	// applies the new selection before it starts (see Series.Watch), so
	// that the last push's output tables stay as they were returned.
	rewatch bool

	root    *rootNode
	accept  []int32 // scratch: rows of the batch accepted under drop
	rowsBuf *schema.Batch

	checkers   []checker   // the nodes that approve a push, in build order
	bases      []*nodeBase // each node's base, by id, so a push reads them without a call
	partNodes  []*partitionNode
	watches    []watch     // the outputs a push returns, in their order
	symHolders []symHolder // the nodes that hold intern ids

	// The push's steps (see steps.go), worked out for the first
	// stepsFor nodes.
	takeSteps   []takeStep
	finishSteps []finishStep
	stepsFor    int

	pool   *workers.Pool // Options.Workers > 1: the series' workers
	closed bool

	sweepEveryPush bool // tests: sweep the intern table after every push
	validateAlone  bool // tests: validate every push on its own (no stage)
}

// Stats are the counters of a series, which never decrease, and the number
// of rows it holds now.
type Stats struct {
	Ingested uint64 // rows accepted
	Rejected uint64 // rows dropped under Drop ordering
	Evicted  uint64 // rows evicted by retention
	Length   int    // rows held now
}

// New builds a series with the given schema and options. name labels the
// series, as pond-ts's name does; nothing in the series reads it. A nil
// or zero schema (which also wraps [schema.ErrSchema]), or options that
// cannot be used (a negative MaxEvents, a negative duration or one longer
// than [sequence.MaxDuration], an unknown ordering, a grace without
// reordering or longer than MaxAge, Workers outside 0 to [MaxWorkers]), is
// a [*ConfigError] wrapping [ErrConfig].
func New(name string, s *schema.Schema, opts Options) (*Series, error) {
	if s == nil {
		return nil, configErr("new", "schema", "a series needs a schema", schema.ErrSchema)
	}
	if s.Len() == 0 {
		// A zero Schema has no time column: nothing could be pushed.
		return nil, configErr("new", "schema", "a zero Schema is not a schema (build one with schema.New)", schema.ErrSchema)
	}
	if err := opts.validate("new"); err != nil {
		return nil, err
	}
	kinds := make([]schema.Kind, s.Len())
	for j := range kinds {
		kinds[j] = s.Column(j).Kind
	}
	sr := &Series{
		name:   name,
		schema: s,
		opts:   opts,
		syms:   intern.New(),
		store:  store.New(kinds, opts.Ordering == Reorder),
		kinds:  kinds,
	}
	if opts.Workers > 1 {
		sr.pool = workers.New(opts.Workers)
		// A series dropped without Close still stops its workers (they
		// hold nothing of it between pushes).
		runtime.AddCleanup(sr, func(p *workers.Pool) { p.Close() }, sr.pool)
	}
	sr.root = &rootNode{s: sr}
	rb := sr.root.base()
	rb.id, rb.src, rb.op, rb.sch = 0, -1, "root", s
	rb.out = newFrame(s)
	rb.gone = newFrame(s)
	rb.produces[Event], rb.produces[Batch], rb.produces[Evict] = true, true, true
	sr.nodes = append(sr.nodes, sr.root)
	sr.register(sr.root)
	return sr, nil
}

// Close stops the series' workers (see [Options.Workers]) and waits for
// their goroutines to exit. Afterwards pushes, builders and every other
// call that can fail return [ErrClosed]; what does not return an error
// (Len, Stats, Latest, All…) still reads what the series held. Close is
// idempotent and returns nil; calling it during a push (from a map or
// filter function) returns [ErrReentrant].
func (s *Series) Close() error {
	if !s.made() {
		return nil
	}
	if s.busy {
		return ErrReentrant
	}
	s.closed = true
	if s.pool != nil {
		s.pool.Close()
	}
	return nil
}

// Schema returns the schema of the root.
func (s *Series) Schema() *schema.Schema {
	if s == nil {
		return nil
	}
	return s.schema
}

// Root returns the id of the root node, the one pushes feed.
func (s *Series) Root() NodeID { return 0 }

// NodeSchema returns the schema of the rows a node emits.
func (s *Series) NodeSchema(id NodeID) (*schema.Schema, error) {
	n, err := s.node(id)
	if err != nil {
		return nil, err
	}
	return n.base().sch, nil
}

func (s *Series) node(id NodeID) (node, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if id < 0 || int(id) >= len(s.nodes) {
		return nil, fmt.Errorf("%w: node %d (the series has %d)", ErrNode, id, len(s.nodes))
	}
	if h, ok := s.nodes[id].(*historyNode); ok {
		return nil, fmt.Errorf("%w: node %d is the history of rolling node %d, read through that node", ErrNode, id, h.src)
	}
	return s.nodes[id], nil
}

// Watch selects outputs of a node to be returned by every push. With no
// kinds it watches the node's events. Watching a kind the node does not
// produce is an error wrapping [ErrNode].
//
// Watch and [Series.Unwatch] take effect when the next push starts, so
// that the tables the last push returned stay as they were, even when
// nodes are built in between. Called during
// a push (from a map's or filter's function), they change the outputs of
// the pushes after it, not of the running push, which returns what was
// watched when it began: part of it has already run, so its outputs of a
// newly watched kind would be partial (a window's events without the
// evictions it made before the call). A reader who starts watching a
// node thus gets every output from the next push on, and what it holds
// after the push in which it called Watch is the node's [Series.Snapshot]
// then.
func (s *Series) Watch(id NodeID, kinds ...OutputKind) error {
	n, err := s.node(id)
	if err != nil {
		return err
	}
	b := n.base()
	if len(kinds) == 0 {
		kinds = []OutputKind{Event}
	}
	for _, k := range kinds {
		if k < Event || k > Evict || !b.produces[k] {
			return fmt.Errorf("%w: %s node %d has no %s output", ErrNode, b.op, id, k)
		}
	}
	for _, k := range kinds {
		b.watched[k] = true
	}
	s.watchesChanged()
	return nil
}

// Unwatch stops returning the given kinds of outputs of a node (all of
// them when no kind is given). Unwatching a kind the node does not
// produce does nothing; a value that is not an [OutputKind] is, as for
// [Series.Watch], an error wrapping [ErrNode], and then nothing is
// unwatched. Called during a push, it takes effect once the push
// returns, as Watch does.
func (s *Series) Unwatch(id NodeID, kinds ...OutputKind) error {
	n, err := s.node(id)
	if err != nil {
		return err
	}
	b := n.base()
	if len(kinds) == 0 {
		kinds = []OutputKind{Event, Batch, Evict}
	}
	for _, k := range kinds {
		if k < Event || k > Evict {
			return fmt.Errorf("%w: %s node %d: %s is not an output kind", ErrNode, b.op, id, k)
		}
	}
	for _, k := range kinds {
		b.watched[k] = false
	}
	s.watchesChanged()
	return nil
}

// watchesChanged marks a change of the watched outputs, which the next
// push applies when it starts.
func (s *Series) watchesChanged() { s.rewatch = true }

// watch is one output a push returns when it holds rows: a node's
// events, batches or evictions.
type watch struct {
	b    *nodeBase
	kind OutputKind
	f    *frame // the frame of that kind: b's out, or its gone for Evict
}

// refreshWants recomputes which nodes must build their eviction frames,
// and the outputs a push returns.
func (s *Series) refreshWants() {
	s.rewatch = false
	s.watches = s.watches[:0]
	for k := Event; k <= Evict; k++ {
		for _, n := range s.nodes {
			if b := n.base(); b.watched[k] {
				f := &b.out
				if k == Evict {
					f = &b.gone
				}
				s.watches = append(s.watches, watch{b, k, f})
			}
		}
	}
	for _, n := range s.nodes {
		b := n.base()
		b.wantGone = b.watched[Evict]
	}
	for _, n := range s.nodes {
		b := n.base()
		if b.followsEvictions && b.src >= 0 {
			s.nodes[b.src].base().wantGone = true
		}
	}
	for _, n := range s.nodes {
		if b := n.base(); !b.wantGone && b.gone.tab != nil {
			b.gone.reset() // nothing reads it now; see nodeBase.wantGone
		}
	}
}

// addNode registers a built node and replays the rows the series holds
// into it, so that it starts from what its source holds (its emissions
// during the replay are dropped). The node may follow its source's
// evictions, which changes what is wanted: the next push applies that
// when it starts, as it does a Watch, so that the tables the last push
// returned stay as they were.
func (s *Series) addNode(n node) NodeID {
	b := n.base()
	b.id = NodeID(len(s.nodes))
	s.nodes = append(s.nodes, n)
	s.register(n)
	s.watchesChanged()
	return b.id
}

// registerAll notes again what every node does, after nodes were
// forgotten (see [Series.PerPartition]): every list register keeps is
// made anew, and the push's steps are worked out again.
func (s *Series) registerAll() {
	clear(s.bases)
	clear(s.partNodes)
	clear(s.checkers)
	clear(s.symHolders)
	s.bases, s.partNodes, s.checkers, s.symHolders = s.bases[:0], s.partNodes[:0], s.checkers[:0], s.symHolders[:0]
	for _, n := range s.nodes {
		s.register(n)
	}
	s.stepsFor = 0
}

// register notes what n does beyond every node's part, once: a push then
// runs through these lists instead of asking each node for an interface
// (an assertion to an interface type may allocate in the runtime's
// cache of them, now and then, which a steady push must not).
func (s *Series) register(n node) {
	s.bases = append(s.bases, n.base())
	if pn, ok := n.(*partitionNode); ok {
		s.partNodes = append(s.partNodes, pn)
	}
	if c, ok := n.(checker); ok && c.checks() {
		s.checkers = append(s.checkers, c)
	}
	if h, ok := n.(symHolder); ok {
		s.symHolders = append(s.symHolders, h)
	}
}

// HeldBytes returns the memory the root holds, for sizing a series: its
// storage (its chunks, spare ones included: 8 bytes per row for the time,
// 8 per number, 4 per string — an intern id —, 1 per boolean, and about
// a sixteenth of a byte per row for the chunks' headers) and the table of
// the distinct strings the series holds (about 32 bytes a string beside
// the string's own bytes, which are not counted).
func (s *Series) HeldBytes() int {
	if !s.made() {
		return 0
	}
	return s.store.Bytes() + s.syms.Bytes()
}

// Describe returns a one-line description of a node: its operation and,
// for a rolling, how each window is kept — "rolling: 1m, 200ms" for the
// default mode, "rolling aligned: 1m: panes of 200ms; 200ms: panes of
// 200ms + raw rows" under aligned windows (panes of mergeable partial
// states; raw rows only for outputs that need every value, or "+ samples
// read from the series' rows" where a window of one step reads its
// samples from the rows the series holds instead of keeping them; see the
// rolling package's "Aligned windows"), and "rolling:
// 1s (counts by time)" for an unpartitioned rolling under a clock or
// count trigger whose time windows only count (rows, or a column's
// present values), which keeps a time and counts per run of rows with
// equal times rather than every row. An unknown id is an error wrapping
// [ErrNode].
func (s *Series) Describe(id NodeID) (string, error) {
	n, err := s.node(id)
	if err != nil {
		return "", err
	}
	r, ok := n.(*rollingNode)
	if !ok {
		return n.base().op, nil
	}
	if aligned, wins := r.plan.Aligned(r.held != nil); aligned {
		return "rolling aligned: " + strings.Join(wins, "; "), nil
	}
	d := "rolling: " + strings.Join(r.plan.WindowNames(), ", ")
	if r.plan.CountsByTime() {
		d += " (counts by time)"
	}
	return d, nil
}

// NodeBytes returns the memory a node's own state holds, the root's
// storage excluded: for a rolling, its windows (deque blocks and
// extremes, the states of its other reducers such as a median's values or
// a unique's distinct keys, or under aligned windows its panes and raw
// rows) and its history; for a window or a view that keeps rows (map,
// diff, rate, pctChange, fill, cumulative), those rows, and for a filter
// or a sample over a node that holds rows, the keys of those it passed;
// for every view, the state its operation keeps per partition (a previous
// value, a running total, a last present value); for a partition, the
// rows each partition keeps and the router's tables; for a reduce or an
// aggregate, its reducers' states (an aggregate's open buckets). Slices
// count at their capacity and maps are estimated from their entries (a
// push may grow a node's scratch room, a refused push too, which then
// stays: it changes no state, but can change NodeBytes, once); the bytes
// of strings, shared with the series, are not counted, nor are the
// node's output tables (this push's rows and its latest emission, which
// keep the room of the largest emission; see "Ordering and retention" in
// the package doc). With Workers above one, a partitioned rolling's
// count includes the rows handed to a worker before its tick, so it may
// differ from one worker's. It is 0 for nodes that keep no state of their
// own. An unknown id is an error wrapping [ErrNode].
func (s *Series) NodeBytes(id NodeID) (int, error) {
	n, err := s.node(id)
	if err != nil {
		return 0, err
	}
	b := 0
	if h, ok := n.(interface{ heldBytes() int }); ok {
		b = h.heldBytes()
	}
	if _, ok := n.(*rollingNode); ok {
		if h := s.history(id); h != nil {
			b += h.heldBytes()
		}
	}
	return b, nil
}

// Len returns the number of rows the series holds.
func (s *Series) Len() int {
	if !s.made() {
		return 0
	}
	return s.store.Len()
}

// Stats returns the series' counters.
func (s *Series) Stats() Stats {
	if !s.made() {
		return Stats{}
	}
	return Stats{Ingested: s.ingested, Rejected: s.rejected, Evicted: s.evicted, Length: s.store.Len()}
}

// Latest returns the latest time the series holds, and false when it is
// empty.
func (s *Series) Latest() (time.Time, bool) {
	ns, ok := s.LatestNanos()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, ns).UTC(), true
}

// LatestNanos is [Series.Latest] in nanoseconds since the epoch.
func (s *Series) LatestNanos() (int64, bool) {
	if s.Len() == 0 {
		return 0, false
	}
	return s.store.Time(s.store.Len() - 1), true
}

// All iterates over the rows the series holds, in time order. Each row is a
// new slice. A push from inside the loop that stores or evicts rows ends
// the iteration: the indices no longer name the rows they named.
func (s *Series) All() iter.Seq2[int, schema.Row] {
	return func(yield func(int, schema.Row) bool) {
		if !s.made() {
			return
		}
		ingested, evicted := s.ingested, s.evicted
		for r := 0; r < s.store.Len() && s.ingested == ingested && s.evicted == evicted; r++ {
			if !yield(r, s.row(r)) {
				return
			}
		}
	}
}

func (s *Series) row(r int) schema.Row {
	row := make(schema.Row, s.schema.Len())
	row[0] = schema.NanosValue(s.store.Time(r))
	for j := 1; j < len(row); j++ {
		row[j] = s.cell(r, j)
	}
	return row
}

func (s *Series) cell(r, j int) schema.Value {
	switch s.schema.Column(j).Kind {
	case schema.Number:
		if f := s.store.Num(r, j); f == f {
			return schema.NumberValue(f)
		}
	case schema.String:
		if id := s.store.Sym(r, j); id != 0 {
			return schema.StringValue(s.syms.Str(id))
		}
	case schema.Bool:
		if f := s.store.Flag(r, j); f != cell.Missing {
			return schema.BoolValue(f == cell.True)
		}
	case schema.Array:
		if a := s.store.Arr(r, j); a != nil {
			return schema.ArrayValue(a...)
		}
	}
	return schema.Value{}
}

// appendStored appends row r of the store to a frame.
func (s *Series) appendStored(f *frame, r int) {
	table.Column(f.tab, 0).AppendTime(s.store.Time(r))
	for j := 1; j < s.schema.Len(); j++ {
		c := table.Column(f.tab, j)
		switch s.schema.Column(j).Kind {
		case schema.Number:
			c.AppendNum(s.store.Num(r, j))
		case schema.String:
			id := s.store.Sym(r, j)
			if id == 0 {
				c.AppendMissing()
			} else {
				c.AppendStr(s.syms.Str(id))
			}
			f.syms[j] = append(f.syms[j], id)
		default:
			table.AppendValue(c, s.cell(r, j))
		}
	}
}

// PushRows is [Series.PushMany] for rows of values: each row has one cell
// per column, the time first. It is the convenient path for generic code;
// the columnar batch is the fast one.
func (s *Series) PushRows(dst []Output, rows ...schema.Row) ([]Output, error) {
	// Checked before the batch is touched: a push from inside a push
	// would overwrite the running push's batch, which its outputs borrow.
	if err := s.canPush(); err != nil {
		return dst, err
	}
	if s.rowsBuf == nil {
		s.rowsBuf = schema.NewBatch(s.schema, len(rows))
	}
	s.rowsBuf.Reset()
	for j := range s.rowsBuf.Cols {
		s.rowsBuf.Cols[j].Missing = nil
	}
	if err := s.schema.AppendRows(s.rowsBuf, rows); err != nil {
		return dst, err
	}
	return s.PushMany(dst, s.rowsBuf)
}

// PushMany pushes one batch of rows and appends the outputs of every
// watched node to dst.
//
// A push is atomic: every row is validated (cells, ordering, partition
// constraints) before anything changes. On error nothing is stored,
// emitted or counted, dst is returned unchanged, and the error names the
// offending row. A nil batch is such an error: a [*schema.RowError] of
// reason [schema.RowLength] for the batch as a whole.
//
// # Output order
//
// Outputs come grouped by kind, then by node in build order: first every
// watched node's Event output, then every Batch output, then every Evict
// output. A node contributes at most one Output of each kind per push (all
// its rows of that kind in one table), and none when it produced no rows.
// The tables are owned by the series and valid until the next push; read
// them and do not write into their slices, whose cells the series may
// keep for the next push's rows.
func (s *Series) PushMany(dst []Output, b *schema.Batch) ([]Output, error) {
	if err := s.canPush(); err != nil {
		return dst, err
	}
	if b == nil {
		return dst, s.schema.Validate(b, false)
	}
	if s.rewatch {
		s.refreshWants()
	}
	// A push that does not return (a filter's or a map's function
	// panicked, after the commit point) leaves the nodes half way
	// through it: the series refuses every later call with ErrBroken.
	s.busy = true
	returned := false
	defer func() {
		s.busy = false
		if !returned {
			s.broken = true
		}
	}()
	dst, err := s.push(dst, b)
	returned = true
	return dst, err
}

// rollback undoes what a push that fails did before its commit point:
// the intern ids it gave, and what the root's intern caches took of them.
func (s *Series) rollback() {
	s.syms.Rollback()
	s.root.forgetMissed()
}

// push is PushMany's work once the push may start.
func (s *Series) push(dst []Output, b *schema.Batch) ([]Output, error) {
	// Under strict ordering the batch's own order is checked with its
	// cells, in the same pass as its times' range; a batch out of order
	// is an ordering error, which take reports, unless a cell is invalid.
	// The common batch is checked while its times and numbers are copied
	// to the store (stage); any other is validated on its own.
	inOrder := s.opts.Ordering == Strict
	s.root.staged = inOrder && !s.validateAlone && s.root.stage(b)
	if !s.root.staged {
		if err := s.schema.Validate(b, inOrder); err != nil {
			if !inOrder || !unsorted(err) {
				return dst, err
			}
			if err := s.schema.Validate(b, false); err != nil {
				return dst, err
			}
			inOrder = false
		}
	}
	s.syms.Begin()
	if err := s.root.take(b, inOrder); err != nil {
		s.rollback()
		return dst, err
	}
	for _, c := range s.checkers {
		if err := c.check(); err != nil {
			s.rollback()
			return dst, err
		}
	}
	// Commit point: from here on nothing fails.
	s.root.commit()
	if s.stepsFor != len(s.nodes) {
		s.planSteps()
	}
	for _, st := range s.takeSteps {
		st.n.push(st.in)
	}
	s.root.retain()
	s.root.finish()
	// The finish pass, in build order: a node takes its source's
	// evictions once the source has finished (a partition expires idle
	// partitions in finish), and a node fed by a late node takes its rows
	// here.
	for i := range s.finishSteps {
		st := &s.finishSteps[i]
		if st.late != nil {
			st.n.push(st.late)
		}
		if st.gone != nil && st.gone.len() > 0 {
			st.n.evicted(st.gone)
		}
		if st.finish {
			st.n.finish()
		}
	}
	s.sweepSyms()
	return s.collect(dst), nil
}

// canPush reports why a push cannot start now: [ErrNotMade],
// [ErrReentrant] from inside a push, or what usable says.
func (s *Series) canPush() error {
	if !s.made() {
		return ErrNotMade
	}
	if s.busy {
		return ErrReentrant
	}
	return s.usable()
}

// usable returns [ErrNotMade] for a series [New] did not make,
// [ErrClosed] after [Series.Close], [ErrBroken] after a panic inside a
// push, or nil.
func (s *Series) usable() error {
	if !s.made() {
		return ErrNotMade
	}
	if s.closed {
		return ErrClosed
	}
	if s.broken {
		return ErrBroken
	}
	return nil
}

// made reports whether [New] made s: a zero Series or a nil pointer was
// not.
func (s *Series) made() bool { return s != nil && s.store != nil }

// guarded runs f, which runs a caller's function (a filter's or a map's)
// outside a push, on state it cannot roll back (a new view's replay):
// as inside a push, the function cannot push or build, and a panic out
// of it leaves the series broken.
func (s *Series) guarded(f func()) {
	s.busy = true
	returned := false
	defer func() {
		s.busy = false
		if !returned {
			s.broken = true
		}
	}()
	f()
	returned = true
}

// checker is a node that must approve a push before it commits (a
// partition with declared groups or a limit).
type checker interface {
	check() error
	// checks reports whether the node can refuse a push at all.
	checks() bool
}

func (s *Series) collect(dst []Output) []Output {
	for _, w := range s.watches {
		if f := w.f; f.len() > 0 {
			dst = append(dst, Output{Node: w.b.id, Kind: w.kind, Events: f.tab})
		}
	}
	return dst
}

// rootNode is the series itself as node 0.
type rootNode struct {
	nodeBase
	s       *Series
	dropped int
	sorted  bool    // the accepted rows continue the store in order
	sel     []int32 // batch rows accepted, nil when all were
	cache   []internCache
	strCols []int      // the string columns, which have a cache
	numCols []int      // the number columns
	plain   bool       // every value column is a number or a string column
	idBuf   [][]uint32 // per string column: the intern ids out holds when its cells are copied (internSome, fill), not the cache's
	// aliased: every column of out borrows the last push's batch (see
	// fillAll), so that the next such push need not reset out.
	aliased bool
	// cached: every string column of this push took its ids from its
	// intern cache whole (see internAll), so rememberStrings has nothing
	// to do.
	cached bool
	// staged: this push's times and numbers are in the store's room
	// (see stage), for commit to append with the rest of its columns.
	staged bool
}

func (r *rootNode) push(*frame)    {}
func (r *rootNode) evicted(*frame) {}
func (r *rootNode) finish()        {}

// unsorted reports whether err is a batch's times out of order.
func unsorted(err error) bool {
	var re *schema.RowError
	return errors.As(err, &re) && re.Reason == schema.Unsorted
}

// take applies the ordering to a validated batch and builds the frame of
// accepted rows (interning strings). It changes nothing else. inOrder
// tells that the batch's times are known not to decrease.
func (r *rootNode) take(b *schema.Batch, inOrder bool) error {
	s := r.s
	if r.wantGone {
		r.gone.reset() // else empty: see nodeBase.wantGone
	}
	r.dropped = 0
	r.cached = false
	latest, has := s.latest, s.hasLatest
	all := true
	r.sorted = true
	switch s.opts.Ordering {
	case Strict:
		// In order when the first row is not before the latest and each
		// row is not before the one before it (then the latest before
		// row i is row i-1).
		ts := b.Time
		if len(ts) > 0 && has && ts[0] < latest {
			return &OrderError{Row: 0, Time: ts[0], Latest: latest, err: ErrOutOfOrder}
		}
		for i := 1; i < len(ts) && !inOrder; i++ {
			if ts[i] < ts[i-1] {
				return &OrderError{Row: i, Time: ts[i], Latest: ts[i-1], err: ErrOutOfOrder}
			}
		}
	case Drop:
		s.accept = s.accept[:0]
		for i, t := range b.Time {
			if has && t < latest {
				r.dropped++
				continue
			}
			latest, has = t, true
			s.accept = append(s.accept, int32(i))
		}
		all = r.dropped == 0
	case Reorder:
		grace := int64(s.opts.Grace)
		for i, t := range b.Time {
			if has && t < latest {
				r.sorted = false
				if grace > 0 && latest-t > grace {
					return &OrderError{Row: i, Time: t, Latest: latest, Grace: s.opts.Grace, err: ErrLate}
				}
				continue
			}
			latest, has = t, true
		}
	}
	r.out.sorted = r.sorted
	if all {
		r.sel = nil
		// The common push (a schema of numbers and strings, no missing
		// cells) borrows the batch's columns without fillAll's choices.
		// A staged batch is one: stage checked that no cell is missing.
		if r.staged || r.plain && allBorrowable(b) {
			r.borrowAll(b)
		} else {
			r.fillAll(b)
		}
	} else {
		r.sel = s.accept
		r.out.reset()
		r.aliased = false
		r.fill(b, s.accept, len(s.accept))
	}
	return nil
}

// batchRow returns the index in the pushed batch of accepted row i.
func (r *rootNode) batchRow(i int) int {
	if r.sel == nil {
		return i
	}
	return int(r.sel[i])
}

// fill copies the accepted rows (all of them when sel is nil) into the
// out frame.
func (r *rootNode) fill(b *schema.Batch, sel []int32, n int) {
	s := r.s
	f := &r.out
	tab := f.tab
	row := func(i int) int {
		if sel == nil {
			return i
		}
		return int(sel[i])
	}
	if sel == nil {
		table.Column(tab, 0).AppendTimes(b.Time)
	} else {
		for _, i := range sel {
			table.Column(tab, 0).AppendTime(b.Time[i])
		}
	}
	for j := 1; j < s.schema.Len(); j++ {
		v := &b.Cols[j-1]
		c := table.Column(tab, j)
		switch s.schema.Column(j).Kind {
		case schema.Number:
			if sel == nil && v.Missing == nil {
				c.AppendNums(v.Num)
				continue
			}
			for k := range n {
				i := row(k)
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendNum(v.Num[i])
				}
			}
		case schema.String:
			r.makeCaches()
			ids := r.idBuf[j][:0] // f.syms[j] may be a cache's ids
			for k := range n {
				i := row(k)
				if missingAt(v, i) {
					c.AppendMissing()
					ids = append(ids, 0)
				} else {
					c.AppendStr(v.Str[i])
					ids = append(ids, s.syms.ID(v.Str[i]))
				}
			}
			f.syms[j] = ids
			r.idBuf[j] = ids
		case schema.Bool:
			for k := range n {
				i := row(k)
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendBool(v.Bool[i])
				}
			}
		case schema.Array:
			for k := range n {
				i := row(k)
				if missingAt(v, i) {
					c.AppendMissing()
				} else {
					c.AppendArray(v.Arr[i])
				}
			}
		}
	}
	next := s.ingested
	for k := range n {
		f.ids = append(f.ids, next+uint64(k))
	}
}

// commit stores the accepted rows and moves the counters.
func (r *rootNode) commit() {
	s := r.s
	f := &r.out
	times := f.tab.Times()
	n := len(times)
	src := &store.Source{Table: f.tab, Syms: f.syms, IDs: f.ids}
	last := int64(0) // the time of the store's last row, when n > 0
	if r.staged {
		s.store.AppendRoom(src, n)
		last = times[n-1] // stage took n > 0 rows in order
	} else if r.sorted {
		s.store.Append(src, 0, n)
		if n > 0 {
			last = times[n-1] // the rows went to the end, in order
		}
	} else {
		for i := range n {
			t := f.tab.TimeNanos(i)
			if s.store.Len() == 0 || t >= s.store.Time(s.store.Len()-1) {
				s.store.Append(src, i, i+1)
			} else {
				s.store.Insert(s.store.UpperBound(t), src, i)
			}
		}
		if n > 0 {
			last = s.store.Time(s.store.Len() - 1)
		}
	}
	s.ingested += uint64(n)
	s.rejected += uint64(r.dropped)
	if !r.cached {
		r.rememberStrings()
	}
	if n > 0 {
		if !s.hasLatest || last > s.latest {
			s.latest, s.hasLatest = last, true
		}
	}
}

// retain applies retention once, after the push, evicting a prefix of the
// rows in time order.
func (r *rootNode) retain() {
	s := r.s
	n := s.store.Len()
	if n == 0 {
		return
	}
	k := 0
	if s.opts.MaxEvents > 0 && n > s.opts.MaxEvents {
		k = n - s.opts.MaxEvents
	}
	if s.opts.MaxAge > 0 {
		// The store's last row is at the latest time: rows are held
		// in time order, commit takes the latest from the last row, and
		// retention never evicts the last row (MaxAge keeps the rows at
		// the latest time, MaxEvents at least one). s.latest is read
		// without reaching into the store's last chunk.
		cutoff := s.latest - int64(s.opts.MaxAge)
		k = max(k, s.store.Older(cutoff))
	}
	if k == 0 {
		return
	}
	if r.wantGone {
		g := &r.gone
		for i := range k {
			s.appendStored(g, i)
			g.ids = append(g.ids, s.storedID(i))
		}
	}
	for _, pn := range s.partNodes {
		pn.rescueLast(k)
	}
	s.store.Evict(k)
	s.evicted += uint64(k)
}

// storedID returns the identity of stored row i: kept in the store under
// reorder; otherwise rows are held in arrival order, so it follows from
// the count of rows ever evicted.
func (s *Series) storedID(i int) uint64 {
	if s.opts.Ordering == Reorder {
		return s.store.ID(i)
	}
	return s.evicted + uint64(i)
}

// arrivalOrder returns the positions of the stored rows sorted by arrival.
func (s *Series) arrivalOrder() []int {
	pos := make([]int, s.store.Len())
	for i := range pos {
		pos[i] = i
	}
	if s.opts.Ordering == Reorder {
		slices.SortStableFunc(pos, func(a, b int) int {
			ia, ib := s.store.ID(a), s.store.ID(b)
			switch {
			case ia < ib:
				return -1
			case ia > ib:
				return 1
			}
			return 0
		})
	}
	return pos
}

// missingAt reports whether cell i of a batch column is marked missing
// (a Vec without Missing flags has none).
func missingAt(v *schema.Vec, i int) bool { return v.Missing != nil && v.Missing[i] }
