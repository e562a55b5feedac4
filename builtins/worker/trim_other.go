//go:build !linux

package worker

// dropInitPages is Linux's only (trim_linux.go).
func dropInitPages() {}

func trimSoon() {}
