//go:build !race

package aggregator

// raceEnabled is set under -race, where the load tests run smaller.
const raceEnabled = false
