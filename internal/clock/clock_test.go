package clock_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/internal/allocs"
	"github.com/pond-go/pond/internal/clock"
	"github.com/pond-go/pond/sequence"
)

const ms = int64(time.Millisecond)

type fire struct {
	at  int64
	key int64
}

func run(seq sequence.Sequence, times ...int64) []fire {
	c := clock.NewClockState(seq)
	var out []fire
	for _, t := range times {
		if b, ok := c.Observe(t * ms); ok {
			out = append(out, fire{t, b / ms})
		}
	}
	return out
}

func TestClockCrossingRule(t *testing.T) {
	every30 := sequence.Every(30 * time.Second)
	cases := []struct {
		name  string
		seq   sequence.Sequence
		times []int64
		want  []fire
	}{
		{"first event only sets the bucket", every30, []int64{0}, nil},
		{"same bucket never fires", every30, []int64{0, 5000, 15000, 29999}, nil},
		{"a later bucket fires once at its start", every30, []int64{0, 15000, 30001}, []fire{{30001, 30000}}},
		{"skipped boundaries give one firing at the newest", every30, []int64{0, 90001}, []fire{{90001, 90000}}},
		{"an event on the boundary crosses it", every30, []int64{29999, 30000, 30000}, []fire{{30000, 30000}}},
		{"late events never fire", every30, []int64{0, 30001, 100, 29999, 30002}, []fire{{30001, 30000}}},
		{"negative times: -1 then 0 fires at 0", every30, []int64{-1, 0}, []fire{{0, 0}}},
		{"anchor shifts boundaries", every30.WithAnchorNanos(5000 * ms), []int64{5000, 35001}, []fire{{35001, 35000}}},
		{"several crossings", sequence.Every(time.Second), []int64{0, 1000, 1500, 2500, 2600, 7000}, []fire{{1000, 1000}, {2500, 2000}, {7000, 7000}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, run(c.seq, c.times...))
		})
	}
}

func TestCountFiresEveryN(t *testing.T) {
	c := clock.NewCountState(3)
	var got []int
	for i := 1; i <= 10; i++ {
		if c.Observe() {
			got = append(got, i)
		}
	}
	assert.Equal(t, []int{3, 6, 9}, got)
	one := clock.NewCountState(1)
	assert.True(t, one.Observe())
	assert.True(t, one.Observe())
}

func TestClockObserveDoesNotAllocate(t *testing.T) {
	c := clock.NewClockState(sequence.Every(200 * time.Millisecond))
	var tm int64
	n := allocs.Count(1000, func() {
		tm += 7 * ms
		c.Observe(tm)
	})
	assert.Zero(t, n)
}

func ExampleNewClockState() {
	c := clock.NewClockState(sequence.Every(30 * time.Second))
	for _, s := range []int64{0, 15, 30, 31, 95} {
		if key, fired := c.Observe(s * int64(time.Second)); fired {
			fmt.Printf("row at %ds fires, keyed at %ds\n", s, key/int64(time.Second))
		}
	}
	// Output:
	// row at 30s fires, keyed at 30s
	// row at 95s fires, keyed at 90s
}

func TestCheckDurationAcceptsPositiveSpansUpToMaxDuration(t *testing.T) {
	assert.NoError(t, clock.CheckDuration(sequence.MaxDuration))
	assert.NoError(t, clock.CheckDuration(1))
	for _, d := range []time.Duration{0, -1, sequence.MaxDuration + 1} {
		err := clock.CheckDuration(d)
		assert.ErrorIs(t, err, sequence.ErrDuration, "%v", d)
		var de *sequence.DurationError
		assert.ErrorAs(t, err, &de, "%v", d)
	}
}

// TestNextLoudIsTheFirstTimeObserveWouldAct: over sorted times, NextLoud
// finds the first time that is not quiet, from any index, at any gap:
// observing every time and observing only those it finds fire the same
// boundaries at the same rows.
func TestNextLoudIsTheFirstTimeObserveWouldAct(t *testing.T) {
	seq := sequence.Every(10 * time.Nanosecond)
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		ts := make([]int64, rng.IntN(200))
		x := int64(rng.IntN(50)) - 25
		for i := range ts {
			if rng.IntN(4) == 0 {
				x += int64(rng.IntN(30)) // runs of equal times, gaps of any size
			}
			ts[i] = x
		}
		all, some := clock.NewClockState(seq), clock.NewClockState(seq)
		type fire struct {
			row int
			b   int64
		}
		var want, got []fire
		for i, tm := range ts {
			if b, fired := all.Observe(tm); fired {
				want = append(want, fire{i, b})
			}
		}
		for i := some.NextLoud(ts, 0); i < len(ts); i = some.NextLoud(ts, i+1) {
			require.False(t, some.Quiet(ts[i]), "round %d row %d", round, i)
			if i > 0 {
				require.True(t, some.Quiet(ts[i-1]) || !some.Started(), "round %d row %d: the one before is quiet", round, i)
			}
			if b, fired := some.Observe(ts[i]); fired {
				got = append(got, fire{i, b})
			}
		}
		require.Equal(t, want, got, "round %d", round)
		require.Equal(t, all, some, "round %d", round)
	}
}
