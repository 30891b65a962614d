package intern

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
)

func TestIDsAreDenseAndStable(t *testing.T) {
	tab := New()
	a := tab.ID("a")
	b := tab.ID("b")
	assert.Equal(t, uint32(1), a)
	assert.Equal(t, uint32(2), b)
	assert.Equal(t, a, tab.ID("a"))
	assert.Equal(t, "b", tab.Str(b))
	assert.Equal(t, "", tab.Str(0))
	id, ok := tab.Lookup("")
	assert.False(t, ok, "the empty string has no id until it is seen")
	assert.Zero(t, id)
	assert.Equal(t, uint32(3), tab.ID(""), "the empty string is a value, not missing")
}

func TestRollbackUndoesAssignments(t *testing.T) {
	tab := New()
	tab.ID("a")
	tab.ID("x")
	tab.Sweep() // nothing marked: a and x are freed
	tab.ID("a") // takes x's id, 2
	tab.Begin()
	tab.ID("b") // takes 1
	tab.ID("c") // a new id, 3
	tab.Rollback()
	assert.Equal(t, 1, tab.Live())
	assert.Equal(t, 3, tab.Len())
	_, ok := tab.Lookup("b")
	assert.False(t, ok)
	assert.Equal(t, uint32(1), tab.ID("c"), "the ids are given as before the push")
	assert.Equal(t, uint32(2), tab.ID("a"))
}

func TestSweepFreesWhatIsNotMarkedAndReusesIDs(t *testing.T) {
	tab := New()
	for i := range 10 {
		tab.ID(strconv.Itoa(i))
	}
	for _, s := range []string{"3", "7"} {
		id, _ := tab.Lookup(s)
		tab.Mark(id)
	}
	tab.Sweep()
	assert.Equal(t, 2, tab.Live())
	for i := range 10 {
		_, ok := tab.Lookup(strconv.Itoa(i))
		assert.Equal(t, i == 3 || i == 7, ok, "string %d", i)
	}
	assert.Equal(t, "7", tab.Str(8))
	for i := range 8 {
		tab.ID("new" + strconv.Itoa(i))
	}
	assert.Equal(t, 11, tab.Len(), "new strings take the freed ids")
	tab.ID("one more")
	assert.Equal(t, 12, tab.Len())
}

// TestChurnIsBoundedAndDoesNotAllocate: a window of the latest 5000
// strings, with a new string at every step and a sweep whenever one is
// due, keeps the table within 1.25 times the window (or the window plus
// the 1024 new ids that make a sweep due), and once warm gives and frees
// ids without allocating.
func TestChurnIsBoundedAndDoesNotAllocate(t *testing.T) {
	const window = 5000
	strs := make([]string, 200_000)
	for i := range strs {
		strs[i] = "req-" + strconv.Itoa(i)
	}
	tab := New()
	ids := make([]uint32, len(strs))
	next := 0
	step := func() {
		tab.Begin() // each step is a push
		ids[next] = tab.ID(strs[next])
		next++
		if tab.Due() {
			for k := max(0, next-window); k < next; k++ {
				tab.Mark(ids[k])
			}
			tab.Sweep()
		}
	}
	for range 100_000 {
		step()
		require.LessOrEqual(t, tab.Live(), window+max(window/4, minDue))
	}
	assert.Zero(t, allocs.Count(50_000, step))
	assert.LessOrEqual(t, tab.Len(), window+max(window/4, minDue)+1, "ids stay dense")
	for k := next - window; k < next; k++ {
		require.Equal(t, strs[k], tab.Str(ids[k]))
	}
}

// TestTableFindsWhatItHolds: through ids given, sweeps that free some of
// them and rollbacks, every string the table holds is found under its id
// and every string it let go is not, also when strings share hashes (the
// test keeps 3 bits of them).
func TestTableFindsWhatItHolds(t *testing.T) {
	for _, bits := range []uint64{hashBits, 7 << 32} {
		old := hashBits
		hashBits = bits
		testTableFinds(t)
		hashBits = old
	}
}

func testTableFinds(t *testing.T) {
	tab := New()
	rng := rand.New(rand.NewPCG(1, 2))
	universe := make([]string, 3000)
	for i := range universe {
		universe[i] = "s" + strconv.Itoa(i)
	}
	held := map[string]uint32{}
	check := func() {
		require.Equal(t, len(held), tab.Live())
		for _, s := range universe {
			id, ok := tab.Lookup(s)
			want, has := held[s]
			require.Equal(t, has, ok, s)
			if has {
				require.Equal(t, want, id, s)
				require.Equal(t, s, tab.Str(id))
			}
		}
	}
	for round := range 40 {
		for range rng.IntN(2000) {
			s := universe[rng.IntN(len(universe))]
			id := tab.ID(s)
			if want, ok := held[s]; ok {
				require.Equal(t, want, id)
			}
			held[s] = id
		}
		check()
		if round%3 == 0 {
			tab.Begin()
			for range rng.IntN(300) {
				tab.ID(universe[rng.IntN(len(universe))])
			}
			tab.Rollback()
			check()
		}
		// Keep about half of what is held.
		for s, id := range held {
			if rng.IntN(2) == 0 {
				tab.Mark(id)
			} else {
				delete(held, s)
			}
		}
		tab.Sweep()
		check()
	}
}

// TestJournalOfABigPushIsLetGo: after a push of many new strings, the
// journal's room goes once a push uses little of it; a small journal
// stays, so a steady stream of few new strings does not allocate.
func TestJournalOfABigPushIsLetGo(t *testing.T) {
	tab := New()
	tab.Begin()
	for i := range 20000 {
		tab.ID("k" + strconv.Itoa(i))
	}
	tab.Begin() // the last push used all of it: kept
	assert.GreaterOrEqual(t, cap(tab.fresh), 20000)
	tab.ID("new")
	tab.Begin() // one id in the last push: let go
	assert.Zero(t, cap(tab.fresh))
	for i := range 1000 {
		tab.ID("host" + strconv.Itoa(i)) // the first push of 1,000 hosts
	}
	tab.Begin()
	tab.Begin() // none in the last push: let go
	assert.Zero(t, cap(tab.fresh), "the journal of a push of 1,000 new strings")
	for i := range 100 {
		tab.ID("small" + strconv.Itoa(i))
	}
	small := cap(tab.fresh)
	tab.Begin()
	tab.Begin()
	assert.Equal(t, small, cap(tab.fresh), "a small journal is kept")
	keys := []string{"x", "y", "z"}
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		tab.Begin()
		for _, k := range keys {
			tab.ID(k)
		}
		tab.Rollback()
	}))
}

// Bytes counts the strings in use, not the room: strings given ids by a
// rolled-back Begin leave it as it was.
func TestBytesCountsTheStringsInUse(t *testing.T) {
	tb := New()
	tb.ID("a")
	tb.ID("b")
	before := tb.Bytes()
	if before != 2*BytesPerString {
		t.Fatalf("two strings: %d bytes, want %d", before, 2*BytesPerString)
	}
	tb.Begin()
	for i := range 1000 {
		tb.ID(string(rune('c' + i)))
	}
	tb.Rollback()
	if got := tb.Bytes(); got != before {
		t.Fatalf("after a rolled-back Begin: %d bytes, want %d", got, before)
	}
}
