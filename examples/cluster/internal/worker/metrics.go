package worker

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pond-go/pond/examples/cluster/internal/rows"
	"github.com/pond-go/pond/examples/cluster/internal/telemetry"
)

// replayStat is the last replay of a partition.
type replayStat struct {
	Events  uint64
	Seconds float64
}

// metrics are a worker's counters, guarded by Worker.mu.
type metrics struct {
	rebalances, committedTxns, abortedTxns uint64
	restarts                               uint64
	rowsOut, suppressed                    uint64
	leftOut                                uint64 // input events the series could not take
	samplesLeftOut                         uint64 // cpu samples beyond rows.MaxSamples, in committed rows
	replays, replayedEvents                uint64
	replayExpired                          uint64  // offsets of replay ranges the topic's retention had deleted
	assigned                               []int32 // the input partitions the worker holds, in order
	readyKnown                             bool    // no pending change, every partition replayed
	lag                                    map[int32]int64
	lastReplay                             map[int32]replayStat
	latency                                Samples
}

func (m *metrics) init() {
	m.lag = map[int32]int64{}
	m.lastReplay = map[int32]replayStat{}
	m.latency = NewSamples(4096)
}

func (m *metrics) setLag(p int32, lag int64) { m.lag[p] = max(0, lag) }

// Stats are a snapshot of a worker's counters.
type Stats struct {
	ID                                     string
	Rebalances, CommittedTxns, AbortedTxns uint64
	// Restarts counts the sessions replaced after a transaction could
	// not be ended (see Worker.Run).
	Restarts                uint64
	RowsOut, Suppressed     uint64
	LeftOut                 uint64
	SamplesLeftOut          uint64
	Replays, ReplayedEvents uint64
	// ReplayExpired counts the offsets of replay ranges that the input
	// topic's retention had deleted when a replay began: the windows
	// then start without those events.
	ReplayExpired     uint64
	Assigned          []int32 // input partitions held, in order
	Ready             bool
	Lag               map[int32]int64
	LastReplaySeconds map[int32]float64
	LastReplayEvents  map[int32]uint64
	LatencyMs         Samples // boundary → committed, wall ms
}

// Stats returns a snapshot of the counters.
func (w *Worker) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Stats{
		ID: w.cfg.ID, Rebalances: w.m.rebalances, CommittedTxns: w.m.committedTxns, AbortedTxns: w.m.abortedTxns, Restarts: w.m.restarts,
		RowsOut: w.m.rowsOut, Suppressed: w.m.suppressed, LeftOut: w.m.leftOut, SamplesLeftOut: w.m.samplesLeftOut, Replays: w.m.replays, ReplayedEvents: w.m.replayedEvents, ReplayExpired: w.m.replayExpired,
		Ready: w.m.readyKnown, Lag: map[int32]int64{}, LastReplaySeconds: map[int32]float64{}, LastReplayEvents: map[int32]uint64{},
		LatencyMs: w.m.latency.Clone(), Assigned: slices.Clone(w.m.assigned),
	}
	for p, l := range w.m.lag {
		s.Lag[p] = l
	}
	for p, r := range w.m.lastReplay {
		s.LastReplaySeconds[p] = r.Seconds
		s.LastReplayEvents[p] = r.Events
	}
	return s
}

// Ready reports whether every assigned partition has finished its replay.
func (w *Worker) Ready() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m.readyKnown
}

// Families are the metrics of a set of workers in one process.
func Families(ws []*Worker) []telemetry.Family {
	lag := telemetry.Family{Name: "pond_cluster_consumer_lag", Type: "gauge", Help: "Records behind the high watermark, per input partition, as of the last poll."}
	replay := telemetry.Family{Name: "pond_cluster_replay_seconds", Type: "gauge", Help: "Time the last replay of each input partition took."}
	var sum Stats
	var lat Samples
	for _, w := range ws {
		s := w.Stats()
		sum.Rebalances += s.Rebalances
		sum.CommittedTxns += s.CommittedTxns
		sum.AbortedTxns += s.AbortedTxns
		sum.Restarts += s.Restarts
		sum.RowsOut += s.RowsOut
		sum.Suppressed += s.Suppressed
		sum.LeftOut += s.LeftOut
		sum.SamplesLeftOut += s.SamplesLeftOut
		sum.Replays += s.Replays
		sum.ReplayedEvents += s.ReplayedEvents
		sum.ReplayExpired += s.ReplayExpired
		for _, p := range sortedKeys(s.Lag) {
			lag.Samples = append(lag.Samples, telemetry.Sample{Label: "partition", LabelValue: strconv.Itoa(int(p)), Value: float64(s.Lag[p])})
		}
		for _, p := range sortedKeys(s.LastReplaySeconds) {
			replay.Samples = append(replay.Samples, telemetry.Sample{Label: "partition", LabelValue: strconv.Itoa(int(p)), Value: s.LastReplaySeconds[p]})
		}
		lat.Merge(&s.LatencyMs)
	}
	return []telemetry.Family{
		lag, replay,
		telemetry.One("pond_cluster_rebalances_total", "counter", "Group callbacks (assigned, revoked, lost) seen.", float64(sum.Rebalances)),
		telemetry.One("pond_cluster_committed_transactions_total", "counter", "Transactions committed (rows and input offsets).", float64(sum.CommittedTxns)),
		telemetry.One("pond_cluster_aborted_transactions_total", "counter", "Transactions aborted (rebalance, fencing or error); their partitions are replayed.", float64(sum.AbortedTxns)),
		telemetry.One("pond_cluster_session_restarts_total", "counter", "Sessions replaced after a transaction could not be ended (its partitions are rebuilt).", float64(sum.Restarts)),
		telemetry.One("pond_cluster_rows_out_total", "counter", "Rows committed to the output topic.", float64(sum.RowsOut)),
		telemetry.One("pond_cluster_rows_suppressed_total", "counter", "Rows not written because their boundary was already committed.", float64(sum.Suppressed)),
		telemetry.One("pond_cluster_input_events_left_out_total", "counter", "Input events the series could not take: a value not 16 bytes or not finite, a timestamp out of range, older than the partition's latest, or of a new host past -max-hosts.", float64(sum.LeftOut)),
		telemetry.One("pond_cluster_cpu_samples_left_out_total", "counter", fmt.Sprintf("CPU samples of committed rows beyond the %d a row carries (each such row counts its own in cpu_samples_left_out).", rows.MaxSamples), float64(sum.SamplesLeftOut)),
		telemetry.One("pond_cluster_replays_total", "counter", "Partition rebuilds by replay.", float64(sum.Replays)),
		telemetry.One("pond_cluster_replayed_events_total", "counter", "Input events read by replays.", float64(sum.ReplayedEvents)),
		telemetry.One("pond_cluster_replay_expired_offsets_total", "counter", "Offsets of replay ranges the input topic's retention had deleted: the windows started without those events.", float64(sum.ReplayExpired)),
		telemetry.One("pond_cluster_commit_latency_p50_ms", "gauge", "Median wall time from a row's boundary to its commit, over recent rows.", lat.Quantile(0.5)),
		telemetry.One("pond_cluster_commit_latency_p99_ms", "gauge", "99th percentile of the same.", lat.Quantile(0.99)),
	}
}

func sortedKeys[V any](m map[int32]V) []int32 {
	ks := make([]int32, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
