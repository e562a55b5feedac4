//go:build !unix

package worker

import "os"

// blocking is f itself off unix (read_unix.go).
func blocking(f *os.File) *os.File { return f }
