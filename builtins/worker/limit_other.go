//go:build !linux

package worker

// limitAddressSpace is a no-op where RLIMIT_AS is not available: the
// host's watchdog and the collector's soft limit remain.
func limitAddressSpace(int64) (uint64, string, error) { return 0, "", nil }
