// Package wire holds the aggregator's WebSocket frames (the /live and
// /live-agg formats of examples/aggregator/README.md) and their JSON
// encoders.
//
// Frames are encoded by hand, appending to caller-owned buffers: field
// order is the Node implementation's insertion order, times are epoch
// milliseconds, numbers are written in JavaScript's shortest round-trip
// form, and a missing, NaN or infinite number is null. Missing numbers are
// NaN in the Go types.
//
// A snapshot, up to hundreds of megabytes, is written as one WebSocket
// message in pieces of [PieceBytes] by [Pieces], which the aggregator and
// the cluster's dashboard tier share; it stops at the next piece once the
// page reading it is dropped.
//
// The decoding types ([DecodedFrame] and friends) read any frame back with
// encoding/json, for the comparison tool, the bench probe and tests.
//
// The frames do not use schema.Table's AppendJSON encoders because they
// are not a table's JSON: a /live row is the positional array [time_ms,
// cpu, requests, host], where AppendJSON writes one object per row keyed
// by column name and AppendJSONColumns one array per column; a HostTick's
// fields are named and ordered as the Node aggregator's ("ts", not
// "time"), and n_current, the anomaly counts and window_age_seconds are
// computed per tick, not columns of the rolling; and the frames follow
// JSON.stringify where AppendJSON follows encoding/json: -0 is written 0
// (AppendJSON writes -0), \b and \f take their short escapes (AppendJSON
// writes \u0008 and \u000c), and U+2028 and U+2029 are not escaped. The
// raw rows are also encoded, once for every client, from columns copied
// out of the push's table, which they outlive.
package wire

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Frame types, the "type" field of every frame.
const (
	TypeSnapshot          = "snapshot"
	TypeAppend            = "append"
	TypeAggregateSnapshot = "aggregate-snapshot"
	TypeAggregateAppend   = "aggregate-append"
)

// DefaultThresholds are the σ thresholds anomalies are counted at.
var DefaultThresholds = []float64{1, 1.5, 2, 2.5, 3}

// HostTick is one host's row of one 200 ms tick on /live-agg. Numbers that
// may be null are NaN when missing.
type HostTick struct {
	TS   int64 // boundary time, epoch ms
	Host string

	CPUAvg, CPUSd float64 // over the 1m window
	CPUN          int     // rows in the 1m window

	NCurrent       int   // samples in the 200 ms slice
	AnomaliesAbove []int // one count per threshold
	AnomaliesBelow []int

	RequestsAvg float64 // over 1m, NaN when empty
	RequestsSum float64 // over 1m, 0 when empty
	RequestsN   int

	WindowAgeSeconds float64 // min(60, (ts − first event)/1000)

	CPUMin, CPUMax, CurrentAvg, CurrentSd float64 // over the 200 ms slice
}

// GlobalsTick is the per-tick global counters.
type GlobalsTick struct {
	TS                    int64
	EventsIngestedTotal   uint64
	EventsPerSec          int64
	EvictedTotal          uint64
	RequestsIngestedTotal float64
}

// AppendFloat appends f as JavaScript's JSON.stringify writes it: the
// shortest representation that round-trips, in exponent form below 1e-6
// and from 1e21 on, -0 as 0, and null for NaN and ±Inf.
func AppendFloat(b []byte, f float64) []byte {
	if f != f || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	if f == 0 {
		return append(b, '0')
	}
	abs := math.Abs(f)
	if abs < 1e-6 || abs >= 1e21 {
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// Go writes e-07, JavaScript e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// AppendString appends s as a JSON string, escaped as JSON.stringify does
// (control characters, quote and backslash; invalid UTF-8 becomes U+FFFD).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendRawRow appends one raw row as the positional array
// [time_ms, cpu, requests, host].
func AppendRawRow(b []byte, timeMs int64, cpu, requests float64, host string) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, timeMs, 10)
	b = append(b, ',')
	b = AppendFloat(b, cpu)
	b = append(b, ',')
	b = AppendFloat(b, requests)
	b = append(b, ',')
	b = AppendString(b, host)
	return append(b, ']')
}

// RawRows is a columnar block of raw rows, as a frame carries them.
type RawRows struct {
	TimeMs   []int64
	CPU      []float64
	Requests []float64
	Host     []string
}

// Len returns the number of rows.
func (r RawRows) Len() int { return len(r.TimeMs) }

// BeginRaw appends the start of a raw frame of type typ ("snapshot" or
// "append") up to the opening bracket of its rows.
func BeginRaw(b []byte, typ string) []byte {
	b = append(b, `{"type":`...)
	b = AppendString(b, typ)
	return append(b, `,"rows":[`...)
}

// AppendRawRows appends rows to a raw frame begun with [BeginRaw]; first
// says whether no row has been written yet.
func AppendRawRows(b []byte, rows RawRows, first bool) []byte {
	for i := range rows.TimeMs {
		if !first || i > 0 {
			b = append(b, ',')
		}
		b = AppendRawRow(b, rows.TimeMs[i], rows.CPU[i], rows.Requests[i], rows.Host[i])
	}
	return b
}

// EndRaw closes a raw frame.
func EndRaw(b []byte) []byte { return append(b, "]}"...) }

// AppendRawFrame appends a whole raw frame of one block of rows.
func AppendRawFrame(b []byte, typ string, rows RawRows) []byte {
	return EndRaw(AppendRawRows(BeginRaw(b, typ), rows, true))
}

func appendInts(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// AppendHostTick appends one HostTick object.
func AppendHostTick(b []byte, t *HostTick) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, t.TS, 10)
	b = append(b, `,"host":`...)
	b = AppendString(b, t.Host)
	b = append(b, `,"cpu_avg":`...)
	b = AppendFloat(b, t.CPUAvg)
	b = append(b, `,"cpu_sd":`...)
	b = AppendFloat(b, t.CPUSd)
	b = append(b, `,"cpu_n":`...)
	b = strconv.AppendInt(b, int64(t.CPUN), 10)
	b = append(b, `,"n_current":`...)
	b = strconv.AppendInt(b, int64(t.NCurrent), 10)
	b = append(b, `,"anomalies_above":`...)
	b = appendInts(b, t.AnomaliesAbove)
	b = append(b, `,"anomalies_below":`...)
	b = appendInts(b, t.AnomaliesBelow)
	b = append(b, `,"requests_avg":`...)
	b = AppendFloat(b, t.RequestsAvg)
	b = append(b, `,"requests_sum":`...)
	b = AppendFloat(b, t.RequestsSum)
	b = append(b, `,"requests_n":`...)
	b = strconv.AppendInt(b, int64(t.RequestsN), 10)
	b = append(b, `,"window_age_seconds":`...)
	b = AppendFloat(b, t.WindowAgeSeconds)
	b = append(b, `,"cpu_min":`...)
	b = AppendFloat(b, t.CPUMin)
	b = append(b, `,"cpu_max":`...)
	b = AppendFloat(b, t.CPUMax)
	b = append(b, `,"current_avg":`...)
	b = AppendFloat(b, t.CurrentAvg)
	b = append(b, `,"current_sd":`...)
	b = AppendFloat(b, t.CurrentSd)
	return append(b, '}')
}

// AppendGlobalsTick appends one GlobalsTick object.
func AppendGlobalsTick(b []byte, g *GlobalsTick) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, g.TS, 10)
	b = append(b, `,"events_ingested_total":`...)
	b = strconv.AppendUint(b, g.EventsIngestedTotal, 10)
	b = append(b, `,"events_per_sec":`...)
	b = strconv.AppendInt(b, g.EventsPerSec, 10)
	b = append(b, `,"evicted_total":`...)
	b = strconv.AppendUint(b, g.EvictedTotal, 10)
	b = append(b, `,"requests_ingested_total":`...)
	b = AppendFloat(b, g.RequestsIngestedTotal)
	return append(b, '}')
}

// AppendAggregateAppend appends an aggregate-append frame: the rows of one
// tick and its globals.
func AppendAggregateAppend(b []byte, rows []*HostTick, g *GlobalsTick) []byte {
	b = append(b, `{"type":"aggregate-append","rows":[`...)
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendHostTick(b, r)
	}
	b = append(b, `],"globals":`...)
	b = AppendGlobalsTick(b, g)
	return append(b, '}')
}

// AggregateSnapshot builds an aggregate-snapshot frame piece by piece:
// Begin, then every row (Row), then every globals tick (Globals), then
// End. Rows and globals are written in the order given, which must be
// increasing ts.
type AggregateSnapshot struct {
	b       []byte
	n       int
	globals bool
}

// Begin starts the frame in b (reusing its capacity).
func (s *AggregateSnapshot) Begin(b []byte, thresholds []float64) {
	b = append(b[:0], `{"type":"aggregate-snapshot","thresholds":[`...)
	for i, t := range thresholds {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendFloat(b, t)
	}
	s.b = append(b, `],"rows":[`...)
	s.n, s.globals = 0, false
}

// Row adds a host row, before any Globals: a row after them would be
// written among the globals, a frame that reads well and means something
// else, so it panics (a programmer's error).
func (s *AggregateSnapshot) Row(t *HostTick) {
	if s.globals {
		panic("wire: AggregateSnapshot.Row after Globals")
	}
	if s.n > 0 {
		s.b = append(s.b, ',')
	}
	s.n++
	s.b = AppendHostTick(s.b, t)
}

// Globals adds a globals tick; every row must have been added before.
func (s *AggregateSnapshot) Globals(g *GlobalsTick) {
	if !s.globals {
		s.b = append(s.b, `],"globals":[`...)
		s.globals, s.n = true, 0
	}
	if s.n > 0 {
		s.b = append(s.b, ',')
	}
	s.n++
	s.b = AppendGlobalsTick(s.b, g)
}

// Flush hands the bytes built so far to p, which writes them as a piece
// once they make one (or when final), so that a large snapshot is written
// in pieces (one WebSocket message written by several Writes) instead of
// held whole; it returns p's error. The pieces written, followed by End's,
// are the frame.
func (s *AggregateSnapshot) Flush(p *Pieces, final bool) error {
	s.b = p.Flush(s.b, final)
	return p.Err()
}

// End finishes the frame and returns it (after Flush, what is left of
// it).
func (s *AggregateSnapshot) End() []byte {
	if !s.globals {
		s.b = append(s.b, `],"globals":[`...)
	}
	return append(s.b, "]}"...)
}
