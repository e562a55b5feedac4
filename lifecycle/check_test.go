package lifecycle

import (
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

func checkCandidate(id, version string, deps map[string]string, exports ...string) *Candidate {
	return &Candidate{Dir: "/nonexistent/" + id, Name: id, Display: id,
		Manifest: &Manifest{ID: id, Version: version, Entry: "plugin.star", Dependencies: deps, Exports: exports}}
}

func candidateIDs(cs []*Candidate) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID())
	}
	return strings.Join(out, " ")
}

func TestDependencyOrderPutsProvidersFirst(t *testing.T) {
	consumer := checkCandidate("acme.app", "1.0.0", map[string]string{"acme.lib": "1.0.0", "acme.base": "1.0.0"})
	lib := checkCandidate("acme.lib", "1.0.0", map[string]string{"acme.base": "1.0.0"})
	base := checkCandidate("acme.base", "1.0.0", nil)
	broken := &Candidate{Name: "broken"} // no manifest: not ordered
	if got, want := candidateIDs(DependencyOrder([]*Candidate{consumer, broken, lib, base})), "acme.base acme.lib acme.app"; got != want {
		t.Errorf("DependencyOrder = %s; want %s", got, want)
	}
}

func admissionText(ds []contrib.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Code)+": "+d.Message)
	}
	return strings.Join(out, "\n")
}

func TestCheckAdmission(t *testing.T) {
	a := checkCandidate("acme.a", "1.0.0", map[string]string{"acme.b": "1.0.0"})
	b := checkCandidate("acme.b", "1.0.0", map[string]string{"acme.a": "1.0.0"})
	old := checkCandidate("acme.old", "1.0.0", map[string]string{"acme.base": "1.2.0"})
	base := checkCandidate("acme.base", "2.0.0", nil)
	clash := checkCandidate("acme.clash", "1.0.0", map[string]string{"acme.p": "1.0.0", "acme.q": "1.0.0"})
	p := checkCandidate("acme.p", "1.0.0", nil, "svc")
	q := checkCandidate("acme.q", "1.0.0", nil, "svc")
	future := checkCandidate("acme.future", "1.0.0", map[string]string{"acme.gone": "1.0.0"})
	future.Manifest.MinHostVersion = "9.0.0"
	got := CheckAdmission([]*Candidate{a, b, old, base, clash, p, q, future}, "0.1.0")
	for c, want := range map[*Candidate]string{
		a:      "PluginDependencyUnsatisfied: dependency cycle: acme.a -> acme.b -> acme.a",
		b:      "PluginDependencyUnsatisfied: dependency cycle: acme.b -> acme.a -> acme.b",
		old:    "PluginDependencyUnsatisfied: dependency acme.base 2.0.0 is not on the compatibility line of 1.2.0",
		clash:  `PluginApiAssemblyConflict: providers acme.p and acme.q both export "svc"`,
		future: "HostVersionTooOld: the plugin needs crystal-star 9.0.0 or newer; this is 0.1.0\nPluginDependencyUnsatisfied: dependency acme.gone is not installed (no plugin checked has that id)",
		base:   "",
		p:      "",
	} {
		if s := admissionText(got[c]); s != want {
			t.Errorf("%s:\n got %s\nwant %s", c.ID(), s, want)
		}
	}
	if pos := got[a][0].Pos; pos != (contrib.Pos{File: "acme.a/plugin.toml", Line: 1, Col: 1}) {
		t.Errorf("position of an unreadable manifest's key = %v; want 1:1 of the manifest", pos)
	}
}
