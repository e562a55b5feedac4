package models_test

import "time"

// deadlineNow is a deadline already past when the call starts, so a
// timeout is observed without waiting.
func deadlineNow() time.Time { return time.Now().Add(-time.Second) }
