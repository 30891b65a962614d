// Package partition routes the rows of a stream to per-entity partitions
// (a host, a symbol, a user) by the value of one column.
//
// [live.Series.PartitionBy] builds a partitioning of a series' rows from
// [Options]; the operators built on the node it returns (a rolling, a
// view) run per partition, and [live.Series.Partitions] lists the
// partitions with their counters. Options a partitioning cannot use are
// an error wrapping [ErrOptions] when it is built; a push with a key it
// refuses gets a [*KeyError].
//
// # Routing
//
// A partitioning maps each key to a dense partition index. String keys
// arrive as the series' intern ids, so routing a row is a slice lookup;
// numbers and booleans keep their kind (a numeric key stays a number in
// outputs) and a missing value is a partition of its own. Partitions are numbered in
// the order they are first seen, after any declared groups, and that is
// the order in which a clock-triggered rolling on the partitioning emits
// them (one behind a view that drops rows meets a partition at the first
// of its rows the view passes, and emits in that order).
//
// # Limits
//
// A partitioning can be bounded: MaxPartitions rejects a push that would
// exceed it, and IdleTTL removes partitions that have been quiet for a
// while in event time (see [Options]). The limit is checked at the push's
// own time: partitions IdleTTL removes by the end of a push make room for
// that push's new keys, so a stream of new keys replacing quiet ones is
// never rejected for good; a push that still does not fit changes
// nothing.
//
// [live.Series.PartitionBy]: https://pkg.go.dev/github.com/pond-go/pond/live#Series.PartitionBy
// [live.Series.Partitions]: https://pkg.go.dev/github.com/pond-go/pond/live#Series.Partitions
package partition
