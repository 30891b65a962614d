package reduce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/schema"
)

// benchData returns n values around 20 with full 53-bit mantissas.
func benchData(n int) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 20 + rng.NormFloat64()*5
	}
	return xs
}

// BenchmarkWindow measures one row through each window state over numbers:
// Add, Remove of the row leaving a window of 100, and Append.
func BenchmarkWindow(b *testing.B) {
	const w = 100
	xs := benchData(1 << 12)
	data := make([]schema.Value, len(xs))
	for i, x := range xs {
		data[i] = schema.NumberValue(math.Round(x))
	}
	mask := len(data) - 1
	for _, r := range []Reducer{Count, Sum, Avg, Stdev, Min, Max, Difference, First, Last, Median, Percentile(99), Keep, Unique, Top(3), Samples} {
		b.Run(r.String(), func(b *testing.B) {
			win, err := newWindow(r, schema.Number)
			if err != nil {
				b.Fatal(err)
			}
			col := table.NewCol(r.OutputKind(schema.Number))
			for i := range w {
				win.Add(uint64(i), data[i&mask])
			}
			b.ReportAllocs()
			i := w
			for b.Loop() {
				win.Add(uint64(i), data[i&mask])
				win.Remove(uint64(i-w), data[(i-w)&mask])
				if col.Len() == 1024 {
					col.Reset()
				}
				win.Append(col)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
