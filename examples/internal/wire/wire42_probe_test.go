package wire

// Probes of the frames against examples/aggregator/README.md's "Frames"
// section and this package's doc comment, with a decoder written from
// those docs (a token reader: field names, their order, their JSON types),
// not from the encoder or Decode.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ---------------------------------------------------------------------
// A decoder written from the docs.

// wf42Reader reads one frame token by token and fails on the first thing
// the docs do not allow.
type wf42Reader struct {
	d   *json.Decoder
	err error
}

func wf42NewReader(data []byte) *wf42Reader {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return &wf42Reader{d: d}
}

func (r *wf42Reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *wf42Reader) tok() json.Token {
	if r.err != nil {
		return nil
	}
	t, err := r.d.Token()
	if err != nil {
		r.fail("token: %v", err)
		return nil
	}
	return t
}

func (r *wf42Reader) delim(want json.Delim) {
	if t := r.tok(); r.err == nil && t != want {
		r.fail("want %v, got %v", want, t)
	}
}

// key reads an object key and checks it is the documented one, in order.
func (r *wf42Reader) key(want string) {
	if t := r.tok(); r.err == nil && t != want {
		r.fail("want key %q, got %v", want, t)
	}
}

func (r *wf42Reader) str() string {
	t := r.tok()
	s, ok := t.(string)
	if !ok && r.err == nil {
		r.fail("want a string, got %T %v", t, t)
	}
	return s
}

// num reads a number or null; null reads as NaN. The text is checked to
// be a number JSON.stringify could have written: never -0.
func (r *wf42Reader) num() float64 {
	t := r.tok()
	switch v := t.(type) {
	case nil:
		if r.err == nil {
			return math.NaN()
		}
		return 0
	case json.Number:
		if string(v) == "-0" {
			r.fail("-0 written: JSON.stringify writes 0")
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			r.fail("number %s: %v", v, err)
		}
		return f
	}
	r.fail("want a number or null, got %T %v", t, t)
	return 0
}

// integer reads an integer written without fraction or exponent.
func (r *wf42Reader) integer() int64 {
	t := r.tok()
	v, ok := t.(json.Number)
	if !ok {
		r.fail("want an integer, got %T %v", t, t)
		return 0
	}
	i, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		r.fail("want an integer, got %s", v)
	}
	return i
}

func (r *wf42Reader) uinteger() uint64 {
	t := r.tok()
	v, ok := t.(json.Number)
	if !ok {
		r.fail("want an integer, got %T %v", t, t)
		return 0
	}
	i, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		r.fail("want an unsigned integer, got %s", v)
	}
	return i
}

// more reports whether the array or object has another element.
func (r *wf42Reader) more() bool { return r.err == nil && r.d.More() }

func (r *wf42Reader) ints() []int {
	var xs []int
	r.delim('[')
	for r.more() {
		xs = append(xs, int(r.integer()))
	}
	r.delim(']')
	return xs
}

// end checks nothing follows the frame.
func (r *wf42Reader) end() {
	if r.err != nil {
		return
	}
	if _, err := r.d.Token(); err != io.EOF {
		r.fail("bytes after the frame (%v)", err)
	}
}

// hostTick reads a HostTick: "ts, host, cpu_avg, cpu_sd, cpu_n,
// n_current, anomalies_above, anomalies_below, requests_avg,
// requests_sum, requests_n, window_age_seconds, cpu_min, cpu_max,
// current_avg, current_sd, in that order".
func (r *wf42Reader) hostTick() HostTick {
	var h HostTick
	r.delim('{')
	r.key("ts")
	h.TS = r.integer()
	r.key("host")
	h.Host = r.str()
	r.key("cpu_avg")
	h.CPUAvg = r.num()
	r.key("cpu_sd")
	h.CPUSd = r.num()
	r.key("cpu_n")
	h.CPUN = int(r.integer())
	r.key("n_current")
	h.NCurrent = int(r.integer())
	r.key("anomalies_above")
	h.AnomaliesAbove = r.ints()
	r.key("anomalies_below")
	h.AnomaliesBelow = r.ints()
	r.key("requests_avg")
	h.RequestsAvg = r.num()
	r.key("requests_sum")
	h.RequestsSum = r.num()
	r.key("requests_n")
	h.RequestsN = int(r.integer())
	r.key("window_age_seconds")
	h.WindowAgeSeconds = r.num()
	r.key("cpu_min")
	h.CPUMin = r.num()
	r.key("cpu_max")
	h.CPUMax = r.num()
	r.key("current_avg")
	h.CurrentAvg = r.num()
	r.key("current_sd")
	h.CurrentSd = r.num()
	r.delim('}')
	return h
}

// globals reads a GlobalsTick: "ts, events_ingested_total,
// events_per_sec, evicted_total, requests_ingested_total".
func (r *wf42Reader) globals() GlobalsTick {
	var g GlobalsTick
	r.delim('{')
	r.key("ts")
	g.TS = r.integer()
	r.key("events_ingested_total")
	g.EventsIngestedTotal = r.uinteger()
	r.key("events_per_sec")
	g.EventsPerSec = r.integer()
	r.key("evicted_total")
	g.EvictedTotal = r.uinteger()
	r.key("requests_ingested_total")
	g.RequestsIngestedTotal = r.num()
	r.delim('}')
	return g
}

// wf42Frame is a frame as the docs describe it.
type wf42Frame struct {
	Type       string
	Thresholds []float64
	Raw        []RawRow
	Rows       []HostTick
	Globals    []GlobalsTick
}

// wf42Decode reads a frame of any documented kind:
//
//	{"type":"snapshot","rows":[[time_ms,cpu,requests,host],…]}
//	{"type":"append","rows":[…]}
//	{"type":"aggregate-snapshot","thresholds":[…],"rows":[HostTick…],"globals":[GlobalsTick…]}
//	{"type":"aggregate-append","rows":[HostTick…],"globals":{…}}
func wf42Decode(data []byte) (*wf42Frame, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("a text frame that is not UTF-8")
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("not valid JSON")
	}
	r := wf42NewReader(data)
	f := &wf42Frame{}
	r.delim('{')
	r.key("type")
	f.Type = r.str()
	switch f.Type {
	case "snapshot", "append":
		r.key("rows")
		r.delim('[')
		for r.more() {
			var row RawRow
			r.delim('[')
			row.TimeMs = r.integer()
			row.CPU = r.num()
			row.Requests = r.num()
			row.Host = r.str()
			r.delim(']')
			f.Raw = append(f.Raw, row)
		}
		r.delim(']')
	case "aggregate-snapshot":
		r.key("thresholds")
		r.delim('[')
		for r.more() {
			f.Thresholds = append(f.Thresholds, r.num())
		}
		r.delim(']')
		r.key("rows")
		r.delim('[')
		for r.more() {
			f.Rows = append(f.Rows, r.hostTick())
		}
		r.delim(']')
		r.key("globals")
		r.delim('[')
		for r.more() {
			f.Globals = append(f.Globals, r.globals())
		}
		r.delim(']')
	case "aggregate-append":
		r.key("rows")
		r.delim('[')
		for r.more() {
			f.Rows = append(f.Rows, r.hostTick())
		}
		r.delim(']')
		r.key("globals")
		f.Globals = []GlobalsTick{r.globals()}
	default:
		r.fail("unknown type %q", f.Type)
	}
	r.delim('}')
	r.end()
	return f, r.err
}

// ---------------------------------------------------------------------
// Random inputs.

// wf42Specials are the numbers most likely to be written wrong.
var wf42Specials = []float64{
	math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1, -1,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
	1e21, 9.999999999999999e20, 1e-6, 9.999999999999999e-7, 1e-7, 0.1, 0.30000000000000004,
	1 << 53, 1<<53 + 2, 123456789012345680000, 2.2250738585072014e-308, 5e-7, 1.5e-10, -1e300,
}

func wf42Float(rng *rand.Rand) float64 {
	switch rng.IntN(5) {
	case 0:
		return wf42Specials[rng.IntN(len(wf42Specials))]
	case 1:
		return math.Float64frombits(rng.Uint64()) // any double, NaN payloads included
	case 2:
		return rng.Float64()
	case 3:
		return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(60)-30))
	}
	return float64(rng.IntN(2000) - 1000)
}

// wf42HostRunes are the characters a host name is made of here.
var wf42HostRunes = []string{
	"a", "z", "0", "-", ".", "\"", "\\", "/", "\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f",
	"é", "中", "😀", "\u2028", "\u2029", "\ufeff", "\ufffd", "<", "&", "'", " ",
}

func wf42Host(rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("host-%04d", rng.IntN(10000))
	}
	n := rng.IntN(12)
	if rng.IntN(20) == 0 {
		n = 300 + rng.IntN(2000)
	}
	var b strings.Builder
	for range n {
		if rng.IntN(25) == 0 {
			b.WriteByte(byte(0x80 + rng.IntN(0x80))) // not UTF-8
			continue
		}
		b.WriteString(wf42HostRunes[rng.IntN(len(wf42HostRunes))])
	}
	return b.String()
}

// wf42WantHost is the host a page reads: "a host name's bytes that are
// not UTF-8 are written as U+FFFD".
func wf42WantHost(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// wf42Want is the number a page reads: NaN, ±Inf and missing are null
// (NaN here), -0 is 0.
func wf42Want(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.NaN()
	}
	if f == 0 {
		return 0
	}
	return f
}

func wf42Same(want, got float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return want == got && math.Signbit(want) == math.Signbit(got)
}

func wf42Ints(rng *rand.Rand, n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = rng.IntN(1 << 20)
	}
	return xs
}

func wf42Tick(rng *rand.Rand, ts int64) HostTick {
	k := len(DefaultThresholds)
	if rng.IntN(10) == 0 {
		k = rng.IntN(8)
	}
	return HostTick{
		TS: ts, Host: wf42Host(rng),
		CPUAvg: wf42Float(rng), CPUSd: wf42Float(rng), CPUN: rng.IntN(1 << 30),
		NCurrent: rng.IntN(1 << 20), AnomaliesAbove: wf42Ints(rng, k), AnomaliesBelow: wf42Ints(rng, k),
		RequestsAvg: wf42Float(rng), RequestsSum: wf42Float(rng), RequestsN: rng.IntN(1 << 30),
		WindowAgeSeconds: wf42Float(rng), CPUMin: wf42Float(rng), CPUMax: wf42Float(rng),
		CurrentAvg: wf42Float(rng), CurrentSd: wf42Float(rng),
	}
}

func wf42Globals(rng *rand.Rand, ts int64) GlobalsTick {
	return GlobalsTick{TS: ts, EventsIngestedTotal: rng.Uint64(), EventsPerSec: rng.Int64(),
		EvictedTotal: rng.Uint64() >> rng.IntN(64), RequestsIngestedTotal: wf42Float(rng)}
}

func wf42TS(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return rng.Int64() - math.MaxInt64/2
	case 1:
		return 0
	}
	return 1714000000000 + rng.Int64N(1e12)
}

// ---------------------------------------------------------------------
// Checks.

func wf42CheckTick(t *testing.T, want, got HostTick, where string) {
	t.Helper()
	assert.Equal(t, want.TS, got.TS, "%s: ts", where)
	assert.Equal(t, wf42WantHost(want.Host), got.Host, "%s: host", where)
	assert.Equal(t, want.CPUN, got.CPUN, "%s: cpu_n", where)
	assert.Equal(t, want.NCurrent, got.NCurrent, "%s: n_current", where)
	assert.Equal(t, want.RequestsN, got.RequestsN, "%s: requests_n", where)
	assert.Equal(t, len(want.AnomaliesAbove), len(got.AnomaliesAbove), "%s: anomalies_above", where)
	if len(want.AnomaliesAbove) > 0 {
		assert.Equal(t, want.AnomaliesAbove, got.AnomaliesAbove, "%s: anomalies_above", where)
		assert.Equal(t, want.AnomaliesBelow, got.AnomaliesBelow, "%s: anomalies_below", where)
	}
	for _, p := range []struct {
		name      string
		want, got float64
	}{
		{"cpu_avg", want.CPUAvg, got.CPUAvg}, {"cpu_sd", want.CPUSd, got.CPUSd},
		{"requests_avg", want.RequestsAvg, got.RequestsAvg}, {"requests_sum", want.RequestsSum, got.RequestsSum},
		{"window_age_seconds", want.WindowAgeSeconds, got.WindowAgeSeconds},
		{"cpu_min", want.CPUMin, got.CPUMin}, {"cpu_max", want.CPUMax, got.CPUMax},
		{"current_avg", want.CurrentAvg, got.CurrentAvg}, {"current_sd", want.CurrentSd, got.CurrentSd},
	} {
		assert.True(t, wf42Same(wf42Want(p.want), p.got), "%s: %s %v read back as %v", where, p.name, p.want, p.got)
	}
}

func wf42CheckGlobals(t *testing.T, want, got GlobalsTick, where string) {
	t.Helper()
	assert.Equal(t, want.TS, got.TS, "%s: ts", where)
	assert.Equal(t, want.EventsIngestedTotal, got.EventsIngestedTotal, "%s: events_ingested_total", where)
	assert.Equal(t, want.EventsPerSec, got.EventsPerSec, "%s: events_per_sec", where)
	assert.Equal(t, want.EvictedTotal, got.EvictedTotal, "%s: evicted_total", where)
	assert.True(t, wf42Same(wf42Want(want.RequestsIngestedTotal), got.RequestsIngestedTotal),
		"%s: requests_ingested_total %v read back as %v", where, want.RequestsIngestedTotal, got.RequestsIngestedTotal)
}

// wf42Recorder keeps each Write as one piece.
type wf42Recorder struct{ pieces [][]byte }

func (r *wf42Recorder) Write(p []byte) (int, error) {
	r.pieces = append(r.pieces, bytes.Clone(p))
	return len(p), nil
}

// TestWf42RawFramesReadAsTheDocsSay writes seeded random /live frames
// (snapshot and append, zero to many rows, NaN, ±Inf, -0, extreme
// numbers, hosts empty, long, with control characters, U+2028 and bytes
// that are not UTF-8), streams the snapshots in pieces, and reads each
// back with a decoder written from the README: positional rows
// [time_ms, cpu, requests, host], null for NaN and ±Inf, 0 for -0, U+FFFD
// for each byte that is not UTF-8, the pieces one valid message equal to
// the frame written whole.
func TestWf42RawFramesReadAsTheDocsSay(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for c := range 300 {
		n := rng.IntN(6)
		if c%60 == 0 {
			n = 500 + rng.IntN(3000)
		}
		rows := RawRows{}
		for range n {
			rows.TimeMs = append(rows.TimeMs, wf42TS(rng))
			rows.CPU = append(rows.CPU, wf42Float(rng))
			rows.Requests = append(rows.Requests, wf42Float(rng))
			rows.Host = append(rows.Host, wf42Host(rng))
		}
		typ := []string{TypeSnapshot, TypeAppend}[c%2]
		whole := AppendRawFrame(nil, typ, rows)
		f, err := wf42Decode(whole)
		require.NoError(t, err, "case %d: %.300s", c, whole)
		require.Equal(t, typ, f.Type)
		require.Len(t, f.Raw, n, "case %d", c)
		for i, r := range f.Raw {
			where := fmt.Sprintf("case %d row %d", c, i)
			assert.Equal(t, rows.TimeMs[i], r.TimeMs, where)
			assert.True(t, wf42Same(wf42Want(rows.CPU[i]), r.CPU), "%s: cpu %v read back as %v", where, rows.CPU[i], r.CPU)
			assert.True(t, wf42Same(wf42Want(rows.Requests[i]), r.Requests), "%s: requests %v read back as %v", where, rows.Requests[i], r.Requests)
			assert.Equal(t, wf42WantHost(rows.Host[i]), r.Host, where)
		}
		// The same frame streamed in pieces, blocks of rows at a time.
		var rec wf42Recorder
		p := Pieces{W: &rec}
		b := BeginRaw(PieceBuffer(), typ)
		first := true
		for from := 0; from < n; {
			to := min(n, from+1+rng.IntN(400))
			b = AppendRawRows(b, RawRows{TimeMs: rows.TimeMs[from:to], CPU: rows.CPU[from:to], Requests: rows.Requests[from:to], Host: rows.Host[from:to]}, first)
			first = false
			b = p.Flush(b, false)
			from = to
		}
		p.Flush(EndRaw(b), true)
		require.NoError(t, p.Err())
		assert.Equal(t, string(whole), string(bytes.Join(rec.pieces, nil)), "case %d: the pieces are the frame", c)
		assert.Equal(t, len(whole), p.Written())
		for i, piece := range rec.pieces[:len(rec.pieces)-1] {
			assert.GreaterOrEqual(t, len(piece), PieceBytes, "case %d piece %d: only the last piece is short", c, i)
		}
	}
}

// TestWf42AggregateFramesReadAsTheDocsSay writes seeded random /live-agg
// frames (appends of zero to many hosts, snapshots of zero to many ticks,
// the snapshot streamed in pieces flushed after random parts) and reads
// them back with the docs' decoder: every field of HostTick and
// GlobalsTick in the documented order, integers where counts are, null
// for a missing, NaN or infinite number, a snapshot's globals an array
// and an append's one object, the pieces one valid message equal to the
// frame built whole.
func TestWf42AggregateFramesReadAsTheDocsSay(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 2))
	for c := range 120 {
		// An append.
		ts := wf42TS(rng)
		hosts := rng.IntN(5)
		if c%40 == 0 {
			hosts = 1000 + rng.IntN(1000)
		}
		ticks := make([]HostTick, hosts)
		ptrs := make([]*HostTick, hosts)
		for i := range ticks {
			ticks[i] = wf42Tick(rng, ts)
			ptrs[i] = &ticks[i]
		}
		g := wf42Globals(rng, ts)
		data := AppendAggregateAppend(nil, ptrs, &g)
		f, err := wf42Decode(data)
		require.NoError(t, err, "append %d: %.300s", c, data)
		require.Equal(t, TypeAggregateAppend, f.Type)
		require.Len(t, f.Rows, hosts)
		for i := range ticks {
			wf42CheckTick(t, ticks[i], f.Rows[i], fmt.Sprintf("append %d row %d", c, i))
		}
		require.Len(t, f.Globals, 1)
		wf42CheckGlobals(t, g, f.Globals[0], fmt.Sprintf("append %d", c))

		// A snapshot: several ticks, thresholds of any length.
		th := DefaultThresholds
		if c%3 == 1 {
			th = nil
			for range rng.IntN(7) {
				th = append(th, wf42Float(rng))
			}
		}
		nt := rng.IntN(4)
		if c%60 == 0 {
			nt = 300
		}
		var rows []HostTick
		var gs []GlobalsTick
		for k := range nt {
			ts := int64(1714000000000 + 200*k)
			for range rng.IntN(6) {
				rows = append(rows, wf42Tick(rng, ts))
			}
			gs = append(gs, wf42Globals(rng, ts))
		}
		var whole, streamed AggregateSnapshot
		whole.Begin(nil, th)
		streamed.Begin(PieceBuffer(), th)
		var rec wf42Recorder
		p := Pieces{W: &rec}
		for i := range rows {
			whole.Row(&rows[i])
			streamed.Row(&rows[i])
			if rng.IntN(3) == 0 {
				require.NoError(t, streamed.Flush(&p, rng.IntN(4) == 0))
			}
		}
		for i := range gs {
			whole.Globals(&gs[i])
			streamed.Globals(&gs[i])
			if rng.IntN(3) == 0 {
				require.NoError(t, streamed.Flush(&p, rng.IntN(4) == 0))
			}
		}
		wholeBytes := bytes.Clone(whole.End())
		require.NoError(t, streamed.Flush(&p, true))
		got := append(bytes.Join(rec.pieces, nil), streamed.End()...)
		assert.Equal(t, string(wholeBytes), string(got), "snapshot %d: the pieces and End are the frame", c)

		f, err = wf42Decode(wholeBytes)
		require.NoError(t, err, "snapshot %d: %.300s", c, wholeBytes)
		require.Equal(t, TypeAggregateSnapshot, f.Type)
		require.Len(t, f.Thresholds, len(th))
		for i := range th {
			assert.True(t, wf42Same(wf42Want(th[i]), f.Thresholds[i]), "snapshot %d threshold %d", c, i)
		}
		require.Len(t, f.Rows, len(rows))
		for i := range rows {
			wf42CheckTick(t, rows[i], f.Rows[i], fmt.Sprintf("snapshot %d row %d", c, i))
		}
		require.Len(t, f.Globals, len(gs))
		for i := range gs {
			wf42CheckGlobals(t, gs[i], f.Globals[i], fmt.Sprintf("snapshot %d globals %d", c, i))
		}
	}
}

// TestWf42TheDocsDecoderRefusesWhatTheDocsDoNotAllow checks the probe's
// own decoder: a field out of order, a missing field, -0, a string for a
// number and a snapshot's globals as an object are refused.
func TestWf42TheDocsDecoderRefusesWhatTheDocsDoNotAllow(t *testing.T) {
	g := `{"ts":1,"events_ingested_total":1,"events_per_sec":1,"evicted_total":1,"requests_ingested_total":null}`
	h := `{"ts":1,"host":"h","cpu_avg":1,"cpu_sd":1,"cpu_n":1,"n_current":1,"anomalies_above":[],"anomalies_below":[],"requests_avg":1,"requests_sum":1,"requests_n":1,"window_age_seconds":1,"cpu_min":1,"cpu_max":1,"current_avg":1,"current_sd":1}`
	_, err := wf42Decode([]byte(`{"type":"aggregate-append","rows":[` + h + `],"globals":` + g + `}`))
	require.NoError(t, err)
	for _, bad := range []string{
		`{"rows":[],"type":"append"}`,
		`{"type":"append","rows":[[1,-0,1,"h"]]}`,
		`{"type":"append","rows":[[1.5,1,1,"h"]]}`,
		`{"type":"append","rows":[[1,"1",1,"h"]]}`,
		`{"type":"append","rows":[[1,1,1]]}`,
		`{"type":"aggregate-snapshot","thresholds":[],"rows":[],"globals":` + g + `}`,
		`{"type":"aggregate-append","rows":[` + strings.Replace(h, `"cpu_sd":1,"cpu_n":1`, `"cpu_n":1,"cpu_sd":1`, 1) + `],"globals":` + g + `}`,
		`{"type":"aggregate-append","rows":[],"globals":` + g + `}{}`,
	} {
		_, err := wf42Decode([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// ---------------------------------------------------------------------
// Against JavaScript itself.

// wf42Node returns the node binary, or skips.
func wf42Node(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: JSON.stringify cannot be compared")
	}
	return node
}

// TestWf42NumbersAndStringsAreWhatJSONStringifyWrites compares
// AppendFloat and AppendString with node's JSON.stringify, byte for byte,
// over seeded random doubles (any bit pattern) and strings (valid UTF-8:
// what JSON.stringify is given in a page): the package says numbers are
// written "in JavaScript's shortest round-trip form" and strings "escaped
// as JSON.stringify does".
func TestWf42NumbersAndStringsAreWhatJSONStringifyWrites(t *testing.T) {
	node := wf42Node(t)
	rng := rand.New(rand.NewPCG(42, 3))
	var floats []float64
	floats = append(floats, wf42Specials...)
	for range 20000 {
		floats = append(floats, wf42Float(rng))
	}
	for e := -330; e <= 310; e++ {
		floats = append(floats, math.Pow(10, float64(e)), -3*math.Pow(10, float64(e)))
	}
	var strs []string
	for range 3000 {
		strs = append(strs, wf42WantHost(wf42Host(rng)))
	}
	for r := rune(0); r < 0x100; r++ {
		strs = append(strs, string(r))
	}
	var in strings.Builder
	for _, f := range floats {
		fmt.Fprintf(&in, "f %016x\n", math.Float64bits(f))
	}
	for _, s := range strs {
		fmt.Fprintf(&in, "s %s\n", base64.StdEncoding.EncodeToString([]byte(s)))
	}
	const script = `
const lines = require('fs').readFileSync(0, 'utf8').split('\n');
const buf = new DataView(new ArrayBuffer(8));
const out = [];
for (const l of lines) {
  if (l.startsWith('f ')) {
    buf.setBigUint64(0, BigInt('0x' + l.slice(2)));
    out.push(JSON.stringify(buf.getFloat64(0)));
  } else if (l.startsWith('s ')) {
    out.push(JSON.stringify(Buffer.from(l.slice(2), 'base64').toString('utf8')));
  }
}
process.stdout.write(Buffer.from(out.join('\n')).toString('base64'));
`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	require.NoError(t, err)
	dec, err := base64.StdEncoding.DecodeString(string(out))
	require.NoError(t, err)
	got := strings.Split(string(dec), "\n")
	require.Len(t, got, len(floats)+len(strs))
	bad := 0
	for i, f := range floats {
		if w := string(AppendFloat(nil, f)); w != got[i] && bad < 10 {
			bad++
			t.Errorf("AppendFloat(%v) = %s, JSON.stringify = %s", f, w, got[i])
		}
	}
	for i, s := range strs {
		if w := string(AppendString(nil, s)); w != got[len(floats)+i] && bad < 20 {
			bad++
			t.Errorf("AppendString(%q) = %s, JSON.stringify = %s", s, w, got[len(floats)+i])
		}
	}
}

// TestWf42ARowAfterGlobalsPanics: AggregateSnapshot's rows come before
// its globals; a row after them would be written among the globals (valid
// JSON, rows read as globals), so Row panics instead.
func TestWf42ARowAfterGlobalsPanics(t *testing.T) {
	var s AggregateSnapshot
	s.Begin(nil, DefaultThresholds)
	s.Globals(&GlobalsTick{TS: 200})
	require.PanicsWithValue(t, "wire: AggregateSnapshot.Row after Globals", func() { s.Row(&HostTick{TS: 200, Host: "h"}) })
}
