package live_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
)

// The pure-function claim of aligned windows: a key's rows depend only on
// its own events.

// strictCase is a random case whose stream is in time order (any
// interleaving of its keys that keeps time order is then a valid stream).
func strictCase(rng *rand.Rand) alignedCase {
	c := newAlignedCase(rng)
	c.opts = live.Options{}
	c.lag = 0
	slices.SortStableFunc(c.rows, func(a, b arow) int { return int(a.t - b.t) })
	return c
}

// interleave merges the keys' rows, each key's in its own order, picking
// at random among the keys whose next row is earliest.
func interleave(rng *rand.Rand, rows []arow) []arow {
	byKey := map[string][]arow{}
	var keys []string
	for _, r := range rows {
		if _, ok := byKey[r.host]; !ok {
			keys = append(keys, r.host)
		}
		byKey[r.host] = append(byKey[r.host], r)
	}
	var out []arow
	for len(out) < len(rows) {
		var cands []string
		best := int64(0)
		for _, k := range keys {
			q := byKey[k]
			if len(q) == 0 {
				continue
			}
			switch {
			case len(cands) == 0 || q[0].t < best:
				cands, best = []string{k}, q[0].t
			case q[0].t == best:
				cands = append(cands, k)
			}
		}
		k := cands[rng.IntN(len(cands))]
		out = append(out, byKey[k][0])
		byKey[k] = byKey[k][1:]
	}
	return out
}

// run pushes rows into a fresh series of the case and returns what it
// emitted and its final watermark.
func (c *alignedCase) run(t *testing.T, rng *rand.Rand, rows []arow) []alignedRow {
	t.Helper()
	s, node, err := c.build()
	require.NoError(t, err)
	defer s.Close()
	got, err := pushAligned(s, node, rows, func() int { return 1 + rng.IntN(30) })
	require.NoError(t, err)
	return got
}

// upTo keeps the rows keyed at or before b, sorted by boundary and key
// (the order across keys is the series' first-seen order, not part of the
// claim).
func upTo(rows []alignedRow, b int64) []string {
	var out []string
	for _, r := range rows {
		if r.b <= b {
			out = append(out, r.String())
		}
	}
	slices.Sort(out)
	return out
}

func maxTime(rows []arow) int64 {
	m := rows[0].t
	for _, r := range rows {
		m = max(m, r.t)
	}
	return m
}

func TestAlignedRowsArePureFunctionsOfTheKeysEvents(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 41))
		c := strictCase(rng)
		base := c.run(t, rng, c.rows)
		end := maxTime(c.rows)

		t.Run("rebatched", func(t *testing.T) {
			require.Equal(t, upTo(base, end), upTo(c.run(t, rng, c.rows), end))
		})
		t.Run("interleaved differently across keys", func(t *testing.T) {
			require.Equal(t, upTo(base, end), upTo(c.run(t, rng, interleave(rng, c.rows)), end))
		})
		t.Run("split over several series", func(t *testing.T) {
			parts := 2 + rng.IntN(3)
			of := map[string]int{}
			split := make([][]arow, parts)
			for _, r := range c.rows {
				if _, ok := of[r.host]; !ok {
					of[r.host] = rng.IntN(parts)
				}
				split[of[r.host]] = append(split[of[r.host]], r)
			}
			// A boundary every series has closed.
			common := end
			var union []alignedRow
			for _, rows := range split {
				if len(rows) == 0 {
					continue
				}
				common = min(common, maxTime(rows))
				union = append(union, c.run(t, rng, rows)...)
			}
			require.Equal(t, upTo(base, common), upTo(union, common))
		})
		t.Run("rebuilt from a replay of the longest window", func(t *testing.T) {
			cut := c.rows[len(c.rows)/2].t
			longest := int64(0)
			for _, w := range c.windows {
				longest = max(longest, w.Span.Milliseconds())
			}
			from := 0
			for from < len(c.rows) && c.rows[from].t < cut-longest {
				from++
			}
			replayed := c.run(t, rng, c.rows[from:])
			after := func(rows []alignedRow) []string {
				var out []string
				for _, r := range rows {
					if r.b > cut {
						out = append(out, r.String())
					}
				}
				slices.Sort(out) // the first-seen order of keys may differ
				return out
			}
			require.NotEmpty(t, after(base))
			require.Equal(t, after(base), after(replayed))
		})
	}
}
