package intern

import (
	"fmt"
	"testing"
)

// BenchmarkIDHit looks up strings that have ids, as a push whose producer
// does not reuse its strings does for each row; BenchmarkIDNew gives ids
// to new strings, sweeping the old ones as a series does.
func BenchmarkIDHit(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			tab := New()
			strs := make([]string, n)
			for i := range strs {
				strs[i] = fmt.Sprintf("host-%04d", i)
				tab.ID(strs[i])
			}
			// Copies, so that no lookup is decided by the bytes' address.
			keys := make([]string, n)
			for i, s := range strs {
				keys[i] = string([]byte(s))
			}
			b.ResetTimer()
			hits(tab, keys, b.N)
		})
	}
}

// hits looks up keys, m of them in turn: a function of its own for
// callgrind --toggle-collect.
//
//go:noinline
func hits(tab *Table, keys []string, m int) {
	for i := range m {
		tab.ID(keys[i%len(keys)])
	}
}

// news gives ids to keys, m of them in turn, sweeping when due.
//
//go:noinline
func news(tab *Table, keys []string, m int) {
	for i := range m {
		tab.ID(keys[i%len(keys)])
		if tab.Due() {
			tab.Sweep()
		}
	}
}

func BenchmarkIDNew(b *testing.B) {
	tab := New()
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%08d", i)
	}
	b.ResetTimer()
	news(tab, keys, b.N)
}
