//go:build race

package main

// raceEnabled is true under the race detector, which slows the replay
// several times over.
const raceEnabled = true
