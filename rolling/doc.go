// Package rolling holds the specification of a rolling aggregation: the
// windows ([Window]: a time span or a row count, and the aggregations
// computed over it) and the [Options] (trigger, warm-up, history) that
// [live.Series.Rolling] builds a node from.
//
// A time window at time t holds the rows in [t − Span, t], closed at both
// ends; a count window holds the last Count rows by arrival. Several time
// windows can share one node (the "fused" form of pond-ts): their outputs
// come out in one row, in declaration order. Specifications are checked
// when the node is built; a bad one is a [*SpecError] wrapping [ErrSpec].
//
// [live.Series.Rolling]: https://pkg.go.dev/github.com/pond-go/pond/live#Series.Rolling
package rolling
