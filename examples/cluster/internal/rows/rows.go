// Package rows is the record the workers write to the output topic: one
// host's row of one 200 ms boundary, as JSON, with headers naming the
// boundary and the input partition it came from.
//
// Numbers are written in their shortest round-trip form ('g', -1), so a
// row read back is bit for bit the one written; a missing (NaN) number is
// null, as is an infinity, which JSON cannot hold. The host is a JSON
// string, any key included: a byte of it that is not UTF-8 is read back
// as U+FFFD. The field order is fixed:
//
//	{"ts":1735689600200,"host":"host-0001","cpu_avg":…,"cpu_sd":…,"cpu_n":…,
//	 "requests_avg":…,"requests_sum":…,"requests_n":…,"cpu_samples":[…],
//	 "cpu_min":…,"cpu_max":…,"current_avg":…,"current_sd":…}
//
// A row carries at most [MaxSamples] samples; when its slice held more,
// "cpu_samples_left_out":N follows "cpu_samples" (and only then, so a row
// of an ordinary slice is written as before).
package rows

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/pond-go/pond/examples/internal/wire"
)

// Header keys of an output record.
const (
	// HeaderBoundary is the boundary time in epoch ms, in decimal.
	HeaderBoundary = "pond-boundary-ms"
	// HeaderPartition is the input partition the row was computed from.
	HeaderPartition = "pond-partition"
)

// ErrRow is wrapped by the errors of Decode.
var ErrRow = errors.New("rows: bad row")

// Row is one host's row at one boundary: the 1m window's statistics and
// the 200 ms slice's. Missing numbers are NaN.
type Row struct {
	BoundaryMs int64
	Host       string

	CPUAvg, CPUSd float64
	CPUN          int64
	RequestsAvg   float64
	RequestsSum   float64
	RequestsN     int64

	// CPUSamples are the 200 ms slice's cpu values in event order, the
	// first MaxSamples of them; CPUSamplesLeftOut is the number of the
	// rest (see SetSamples).
	CPUSamples                            []float64
	CPUSamplesLeftOut                     int64
	CPUMin, CPUMax, CurrentAvg, CurrentSd float64
}

// MaxSamples is the most cpu samples a row carries. A float64 is at most
// 24 bytes of JSON, so the samples take at most 250 kB, well within a
// Kafka record's default limit of 1 MB: a burst of one host (60,000 events
// in one 200 ms slice made a 1.2 MB row) aborted every transaction that
// held its row, and the partition retried the same poll for ever. The
// rule depends only on the row, so a replay writes the same row.
const MaxSamples = 10000

// SetSamples sets the row's samples to the first MaxSamples of xs (xs
// itself, not a copy) and CPUSamplesLeftOut to the number of the rest.
func (r *Row) SetSamples(xs []float64) {
	n := min(len(xs), MaxSamples)
	r.CPUSamples, r.CPUSamplesLeftOut = xs[:n:n], int64(len(xs)-n)
}

// Key identifies a row: a host at a boundary. Exactly-once means each key
// is committed once.
type Key struct {
	Host       string
	BoundaryMs int64
}

// Key returns the row's key.
func (r *Row) Key() Key { return Key{r.Host, r.BoundaryMs} }

func appendNum(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// AppendJSON appends the row's JSON to b.
func (r *Row) AppendJSON(b []byte) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, r.BoundaryMs, 10)
	b = append(b, `,"host":`...)
	// JSON's quoting, not strconv's: Go's \x escapes are not JSON, and a
	// host with a control character in its key made a row no reader
	// could parse.
	b = wire.AppendString(b, r.Host)
	b = append(b, `,"cpu_avg":`...)
	b = appendNum(b, r.CPUAvg)
	b = append(b, `,"cpu_sd":`...)
	b = appendNum(b, r.CPUSd)
	b = append(b, `,"cpu_n":`...)
	b = strconv.AppendInt(b, r.CPUN, 10)
	b = append(b, `,"requests_avg":`...)
	b = appendNum(b, r.RequestsAvg)
	b = append(b, `,"requests_sum":`...)
	b = appendNum(b, r.RequestsSum)
	b = append(b, `,"requests_n":`...)
	b = strconv.AppendInt(b, r.RequestsN, 10)
	b = append(b, `,"cpu_samples":[`...)
	for i, v := range r.CPUSamples {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNum(b, v)
	}
	b = append(b, ']')
	if r.CPUSamplesLeftOut > 0 {
		b = append(b, `,"cpu_samples_left_out":`...)
		b = strconv.AppendInt(b, r.CPUSamplesLeftOut, 10)
	}
	b = append(b, `,"cpu_min":`...)
	b = appendNum(b, r.CPUMin)
	b = append(b, `,"cpu_max":`...)
	b = appendNum(b, r.CPUMax)
	b = append(b, `,"current_avg":`...)
	b = appendNum(b, r.CurrentAvg)
	b = append(b, `,"current_sd":`...)
	b = appendNum(b, r.CurrentSd)
	return append(b, '}')
}

// jsonRow is the decoding form: pointers, so null is told from 0.
type jsonRow struct {
	TS          *int64     `json:"ts"`
	Host        *string    `json:"host"`
	CPUAvg      *float64   `json:"cpu_avg"`
	CPUSd       *float64   `json:"cpu_sd"`
	CPUN        int64      `json:"cpu_n"`
	RequestsAvg *float64   `json:"requests_avg"`
	RequestsSum *float64   `json:"requests_sum"`
	RequestsN   int64      `json:"requests_n"`
	CPUSamples  []*float64 `json:"cpu_samples"`
	LeftOut     int64      `json:"cpu_samples_left_out"`
	CPUMin      *float64   `json:"cpu_min"`
	CPUMax      *float64   `json:"cpu_max"`
	CurrentAvg  *float64   `json:"current_avg"`
	CurrentSd   *float64   `json:"current_sd"`
}

func num(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Decode parses a row written by AppendJSON.
func Decode(data []byte) (Row, error) {
	var j jsonRow
	if err := json.Unmarshal(data, &j); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrRow, err)
	}
	if j.TS == nil || j.Host == nil {
		return Row{}, fmt.Errorf("%w: no ts or host in %.80q", ErrRow, data)
	}
	if j.LeftOut < 0 {
		// AppendJSON writes the field only to say how many samples it
		// left out: a reader adding it to the samples would go below
		// zero, or wrap.
		return Row{}, fmt.Errorf("%w: cpu_samples_left_out %d is negative", ErrRow, j.LeftOut)
	}
	r := Row{
		BoundaryMs: *j.TS, Host: *j.Host,
		CPUAvg: num(j.CPUAvg), CPUSd: num(j.CPUSd), CPUN: j.CPUN,
		RequestsAvg: num(j.RequestsAvg), RequestsSum: num(j.RequestsSum), RequestsN: j.RequestsN,
		CPUSamplesLeftOut: j.LeftOut,
		CPUMin:            num(j.CPUMin), CPUMax: num(j.CPUMax), CurrentAvg: num(j.CurrentAvg), CurrentSd: num(j.CurrentSd),
	}
	if j.CPUSamples != nil {
		r.CPUSamples = make([]float64, len(j.CPUSamples))
		for i, p := range j.CPUSamples {
			r.CPUSamples[i] = num(p)
		}
	}
	return r, nil
}
