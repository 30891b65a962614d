package live

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
)

func TestSameStringsCountsTheLeadingStringsAtTheSameAddress(t *testing.T) {
	a := []string{"host-0", "host-1", "host-2", "host-3"}
	copyOf := func(s string) string { return strings.Clone(s) }
	cases := []struct {
		name string
		b    []string
		want int
	}{
		{"the same strings, another slice", append([]string(nil), a...), 4},
		{"the same strings and more", append(append([]string(nil), a...), "host-4"), 4},
		{"equal bytes at another address", []string{a[0], copyOf(a[1]), a[2], a[3]}, 1},
		{"another string at the end", []string{a[0], a[1], a[2], "host-9"}, 3},
		{"a shorter string at the same address", []string{a[0], a[1][:5], a[2], a[3]}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, sameStrings(a, c.b))
		})
	}
	assert.Equal(t, 0, sameStrings(nil, a), "no strings")
}

// TestAPushOfTheCachedStringsTakesTheCachesIDsWhole pushes the same key
// strings three times (another slice each time, the same bytes at the
// same addresses), then with one key replaced, then that replaced set
// twice: a push of the
// strings the cache holds and matched last time takes the cache's own ids
// whole, without remembering the strings again; the push after a miss
// compares them one by one; and the cache's header bytes, by which a
// whole hit is found, always are those of the strings it holds.
func TestAPushOfTheCachedStringsTakesTheCachesIDsWhole(t *testing.T) {
	sch := schema.MustNew(
		schema.Column{Name: "time", Kind: schema.Time},
		schema.Column{Name: "cpu", Kind: schema.Number},
		schema.Column{Name: "host", Kind: schema.String},
	)
	s, err := New("cache", sch, Options{})
	require.NoError(t, err)
	hosts := []string{"a", "b", "c"}
	other := []string{"a", "x", "c"}
	tick := int64(0)
	push := func(keys []string) {
		tick++
		b := schema.NewBatch(sch, len(keys))
		for i := range keys {
			b.Time = append(b.Time, tick)
			b.Cols[0].Num = append(b.Cols[0].Num, float64(i))
		}
		b.Cols[1].Str = append(b.Cols[1].Str, keys...) // another slice, the same strings
		_, err := s.PushMany(nil, b)
		require.NoError(t, err)
	}
	cacheIDs := func() *uint32 { return unsafe.SliceData(s.root.cache[2].ids) }
	steps := []struct {
		name   string
		keys   []string
		cached bool
	}{
		{"the first push", hosts, false},
		{"the same strings, compared string by string", hosts, false},
		{"the same strings a third time", hosts, true},
		{"one key replaced", other, false},
		{"the replaced set again, compared string by string", other, false},
		{"the replaced set a third time", other, true},
		{"the first set again", hosts, false},
	}
	for _, st := range steps {
		push(st.keys)
		assert.Equal(t, st.cached, s.root.cached, st.name)
		c := &s.root.cache[2]
		assert.Equal(t, headerBytes(c.strs), c.hdr, "%s: the cache's headers kept with its strings", st.name)
		if st.cached {
			assert.Same(t, cacheIDs(), unsafe.SliceData(s.root.out.syms[2]), "%s: the cache's own ids", st.name)
		}
		for i, k := range st.keys {
			id, ok := s.syms.Lookup(k)
			require.True(t, ok, st.name)
			assert.Equal(t, id, s.root.out.syms[2][i], "%s: row %d", st.name, i)
		}
	}
}
