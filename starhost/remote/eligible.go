package remote

import (
	"maps"
	"slices"
	"strings"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// Ineligible returns what a's remote tools need that an executor cannot
// give — the RemoteIneligible findings of `crystal-star check` over the
// same files — or nil. An executor refuses such a bundle before any of it
// runs.
func Ineligible(a Archive) []contrib.Diagnostic {
	files := map[string]*syntax.File{}
	for _, name := range slices.Sorted(maps.Keys(a.Files)) {
		if !strings.HasSuffix(name, ".star") {
			continue
		}
		f, err := builtins.Dialect.Parse(name, a.Files[name], 0)
		if err != nil {
			continue // the compiler reports it at activation
		}
		files[name] = f
	}
	caps := lifecycle.Capabilities
	if m, _ := lifecycle.ParseManifest("plugin.toml", a.Files["plugin.toml"], ""); m != nil {
		caps = m.Capabilities
	}
	var out []contrib.Diagnostic
	for _, d := range check.Run(check.Bundle{Plugin: a.Plugin, Files: files, Capabilities: caps}).Diagnostics {
		if d.Code == contrib.RemoteIneligible {
			out = append(out, d)
		}
	}
	return out
}
