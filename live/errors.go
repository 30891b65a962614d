package live

import (
	"errors"
	"fmt"
	"time"
)

// Errors returned by this package. Test for them with [errors.Is]; the
// typed errors ([*OrderError], [*ConfigError]) carry the details. Data
// errors from validation wrap [schema.ErrValidation] and are
// [*schema.RowError] values.
var (
	// ErrConfig reports options or a pipeline that cannot be built: a bad
	// retention, ordering or grace, an unknown column, a reducer that does
	// not fit, a duplicate output name.
	ErrConfig = errors.New("live: invalid configuration")
	// ErrOutOfOrder reports, under strict ordering, a row before the
	// latest row held or before the previous row of its push.
	ErrOutOfOrder = errors.New("live: event out of order")
	// ErrLate reports, under reorder ordering, a row later than the grace
	// period allows.
	ErrLate = errors.New("live: event outside grace period")
	// ErrNode reports a node id that does not belong to the series (or
	// is that of a rolling's hidden history, see [Series.Rolling]), an
	// output kind a node does not produce, or a node that cannot do what
	// was asked (a snapshot of a node that holds no rows, the stats of a
	// node that is not an aggregate).
	ErrNode = errors.New("live: unknown node or output")
	// ErrReentrant reports a push or a snapshot asked for while a push of
	// the same series is running (from inside a map or filter function);
	// every builder of a node returns it too.
	ErrReentrant = errors.New("live: push during push")
	// ErrClosed reports a call on a series after [Series.Close].
	ErrClosed = errors.New("live: series closed")
	// ErrBroken reports a call on a series whose push (or a filter's or
	// map's replay when it was built) a caller's function left by a
	// panic: the nodes stopped half way through and cannot be rolled
	// back, so every later call that can fail returns it. Build a new
	// series.
	ErrBroken = errors.New("live: series broken by a panic inside a push")
	// ErrNotMade reports a call on a [Series] that [New] did not make (a
	// zero Series or a nil pointer), or on a [Typed] that [NewTyped] did
	// not make.
	ErrNotMade = errors.New("live: series not made by live.New")
)

// OrderError reports a row that breaks the series' ordering. It wraps
// [ErrOutOfOrder] or [ErrLate].
type OrderError struct {
	Row    int           // index of the row in the push
	Time   int64         // its time, in nanoseconds since the epoch
	Latest int64         // the latest time held or pushed before it
	Grace  time.Duration // the grace period, for ErrLate
	err    error
}

// Error names the row, its time and the latest time, and the grace for
// [ErrLate].
func (e *OrderError) Error() string {
	if e.err == ErrLate {
		return fmt.Sprintf("live: row %d at %s is outside the grace period (latest %s, grace %v)",
			e.Row, fmtTime(e.Time), fmtTime(e.Latest), e.Grace)
	}
	return fmt.Sprintf("live: row %d at %s is out of order: it is before %s", e.Row, fmtTime(e.Time), fmtTime(e.Latest))
}

// Unwrap returns [ErrOutOfOrder] or [ErrLate].
func (e *OrderError) Unwrap() error { return e.err }

// ConfigError reports what is wrong with options or a pipeline step. It
// wraps [ErrConfig] and, when there is one, the error underneath (a bad
// duration, an unknown reducer).
type ConfigError struct {
	Op     string // the call: "new", "rolling", "partitionBy", ...
	Field  string // the option or column concerned, if any
	Reason string
	Err    error
}

// Error returns "live: <op>: <field>: <reason>", followed by the error
// underneath if there is one.
func (e *ConfigError) Error() string {
	msg := "live: " + e.Op
	if e.Field != "" {
		msg += ": " + e.Field
	}
	msg += ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrConfig] and the underlying error.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConfig, e.Err}
	}
	return []error{ErrConfig}
}

func configErr(op, field, reason string, err error) error {
	return &ConfigError{Op: op, Field: field, Reason: reason, Err: err}
}

// unknownColumn is the error of op naming column c, which the source's
// value columns (names) do not hold; an empty name is said to be one.
func unknownColumn(op, c string, names []string) error {
	if c == "" {
		return configErr(op, "column", fmt.Sprintf("the name is empty (columns: %v)", names), nil)
	}
	return configErr(op, c, fmt.Sprintf("unknown column (columns: %v)", names), nil)
}

// fmtTime renders a time for messages: milliseconds since the epoch when it
// is a whole number of them (the unit pond-ts users know), else RFC 3339.
func fmtTime(ns int64) string {
	if ns%int64(time.Millisecond) == 0 {
		return fmt.Sprintf("%dms", ns/int64(time.Millisecond))
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}
