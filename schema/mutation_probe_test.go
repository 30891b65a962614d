package schema_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

func mu42RowError(t *testing.T, err error) *schema.RowError {
	t.Helper()
	var re *schema.RowError
	require.True(t, errors.As(err, &re), "%v", err)
	return re
}

// A time.Time past the range, even by a fraction of a second, is the key
// "a time after 2116" (the bound on its side), from TimeValue as from a
// Codec: validation's detail says so rather than quoting a date.
func TestMu42ATimeJustPastTheRangeIsAfter2116(t *testing.T) {
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time})
	for _, d := range []time.Duration{1, 500 * time.Millisecond} {
		past := time.Unix(0, schema.MaxTime).Add(d)
		v := schema.TimeValue(past)
		assert.Equal(t, "(a time after 2116)", v.String())
		b := schema.NewBatch(sch, 1)
		err := sch.AppendRows(b, []schema.Row{{v}})
		assert.Equal(t, "a time after 2116", mu42RowError(t, err).Detail, "TimeValue, %v past", d)

		type row struct {
			At time.Time `pond:"time"`
		}
		c, err := schema.NewCodec[row](sch)
		require.NoError(t, err)
		enc := c.Encode(nil, []row{{At: past}})
		re := mu42RowError(t, sch.Validate(enc, true))
		assert.Equal(t, schema.TimeRange, re.Reason)
		assert.Equal(t, "a time after 2116", re.Detail, "Codec, %v past", d)
	}
}

// A []any holding a shorter slice of itself (same first element) does not
// hold itself: Of converts it.
func TestMu42OfAcceptsAShorterSliceOfItself(t *testing.T) {
	x := []any{"a", nil}
	x[1] = x[:1]
	v, err := schema.Of(x)
	require.NoError(t, err)
	assert.True(t, schema.ArrayValue(schema.StringValue("a"), schema.ArrayValue(schema.StringValue("a"))).Equal(v), v.String())
}

// Bool is false, false for a value of another kind, whatever its bits.
func TestMu42BoolOfAnotherKind(t *testing.T) {
	for _, v := range []schema.Value{schema.NanosValue(1), schema.NumberValue(math.Float64frombits(1))} {
		b, ok := v.Bool()
		assert.False(t, b, v.String())
		assert.False(t, ok, v.String())
	}
}

// Arrays of different lengths are not Equal, a prefix included.
func TestMu42EqualArraysNeedTheSameLength(t *testing.T) {
	one, two := schema.NumberValue(1), schema.NumberValue(2)
	assert.False(t, schema.ArrayValue(one).Equal(schema.ArrayValue(one, two)))
	assert.False(t, schema.ArrayValue(one, two).Equal(schema.ArrayValue(one)))
	assert.False(t, schema.ArrayValue().Equal(schema.ArrayValue(one)))
}

// Any of an empty array is an empty []any, not nil: it marshals as [].
func TestMu42AnyOfAnEmptyArrayIsEmptyNotNil(t *testing.T) {
	a, ok := schema.ArrayValue().Any().([]any)
	require.True(t, ok)
	assert.NotNil(t, a)
	js, err := json.Marshal(schema.ArrayValue().Any())
	require.NoError(t, err)
	assert.Equal(t, "[]", string(js))
}

// Validate names the first row outside the range: a row exactly at
// MaxTime is in it.
func TestMu42ValidateTimeRangeNamesTheRowPastMaxTime(t *testing.T) {
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time})
	b := schema.NewBatch(sch, 2)
	b.Time = append(b.Time, schema.MaxTime, schema.MaxTime+1)
	re := mu42RowError(t, sch.Validate(b, false))
	assert.Equal(t, schema.TimeRange, re.Reason)
	assert.Equal(t, 1, re.Row)
}

// Validate refuses a string column with more cells than rows, and a
// Missing with more flags than rows; a missing array cell is not looked
// at ("a true flag marks a missing cell whatever the typed slice holds
// there").
func TestMu42ValidateColumnLengthsAndMissingArrays(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "s", Kind: schema.String},
		schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	)
	batch := func() *schema.Batch {
		b := schema.NewBatch(sch, 1)
		b.Time = append(b.Time, 0)
		b.Cols[0].Str = append(b.Cols[0].Str, "x")
		b.Cols[1].Arr = append(b.Cols[1].Arr, []schema.Value{schema.NumberValue(1)})
		return b
	}
	require.NoError(t, sch.Validate(batch(), true))

	b := batch()
	b.Cols[0].Str = append(b.Cols[0].Str, "extra")
	re := mu42RowError(t, sch.Validate(b, true))
	assert.Equal(t, schema.ColumnLength, re.Reason)
	assert.Equal(t, 1, re.Column)

	b = batch()
	b.Cols[1].Missing = []bool{false, false}
	re = mu42RowError(t, sch.Validate(b, true))
	assert.Equal(t, schema.ColumnLength, re.Reason)
	assert.Equal(t, 2, re.Column)

	b = batch()
	b.Cols[1].Arr[0] = []schema.Value{schema.NumberValue(math.NaN()), {}}
	b.Cols[1].Missing = []bool{true}
	assert.NoError(t, sch.Validate(b, true))
}

// The struct tags refuse the option "optional" on an integer field, and
// the option or a pointer on a slice field, as the Codec doc says (a
// pointer for an integer; a slice is optional already).
func TestMu42OptionalNeedsAFloatOrStringField(t *testing.T) {
	type intOpt struct {
		At time.Time `pond:"time"`
		N  int       `pond:"n,optional"`
	}
	type stringsOpt struct {
		At time.Time `pond:"time"`
		S  []string  `pond:"s,optional"`
	}
	_, err := schema.For[intOpt]()
	assert.ErrorIs(t, err, schema.ErrSchema)
	type stringsPtr struct {
		At time.Time `pond:"time"`
		S  *[]string `pond:"s"`
	}
	_, err = schema.For[stringsOpt]()
	assert.ErrorIs(t, err, schema.ErrSchema)
	_, err = schema.For[stringsPtr]()
	assert.ErrorIs(t, err, schema.ErrSchema)
}

// NewCodec with a schema refuses two fields for one column.
func TestMu42NewCodecRefusesTwoFieldsForOneColumn(t *testing.T) {
	type twice struct {
		At time.Time `pond:"time"`
		A  float64   `pond:"x"`
		B  float64   `pond:"x"`
	}
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "x", Kind: schema.Number})
	_, err := schema.NewCodec[twice](sch)
	assert.ErrorIs(t, err, schema.ErrSchema)
}

// Decode leaves an integer field at zero for a missing cell, and refuses
// an array of one number for a []string field.
func TestMu42DecodeMissingIntsAndStrayNumbers(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "n", Kind: schema.Number, Optional: true},
		schema.Column{Name: "a", Kind: schema.Array, Optional: true},
	)
	type ints struct {
		At time.Time `pond:"time"`
		N  int64     `pond:"n"`
	}
	tab := schema.NewTable(sch)
	require.True(t, tab.AppendRowValues(schema.Row{schema.NanosValue(0), {}, {}}))
	rows, err := schema.NewCodec[ints](nil)
	require.NoError(t, err)
	got, err := rows.Decode(nil, tab)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Zero(t, got[0].N)

	type strs struct {
		At time.Time `pond:"time"`
		A  []string  `pond:"a"`
	}
	c, err := schema.NewCodec[strs](nil)
	require.NoError(t, err)
	tab = schema.NewTable(sch)
	require.True(t, tab.AppendRowValues(schema.Row{schema.NanosValue(0), {}, schema.ArrayValue(schema.NumberValue(1))}))
	_, err = c.Decode(nil, tab)
	re := mu42RowError(t, err)
	assert.Equal(t, schema.WrongType, re.Reason)
	assert.Equal(t, 0, re.Row)
}

// An array column of numbers as an operator emits it (a samples output,
// its elements held as numbers) does not decode into a []string field,
// however short its arrays: one number is enough to refuse it.
func TestMu42DecodeRefusesOneNumberForAStringsField(t *testing.T) {
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time}, schema.Column{Name: "x", Kind: schema.Number})
	s, err := live.New("mu42", sch, live.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	node, err := s.Rolling(s.Root(), []rolling.Window{{Count: 1, Aggs: []reduce.Agg{{Out: "a", From: "x", Using: reduce.Samples}}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(node))
	out, err := s.PushRows(nil, schema.Row{schema.MillisValue(1), schema.NumberValue(7)})
	require.NoError(t, err)
	tab, ok := live.Find(out, node, live.Event)
	require.True(t, ok)
	require.Equal(t, 1, tab.Len())
	type strs struct {
		At time.Time `pond:"time"`
		A  []string  `pond:"a"`
	}
	c, err := schema.NewCodec[strs](nil)
	require.NoError(t, err)
	_, err = c.Decode(nil, tab)
	re := mu42RowError(t, err)
	assert.Equal(t, schema.WrongType, re.Reason)
	assert.Equal(t, 0, re.Row)
}

// A batch's missing flags are its own: encoding another batch with the
// same codec leaves them as they are, also once the codec has a spare
// buffer of flags (from a batch without missing cells).
func TestMu42EncodedBatchesDoNotShareMissingFlags(t *testing.T) {
	type row struct {
		At time.Time `pond:"time"`
		X  *float64  `pond:"x"`
	}
	c, err := schema.NewCodec[row](nil)
	require.NoError(t, err)
	one := 1.0
	_ = c.Encode(nil, []row{{At: time.Unix(0, 0), X: &one}, {At: time.Unix(0, 0), X: &one}})
	a := c.Encode(nil, []row{{At: time.Unix(1, 0)}, {At: time.Unix(2, 0), X: &one}})
	require.Equal(t, []bool{true, false}, a.Cols[0].Missing)
	b := c.Encode(nil, []row{{At: time.Unix(3, 0), X: &one}, {At: time.Unix(4, 0)}})
	assert.Equal(t, []bool{false, true}, b.Cols[0].Missing)
	assert.Equal(t, []bool{true, false}, a.Cols[0].Missing, "the first batch's flags are unchanged")
}
