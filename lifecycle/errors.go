package lifecycle

import (
	"errors"
	"strings"
)

// ErrUnknownPlugin is what Reload wraps when the directory it was given
// holds no plugin the manager knows. Test it with errors.Is.
var ErrUnknownPlugin = errors.New("no known plugin in this directory")

// BlockedError says why a plugin's content did not go live because of
// blockers (DC24): a missing grant, an unmet dependency, an unsupported
// host version. The blockers are also in the plugin's projection.
type BlockedError struct {
	Plugin   string
	Blockers []Blocker
}

// Error lists the blockers' messages with their codes.
func (e *BlockedError) Error() string {
	msgs := make([]string, len(e.Blockers))
	for i, b := range e.Blockers {
		msgs[i] = b.Message + " [" + string(b.Code) + "]"
	}
	return "plugin " + e.Plugin + " is blocked: " + strings.Join(msgs, "; ")
}
