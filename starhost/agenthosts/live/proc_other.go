//go:build !linux

package live

// processKey needs Linux's /proc: elsewhere no process names a live
// socket, and agent hosts keyed by process (Gemini CLI) are served
// one-shot.
func processKey(int) (string, int, bool) { return "", 0, false }
