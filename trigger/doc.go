// Package trigger says when a live operator emits: on every row
// ([Event]), on every n-th row ([Count]), or when event time crosses a
// boundary of a clock ([Clock]). A trigger is given to a rolling
// (rolling.Options.Trigger) or to a reduce ([live.Series.Reduce]); the
// zero Trigger is Event.
//
// A rolling applies its trigger row by row, as this package describes. A
// reduce applies it push by push: Event emits once per push that reached
// it, keyed at the push's last row; Count(n) emits one row per n rows
// counted, all keyed at the push's last row, so a push can give several
// identical rows (Count(1) one per row, where Event gives one per push);
// Clock applies the crossing rule to each push's last row only.
//
// # The crossing rule
//
// A clock does not tick on its own: time is the data's time. The first row
// a clock sees only sets its bucket. A row whose bucket is later than the
// current one fires once, keyed at the start of its own bucket — even when
// it skipped several boundaries, which therefore emit nothing. A row in the
// current bucket, or a late row in an earlier one, never fires. An
// operator that fires takes its snapshot after the crossing row has been
// taken in, so the row at boundary B includes the first row at or after B.
//
// [live.Series.Reduce]: https://pkg.go.dev/github.com/pond-go/pond/live#Series.Reduce
package trigger
