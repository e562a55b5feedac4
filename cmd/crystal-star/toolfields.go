package main

import (
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

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
