package rolling_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

var mu42Aggs = []reduce.Agg{{Out: "n", From: "v", Using: reduce.Count}}

// mu42Rolling builds a rolling on the root of a fresh series of
// probeSchema, or on a partitioning by host when partitioned, and returns
// its *rolling.SpecError (nil when it is built).
func mu42Rolling(t *testing.T, partitioned bool, ws []rolling.Window, o rolling.Options) *rolling.SpecError {
	t.Helper()
	s, err := live.New("mu42", probeSchema, live.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	src := s.Root()
	if partitioned {
		src, err = s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
	}
	_, err = s.Rolling(src, ws, o)
	if err == nil {
		return nil
	}
	require.ErrorIs(t, err, rolling.ErrSpec)
	var se *rolling.SpecError
	require.True(t, errors.As(err, &se), "%v", err)
	return se
}

// Each refused option is named in SpecError.Option, as its doc lists
// them: Aligned without a clock or on a count window, a negative
// History.MaxEvents, a History.MaxAge past sequence.MaxDuration.
func TestMu42RefusedOptionsAreNamed(t *testing.T) {
	span := []rolling.Window{{Span: time.Second, Aggs: mu42Aggs}}
	for _, tc := range []struct {
		name   string
		ws     []rolling.Window
		o      rolling.Options
		option string
		window string
		says   string
	}{
		{"Aligned on an event trigger", span, rolling.Options{Aligned: true}, "Aligned", "", "needs a clock trigger"},
		{"Aligned on a count trigger", span, rolling.Options{Aligned: true, Trigger: trigger.Count(2)}, "Aligned", "", "needs a clock trigger"},
		{"Aligned on a count window", []rolling.Window{{Count: 3, Aggs: mu42Aggs}}, rolling.Options{Aligned: true, Trigger: trigger.Every(time.Second)}, "Aligned", "3", "time windows"},
		{"negative History.MaxEvents", span, rolling.Options{History: rolling.History{MaxEvents: -1}}, "History.MaxEvents", "", "negative"},
		{"History.MaxAge past MaxDuration", span, rolling.Options{History: rolling.History{MaxAge: sequence.MaxDuration + 1}}, "History.MaxAge", "", "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			se := mu42Rolling(t, false, tc.ws, tc.o)
			require.NotNil(t, se)
			assert.Equal(t, tc.option, se.Option, se.Error())
			assert.Equal(t, tc.window, se.Window, se.Error())
			assert.Contains(t, se.Reason, tc.says)
		})
	}
	assert.Nil(t, mu42Rolling(t, false, span, rolling.Options{History: rolling.History{MaxAge: sequence.MaxDuration}}))
}

// Windows the doc refuses: a negative span (even of 1ns), a negative
// per-window MinSamples, the time column as a source, an output named as
// the partition column. The reason says what is wrong; the error names
// the window as written out when it has no Name: the count, or the span
// in the largest pond-ts unit ("1d", "0s").
func TestMu42RefusedWindowsAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name        string
		partitioned bool
		w           rolling.Window
		window      string
		output      string
		says        string
	}{
		{"span of -1ns", false, rolling.Window{Span: -1, Aggs: mu42Aggs}, "-1ns", "", "span"},
		{"negative count", false, rolling.Window{Count: -3, Aggs: mu42Aggs}, "-3", "", "count"},
		{"neither span nor count", false, rolling.Window{Aggs: mu42Aggs}, "0s", "", "Span or Count"},
		{"negative window MinSamples", false, rolling.Window{Span: 24 * time.Hour, MinSamples: rolling.Samples(-1), Aggs: mu42Aggs}, "1d", "", "MinSamples"},
		{"time column as source", false, rolling.Window{Span: time.Minute, Aggs: []reduce.Agg{{Out: "n", From: "time", Using: reduce.Count}}}, "1m", "n", "time column"},
		{"output named as the partition column", true, rolling.Window{Span: time.Minute, Aggs: []reduce.Agg{{Out: "host", From: "v", Using: reduce.Count}}}, "1m", "host", "partition column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			se := mu42Rolling(t, tc.partitioned, []rolling.Window{tc.w}, rolling.Options{})
			require.NotNil(t, se)
			assert.Equal(t, tc.window, se.Window, se.Error())
			assert.Equal(t, tc.output, se.Output, se.Error())
			assert.Contains(t, se.Reason, tc.says)
		})
	}
}

// A window has at most 65,535 aggregations: that many are accepted, one
// more is refused.
func TestMu42AtMost65535Aggregations(t *testing.T) {
	aggs := make([]reduce.Agg, 65536)
	for i := range aggs {
		aggs[i] = reduce.Agg{Out: "o" + strconv.Itoa(i), From: "v", Using: reduce.Count}
	}
	se := mu42Rolling(t, false, []rolling.Window{{Span: time.Second, Aggs: aggs}}, rolling.Options{})
	require.NotNil(t, se)
	assert.Contains(t, se.Reason, "65536 aggregations")
	assert.Nil(t, mu42Rolling(t, false, []rolling.Window{{Span: time.Second, Aggs: aggs[:65535]}}, rolling.Options{}))
}

// SpecError's message quotes the window and the output as Go does.
func TestMu42SpecErrorMessage(t *testing.T) {
	err := &rolling.SpecError{Window: `1"m`, Output: "avg", Reason: "bad reducer", Err: errors.New("inner")}
	assert.EqualError(t, err, `rolling: window "1\"m": output "avg": bad reducer: inner`)
	assert.EqualError(t, &rolling.SpecError{Output: "x", Reason: "r"}, `rolling: output "x": r`)
}
