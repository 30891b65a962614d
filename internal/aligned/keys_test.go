package aligned

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/table"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/schema"
)

// namedKeys gives partition q the key names[q], and counts the runs of
// keys asked for at once; with refuse, it does not give them at once (as
// the router does for keys that are not strings).
type namedKeys struct {
	names  []string
	runs   int
	refuse bool
}

func (k *namedKeys) KeyValue(q int32) schema.Value { return schema.StringValue(k.names[q]) }

func (k *namedKeys) KeyStrs(keys []string, parts []int32) bool {
	k.runs++
	if k.refuse {
		return false
	}
	for i, q := range parts {
		keys[i] = k.names[q]
	}
	return true
}

// plainKeys gives the keys of namedKeys one at a time only.
type plainKeys struct{ k *namedKeys }

func (k plainKeys) KeyValue(q int32) schema.Value { return k.k.KeyValue(q) }

func TestAClosingsKeysAreWrittenOnceAndFollowTheOrder(t *testing.T) {
	// A closing notes each row's partition and writes the keys when it is
	// done; when every partition emitted and the order is the one of the
	// last closing, the output's key cells from before its reset are kept.
	// Against a group asking for each key one at a time, the keys stay
	// right when a partition goes quiet (a closing emits fewer rows), when
	// one arrives, when one leaves and its index comes back with another
	// key, when the keys are not given at once, and when one push closes
	// two boundaries.
	p, err := NewPlan(Spec{Step: 200 * ms, Kinds: []schema.Kind{schema.Number}, Windows: []Window{{Span: 400 * ms, Aggs: []Agg{{Slot: 1, Using: reduce.Sum}}}}})
	require.NoError(t, err)
	keys := &namedKeys{names: []string{"a", "b", "c", "d"}}
	g, ref := p.NewGroup(keys, 2, 0), p.NewGroup(plainKeys{keys}, 2, 0)
	require.NotNil(t, g.sk)
	require.Nil(t, ref.sk)
	sch := schema.MustNew(schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "key", Kind: schema.String}, schema.Column{Name: "sum", Kind: schema.Number, Optional: true})
	out, want := schema.NewTable(sch), schema.NewTable(sch)
	tm := int64(0)
	// step pushes one row for each of parts at each of n steps of 100ms
	// and returns the keys of the rows out.
	step := func(parts []int32, n int) []string {
		var got []string
		for range n {
			table.Reset(out)
			table.Reset(want)
			ts, xs := make([]int64, len(parts)), make([]uint64, len(parts))
			for i := range parts {
				ts[i], xs[i] = tm, math.Float64bits(1)
			}
			g.Push(&Rows{Times: ts, Enc: [][]uint64{xs}}, parts, out)
			ref.Push(&Rows{Times: ts, Enc: [][]uint64{xs}}, parts, want)
			require.Equal(t, want.Len(), out.Len())
			for r := range out.Len() {
				s, _ := table.Value(table.Column(out, 1), r).Str()
				w, _ := table.Value(table.Column(want, 1), r).Str()
				require.Equal(t, w, s, "at %d, row %d", tm, r)
				got = append(got, s)
			}
			tm += 100 * ms
		}
		return got
	}
	assert.Equal(t, []string{"a", "b"}, step([]int32{0, 1}, 4))
	runs := keys.runs
	assert.Equal(t, []string{"a", "b", "a", "b"}, step([]int32{0, 1}, 4))
	assert.Equal(t, runs, keys.runs, "the same order's keys are kept, not asked for again")
	step([]int32{0}, 6) // b falls quiet
	step([]int32{0, 1, 2}, 4)
	g.Remove(1)
	ref.Remove(1)
	keys.names[1] = "e"
	keys.refuse = true // one at a time
	step([]int32{0, 2}, 2)
	keys.refuse = false
	assert.Contains(t, step([]int32{0, 2, 1}, 4), "e")
	tm += 300 * ms // a gap: one push closes two boundaries
	assert.Equal(t, []string{"a", "c", "e", "a", "c", "e"}, step([]int32{0, 2, 1}, 1))
	assert.Equal(t, []string{"a", "c", "e"}, step([]int32{0, 2, 1}, 2))
}
