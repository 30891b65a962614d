package schema

import (
	"fmt"
	"math"
	"time"

	"github.com/pond-go/pond/internal/article"
	"github.com/pond-go/pond/internal/check"
)

// Batch is a columnar batch of rows to push: the fast way in. Callers fill
// the slices directly and reuse the batch from push to push; nothing is
// allocated per row.
//
// Time holds one time per row in nanoseconds since the Unix epoch. Cols
// holds one [Vec] per value column: Cols[j-1] is schema column j. In each
// Vec only the slice of the column's kind is used, and it must have one cell
// per row.
type Batch struct {
	Time []int64
	Cols []Vec
}

// Vec holds the cells of one value column of a [Batch]: Num for a number
// column, Str for a string column, Bool for a boolean column, Arr for an
// array column. Missing, when not nil, has one flag per row; a true flag
// marks a missing cell whatever the typed slice holds there. Leave Missing
// nil when no cell is missing.
type Vec struct {
	Num     []float64
	Str     []string
	Bool    []bool
	Arr     [][]Value
	Missing []bool
}

// NewBatch returns an empty batch shaped for s, with room for capacity rows
// (none for a negative capacity). It panics if s is nil or zero (not built
// with [New]).
func NewBatch(s *Schema, capacity int) *Batch {
	s.mustBeBuilt("NewBatch")
	capacity = max(capacity, 0)
	b := &Batch{Time: make([]int64, 0, capacity), Cols: make([]Vec, s.Len()-1)}
	for j := 1; j < s.Len(); j++ {
		v := &b.Cols[j-1]
		switch s.cols[j].Kind {
		case Number:
			v.Num = make([]float64, 0, capacity)
		case String:
			v.Str = make([]string, 0, capacity)
		case Bool:
			v.Bool = make([]bool, 0, capacity)
		case Array:
			v.Arr = make([][]Value, 0, capacity)
		}
	}
	return b
}

// Len returns the number of rows (the length of Time).
func (b *Batch) Len() int { return len(b.Time) }

// Reset empties the batch and keeps its capacity.
func (b *Batch) Reset() {
	b.Time = b.Time[:0]
	for j := range b.Cols {
		v := &b.Cols[j]
		v.Num = v.Num[:0]
		clear(v.Str)
		v.Str = v.Str[:0]
		v.Bool = v.Bool[:0]
		clear(v.Arr)
		v.Arr = v.Arr[:0]
		if v.Missing != nil {
			v.Missing = v.Missing[:0]
		}
	}
}

// isMissing reports whether cell i of v is marked missing.
func (v *Vec) isMissing(i int) bool { return v.Missing != nil && v.Missing[i] }

// Reason says what is wrong with a cell or a row.
type Reason uint8

// The reasons a [RowError] can carry.
const (
	WrongType       Reason = iota + 1 // a cell of another kind than its column's
	MissingRequired                   // a missing cell in a required column
	NonFinite                         // NaN or ±Inf in a number column or array
	RowLength                         // a row with more or fewer cells than columns
	Unsorted                          // a time before the previous row's
	BadElement                        // an array element that is not a finite scalar
	ColumnLength                      // a batch column with another length than Time
	TimeRange                         // a time more than MaxTime from the epoch
)

// MinTime and MaxTime bound the times a series accepts: within 2^62 − 1
// ns of the Unix epoch, the years 1823 to 2116. Inside these bounds a time
// minus any duration pond-go accepts (at most 2^62 ns), or the distance
// between two times, never overflows an int64.
const (
	MaxTime = 1<<62 - 1
	MinTime = -MaxTime
)

var reasonText = [...]string{
	WrongType:       "wrong type",
	MissingRequired: "missing required value",
	NonFinite:       "non-finite number",
	RowLength:       "wrong row length",
	Unsorted:        "unsorted times",
	BadElement:      "bad array element",
	ColumnLength:    "column length differs from the number of rows",
	TimeRange:       "time outside the supported range (the years 1823 to 2116)",
}

// String returns what the reason says ("wrong type", "unsorted times"…),
// or "reason(n)" for a value that is not a reason.
func (r Reason) String() string {
	if int(r) < len(reasonText) && reasonText[r] != "" {
		return reasonText[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// RowError reports the first bad row of a batch. It wraps [ErrValidation].
type RowError struct {
	Row    int    // index of the row in the batch; -1 for the batch as a whole
	Column int    // index of the column in the schema; -1 for the row as a whole
	Name   string // the column's name, if Column >= 0
	Reason Reason
	Detail string // what was found, for the message
}

// Error returns "schema: row <i> column <j> (<name>): <reason>: <detail>",
// with "batch" for the row and no column when the error concerns the whole
// batch or row.
func (e *RowError) Error() string {
	msg := "schema: "
	if e.Row >= 0 {
		msg += fmt.Sprintf("row %d", e.Row)
	} else {
		msg += "batch"
	}
	if e.Column >= 0 {
		msg += fmt.Sprintf(" column %d (%s)", e.Column, e.Name)
	}
	msg += ": " + e.Reason.String()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns [ErrValidation].
func (e *RowError) Unwrap() error { return ErrValidation }

// outOfRange is the detail of a TimeRange error: the time as nanoseconds
// and as a date, or, for the int64 bounds TimeValue gives a time.Time
// outside the range, which side it was on.
func outOfRange(t int64) string {
	switch t {
	case math.MinInt64:
		return "a time before 1823"
	case math.MaxInt64:
		return "a time after 2116"
	}
	return fmt.Sprintf("%d ns (%s)", t, time.Unix(0, t).UTC().Format(time.RFC3339Nano))
}

func (s *Schema) rowErr(row, col int, r Reason, detail string) *RowError {
	e := &RowError{Row: row, Column: col, Reason: r, Detail: detail}
	if col >= 0 {
		e.Name = s.cols[col].Name
	}
	return e
}

// Validate checks a whole batch against the schema: column count and
// lengths, required cells, finite numbers, array elements, and, when
// sorted is true, non-decreasing times. (A batch cannot hold a cell of
// the wrong kind: each column is read from the slice of its kind, and the
// others are ignored.) It returns the first problem it finds as a
// [*RowError], or nil; the checks run column by column, so that problem
// is not always in the earliest bad row. A nil batch is a [RowLength]
// error for the batch as a whole; a nil or zero s, a [*SchemaError]
// wrapping [ErrSchema].
func (s *Schema) Validate(b *Batch, sorted bool) error {
	if err := s.checkShape(b); err != nil {
		return err
	}
	n := len(b.Time)
	// Sorted times have their bounds at their ends: checking the order
	// first spares a pass over them.
	unsorted := 0 // the first row before the one before it, if any
	if sorted {
		unsorted = check.FirstUnsorted(b.Time)
	}
	lo, hi := int64(0), int64(0)
	if sorted && unsorted == 0 && n > 0 {
		lo, hi = b.Time[0], b.Time[n-1]
	} else {
		lo, hi = timeBounds(b.Time)
	}
	if lo < MinTime || hi > MaxTime {
		for i, t := range b.Time {
			if t < MinTime || t > MaxTime {
				return s.rowErr(i, 0, TimeRange, outOfRange(t))
			}
		}
	}
	if unsorted > 0 {
		i := unsorted
		return s.rowErr(i, 0, Unsorted, fmt.Sprintf("%d is before %d", b.Time[i], b.Time[i-1]))
	}
	cols := s.cols[1:]
	vecs := b.Cols[:len(cols)]
	for j := range cols {
		v := &vecs[j]
		// A column without missing cells with n cells of its kind, numbers
		// finite, is valid; any other goes through validateVec, which
		// tells what is wrong, if anything.
		if v.Missing == nil {
			switch cols[j].Kind {
			case Number:
				if len(v.Num) == n && check.Finite(v.Num) {
					continue
				}
			case String:
				if len(v.Str) == n {
					continue
				}
			case Bool:
				if len(v.Bool) == n {
					continue
				}
			}
		}
		if err := s.validateVec(j+1, v, n); err != nil {
			return err
		}
	}
	return nil
}

// checkShape returns a [*SchemaError] if s is nil or zero, a [RowLength]
// error for the batch as a whole if b has another number of value columns
// than s, or nil.
func (s *Schema) checkShape(b *Batch) error {
	if err := s.unbuilt(); err != nil {
		return err
	}
	if b == nil {
		return s.rowErr(-1, -1, RowLength, "the batch is nil")
	}
	if len(b.Cols) != len(s.cols)-1 {
		return s.rowErr(-1, -1, RowLength, fmt.Sprintf("batch has %d value columns, schema has %d", len(b.Cols), len(s.cols)-1))
	}
	return nil
}

func (s *Schema) validateVec(j int, v *Vec, n int) error {
	col := &s.cols[j]
	if v.Missing != nil && len(v.Missing) != n {
		return s.rowErr(-1, j, ColumnLength, fmt.Sprintf("Missing has %d flags for %d rows", len(v.Missing), n))
	}
	var have int
	switch col.Kind {
	case Number:
		have = len(v.Num)
	case String:
		have = len(v.Str)
	case Bool:
		have = len(v.Bool)
	case Array:
		have = len(v.Arr)
	}
	if have != n {
		return s.rowErr(-1, j, ColumnLength, fmt.Sprintf("%d %s cells for %d rows", have, col.Kind, n))
	}
	if v.Missing != nil && !col.Optional {
		for i, m := range v.Missing {
			if m {
				return s.rowErr(i, j, MissingRequired, "")
			}
		}
	}
	switch col.Kind {
	case Number:
		if v.Missing == nil && check.Finite(v.Num) {
			break
		}
		for i, f := range v.Num {
			// f-f is 0 for finite f and NaN for NaN and ±Inf.
			if f-f != 0 && !v.isMissing(i) {
				return s.rowErr(i, j, NonFinite, fmt.Sprint(f))
			}
		}
	case Array:
		for i, a := range v.Arr {
			if v.isMissing(i) {
				continue
			}
			if a == nil {
				// A nil slice is an empty array, not a missing cell.
				continue
			}
			for k, e := range a {
				if err := checkElem(e); err != "" {
					return s.rowErr(i, j, BadElement, fmt.Sprintf("element %d %s", k, err))
				}
			}
		}
	}
	return nil
}

func checkElem(e Value) string {
	switch e.kind {
	case Number:
		if f := math.Float64frombits(e.bits); f-f != 0 {
			return fmt.Sprintf("is %v", f)
		}
		return ""
	case String, Bool:
		return ""
	case 0:
		return "is missing"
	}
	return "is " + article.A(e.kind.String())
}

// AppendRows validates rows against the schema and appends them to b, which
// must be shaped for s (see [NewBatch]). Each row has one cell per column,
// the time first. On error nothing is appended and the error is a
// [*RowError] naming the row (its index in rows) and the column, or, for
// a batch with another number of value columns than s, the batch as a
// whole ([RowLength]; so is a nil b). A nil or zero s is a [*SchemaError]
// wrapping [ErrSchema]. Times are not checked for order here;
// [Schema.Validate] does that.
func (s *Schema) AppendRows(b *Batch, rows []Row) error {
	if err := s.checkShape(b); err != nil {
		return err
	}
	for i, r := range rows {
		if err := s.checkRow(i, r); err != nil {
			return err
		}
	}
	for _, r := range rows {
		b.Time = append(b.Time, int64(r[0].bits))
		for j := 1; j < len(s.cols); j++ {
			v := &b.Cols[j-1]
			c := r[j]
			if c.kind == 0 && v.Missing == nil {
				v.Missing = make([]bool, len(b.Time)-1, cap(b.Time))
			}
			if v.Missing != nil {
				v.Missing = append(v.Missing, c.kind == 0)
			}
			switch s.cols[j].Kind {
			case Number:
				v.Num = append(v.Num, math.Float64frombits(c.bits))
			case String:
				v.Str = append(v.Str, c.str())
			case Bool:
				v.Bool = append(v.Bool, c.bits == 1)
			case Array:
				v.Arr = append(v.Arr, c.arr())
			}
		}
	}
	return nil
}

func (s *Schema) checkRow(i int, r Row) error {
	if len(r) != len(s.cols) {
		return s.rowErr(i, -1, RowLength, fmt.Sprintf("%d cells for %d columns", len(r), len(s.cols)))
	}
	for j, c := range r {
		col := s.cols[j]
		if c.kind == 0 {
			if !col.Optional {
				return s.rowErr(i, j, MissingRequired, "")
			}
			continue
		}
		if c.kind != col.Kind {
			return s.rowErr(i, j, WrongType, fmt.Sprintf("expected %s, got %s", col.Kind, c.kind))
		}
		if c.kind == Time {
			if t := int64(c.bits); t < MinTime || t > MaxTime {
				return s.rowErr(i, j, TimeRange, outOfRange(t))
			}
		}
		switch c.kind {
		case Number:
			if f := math.Float64frombits(c.bits); f-f != 0 {
				return s.rowErr(i, j, NonFinite, fmt.Sprint(f))
			}
		case Array:
			for k, e := range c.arr() {
				if err := checkElem(e); err != "" {
					return s.rowErr(i, j, BadElement, fmt.Sprintf("element %d %s", k, err))
				}
			}
		}
	}
	return nil
}

// timeBounds returns the smallest and the largest of ts (0, 0 for none),
// without a branch per time: the common batch is checked in one pass.
func timeBounds(ts []int64) (lo, hi int64) {
	if len(ts) == 0 {
		return 0, 0
	}
	lo, hi = ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	return lo, hi
}
