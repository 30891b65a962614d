package partition

import (
	"errors"
	"fmt"
	"time"

	"github.com/pond-go/pond/schema"
)

// Errors returned by this package.
var (
	// ErrOptions reports partition options that cannot be used.
	ErrOptions = errors.New("partition: invalid options")
	// ErrUnknownGroup reports a row whose key is not one of the declared
	// groups.
	ErrUnknownGroup = errors.New("partition: value not in declared groups")
	// ErrLimit reports a push that would create more partitions than
	// MaxPartitions allows.
	ErrLimit = errors.New("partition: too many partitions")
)

// KeyError reports a row a partitioning refuses. It wraps
// [ErrUnknownGroup] or [ErrLimit].
type KeyError struct {
	Row    int          // the row's index in its push
	Column string       // the partition column
	Key    schema.Value // the row's key
	Limit  int          // MaxPartitions, for ErrLimit
	Err    error        // ErrUnknownGroup or ErrLimit
}

// Error names the row, the key and the column, and the limit for
// [ErrLimit].
func (e *KeyError) Error() string {
	if e.Err == ErrLimit {
		unit := "partitions"
		if e.Limit == 1 {
			unit = "partition"
		}
		return fmt.Sprintf("partition: row %d: key %s of column %q would make more than %d %s",
			e.Row, e.Key, e.Column, e.Limit, unit)
	}
	return fmt.Sprintf("partition: row %d: key %s of column %q is not one of the declared groups", e.Row, e.Key, e.Column)
}

// Unwrap returns [ErrUnknownGroup] or [ErrLimit].
func (e *KeyError) Unwrap() error { return e.Err }

// Options configure a partitioning. None of its counts and durations may
// be negative, and MaxAge and IdleTTL may be at most 2^62 ns
// ([github.com/pond-go/pond/sequence.MaxDuration]): a partitioning built
// with others is an error wrapping [ErrOptions] that names the option.
//
// # Limits
//
// MaxPartitions caps the number of partitions alive at once. A push that
// would create more is rejected whole with [ErrLimit] (nothing is stored):
// data is never silently lost, and the error says which key broke the
// limit. IdleTTL frees the partitions that make room: after each push, a
// partition whose latest row is more than IdleTTL older than the latest
// row routed anywhere is removed, with its state in every node built on
// it; a row for its key later starts a new partition, which joins the
// order at the end. Declared groups are never removed.
//
// The limit is checked at the push's own time: a push whose new keys do
// not fit first counts as free the partitions that IdleTTL removes at the
// end of that push — those quiet for more than IdleTTL before the latest
// time the series has once the push is stored, and to which the push
// routes no row. If its new keys fit then, those partitions are removed
// before its rows are routed (a clock tick inside the push no longer
// emits them) and the push goes on; if not, it is rejected and nothing
// changes, the idle partitions included. So keys that come and go (hosts
// renamed, short-lived sessions) are accepted as long as the old ones
// have gone quiet for IdleTTL, however long ago.
type Options struct {
	// Groups, when not empty, declares the partitions: they exist from the
	// start, in this order, and a row with any other key is an error that
	// rejects its push. Values must have the column's kind and be
	// distinct; a missing value declares the partition of missing keys.
	Groups []schema.Value
	// MaxEvents and MaxAge are the retention of each partition's own rows,
	// which a partition keeps as the series keeps its rows: in time order
	// (a late row of a reorder series takes its place), MaxAge counted
	// from the partition's latest time, MaxEvents keeping the newest.
	// Zero inherits the source series' setting, as pond-ts does.
	// MaxEvents: 1 keeps only the row being routed, which is all a rolling
	// built before the first push needs (each rolling keeps its own
	// window); one built later starts from those rows alone.
	MaxEvents int
	MaxAge    time.Duration
	// MaxPartitions caps the number of live partitions; zero means no cap.
	MaxPartitions int
	// IdleTTL removes partitions quiet for longer than this, in event
	// time, with their rows; zero means never. Declared groups are never
	// removed, so with Groups, which refuse every other key, it removes
	// nothing.
	IdleTTL time.Duration
}

// Strings returns string group values, for [Options.Groups].
func Strings(keys ...string) []schema.Value {
	out := make([]schema.Value, len(keys))
	for i, k := range keys {
		out[i] = schema.StringValue(k)
	}
	return out
}
