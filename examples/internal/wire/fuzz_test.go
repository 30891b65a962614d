package wire

import (
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzRawFrameRoundTrip writes a raw frame of rows with any host and any
// numbers and reads it back: it must decode, each row to its time, its
// host (a byte that is not UTF-8 as U+FFFD) and its numbers (NaN and
// ±Inf, which JSON cannot hold, as NaN; -0 as 0).
func FuzzRawFrameRoundTrip(f *testing.F) {
	f.Add(int64(1735689600000), 0.5, 97.0, "host-0001")
	f.Add(int64(-1), math.Inf(-1), 1e-7, "a\x00\x1f\"\\\u2028\xff")
	f.Add(int64(math.MaxInt64), math.MaxFloat64, math.SmallestNonzeroFloat64, "")
	f.Fuzz(func(t *testing.T, ms int64, cpu, req float64, host string) {
		rows := RawRows{TimeMs: []int64{ms, ms}, CPU: []float64{cpu, req}, Requests: []float64{req, cpu}, Host: []string{host, host + host}}
		data := AppendRawFrame(nil, TypeSnapshot, rows)
		fr, err := Decode(data)
		if err != nil {
			t.Fatalf("a written frame does not decode: %v\n%s", err, data)
		}
		if len(fr.RawRows) != 2 {
			t.Fatalf("2 rows read back as %d", len(fr.RawRows))
		}
		for i, r := range fr.RawRows {
			want := rows.Host[i]
			if !utf8.ValidString(want) {
				want = string([]rune(want))
			}
			if r.TimeMs != ms || r.Host != want {
				t.Fatalf("row %d: (%d, %q) read back as (%d, %q)", i, ms, want, r.TimeMs, r.Host)
			}
			for _, p := range [][2]float64{{rows.CPU[i], r.CPU}, {rows.Requests[i], r.Requests}} {
				if !sameFloat(p[0], p[1]) {
					t.Fatalf("row %d: %v read back as %v\n%s", i, p[0], p[1], data)
				}
			}
		}
	})
}

// sameFloat reports whether a number read back is the one written, as
// JSON carries it.
func sameFloat(wrote, read float64) bool {
	if math.IsNaN(wrote) || math.IsInf(wrote, 0) {
		return math.IsNaN(read)
	}
	return wrote == read
}

// FuzzDecode reads any bytes as a frame: an error or a frame, never a
// panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"snapshot","rows":[[1,0.5,2,"h"]]}`))
	f.Add([]byte(`{"type":"append","rows":[{"ts":1,"host":"h","anomalies_above":[1]}],"globals":{"ts":1}}`))
	f.Add([]byte(`{"type":"snapshot","rows":[[1,2,3]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Decode(data)
	})
}
