// Package rolling is the rolling-window engine: several named windows over
// one stream, maintained incrementally and emitted under a trigger.
//
// # Windows
//
// A [Window] is a time span or a row count and the aggregations computed
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
// from a pool. Each window has a head into the deque and reducer states.
// Eviction is from the front, in arrival order, and stops at the first row
// still inside the window, so a late row (under reorder ordering) stays
// until the rows that arrived before it have left.
//
// Rows are taken into the windows lazily, at [Engine.Fold], just before an
// emission: each row is added once and removed once per window, in runs,
// with no per-row dispatch. Under a clock trigger the per-row work is an
// append; the windows are brought up to date at the tick.
//
// count, sum, avg and stdev of a number column share one compensated
// [reduce.Moments] per window and column; min and max use monotone deques;
// first, last and samples are read from the deque when emitted; the other
// reducers keep a [reduce.Window]. A window that slides by a few rows per
// emission updates each sum in one pass ([reduce.Moments.ShiftSlots]); a
// window smaller than its change is rebuilt from its rows, its min and
// max deques without branches; long runs are summed four rows at a time
// with AVX2 where the processor has it.
//
// # Aligned windows
//
// With [Options.Aligned] (a clock trigger and time windows only; anything
// else is a [*SpecError] naming the option) the windows end on the
// clock's boundaries. Boundary b closes when no row with t < b can still
// be accepted: under strict or drop ordering at the first accepted row
// with t ≥ b, under reorder with grace g once the latest accepted time
// minus g reaches b (the live package rejects reorder without a grace).
// At each closed boundary, in time order, every partition whose windows
// hold a row emits, in first-seen order, one row keyed at b, each window
// holding exactly that partition's rows with b − span ≤ t < b; boundaries
// crossed in one push or skipped by a gap each get their row while a
// window holds one, and a partition whose windows are empty waits for its
// next row. A partition's rows are therefore a pure function of its own
// rows: the same events batched otherwise, interleaved otherwise with
// other keys, split over several series or replayed from the last longest
// window give the same rows. first and last are the values at the
// earliest and the latest time in the window (ties: the earlier and the
// later arrival).
//
// An aligned window is a union of panes of width gcd(span, step) on the
// clock's grid. count, sum, avg, stdev, min, max, first, last and
// difference keep one partial state per pane per partition and never
// store rows: a pane's sums are double-doubles, added to the window's
// when the pane closes and subtracted when it leaves, summed again from
// the panes when an outlier or an overflow leaves so that no residue
// stays; min and max slide over the panes' extremes in a monotone deque.
// samples, median, p<q>, keep, unique and top<N> keep the raw values
// they read, for their own window only. [Plan.Aligned] describes each
// window's representation. A span needing more than 2^20 panes is a
// build error.
//
// # Triggers
//
// [Stream] drives one engine under the plan's trigger (event, count or
// clock; see package trigger). Partitioned rollings drive one engine per
// partition from the live package.
package rolling
