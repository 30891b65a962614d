package live

import (
	"fmt"
	"time"

	"github.com/pond-go/pond/sequence"
)

// Ordering says what a series does with a row older than the latest one it
// holds.
type Ordering uint8

// The ordering modes.
const (
	// Strict rejects the push with [ErrOutOfOrder]. Equal times are fine.
	Strict Ordering = iota
	// Drop silently drops the row and counts it as rejected.
	Drop
	// Reorder inserts the row at its place in time order (after rows with
	// the same time), if it is no more than Grace late; a later row rejects
	// the push with [ErrLate].
	Reorder
)

// String returns "strict", "drop" or "reorder", or "ordering(n)" for a
// value that is not an ordering.
func (o Ordering) String() string {
	switch o {
	case Strict:
		return "strict"
	case Drop:
		return "drop"
	case Reorder:
		return "reorder"
	}
	return fmt.Sprintf("ordering(%d)", uint8(o))
}

// ParseOrdering parses "strict", "drop" or "reorder"; the empty string is
// strict. Any other name is an error wrapping [ErrConfig].
func ParseOrdering(s string) (Ordering, error) {
	switch s {
	case "strict", "":
		return Strict, nil
	case "drop":
		return Drop, nil
	case "reorder":
		return Reorder, nil
	}
	return 0, configErr("new", "ordering", fmt.Sprintf("unknown ordering %q", s), nil)
}

// Options configure a series. The zero value keeps every row forever under
// strict ordering.
type Options struct {
	// MaxAge evicts, after each push, the rows strictly older than the
	// latest time minus MaxAge (a row exactly MaxAge old stays). Zero means
	// no age limit.
	MaxAge time.Duration
	// MaxEvents keeps at most this many rows, evicting the oldest. Zero
	// means no count limit. When both limits are set the larger eviction
	// wins.
	MaxEvents int
	// Ordering says what happens to late rows; see [Ordering].
	Ordering Ordering
	// Grace bounds how late a row may be under [Reorder] (inclusive: a row
	// exactly Grace late is accepted). Zero means any lateness is accepted.
	// It is an error with other orderings, and when longer than MaxAge.
	Grace time.Duration
	// Workers is the number of goroutines the series spreads the work of
	// its partitions over: every partitioned rolling's clock ticks (and,
	// with aligned windows, its closings) are cut into chunks of
	// contiguous partitions, about eight per worker, which the workers
	// take as they come, and the rows they emit are joined in the
	// partitions' order, so the outputs are exactly those of one worker,
	// row for row and bit for bit. Whether it pays depends on the machine
	// and the stream: measure it (docs/workers.md says how the work is
	// split and what limits it). The calling goroutine is worker 0; the
	// others start on the first push that needs them and stop in
	// [Series.Close]. Zero or one means no goroutine of the series' own;
	// at most [MaxWorkers].
	Workers int
}

// MaxWorkers is the largest [Options.Workers].
const MaxWorkers = 256

func (o Options) validate(op string) error {
	switch {
	case o.MaxAge < 0:
		return configErr(op, "MaxAge", fmt.Sprintf("%v must not be negative", o.MaxAge), nil)
	case o.MaxAge > sequence.MaxDuration:
		return configErr(op, "MaxAge", fmt.Sprintf("%v is longer than %v", o.MaxAge, sequence.MaxDuration), nil)
	case o.Grace > sequence.MaxDuration:
		return configErr(op, "Grace", fmt.Sprintf("%v is longer than %v", o.Grace, sequence.MaxDuration), nil)
	case o.MaxEvents < 0:
		return configErr(op, "MaxEvents", fmt.Sprintf("%d must not be negative", o.MaxEvents), nil)
	case o.Ordering > Reorder:
		return configErr(op, "Ordering", fmt.Sprintf("unknown ordering %d", o.Ordering), nil)
	case o.Grace < 0:
		return configErr(op, "Grace", fmt.Sprintf("%v must not be negative", o.Grace), nil)
	case o.Grace > 0 && o.Ordering != Reorder:
		return configErr(op, "Grace", fmt.Sprintf("a grace period needs reorder ordering, not %s", o.Ordering), nil)
	case o.Workers < 0 || o.Workers > MaxWorkers:
		return configErr(op, "Workers", fmt.Sprintf("%d is not between 0 and %d", o.Workers, MaxWorkers), nil)
	case o.Grace > 0 && o.MaxAge > 0 && o.Grace > o.MaxAge:
		return configErr(op, "Grace", fmt.Sprintf("grace %v cannot exceed MaxAge %v", o.Grace, o.MaxAge), nil)
	}
	return nil
}
