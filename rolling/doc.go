// Package rolling holds the specification of a rolling aggregation: the
// windows ([Window]: a time span or a row count, and the aggregations
// computed over it) and the [Options] (trigger, warm-up, history) that
// [live.Series.Rolling] builds a node from.
//
// A time window at time t holds the rows in [t − Span, t], closed at both
// ends, while rows arrive in time order (a late row, under reorder
// ordering, leaves in arrival order: see [Window]); a count window holds
// the last Count rows by arrival. Several time
// windows can share one node (the "fused" form of pond-ts): their outputs
// come out in one row, in declaration order. Specifications are checked
// when the node is built; a bad one is a [*SpecError] wrapping [ErrSpec].
//
// # Aligned windows
//
// With [Options.Aligned] (a clock trigger and time windows only; anything
// else is a [*SpecError] naming the option) the windows end on the
// clock's boundaries. Boundary b closes when no row with t < b can still
// be accepted by the series: under strict or drop ordering at the first
// accepted row with t ≥ b, under reorder with grace g once the latest
// accepted time minus g reaches b (the live package rejects reorder
// without a grace). The series' rows close boundaries whichever node
// they reach: behind views that drop rows (a filter, a sample), a row
// the views drop closes them too, and the rolling emits those closings
// at the end of the push that accepted it.
// At each closed boundary, in time order, every partition whose windows
// hold a row emits, in the order the rolling first met the partitions
// (declared groups first; behind a view that drops rows, at the first
// row of the partition it passes), one row keyed at b, each window
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
// the panes when an outlier leaves, when a sum falls below 2^-40 of the
// largest it held since it was last summed from its panes (1e300 gone
// from beside −1e16 and −1e16), or when Σx² has fallen below half of
// its largest and the spread of the values that stay is below 2^-58 of
// that (1.4e9 gone from values near 1e6 that differ by 1e-3), so that no
// residue stays; min and
// max slide over the panes' extremes in a monotone deque. A pane's and a
// window's sum of a column that holds a value from 2^960 up is kept in
// units of 2^128, as the default mode keeps such values apart: a sum is
// missing exactly while the values held sum beyond the float64 range,
// and an avg is always their mean (package reduce, "Missing values and
// NaN").
// While a window holds values more than about 2^100 apart (1e300 beside
// 1e16 beside 3), its sums are as precise as a double-double at the
// largest of them, like any double-double sum of those values.
// samples, median, p<q>, keep, unique and top<N> keep the raw values
// they read, for their own window only — with one exception, so that the
// state does not grow with the event rate there either: a window one step
// long whose samples of a number column are the node's only such output
// (no other window keeps raw values) reads them, at each closing, from
// the rows the series holds (for a column that may be missing, the step
// counts its present values, which a closing needs to know), when every
// window of the node has panes one step wide (each span a multiple of the
// step), the node partitions the root by a required string or number
// column, rows are never reordered, and the series keeps at least a step
// of rows (no MaxEvents, no MaxAge shorter than the step) and held none
// when the node was built.
// The series' Describe says which representation each window of a node
// has. A span needing more than 2^20 panes is a build error, and so is a
// window whose span, step and (under reorder) grace together need more
// than 2^22 panes of gcd(span, step): a window keeps its panes for a span
// and a step beside it (a 1ns window on a 1s clock needs 10^9), and a
// grace's worth more (a 2h grace over panes of 1ms). The error names the
// window, its span, the step and the grace.
//
// [live.Series.Rolling]: https://pkg.go.dev/github.com/pond-go/pond/live#Series.Rolling
package rolling
