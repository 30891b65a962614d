//go:build !race

package producer

// raceEnabled is set under -race, where sync.Pool lets go of some of what
// it is given.
const raceEnabled = false
