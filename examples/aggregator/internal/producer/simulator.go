// Package producer is the synthetic gRPC producer of the aggregator
// example: a seeded simulator of N hosts, one EventBatch per tick
// with one event per host, fanned out to every subscriber through a
// bounded drop-oldest queue, with its own /metrics (Prometheus),
// /metrics.json and /health.
package producer

import (
	"math"
	"strconv"

	"github.com/pond-go/pond/examples/aggregator/internal/eventsv1"
)

// baseMeans are the hosts' base CPU means, cycled by host index.
var baseMeans = [...]float64{0.55, 0.45, 0.65, 0.5, 0.6, 0.4, 0.7, 0.35}

// Burst shape: a burst adds BurstLift to a host's CPU for BurstMs.
const (
	BurstLift = 0.25
	BurstMs   = 4000
)

// HostName returns the name of host i (0-based): api-1, api-2, …
func HostName(i int) string { return "api-" + strconv.Itoa(i+1) }

// Simulator is the producer's signal model: per host a mean that random
// walks towards its base once per wall second, anomaly bursts, and uniform
// per-event noise. One uniform source drives every draw in a fixed order,
// so a seeded simulator is reproducible.
type Simulator struct {
	rand        func() float64
	variability float64
	hosts       []string
	base, mean  []float64
	burstUntil  []int64 // ms; a host is in a burst while now < burstUntil
	lastWalk    int64
	started     bool
	batch       eventsv1.EventBatch
	events      []eventsv1.Event
}

// NewSimulator returns a simulator of n hosts with the given noise width,
// drawing uniforms in [0, 1) from rand.
func NewSimulator(n int, variability float64, rand func() float64) *Simulator {
	s := &Simulator{rand: rand, variability: variability}
	s.hosts = make([]string, n)
	s.base = make([]float64, n)
	s.mean = make([]float64, n)
	s.burstUntil = make([]int64, n)
	s.events = make([]eventsv1.Event, n)
	s.batch.Events = make([]*eventsv1.Event, n)
	for i := range n {
		s.hosts[i] = HostName(i)
		s.base[i] = baseMeans[i%len(baseMeans)]
		s.mean[i] = s.base[i]
		s.batch.Events[i] = &s.events[i]
	}
	return s
}

// Hosts returns the host names in batch order.
func (s *Simulator) Hosts() []string { return s.hosts }

// Mean returns host i's current mean (for tests).
func (s *Simulator) Mean(i int) float64 { return s.mean[i] }

// InBurst reports whether host i is in a burst at nowMs.
func (s *Simulator) InBurst(i int, nowMs int64) bool { return nowMs < s.burstUntil[i] }

// Tick produces the batch for a tick at nowMs: one event per host, all at
// time nowMs, hosts in index order. The batch is the simulator's own and
// is overwritten by the next tick.
func (s *Simulator) Tick(nowMs int64) *eventsv1.EventBatch {
	if !s.started {
		s.started, s.lastWalk = true, nowMs
	}
	if elapsed := nowMs - s.lastWalk; elapsed >= 1000 {
		s.walk(nowMs, float64(elapsed)/1000)
		s.lastWalk = nowMs
	}
	for i := range s.hosts {
		cpu := s.mean[i]
		if nowMs < s.burstUntil[i] {
			cpu += BurstLift
		}
		cpu += (s.rand() - 0.5) * s.variability
		e := &s.events[i]
		e.TimeMs = nowMs
		e.Cpu = math.Min(1, math.Max(0, cpu))
		e.Requests = int64(math.Floor(s.rand() * 200))
		e.Host = s.hosts[i]
	}
	return &s.batch
}

// walk moves every mean towards its base with triangular noise, and starts
// bursts.
func (s *Simulator) walk(nowMs int64, sec float64) {
	for i := range s.hosts {
		noise := (s.rand() - 0.5 + s.rand() - 0.5) * 0.025 * math.Sqrt(sec)
		m := s.mean[i] + 0.15*sec*(s.base[i]-s.mean[i]) + noise
		s.mean[i] = math.Min(0.9, math.Max(0.15, m))
		if nowMs >= s.burstUntil[i] && s.rand() < 0.02*sec {
			s.burstUntil[i] = nowMs + BurstMs
		}
	}
}
