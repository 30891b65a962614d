// Package engine is the rolling-window engine: several named windows over
// one stream, maintained incrementally and emitted under a trigger.
//
// # Windows
//
// A [rolling.Window] is a time span or a row count and the aggregations computed
// over it ([reduce.Agg]). A time window at time t holds the rows in
// [t − Span, t], closed at both ends; a count window holds the last Count
// rows by arrival. Several time windows can share one node (the "fused"
// form of pond-ts): their outputs come out in one row, in declaration
// order.
//
// # The engine
//
// An [Engine] keeps one arrival-ordered deque of rows, shared by all the
// windows of the node: a row is stored once, row-major (its time and the
// columns the windows read side by side, one cache line), in blocks drawn
// from a pool. The deque is a ring: full blocks of 1,024 rows and a last
// block that grows through the allocator's size classes (8, 16, 32 and
// 64 rows, then steps of a seventh or less), so that a window sliding at
// a steady size reuses its own room, and a partition holds its rows'
// high-water mark plus less than a step, not a partly-used block at each
// end and spares in the pool. While a deque fills its time windows, the
// step that would pass the peak its rate foresees is cut to that peak,
// from a slab shared by the plan's deques, made for the deques that
// leave the same class. Each window has
// a head into the deque and reducer states.
// Eviction is from the front, in arrival order, and stops at the first row
// still inside the window, so a late row (under reorder ordering) stays
// until the rows that arrived before it have left. A fold walks the
// first few dozen rows; past them, a deque that has held no row out of
// time order since it was last empty (see dqUnsorted) finds that row by
// a galloping search, and others walk on to it.
//
// An unpartitioned stream whose time windows only count (rows, or a
// column's present values) keeps no rows: one time, first arrival and
// running counts per run of rows with equal times, evicted as the deque
// evicts rows ([Plan.CountsByTime]).
//
// Rows are taken into the windows lazily, at [Engine.Fold], just before an
// emission: each row is added once and removed once per window, in runs,
// with no per-row dispatch. Under a clock trigger the per-row work is an
// append; the windows are brought up to date at the tick.
//
// count, sum, avg and stdev of a number column share one compensated
// [reducers.Moments] per window and column; min and max use monotone deques;
// first, last and samples are read from the deque when emitted; the other
// reducers keep a [reducers.Window]. A window that slides by a few rows per
// emission updates each sum in one pass ([reducers.ShiftEach]); a window
// smaller than its change, or that held no rows, is rebuilt from its
// rows, one pass per column for its sums and extremes, which then hold
// their values without deques until the window slides; long runs are
// summed four rows at a time with AVX2 where the processor has it.
//
// Two window layouts are recognised when the plan is built: a time window
// of sums alone, and one of a column's sums with its minimum and maximum
// (outputs read from the deque aside). When every window of a plan has
// one, the fold's common cases — a slide of a few rows shifting each sum
// in one pass, a window of a few rows refilled in one pass — are done in
// the fold's own loop, calling only the reducers' passes
// ([reducers.ShiftRun] for all the sums of a window,
// [reducers.Moments.FillRunMinMax]; in assembly on amd64 with AVX2 and FMA); the
// rest take the general path. A fold of exactly one row in, a partition
// that gets a row a tick, is checked first for its commonest cases
// without the loop's scan: the head of a window of sums leaving as the
// row enters, and a row entering and leaving a short window that held
// none.
//
// # Emission
//
// A clock tick folds the partitions a run of a few dozen at a time and
// then emits the run output by output: each output column grows once per
// run and is written in place, and the sums of a Moments output are read
// for the whole run in one call ([reducers.ReadEach]).
//
// # Triggers
//
// [Stream] drives one engine under the plan's trigger (event, count or
// clock; see package trigger). Partitioned rollings drive one engine per
// partition from the live package.
package engine
