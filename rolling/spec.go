package rolling

import (
	"errors"
	"strconv"
	"time"

	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/trigger"
)

// ErrSpec reports windows or options that cannot be built. The
// [*SpecError] it comes in names the window, output or option concerned.
var ErrSpec = errors.New("rolling: invalid specification")

// SpecError is the error a rolling built from bad windows or options
// comes with (inside the live package's configuration error). It wraps [ErrSpec] and, when
// there is one, the error underneath (a bad reducer or trigger).
type SpecError struct {
	Window string // the window's name, if the problem is in one
	Output string // the output column, if the problem is in one
	// Option is the field of [Options] concerned ("Trigger",
	// "MinSamples", "Aligned", "History.MaxEvents", "History.MaxAge"), if
	// the problem is in one; the reason names it too.
	Option string
	Reason string
	Err    error
}

// Error returns "rolling: window <name>: output <name>: <reason>", the window
// and output only when set and their names quoted as Go quotes strings
// (rolling: window "1m": output "avg": …), followed by the error underneath
// if there is one.
func (e *SpecError) Error() string {
	msg := "rolling: "
	if e.Window != "" {
		msg += "window " + strconv.Quote(e.Window) + ": "
	}
	if e.Output != "" {
		msg += "output " + strconv.Quote(e.Output) + ": "
	}
	msg += e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrSpec] and the underlying error.
func (e *SpecError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrSpec, e.Err}
	}
	return []error{ErrSpec}
}

// Window is one rolling window: a time span or a row count, and the
// aggregations computed over it.
//
// A time window at row time t holds the rows with times in [t − Span, t]
// (both ends closed: a row exactly Span old stays) when rows arrive in
// time order. Rows leave a window from its front in arrival order, as in
// pond-ts: at each row (at a tick, the crossing row) the oldest to have
// arrived leaves while it is older than t − Span. So under reorder
// ordering a late row stays until the rows that arrived before it have
// left (it can outstay its span), and the window at a late row's time
// holds the rows after it that arrived before it. A count window holds
// the last Count rows by arrival. Aligned windows hold exactly their
// rows in [b − Span, b), late ones included (see the package doc). Exactly one of Span and Count must be
// set; count windows are allowed only when there is one window.
type Window struct {
	// Name identifies the window in errors; empty means the span or count
	// written out ("1m", "200ms", "3"). The names of a node's windows,
	// given or written out, must be distinct: two windows of one span
	// need a Name each (or can be one window with both sets of Aggs), else
	// the node is a [SpecError] "duplicate window name".
	Name  string
	Span  time.Duration
	Count int
	// Aggs are the window's outputs: at least one, at most 65,535.
	Aggs []reduce.Agg
	// MinSamples, when set, overrides Options.MinSamples for this window
	// (zero included): while the window holds fewer rows (missing cells
	// count), its outputs are missing. Write it with [Samples]. On a count
	// window it may be at most Count (the window never holds more rows);
	// a larger one, set here or through Options.MinSamples, is a
	// [SpecError].
	MinSamples *int
}

// Samples returns a pointer to n, for [Window.MinSamples].
func Samples(n int) *int { return &n }

// Options configure a rolling node.
type Options struct {
	// Trigger says when rows are emitted; the zero value emits one row per
	// source row ([trigger.Event]).
	Trigger trigger.Trigger
	// MinSamples is the warm-up: while a window holds fewer rows, its
	// outputs are missing.
	MinSamples int
	// History keeps the emitted rows for reading back; off by default.
	History History
	// Aligned, under a clock trigger, makes every window end on the
	// clock's boundaries: the row keyed at boundary b holds the rows with
	// b − span ≤ t < b, and b is emitted once no row before it can still
	// be accepted. A partition's rows then depend only on its own events
	// (see the package doc, "Aligned windows"). It needs a clock trigger
	// and time windows.
	Aligned bool
}

// History bounds the emitted rows a rolling node keeps. It is off when
// both fields are zero. The rows are kept in time order (emission order
// among rows of one time), which is what the node's snapshot gives.
// MaxEvents keeps the newest rows by time (under reorder a late row's
// emission may be older than rows emitted before it); MaxAge keeps the
// rows no older than the newest emitted time minus MaxAge. Neither may be
// negative, and MaxAge may be at most 2^62 ns
// ([github.com/pond-go/pond/sequence.MaxDuration]).
type History struct {
	MaxEvents int
	MaxAge    time.Duration
}
