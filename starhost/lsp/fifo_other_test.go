//go:build !unix

package lsp

import "testing"

// mkfifo: there are no FIFOs to make here; the other cases still run.
func mkfifo(t *testing.T, path string) {}
