// Package benchmarks holds the published workloads of pond-go and their
// benchmarks (see BENCH.md at the repository root).
//
// # Workloads
//
// The seed workload ([NewSeedStream], [NewSeedPipeline]) is the per-host
// aggregator pipeline of the monitoring example on a synthetic stream:
// P hosts, N events per second each, mulberry32 seed 42, one batch per
// tick, 70 s of event time; root retention 30 s, partition by host, a
// 1m and a 200ms window on a 200 ms clock, and an unpartitioned 1s
// count. The micro workload ([NewMicroStream], [NewMicroPipeline]) is a
// 1m rolling average of one column on the event trigger. Both are built
// with the public API only, and are defined in the repository's
// docs/workload.md closely enough for pond-ts and pond-rs to regenerate
// the same streams.
//
// # Answers
//
// TestSeedAnswers and TestMicroAnswer check pond-ts's checksums of the
// same streams (the three large seed configurations with -all-answers).
//
// # Benchmarks
//
//	go test -run '^$' -bench . ./benchmarks
//
// BenchmarkSeed reports rows/s, B/row and allocs/row per configuration,
// for the whole stream and for its steady phase; BenchmarkSeedMemory the
// live heap after 70 s; BenchmarkRollingMicro the micro workload.
package benchmarks
