package lifecycle

import "github.com/crystal-star/crystal-star/contrib"

// attaches reports whether running stage on inst could do anything. An
// instance that cannot tell (no contrib.AttachProber) is always asked.
func attaches(inst contrib.Instance, stage contrib.AttachStage) bool {
	if p, ok := inst.(contrib.AttachProber); ok {
		return p.Attaches(stage)
	}
	return true
}
