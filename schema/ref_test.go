package schema_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
)

func TestRefIsResolvedOnceAndChecksNameAndKind(t *testing.T) {
	sch := metrics()
	cases := []struct {
		name string
		col  string
		kind schema.Kind
		ok   bool
	}{
		{"a number column", "cpu", schema.Number, true},
		{"an array column", "tags", schema.Array, true},
		{"a misspelt name", "cpuu", schema.Number, false},
		{"the wrong kind", "host", schema.Number, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := sch.Ref(c.col, c.kind)
			if !c.ok {
				assert.True(t, errors.Is(err, schema.ErrSchema), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.NotEqual(t, schema.Ref{}, r, "a resolved Ref is not the zero Ref")
		})
	}
}

func TestTableReadsCellsThroughRefs(t *testing.T) {
	tab := jsonTable(t)
	sch := tab.Schema()
	cpu, _ := sch.Ref("cpu", schema.Number)
	host, _ := sch.Ref("host", schema.String)
	up, _ := sch.Ref("up", schema.Bool)
	tags, _ := sch.Ref("tags", schema.Array)

	x, ok := tab.Num(cpu, 0)
	assert.Equal(t, 0.5, x)
	assert.True(t, ok)
	s, ok := tab.Str(host, 0)
	assert.Equal(t, "a", s)
	assert.True(t, ok)
	b, ok := tab.Bool(up, 1)
	assert.False(t, b)
	assert.True(t, ok)
	_, ok = tab.Bool(up, 2)
	assert.False(t, ok)

	nums, ok := tab.AppendNums(nil, tags, 0)
	assert.Equal(t, []float64{1, 2.5}, nums)
	assert.True(t, ok)
	strs, ok := tab.AppendStrs(nil, tags, 1)
	assert.Equal(t, []string{"x", "y"}, strs)
	assert.True(t, ok)
	nums, ok = tab.AppendNums(nums[:0], tags, 2)
	assert.Empty(t, nums)
	assert.False(t, ok)

	assert.Panics(t, func() { tab.Num(host, 0) }, "a string column read as a number")
	assert.Panics(t, func() { tab.Num(schema.Ref{}, 0) }, "the zero Ref")
}
