package main

import (
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

// The dev console's /mode switches the session mode plugins and the
// dispatch pipeline see: in plan mode only read-only tools run (MC4).
func init() {
	consoleCommands["mode"] = func(c *console, rest string) {
		if rest != "" {
			f := c.h.Session().Facts()
			f.Mode = rest
			c.h.Session().SetFacts(f)
		}
		c.printf("mode: %s", c.h.Session().Facts().Mode)
	}
}

// toolFlags describes a tool's definition fields for /tools (MC4): its
// canonical name and policy hints.
func toolFlags(t starhost.ToolInfo) string {
	flags := []string{t.CanonicalName}
	if t.ReadOnly {
		flags = append(flags, "read_only")
	}
	if t.RequiresApproval {
		flags = append(flags, "requires_approval")
	}
	return "[" + strings.Join(flags, ", ") + "]"
}
