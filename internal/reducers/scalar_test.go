package reducers

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompareUTF16 checks the string order against a conversion to UTF-16.
func TestCompareUTF16(t *testing.T) {
	pieces := []string{"", "a", "b", "é", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uff01", "\uffff",
		"😀", "\U00010000", "\U0010ffff", "\xff", "\xe2\x82", "\xe2\x82\xac", "z"}
	ref := func(a, b string) int {
		if c := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))); c != 0 {
			return c
		}
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	rng := rand.New(rand.NewPCG(2, 3))
	word := func() string {
		var s string
		for range rng.IntN(4) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	for range 200000 {
		a, b := word(), word()
		require.Equal(t, ref(a, b), compareUTF16(a, b), "%q vs %q", a, b)
	}
	assert.Equal(t, -1, compareUTF16("😀", "\uff01"), "a supplementary character sorts before U+FF01 in UTF-16")
	assert.False(t, "😀" < "\uff01", "Go's byte order says the opposite")
}

func FuzzCompareUTF16(f *testing.F) {
	f.Add("😀", "\uff01")
	f.Add("a\xe2\x82", "a\xe2\x82\xac")
	f.Fuzz(func(t *testing.T, a, b string) {
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		got := compareUTF16(a, b)
		if want != 0 && got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
		if got != -compareUTF16(b, a) {
			t.Fatalf("not antisymmetric on %q, %q", a, b)
		}
	})
}
