//go:build !unix

package worker

import "os"

// pollable is f itself where the poller cannot take a pipe (poll_unix.go).
func pollable(f *os.File) *os.File { return f }
