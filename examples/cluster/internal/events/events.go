// Package events is the cluster's input: the seed workload's synthetic
// stream (docs/workload.md, the stream benchmarks.NewSeedStream
// builds) computed tick by tick from any starting tick, and the Kafka
// record that carries one event.
//
// A record's key is the host, its timestamp the event time (ms), and its
// value 16 bytes: cpu and requests as little-endian float64 bits, so a
// value read back is bit for bit the one produced.
package events

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/pond-go/pond/benchmarks"
)

// ErrValue is returned for a record value that is not 16 bytes.
var ErrValue = errors.New("events: record value is not 16 bytes")

// ValueLen is the length of an encoded value.
const ValueLen = 16

// Event is one row of the stream.
type Event struct {
	TimeMs   int64
	CPU      float64
	Requests float64
	Host     string
}

// AppendValue appends the record value of e to dst.
func AppendValue(dst []byte, e *Event) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.CPU))
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.Requests))
}

// DecodeValue reads cpu and requests from a record value.
func DecodeValue(v []byte) (cpu, requests float64, err error) {
	if len(v) != ValueLen {
		return 0, 0, ErrValue
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(v)),
		math.Float64frombits(binary.LittleEndian.Uint64(v[8:])), nil
}

// drawsPerRow is the number of uniforms each row draws (docs/workload.md).
const drawsPerRow = 15

// Stream is the seed stream of P hosts at N events per second per host,
// with tick k at T0 + k·(1000/N) ms. The generator is mulberry32, whose
// state is a counter, so a Stream starts at any tick in O(1): a restarted
// producer goes on with exactly the events it would have sent.
type Stream struct {
	Hosts  []string
	TickMs int64
	T0Ms   int64
	seed   uint32
}

// NewStream returns the stream of p hosts at n events/s each (n divides
// 1000), its first tick at t0Ms, drawn from mulberry32(seed). The seed
// workload is NewStream(p, n, benchmarks.T0.UnixMilli(), 42).
func NewStream(p, n int, t0Ms int64, seed uint32) (*Stream, error) {
	if p <= 0 || n <= 0 || 1000%n != 0 {
		return nil, errors.New("events: hosts must be positive and the rate must divide 1000")
	}
	s := &Stream{Hosts: make([]string, p), TickMs: int64(1000 / n), T0Ms: t0Ms, seed: seed}
	for h := range s.Hosts {
		s.Hosts[h] = benchmarks.HostName(h)
	}
	return s, nil
}

// Time returns the event time of tick k.
func (s *Stream) Time(k int64) time.Time { return time.UnixMilli(s.T0Ms + k*s.TickMs) }

// Tick appends the P events of tick k to dst, hosts in order.
func (s *Stream) Tick(dst []Event, k int64) []Event {
	// mulberry32's state after d draws is seed + d·0x6D2B79F5.
	d := uint32(k) * uint32(len(s.Hosts)) * drawsPerRow
	rng := benchmarks.NewMulberry32(s.seed + d*0x6D2B79F5)
	t := s.T0Ms + k*s.TickMs
	for h := range s.Hosts {
		var u [drawsPerRow]float64
		for j := range u {
			u[j] = rng.Next()
		}
		sum := 0.0
		for j := range 12 {
			sum += u[j]
		}
		cpu := 0.5 + float64(0.1*(sum-6))
		if u[12] < 0.01 {
			cpu = 0.8 + float64(0.2*u[13])
		}
		cpu = math.Min(1, math.Max(0, cpu))
		dst = append(dst, Event{TimeMs: t, CPU: cpu, Requests: 70 + math.Floor(u[14]*61), Host: s.Hosts[h]})
	}
	return dst
}
