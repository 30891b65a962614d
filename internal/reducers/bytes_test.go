package reducers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/internal/reducers"
	"github.com/pond-go/pond/schema"
)

// TestStatesCountTheMemoryTheyHold: a state that keeps what it is given
// (the values, their order, their distinct keys) reports memory that grows
// with them, at least their own bytes; one that keeps a fixed summary
// reports no more than a few entries beyond its empty self. Both at 10,000 distinct, falling
// values (a max's deque keeps every one of them), as a window, a set, a
// bucket and a running state.
func TestStatesCountTheMemoryTheyHold(t *testing.T) {
	const n = 10000
	all := []reducers.Op{reducers.OpCount, reducers.OpSum, reducers.OpAvg, reducers.OpStdev,
		reducers.OpMin, reducers.OpMax, reducers.OpDifference, reducers.OpFirst, reducers.OpLast,
		reducers.OpMedian, reducers.OpPercentile, reducers.OpKeep, reducers.OpUnique, reducers.OpTop,
		reducers.OpSamples}
	// What keeps a value a value (8 bytes or more each), by kind of state.
	window := map[reducers.Op]bool{reducers.OpMax: true, reducers.OpDifference: true,
		reducers.OpFirst: true, reducers.OpLast: true, reducers.OpMedian: true, reducers.OpPercentile: true,
		reducers.OpKeep: true, reducers.OpUnique: true, reducers.OpTop: true, reducers.OpSamples: true}
	bucket := map[reducers.Op]bool{reducers.OpMedian: true, reducers.OpPercentile: true,
		reducers.OpUnique: true, reducers.OpTop: true, reducers.OpSamples: true}
	type state interface {
		Bytes() int
	}
	for _, op := range all {
		spec := reducers.Spec{Op: op, Q: 0.9, N: 3}
		for _, c := range []struct {
			name  string
			keeps map[reducers.Op]bool
			make  func() (state, func(i int, v schema.Value))
		}{
			{"window", window, func() (state, func(int, schema.Value)) {
				w := reducers.NewWindow(spec)
				return w, func(i int, v schema.Value) { w.Add(uint64(i), v) }
			}},
			{"set", window, func() (state, func(int, schema.Value)) {
				w := reducers.NewSet(spec)
				return w, func(i int, v schema.Value) { w.Add(uint64(i), v) }
			}},
			{"bucket", bucket, func() (state, func(int, schema.Value)) {
				b := reducers.NewBucket(spec)
				return b, func(_ int, v schema.Value) { b.Add(v) }
			}},
			{"running", bucket, func() (state, func(int, schema.Value)) {
				w := reducers.NewRunning(spec)
				return w, func(i int, v schema.Value) { w.Add(uint64(i), v) }
			}},
		} {
			st, add := c.make()
			empty := st.Bytes()
			assert.Positive(t, empty, "%s %s: its own struct", c.name, op)
			for i := range n {
				add(i, schema.NumberValue(float64(n-i)))
			}
			held := st.Bytes()
			keeps := c.keeps[op]
			if c.name == "set" && op == reducers.OpMin {
				keeps = true // sorted values, not a deque
			}
			if keeps {
				assert.GreaterOrEqual(t, held-empty, 8*n, "%s %s keeps every value", c.name, op)
			} else {
				assert.Less(t, held-empty, 256, "%s %s keeps a summary (a min's deque: its last entry)", c.name, op)
			}
		}
	}
}

// TestMomentsCountTheirOuterBands: values far from the first one's
// magnitude open bands beyond the main one, and their memory is counted.
func TestMomentsCountTheirOuterBands(t *testing.T) {
	w := reducers.NewWindow(reducers.Spec{Op: reducers.OpSum})
	w.Add(0, schema.NumberValue(1))
	before := w.Bytes()
	w.Add(1, schema.NumberValue(1e200))
	w.Add(2, schema.NumberValue(1e-200))
	assert.Greater(t, w.Bytes(), before)
}
