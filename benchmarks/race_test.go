//go:build race

package benchmarks

// raceEnabled: the tests run under the race detector, about ten times
// slower, and the long ones scale down.
const raceEnabled = true
