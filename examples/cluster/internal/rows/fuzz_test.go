package rows

import (
	"math"
	"testing"
	"unicode/utf8"
)

// sameNum reports whether a number read back is the one written: bit for
// bit, and missing for NaN (and for an infinity, which JSON cannot hold
// and is written as null).
func sameNum(wrote, read float64) bool {
	if math.IsNaN(wrote) || math.IsInf(wrote, 0) {
		return math.IsNaN(read)
	}
	return math.Float64bits(wrote) == math.Float64bits(read)
}

// FuzzRowRoundTrip writes rows of any host (control characters, quotes,
// bytes that are not UTF-8) and any numbers, and reads them back: every
// row written must decode, to the same key and numbers; a host that is
// not valid UTF-8 comes back with U+FFFD for each bad byte, as JSON
// carries only UTF-8.
func FuzzRowRoundTrip(f *testing.F) {
	f.Add("host-0001", int64(1735689600200), 0.5, -1.25, uint64(0x7ff8000000000001), int64(3))
	f.Add("a\x00b\x01\"\\\t\u2028\xff", int64(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, uint64(0x7ff0000000000000), int64(-7))
	f.Fuzz(func(t *testing.T, host string, ts int64, x, y float64, zbits uint64, n int64) {
		z := math.Float64frombits(zbits)
		r := Row{
			BoundaryMs: ts, Host: host,
			CPUAvg: x, CPUSd: y, CPUN: n,
			RequestsAvg: z, RequestsSum: -x, RequestsN: -n,
			CPUSamples: []float64{x, y, z},
			CPUMin:     y, CPUMax: z, CurrentAvg: x, CurrentSd: math.NaN(),
		}
		data := r.AppendJSON(nil)
		got, err := Decode(data)
		if err != nil {
			t.Fatalf("a written row does not decode: %v\n%s", err, data)
		}
		wantHost := host
		if !utf8.ValidString(host) {
			wantHost = string([]rune(host))
		}
		if got.BoundaryMs != ts || got.Host != wantHost {
			t.Fatalf("key (%q, %d) read back as (%q, %d)", wantHost, ts, got.Host, got.BoundaryMs)
		}
		if got.CPUN != n || got.RequestsN != -n {
			t.Fatalf("counts %d, %d read back as %d, %d", n, -n, got.CPUN, got.RequestsN)
		}
		nums := [][2]float64{
			{x, got.CPUAvg}, {y, got.CPUSd}, {z, got.RequestsAvg}, {-x, got.RequestsSum},
			{y, got.CPUMin}, {z, got.CPUMax}, {x, got.CurrentAvg}, {math.NaN(), got.CurrentSd},
		}
		if len(got.CPUSamples) != 3 {
			t.Fatalf("3 samples read back as %d", len(got.CPUSamples))
		}
		for i, s := range []float64{x, y, z} {
			nums = append(nums, [2]float64{s, got.CPUSamples[i]})
		}
		for i, p := range nums {
			if !sameNum(p[0], p[1]) {
				t.Fatalf("number %d: %v read back as %v\n%s", i, p[0], p[1], data)
			}
		}
	})
}

// FuzzDecode reads any bytes as a row: an error or a row, never a panic;
// a row that decodes is written back to the same row.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"ts":1,"host":"h","cpu_samples":[1,null]}`))
	f.Add([]byte(`{"ts":1e3,"host":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			return
		}
		again, err := Decode(r.AppendJSON(nil))
		if err != nil {
			t.Fatalf("a decoded row written back does not decode: %v", err)
		}
		if string(again.AppendJSON(nil)) != string(r.AppendJSON(nil)) {
			t.Fatalf("a decoded row written back reads as another:\n%s\n%s", r.AppendJSON(nil), again.AppendJSON(nil))
		}
	})
}
