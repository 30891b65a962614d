package live_test

// Bugs the readers probes found (readers_probe_test.go). Every identifier
// here starts with rdr.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
)

// TestRdrAValueReadFromAnOutputDoesNotChangeAtTheNextPush: schema.Value
// is documented as "small and immutable; copy them freely", Table.Row
// returns "a new Row" and Table.All "a new slice" per row. But the array
// cells of an output table (a samples of a string column, or the root's
// own array column) hand out elements that alias the table's storage: at
// the next push the series resets and reuses it, and a Value or Row read
// before, and kept, changes under the reader (its elements cleared or
// replaced by the next push's). Only the samples of a number column are
// made for the call (Table.Value's doc).
func TestRdrAValueReadFromAnOutputDoesNotChangeAtTheNextPush(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "host", Kind: schema.String},
		schema.Column{Name: "tags", Kind: schema.Array, Optional: true},
	)
	s, err := live.New("x", sch, live.Options{})
	require.NoError(t, err)
	roll, err := s.Rolling(s.Root(), []rolling.Window{{Span: time.Second, Aggs: []reduce.Agg{
		{Out: "hosts", From: "host", Using: reduce.Samples},
	}}}, rolling.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Watch(roll))
	require.NoError(t, s.Watch(s.Root()))

	out, err := s.PushRows(nil, schema.Row{schema.MillisValue(0), schema.StringValue("a"), schema.ArrayValue(schema.StringValue("t1"))})
	require.NoError(t, err)
	rt, ok := live.Find(out, roll, live.Event)
	require.True(t, ok)
	samples := rt.Value(0, 1) // ["a"]
	row := rt.Row(0)
	root, ok := live.Find(out, s.Root(), live.Event)
	require.True(t, ok)
	tags := root.Value(0, 2) // ["t1"]
	require.Equal(t, `["a"]`, samples.String())
	require.Equal(t, `["t1"]`, tags.String())

	_, err = s.PushRows(out[:0], schema.Row{schema.MillisValue(5000), schema.StringValue("b"), schema.ArrayValue(schema.StringValue("t2"))})
	require.NoError(t, err)
	assert.Equal(t, `["a"]`, samples.String(), "a Value read from the rolling's output changed")
	assert.Equal(t, `["a"]`, row[1].String(), "a Row read from the rolling's output changed")
	assert.Equal(t, `["t1"]`, tags.String(), "a Value read from the root's output changed")
}
