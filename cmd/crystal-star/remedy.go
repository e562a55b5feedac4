package main

import (
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

// remedy is a blocker's or stop reason's remedy as the CLI prints it. The
// library says what to do ("review the plugin, then grant acme.x"); the CLI
// names the crystal-star command that does it, keyed on the code.
func remedy(id string, code starhost.Code, lib string) string {
	grant := "run: crystal-star trust grant " + id
	switch code {
	case "PluginUntrusted":
		return "review the plugin, then " + grant
	case "PluginTrustModified":
		return "review the change, then " + grant
	case "TrustFileUnreadable":
		if by, _, ok := strings.Cut(lib, " by hand"); ok {
			return by + " by hand, then " + grant
		}
	case "PluginDisabled":
		if strings.HasPrefix(lib, "enable it") { // disabled in config.toml, not by the manifest
			return "run: crystal-star enable " + id
		}
	}
	return lib
}
