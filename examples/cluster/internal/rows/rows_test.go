package rows

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRowRoundTripsBitForBit(t *testing.T) {
	r := Row{
		BoundaryMs: 1735689600200, Host: `host-"0"`,
		CPUAvg: 0.1 + 0.2, CPUSd: 1e-17, CPUN: 3,
		RequestsAvg: 100.0 / 3, RequestsSum: 300, RequestsN: 3,
		CPUSamples: []float64{0.3, 1.0 / 3},
		CPUMin:     0.3, CPUMax: 1.0 / 3, CurrentAvg: math.NaN(), CurrentSd: 0,
	}
	got, err := Decode(r.AppendJSON(nil))
	require.NoError(t, err)
	assert.Equal(t, r.AppendJSON(nil), got.AppendJSON(nil))
	assert.Equal(t, math.Float64bits(r.CPUAvg), math.Float64bits(got.CPUAvg))
	assert.True(t, math.IsNaN(got.CurrentAvg))
	assert.Equal(t, r.Key(), got.Key())
}

func TestDecodeRejectsARowWithoutItsKey(t *testing.T) {
	_, err := Decode([]byte(`{"cpu_avg":1}`))
	assert.ErrorIs(t, err, ErrRow)
	_, err = Decode([]byte(`{`))
	assert.ErrorIs(t, err, ErrRow)
}

// TestARowCarriesAtMostMaxSamplesAndSaysHowManyItLeftOut: past
// MaxSamples the row keeps the first ones and counts the rest in
// cpu_samples_left_out, which reads back; a row within the bound has no
// such field.
func TestARowCarriesAtMostMaxSamplesAndSaysHowManyItLeftOut(t *testing.T) {
	xs := make([]float64, MaxSamples+7)
	for i := range xs {
		xs[i] = float64(i)
	}
	var r Row
	r.SetSamples(xs)
	assert.Equal(t, xs[:MaxSamples], r.CPUSamples)
	assert.EqualValues(t, 7, r.CPUSamplesLeftOut)
	data := r.AppendJSON(nil)
	assert.Contains(t, string(data), fmt.Sprintf(`%d],"cpu_samples_left_out":7,"cpu_min":`, MaxSamples-1))
	got, err := Decode(data)
	require.NoError(t, err)
	assert.EqualValues(t, 7, got.CPUSamplesLeftOut)
	assert.Len(t, got.CPUSamples, MaxSamples)

	r.SetSamples(xs[:3])
	assert.Zero(t, r.CPUSamplesLeftOut)
	assert.NotContains(t, string(r.AppendJSON(nil)), "left_out")
}
