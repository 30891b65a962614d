package reducers

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/pond-go/pond/internal/exact"
	"github.com/pond-go/pond/internal/fsum"
)

// fuzzValues are the values a fuzz byte picks; other bytes read the next
// eight bytes as raw float64 bits.
var fuzzValues = []float64{
	0, math.Copysign(0, -1), 1, 0.1, 58.95465139167753, -3, 1e16, -3e20, 1e-12,
	5e-324, 1e200, math.NaN(), math.Inf(1), math.Inf(-1), 0.5 + 1e-16, 7,
	1.7e308, -1e300,
}

// FuzzMoments drives a Moments through runs added, removed, slid and
// refilled — through the slot paths, the one-pass paths and the vector
// kernel — and a twin through Add and Remove one value at a time, and
// checks both against exact arithmetic over the window's finite values
// after every step: counts exactly, sums and means within 1e-13 of the
// window's Σ|x|, deviations within 1e-9 relative (plus a 1e-12 share of
// the root mean square) where the squares neither overflow nor underflow.
func FuzzMoments(f *testing.F) {
	f.Add([]byte{0, 4, 1, 2, 3, 4, 2, 2, 5, 6, 1, 1, 3, 3, 7, 8, 9})
	f.Add([]byte{0, 9, 8, 6, 8, 8, 6, 8, 6, 8, 6, 2, 1, 6, 2, 3, 12, 11, 10, 4})
	f.Add([]byte{3, 12, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 6, 0, 5, 7, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m, twin Moments
		if len(data) > 0 && data[0]&0x80 != 0 {
			m.SkipSquares()
			twin.SkipSquares()
		}
		var window []float64
		// The finite values added since the window was last empty: a
		// value that left can leave a residue in the squares of its band
		// (2^-106 of its square) until the band empties.
		var since []float64
		next := func() float64 {
			if len(data) == 0 {
				return 1
			}
			b := data[0]
			data = data[1:]
			if int(b) < len(fuzzValues) {
				return fuzzValues[b]
			}
			if b < 128 {
				return float64(int(b)-64) / 4
			}
			if len(data) < 8 {
				return float64(b)
			}
			x := math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
			return x
		}
		slots := func(xs []float64, stride int) []uint64 {
			s := make([]uint64, len(xs)*stride+1)
			for i, x := range xs {
				s[i*stride] = math.Float64bits(x)
			}
			return s
		}
		defer func(a bool) { fsum.Available = a }(fsum.Available)
		kernel := fsum.Available
		for step := 0; len(data) >= 2 && step < 200; step++ {
			op, k := data[0]%6, 1+int(data[1]%40)
			stride := 1 + int(data[1]/40)%3
			data = data[2:]
			// The vector kernel (where there is one) on and off in turn.
			fsum.Available = kernel && step%2 == 0
			var fresh, old []float64
			if op != 1 && op != 5 {
				for range k {
					fresh = append(fresh, next())
				}
			}
			k = min(k, len(window))
			if op == 1 || op == 2 {
				old = window[:k]
			}
			switch op {
			case 0: // add a run
				m.AddSlots(slots(fresh, stride), 0, stride, len(fresh))
				window = append(window, fresh...)
			case 1: // remove the oldest run
				m.RemoveSlots(slots(old, stride), 0, stride, k)
				window = window[k:]
			case 2: // slide
				m.ShiftSlots(slots(old, stride), 0, k, slots(fresh, stride), 0, len(fresh), stride)
				window = append(window[k:], fresh...)
			case 3: // refill
				for _, x := range window {
					twin.Remove(x)
				}
				m.FillSlots(slots(fresh, stride), 0, stride, len(fresh))
				window = fresh
			case 4: // one value
				fresh = fresh[:1]
				m.Add(fresh[0])
				window = append(window, fresh[0])
			case 5: // the oldest value
				k = min(1, len(window))
				old = window[:k]
				for _, x := range old {
					m.Remove(x)
				}
				window = window[k:]
			}
			if op != 3 {
				for _, x := range old {
					twin.Remove(x)
				}
			}
			if op != 1 && op != 5 {
				for _, x := range fresh {
					twin.Add(x)
				}
			}
			if op == 3 {
				since = since[:0]
			}
			if !hasFinite(window) {
				since = since[:0]
			}
			for _, x := range fresh {
				if x-x == 0 {
					since = append(since, x)
				}
			}
			checkFuzzMoments(t, &m, window, since, step, "slots")
			checkFuzzMoments(t, &twin, window, since, step, "one by one")
		}
	})
}

func hasFinite(xs []float64) bool {
	for _, x := range xs {
		if x-x == 0 {
			return true
		}
	}
	return false
}

// bandIndex is the band m puts x in (0: the main band).
func bandIndex(m *Moments, x float64) int32 {
	if x == 0 {
		return 0
	}
	d := int32(math.Float64bits(x)>>52&0x7ff) - int32(m.anchor) + bandSpan
	if d < 0 {
		return (d - bandWidth + 1) / bandWidth
	}
	return d / bandWidth
}

func checkFuzzMoments(t *testing.T, m *Moments, window, since []float64, step int, path string) {
	t.Helper()
	var xs []float64
	abs, maxAbs, minAbs := 0.0, 0.0, math.Inf(1)
	for _, x := range window {
		if x-x == 0 {
			xs = append(xs, x)
			abs += math.Abs(x)
			maxAbs = max(maxAbs, math.Abs(x))
			if x != 0 {
				minAbs = min(minAbs, math.Abs(x))
			}
		}
	}
	if m.N() != len(xs) {
		t.Fatalf("step %d, %s: N %d, want %d", step, path, m.N(), len(xs))
	}
	if abs-abs != 0 {
		// Σ|x| overflows: compared in units of 2^-128 (huge values are
		// summed apart, see hugeExp).
		checkHuge(t, m, xs, 0, step, path)
		return
	}
	if got, want := m.Sum(), exact.SumFloat(xs); math.Abs(got-want) > 1e-13*abs {
		t.Fatalf("step %d, %s: sum %v, want %v (window %v)", step, path, got, want, xs)
	}
	if len(xs) == 0 {
		return
	}
	if got, want := m.Mean(); math.Abs(got-exact.Mean(xs)) > 1e-13*abs/float64(len(xs)) || !want {
		t.Fatalf("step %d, %s: mean %v, want %v", step, path, got, exact.Mean(xs))
	}
	if m.noSquares || maxAbs > 1e140 || minAbs < 1e-140 {
		return
	}
	sd, ok := m.Stdev()
	want := exact.Stdev(xs)
	rms := 0.0
	for _, x := range xs {
		rms += x * x
	}
	rms = math.Sqrt(rms / float64(len(xs)))
	// Values that left may have left a residue of up to 2^-106 of their
	// squares each in Σx² of a band that still holds values: the
	// variance is off by at most that over n, the deviation by that over
	// (want + its root).
	// A band holding zeros alone holds no residue (Moments.zeros).
	live := map[int32]bool{}
	for _, x := range xs {
		if x != 0 {
			live[bandIndex(m, x)] = true
		}
	}
	peak := 0.0
	for _, x := range since {
		if live[bandIndex(m, x)] {
			peak = max(peak, math.Abs(x))
		}
	}
	ev := float64(len(since)) * 0x1p-104 * peak * peak / float64(len(xs))
	if !ok || math.Abs(sd-want) > 1e-9*want+1e-12*rms+ev/(want+math.Sqrt(ev)) {
		t.Fatalf("step %d, %s: stdev %v (%v), want %v (window %v)", step, path, sd, ok, want, xs)
	}
}
