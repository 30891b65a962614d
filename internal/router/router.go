package router

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/pond-go/pond/internal/article"
	"github.com/pond-go/pond/internal/column"
	"github.com/pond-go/pond/internal/intern"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

// OptionError is what [CheckOptions] refuses: the option (or "column",
// for a column that cannot be partitioned by) and the error, which wraps
// [partition.ErrOptions].
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Err.Error() }

// Unwrap returns the error underneath.
func (e *OptionError) Unwrap() error { return e.Err }

// optErr is an [OptionError] of option, its message formatted after
// [partition.ErrOptions]'s.
func optErr(option, format string, args ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf("%w: "+format, append([]any{partition.ErrOptions}, args...)...)}
}

// CheckOptions validates partition options for a partition column of kind
// k; what it refuses is an [*OptionError].
func CheckOptions(o partition.Options, k schema.Kind) error {
	switch {
	case k != schema.String && k != schema.Number && k != schema.Bool:
		return optErr("column", "cannot partition by %s column", article.A(k.String()))
	case o.MaxEvents < 0:
		return optErr("MaxEvents", "MaxEvents %d must not be negative", o.MaxEvents)
	case o.MaxAge < 0:
		return optErr("MaxAge", "MaxAge %v must not be negative", o.MaxAge)
	case o.MaxPartitions < 0:
		return optErr("MaxPartitions", "MaxPartitions %d must not be negative", o.MaxPartitions)
	case o.IdleTTL < 0:
		return optErr("IdleTTL", "IdleTTL %v must not be negative", o.IdleTTL)
	case o.MaxAge > sequence.MaxDuration:
		return optErr("MaxAge", "MaxAge %v is longer than %v", o.MaxAge, sequence.MaxDuration)
	case o.IdleTTL > sequence.MaxDuration:
		return optErr("IdleTTL", "IdleTTL %v is longer than %v", o.IdleTTL, sequence.MaxDuration)
	case o.MaxPartitions > 0 && len(o.Groups) > o.MaxPartitions:
		return optErr("Groups", "%d declared groups exceed MaxPartitions %d", len(o.Groups), o.MaxPartitions)
	}
	for i, g := range o.Groups {
		if !g.IsMissing() && g.Kind() != k {
			return optErr("Groups", "group %d (%s) is %s, the column is %s", i, g, article.A(g.Kind().String()), k)
		}
		if f, ok := g.Num(); ok && (math.IsInf(f, 0) || f != f) {
			return optErr("Groups", "group %d (%s) is not finite", i, g)
		}
		for j := range i {
			if o.Groups[j].Equal(g) {
				return optErr("Groups", "group %s is declared twice", g)
			}
		}
	}
	return nil
}

// Key is a partition key in the form routing uses: the kind, and a
// 64-bit code — an intern id for strings, the bits of a number (−0 as 0),
// 1 or 2 for a boolean. A missing key has kind 0 and code 0.
type Key struct {
	Kind schema.Kind
	Code uint64
}

// NumberKey returns the key of a number.
func NumberKey(f float64) Key {
	if f == 0 {
		f = 0 // −0 and 0 are one partition
	}
	return Key{Kind: schema.Number, Code: math.Float64bits(f)}
}

// Router maps keys to dense partition indices, in first-seen order after
// the declared groups. Index lookups for string keys are a slice lookup by
// intern id. A partition's key value is not kept: it is made from its
// code when asked for (a string's from the intern table), which saves a
// value's three words a partition. A Router is not safe for concurrent
// use.
type Router struct {
	opts     partition.Options
	kind     schema.Kind
	syms     *intern.Table // the strings of string keys' codes
	bySym    []int32       // intern id → index + 1
	other    map[Key]int32
	ids      []uint32 // a string router's partitions' key codes (intern ids; 0 once removed)
	codes    []uint64 // another router's; a key's kind is the column's
	missing  int32    // index + 1 of the partition of missing keys, if any
	negZero  int32    // index + 1 of the partition first routed as −0, if any
	alive    []bool
	gen      []uint32
	seen     []seen  // what was routed to each partition
	order    []int32 // alive partitions in emission order
	free     []int32
	parked   []int32 // removed by MakeRoom, free from the next Expire
	declared int
	count    int
	changes  uint64 // partitions created or removed so far (see Changes)
	// The partitions of the rows Remember was given, changes then (see
	// Again), and the lists Remember has kept (see AgainID).
	again   []int32
	againAt uint64
	againN  uint64
	// The rows routed by RouteAgainAt and not yet written to seen (see
	// settle): how many pushes of them, their latest time, and the
	// identity of the first row of the last.
	owed      uint64
	owedLast  int64
	owedFirst uint64
	// fitted: the partition indices (Cap) when Fit last let go of the
	// tables' room.
	fitted int
}

// seen is what a partition was routed since it was created: how many
// rows, the latest time, and the identity the caller gave its last row.
type seen struct {
	last    int64
	rows    uint64
	lastRow uint64
}

// NewRouter returns a router for a column of kind k, with the declared
// groups of o already created. keyOf turns a declared group into its
// routing key (for strings, by interning it in syms, the table string
// keys' codes are ids of; syms may be nil for other kinds). The owner of
// syms keeps the ids of the live partitions' keys (see [Router.Key]).
// Options that [CheckOptions] refuses are its error.
func NewRouter(k schema.Kind, o partition.Options, keyOf func(schema.Value) Key, syms *intern.Table) (*Router, error) {
	if err := CheckOptions(o, k); err != nil {
		return nil, err
	}
	r := &Router{opts: o, kind: k, syms: syms, other: map[Key]int32{}}
	for _, g := range o.Groups {
		r.create(keyOf(g), g)
	}
	r.declared = len(o.Groups)
	return r, nil
}

// Options returns the router's options.
func (r *Router) Options() partition.Options { return r.opts }

// Declared reports whether groups were declared.
func (r *Router) Declared() bool { return r.declared > 0 }

// Find returns the index of key's partition, if it is alive.
func (r *Router) Find(k Key) (int32, bool) {
	if k.Kind == schema.String {
		if k.Code < uint64(len(r.bySym)) {
			if i := r.bySym[k.Code]; i > 0 {
				return i - 1, true
			}
		}
		return 0, false
	}
	i, ok := r.other[k]
	return i, ok
}

// Route returns the index of key's partition, creating it if needed, and
// records a row routed there: at time t (the latest time is the greatest
// routed), identity row (its last row's is the last routed).
func (r *Router) Route(k Key, v schema.Value, t int64, row uint64) int32 {
	r.settle()
	i, ok := r.Find(k)
	if !ok {
		i = r.create(k, v)
	}
	r.seen[i].note(t, row)
	return i
}

// note records a row routed at time t, of identity row.
func (s *seen) note(t int64, row uint64) {
	if t > s.last {
		s.last = t
	}
	s.rows++
	s.lastRow = row
}

// SymIndex returns the table of string keys' partitions by intern id:
// index + 1 of the live partition of id's key, 0 for none (an id past it
// has none). It is the router's own, valid until the next route.
func (r *Router) SymIndex() []int32 { return r.bySym }

// SymKeys returns the key of each partition of a string router by index:
// its intern id, 0 for the partition of missing keys and for an index no
// live partition holds (nil for a router of other kinds). It is the
// inverse of [Router.SymIndex] for the live partitions, the router's own,
// valid until the next route.
func (r *Router) SymKeys() []uint32 { return r.ids }

// FindSym returns the index of the live partition of string key id (an
// intern id), the routing fast path: one slice lookup.
func (r *Router) FindSym(id uint32) (int32, bool) {
	if uint64(id) < uint64(len(r.bySym)) {
		if i := r.bySym[id]; i > 0 {
			return i - 1, true
		}
	}
	return 0, false
}

// RouteSyms routes rows by their string keys' intern ids while those keys
// have live partitions that were routed a row before: row i, of key
// ids[i] at times[i] and of identity rows[i], gets its partition index in
// parts[i] and is recorded as Route records it. It returns how many rows
// it routed; the next row is one whose key has no live partition, or the
// first row of its partition (for the caller to route, as something may
// be due at a partition's first row), and it routes them all when that
// is len(ids). ids, times, rows and parts have one entry per row.
func (r *Router) RouteSyms(ids []uint32, times []int64, rows []uint64, parts []int32) int {
	r.settle()
	bySym, seen := r.bySym, r.seen
	times, rows, parts = times[:len(ids)], rows[:len(ids)], parts[:len(ids)]
	for i, id := range ids {
		if uint64(id) >= uint64(len(bySym)) {
			return i
		}
		// An id without a partition (bySym 0) makes p −1, out of seen's
		// range as an unsigned index: one test for both.
		p := bySym[id] - 1
		if uint32(p) >= uint32(len(seen)) {
			return i
		}
		s := &seen[p]
		if s.rows == 0 {
			return i
		}
		parts[i] = p
		if t := times[i]; t > s.last {
			s.last = t
		}
		s.rows++
		s.lastRow = rows[i]
	}
	return len(ids)
}

// RouteSymsAt is [Router.RouteSyms] for rows that all have time t and
// whose identities run on from first (row i's is first+i): the common
// push of a tick of every key, whose times and identities it then need
// not read.
func (r *Router) RouteSymsAt(ids []uint32, t int64, first uint64, parts []int32) int {
	r.settle()
	bySym, seen := r.bySym, r.seen
	parts = parts[:len(ids)]
	for i, id := range ids {
		if uint64(id) >= uint64(len(bySym)) {
			return i
		}
		p := bySym[id] - 1 // −1 without a partition: out of seen's range, as in RouteSyms
		if uint32(p) >= uint32(len(seen)) {
			return i
		}
		s := &seen[p]
		if s.rows == 0 {
			return i
		}
		parts[i] = p
		s.last = max(s.last, t)
		s.rows++
		s.lastRow = first + uint64(i)
	}
	return len(ids)
}

// Remember keeps parts, the partitions rows were just routed to, for
// [Router.RouteAgainAt].
func (r *Router) Remember(parts []int32) {
	r.settle() // what is owed is owed to the partitions remembered before
	r.again = append(r.again[:0], parts...)
	r.againAt = r.changes
	r.againN++
}

// AgainID numbers parts when it is the router's list that
// [Router.RouteAgainAt] returns (the same memory, as long), and returns
// 0 for any other list: every list [Router.Remember] keeps gets a new
// number, so two lists of the same number are the same partitions, row
// for row, whatever was remembered or routed between them.
func (r *Router) AgainID(parts []int32) uint64 {
	if len(parts) == 0 || len(parts) != len(r.again) || &parts[0] != &r.again[0] {
		return 0
	}
	return r.againN
}

// Again reports whether [Router.RouteAgainAt] can route k rows: the last
// [Router.Remember] kept k partitions, and no partition was created or
// removed since. The caller knows whether the rows have the keys of the
// rows remembered, in the same order.
func (r *Router) Again(k int) bool { return k == len(r.again) && r.againAt == r.changes }

// RouteAgainAt is [Router.RouteSymsAt] for rows whose partitions were
// found before: rows of the keys of the rows last remembered
// ([Router.Remember]), in the same order, when [Router.Again] reports
// they can be routed so. Row i goes to the partition remembered for row
// i; each of those partitions had a row then, so every row is routed
// here. Row i has time t and identity first+i. It returns the rows'
// partitions, which are the router's own: valid until the next
// Remember, and not to be written to.
//
// It costs a constant, not a constant a row: what the rows change for
// their partitions (latest time, count, last row) is owed and written
// for all of the pushes routed so since at once, when something next
// reads or changes it (settle).
func (r *Router) RouteAgainAt(t int64, first uint64) []int32 {
	if r.owed == 0 || t > r.owedLast {
		r.owedLast = t
	}
	r.owed++
	r.owedFirst = first
	return r.again[:len(r.again):len(r.again)]
}

// settle writes to seen what the rows routed by RouteAgainAt since the
// last settle owe it. Every exported method that reads or changes seen,
// or creates or removes partitions, settles first (Expire and MakeRoom
// through Idle, before they remove any). It is small enough to be written where it
// is called; the work is behind a call.
func (r *Router) settle() {
	if r.owed != 0 {
		r.pay()
	}
}

// pay is settle's work: each of the owed pushes routed one row to the
// partition remembered for each row, so a partition remembered for c rows
// was routed c rows a push, the last of them, in the last push, the row
// of the last of its positions.
func (r *Router) pay() {
	seen, m, t, first := r.seen, r.owed, r.owedLast, r.owedFirst
	for i, p := range r.again {
		s := &seen[p]
		s.last = max(s.last, t)
		s.rows += m
		s.lastRow = first + uint64(i)
	}
	r.owed = 0
}

// Changes returns how many partitions were created or removed so far: a
// key's partition is the one it had when Changes last returned the same
// count.
func (r *Router) Changes() uint64 { return r.changes }

// Touch records t as a time routed to partition i.
func (r *Router) Touch(i int32, t int64) {
	r.settle()
	if t > r.seen[i].last {
		r.seen[i].last = t
	}
}

func (r *Router) create(k Key, v schema.Value) int32 {
	var i int32
	if n := len(r.free); n > 0 {
		i = r.free[n-1]
		r.free = r.free[:n-1]
		r.alive[i], r.seen[i] = true, seen{last: math.MinInt64}
		if r.kind == schema.String {
			r.ids[i] = uint32(k.Code)
		} else {
			r.codes[i] = k.Code
		}
		r.gen[i]++
	} else {
		i = int32(len(r.gen))
		if r.kind == schema.String {
			r.ids = append(r.ids, uint32(k.Code))
		} else {
			r.codes = append(r.codes, k.Code)
		}
		r.alive = append(r.alive, true)
		r.gen = append(r.gen, 0)
		r.seen = append(r.seen, seen{last: math.MinInt64})
	}
	if k.Kind == 0 {
		r.missing = i + 1
	}
	if k.Kind == schema.String {
		for uint64(len(r.bySym)) <= k.Code {
			r.bySym = append(r.bySym, 0)
		}
		r.bySym[k.Code] = i + 1
	} else {
		r.other[k] = i
		if f, ok := v.Num(); ok && f == 0 && math.Signbit(f) {
			r.negZero = i + 1 // its key value is −0, which its code does not tell
		}
	}
	r.order = append(r.order, i)
	r.count++
	r.changes++
	return i
}

// Fit lets go of the room append's growth left in the tables kept by
// partition index, and reports whether it was due: when the indices grew
// by an eighth or more since it last was, so that partitions made a few
// at a time cost a constant a partition in copies. append grows a table
// by a quarter, and the room it leaves unused is held for the router's
// life: at 1,000 partitions, 1,344 indices a 4-byte table and 1,365 a
// row count, 14 bytes a partition. Its caller calls it after a push that
// made partitions, off the push's fast path.
func (r *Router) Fit() bool {
	n := len(r.gen)
	if n < r.fitted+r.fitted/8 || n == 0 {
		return false
	}
	r.fitted = n
	r.bySym = fit(r.bySym)
	r.ids = fit(r.ids)
	r.codes = fit(r.codes)
	r.alive = fit(r.alive)
	r.gen = fit(r.gen)
	r.seen = fit(r.seen)
	r.order = fit(r.order)
	return true
}

// fitMin is the fewest bytes of room beyond its entries [Router.Fit]
// lets go of in a table.
const fitMin = 512

// fit returns s, or a copy of its entries with less room (see
// column.FitRoom).
func fit[T any](s []T) []T { return column.FitRoom(s, fitMin) }

// Groups returns the partitions of the declared groups, in declared
// order (they are never removed and come first in Order).
func (r *Router) Groups() []int32 { return r.order[:r.declared] }

// Len returns the number of live partitions.
func (r *Router) Len() int { return r.count }

// Cap returns one more than the largest index in use: a slice of that
// length can hold per-partition state.
func (r *Router) Cap() int { return len(r.gen) }

// Order returns the live partitions in emission order: declared groups
// first, then by first appearance. The slice is the router's own.
func (r *Router) Order() []int32 { return r.order }

// KeyValue returns the key of partition i as a value of the column's kind,
// as it was first routed (missing for the partition of missing keys, and
// for an index no live partition holds).
func (r *Router) KeyValue(i int32) schema.Value {
	if r.kind == schema.String {
		// Id 0: the missing key's partition, or a removed one.
		if id := r.ids[i]; id != 0 {
			return schema.StringValue(r.syms.Str(id))
		}
		return schema.Value{}
	}
	return r.otherValue(i)
}

// KeyStrs sets keys[k] to the key of partition parts[k] for every k, and
// reports true, when the router's keys are strings and each of those
// partitions has one (not the partition of missing keys, nor an index no
// live partition holds); otherwise it reports false, keys then holding
// nothing of use. It is KeyValue for a run of partitions at once, as a
// tick appends them. keys must be as long as parts.
func (r *Router) KeyStrs(keys []string, parts []int32) bool {
	if r.kind != schema.String {
		return false
	}
	keys = keys[:len(parts)]
	for k, p := range parts {
		id := r.ids[p]
		if id == 0 {
			return false
		}
		keys[k] = r.syms.Str(id)
	}
	return true
}

// otherValue is KeyValue for a router of numbers or booleans.
func (r *Router) otherValue(i int32) schema.Value {
	if !r.alive[i] || i+1 == r.missing {
		return schema.Value{}
	}
	code := r.codes[i]
	switch r.kind {
	case schema.Number:
		if i+1 == r.negZero {
			return schema.NumberValue(math.Copysign(0, -1))
		}
		return schema.NumberValue(math.Float64frombits(code))
	}
	return schema.BoolValue(code == 2)
}

// Key returns the routing key of partition i (for a string key, its
// intern id).
func (r *Router) Key(i int32) Key {
	switch {
	case i+1 == r.missing:
		return Key{}
	case r.kind == schema.String:
		return Key{Kind: schema.String, Code: uint64(r.ids[i])}
	}
	return Key{Kind: r.kind, Code: r.codes[i]}
}

// Generation returns a number that changes when index i is given to a new
// partition, so state kept per index can tell it is stale.
func (r *Router) Generation(i int32) uint32 { return r.gen[i] }

// Alive reports whether index i holds a live
func (r *Router) Alive(i int32) bool { return int(i) < len(r.alive) && r.alive[i] }

// Last returns the latest time routed to partition i.
func (r *Router) Last(i int32) int64 {
	r.settle()
	return r.seen[i].last
}

// Rows returns the number of rows routed to partition i since it was
// created.
func (r *Router) Rows(i int32) uint64 {
	r.settle()
	return r.seen[i].rows
}

// LastRow returns the identity of the last row routed to partition i (0
// before its first row).
func (r *Router) LastRow(i int32) uint64 {
	r.settle()
	return r.seen[i].lastRow
}

// CheckNew reports whether a push that would create n new partitions is
// within MaxPartitions.
func (r *Router) CheckNew(n int) bool {
	return r.opts.MaxPartitions == 0 || r.count+n <= r.opts.MaxPartitions
}

// Expire removes the partitions, other than declared groups, whose latest
// row is older than now − IdleTTL, and appends their indices to dst. It
// does nothing without an IdleTTL. The indices [Router.MakeRoom] removed
// become free for new partitions.
func (r *Router) Expire(now int64, dst []int32) []int32 {
	r.free = append(r.free, r.parked...)
	r.parked = r.parked[:0]
	return r.expire(now, nil, dst)
}

// expire removes the idle partitions at now, except those marked in spare.
func (r *Router) expire(now int64, spare []bool, dst []int32) []int32 {
	if r.opts.IdleTTL <= 0 {
		return dst
	}
	cut := now - int64(r.opts.IdleTTL)
	keep := r.order[:0]
	for _, i := range r.order {
		if r.Idle(i, cut) && (int(i) >= len(spare) || !spare[i]) {
			dst = append(dst, i)
			r.remove(i)
			continue
		}
		keep = append(keep, i)
	}
	clear(r.order[len(keep):])
	r.order = keep
	return dst
}

// Idle reports whether Expire at a time whose cut (now − IdleTTL) is cut
// would remove partition i: it is not a declared group and its latest row
// is older than cut.
func (r *Router) Idle(i int32, cut int64) bool {
	r.settle()
	return int(i) >= r.declared && r.seen[i].last < cut
}

// MakeRoom is [Router.Expire] for a push that needs the room before its
// rows are routed: it removes the partitions Expire would, except those
// marked in spare (the ones the push routes rows to), and appends their
// indices to dst, but keeps the indices from new partitions until the
// next Expire, so that state kept per index elsewhere can be dropped
// first.
func (r *Router) MakeRoom(now int64, spare []bool, dst []int32) []int32 {
	n := len(dst)
	dst = r.expire(now, spare, dst)
	// expire freed these last: take them back from the free list.
	k := len(dst) - n
	r.parked = append(r.parked, r.free[len(r.free)-k:]...)
	r.free = r.free[:len(r.free)-k]
	return dst
}

func (r *Router) remove(i int32) {
	k := r.Key(i)
	if k.Kind == schema.String {
		r.bySym[k.Code] = 0
		r.ids[i] = 0 // KeyValue: missing
	} else {
		delete(r.other, k)
	}
	r.alive[i] = false
	if i+1 == r.missing {
		r.missing = 0
	}
	if i+1 == r.negZero {
		r.negZero = 0
	}
	r.free = append(r.free, i)
	r.count--
	r.changes++
}

// Bytes returns the memory of the router's tables (the bytes of string
// keys, the intern table's, not counted).
func (r *Router) Bytes() int {
	return int(unsafe.Sizeof(*r)) + 4*(cap(r.bySym)+cap(r.ids)+cap(r.gen)+cap(r.order)+cap(r.free)+cap(r.parked)+cap(r.again)) +
		8*cap(r.codes) + cap(r.alive) + int(unsafe.Sizeof(seen{}))*cap(r.seen) +
		len(r.other)*(int(unsafe.Sizeof(Key{}))+4+1)*8/7
}
