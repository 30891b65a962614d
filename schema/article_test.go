package schema_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
)

// Messages that name a kind put "an" before "array" and "a" before the
// other kinds.
func TestMessagesNamingAKindTakeItsArticle(t *testing.T) {
	s := metrics()
	t.Run("an array element", func(t *testing.T) {
		err := s.AppendRows(schema.NewBatch(s, 1), []schema.Row{row(0, 1.0, "a", nil, []any{[]any{"n"}})})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "element 0 is an array")
	})
	type floats struct {
		At  time.Time `pond:"time"`
		CPU []float64 `pond:"cpu"`
	}
	t.Run("an array field for a number column", func(t *testing.T) {
		_, err := schema.NewCodec[floats](schema.MustNew(col("time", schema.Time), col("cpu", schema.Number)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `an array field cannot hold column "cpu" of kind number`)
	})
	t.Run("an array field decoding a number column", func(t *testing.T) {
		c, err := schema.NewCodec[floats](nil)
		require.NoError(t, err)
		tab := schema.NewTable(schema.MustNew(col("time", schema.Time), col("cpu", schema.Number)))
		_, err = c.Decode(nil, tab)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `an array field cannot hold column "cpu" of kind number`)
	})
	t.Run("a number field for an array column", func(t *testing.T) {
		type number struct {
			At  time.Time `pond:"time"`
			CPU float64   `pond:"cpu"`
		}
		_, err := schema.NewCodec[number](schema.MustNew(col("time", schema.Time), col("cpu", schema.Array)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `a number field cannot hold column "cpu" of kind array`)
	})
	t.Run("an array reference on a number column", func(t *testing.T) {
		arr := schema.MustNew(col("time", schema.Time), col("x", schema.Array))
		ref, err := arr.Ref("x", schema.Array)
		require.NoError(t, err)
		tab := schema.NewTable(schema.MustNew(col("time", schema.Time), col("x", schema.Number)))
		assert.PanicsWithValue(t, "schema: an array column reference used as number on a table whose column 1 is not one", func() { tab.Num(ref, 0) })
	})
}
