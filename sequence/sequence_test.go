package sequence_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
)

func TestParseDurationAcceptsEveryUnit(t *testing.T) {
	cases := map[string]time.Duration{
		"1ms":   time.Millisecond,
		"200ms": 200 * time.Millisecond,
		"30s":   30 * time.Second,
		"1m":    time.Minute,
		"2h":    2 * time.Hour,
		"1d":    24 * time.Hour,
		"007s":  7 * time.Second,
	}
	for in, want := range cases {
		got, err := sequence.ParseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func TestParseDurationRejectsAnythingElse(t *testing.T) {
	for _, in := range []string{
		"", "0s", "0ms", "000m", "1min", "1w", "1.5s", "1m30s", "-1s", "+1s", " 1s", "1s ",
		"s", "ms", "1", "1S", "99999999999999999999s", "106752d", "0x10s",
	} {
		_, err := sequence.ParseDuration(in)
		require.Error(t, err, "%q", in)
		assert.True(t, errors.Is(err, sequence.ErrDuration), "%q", in)
		var de *sequence.DurationError
		require.True(t, errors.As(err, &de), "%q", in)
		assert.Equal(t, in, de.Input)
	}
}

// The reason a duration is refused names the part that is wrong.
func TestParseDurationSaysWhatIsWrong(t *testing.T) {
	cases := map[string]string{
		"1.5s":   "it must be a whole number",
		"1e3ms":  `the unit "e3ms" is not one of ms, s, m, h, d`,
		"1m30s":  `the unit "m30s" is not one of ms, s, m, h, d`,
		"1min":   `the unit "min" is not one of ms, s, m, h, d`,
		"1s ":    `the unit "s " is not one of ms, s, m, h, d`,
		" 1s":    "it must start with a whole number",
		"1":      "the unit is missing",
		"0s":     "it must be positive",
		"53376d": "it is too large",
	}
	for in, reason := range cases {
		_, err := sequence.ParseDuration(in)
		var de *sequence.DurationError
		require.True(t, errors.As(err, &de), "%q", in)
		assert.Equal(t, reason, de.Reason, "%q", in)
	}
}

func TestParseDurationLargestDay(t *testing.T) {
	d, err := sequence.ParseDuration("53375d")
	require.NoError(t, err)
	assert.Equal(t, 53375*24*time.Hour, d)
	_, err = sequence.ParseDuration("53376d")
	assert.ErrorIs(t, err, sequence.ErrDuration, "longer than MaxDuration (2^62 ns)")
}

func TestEveryRejectsNonPositiveSteps(t *testing.T) {
	for _, step := range []time.Duration{0, -time.Second} {
		assert.ErrorIs(t, sequence.Every(step).Err(), sequence.ErrSequence)
	}
	assert.NoError(t, sequence.Every(time.Nanosecond).Err())
	assert.ErrorIs(t, sequence.Every(sequence.MaxDuration+1).Err(), sequence.ErrSequence)
	assert.ErrorIs(t, sequence.Every(time.Second).WithAnchorNanos(schema.MaxTime+1).Err(), sequence.ErrSequence)
	assert.NoError(t, sequence.Every(time.Second).WithAnchorNanos(-schema.MaxTime).Err())
}

func TestStartIsTheFloorForNegativeTimes(t *testing.T) {
	ms := int64(time.Millisecond)
	s := sequence.Every(5 * time.Second)
	cases := []struct{ t, start int64 }{
		{0, 0},
		{4999 * ms, 0},
		{5000 * ms, 5000 * ms},
		{-1 * ms, -5000 * ms},
		{-5000 * ms, -5000 * ms},
		{-5001 * ms, -10000 * ms},
	}
	for _, c := range cases {
		assert.Equal(t, c.start, s.Start(c.t), "t=%d", c.t)
	}
}

func TestAnchorShiftsBoundaries(t *testing.T) {
	ms := int64(time.Millisecond)
	s := sequence.Every(5 * time.Second).WithAnchorNanos(1000 * ms)
	// pond-ts's reference case 17: anchor 1000, t = 0 falls in [-4000, 1000).
	assert.Equal(t, -4000*ms, s.Start(0))
	assert.Equal(t, -9000*ms, s.Start(-6001*ms))
	assert.Equal(t, -4000*ms, s.Start(999*ms))
	assert.Equal(t, 1000*ms, s.Start(1000*ms))
	a := sequence.Every(time.Second).WithAnchor(time.UnixMilli(500))
	assert.Equal(t, 500*ms, a.Anchor())
}

// Start on a sequence without a step is a programmer error, and panics as
// its doc says; the operators that take a sequence refuse it when built.
func TestStartPanicsWithoutAStep(t *testing.T) {
	assert.Panics(t, func() { _ = sequence.Sequence{}.Start(0) })
	assert.Panics(t, func() { _ = sequence.Every(0).Start(0) })
	assert.Error(t, sequence.Sequence{}.Err())
}

func TestParseEvery(t *testing.T) {
	s, err := sequence.ParseEvery("200ms")
	require.NoError(t, err)
	assert.Equal(t, 200*time.Millisecond, s.Step())
	_, err = sequence.ParseEvery("0s")
	assert.ErrorIs(t, err, sequence.ErrDuration)
}

func ExampleParseDuration() {
	d, err := sequence.ParseDuration("200ms")
	fmt.Println(d, err)
	_, err = sequence.ParseDuration("1m30s")
	fmt.Println(err)
	// Output:
	// 200ms <nil>
	// sequence: invalid duration "1m30s": the unit "m30s" is not one of ms, s, m, h, d
}

func ExampleSequence_Start() {
	s := sequence.Every(30 * time.Second)
	t := time.UnixMilli(95_000).UnixNano()
	fmt.Println(time.Duration(s.Start(t)))
	// Output: 1m30s
}

// TestAnAnchorOutsideTheRangeIsAnError: time.Time.UnixNano wraps around
// outside the years 1678 to 2262, into the accepted range for some years
// (an anchor at 3000-01-01 became 1830-11-23, a silently other phase).
// WithAnchor gives such an anchor a value Err reports; the range's own
// bounds stay exact.
func TestAnAnchorOutsideTheRangeIsAnError(t *testing.T) {
	every := sequence.Every(time.Second)
	for _, y := range []int{1, 100, 1500, 1822, 2117, 2300, 3000, 9999} {
		s := every.WithAnchor(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC))
		require.ErrorIs(t, s.Err(), sequence.ErrSequence, "year %d", y)
	}
	assert.EqualError(t, every.WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)).Err(),
		"sequence: invalid sequence: anchor 3000-01-01T00:00:00Z is outside the years 1823 to 2116", "the time given, not a stand-in")
	assert.EqualError(t, every.WithAnchor(time.Date(1700, 6, 1, 0, 0, 0, 0, time.UTC)).Err(),
		"sequence: invalid sequence: anchor 1700-06-01T00:00:00Z is outside the years 1823 to 2116")
	assert.NoError(t, every.WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)).WithAnchorNanos(0).Err(), "a later anchor replaces it")
	lo, hi := time.Unix(0, schema.MinTime), time.Unix(0, schema.MaxTime)
	require.NoError(t, every.WithAnchor(lo).Err())
	require.NoError(t, every.WithAnchor(hi).Err())
	assert.Equal(t, int64(schema.MinTime), every.WithAnchor(lo).Anchor())
	assert.Equal(t, int64(schema.MaxTime), every.WithAnchor(hi).Anchor())
}

func TestStringShowsAnAnchorOutsideTheRangeAsTheTimeGiven(t *testing.T) {
	every := sequence.Every(time.Second)
	for _, tc := range []struct {
		s    sequence.Sequence
		want string
	}{
		{every, "every 1s"},
		{every.WithAnchorNanos(5e9), "every 1s from 5000000000"},
		{every.WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)), "every 1s from 3000-01-01T00:00:00Z"},
		{every.WithAnchor(time.Date(1700, 6, 1, 0, 0, 0, 0, time.UTC)), "every 1s from 1700-06-01T00:00:00Z"},
		{every.WithAnchor(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)).WithAnchorNanos(7), "every 1s from 7"},
	} {
		assert.Equal(t, tc.want, tc.s.String())
	}
}
