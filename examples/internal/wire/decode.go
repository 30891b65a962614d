package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Frame is any frame read back from JSON. Raw frames fill RawRows;
// aggregate frames fill Rows and Globals (one element for an append).
type Frame struct {
	Type       string
	Thresholds []float64
	RawRows    []RawRow
	Rows       []HostTick
	Globals    []GlobalsTick
}

// RawRow is one decoded raw row.
type RawRow struct {
	TimeMs   int64
	CPU      float64
	Requests float64
	Host     string
}

type jsonFrame struct {
	Type       string            `json:"type"`
	Thresholds []float64         `json:"thresholds"`
	Rows       []json.RawMessage `json:"rows"`
	Globals    json.RawMessage   `json:"globals"`
}

type jsonHostTick struct {
	TS               int64    `json:"ts"`
	Host             string   `json:"host"`
	CPUAvg           *float64 `json:"cpu_avg"`
	CPUSd            *float64 `json:"cpu_sd"`
	CPUN             int      `json:"cpu_n"`
	NCurrent         int      `json:"n_current"`
	AnomaliesAbove   []int    `json:"anomalies_above"`
	AnomaliesBelow   []int    `json:"anomalies_below"`
	RequestsAvg      *float64 `json:"requests_avg"`
	RequestsSum      *float64 `json:"requests_sum"`
	RequestsN        int      `json:"requests_n"`
	WindowAgeSeconds *float64 `json:"window_age_seconds"`
	CPUMin           *float64 `json:"cpu_min"`
	CPUMax           *float64 `json:"cpu_max"`
	CurrentAvg       *float64 `json:"current_avg"`
	CurrentSd        *float64 `json:"current_sd"`
}

type jsonGlobals struct {
	TS                    int64    `json:"ts"`
	EventsIngestedTotal   uint64   `json:"events_ingested_total"`
	EventsPerSec          int64    `json:"events_per_sec"`
	EvictedTotal          uint64   `json:"evicted_total"`
	RequestsIngestedTotal *float64 `json:"requests_ingested_total"`
}

func num(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Decode reads one frame.
func Decode(data []byte) (*Frame, error) {
	var jf jsonFrame
	if err := json.Unmarshal(data, &jf); err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	f := &Frame{Type: jf.Type, Thresholds: jf.Thresholds}
	switch jf.Type {
	case TypeSnapshot, TypeAppend:
		f.RawRows = make([]RawRow, len(jf.Rows))
		for i, r := range jf.Rows {
			// The time as an integer (a float64 holds exactly only those
			// up to 2^53), a missing number (null) as NaN, as the host
			// rows read theirs.
			var cells [4]json.RawMessage
			var cpu, req *float64
			var host *string
			err := json.Unmarshal(r, &cells)
			if err == nil {
				err = errors.Join(json.Unmarshal(cells[1], &cpu), json.Unmarshal(cells[2], &req), json.Unmarshal(cells[3], &host))
			}
			t, terr := strconv.ParseInt(string(cells[0]), 10, 64)
			if err != nil || terr != nil || host == nil {
				return nil, fmt.Errorf("wire: raw row %d: %.80s is not [integer, number, number, string]", i, r)
			}
			f.RawRows[i] = RawRow{TimeMs: t, CPU: num(cpu), Requests: num(req), Host: *host}
		}
	case TypeAggregateSnapshot, TypeAggregateAppend:
		f.Rows = make([]HostTick, len(jf.Rows))
		for i, r := range jf.Rows {
			var h jsonHostTick
			if err := json.Unmarshal(r, &h); err != nil {
				return nil, fmt.Errorf("wire: host row %d: %w", i, err)
			}
			f.Rows[i] = HostTick{
				TS: h.TS, Host: h.Host, CPUAvg: num(h.CPUAvg), CPUSd: num(h.CPUSd), CPUN: h.CPUN,
				NCurrent: h.NCurrent, AnomaliesAbove: h.AnomaliesAbove, AnomaliesBelow: h.AnomaliesBelow,
				RequestsAvg: num(h.RequestsAvg), RequestsSum: num(h.RequestsSum), RequestsN: h.RequestsN,
				WindowAgeSeconds: num(h.WindowAgeSeconds), CPUMin: num(h.CPUMin), CPUMax: num(h.CPUMax),
				CurrentAvg: num(h.CurrentAvg), CurrentSd: num(h.CurrentSd),
			}
		}
		var gs []jsonGlobals
		if jf.Type == TypeAggregateAppend {
			var g jsonGlobals
			if err := json.Unmarshal(jf.Globals, &g); err != nil {
				return nil, fmt.Errorf("wire: globals: %w", err)
			}
			gs = []jsonGlobals{g}
		} else if err := json.Unmarshal(jf.Globals, &gs); err != nil {
			return nil, fmt.Errorf("wire: globals: %w", err)
		}
		for _, g := range gs {
			f.Globals = append(f.Globals, GlobalsTick{
				TS: g.TS, EventsIngestedTotal: g.EventsIngestedTotal, EventsPerSec: g.EventsPerSec,
				EvictedTotal: g.EvictedTotal, RequestsIngestedTotal: num(g.RequestsIngestedTotal),
			})
		}
	default:
		return nil, fmt.Errorf("wire: unknown frame type %q", jf.Type)
	}
	return f, nil
}

// TopNRequest is the client→server control message of /live-agg:
// {"type":"set-top-n","n":<int|null>,"by":"cpu_avg"|"cpu_sd"|"requests_sum"}.
type TopNRequest struct {
	Type string   `json:"type"`
	N    *float64 `json:"n"`
	By   *string  `json:"by"`
}
