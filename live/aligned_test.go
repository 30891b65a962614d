package live_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pond-go/pond/live"
	"github.com/pond-go/pond/partition"
	"github.com/pond-go/pond/reduce"
	"github.com/pond-go/pond/rolling"
	"github.com/pond-go/pond/schema"
	"github.com/pond-go/pond/sequence"
	"github.com/pond-go/pond/trigger"
)

func alignedClock(step time.Duration) rolling.Options {
	return rolling.Options{Trigger: trigger.Clock(sequence.Every(step)), Aligned: true}
}

func countWindow(span time.Duration) []rolling.Window {
	return []rolling.Window{{Span: span, Aggs: []reduce.Agg{
		{Out: "n", From: "x", Using: reduce.Count},
		{Out: "sum", From: "x", Using: reduce.Sum},
	}}}
}

func xRow(ms int64, x float64, host string) schema.Row {
	return schema.Row{schema.MillisValue(ms), schema.NumberValue(x), schema.Value{}, schema.StringValue(host), schema.Value{}}
}

func TestAlignedReorderWithGrace(t *testing.T) {
	s, err := live.New("t", alignedSchema, live.Options{Ordering: live.Reorder, Grace: 300 * time.Millisecond})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
	require.NoError(t, err)
	r, err := s.Rolling(by, countWindow(400*time.Millisecond), alignedClock(200*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	push := func(rows ...schema.Row) ([]alignedRow, error) {
		out, err := s.PushRows(nil, rows...)
		var got []alignedRow
		for _, o := range out {
			got = appendEmitted(got, o.Events.Clone())
		}
		return got, err
	}

	got, err := push(xRow(100, 1, "a"), xRow(450, 2, "a"))
	require.NoError(t, err)
	assert.Empty(t, got, "450 − 300 is before the boundary at 200: nothing closes")

	got, err = push(xRow(180, 4, "a"))
	require.NoError(t, err)
	assert.Empty(t, got, "a late row within grace closes nothing")

	got, err = push(xRow(700, 8, "a"))
	require.NoError(t, err)
	// 700 − 300 = 400 closes 200 and 400; the late row is in its pane.
	assert.Equal(t, []string{"200 a [2 5]", "400 a [2 5]"}, strs(got))

	_, err = push(xRow(390, 16, "a"))
	require.ErrorIs(t, err, live.ErrLate, "310ms late is beyond the grace")

	got, err = push(xRow(410, 32, "a"), xRow(1000, 0, "a"))
	require.NoError(t, err)
	// 410 is in [400, 600): in the windows at 600 and 800 only.
	assert.Equal(t, []string{"600 a [2 34]"}, strs(got))
}

func strs(rows []alignedRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.String())
	}
	return out
}

func TestAlignedBuildErrors(t *testing.T) {
	clock := trigger.Clock(sequence.Every(200 * time.Millisecond))
	cases := []struct {
		name    string
		series  live.Options
		windows []rolling.Window
		opts    rolling.Options
		want    string
	}{
		{"event trigger", live.Options{}, countWindow(time.Second), rolling.Options{Aligned: true}, "Aligned needs a clock trigger, not event"},
		{"count trigger", live.Options{}, countWindow(time.Second), rolling.Options{Trigger: trigger.Count(3), Aligned: true}, "Aligned needs a clock trigger, not count(3)"},
		{"count window", live.Options{}, []rolling.Window{{Count: 5, Aggs: []reduce.Agg{{Out: "n", From: "x", Using: reduce.Count}}}}, rolling.Options{Trigger: clock, Aligned: true}, "Aligned needs time windows, not a count window"},
		{"reorder without grace", live.Options{Ordering: live.Reorder}, countWindow(time.Second), rolling.Options{Trigger: clock, Aligned: true}, "aligned windows need a grace under reorder ordering"},
		{"panes too fine", live.Options{}, countWindow(time.Hour + time.Nanosecond), rolling.Options{Trigger: clock, Aligned: true}, "would need 3600000000001 panes of 1ns (at most 1048576); make the span a multiple of a larger divisor of the step, or shorten it"},
		// Panes as wide as the step: no divisor of it gives fewer.
		{"panes a step wide, too many", live.Options{}, countWindow(365 * 24 * time.Hour), rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Second)), Aligned: true}, "would need 31536000 panes of 1s (at most 1048576); the span is a multiple of the step already: shorten the span or lengthen the step"},
		// The panes kept for late rows count too: 2 h of 1 ms panes.
		{"a grace too long for the panes", live.Options{Ordering: live.Reorder, Grace: 2 * time.Hour}, countWindow(time.Second), rolling.Options{Trigger: trigger.Clock(sequence.Every(time.Millisecond)), Aligned: true}, `window "1s": Aligned: the span, the step and the series' grace need too many panes: aligned: a span of 1s, a step of 1ms and a lateness of 2h0m0s need 7201003 panes of 1ms (at most 4194304)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := live.New("t", alignedSchema, c.series)
			require.NoError(t, err)
			_, err = s.Rolling(s.Root(), c.windows, c.opts)
			require.ErrorIs(t, err, live.ErrConfig)
			assert.Contains(t, err.Error(), c.want)
			if !errors.Is(err, rolling.ErrSpec) {
				assert.Contains(t, err.Error(), "Aligned")
			}
		})
	}
}

func TestAlignedUnpartitioned(t *testing.T) {
	s, err := live.New("t", alignedSchema, live.Options{})
	require.NoError(t, err)
	r, err := s.Rolling(s.Root(), countWindow(time.Second), alignedClock(500*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	out, err := s.PushRows(nil, xRow(100, 1, "a"), xRow(400, 2, "b"), xRow(600, 4, "a"), xRow(2600, 8, "b"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	tab := out[0].Events
	// 2600 closes 500 … 2500; the window holds a row through 1500.
	assert.Equal(t, []int64{500, 1000, 1500}, millis(tab.Times()))
	n, _ := tab.Numbers("n")
	sum, _ := tab.Numbers("sum")
	assert.Equal(t, []float64{2, 3, 1}, n)
	assert.Equal(t, []float64{3, 7, 4}, sum)
	d, err := s.Describe(r)
	require.NoError(t, err)
	assert.Equal(t, "rolling aligned: 1s: panes of 500ms", d)
	bytes, err := s.NodeBytes(r)
	require.NoError(t, err)
	assert.Positive(t, bytes)
}

func millis(ts []int64) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t / int64(time.Millisecond)
	}
	return out
}

func TestAlignedDeclaredGroupsComeFirstAndQuietOnesStop(t *testing.T) {
	s, err := live.New("t", alignedSchema, live.Options{})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{Groups: partition.Strings("z", "a")})
	require.NoError(t, err)
	r, err := s.Rolling(by, countWindow(time.Second), alignedClock(500*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	push := func(rows ...schema.Row) []string {
		out, err := s.PushRows(nil, rows...)
		require.NoError(t, err)
		var got []alignedRow
		for _, o := range out {
			got = appendEmitted(got, o.Events.Clone())
		}
		return strs(got)
	}
	// Declared groups emit first, in declaration order, although a's row
	// arrived first.
	assert.Equal(t, []string{"500 z [1 2]", "500 a [1 1]"}, push(xRow(100, 1, "a"), xRow(200, 2, "z"), xRow(600, 4, "a")))
	// z goes quiet: it emits while its window holds its row, then stops;
	// a emits on.
	assert.Equal(t, []string{"1000 z [1 2]", "1000 a [2 5]", "1500 a [1 4]"}, push(xRow(1900, 8, "a")))
	assert.Equal(t, []string{"2000 a [1 8]"}, push(xRow(2100, 16, "a")))
	// A new row wakes z, in its declared place.
	assert.Equal(t, []string{"2500 a [2 24]", "3000 z [1 32]", "3000 a [1 16]"}, push(xRow(2600, 32, "z"), xRow(3100, 0, "a")))
}

func TestAlignedIdleTTLForgetsAPartition(t *testing.T) {
	s, err := live.New("t", alignedSchema, live.Options{})
	require.NoError(t, err)
	by, err := s.PartitionBy(s.Root(), "host", partition.Options{IdleTTL: 500 * time.Millisecond})
	require.NoError(t, err)
	r, err := s.Rolling(by, countWindow(2*time.Second), alignedClock(500*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, s.Watch(r))
	out, err := s.PushRows(nil, xRow(100, 1, "a"), xRow(200, 2, "b"), xRow(600, 4, "b"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, 2, out[0].Events.Len(), "both emit at 500")
	// After this push a has been idle for more than 500ms: it is
	// forgotten (at the end of the push, as retention runs), its 2s
	// window with it, though that window still held its row.
	_, err = s.PushRows(nil, xRow(1100, 8, "b"), xRow(1600, 16, "b"))
	require.NoError(t, err)
	out, err = s.PushRows(nil, xRow(2100, 32, "b"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	got := appendEmitted(nil, out[0].Events.Clone())
	assert.Equal(t, []string{"2000 b [4 30]"}, strs(got))
}

func TestAlignedOnAViewWithHistory(t *testing.T) {
	s, err := live.New("t", alignedSchema, live.Options{})
	require.NoError(t, err)
	f, err := s.Filter(s.Root(), func(row schema.Row) bool { x, _ := row[1].Num(); return x > 1 })
	require.NoError(t, err)
	opts := alignedClock(500 * time.Millisecond)
	opts.History = rolling.History{MaxEvents: 10}
	r, err := s.Rolling(f, countWindow(time.Second), opts)
	require.NoError(t, err)
	_, err = s.PushRows(nil, xRow(100, 1, "a"), xRow(200, 2, "a"), xRow(700, 4, "a"), xRow(1200, 8, "a"))
	require.NoError(t, err)
	snap, err := s.Snapshot(r)
	require.NoError(t, err)
	n, _ := snap.Numbers("n")
	sum, _ := snap.Numbers("sum")
	assert.Equal(t, []float64{1, 2}, n)
	assert.Equal(t, []float64{2, 6}, sum)
}

func TestAlignedAtTheEndsOfTime(t *testing.T) {
	for _, step := range []time.Duration{time.Hour, sequence.MaxDuration / 2, sequence.MaxDuration} {
		s, err := live.New("t", alignedSchema, live.Options{Ordering: live.Reorder, Grace: time.Minute})
		require.NoError(t, err)
		by, err := s.PartitionBy(s.Root(), "host", partition.Options{})
		require.NoError(t, err)
		r, err := s.Rolling(by, countWindow(step), alignedClock(step))
		require.NoError(t, err)
		require.NoError(t, s.Watch(r))
		row := func(ns int64, host string) schema.Row {
			return schema.Row{schema.NanosValue(ns), schema.NumberValue(1), schema.Value{}, schema.StringValue(host), schema.Value{}}
		}
		assert.NotPanics(t, func() {
			_, err = s.PushRows(nil, row(schema.MinTime, "a"), row(schema.MinTime+1, "b"), row(0, "a"), row(schema.MaxTime-int64(time.Minute), "b"), row(schema.MaxTime, "a"))
		})
		require.NoError(t, err, "step %v", step)
	}
}
