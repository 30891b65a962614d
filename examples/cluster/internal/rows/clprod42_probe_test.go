package rows

// Probes of the rows codec against the package doc: every field round
// trips (numbers bit for bit, NaN and infinities as null, read back as
// NaN; a host's bytes that are not UTF-8 as U+FFFD), the field order is
// fixed, "cpu_samples_left_out" appears only when samples were left out,
// and records without their key are refused with ErrRow.

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cp42Num is a random number, often an awkward one.
func cp42Num(rng *rand.Rand) float64 {
	switch rng.IntN(10) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1 - 2*rng.IntN(2))
	case 2:
		return math.MaxFloat64 * (1 - 2*float64(rng.IntN(2)))
	case 3:
		return math.SmallestNonzeroFloat64
	case 4:
		return math.Copysign(0, -1)
	case 5:
		return math.Float64frombits(rng.Uint64())
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
}

// cp42Host is a random host: ASCII, control characters, quotes, other
// scripts, line separators, bytes that are not UTF-8.
func cp42Host(rng *rand.Rand) string {
	parts := []string{"host-0001", "\x00", "\x1f", `"`, `\`, "é", "日本", "\u2028", "\u2029", "😀", "\xff", "\xc3", "</script>", " ", "\t\n"}
	var b strings.Builder
	for range rng.IntN(8) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

func TestCp42EveryFieldRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 20))
	for c := range 400 {
		n := rng.IntN(20)
		if c%50 == 0 {
			n = MaxSamples + rng.IntN(3*MaxSamples)
		}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = cp42Num(rng)
		}
		r := Row{
			BoundaryMs: rng.Int64() - math.MaxInt64/2, Host: cp42Host(rng),
			CPUAvg: cp42Num(rng), CPUSd: cp42Num(rng), CPUN: rng.Int64() - math.MaxInt64/2,
			RequestsAvg: cp42Num(rng), RequestsSum: cp42Num(rng), RequestsN: rng.Int64(),
			CPUMin: cp42Num(rng), CPUMax: cp42Num(rng), CurrentAvg: cp42Num(rng), CurrentSd: cp42Num(rng),
		}
		r.SetSamples(xs)
		require.LessOrEqual(t, len(r.CPUSamples), MaxSamples)
		require.EqualValues(t, max(0, n-MaxSamples), r.CPUSamplesLeftOut)
		data := r.AppendJSON(nil)
		require.True(t, json.Valid(data), "case %d: valid JSON", c)
		require.True(t, utf8.Valid(data), "case %d: UTF-8", c)
		assert.Equal(t, r.CPUSamplesLeftOut > 0, strings.Contains(string(data), `"cpu_samples_left_out":`), "case %d: the field only when samples were left out", c)

		// Field order, as the package doc gives it.
		var order []string
		dec := json.NewDecoder(strings.NewReader(string(data)))
		_, _ = dec.Token()
		for dec.More() {
			k, err := dec.Token()
			require.NoError(t, err)
			order = append(order, k.(string))
			var skip json.RawMessage
			require.NoError(t, dec.Decode(&skip))
		}
		want := []string{"ts", "host", "cpu_avg", "cpu_sd", "cpu_n", "requests_avg", "requests_sum", "requests_n", "cpu_samples"}
		if r.CPUSamplesLeftOut > 0 {
			want = append(want, "cpu_samples_left_out")
		}
		want = append(want, "cpu_min", "cpu_max", "current_avg", "current_sd")
		require.Equal(t, want, order, "case %d", c)

		got, err := Decode(data)
		require.NoError(t, err, "case %d", c)
		wantHost := r.Host
		if !utf8.ValidString(r.Host) {
			wantHost = string([]rune(r.Host)) // one U+FFFD per bad byte
		}
		require.Equal(t, wantHost, got.Host, "case %d", c)
		require.Equal(t, r.BoundaryMs, got.BoundaryMs)
		require.Equal(t, r.Key().BoundaryMs, got.Key().BoundaryMs)
		require.Equal(t, r.CPUN, got.CPUN)
		require.Equal(t, r.RequestsN, got.RequestsN)
		require.Equal(t, r.CPUSamplesLeftOut, got.CPUSamplesLeftOut)
		same := func(w, g float64) bool {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return math.IsNaN(g)
			}
			return math.Float64bits(w) == math.Float64bits(g)
		}
		for i, p := range [][2]float64{{r.CPUAvg, got.CPUAvg}, {r.CPUSd, got.CPUSd}, {r.RequestsAvg, got.RequestsAvg},
			{r.RequestsSum, got.RequestsSum}, {r.CPUMin, got.CPUMin}, {r.CPUMax, got.CPUMax},
			{r.CurrentAvg, got.CurrentAvg}, {r.CurrentSd, got.CurrentSd}} {
			require.True(t, same(p[0], p[1]), "case %d number %d: %v read as %v", c, i, p[0], p[1])
		}
		require.Len(t, got.CPUSamples, len(r.CPUSamples))
		for i := range r.CPUSamples {
			require.True(t, same(r.CPUSamples[i], got.CPUSamples[i]), "case %d sample %d", c, i)
		}
		again, err := Decode(got.AppendJSON(nil))
		require.NoError(t, err)
		require.Equal(t, string(got.AppendJSON(nil)), string(again.AppendJSON(nil)), "case %d: a row read back writes the same", c)
	}
}

func TestCp42RecordsWithoutTheirKeyOrOfTheWrongShapeAreRefused(t *testing.T) {
	for _, bad := range []string{
		``, `null`, `[]`, `"x"`, `{}`, `{"ts":1}`, `{"host":"a"}`, `{"ts":null,"host":"a"}`, `{"ts":1,"host":null}`,
		`{"ts":"1","host":"a"}`, `{"ts":1.5,"host":"a"}`, `{"ts":1e400,"host":"a"}`, `{"ts":1,"host":7}`,
		`{"ts":1,"host":"a","cpu_avg":"x"}`, `{"ts":1,"host":"a","cpu_samples":{}}`, `{"ts":1,"host":"a","cpu_samples":["x"]}`,
		`{"ts":1,"host":"a","cpu_n":0.5}`, `{"ts":1,"host":"a"`, `{"ts":1,"host":"a"} x`,
	} {
		_, err := Decode([]byte(bad))
		assert.ErrorIs(t, err, ErrRow, "%q", bad)
	}
}
