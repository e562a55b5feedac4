//go:build !race

package builtins

// raceEnabled: this test binary has the race detector.
const raceEnabled = false
