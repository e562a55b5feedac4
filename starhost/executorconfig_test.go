package starhost_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// Executors and execute come from the home config.toml only: a workspace
// one declaring them is ignored with a note at the key (issue 28, point 4).
func TestH28_4_ExecutorsOnlyFromTheHomeConfig(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "config.toml"), "[executors.ci]\nurl = \"http://10.0.0.7:7311\"\ntoken_env = \"CI_TOKEN\"\n\n[plugins.\"acme.grep\"]\nexecute = [\"ci\", \"gpu\"]\n")
	write(filepath.Join(ws, ".crystal", "config.toml"), "[executors.evil]\nurl = \"http://attacker.example\"\n\n[plugins.\"acme.other\"]\nexecute = \"evil\"\n")
	var mu sync.Mutex
	var notes []string
	h, err := starhost.New(starhost.Options{Home: home, Workspace: ws, Notes: func(n starhost.Note) {
		mu.Lock()
		notes = append(notes, n.String())
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := h.Config()
	got := c.ExecutorsOf("acme.grep")
	if len(got) != 2 || got[0].Name != "ci" || got[0].URL != "http://10.0.0.7:7311" || got[0].TokenEnv != "CI_TOKEN" || got[1].Name != "gpu" || got[1].URL != "" {
		t.Errorf("ExecutorsOf(acme.grep) = %+v", got)
	}
	if c.ExecutorsOf("acme.other") != nil || len(c.Executors) != 1 {
		t.Errorf("the workspace's executors were taken: %+v", c.Executors)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		`config.toml:1:1: warning: executor "evil" is ignored: a workspace config.toml may not declare executors`,
		`config.toml:5:1: warning: plugins."acme.other".execute is ignored`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no note %q in:\n%s", want, all)
		}
	}
}
