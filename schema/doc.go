// Package schema describes the rows of a series: column kinds, schemas,
// values, and the two ways rows come in and go out.
//
// # Schemas
//
// A [Schema] is an ordered list of columns. Column 0 is the time key, of
// kind [Time]; the others are values of kind [Number], [String], [Bool] or
// [Array] (an array of scalars). Columns are required unless marked
// Optional. [New] rejects an empty schema, a first column that is not a
// time, empty or duplicate names, names that are not valid UTF-8 and
// unknown kinds.
//
// # Rows in
//
// A [Batch] is the fast way in: one typed slice per column, filled by the
// caller and reused from push to push, so nothing is allocated per row.
// Plain rows of [Value] ([Row]) are the convenient way, for generic code;
// [Schema.AppendRows] checks them and turns them into a batch.
// [Schema.Validate] checks a whole batch and returns the first problem as
// a [*RowError] naming the row, the column and the [Reason]: a cell of the
// wrong kind, a missing required cell, a non-finite number (NaN and ±Inf
// never enter a series), a row of the wrong length, unsorted times.
//
// # Rows out
//
// A [Table] is columnar: one typed column per schema column. Number
// columns are plain []float64 slices with NaN marking a missing cell (free
// to mean that, since no non-finite number is ever stored), readable
// without copying through [Table.Numbers]. Resolve a column once with
// [Schema.Ref] and read its cells with [Table.Num], [Table.Str],
// [Table.Bool], and for arrays (a samples output) [Table.AppendNums] and
// [Table.AppendStrs]. Times are int64 nanoseconds since the Unix
// epoch throughout; [Value] and [Table.Time] convert to [time.Time].
// A series accepts times within [MinTime, MaxTime], the years 1823 to
// 2116, so that time arithmetic with any accepted duration (at most 2^62
// ns) cannot overflow; validation rejects others with [TimeRange].
package schema
