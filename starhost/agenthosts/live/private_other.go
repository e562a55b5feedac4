//go:build !unix

package live

import "errors"

// private refuses every directory: live sessions need Unix permissions.
func private(string) error { return errors.New("live sessions need a Unix system") }
