package main

import "github.com/crystal-star/crystal-star/starhost"

// remedy is a blocker's or note's remedy as the CLI prints it: the
// library's words ("review the plugin, then grant acme.x"), then the
// crystal-star command of the operation that clears it.
func remedy(id string, action starhost.Action, lib string) string {
	switch action {
	case starhost.ActionGrant:
		return lib + "; run: crystal-star trust grant " + id
	case starhost.ActionEnable:
		return lib + "; run: crystal-star enable " + id
	}
	return lib
}

// noteAction is the operation that clears what a note reports: notes carry
// no Action, and only the trust codes have one operation that clears them
// whatever the cause.
func noteAction(code starhost.Code) starhost.Action {
	switch code {
	case "PluginUntrusted", "PluginTrustModified", "TrustFileUnreadable":
		return starhost.ActionGrant
	}
	return ""
}
