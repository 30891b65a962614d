package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got)+"\n")
	assert.True(t, json.Valid(got), "the frame is valid JSON")
}

func sampleTicks() []HostTick {
	return []HostTick{
		{
			TS: 1714000000200, Host: "api-1", CPUAvg: 0.551, CPUSd: 0.118, CPUN: 480,
			NCurrent: 2, AnomaliesAbove: []int{1, 0, 0, 0, 0}, AnomaliesBelow: []int{0, 0, 0, 0, 0},
			RequestsAvg: 99.2, RequestsSum: 47616, RequestsN: 480, WindowAgeSeconds: 60,
			CPUMin: 0.49, CPUMax: 0.71, CurrentAvg: 0.6, CurrentSd: 0.11,
		},
		{
			// A host whose 200 ms slice is empty: the slice stats are null.
			TS: 1714000000200, Host: "api-2", CPUAvg: 0.4, CPUSd: 0, CPUN: 1,
			NCurrent: 0, AnomaliesAbove: []int{0, 0, 0, 0, 0}, AnomaliesBelow: []int{0, 0, 0, 0, 0},
			RequestsAvg: 7, RequestsSum: 7, RequestsN: 1, WindowAgeSeconds: 0.2,
			CPUMin: math.NaN(), CPUMax: math.NaN(), CurrentAvg: math.NaN(), CurrentSd: math.Inf(1),
		},
	}
}

func sampleGlobals() GlobalsTick {
	return GlobalsTick{TS: 1714000000200, EventsIngestedTotal: 123456, EventsPerSec: 32, EvictedTotal: 120000, RequestsIngestedTotal: 12222222}
}

func TestGoldenRawSnapshot(t *testing.T) {
	rows := RawRows{
		TimeMs:   []int64{1714000000000, 1714000000000, 1714000000125},
		CPU:      []float64{0.5, 0.12345678901234568, 1e-7},
		Requests: []float64{0, 199, 42},
		Host:     []string{"api-1", "api-2", `we"ird\host`},
	}
	golden(t, "snapshot.json", AppendRawFrame(nil, TypeSnapshot, rows))
}

func TestGoldenRawSnapshotEmpty(t *testing.T) {
	golden(t, "snapshot-empty.json", AppendRawFrame(nil, TypeSnapshot, RawRows{}))
}

func TestGoldenRawAppend(t *testing.T) {
	rows := RawRows{TimeMs: []int64{1714000000250}, CPU: []float64{0.75}, Requests: []float64{12}, Host: []string{"api-3"}}
	golden(t, "append.json", AppendRawFrame(nil, TypeAppend, rows))
}

func TestGoldenAggregateAppend(t *testing.T) {
	ticks := sampleTicks()
	g := sampleGlobals()
	golden(t, "aggregate-append.json", AppendAggregateAppend(nil, []*HostTick{&ticks[0], &ticks[1]}, &g))
}

func TestGoldenAggregateSnapshot(t *testing.T) {
	ticks := sampleTicks()
	g1, g2 := sampleGlobals(), sampleGlobals()
	g1.TS, g1.RequestsIngestedTotal = 1714000000000, 0
	var s AggregateSnapshot
	s.Begin(nil, DefaultThresholds)
	s.Row(&ticks[0])
	s.Row(&ticks[1])
	s.Globals(&g1)
	s.Globals(&g2)
	golden(t, "aggregate-snapshot.json", s.End())
}

// A snapshot flushed as a piece after every part is, put together, the
// frame built whole.
func TestAnAggregateSnapshotFlushedInPiecesIsTheSameFrame(t *testing.T) {
	ticks := sampleTicks()
	g1, g2 := sampleGlobals(), sampleGlobals()
	var whole, pieces AggregateSnapshot
	whole.Begin(nil, DefaultThresholds)
	pieces.Begin(nil, DefaultThresholds)
	var out bytes.Buffer
	pw := Pieces{W: &out}
	for i := range ticks {
		whole.Row(&ticks[i])
		pieces.Row(&ticks[i])
		require.NoError(t, pieces.Flush(&pw, true))
	}
	for _, g := range []*GlobalsTick{&g1, &g2} {
		whole.Globals(g)
		pieces.Globals(g)
		require.NoError(t, pieces.Flush(&pw, true))
	}
	out.Write(pieces.End())
	assert.Equal(t, string(whole.End()), out.String())
}

func TestGoldenAggregateSnapshotEmpty(t *testing.T) {
	var s AggregateSnapshot
	s.Begin(nil, DefaultThresholds)
	golden(t, "aggregate-snapshot-empty.json", s.End())
}

func TestAppendFloatMatchesJavaScript(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-2.5, "-2.5"},
		{0.30000000000000004, "0.30000000000000004"},
		{1e-6, "0.000001"},
		{1e-7, "1e-7"},
		{-1.5e-7, "-1.5e-7"},
		{123456789012345680000, "123456789012345680000"},
		{1e21, "1e+21"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, string(AppendFloat(nil, c.in)), "%v", c.in)
	}
}

func TestAppendStringEscapesLikeJSONStringify(t *testing.T) {
	assert.Equal(t, `"a\"b\\c\n\t\u0001é"`, string(AppendString(nil, "a\"b\\c\n\t\x01é")))
	assert.Equal(t, "\"x\ufffdy\"", string(AppendString(nil, "x\xffy")))
}

func TestDecodeReadsBackEveryFrame(t *testing.T) {
	ticks := sampleTicks()
	g := sampleGlobals()
	f, err := Decode(AppendAggregateAppend(nil, []*HostTick{&ticks[0], &ticks[1]}, &g))
	require.NoError(t, err)
	assert.Equal(t, TypeAggregateAppend, f.Type)
	require.Len(t, f.Rows, 2)
	assert.Equal(t, ticks[0], f.Rows[0])
	assert.True(t, math.IsNaN(f.Rows[1].CPUMin), "null reads back as NaN")
	assert.Equal(t, []GlobalsTick{g}, f.Globals)

	raw, err := Decode(AppendRawFrame(nil, TypeAppend, RawRows{TimeMs: []int64{5}, CPU: []float64{0.5}, Requests: []float64{3}, Host: []string{"h"}}))
	require.NoError(t, err)
	assert.Equal(t, []RawRow{{TimeMs: 5, CPU: 0.5, Requests: 3, Host: "h"}}, raw.RawRows)

	_, err = Decode([]byte(`{"type":"nope"}`))
	assert.Error(t, err)
}

func TestAggregateAppendMatchesTheSpecExample(t *testing.T) {
	// The wire format's illustrative aggregate-append message, byte for byte.
	const want = `{"type":"aggregate-append","rows":[{"ts":1714000000200,"host":"api-1","cpu_avg":0.551,"cpu_sd":0.118,"cpu_n":480,"n_current":2,"anomalies_above":[1,0,0,0,0],"anomalies_below":[0,0,0,0,0],"requests_avg":99.2,"requests_sum":47616,"requests_n":480,"window_age_seconds":60,"cpu_min":0.49,"cpu_max":0.71,"current_avg":0.6,"current_sd":0.11}],"globals":{"ts":1714000000200,"events_ingested_total":123456,"events_per_sec":32,"evicted_total":120000,"requests_ingested_total":12222222}}`
	ticks := sampleTicks()
	g := sampleGlobals()
	assert.Equal(t, want, string(AppendAggregateAppend(nil, []*HostTick{&ticks[0]}, &g)))
}
