//go:build !race

package check_test

// checkRace is set when the race detector is on: its shadow memory does
// not fit under a small worker memory limit.
const checkRace = false
