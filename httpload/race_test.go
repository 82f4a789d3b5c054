//go:build race

package httpload

// The race detector makes sync.Pool drop items at random, so allocation
// counts mean nothing under it.
const raceEnabled = true
