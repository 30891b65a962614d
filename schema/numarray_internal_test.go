package schema

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/column"
)

// numberArrayRows returns n rows of (time, array of numbers, number):
// arrays empty, missing or of numbers that JSON writes in every form
// (−0, integers, tiny and huge magnitudes, fractions).
func numberArrayRows(r *rand.Rand, n int) []Row {
	pick := []float64{0, math.Copysign(0, -1), 1, -3, 0.1, 1.5e-7, 2e21, -7.25e300, 123456789, 1.0 / 3}
	rows := make([]Row, n)
	for i := range rows {
		var xs Value
		switch r.IntN(6) {
		case 0: // missing
		case 1:
			xs = ArrayValue()
		default:
			elems := make([]Value, r.IntN(25))
			for k := range elems {
				elems[k] = NumberValue(pick[r.IntN(len(pick))] * float64(1+r.IntN(3)))
			}
			xs = ArrayValue(elems...)
		}
		num := Value{}
		if r.IntN(3) > 0 {
			num = NumberValue(float64(i) / 4)
		}
		rows[i] = Row{NanosValue(int64(i/3) * 1_500_000), xs, num}
	}
	return rows
}

// appendNumbersRow appends row r to tab, whose column 1 is an array
// column, writing that column's elements as numbers (as an engine writes
// samples); the other cells as values.
func appendNumbersRow(tab *Table, r Row) {
	for j, v := range r {
		c := &tab.cols[j]
		if j != 1 || v.IsMissing() {
			appendValue(c, v)
			continue
		}
		elems, _ := v.Array()
		c.BeginArray()
		for _, e := range elems {
			x, _ := e.Num()
			c.AppendNumElem(x)
		}
		c.EndArray()
	}
}

// jsonRowOf is the JSON of a row written from its values, as a table of
// values writes it.
func jsonRowOf(s *Schema, r Row) []byte {
	b := []byte{'{'}
	for j, v := range r {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s.cols[j].Name)
		b = append(b, ':')
		b = appendJSONValue(b, v)
	}
	return append(b, '}')
}

// TestNumberArraysReadAsTheirValues: a table whose array column keeps its
// elements as numbers reads, through every reader (Value, Row, All,
// Clone, AppendNums, AppendStrs, the three JSON encoders, Runs), as the
// rows it was given, to the byte in JSON; so does a table given the same
// rows as values (its array column wide), and both again after a reset
// and reuse.
func TestNumberArraysReadAsTheirValues(t *testing.T) {
	s := MustNew(Column{Name: "time", Kind: Time}, Column{Name: "xs", Kind: Array, Optional: true},
		Column{Name: "n", Kind: Number, Optional: true})
	xsRef, err := s.Ref("xs", Array)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(13, 1))
	narrow, wide := NewTable(s), NewTable(s)
	for round := range 3 {
		rows := numberArrayRows(r, 200)
		column.ResetAll(narrow.cols)
		column.ResetAll(wide.cols)
		for _, row := range rows {
			appendNumbersRow(narrow, row)
			require.True(t, wide.AppendRowValues(row))
		}
		// A last row holding a string too.
		require.True(t, wide.AppendRowValues(Row{NanosValue(1 << 40), ArrayValue(NumberValue(1), StringValue("w")), Value{}}))
		require.False(t, narrow.cols[1].Wide(), "round %d: numbers only", round)
		require.True(t, wide.cols[1].Wide(), "round %d", round)

		var want []byte
		for i, row := range rows {
			if i > 0 {
				want = append(want, ',')
			}
			want = append(want, jsonRowOf(s, row)...)
		}
		assert.Equal(t, "["+string(want)+"]", string(narrow.AppendJSON(nil)), "round %d", round)
		assert.Equal(t, string(jsonColumnsOf(s, rows)), string(narrow.AppendJSONColumns(nil)), "round %d", round)

		for name, tab := range map[string]*Table{"narrow": narrow, "wide": wide, "narrow clone": narrow.Clone(), "wide clone": wide.Clone()} {
			for i, row := range rows {
				for j := range row {
					assert.True(t, row[j].Equal(tab.Value(i, j)), "%s round %d row %d column %d: %v, want %v", name, round, i, j, tab.Value(i, j), row[j])
				}
				assert.Equal(t, rowString(row), rowString(tab.Row(i)), "%s row %d", name, i)
				assert.Equal(t, string(jsonRowOf(s, row)), string(tab.AppendJSONRow(nil, i)), "%s row %d", name, i)
				got, ok := tab.AppendNums([]float64{-1}, xsRef, i)
				elems, present := row[1].Array()
				assert.Equal(t, present, ok, "%s row %d", name, i)
				require.Len(t, got, 1+len(elems), "%s row %d", name, i)
				for k, e := range elems {
					x, _ := e.Num()
					assert.Equal(t, math.Float64bits(x), math.Float64bits(got[1+k]), "%s row %d element %d: the bits, −0 too", name, i, k)
				}
				strs, ok := tab.AppendStrs(nil, xsRef, i)
				assert.Empty(t, strs)
				assert.Equal(t, present, ok)
			}
			n := 0
			for i, row := range tab.All() {
				if i < len(rows) {
					assert.Equal(t, rowString(rows[i]), rowString(row), "%s All row %d", name, i)
				}
				n++
			}
			assert.Equal(t, tab.Len(), n)
			var runs []Run
			for run := range tab.Runs() {
				runs = append(runs, run)
			}
			assert.Equal(t, runsOf(rows), runs[:len(runsOf(rows))], "%s", name)
		}
	}
}

// rowString renders the values of a row, for comparisons and messages.
func rowString(r Row) string {
	b := []byte{'['}
	for j, v := range r {
		if j > 0 {
			b = append(b, ' ')
		}
		b = append(b, v.String()...)
	}
	return string(append(b, ']'))
}

// jsonColumnsOf is AppendJSONColumns written from the rows' values.
func jsonColumnsOf(s *Schema, rows []Row) []byte {
	b := []byte{'{'}
	for j := range s.cols {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s.cols[j].Name)
		b = append(b, ':', '[')
		for i, row := range rows {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, row[j])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// runsOf returns the runs of equal times of rows.
func runsOf(rows []Row) []Run {
	var runs []Run
	for i := 0; i < len(rows); {
		t, _ := rows[i][0].Nanos()
		j := i + 1
		for j < len(rows) {
			u, _ := rows[j][0].Nanos()
			if u != t {
				break
			}
			j++
		}
		runs = append(runs, Run{Time: t, From: i, To: j})
		i = j
	}
	return runs
}

// TestNumberArraysAppendWithoutAllocatingOnceGrown: the table's reset
// keeps the numbers' room, and reading them with AppendNums allocates
// nothing.
func TestNumberArraysAppendWithoutAllocatingOnceGrown(t *testing.T) {
	s := MustNew(Column{Name: "time", Kind: Time}, Column{Name: "xs", Kind: Array})
	ref, _ := s.Ref("xs", Array)
	tab := NewTable(s)
	row := Row{NanosValue(0), ArrayValue(NumberValue(1), NumberValue(2), NumberValue(3))}
	var buf []float64
	fill := func() {
		column.ResetAll(tab.cols)
		for i := range 100 {
			row[0] = NanosValue(int64(i))
			appendNumbersRow(tab, row)
		}
		for i := range 100 {
			buf, _ = tab.AppendNums(buf[:0], ref, i)
		}
	}
	fill()
	assert.Zero(t, allocs.Count(20, fill))
	assert.False(t, tab.cols[1].Wide())
}
