// Package live holds [Series], a live time series: it takes batches of
// rows, keeps a bounded window of them in time order, runs a graph of
// operators over them (partitions, rolling windows, reductions, buckets,
// per-row views) and returns what each operator produced as tagged
// outputs of the push. It gives the same rows as pond-ts's live layer,
// except where pond-ts is wrong or unsafe: pushes are atomic, sums are
// compensated, options are checked when built, views evict by identity
// (the list is docs/differences.md in the repository).
//
// # Series
//
// [New] builds a series from a [schema.Schema] and [Options]. Rows enter
// through [Series.PushMany] (a columnar [schema.Batch], the fast path) or
// [Series.PushRows] (rows of values). The series stores what it accepts,
// columnar, in chunks, with strings interned once; [Series.Len],
// [Series.All], [Series.Latest] and [Series.Stats] read
// what it holds and what it has done. Times are int64 nanoseconds since
// the Unix epoch inside the library and in tables; [time.Time] and
// [time.Duration] at the API.
//
// # The node graph
//
// Every operator is a node of the series, identified by a [NodeID]. The
// series itself is the root ([Series.Root], id 0); each builder method
// adds a node on a source node and returns its id. Ids are given in build
// order, which is also the order in which nodes run in a push, and they
// are not always consecutive (a rolling with a history takes one more id
// for it). A node built on a series that already holds rows starts from
// the rows its source holds, replayed in arrival order; what it would
// emit then is dropped. Built on a partitioning, those are the rows the
// partitions hold under its own retention, which with MaxEvents 1 is
// each partition's last row: build such nodes before the first push.
// [Series.NodeSchema] gives the schema of a node's rows.
//
// # Pushes and outputs
//
// [Series.Watch] selects the outputs a push returns: a node's [Event]
// output (the rows it emitted: for the root and a partition, the rows it
// took in), its [Batch] output (the root's and a partition's rows of the
// push as one table: the same table as its Event output) and its [Evict]
// output (the rows retention or a window let go, a partitioning's rows of
// the partitions IdleTTL removed, and a view's rows that left with its
// source's). [Series.PushMany]
// appends one [Output] per watched node and kind that produced rows, in a
// fixed order: first the Event outputs of all watched nodes in build
// order, then their Batch outputs, then their Evict outputs. Each Output
// holds all the rows of one node and kind in one [schema.Table]; nothing
// is returned for a node and kind without rows. Watch and Unwatch called
// during a push (from a map's or filter's function) take effect with the
// next push.
//
// Output tables belong to the series and stay valid until the next call
// of PushMany or PushRows, successful or not; [schema.Table.Clone] keeps
// one. The root's outputs (and a partition's, which are the same rows)
// may share memory with the pushed batch: times, numbers without missing
// cells and strings without missing cells are not copied, so do not
// change the batch while you read them. dst is caller-owned: pass
// out[:0] to reuse it, so that steady-state pushes need not allocate.
//
// # Atomic pushes and errors
//
// A push is atomic in every ordering mode: every row is checked (cells
// against the schema, ordering, partition limits) before anything
// changes. On error nothing is stored, emitted or counted, dst comes
// back as it was, and the error names the row:
//
//   - a [*schema.RowError] wrapping [schema.ErrValidation]
//     for a cell of the wrong kind, a missing required cell, NaN or ±Inf,
//     a row or column of the wrong length;
//   - an [*OrderError] wrapping [ErrOutOfOrder] (strict ordering) or
//     [ErrLate] (reorder ordering, beyond the grace period);
//   - a [*partition.KeyError] wrapping [partition.ErrUnknownGroup] or
//     [partition.ErrLimit] for a key a partitioning refuses;
//   - [ErrReentrant] for a push from inside a push (a filter's function).
//
// The one thing a push cannot undo is a panic out of a caller's function
// (a filter's or a map's), which runs after the commit point: the panic
// propagates, and the series, left half way through the push, returns
// [ErrBroken] from every later call that can fail.
//
// Options and pipelines are checked when built: builders return a
// [*ConfigError] wrapping [ErrConfig] and the error underneath (a
// [rolling.ErrSpec], [reduce.ErrReducer], [trigger.ErrTrigger] or
// [sequence.ErrSequence], for instance). An unknown node id or an output
// a node does not have is [ErrNode]. Nothing a caller's data or options
// can do panics.
//
// # Ordering and retention
//
// [Options.Ordering] says what happens to a row older than the latest one
// held: [Strict] rejects the push, [Drop] drops the row and counts it in
// [Stats].Rejected, [Reorder] inserts it in time order after the rows of
// the same time, if it is no more than [Options.Grace] late (inclusive;
// no grace accepts any lateness). Equal times are fine in every mode.
//
// Retention runs once after each push: [Options.MaxAge] evicts the rows
// older than the latest time minus MaxAge (a row exactly MaxAge old
// stays), [Options.MaxEvents] keeps the newest rows. The evicted rows are
// the root's Evict output. Views that hold rows follow their source's
// evictions by identity, not by time. A partitioning keeps each
// partition's rows under its own retention ([partition.Options]), which
// the root's evictions do not shorten, and rolling windows keep their own
// rows and are not shortened by retention.
//
// Strings are stored as ids of the series' intern table, and the table
// forgets a string once no retained row, partition, window or fill holds
// it (a periodic sweep, at the end of a push, costs a constant per new
// string and does not allocate in steady state). So a column with a new
// value in every row (a request or trace id) or keys that come and go
// cost memory for what the series holds, not for every string it has
// seen.
//
// Memory a series lets go of is kept for reuse, not returned: the state of
// partitions IdleTTL removed waits, emptied, for the partitions that come
// next (but for a view's rows of them, which go), and a node's output
// tables keep the room of its largest emission
// (a push of many rows through a rolling, say). So a series holds at most
// what its busiest moment needed — the most partitions alive at once, the
// largest push — however long ago that was; [Series.NodeBytes] counts the
// state of what is held now, not that room.
//
// # Partitions and the synchronised clock
//
// [Series.PartitionBy] routes the root's rows by the value of one column
// (a string, number or boolean; a missing value is a partition of its
// own) and keeps each partition's rows under its own retention, with
// optional declared groups, a partition limit and an idle time-to-live
// ([partition.Options]). The limit is checked at the push's own time: the
// partitions the idle time-to-live removes by the end of a push make room
// for its new keys first, and a push that still does not fit changes
// nothing. Rollings and views built on a partition node run per
// partition: a rolling's rows carry the partition column after the time,
// a view's keep its source's columns. A reduce or an aggregate built on
// one takes the rows of every partition together.
//
// A rolling on a partitioned node with a clock trigger is synchronised:
// the tick fires inside the ingest of the first row that crosses a
// boundary; every partition known then, in first-seen order (declared
// groups first), evicts against that row's time and emits one row keyed
// at the boundary, quiet partitions included; rows of other partitions at
// the same time arrive after the tick and show at the next one. A tick's
// rows come out together, one run of equal times in the rolling's table
// ([schema.Table.Runs]).
//
// # Operators
//
//   - [Series.PartitionBy]: per-key partitions of the root;
//   - [Series.Rolling]: one or more rolling windows (time spans or a row
//     count) under an event, count or clock trigger ([rolling.Window],
//     [trigger.Trigger]);
//   - [Series.Reduce]: a reduction of everything a node holds, once per
//     push;
//   - [Series.Aggregate]: fixed buckets of a sequence, emitted when they
//     close, with a grace;
//   - views, at most one row out per row in (a filter, a map and a
//     sample may drop it): [Series.Filter], [Series.Map],
//     [Series.Select], [Series.Window], [Series.WindowCount],
//     [Series.Diff], [Series.Rate], [Series.PctChange], [Series.Fill],
//     [Series.Cumulative], [Series.Sample];
//   - [Series.PerPartition] builds a chain of views per partition, and
//     [Series.Gather] merges a partitioned node back into one stream.
//
// [NewTyped] and [schema.Codec] push and read slices of a struct type
// without reflection per row.
//
// # Reading outputs
//
// [Find] picks one node's output of one kind from what a push returned,
// and its table's [schema.Table.Runs] groups the rows by time (one run per
// clock tick).
// Columns are read by name through a [schema.Ref] resolved once, when the
// pipeline is built ([Series.NodeSchema], then [schema.Schema.Ref]), so a
// misspelt name is an error then and not at the first tick; the typed
// readers ([schema.Table.Num] and the others) take the table's own row
// index everywhere. [schema.Table.AppendJSON] writes a table as JSON into
// a caller's buffer. [Series.Value] gives a node's current value without
// any history (a rolling's latest rows, a reduce's result, an aggregate's
// open buckets), and [Series.Partitions] lists a partitioning's keys with
// their counters.
//
// # Snapshots
//
// [Series.Snapshot] returns a table the caller owns of what a node holds
// now, in time order: the root's rows, a partition node's, a window's or a
// view's, or the emitted rows a rolling keeps in its history
// ([rolling.History], off by default). Later pushes do not change it.
//
// # Concurrency and time
//
// A Series is not safe for concurrent use: guard it with a lock if
// several goroutines push to it or read it. No result reads the wall
// clock: every window, clock and time-to-live runs on the data's own
// times, so the same pushes always give the same outputs. (A series with
// workers times its ticks, but only to choose whether to split them over
// the workers, which changes no row.)
//
// # Workers
//
// By default a series does all its work on the goroutine that pushes.
// [Options].Workers = n > 1 gives it a pool of n workers (the pushing
// goroutine and n−1 of its own, started by the first push that needs them
// and stopped by [Series.Close]): each clock tick of a partitioned
// rolling, and each closing of an aligned one that comes after few rows a
// partition, cuts the partitions, in their first-seen order, into chunks
// that the workers fold, and the rows the workers emit are joined back in
// chunk order before the push goes on. Between ticks far enough apart,
// the rows a partitioned rolling buffers are handed, 512 to 2,048 at a
// time, to a worker that copies them into their partitions' windows while
// the pushing goroutine goes on with the next pushes. A push stays synchronous and atomic (validation, storage,
// routing and the clock run on the pushing goroutine before any worker
// starts), and its outputs are exactly those of one worker, row for row
// and bit for bit, in both tick semantics: every partition's part of a
// tick reads only its own state. Unpartitioned nodes run on the pushing
// goroutine. Close a series with workers when done with it; one that is
// dropped unclosed stops its workers when it is garbage collected. The
// project's docs/workers.md says more.
package live
