package live

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
