package lifecycle

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/tomlpos"
)

// This file holds the admission rules that need neither trust nor a running
// plugin, as pure functions of a set of discovered candidates, for
// `crystal-star check` (AT4: they read files only).

// KeyPos returns where key (a dotted path, e.g. "dependencies", "acme.base")
// is assigned in the candidate's plugin.toml, reading the file again; 1:1
// when the key is not found or the file cannot be read.
func (c *Candidate) KeyPos(key ...string) contrib.Pos {
	pos := contrib.Pos{File: c.Display + "/" + ManifestName, Line: 1, Col: 1}
	if data, err := os.ReadFile(filepath.Join(c.Dir, ManifestName)); err == nil {
		pos.Line, pos.Col = tomlpos.Position(data, key)
	}
	return pos
}

// DependencyOrder returns the candidates of cands that have a usable
// manifest, providers before their consumers and in load order otherwise
// (DC13). Shadowed candidates are listed but provide nothing; candidates in
// a dependency cycle keep their load order.
func DependencyOrder(cands []*Candidate) []*Candidate {
	byID := providers(cands)
	out := make([]*Candidate, 0, len(cands))
	state := make(map[*Candidate]int, len(cands)) // 1 visiting, 2 done
	var visit func(c *Candidate)
	visit = func(c *Candidate) {
		if state[c] != 0 {
			return
		}
		state[c] = 1
		if len(c.Manifest.Dependencies) == 0 {
			state[c] = 2
			out = append(out, c)
			return
		}
		for _, dep := range slices.Sorted(maps.Keys(c.Manifest.Dependencies)) {
			if q := byID[dep]; q != nil {
				visit(q)
			}
		}
		state[c] = 2
		out = append(out, c)
	}
	for _, c := range cands {
		if c.Manifest != nil {
			visit(c)
		}
	}
	return out
}

// providers maps each id to the candidate that would run under it.
func providers(cands []*Candidate) map[string]*Candidate {
	byID := make(map[string]*Candidate, len(cands))
	for _, c := range cands {
		if c.Manifest != nil && !c.Shadowed {
			byID[c.Manifest.ID] = c
		}
	}
	return byID
}

// CheckAdmission returns, for each candidate with a usable manifest, the
// problems that would keep it blocked whatever the trust file says, each at
// its key in plugin.toml: a min_host_version above hostVersion
// (HostVersionTooOld); a dependency that is not among cands, disabled, on
// another compatibility line or part of a cycle (PluginDependencyUnsatisfied,
// DC15); two providers that declare the same export (PluginApiAssemblyConflict,
// DC14). An empty hostVersion skips the version rule.
func CheckAdmission(cands []*Candidate, hostVersion string) map[*Candidate][]contrib.Diagnostic {
	byID := providers(cands)
	out := map[*Candidate][]contrib.Diagnostic{}
	for _, c := range cands {
		mf := c.Manifest
		if mf == nil {
			continue
		}
		report := func(code contrib.Code, pos contrib.Pos, format string, args ...any) {
			out[c] = append(out[c], contrib.Diag(code, mf.ID, pos, format, args...))
		}
		if mf.MinHostVersion != "" && hostVersion != "" && semver.Compare("v"+hostVersion, "v"+mf.MinHostVersion) < 0 {
			report(contrib.HostVersionTooOld, c.KeyPos("min_host_version"),
				"the plugin needs crystal-star %s or newer; this is %s", mf.MinHostVersion, hostVersion)
		}
		if cycle := dependencyCycle(byID, mf.ID); cycle != nil {
			report(contrib.PluginDependencyUnsatisfied, c.KeyPos("dependencies", cycle[1]),
				"dependency cycle: %s", strings.Join(cycle, " -> "))
			continue
		}
		owner := map[string]string{}
		for _, dep := range slices.Sorted(maps.Keys(mf.Dependencies)) {
			want, q := mf.Dependencies[dep], byID[dep]
			pos := c.KeyPos("dependencies", dep)
			switch {
			case q == nil:
				report(contrib.PluginDependencyUnsatisfied, pos, "dependency %s is not installed (no plugin checked has that id)", dep)
			case !compatible(want, q.Manifest.Version):
				report(contrib.PluginDependencyUnsatisfied, pos, "dependency %s %s is not on the compatibility line of %s", dep, q.Manifest.Version, want)
			case !q.Manifest.IsEnabled():
				report(contrib.PluginDependencyUnsatisfied, pos, "dependency %s is disabled in its %s", dep, ManifestName)
			default:
				for _, name := range q.Manifest.Exports {
					if other, clash := owner[name]; clash && other != dep {
						report(contrib.PluginAPIAssemblyConflict, pos, "providers %s and %s both export %q", other, dep, name)
					}
					owner[name] = dep
				}
			}
		}
	}
	return out
}

// dependencyCycle returns a dependency cycle through id, as a path that
// starts and ends with id, or nil.
func dependencyCycle(byID map[string]*Candidate, id string) []string {
	var path []string
	seen := map[string]bool{}
	var walk func(cur string) []string
	walk = func(cur string) []string {
		if len(path) > 0 && cur == id {
			return append(slices.Clone(path), cur)
		}
		q := byID[cur]
		if q == nil || seen[cur] {
			return nil
		}
		seen[cur] = true
		path = append(path, cur)
		defer func() { path = path[:len(path)-1] }()
		for _, dep := range slices.Sorted(maps.Keys(q.Manifest.Dependencies)) {
			if c := walk(dep); c != nil {
				return c
			}
		}
		return nil
	}
	return walk(id)
}
