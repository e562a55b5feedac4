package starhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/layout"
)

// TestH24_12_ProvidersFileIsLayouts holds the name go doc shows embedders
// equal to the one the host reads (issue 24, point 12).
func TestH24_12_ProvidersFileIsLayouts(t *testing.T) {
	if ProvidersFile != layout.ProvidersFile {
		t.Errorf("starhost.ProvidersFile = %q, layout.ProvidersFile = %q", ProvidersFile, layout.ProvidersFile)
	}
}

// TestH24_12_DefaultLimitsAreTheActivators holds the defaults an embedder
// reads on starhost equal to what the activator applies (issue 24, point
// 12: the Options table named builtins constants).
func TestH24_12_DefaultLimitsAreTheActivators(t *testing.T) {
	if DefaultMemoryLimit != builtins.DefaultMemoryLimit {
		t.Errorf("starhost.DefaultMemoryLimit = %d, builtins' = %d", DefaultMemoryLimit, builtins.DefaultMemoryLimit)
	}
	if DefaultCallbackTimeout != builtins.DefaultCallbackTimeout {
		t.Errorf("starhost.DefaultCallbackTimeout = %s, builtins' = %s", DefaultCallbackTimeout, builtins.DefaultCallbackTimeout)
	}
	if DefaultStepBudget != builtins.DefaultStepBudget {
		t.Errorf("starhost.DefaultStepBudget = %d, builtins' = %d", DefaultStepBudget, builtins.DefaultStepBudget)
	}
	l := (&Host{}).baseLimits()
	if l.MemoryLimit != DefaultMemoryLimit || l.CallbackTimeout != DefaultCallbackTimeout {
		t.Errorf("zero Options give %+v; want the documented defaults", l)
	}
}

// TestH24_1_OneDataDirOneOwner proves concurrent claims of one data
// directory by different plugin ids leave exactly one owner, recorded, and
// every other id refused with DataDirRefused (issue 24, point 1).
func TestH24_1_OneDataDirOneOwner(t *testing.T) {
	h := &Host{opts: Options{Home: t.TempDir(), Workspace: t.TempDir()}}
	const n = 8
	type answer struct {
		global  string
		refused *contrib.Diagnostic
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, _, refused := h.dataDirs(fmt.Sprintf("acme.p%d", i), "tools", contrib.SourceHome)
			answers[i] = answer{g, refused}
		}()
	}
	wg.Wait()
	owner := ""
	for i, a := range answers {
		switch {
		case a.refused == nil && owner != "":
			t.Errorf("acme.p%d and %s both own the directory", i, owner)
		case a.refused == nil:
			owner = fmt.Sprintf("acme.p%d", i)
		case a.refused.Code != contrib.DataDirRefused || a.global != "":
			t.Errorf("acme.p%d: refused %v with %q; want DataDirRefused and no directory", i, a.refused, a.global)
		}
	}
	globalOwners, projectOwners := h.paths().DataOwners()
	for _, f := range []string{globalOwners, projectOwners} {
		o, err := readDataOwners(f)
		if err != nil || o.Owners["tools"] != owner || owner == "" {
			t.Errorf("%s: %v, %v; want tools owned by %q", f, o.Owners, err, owner)
		}
	}
}

// TestH24_1_OwnerRecordsAreNeverClobbered proves records that cannot be
// read — garbage, an unknown key, a symlink planted by a repository — are
// refused and never written (issue 24, point 1).
func TestH24_1_OwnerRecordsAreNeverClobbered(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, owners string)
	}{
		{"garbage", func(t *testing.T, owners string) { writeFile(t, owners, `{"owners": {`) }},
		{"unknown key", func(t *testing.T, owners string) { writeFile(t, owners, `{"owners": {}, "trusted": ["x"]}`) }},
		{"symlink", func(t *testing.T, owners string) {
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			writeFile(t, target, `{"owners": {}}`)
			if err := os.Symlink(target, owners); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &Host{opts: Options{Home: t.TempDir(), Workspace: t.TempDir()}}
			_, owners := h.paths().DataOwners()
			if err := os.MkdirAll(filepath.Dir(owners), 0o755); err != nil {
				t.Fatal(err)
			}
			c.plant(t, owners)
			before := snapshotFile(t, owners)
			g, p, refused := h.dataDirs("acme.p", "tools", contrib.SourceHome)
			if refused == nil || refused.Code != contrib.DataDirRefused || g != "" || p != "" {
				t.Errorf("dataDirs = %q, %q, %v; want DataDirRefused and no directories", g, p, refused)
			}
			if after := snapshotFile(t, owners); after != before {
				t.Errorf("the records changed: %q, then %q", before, after)
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshotFile describes path without following a link: its kind and bytes.
func snapshotFile(t *testing.T, path string) string {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		data, _ := os.ReadFile(target)
		return "link to " + target + ": " + string(data)
	}
	data, _ := os.ReadFile(path)
	return string(data)
}

// TestH24_1_UnrecordedDataIsClaimedOnlyByInstalledPlugins proves the
// migration rule: a directory holding data without a record is claimed by
// an installed (home) or built-in plugin, a workspace plugin only in its
// own workspace's scope, a development plugin never (issue 24, point 1).
func TestH24_1_UnrecordedDataIsClaimedOnlyByInstalledPlugins(t *testing.T) {
	for _, c := range []struct {
		source       contrib.Source
		legacyGlobal bool // the unrecorded data is global, else project
		claims       bool
	}{
		{contrib.SourceHome, true, true},
		{contrib.SourceBuiltin, true, true},
		{contrib.SourceProject, true, false},
		{contrib.SourceProject, false, true},
		{contrib.SourceDev, true, false},
		{contrib.SourceDev, false, false},
	} {
		t.Run(fmt.Sprintf("%s_global=%v", c.source, c.legacyGlobal), func(t *testing.T) {
			h := &Host{opts: Options{Home: t.TempDir(), Workspace: t.TempDir()}}
			global, project := h.paths().Data("tools")
			legacy := project
			if c.legacyGlobal {
				legacy = global
			}
			if err := os.MkdirAll(legacy, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(legacy, "token"), "SECRET")
			g, _, refused := h.dataDirs("acme.p", "tools", c.source)
			if claims := refused == nil && g == global; claims != c.claims {
				t.Errorf("claimed = %v (refused: %v); want %v", claims, refused, c.claims)
			}
			// Refused, the plugin recorded nothing in either scope.
			if !c.claims {
				for _, f := range []string{filepath.Join(h.opts.Home, "data", "plugin-owners.json"),
					filepath.Join(h.opts.Workspace, ".crystal", "data", "plugin-owners.json")} {
					o, err := readDataOwners(f)
					if err != nil || o.Owners["tools"] != "" {
						t.Errorf("%s: %v, %v; want no record", f, o.Owners, err)
					}
				}
			}
		})
	}
}

// TestH24_1_LinkedProjectDataIsRefused: a symbolic link a repository
// plants on the way to a plugin's project data directory — .crystal,
// .crystal/data, .crystal/data/plugins or the directory itself — refuses
// the plugin its data directories instead of giving it the link's target;
// nothing is created or written through the link (issue 24, point 1).
func TestH24_1_LinkedProjectDataIsRefused(t *testing.T) {
	for _, planted := range []string{".crystal", ".crystal/data", ".crystal/data/plugins", ".crystal/data/plugins/tools"} {
		t.Run(planted, func(t *testing.T) {
			h := &Host{opts: Options{Home: t.TempDir(), Workspace: t.TempDir()}}
			target := t.TempDir() // what the link would expose: the user's ~/.ssh, say
			writeFile(t, filepath.Join(target, "id_ed25519"), "PRIVATE")
			link := filepath.Join(h.opts.Workspace, filepath.FromSlash(planted))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			g, p, refused := h.dataDirs("acme.p", "tools", contrib.SourceHome)
			if refused == nil || g != "" || p != "" {
				t.Fatalf("dataDirs through a link = %q, %q, %v; want refused", g, p, refused)
			}
			if refused.Code != contrib.DataDirRefused || !strings.Contains(refused.Message, link) {
				t.Errorf("refusal = %s: %s; want DataDirRefused naming %s", refused.Code, refused.Message, link)
			}
			entries, _ := os.ReadDir(target)
			if len(entries) != 1 {
				t.Errorf("the link's target holds %d entries; want only the file it had", len(entries))
			}
		})
	}
	// A real directory is given as before.
	h := &Host{opts: Options{Home: t.TempDir(), Workspace: t.TempDir()}}
	if _, p, refused := h.dataDirs("acme.p", "tools", contrib.SourceHome); refused != nil || p == "" {
		t.Fatalf("dataDirs without links = %q, %v", p, refused)
	}
}
