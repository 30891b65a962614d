// Package sequence holds durations and fixed-step sequences of time
// boundaries, the maths every clock in pond-go runs on.
//
// # Durations
//
// [ParseDuration] reads the duration strings of pond-ts: a whole number and
// a unit, ms, s, m, h or d ("200ms", "30s", "1m"). Anything else is an
// error, and so is zero, which pond-ts accepts and then divides by.
//
// # Sequences
//
// [Every] gives the boundaries anchor + k·step for every integer k. Time is
// int64 nanoseconds since the Unix epoch; [Sequence.Start] is a floor
// division that is exact for negative times, so the bucket of t always
// holds [Start(t), Start(t) + Step()).
package sequence
