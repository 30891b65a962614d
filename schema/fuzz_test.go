package schema_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/schema"
)

// batchGen decodes a fuzz input into a batch: bytes are read one at a
// time, and zeros once they run out.
type batchGen struct{ data []byte }

func (g *batchGen) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	c := g.data[0]
	g.data = g.data[1:]
	return c
}

var (
	fuzzNums = []float64{0, 1, -1, 0.5, 1e300, -1e300, 5e-324, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 42}
	fuzzStrs = []string{"a", "", "host-1", "ü", "\xff\xfe", "😀", "a\x00b", "x"}
)

func (g *batchGen) elem() schema.Value {
	c := g.next()
	switch c % 8 {
	case 0, 1:
		return schema.NumberValue(fuzzNums[c/8%12])
	case 2, 3:
		return schema.StringValue(fuzzStrs[c/8%8])
	case 4, 5:
		return schema.BoolValue(c&16 != 0)
	case 6:
		return schema.Missing()
	}
	switch c / 8 % 3 {
	case 0:
		return schema.NanosValue(int64(c))
	case 1:
		return schema.ArrayValue(schema.NumberValue(1))
	}
	return schema.ArrayValue()
}

// batch decodes a batch for s: up to 9 rows; times mostly
// non-decreasing; per column, cells of every sort (NaN and ±Inf among
// the numbers, invalid UTF-8 among the strings, bad array elements),
// missing flags or none, and now and then a column of the wrong length,
// a slice of another kind filled in too, or a missing or extra column.
func (g *batchGen) batch(s *schema.Schema) *schema.Batch {
	n := int(g.next() % 10)
	b := &schema.Batch{Cols: make([]schema.Vec, s.Len()-1)}
	t := int64(0)
	for range n {
		switch c := g.next(); {
		case c < 200:
			t += int64(c % 8)
		case c < 240:
			t -= int64(c % 8)
		case c < 248:
			t = math.MinInt64 + int64(c%8)
		default:
			t = math.MaxInt64 - int64(c%8)
		}
		b.Time = append(b.Time, t)
	}
	for j := 1; j < s.Len(); j++ {
		v := &b.Cols[j-1]
		shape := g.next()
		rows := n
		switch shape % 16 {
		case 14:
			rows = max(0, n-1)
		case 15:
			rows = n + 1
		}
		if shape&16 != 0 {
			v.Missing = make([]bool, rows)
		}
		for i := range rows {
			c := g.next()
			if v.Missing != nil && c&128 != 0 {
				v.Missing[i] = true
			}
			switch s.Column(j).Kind {
			case schema.Number:
				v.Num = append(v.Num, fuzzNums[c%12])
			case schema.String:
				v.Str = append(v.Str, fuzzStrs[c%8])
			case schema.Bool:
				v.Bool = append(v.Bool, c&1 != 0)
			case schema.Array:
				if c%8 == 7 {
					v.Arr = append(v.Arr, nil)
					continue
				}
				a := make([]schema.Value, c%4)
				for k := range a {
					a[k] = g.elem()
				}
				v.Arr = append(v.Arr, a)
			}
		}
		if shape&32 != 0 && v.Missing != nil {
			v.Missing = append(v.Missing, false)
		}
		if shape&64 != 0 {
			// A slice of another kind is ignored.
			v.Str = append(v.Str, "ignored")
			v.Num = append(v.Num, math.NaN())
		}
	}
	switch g.next() {
	case 255:
		b.Cols = b.Cols[:len(b.Cols)-1]
	case 254:
		b.Cols = append(b.Cols, schema.Vec{})
	}
	return b
}

// FuzzValidate decodes random batches against a schema with a column of
// every kind. Validate never panics; an error is a *RowError wrapping
// ErrValidation that names a row and column of the batch and a known
// reason. A batch Validate accepts unsorted can be pushed into a reorder
// series, and one it accepts sorted into a strict series, which then
// emits exactly the batch's cells.
func FuzzValidate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 3, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 16, 128, 0, 1, 0, 5, 7, 2})
	f.Add([]byte{0, 9, 250, 1, 1, 1, 1, 1, 1, 1, 1, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 14, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{1, 2, 0, 0, 15, 8, 9, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255})
	s := metrics()
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &batchGen{data: data}
		sorted := g.next()&1 != 0
		b := g.batch(s)
		err := s.Validate(b, sorted)
		if err != nil {
			checkRowError(t, s, b, err)
			return
		}
		if sorted {
			if err := s.Validate(b, false); err != nil {
				t.Fatalf("accepted sorted but not unsorted: %v", err)
			}
		}
		ordering := live.Reorder
		if sorted {
			ordering = live.Strict
		}
		series, err := live.New("fuzz", s, live.Options{Ordering: ordering})
		if err != nil {
			t.Fatal(err)
		}
		if err := series.Watch(series.Root(), live.Batch); err != nil {
			t.Fatal(err)
		}
		out, err := series.PushMany(nil, b)
		if err != nil {
			t.Fatalf("Validate accepted a batch that does not push (sorted %v): %v", sorted, err)
		}
		if series.Len() != b.Len() {
			t.Fatalf("pushed %d rows, the series holds %d", b.Len(), series.Len())
		}
		if b.Len() == 0 {
			return
		}
		if len(out) != 1 || out[0].Events.Len() != b.Len() {
			t.Fatalf("pushed %d rows, got %d outputs", b.Len(), len(out))
		}
		if sorted {
			checkCells(t, s, b, out[0].Events)
		}
	})
}

func checkRowError(t *testing.T, s *schema.Schema, b *schema.Batch, err error) {
	t.Helper()
	var re *schema.RowError
	if !errors.As(err, &re) || !errors.Is(err, schema.ErrValidation) {
		t.Fatalf("error %v is not a *RowError wrapping ErrValidation", err)
	}
	if re.Row < -1 || re.Row >= b.Len() || re.Column < -1 || re.Column >= s.Len() {
		t.Fatalf("error %v names row %d column %d of a %d-row batch", err, re.Row, re.Column, b.Len())
	}
	if re.Column >= 0 && re.Name != s.Column(re.Column).Name {
		t.Fatalf("error %v names column %d %q", err, re.Column, re.Name)
	}
	if strings.HasPrefix(re.Reason.String(), "reason(") {
		t.Fatalf("error %v has an unknown reason", err)
	}
}

// checkCells checks that tab holds the cells of b, in order.
func checkCells(t *testing.T, s *schema.Schema, b *schema.Batch, tab *schema.Table) {
	t.Helper()
	for i := range b.Len() {
		if tab.TimeNanos(i) != b.Time[i] {
			t.Fatalf("row %d: time %d, pushed %d", i, tab.TimeNanos(i), b.Time[i])
		}
		for j := 1; j < s.Len(); j++ {
			v := &b.Cols[j-1]
			got := tab.Value(i, j)
			if v.Missing != nil && v.Missing[i] {
				if !got.IsMissing() {
					t.Fatalf("row %d column %d: %v, pushed missing", i, j, got)
				}
				continue
			}
			var want schema.Value
			switch s.Column(j).Kind {
			case schema.Number:
				want = schema.NumberValue(v.Num[i])
			case schema.String:
				want = schema.StringValue(v.Str[i])
			case schema.Bool:
				want = schema.BoolValue(v.Bool[i])
			case schema.Array:
				want = schema.ArrayValue(v.Arr[i]...)
			}
			if !got.Equal(want) {
				t.Fatalf("row %d column %d: %v, pushed %v", i, j, got, want)
			}
		}
	}
}
